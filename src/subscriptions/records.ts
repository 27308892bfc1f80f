import { MalformedResponseError } from '../core/runtime/errors.js';
import { failedBilling, paidBilling } from '../registry/outcome.js';
import { DECIMAL, readDecimal, type DecimalSum } from './exact.js';
import { mrrAtto } from './mrr.js';
import { grouped } from '../core/output/grouped.js';

// What the engine keeps of each record, compactly: a billing is its subscription and
// four numbers side by side (time, cycle start and end, and its outcome with its token,
// plan and amount as one shared label), in typed arrays: 36 bytes outside V8's heap. A
// caller can feed 1,000,000 billings a chunk at a time (addBilling, or addBillingNumbers
// with no object per billing) and let each chunk go; ledger and metrics then read one
// subscription at a time, its billings grouped (in place) and sorted once, into typed
// arrays reused from one subscription to the next.
//
// Typed arrays, not plain ones: a plain array of 1,000,000 numbers takes 8 bytes a number
// and grows by copies that wait in the heap for a full collection (the store in plain
// arrays held about 60 MB of heap and twice that between collections). Side by side,
// not an array per field: one cache line holds a billing. A reader that can give each
// subscription's billings together and in time order (the mirror's does) spares the
// engine the grouping and sorting, which cost about 0.4 s of 1,000,000 billings given
// in the order they were synced.

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

/** A billing's token, plan and amount, shared by all billings that have the same. */
export interface Label {
  token: string;
  planId: string;
  amount: string;
}

export interface Terms extends Label {
  /** The subscribe's label number (the store's `label` gives it). */
  label: number;
  /** Seconds: cycleEnd − cycleStart + 1 of the subscribe. */
  period: number;
  /** Units of 10^-18, rounded half-even once. */
  mrr: bigint;
  started: number;
}

/**
 * One subscription's records, its billings sorted by time (ties in the order given).
 * Each list is a typed array read up to its count (paid, failed, attempts): the
 * arrays are the reader's, reused from one subscription to the next, so that reading
 * 1,000,000 billings makes no JS value per billing. Labels are numbers: `label` of
 * the store gives each.
 */
export interface Subscription {
  id: string;
  /** Paid billings: time, cycleStart, and paidThrough / the latest paid cycleStart after each. */
  paid: number;
  paidTimes: Float64Array;
  paidCycles: Float64Array;
  paidThroughAfter: Float64Array;
  lastPaidCycleAfter: Float64Array;
  /** Failed billings: time, cycleStart, label. */
  failed: number;
  failedTimes: Float64Array;
  failedCycles: Float64Array;
  failedLabels: Int32Array;
  /** Attempts (paid or failed billings): time, whether failed (1), label. */
  attempts: number;
  attemptTimes: Float64Array;
  attemptFailed: Uint8Array;
  attemptLabels: Int32Array;
  /** The first confirmed cancellation. */
  cancellation?: { timestamp: number; forced: boolean };
  /** The terms of the subscribe (the first paid billing); none when never paid. */
  terms?: Terms;
}

const PAID = 0;
const FAILED = 1;
const PENDING = 2;

/** How a billing counts, as the store keeps it (one of the three above). */
export function outcomeCode(b: Pick<BillingInput, 'success' | 'transactionStatus'>): number {
  return paidBilling(b) ? PAID : failedBilling(b) ? FAILED : PENDING;
}

/** Room for this many billings before the store's arrays first grow. */
const FIRST_CAPACITY = 1024;

/** A billing's numbers in `billing`: FIELDS of them from FIELDS × its index. KIND is label × 4 + outcome. */
const FIELDS = 4;
const TIME = 0;
const CYCLE_START = 1;
const CYCLE_END = 2;
const KIND = 3;

/** Records named in the error, at most. */
const NAMED = 10;

