import { BOUNDARY_MIN_RECORDS, boundaryTimestamps } from './boundaries.js';
import { Random } from './prng.js';
import type { StoredRecord } from './store.js';
import * as val from './values.js';

// Fixed-recurring subscriptions as 8pay runs them (DESIGN.md "Subscriptions and revenue
// metrics"), simulated one subscription at a time, so billings and cancellations tell
// one coherent story:
// - the first billing is the subscribe: cycleStart = its timestamp;
// - cycles are anchored: a paid cycle moves cycleStart by exactly one period, and
//   cycleEnd = cycleStart + period − 1 (inclusive); later cycles are billed at their
//   cycleStart or a little later;
// - an attempt can fail (success 0 with status confirmed, or status failed); a failed
//   attempt names the cycle it tried, which stays unpaid, and is retried a few times
//   within that cycle; when every retry fails the subscription lapses (no more billings);
// - a lapsed subscription is sometimes billed again much later, past the grace: a
//   reactivation. Its billing is stamped at the reactivation time and names the cycle
//   of the anchored grid (start + k·period) that contains that time, never one at or
//   before the cycle that failed, so paidThrough stays a cycle end of the grid;
// - the customer cancels (forced false) between two billings, or a plan admin
//   terminates (forced true), often after failed attempts; nothing is billed after a
//   cancellation, and a subscription has at most one;
// - nothing is stamped at or after `now`; an attempt or cancellation in the last hour
//   before it is still pending (its outcome unknown), and nothing follows it.
// With 100 or more records, subscriptions are started exactly where calendar months meet
// (see boundaryTimestamps), so month-end scripts meet billings there.
//
// `records` counts billings: subscriptions are simulated until that many billings exist
// and the last one is cut there. How many cycles a subscription runs before it ends grows
// with the size (6 on average at 250 billings, 250 at 10,000 and more; the year of data
// caps long periods), so 250 billings hold about 40 subscriptions of every kind and a
// million hold about 29,000 (DESIGN's benchmark expects about 25,000).

/** A plan of a subscription product: fixedRecurringPlans draws the fixed-recurring ones, world.ts the others. */
export interface Plan {
  id: string;
  token: string;
  amount: string;
  /** The plan admin's wallet: receives the payments. */
  receiver: string;
  /** Seconds. */
  period: number;
}

/** What the simulation reads of the world (world.ts World): its plans, people, seeds and token facts, and nothing else. */
export interface LifecycleWorld {
  readonly options: { readonly records: number; readonly now: number };
  readonly plans: { readonly 'fixed-recurring': readonly Plan[] };
  /** Customers: subscribers. */
  readonly payers: readonly string[];
  /** Operational accounts: trigger billings and forced cancellations. */
  readonly operators: readonly string[];
  recordSeed(collection: string, index: number): number;
  decimals(symbol: string): number;
  feePercentage(account?: string): bigint;
}

const HOUR = 3600;
const DAY = 86_400;
const YEAR = 365 * DAY;
/** DESIGN's default grace: a reactivation comes later than this after paidThrough. */
const GRACE = 30 * DAY;

/** Periods of the plans, in days: every case of DESIGN's MRR (month bands, and the mean month for the rest). */
const PLAN_PERIOD_DAYS = [30, 7, 365, 91, 31, 1, 14, 28, 182, 183, 60] as const;
/** How often a subscription picks each plan (same order), once every plan has one. */
const PLAN_WEIGHTS = [20, 14, 5, 6, 8, 32, 10, 6, 4, 4, 5];
const PLAN_AMOUNTS = ['5', '9.99', '10', '25', '49.5', '100', '0.333333333333333333', '1234.567890123456789'];

/** Chance that a regular attempt fails, that a retry succeeds, and the most retries of one cycle. */
const FAIL_RATE = 0.08;
const RETRY_SUCCESS = 0.6;
const MAX_RETRIES = 3;
/** How an episode of paid cycles ends: the customer cancels, a plan admin terminates, or it lapses after failures. */
const CANCEL_SHARE = 0.35;
const TERMINATE_SHARE = 0.15;
const REACTIVATE_SHARE = 0.4;
const MAX_REACTIVATIONS = 2;
/** Chance that the current cycle of a live subscription ends in a pending retry in the last hour. */
const PENDING_RETRY_SHARE = 0.25;

export interface SimBilling {
  timestamp: number;
  cycleStart: number;
  success: 0 | 1;
  status: 'confirmed' | 'failed' | 'pending';
  /** Position in generation order: seeds the billing's other fields and makes its hash unique. */
  ordinal: number;
}

