import { formatAtto, ratio } from './exact.js';
import { SubscriptionRecords, type EngineInput, type Subscription } from './records.js';

// The subscription engine (DESIGN.md "Subscriptions and revenue metrics"; STYLE.md
// "Derived answers"): billings and cancellations in, the ledger of subscriptions and the
// revenue metrics out. Pure: no DuckDB, no HTTP, no clock but the instants it is given.
//
// As of an instant t, only records stamped strictly before t are seen: a billing stamped
// exactly at t is not yet there (it is seen from t + 1). So consecutive intervals
// [from, to) agree: what a billing changes is counted at every boundary after it.
//
// Each subscription's records are sorted once; its state then changes only at a few
// points (a paid billing seen, paidThrough passed, the grace passed, a cancellation
// seen), so metrics walks those change points against the interval boundaries instead
// of recomputing every subscription at every boundary from its records.
//
// Figures: each subscription's MRR is an exact rational rounded half-even once, to 18
// places: the figure the ledger prints. Every total is the exact sum of those printed
// figures, so a total is always the sum of the ledger rows behind it, and
// mrr_end = mrr_start + mrr_new + mrr_reactivated − mrr_churned holds to the last
// printed digit (rounding each total's exact rational on its own could break it by
// 10^-18). The difference from rounding the exact total is at most half of 10^-18 per
// subscription.

export { billingOutcome, failedBilling, outcomeCode, paidBilling, SubscriptionRecords } from './records.js';
export type { BillingInput, CancellationInput, EngineInput } from './records.js';

export type SubscriptionState = 'active' | 'past_due' | 'lapsed' | 'cancelled';

/** Every state, in the order of the lifecycle: what --state accepts. */
export const SUBSCRIPTION_STATES: readonly SubscriptionState[] = ['active', 'past_due', 'lapsed', 'cancelled'];

/** One subscription as of an instant: DESIGN's columns, in its order. */
export interface SubscriptionRow {
  subscriptionId: string;
  planId: string;
  token: string;
  /** The amount of one cycle, as the API sent it. */
  amount: string;
  /** Seconds: cycleEnd − cycleStart + 1. */
  period: number;
  /** Exact decimal, rounded half-even to 18 places, no padding zeros. */
  mrr: string;
  started: number;
  paidThrough: number;
  lastAttempt: number | null;
  failedAttempts: number;
  cancelledAt: number | null;
  forced: boolean | null;
  state: SubscriptionState;
}

export interface MetricsRow {
  from: number;
  to: number;
  token: string;
  /** Only with byPlan. */
  planId?: string;
  subscriptions_start: number;
  subscriptions_end: number;
  new: number;
  reactivated: number;
  churned: number;
  mrr_start: string;
  mrr_end: string;
  mrr_new: string;
  mrr_reactivated: string;
  mrr_churned: string;
  logo_churn: string | null;
  revenue_churn: string | null;
  attempts: number;
  failed: number;
  failure_rate: string | null;
  dunning_cases: number;
  recovered: number;
  lost: number;
}

export interface LedgerOptions {
  /** The instant of the ledger (Unix seconds): records stamped before it are seen. */
  at: number;
  /** Past due for this long after paidThrough, then lapsed. */
  graceSeconds: number;
}

export interface MetricsOptions extends LedgerOptions {
  /** Calendar intervals [from, to), ascending and not overlapping (the caller computes them in --tz). */
  intervals: ReadonlyArray<{ from: number; to: number }>;
  /** One row per plan within each token. */
  byPlan: boolean;
}

/**
 * The ledger as of `at`: one row per subscription started before it, ordered by
 * started, then subscriptionId.
 */
export function ledger(input: EngineInput | SubscriptionRecords, o: LedgerOptions): SubscriptionRow[] {
  const rows: SubscriptionRow[] = [];
  for (const s of recordsOf(input).subscriptions()) {
    if (!s.terms) continue;
    const seen = seenAt(s, o.at, o.graceSeconds);
    if (!seen) continue;
    const { terms } = s;
    const cancelled = s.cancellation && s.cancellation.timestamp < o.at ? s.cancellation : undefined;
    rows.push({
      subscriptionId: s.id,
      planId: terms.planId,
      token: terms.token,
      amount: terms.amount,
      period: terms.period,
      mrr: formatAtto(terms.mrr),
      started: terms.started,
      paidThrough: seen.paidThrough,
      // Never null here: the subscribe is an attempt before `at`.
      lastAttempt: s.attemptTimes[countBefore(s.attemptTimes, s.attempts, o.at) - 1],
      failedAttempts: failedSince(s, seen.lastPaidCycle, o.at),
      cancelledAt: cancelled ? cancelled.timestamp : null,
      forced: cancelled ? cancelled.forced : null,
      state: seen.state,
    });
  }
  return rows.sort((a, b) => a.started - b.started || compare(a.subscriptionId, b.subscriptionId));
}

