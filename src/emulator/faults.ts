import { Random } from './prng.js';
import { HttpError } from './reply.js';

// Fault injection for client resilience tests: a seeded share of API responses (never
// control routes) become server errors, rate limits, resets, truncated bodies or slow
// answers. The same seed and the same request sequence give the same faults.

export const FAULT_KINDS = ['500', '502', '503', '429', 'reset', 'truncate', 'slow'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultOptions {
  /** Share of API responses that fail, 0..1. */
  rate: number;
  kinds: FaultKind[];
  seed?: number;
  /** Retry-After of a 429, in seconds (default 1). */
  retryAfter?: number;
  /** Delay of a slow response (default 2000 ms). */
  slowMs?: number;
}

export function parseFaultOptions(body: Record<string, unknown>): FaultOptions {
  const { rate, kinds, seed, retryAfter, slowMs } = body;
  if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)) throw new HttpError(400, 'Invalid rate: expected a number from 0 to 1');
  const list = kinds ?? [...FAULT_KINDS];
  if (!Array.isArray(list) || list.length === 0 || !list.every((k) => (FAULT_KINDS as readonly unknown[]).includes(k))) {
    throw new HttpError(400, `Invalid kinds: expected a non-empty array of ${FAULT_KINDS.join(', ')}`);
  }
  const optionalInt = (value: unknown, name: string) => {
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0)) throw new HttpError(400, `Invalid ${name}: expected an integer >= 0`);
    return value as number | undefined;
  };
  return {
    rate,
    kinds: list as FaultKind[],
    seed: optionalInt(seed, 'seed'),
    retryAfter: optionalInt(retryAfter, 'retryAfter'),
    slowMs: optionalInt(slowMs, 'slowMs'),
  };
}

export class FaultInjector {
  private options: Required<FaultOptions> | undefined;
  private random = new Random(0);

  /** Replaces the configuration and restarts the seeded sequence; undefined turns faults off. */
  configure(options: FaultOptions | undefined): void {
    this.options = options && {
      rate: options.rate,
      kinds: options.kinds,
      seed: options.seed ?? 1,
      retryAfter: options.retryAfter ?? 1,
      slowMs: options.slowMs ?? 2000,
    };
    this.random = new Random(this.options?.seed ?? 0);
  }

  get current(): Required<FaultOptions> | undefined {
    return this.options;
  }

  /** The fault of the next API response, if any. */
  next(): FaultKind | undefined {
    const o = this.options;
    if (!o || o.rate === 0) return undefined;
    if (this.random.float() >= o.rate) return undefined;
    return this.random.pick(o.kinds);
  }
}