export interface SimCancellation {
  timestamp: number;
  forced: boolean;
  status: 'confirmed' | 'pending';
}

export interface Subscription {
  index: number;
  id: string;
  plan: Plan;
  subscriber: string;
  billings: SimBilling[];
  cancellation?: SimCancellation;
  /** Timestamps of the billings that reactivated it. */
  reactivations: number[];
  /** Records added after start (live traffic, POST /_emulator/records), the same objects the store holds. */
  added: { billings: Record<string, unknown>[]; cancellation?: Record<string, unknown> };
}

/** A subscription's facts, for tests: GET /_emulator/subscriptions and Emulator.subscriptions(). */
export interface SubscriptionFacts {
  subscriptionId: string;
  planId: string;
  token: string;
  amount: string;
  /** Seconds. */
  period: number;
  subscriber: string;
  /** Timestamp of the first paid billing (success 1, confirmed); null when none is paid yet. */
  start: number | null;
  /** Of its cancellation record, whatever its status; null when it has none. */
  cancelledAt: number | null;
  forced: boolean | null;
  cancellation: Record<string, unknown> | null;
  /** Timestamps of the billings that reactivated it after it lapsed. */
  reactivations: number[];
  /** Every billing, in timestamp order, as the API serves it. */
  billings: Record<string, unknown>[];
}

export interface PlanTerms {
  planId: string;
  token: string;
  amount: string;
  /** Seconds. */
  period: number;
}

/**
 * The fixed-recurring plans of a chain: fixed terms, the documentation's plan first. An
 * amount has no more decimals than its token on the chain (`decimals`).
 */
export function fixedRecurringPlans(r: Random, tokens: readonly string[], merchants: readonly string[], firstId: string, decimals: (token: string) => number): Plan[] {
  return PLAN_PERIOD_DAYS.map((days, i) => {
    const id = i === 0 ? firstId : val.hexId(r);
    const token = r.pick(tokens);
    const amount = days === 1 ? '0.5' : r.pick(PLAN_AMOUNTS);
    return { id, token, amount: val.inDecimals(amount, decimals(token)), receiver: merchants[i % merchants.length], period: days * DAY };
  });
}

/** Ordinals packed beside a timestamp in one double stay exact below 2^22 (timestamps < 2^31). */
const ORDINALS = 2 ** 22;

/** Mean number of paid cycles in an episode, for a collection of `records` billings. */
const meanCycles = (records: number) => Math.min(250, Math.max(6, records / 40));

export class Lifecycles {
  readonly subscriptions: Subscription[] = [];
  private readonly byId = new Map<string, Subscription>();
  private readonly now: number;
  private billingCount = 0;

  constructor(private readonly world: LifecycleWorld) {
    const { records, now } = world.options;
    this.now = now;
    const mean = meanCycles(records);
    const marks = records >= BOUNDARY_MIN_RECORDS ? monthMarks(now - YEAR, now) : [];
    const plans = world.plans['fixed-recurring'];
    for (let index = 0; this.billingCount < records; index++) {
      const r = new Random(world.recordSeed('fixed-recurring/subscriptions', index));
      // Every plan once first, so that even a small set covers every period.
      const plan = index < plans.length ? plans[index] : plans[weighted(r, PLAN_WEIGHTS)];
      const sub = newSubscription(r, index, plan, world.payers);
      // Every other subscription starts on a month boundary while some are left.
      const mark = index % 2 === 1 ? marks[(index - 1) / 2] : undefined;
      const start = mark ?? now - YEAR + Math.floor(r.float() * YEAR);
      this.simulate(sub, r, start, mean);
      cut(sub, records - this.billingCount);
      for (const b of sub.billings) b.ordinal = this.billingCount++;
      this.add(sub);
    }
  }

  get(id: string): Subscription | undefined {
    return this.byId.get(id.toLowerCase());
  }

  /** The starting billings, in timestamp order (ties in generation order). */
  *billingRecords(): Iterable<StoredRecord> {
    // A million billings: sorted as numbers (timestamp and ordinal in one exact double), not as objects.
    const byOrdinal: [Subscription, SimBilling][] = [];
    for (const sub of this.subscriptions) for (const b of sub.billings) byOrdinal[b.ordinal] = [sub, b];
    const n = byOrdinal.length;
    const order = new Float64Array(n);
    if (n < ORDINALS) {
      for (let i = 0; i < n; i++) order[i] = byOrdinal[i][1].timestamp * ORDINALS + i;
      order.sort();
      for (let i = 0; i < n; i++) order[i] %= ORDINALS;
    } else {
      for (let i = 0; i < n; i++) order[i] = i;
      order.sort((a, b) => byOrdinal[a][1].timestamp - byOrdinal[b][1].timestamp || a - b);
    }
    for (const i of order) {
      const [sub, b] = byOrdinal[i];
      yield { timestamp: b.timestamp, record: this.billingRecord(sub, b), internal: { planId: sub.plan.id } };
    }
  }

