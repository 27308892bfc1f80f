import { KNOWN_CHAINS } from '../../registry/validators.js';
import type { ChainSlug } from '../../chain/model.js';
import type { Datasets } from '../datasets.js';
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
    // A transaction stamped ahead of the head is in a block the chain has reached.
    datasets.watch({ placed: (_chain, collection, entry) => TRANSACTION_COLLECTIONS.includes(collection) && this.clock.reach(entry.timestamp) });
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
