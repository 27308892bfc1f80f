import { KNOWN_CHAINS } from '../../registry/validators.js';
import type { ChainSlug } from '../../chain/model.js';
import type { Datasets } from '../datasets.js';
import type { StoredRecord } from '../store.js';
import { EmulatorChain } from './chain.js';
import { ChainClock } from './clock.js';
import { TRANSACTION_COLLECTIONS } from './layouts.js';

// The emulator's chains, one per API chain, made when first asked for, on one clock.

export class EmulatorChains {
  readonly clock: ChainClock;
  private readonly chains = new Map<string, EmulatorChain>();

  /** `start`: the head's time when the emulator starts (its anchor, unless none was given). */
  constructor(
    private readonly datasets: Datasets,
    private readonly seed: number,
    start: number = datasets.options.now,
    wallMs?: () => number,
  ) {
    this.clock = new ChainClock(start, wallMs);
    // A transaction stamped ahead of the head is in a block the chain has reached: the
    // record's, and a wallet-to-wallet payment's receivers' (sent up to 30 s after it).
    datasets.watch({ placed: (_chain, collection, entry) => TRANSACTION_COLLECTIONS.includes(collection) && this.clock.reach(latestTransaction(entry)) });
  }

  static isChain(chain: string): chain is ChainSlug {
    return (KNOWN_CHAINS as readonly string[]).includes(chain);
  }

  of(chain: ChainSlug): EmulatorChain {
    let c = this.chains.get(chain);
    if (!c) {
      c = new EmulatorChain(chain, this.datasets, this.clock, this.seed);
      this.chains.set(chain, c);
    }
    return c;
  }
}

/** The time of a stored record's latest transaction: its own, or its receivers' when later. */
function latestTransaction(entry: StoredRecord): number {
  const receivers = (entry.record as { receivers?: { timestamp?: unknown }[] }).receivers;
  let latest = entry.timestamp;
  for (const x of receivers ?? []) if (typeof x.timestamp === 'number' && x.timestamp > latest) latest = x.timestamp;
  return latest;
}