/**
 * Revenue metrics per interval and token (and plan with byPlan): a row for every
 * interval and key with a counted subscription at from or to, an attempt or a dunning
 * case in it; in interval order, then token, then planId.
 */
export function metrics(input: EngineInput | SubscriptionRecords, o: MetricsOptions): MetricsRow[] {
  const intervals = o.intervals;
  for (let q = 0; q < intervals.length; q++) {
    const { from, to } = intervals[q];
    if (!(from < to) || (q > 0 && from < intervals[q - 1].to)) throw new Error(`metrics: intervals must be ascending and not overlap (interval ${q})`);
  }
  const cells = intervals.map(() => new Map<string, Map<string, Cell>>());
  const cell = (q: number, token: string, planId: string): Cell => {
    const plan = o.byPlan ? planId : '';
    let byToken = cells[q].get(token);
    if (!byToken) cells[q].set(token, (byToken = new Map()));
    let c = byToken.get(plan);
    if (!c) byToken.set(plan, (c = emptyCell(token, o.byPlan ? planId : undefined)));
    return c;
  };
  // Interval boundaries, each evaluated once per subscription.
  const boundaries = [...new Set(intervals.flatMap((i) => [i.from, i.to]))].sort((a, b) => a - b);
  const fromIndex = intervals.map((i) => boundaries.indexOf(i.from));
  const toIndex = intervals.map((i) => boundaries.indexOf(i.to));
  const countedAt = new Uint8Array(boundaries.length);

  const records = recordsOf(input);
  for (const s of records.subscriptions()) {
    const terms = s.terms;
    if (terms) {
      countedAtBoundaries(s, o.graceSeconds, boundaries, countedAt);
      for (let q = 0; q < intervals.length; q++) {
        const atFrom = countedAt[fromIndex[q]] === 1;
        const atTo = countedAt[toIndex[q]] === 1;
        if (!atFrom && !atTo) continue;
        const c = cell(q, terms.token, terms.planId);
        if (atFrom) {
          c.start++;
          c.mrrStart += terms.mrr;
        }
        if (atTo) {
          c.end++;
          c.mrrEnd += terms.mrr;
        }
        if (atFrom && !atTo) {
          c.churned++;
          c.mrrChurned += terms.mrr;
        } else if (atTo && !atFrom) {
          if (terms.started >= intervals[q].from) {
            c.new++;
            c.mrrNew += terms.mrr;
          } else {
            c.reactivated++;
            c.mrrReactivated += terms.mrr;
          }
        }
      }
    }
    // Attempts come in time order, mostly of one token and plan: reuse the last cell until the interval or label changes.
    let last: { q: number; label: number; cell: Cell } | undefined;
    for (let i = 0; i < s.attempts; i++) {
      const t = s.attemptTimes[i];
      const label = s.attemptLabels[i];
      const q = last && t < intervals[last.q].to ? last.q : intervalOf(intervals, t);
      if (q === -1) continue;
      if (!last || last.q !== q || last.label !== label) last = { q, label, cell: cell(q, records.label(label).token, records.label(label).planId) };
      last.cell.attempts++;
      if (s.attemptFailed[i] === 1) last.cell.failed++;
    }
    for (const k of dunningCases(s)) {
      const q = intervalOf(intervals, s.failedTimes[k]);
      if (q === -1) continue;
      const { token, planId } = records.label(s.failedLabels[k]);
      const c = cell(q, token, planId);
      c.dunning++;
      if (paidBefore(s, s.failedCycles[k], o.at)) c.recovered++;
      else {
        const state = seenAt(s, o.at, o.graceSeconds)?.state;
        if (state === 'cancelled' || state === 'lapsed') c.lost++;
      }
    }
  }

  const rows: MetricsRow[] = [];
  intervals.forEach(({ from, to }, q) => {
    for (const token of [...cells[q].keys()].sort(compare)) {
      const byPlan = cells[q].get(token)!;
      for (const plan of [...byPlan.keys()].sort(compare)) rows.push(rowOf(from, to, byPlan.get(plan)!));
    }
  });
  return rows;
}

/** Records given as arrays are read into the compact store first. */
function recordsOf(input: EngineInput | SubscriptionRecords): SubscriptionRecords {
  return input instanceof SubscriptionRecords ? input : SubscriptionRecords.from(input);
}

/** A subscription as of t (records stamped before t); undefined when not started by then. */
function seenAt(s: Subscription, t: number, grace: number): { paidThrough: number; lastPaidCycle: number; state: SubscriptionState } | undefined {
  const k = countBefore(s.paidTimes, s.paid, t);
  if (k === 0) return undefined;
  const paidThrough = s.paidThroughAfter[k - 1];
  const state: SubscriptionState =
    s.cancellation && s.cancellation.timestamp < t ? 'cancelled' : t <= paidThrough ? 'active' : t <= paidThrough + grace ? 'past_due' : 'lapsed';
  return { paidThrough, lastPaidCycle: s.lastPaidCycleAfter[k - 1], state };
}

