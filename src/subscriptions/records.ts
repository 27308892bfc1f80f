import { MalformedResponseError } from '../core/runtime/errors.js';
import { DECIMAL, readDecimal } from './exact.js';
import { mrrAtto } from './mrr.js';

// What the engine keeps of each record, compactly: a billing is six numbers in plain
// arrays (its subscription, time, cycle, outcome, and its token, plan and amount as one
// shared label), about 40 bytes. A caller can feed 1,000,000 billings a chunk at a time
// (addBilling) and let each chunk go; ledger and metrics then read one subscription at a
// time, its billings sorted once.

export interface BillingInput {
  subscriptionId: string;
  planId: string;
  success: number;
  amount: string;
  token: string;
  timestamp: number;
  cycleStart: number;
  cycleEnd: number;
  transactionStatus: string;
  transactionHash: string;
}

export interface CancellationInput {
  subscriptionId: string;
  planId: string;
  timestamp: number;
  forced: boolean;
  transactionStatus: string;
  transactionHash: string;
}

export interface EngineInput {
  billings: readonly BillingInput[];
  cancellations: readonly CancellationInput[];
}

/** Failed: success not 1 or status failed (the one meaning of --failed and --summary). */
export function failedBilling(b: Pick<BillingInput, 'success' | 'transactionStatus'>): boolean {
  return (b.success !== undefined && b.success !== null && Number(b.success) !== 1) || b.transactionStatus === 'failed';
}

/** Paid: success 1 and confirmed. Neither paid nor failed (pending) counts as neither. */
export function paidBilling(b: Pick<BillingInput, 'success' | 'transactionStatus'>): boolean {
  return Number(b.success) === 1 && b.transactionStatus === 'confirmed';
}

/** How a billing counts, for a subscription's history (`payrec subscriptions ID`). */
export function billingOutcome(b: Pick<BillingInput, 'success' | 'transactionStatus'>): 'paid' | 'failed' | 'pending' {
  return failedBilling(b) ? 'failed' : paidBilling(b) ? 'paid' : 'pending';
}

/** A billing's token, plan and amount, shared by all billings that have the same. */
export interface Label {
  token: string;
  planId: string;
  amount: string;
}

export interface Terms extends Label {
  /** Seconds: cycleEnd − cycleStart + 1 of the subscribe. */
  period: number;
  /** Units of 10^-18, rounded half-even once. */
  mrr: bigint;
  started: number;
}

/** One subscription's records, its billings sorted by time (ties in the order given). */
export interface Subscription {
  id: string;
  /** Paid billings: time, cycleStart, and paidThrough / the latest paid cycleStart after each. */
  paidTimes: number[];
  paidCycles: number[];
  paidThroughAfter: number[];
  lastPaidCycleAfter: number[];
  /** Failed billings: time, cycleStart, label. */
  failedTimes: number[];
  failedCycles: number[];
  failedLabels: Label[];
  /** Attempts (paid or failed billings): time, whether failed, label. */
  attemptTimes: number[];
  attemptFailed: boolean[];
  attemptLabels: Label[];
  /** The first confirmed cancellation. */
  cancellation?: { timestamp: number; forced: boolean };
  /** The terms of the subscribe (the first paid billing); none when never paid. */
  terms?: Terms;
}

const PAID = 0;
const FAILED = 1;
const PENDING = 2;

/** Records named in the error, at most. */
const NAMED = 10;

export class SubscriptionRecords {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly labelIds = new Map<string, number>();
  private readonly labels: Label[] = [];
  private lastLabel?: { token: unknown; planId: unknown; amount: unknown; id: number };
  // One entry per readable billing.
  private readonly sub: number[] = [];
  private readonly time: number[] = [];
  private readonly cycleStart: number[] = [];
  private readonly cycleEnd: number[] = [];
  private readonly outcome: number[] = [];
  private readonly label: number[] = [];
  private readonly cancellations = new Map<number, { timestamp: number; forced: boolean }>();
  private readonly unreadable: string[] = [];
  private unreadableCount = 0;