export class SubscriptionRecords {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly labelIds = new Map<string, number>();
  private readonly labels: Label[] = [];
  /** Per label: whether its amount is a plain decimal (the only kind a figure can use). */
  private readonly exactLabel: boolean[] = [];
  private readonly mrrs = new Map<string, bigint>();
  private readonly amounts: DecimalSum[] = [];
  private lastLabel?: { token: unknown; planId: unknown; amount: unknown; id: number };
  // The readable billings, the first `count` of them. Times are safe integers
  // (checked), which a Float64Array holds exactly, as it does label × 4 + outcome.
  private count = 0;
  private sub = new Int32Array(FIRST_CAPACITY);
  private billing = new Float64Array(FIRST_CAPACITY * FIELDS);
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
    return this.count;
  }

  /** Makes room for `more` billings at once (a reader that knows how many are coming): no copy as they arrive. */
  reserve(more: number): void {
    if (this.count + more > this.sub.length) this.resize(this.count + more);
  }

  addBilling(b: BillingInput): void {
    const label = typeof b.amount === 'string' && DECIMAL.test(b.amount) ? this.labelOf(b) : -1;
    if (!this.addBillingNumbers(this.idOf(b.subscriptionId), label, outcomeCode(b), b.timestamp, b.cycleStart, b.cycleEnd)) {
      const bad: string[] = [];
      if (label === -1) bad.push(`amount ${printed(b.amount)}`);
      for (const field of ['timestamp', 'cycleStart', 'cycleEnd'] as const) if (!Number.isSafeInteger(b[field])) bad.push(`${field} ${printed(b[field])}`);
      if (bad.length === 0) bad.push(`cycleEnd ${b.cycleEnd} before cycleStart ${b.cycleStart}`);
      this.refuse('billing', b.transactionHash, bad.join(', '));
    }
  }

  /**
   * A billing as numbers: its subscription (subscriptionNumber), its label
   * (labelNumber), its outcome (outcomeCode) and its times, with no object made for it.
   * Stores it and returns true when every figure can be read from it exactly; else
   * stores nothing and returns false: give the whole record to addBilling then, which
   * names it in the error. A number that is not one of this store's is a mistake of
   * the caller's, an error: stored, it would count the billing somewhere else.
   */
  addBillingNumbers(sub: number, label: number, outcome: number, time: number, cycleStart: number, cycleEnd: number): boolean {
    if (!((sub | 0) === sub && sub >= 0 && sub < this.names.length && label >= -1 && label < this.labels.length && (outcome === PAID || outcome === FAILED || outcome === PENDING))) {
      throw new Error(`addBillingNumbers: subscription ${sub}, label ${label} or outcome ${outcome} is not of this store`);
    }
    if (!(this.exactLabel[label] === true && Number.isSafeInteger(time) && Number.isSafeInteger(cycleStart) && Number.isSafeInteger(cycleEnd))) return false;
    if (outcome === PAID && cycleEnd < cycleStart) return false;
    const i = this.count;
    if (i === this.sub.length) this.resize(Math.max(FIRST_CAPACITY, 2 * i));
    this.sub[i] = sub;
    const at = i * FIELDS;
    this.billing[at + TIME] = time;
    this.billing[at + CYCLE_START] = cycleStart;
    this.billing[at + CYCLE_END] = cycleEnd;
    this.billing[at + KIND] = label * 4 + outcome;
    this.count = i + 1;
    return true;
  }

  /** The number addBillingNumbers takes for a subscription id. */
  subscriptionNumber(subscriptionId: string): number {
    return this.idOf(subscriptionId);
  }

  /** The number addBillingNumbers takes for a billing's token, plan and amount (an amount it refuses when not a plain decimal). */
  labelNumber(token: string, planId: string, amount: string): number {
    return this.labelOf({ token, planId, amount });
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
    const start = this.group();
    let most = 0;
    for (let s = 0; s + 1 < start.length; s++) most = Math.max(most, start[s + 1] - start[s]);
    // One subscription is read at a time, into arrays made once, as long as the longest needs.
    const scratch = emptySubscription(most);
    const billings: number[] = [];
    const times: number[] = [];
    return (function* (this: SubscriptionRecords) {
      for (let s = 0; s < start.length - 1; s++) {
        billings.length = 0;
        for (let i = start[s]; i < start[s + 1]; i++) billings.push(i);
        yield this.fill(scratch, s, billings, times);
      }
    }).call(this);
  }

  /** Billings and (first confirmed) cancellations stamped at or after `at`: what a report as of `at` leaves out. */
  stampedFrom(at: number): { billings: number; cancellations: number } {
    let billings = 0;
    for (let i = 0; i < this.count; i++) if (this.billing[i * FIELDS + TIME] >= at) billings++;
    let cancellations = 0;
    for (const c of this.cancellations.values()) if (c.timestamp >= at) cancellations++;
    return { billings, cancellations };
  }

  /** The token, plan and amount of a label number (Subscription's *Labels). */
  label(n: number): Label {
    return this.labels[n];
  }

  /** Every token a billing is in, once each: the tokens a figure can ask a rate of. */
  tokens(): string[] {
    return [...new Set(this.labels.map((l) => l.token))];
  }

  /** How many label numbers there are (each below this). */
  get labelCount(): number {
    return this.labels.length;
  }

  /** A label's amount as an exact fraction (read once per label). */
  amount(n: number): DecimalSum {
    return (this.amounts[n] ??= readDecimal(this.labels[n].amount)!);
  }

  /**
   * Puts each subscription's billings side by side in the store (a stable counting
   * sort, applied in place) and returns where each subscription's begin. The mirror
   * gives billings in the order they were synced, a subscription's spread over the
   * whole store: reading them where they lay cost a cache miss per billing, most of
   * the engine's time over 1,000,000 billings. In place, so the store is not held twice.
   */
  private group(): Int32Array {
    const { sub, billing } = this;
    const count = this.names.length;
    const kept = this.count;
    const start = new Int32Array(count + 1);
    for (let i = 0; i < kept; i++) start[sub[i] + 1]++;
    for (let s = 0; s < count; s++) start[s + 1] += start[s];
    // Where each billing goes: its subscription's place, in the order given within it.
    const next = start.slice(0, count);
    const to = new Int32Array(kept);
    for (let i = 0; i < kept; i++) to[i] = next[sub[i]]++;
    // Each swap puts the billing at i where it goes, so there are fewer than `kept` of them.
    for (let i = 0; i < kept; i++) {
      for (let j = to[i]; j !== i; j = to[i]) {
        const s = sub[i];
        sub[i] = sub[j];
        sub[j] = s;
        to[i] = to[j];
        to[j] = j;
        for (let f = 0; f < FIELDS; f++) {
          const x = billing[i * FIELDS + f];
          billing[i * FIELDS + f] = billing[j * FIELDS + f];
          billing[j * FIELDS + f] = x;
        }
      }
    }
    return start;
  }

  private fill(out: Subscription, s: number, billings: number[], times: number[]): Subscription {
    const b = this.billing;
    sortByTime(billings, b, times);
    out.id = this.names[s];
    out.cancellation = this.cancellations.get(s);
    out.terms = undefined;
    let paid = 0;
    let failed = 0;
    let attempts = 0;
    for (const i of billings) {
      const at = i * FIELDS;
      const kind = b[at + KIND];
      const outcome = kind & 3;
      if (outcome === PENDING) continue;
      const label = kind >> 2;
      const time = b[at + TIME];
      const cycleStart = b[at + CYCLE_START];
      const cycleEnd = b[at + CYCLE_END];
      if (outcome === PAID) {
        if (paid === 0) {
          // A plan never changes its terms (DESIGN), so the subscribe's stand for every cycle.
          const period = cycleEnd - cycleStart + 1;
          // Written out, not spread from the label: V8 made a spread copy about 2 µs a subscription.
          const { token, planId, amount } = this.labels[label];
          out.terms = { label, token, planId, amount, period, mrr: this.mrrOf(label, period), started: time };
        }
        out.paidTimes[paid] = time;
        out.paidCycles[paid] = cycleStart;
        out.paidThroughAfter[paid] = paid === 0 ? cycleEnd : Math.max(out.paidThroughAfter[paid - 1], cycleEnd);
        out.lastPaidCycleAfter[paid] = paid === 0 ? cycleStart : Math.max(out.lastPaidCycleAfter[paid - 1], cycleStart);
        paid++;
      } else {
        out.failedTimes[failed] = time;
        out.failedCycles[failed] = cycleStart;
        out.failedLabels[failed] = label;
        failed++;
      }
      out.attemptTimes[attempts] = time;
      out.attemptFailed[attempts] = outcome === FAILED ? 1 : 0;
      out.attemptLabels[attempts] = label;
      attempts++;
    }
    out.paid = paid;
    out.failed = failed;
    out.attempts = attempts;
    return out;
  }

  /** A label's MRR for a period: computed once per pair (its BigInt division took most of the engine's time when made per subscription). */
  private mrrOf(label: number, period: number): bigint {
    const key = `${label}:${period}`;
    let mrr = this.mrrs.get(key);
    if (mrr === undefined) this.mrrs.set(key, (mrr = mrrAtto(readDecimal(this.labels[label].amount)!, period)));
    return mrr;
  }

  private idOf(subscriptionId: string): number {
    let id = this.ids.get(subscriptionId);
    if (id === undefined) {
      this.ids.set(subscriptionId, (id = this.names.length));
      this.names.push(subscriptionId);
    }
    return id;
  }

  private resize(capacity: number): void {
    const sub = new Int32Array(capacity);
    sub.set(this.sub.subarray(0, this.count));
    const billing = new Float64Array(capacity * FIELDS);
    billing.set(this.billing.subarray(0, this.count * FIELDS));
    [this.sub, this.billing] = [sub, billing];
  }

  private labelOf(b: Pick<BillingInput, 'token' | 'planId' | 'amount'>): number {
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
      this.exactLabel.push(typeof b.amount === 'string' && DECIMAL.test(b.amount));
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
    const more = n > this.unreadable.length ? `, and ${grouped(n - this.unreadable.length)} more` : '';
    throw new MalformedResponseError(
      `cannot compute subscriptions exactly: ${grouped(n)} record${n === 1 ? '' : 's'} carry an amount or time that is not exact: ${this.unreadable.join('; ')}${more}`,
      'the service sent amounts or times payrec cannot read exactly (a number or an exponent instead of a decimal string, a time that is not whole seconds); no figure was printed',
    );
  }
}