  /** The starting cancellations, in timestamp order. */
  *cancellationRecords(): Iterable<StoredRecord> {
    const cancelled = this.subscriptions.filter((s) => s.cancellation !== undefined);
    cancelled.sort((a, b) => a.cancellation!.timestamp - b.cancellation!.timestamp || a.index - b.index);
    for (const sub of cancelled) yield { timestamp: sub.cancellation!.timestamp, record: this.cancellationRecord(sub), internal: { planId: sub.plan.id } };
  }

  /**
   * A billing added after start, stamped `timestamp` (live traffic, POST /_emulator/records):
   * the next cycle of a subscription that is due and not cancelled, the reactivation of
   * a lapsed one (the grid cycle holding `timestamp`), or else a new subscription's
   * first billing. It is paid; live traffic then sets its status.
   */
  addBilling(r: Random, timestamp: number): StoredRecord {
    let sub = this.pickExisting(r, (s) => this.nextCycle(s, timestamp) !== undefined);
    const next = sub && this.nextCycle(sub, timestamp);
    sub ??= this.addNew(r);
    if (next?.reactivation) sub.reactivations.push(timestamp);
    const ordinal = this.billingCount++;
    const record = billingFields(r, sub, { timestamp, cycleStart: next?.cycleStart ?? timestamp, success: 1, status: 'confirmed', ordinal }, this.world);
    sub.added.billings.push(record);
    return { timestamp, record, internal: { planId: sub.plan.id } };
  }

  /** A cancellation added after start: of a subscription billed before `timestamp` and not cancelled, else of a new one. */
  addCancellation(r: Random, timestamp: number): StoredRecord {
    const sub = this.pickExisting(r, (s) => !cancelled(s) && (lastBillingTime(s) ?? timestamp) < timestamp) ?? this.addNew(r);
    const record = cancellationFields(r, sub, { timestamp, forced: r.chance(0.3), status: 'confirmed' }, this.world.operators);
    sub.added.cancellation = record;
    return { timestamp, record, internal: { planId: sub.plan.id } };
  }

  facts(sub: Subscription): SubscriptionFacts {
    const billings = [...sub.billings.map((b) => this.billingRecord(sub, b)), ...sub.added.billings];
    const cancellation = sub.added.cancellation ?? (sub.cancellation ? this.cancellationRecord(sub) : null);
    const paid = billings.find((b) => b.success === 1 && b.transactionStatus === 'confirmed');
    return {
      subscriptionId: sub.id,
      planId: sub.plan.id,
      token: sub.plan.token,
      amount: sub.plan.amount,
      period: sub.plan.period,
      subscriber: sub.subscriber,
      start: paid ? (paid.timestamp as number) : null,
      cancelledAt: cancellation ? (cancellation.timestamp as number) : null,
      forced: cancellation ? (cancellation.forced as boolean) : null,
      cancellation,
      reactivations: [...sub.reactivations],
      billings,
    };
  }

  private billingRecord(sub: Subscription, b: SimBilling): Record<string, unknown> {
    return billingFields(new Random(this.world.recordSeed('fixed-recurring/billings', b.ordinal)), sub, b, this.world);
  }

  private cancellationRecord(sub: Subscription): Record<string, unknown> {
    const r = new Random(this.world.recordSeed('fixed-recurring/cancellations', sub.index));
    return cancellationFields(r, sub, sub.cancellation!, this.world.operators);
  }

  private add(sub: Subscription): void {
    this.subscriptions.push(sub);
    this.byId.set(sub.id.toLowerCase(), sub);
  }

  private addNew(r: Random): Subscription {
    const plans = this.world.plans['fixed-recurring'];
    const sub = newSubscription(r, this.subscriptions.length, plans[weighted(r, PLAN_WEIGHTS)], this.world.payers);
    this.add(sub);
    return sub;
  }

  /** A few random tries: live traffic stays O(1) a record; when they all miss, a new subscription. */
  private pickExisting(r: Random, fits: (s: Subscription) => boolean): Subscription | undefined {
    const subs = this.subscriptions;
    for (let i = 0; i < 8 && subs.length > 0; i++) {
      const sub = subs[r.int(0, subs.length - 1)];
      if (fits(sub)) return sub;
    }
    return undefined;
  }