  static from(input: EngineInput): SubscriptionRecords {
    const records = new SubscriptionRecords();
    for (const b of input.billings) records.addBilling(b);
    for (const c of input.cancellations) records.addCancellation(c);
    return records;
  }

  /** Billings kept so far. */
  get billings(): number {
    return this.sub.length;
  }

  addBilling(b: BillingInput): void {
    const exact = typeof b.amount === 'string' && DECIMAL.test(b.amount);
    const paid = paidBilling(b);
    if (!exact || !Number.isSafeInteger(b.timestamp) || !Number.isSafeInteger(b.cycleStart) || !Number.isSafeInteger(b.cycleEnd) || (paid && b.cycleEnd < b.cycleStart)) {
      const bad: string[] = [];
      if (!exact) bad.push(`amount ${printed(b.amount)}`);
      for (const field of ['timestamp', 'cycleStart', 'cycleEnd'] as const) if (!Number.isSafeInteger(b[field])) bad.push(`${field} ${printed(b[field])}`);
      if (bad.length === 0) bad.push(`cycleEnd ${b.cycleEnd} before cycleStart ${b.cycleStart}`);
      this.refuse('billing', b.transactionHash, bad.join(', '));
      return;
    }
    this.sub.push(this.idOf(b.subscriptionId));
    this.time.push(b.timestamp);
    this.cycleStart.push(b.cycleStart);
    this.cycleEnd.push(b.cycleEnd);
    this.outcome.push(paid ? PAID : failedBilling(b) ? FAILED : PENDING);
    this.label.push(this.labelOf(b));
  }

  addCancellation(c: CancellationInput): void {
    if (!Number.isSafeInteger(c.timestamp)) return this.refuse('cancellation', c.transactionHash, `timestamp ${printed(c.timestamp)}`);
    if (c.transactionStatus !== 'confirmed') return;
    const id = this.idOf(c.subscriptionId);
    const first = this.cancellations.get(id);
    if (!first || c.timestamp < first.timestamp) this.cancellations.set(id, { timestamp: c.timestamp, forced: c.forced });
  }

  /**
   * Every subscription, one at a time: the same object, refilled, so read each before
   * asking for the next. Throws (exit 6) first when any record carried an
   * amount or time that cannot be read exactly: a figure never quietly leaves one out.
   */
  subscriptions(): Iterable<Subscription> {
    this.check();
    // Billings grouped by subscription (a counting sort), in the order given within each.
    const count = this.names.length;
    const offset = new Int32Array(count + 1);
    for (const s of this.sub) offset[s + 1]++;
    for (let s = 0; s < count; s++) offset[s + 1] += offset[s];
    const order = new Int32Array(this.sub.length);
    const next = offset.slice(0, count);
    this.sub.forEach((s, i) => (order[next[s]++] = i));
    // One subscription is read at a time: only its own arrays are alive besides the store.
    const scratch = emptySubscription();
    const billings: number[] = [];
    return (function* (this: SubscriptionRecords) {
      for (let s = 0; s < count; s++) {
        billings.length = 0;
        for (let k = offset[s]; k < offset[s + 1]; k++) billings.push(order[k]);
        yield this.fill(scratch, s, billings);
      }
    }).call(this);
  }

