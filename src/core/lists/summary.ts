import Big from 'big.js';

// --summary: what a finance user asks of a list first. Totals use exact decimal
// arithmetic (big.js) on the amount strings; nothing passes through a float.

export interface Summary {
  count: number;
  /** token → field → exact decimal total, e.g. { USDT: { amount: "12.5", fee: "0.125" } }. */
  totals: Record<string, Record<string, string>>;
  statuses: Record<string, number>;
  /** Billings: success = 1 or not. */
  succeeded?: number;
  failed?: number;
  /** Cancellations: forced by a plan admin or operational account. */
  forced?: number;
  firstTimestamp?: number;
  lastTimestamp?: number;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;
/** Totals print in this order within a token, whichever record came first. */
const FIELD_ORDER = ['amount', 'fee', 'serviceFee', 'receivers.amount', 'receivers.fee', 'swaps.inputAmount', 'swaps.outputAmount'];

export class Summariser {
  private count = 0;
  private totals = new Map<string, Map<string, Big>>();
  private statuses = new Map<string, number>();
  private succeeded = 0;
  private failed = 0;
  private forced = 0;
  private sawSuccess = false;
  private sawForced = false;
  private first?: number;
  private last?: number;

  add(r: Record<string, unknown>): void {
    this.count++;
    for (const { token, field, value } of amountsOf(r)) {
      let fields = this.totals.get(token);
      if (!fields) this.totals.set(token, (fields = new Map()));
      fields.set(field, (fields.get(field) ?? new Big(0)).plus(value));
    }
    const status = str(r.transactionStatus);
    if (status !== undefined) this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (r.success !== undefined) {
      this.sawSuccess = true;
      if (r.success === 1) this.succeeded++;
      else this.failed++;
    }
    if (typeof r.forced === 'boolean') {
      this.sawForced = true;
      if (r.forced) this.forced++;
    }
    if (typeof r.timestamp === 'number') {
      if (this.first === undefined || r.timestamp < this.first) this.first = r.timestamp;
      if (this.last === undefined || r.timestamp > this.last) this.last = r.timestamp;
    }
  }

  result(): Summary {
    const totals: Summary['totals'] = {};
    for (const [token, fields] of [...this.totals].sort(([a], [b]) => a.localeCompare(b))) {
      const ordered = [...fields].sort(([a], [b]) => FIELD_ORDER.indexOf(a) - FIELD_ORDER.indexOf(b));
      totals[token] = Object.fromEntries(ordered.map(([f, v]) => [f, v.toFixed()]));
    }
    return {
      count: this.count,
      totals,
      statuses: Object.fromEntries([...this.statuses].sort(([a], [b]) => a.localeCompare(b))),
      ...(this.sawSuccess ? { succeeded: this.succeeded, failed: this.failed } : {}),
      ...(this.sawForced ? { forced: this.forced } : {}),
      ...(this.first !== undefined ? { firstTimestamp: this.first, lastTimestamp: this.last } : {}),
    };
  }
}

export interface Amount {
  token: string;
  /** Where in the record: `amount`, `fee`, `serviceFee`, `receivers.amount`, `swaps.outputAmount`… */
  field: string;
  /** A decimal string, never a float. */
  value: string;
}

/**
 * Every amount a record carries, with its token: what --summary totals and what
 * --chart --token sums. A swap's output is counted in its own output token.
 */
export function* amountsOf(r: Record<string, unknown>): Generator<Amount> {
  const token = str(r.token) ?? str(r.inputToken) ?? '(no token)';
  const at = (token: string, field: string, value: unknown): Amount[] =>
    typeof value === 'string' && DECIMAL.test(value) ? [{ token, field, value }] : [];
  for (const field of ['amount', 'fee', 'serviceFee']) yield* at(token, field, r[field]);
  for (const rec of arr(r.receivers)) {
    yield* at(token, 'receivers.amount', rec.amount);
    yield* at(token, 'receivers.fee', rec.fee);
  }
  for (const swap of arr(r.swaps)) {
    yield* at(token, 'swaps.inputAmount', swap.inputAmount);
    yield* at(str(swap.outputToken) ?? '(no token)', 'swaps.outputAmount', swap.outputAmount);
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function arr(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => x !== null && typeof x === 'object') : [];
}
