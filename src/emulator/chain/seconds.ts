import type { Datasets } from '../datasets.js';
import type { RecordStore } from '../store.js';
import { TRANSACTION_COLLECTIONS } from './layouts.js';

// The chain's transactions by the second the API stamps them (a wallet-to-wallet
// payment's receivers each by their own), sorted, so eth_getLogs finds the transactions
// of a range of blocks by two binary searches rather than a scan of every record. Made
// on the first eth_getLogs (most uses of the emulator never ask one), then kept in step
// with the stores through Datasets' watcher, as the Locator is. Only stores built
// already are in it: a store is generated when the API or the chain first needs it, and
// generating every collection of a large emulator to answer one filter takes minutes (a
// record's own store is built before its receipt can be asked for). A record moved to
// another second keeps its old entry too: callers build each transaction and check its
// block, so a stale entry finds nothing.

type Entry = [second: number, hash: string];

export class TransactionSeconds {
  /** Sorted by second; undefined until the first question. */
  private entries?: Entry[];

  constructor(
    private readonly datasets: Datasets,
    private readonly chain: string,
  ) {
    datasets.watch({
      built: (c, collection, store) => {
        if (this.entries && c === chain && TRANSACTION_COLLECTIONS.includes(collection)) this.index(this.entries, collection, store);
      },
      placed: (c, collection, entry) => {
        const entries = this.entries;
        // A store not built yet is indexed whole when it is.
        if (!entries || c !== chain || !TRANSACTION_COLLECTIONS.includes(collection) || !datasets.peek(chain, collection)) return;
        for (const e of entriesOf(collection, entry.timestamp, entry.record)) entries.splice(lowerBound(entries, e[0] + 1), 0, e);
      },
    });
  }

  /** The hashes (lower case) of the transactions stamped from `from` to `to` seconds, each once. */
  between(from: number, to: number): string[] {
    const entries = (this.entries ??= this.indexBuilt());
    const hashes = new Set<string>();
    for (let i = lowerBound(entries, from); i < entries.length && entries[i][0] <= to; i++) hashes.add(entries[i][1]);
    return [...hashes];
  }

  private indexBuilt(): Entry[] {
    const entries: Entry[] = [];
    for (const collection of TRANSACTION_COLLECTIONS) {
      const store = this.datasets.peek(this.chain, collection);
      if (store) this.index(entries, collection, store);
    }
    return entries;
  }

  private index(entries: Entry[], collection: string, store: RecordStore): void {
    for (const [timestamp, body] of store.scan()) entries.push(...entriesOf(collection, timestamp, JSON.parse(body)));
    entries.sort((a, b) => a[0] - b[0]);
  }
}

/** The first entry stamped `second` or later. */
function lowerBound(entries: readonly Entry[], second: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid][0] < second) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function entriesOf(collection: string, timestamp: number, record: object): Entry[] {
  const r = record as { transactionHash?: unknown; receivers?: { transactionHash?: unknown; timestamp?: unknown }[] };
  if (collection !== 'wallet-to-wallet/payments') return typeof r.transactionHash === 'string' ? [[timestamp, r.transactionHash.toLowerCase()]] : [];
  return (r.receivers ?? []).flatMap((x): Entry[] => (typeof x.transactionHash === 'string' ? [[typeof x.timestamp === 'number' ? x.timestamp : timestamp, x.transactionHash.toLowerCase()]] : []));
}