  private fill(out: Subscription, s: number, billings: number[]): Subscription {
    const time = this.time;
    // Stable: ties keep the order given. Records mostly come in time order already.
    for (let k = 1; k < billings.length; k++) {
      if (time[billings[k - 1]] > time[billings[k]]) {
        billings.sort((a, b) => time[a] - time[b]);
        break;
      }
    }
    out.paidTimes = [];
    out.paidCycles = [];
    out.paidThroughAfter = [];
    out.lastPaidCycleAfter = [];
    out.failedTimes = [];
    out.failedCycles = [];
    out.failedLabels = [];
    out.attemptTimes = [];
    out.attemptFailed = [];
    out.attemptLabels = [];
    out.id = this.names[s];
    out.cancellation = this.cancellations.get(s);
    out.terms = undefined;
    for (const i of billings) {
      const outcome = this.outcome[i];
      if (outcome === PENDING) continue;
      const label = this.labels[this.label[i]];
      if (outcome === PAID) {
        const k = out.paidTimes.length;
        if (k === 0) {
          // A plan never changes its terms (DESIGN), so the subscribe's stand for every cycle.
          const period = this.cycleEnd[i] - this.cycleStart[i] + 1;
          out.terms = { ...label, period, mrr: mrrAtto(readDecimal(label.amount)!, period), started: time[i] };
        }
        out.paidTimes.push(time[i]);
        out.paidCycles.push(this.cycleStart[i]);
        out.paidThroughAfter.push(k === 0 ? this.cycleEnd[i] : Math.max(out.paidThroughAfter[k - 1], this.cycleEnd[i]));
        out.lastPaidCycleAfter.push(k === 0 ? this.cycleStart[i] : Math.max(out.lastPaidCycleAfter[k - 1], this.cycleStart[i]));
      } else {
        out.failedTimes.push(time[i]);
        out.failedCycles.push(this.cycleStart[i]);
        out.failedLabels.push(label);
      }
      out.attemptTimes.push(time[i]);
      out.attemptFailed.push(outcome === FAILED);
      out.attemptLabels.push(label);
    }
    return out;
  }

  private idOf(subscriptionId: string): number {
    let id = this.ids.get(subscriptionId);
    if (id === undefined) {
      this.ids.set(subscriptionId, (id = this.names.length));
      this.names.push(subscriptionId);
    }
    return id;
  }

  private labelOf(b: BillingInput): number {
    const last = this.lastLabel;
    // Records usually come a subscription at a time: skip the lookup then.
    if (last && last.token === b.token && last.planId === b.planId && last.amount === b.amount) return last.id;
    const token = String(b.token);
    const planId = String(b.planId);
    const key = `${token.length}:${token}${planId.length}:${planId}${b.amount}`;
    let id = this.labelIds.get(key);
    if (id === undefined) {
      this.labelIds.set(key, (id = this.labels.length));
      this.labels.push({ token, planId, amount: b.amount });
    }
    this.lastLabel = { token: b.token, planId: b.planId, amount: b.amount, id };
    return id;
  }

  private refuse(what: string, hash: unknown, detail: string): void {
    this.unreadableCount++;
    if (this.unreadable.length < NAMED) this.unreadable.push(`${what} ${shown(String(hash))} (${detail})`);
  }

  private check(): void {
    const n = this.unreadableCount;
    if (n === 0) return;
    const more = n > this.unreadable.length ? `, and ${(n - this.unreadable.length).toLocaleString('en-US')} more` : '';
    throw new MalformedResponseError(
      `cannot compute subscriptions exactly: ${n.toLocaleString('en-US')} record${n === 1 ? '' : 's'} carry an amount or time that is not exact: ${this.unreadable.join('; ')}${more}`,
      'the service sent amounts or times payrec cannot read exactly (a number or an exponent instead of a decimal string, a time that is not whole seconds); no figure was printed',
    );
  }
}

function emptySubscription(): Subscription {
  return {
    id: '',
    paidTimes: [],
    paidCycles: [],
    paidThroughAfter: [],
    lastPaidCycleAfter: [],
    failedTimes: [],
    failedCycles: [],
    failedLabels: [],
    attemptTimes: [],
    attemptFailed: [],
    attemptLabels: [],
  };
}

/** A value as sent, for a message. */
function printed(value: unknown): string {
  return shown(JSON.stringify(value) ?? String(value));
}

/** Server text in a message (which reportError neutralises): cut, so one value cannot flood stderr. */
function shown(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