  /**
   * The cycle a billing of `sub` stamped `timestamp` pays, or undefined when none may be
   * billed then: cancelled, billed at or after `timestamp`, an attempt still pending, or
   * the next cycle not due yet.
   */
  private nextCycle(sub: Subscription, timestamp: number): { cycleStart: number; reactivation: boolean } | undefined {
    if (cancelled(sub)) return undefined;
    const last = lastBillingTime(sub);
    if (last === undefined || last >= timestamp) return undefined;
    const attempts = [
      ...sub.billings.map((b) => ({ cycleStart: b.cycleStart, success: b.success as number, status: b.status as string })),
      ...sub.added.billings.map((b) => ({ cycleStart: b.cycleStart as number, success: b.success as number, status: b.transactionStatus as string })),
    ];
    if (attempts.some((a) => a.status === 'pending')) return undefined;
    const paid = attempts.filter((a) => a.success === 1 && a.status === 'confirmed');
    if (paid.length === 0) return undefined;
    const { period } = sub.plan;
    const next = paid[paid.length - 1].cycleStart + period;
    if (next > timestamp) return undefined;
    // Past the grace: a reactivation, on the cycle of the grid that holds `timestamp`.
    if (timestamp > next - 1 + GRACE) return { cycleStart: next + Math.floor((timestamp - next) / period) * period, reactivation: true };
    return { cycleStart: next, reactivation: false };
  }

  /** Runs one subscription from `start` up to `now`: its billings, reactivations and cancellation. */
  private simulate(sub: Subscription, r: Random, start: number, mean: number): void {
    const { now } = this;
    const { period } = sub.plan;
    const delayMax = Math.min(6 * HOUR, Math.floor(period / 8));
    // Retries stay inside the cycle they try: MAX_RETRIES gaps and a delay are less than a period.
    const gapMax = Math.min(3 * DAY, Math.floor(period / 4));
    const gapMin = Math.min(HOUR, gapMax);
    const billings = sub.billings;
    const last = () => billings[billings.length - 1].timestamp;

    let cycleStart = start;
    /** Adds an attempt at the current cycle; false when nothing may follow it (at or after now, or pending). */
    const attempt = (timestamp: number, outcome: 'paid' | 'failed'): boolean => {
      if (timestamp >= now) return false;
      if (timestamp >= now - HOUR) {
        billings.push({ timestamp, cycleStart, success: 1, status: 'pending', ordinal: 0 });
        return false;
      }
      if (outcome === 'paid') billings.push({ timestamp, cycleStart, success: 1, status: 'confirmed', ordinal: 0 });
      // The two ways a billing fails: the contract says no, or the transaction failed.
      else if (r.chance(0.6)) billings.push({ timestamp, cycleStart, success: 0, status: 'confirmed', ordinal: 0 });
      else billings.push({ timestamp, cycleStart, success: r.chance(0.7) ? 1 : 0, status: 'failed', ordinal: 0 });
      return true;
    };
    /** A cancellation strictly between `after` and `before` (and before now), if there is room. */
    const cancel = (after: number, before: number, forced: boolean): void => {
      const latest = Math.min(before, now) - 1;
      if (latest <= after) return;
      const timestamp = after + 1 + Math.floor(r.float() * (latest - after));
      sub.cancellation = { timestamp, forced, status: timestamp >= now - HOUR ? 'pending' : 'confirmed' };
    };

    // The subscribe: the first billing, paid, its cycle starting with it.
    if (!attempt(start, 'paid')) return;
    let paidCycles = 1;
    let episode = drawCycles(r, mean);
    let reactivations = 0;
    for (;;) {
      cycleStart += period;
      let at = cycleStart + r.int(0, delayMax);
      if (at >= now) return;
      let paid = false;
      if (paidCycles >= episode) {
        // The episode ends: the customer cancels before this cycle is billed, or its
        // attempts fail and a plan admin terminates it or it lapses.
        const roll = r.float();
        if (roll < CANCEL_SHARE) return cancel(last(), at, false);
        for (let i = r.int(0, MAX_RETRIES - 1); i >= 0; i--, at += r.int(gapMin, gapMax)) if (!attempt(at, 'failed')) return;
        if (roll < CANCEL_SHARE + TERMINATE_SHARE) return cancel(last(), last() + 10 * DAY, true);
      } else if (cycleStart + period > now && at < now - HOUR - gapMax && r.chance(PENDING_RETRY_SHARE)) {
        // The current cycle: its attempt failed and the retry is still pending.
        attempt(at, 'failed');
        attempt(now - r.int(1, HOUR - 1), 'paid');
        return;
      } else if (r.chance(FAIL_RATE)) {
        // Dunning: retried until paid or out of retries.
        if (!attempt(at, 'failed')) return;
        for (let i = 0; i < MAX_RETRIES && !paid; i++) {
          at += r.int(gapMin, gapMax);
          paid = r.chance(RETRY_SUCCESS);
          if (!attempt(at, paid ? 'paid' : 'failed')) return;
        }
      } else {
        if (!attempt(at, 'paid')) return;
        paid = true;
      }
      if (paid) {
        paidCycles++;
        continue;
      }
      // Lapsed at this cycle (left unpaid). Now and then a plan admin cleans up later;
      // or, much later, it is billed again.
      if (reactivations >= MAX_REACTIVATIONS || !r.chance(REACTIVATE_SHARE)) {
        if (r.chance(0.2)) cancel(last(), last() + 90 * DAY, true);
        return;
      }
      const paidThrough = cycleStart - 1;
      let when = paidThrough + GRACE + r.int(10 * DAY, 120 * DAY);
      let resumed = start + Math.floor((when - start) / period) * period;
      if (resumed <= cycleStart) {
        resumed = cycleStart + period;
        when = resumed + r.int(0, delayMax);
      }
      if (when >= now) return;
      cycleStart = resumed;
      if (!attempt(when, 'paid')) return;
      sub.reactivations.push(when);
      reactivations++;
      paidCycles = 1;
      episode = drawCycles(r, mean);
    }
  }
}

