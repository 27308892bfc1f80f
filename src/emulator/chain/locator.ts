import type { Datasets } from '../datasets.js';
import type { RecordStore } from '../store.js';
import { TRANSACTION_COLLECTIONS } from './layouts.js';

// Finds the API record behind a transaction hash: for each collection, the second each
// hash is stamped (one entry per transaction), kept in step with the stores through
// Datasets' watcher. The record itself is read from its store when asked, so a status
// that changed (a pending record confirmed) or a record removed is seen as it is now.
// Stores are indexed when they are built; a hash none of them holds builds the others.

export interface Located {
  collection: string;
  record: Record<string, any>;
}

const HASH = /"transactionHash":"(0x[0-9a-fA-F]{64})"/g;

export class Locator {
  /** collection → transaction hash (lower case) → timestamp of its record. */
  private readonly seconds = new Map<string, Map<string, number>>();

  constructor(
    private readonly datasets: Datasets,
    private readonly chain: string,
  ) {
    datasets.watch({
      built: (c, collection, store) => {
        if (c === chain && TRANSACTION_COLLECTIONS.includes(collection)) this.index(collection, store);
      },
      placed: (c, collection, entry) => {
        const map = c === chain ? this.seconds.get(collection) : undefined;
        // A store not built yet is indexed whole when it is.
        if (map) for (const hash of hashesOf(entry.record)) map.set(hash, entry.timestamp);
      },
    });
    for (const collection of TRANSACTION_COLLECTIONS) {
      const store = datasets.peek(chain, collection);
      if (store) this.index(collection, store);
    }
  }

  locate(hash: string): Located | undefined {
    const wanted = hash.toLowerCase();
    for (const collection of this.seconds.keys()) {
      const found = this.find(collection, wanted);
      if (found) return found;
    }
    for (const collection of TRANSACTION_COLLECTIONS) {
      if (this.seconds.has(collection)) continue;
      this.datasets.store(this.chain, collection);
      const found = this.find(collection, wanted);
      if (found) return found;
    }
    return undefined;
  }

  private find(collection: string, hash: string): Located | undefined {
    const timestamp = this.seconds.get(collection)?.get(hash);
    if (timestamp === undefined) return undefined;
    const body = this.datasets.store(this.chain, collection).bodiesAt(timestamp).find((b) => b.includes(hash));
    return body === undefined ? undefined : { collection, record: JSON.parse(body) };
  }

  private index(collection: string, store: RecordStore): void {
    const map = new Map<string, number>();
    for (const [timestamp, body] of store.scan()) for (const m of body.matchAll(HASH)) map.set(m[1].toLowerCase(), timestamp);
    this.seconds.set(collection, map);
  }
}

function hashesOf(record: object): string[] {
  const r = record as { transactionHash?: string; receivers?: { transactionHash?: string }[] };
  const hashes = r.transactionHash ? [r.transactionHash] : (r.receivers ?? []).map((x) => x.transactionHash ?? '');
  return hashes.filter((h) => h !== '').map((h) => h.toLowerCase());
}