/** Failed attempts before t for cycles after the last one paid. */
function failedSince(s: Subscription, lastPaidCycle: number, t: number): number {
  let n = 0;
  for (let i = 0; i < s.failed; i++) if (s.failedTimes[i] < t && s.failedCycles[i] > lastPaidCycle) n++;
  return n;
}

/**
 * Marks, for each boundary (ascending), whether the subscription is counted there
 * (active or past due). It is counted in spans (after, until]: after the i-th paid
 * billing is seen and until the next one is (or its paidThrough + grace passes, or its
 * cancellation is seen), whichever comes first. The spans are ascending and apart (each
 * ends by the next one's start), so one walk over spans and boundaries tells them all.
 */
function countedAtBoundaries(s: Subscription, grace: number, boundaries: number[], out: Uint8Array): void {
  const cancelled = s.cancellation ? s.cancellation.timestamp : Infinity;
  const until = (i: number) => Math.min(i + 1 < s.paid ? s.paidTimes[i + 1] : Infinity, s.paidThroughAfter[i] + grace, cancelled);
  let j = 0;
  for (let i = 0; i < boundaries.length; i++) {
    const t = boundaries[i];
    while (j < s.paid && until(j) < t) j++;
    out[i] = j < s.paid && s.paidTimes[j] < t && t <= until(j) ? 1 : 0;
  }
}

/** A subscription's dunning cases: each cycleStart with a failed attempt, by its first failed billing (an index into failed*). */
function dunningCases(s: Subscription): number[] {
  const cases: number[] = [];
  if (s.failed === 0) return cases;
  const seen = new Set<number>();
  for (let k = 0; k < s.failed; k++) {
    if (seen.has(s.failedCycles[k])) continue;
    seen.add(s.failedCycles[k]);
    cases.push(k);
  }
  return cases;
}

/** Whether a billing for this cycleStart was paid before t. */
function paidBefore(s: Subscription, cycleStart: number, t: number): boolean {
  for (let i = 0; i < s.paid && s.paidTimes[i] < t; i++) if (s.paidCycles[i] === cycleStart) return true;
  return false;
}

/** The interval holding t, or -1. */
function intervalOf(intervals: ReadonlyArray<{ from: number; to: number }>, t: number): number {
  let lo = 0;
  let hi = intervals.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (t < intervals[mid].from) hi = mid - 1;
    else if (t >= intervals[mid].to) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** How many of the first n ascending times are before t. */
function countBefore(times: Float64Array, n: number, t: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface Cell {
  token: string;
  planId?: string;
  start: number;
  end: number;
  new: number;
  reactivated: number;
  churned: number;
  mrrStart: bigint;
  mrrEnd: bigint;
  mrrNew: bigint;
  mrrReactivated: bigint;
  mrrChurned: bigint;
  attempts: number;
  failed: number;
  dunning: number;
  recovered: number;
  lost: number;
}

function emptyCell(token: string, planId: string | undefined): Cell {
  return {
    token,
    ...(planId !== undefined ? { planId } : {}),
    start: 0,
    end: 0,
    new: 0,
    reactivated: 0,
    churned: 0,
    mrrStart: 0n,
    mrrEnd: 0n,
    mrrNew: 0n,
    mrrReactivated: 0n,
    mrrChurned: 0n,
    attempts: 0,
    failed: 0,
    dunning: 0,
    recovered: 0,
    lost: 0,
  };
}

function rowOf(from: number, to: number, c: Cell): MetricsRow {
  return {
    from,
    to,
    token: c.token,
    ...(c.planId !== undefined ? { planId: c.planId } : {}),
    subscriptions_start: c.start,
    subscriptions_end: c.end,
    new: c.new,
    reactivated: c.reactivated,
    churned: c.churned,
    mrr_start: formatAtto(c.mrrStart),
    mrr_end: formatAtto(c.mrrEnd),
    mrr_new: formatAtto(c.mrrNew),
    mrr_reactivated: formatAtto(c.mrrReactivated),
    mrr_churned: formatAtto(c.mrrChurned),
    logo_churn: ratio(BigInt(c.churned), BigInt(c.start)),
    revenue_churn: ratio(c.mrrChurned, c.mrrStart),
    attempts: c.attempts,
    failed: c.failed,
    failure_rate: ratio(BigInt(c.failed), BigInt(c.attempts)),
    dunning_cases: c.dunning,
    recovered: c.recovered,
    lost: c.lost,
  };
}

/** Code-unit order: the same on every machine and locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