function newSubscription(r: Random, index: number, plan: Plan, payers: readonly string[]): Subscription {
  return { index, id: val.uniqueHexId(r, index), plan, subscriber: r.pick(payers), billings: [], reactivations: [], added: { billings: [] } };
}

/** Keeps the first `room` billings (the last subscription of a set of `records` billings). */
function cut(sub: Subscription, room: number): void {
  if (sub.billings.length <= room) return;
  sub.billings.length = room;
  const last = sub.billings[room - 1].timestamp;
  sub.reactivations = sub.reactivations.filter((t) => t <= last);
}

const cancelled = (sub: Subscription) => sub.cancellation !== undefined || sub.added.cancellation !== undefined;

function lastBillingTime(sub: Subscription): number | undefined {
  const added = sub.added.billings;
  if (added.length > 0) return added[added.length - 1].timestamp as number;
  return sub.billings.length > 0 ? sub.billings[sub.billings.length - 1].timestamp : undefined;
}

/** Paid cycles before an episode ends: at least 1, `mean` on average (geometric-like). */
function drawCycles(r: Random, mean: number): number {
  return 1 + Math.floor(-Math.log(1 - r.float()) * (mean - 1));
}

function weighted(r: Random, weights: readonly number[]): number {
  let roll = r.float() * weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < weights.length; i++) {
    roll -= weights[i];
    if (roll < 0) return i;
  }
  return weights.length - 1;
}

/** Month boundaries of the window, UTC month starts first (they matter most), then the rest. */
function monthMarks(from: number, to: number): number[] {
  const rank = (t: number) => (t % DAY === 0 ? 0 : (t + 1) % DAY === 0 ? 1 : 2);
  return boundaryTimestamps(from, to).sort((a, b) => rank(a) - rank(b) || a - b);
}

function billingFields(r: Random, sub: Subscription, b: SimBilling, world: LifecycleWorld): Record<string, unknown> {
  const { plan } = sub;
  const { operators } = world;
  val.skipFeeDraws(r);
  return {
    subscriptionId: sub.id,
    success: b.success,
    amount: plan.amount,
    // The plan's admin is the fee account: its custom fee, or the base fee (ONCHAIN.md §2).
    fee: val.contractFee(plan.amount, world.decimals(plan.token), world.feePercentage(plan.receiver)),
    token: plan.token,
    receiver: plan.receiver,
    timestamp: b.timestamp,
    cycleStart: b.cycleStart,
    cycleEnd: b.cycleStart + plan.period - 1,
    triggeredBy: r.chance(0.6) ? sub.subscriber : r.pick(operators),
    transactionHash: val.uniqueHexId(r, b.ordinal),
    transactionStatus: b.status,
  };
}

function cancellationFields(r: Random, sub: Subscription, c: SimCancellation, operators: readonly string[]): Record<string, unknown> {
  return {
    subscriptionId: sub.id,
    timestamp: c.timestamp,
    forced: c.forced,
    triggeredBy: c.forced ? r.pick(operators) : sub.subscriber,
    transactionHash: val.uniqueHexId(r, sub.index),
    transactionStatus: c.status,
  };
}