/** Billings of one subscription that an insertion sort puts in order, at most; more go to Array.prototype.sort. */
const FEW = 64;

/**
 * Puts a subscription's billings (indexes into `billing`) in time order, ties in the
 * order given (both sorts are stable). Their times are read once into `times`: in a
 * large store each is a cache miss, which sorting by `billing` itself paid again at
 * every comparison, and the mirror gives billings in no particular order.
 */
function sortByTime(billings: number[], billing: Float64Array, times: number[]): void {
  times.length = 0;
  let sorted = true;
  for (const i of billings) {
    const t = billing[i * FIELDS + TIME];
    if (times.length > 0 && t < times[times.length - 1]) sorted = false;
    times.push(t);
  }
  // Billings usually come in time order (a list is synced oldest first): nothing to do.
  if (sorted) return;
  const n = billings.length;
  if (n > FEW) {
    const order = times.map((_, k) => k).sort((x, y) => times[x] - times[y]);
    const sorted = order.map((k) => billings[k]);
    for (let k = 0; k < n; k++) billings[k] = sorted[k];
    return;
  }
  // A few dozen, as a subscription has: an insertion sort, with no call per comparison.
  for (let k = 1; k < n; k++) {
    const t = times[k];
    const i = billings[k];
    let j = k - 1;
    for (; j >= 0 && times[j] > t; j--) {
      times[j + 1] = times[j];
      billings[j + 1] = billings[j];
    }
    times[j + 1] = t;
    billings[j + 1] = i;
  }
}

/** A subscription to fill, with room for `capacity` billings. */
function emptySubscription(capacity: number): Subscription {
  return {
    id: '',
    paid: 0,
    paidTimes: new Float64Array(capacity),
    paidCycles: new Float64Array(capacity),
    paidThroughAfter: new Float64Array(capacity),
    lastPaidCycleAfter: new Float64Array(capacity),
    failed: 0,
    failedTimes: new Float64Array(capacity),
    failedCycles: new Float64Array(capacity),
    failedLabels: new Int32Array(capacity),
    attempts: 0,
    attemptTimes: new Float64Array(capacity),
    attemptFailed: new Uint8Array(capacity),
    attemptLabels: new Int32Array(capacity),
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
