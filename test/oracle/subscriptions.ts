import Big from 'big.js';
import type { SubscriptionFacts } from '../../src/emulator/index.js';
import type { BillingInput, CancellationInput, ExactRate, MetricsRow, MovementRow, SubscriptionRow } from '../../src/subscriptions/engine.js';

// The subscription engine's brute-force oracle: DESIGN.md's definitions written again,
// naively, with none of the engine's code (STYLE.md "Derived answers"). It scans every
// record at every instant it is asked about, keeps money in big.js (not the engine's
// BigInt code), and finds movements as DESIGN defines them, as events: it compares each
// subscription's counted state one second before an instant with the state then. The
// unit tests hold the engine to it on generated lifecycles
// (test/unit/subscriptions-oracle.test.ts); the e2e tests hold payrec subscriptions and
// payrec metrics to it on the emulator's records.

const DAY = 86_400;

const Money = Big();
Money.DP = 18;
Money.RM = Big.roundHalfEven;
const Ratio = Big();
Ratio.DP = 8;
Ratio.RM = Big.roundHalfEven;

/**
 * A rate as the oracle takes it: 1 token = times ÷ over of the currency, two decimals (a
 * cross rate such as 1 ÷ 1.0830 has no finite decimal). A value is amount × times ÷ over,
 * rounded half-even to 18 places once: big.js multiplies exactly and divides correctly
 * rounded. (It extends the engine's type only so that tests can hand both sides one
 * object: the oracle reads times and over, never num and den.)
 */
export interface NaiveRate extends ExactRate {
  times: string;
  over: string;
}
export type NaiveRates = (token: string, t: number) => NaiveRate;

/** DESIGN: value = amount × rate, rounded half-even to 18 decimals once. */
export const naiveValue = (amount: Big | string, rate: NaiveRate): Big => new Money(amount).times(rate.times).div(rate.over);

export interface NaiveSub {
  subscribe: BillingInput;
  paidThrough: number;
  lastPaidCycle: number;
  lastAttempt: number | null;
  failedAfter: number;
  cancellation?: CancellationInput;
  state: string;
}

/** DESIGN's MRR, written again: months by the rounded day count, else the mean month. */
export function naiveMrr(b: BillingInput): Big {
  const period = b.cycleEnd - b.cycleStart + 1;
  const days = Math.round(period / DAY);
  let months = 0;
  if (days >= 28 && days <= 31) months = 1;
  if (days >= 56 && days <= 62) months = 2;
  if (days >= 84 && days <= 92) months = 3;
  if (days >= 168 && days <= 184) months = 6;
  if (days >= 360 && days <= 366) months = 12;
  return months > 0 ? new Money(b.amount).div(months) : new Money(b.amount).times(2_629_746).div(period);
}

export const paid = (b: BillingInput) => b.success === 1 && b.transactionStatus === 'confirmed';
export const failed = (b: BillingInput) => b.success !== 1 || b.transactionStatus === 'failed';

/**
 * Every subscription as of t, from one scan of every record stamped before t. DESIGN: a
 * forced cancellation makes it cancelled at once; a voluntary one when its paid period
 * ends (active while t ≤ paidThrough, cancelled after); without one, active, past due
 * within the grace, then lapsed.
 */
export function naiveAt(billings: BillingInput[], cancellations: CancellationInput[], t: number, grace: number): Map<string, NaiveSub> {
  const subs = new Map<string, NaiveSub>();
  for (const b of billings) {
    if (b.timestamp >= t || !paid(b)) continue;
    const s = subs.get(b.subscriptionId);
    if (!s) subs.set(b.subscriptionId, { subscribe: b, paidThrough: b.cycleEnd, lastPaidCycle: b.cycleStart, lastAttempt: null, failedAfter: 0, state: '' });
    else {
      if (b.timestamp < s.subscribe.timestamp) s.subscribe = b;
      s.paidThrough = Math.max(s.paidThrough, b.cycleEnd);
      s.lastPaidCycle = Math.max(s.lastPaidCycle, b.cycleStart);
    }
  }
  for (const b of billings) {
    const s = subs.get(b.subscriptionId);
    if (!s || b.timestamp >= t || !(paid(b) || failed(b))) continue;
    s.lastAttempt = Math.max(s.lastAttempt ?? -Infinity, b.timestamp);
    if (failed(b) && b.cycleStart > s.lastPaidCycle) s.failedAfter++;
  }
  for (const c of cancellations) {
    const s = subs.get(c.subscriptionId);
    if (s && c.timestamp < t && c.transactionStatus === 'confirmed' && (!s.cancellation || c.timestamp < s.cancellation.timestamp)) s.cancellation = c;
  }
  for (const s of subs.values()) {
    if (s.cancellation?.forced) s.state = 'cancelled';
    else if (s.cancellation) s.state = t <= s.paidThrough ? 'active' : 'cancelled';
    else if (t <= s.paidThrough) s.state = 'active';
    else if (t <= s.paidThrough + grace) s.state = 'past_due';
    else s.state = 'lapsed';
  }
  return subs;
}

export function naiveLedger(billings: BillingInput[], cancellations: CancellationInput[], t: number, grace: number): SubscriptionRow[] {
  return [...naiveAt(billings, cancellations, t, grace)]
    .map(([id, s]) => ({
      subscriptionId: id,
      planId: s.subscribe.planId,
      token: s.subscribe.token,
      amount: s.subscribe.amount,
      period: s.subscribe.cycleEnd - s.subscribe.cycleStart + 1,
      mrr: naiveMrr(s.subscribe).toFixed(),
      started: s.subscribe.timestamp,
      paidThrough: s.paidThrough,
      lastAttempt: s.lastAttempt,
      failedAttempts: s.failedAfter,
      cancelledAt: s.cancellation?.timestamp ?? null,
      forced: s.cancellation?.forced ?? null,
      // When the cancellation takes effect: at once when forced, else when the paid period ends (or at once when it has ended).
      endsAt: s.cancellation ? (s.cancellation.forced ? s.cancellation.timestamp : Math.max(s.paidThrough, s.cancellation.timestamp)) : null,
      // Whole days since the first unpaid second.
      daysPastDue: s.state === 'past_due' || s.state === 'lapsed' ? Math.floor((t - (s.paidThrough + 1)) / DAY) : null,
      state: s.state as SubscriptionRow['state'],
    }))
    .sort((a, b) => a.started - b.started || (a.subscriptionId < b.subscriptionId ? -1 : 1));
}

/** The instants at which a subscription's state can change: a record seen, a paid period over, a grace over. */
export function changeInstants(r: Records, grace: number): number[] {
  const out = new Set<number>();
  for (const b of r.billings) [b.timestamp + 1, b.cycleEnd + 1, b.cycleEnd + grace + 1].forEach((x) => out.add(x));
  for (const c of r.cancellations) out.add(c.timestamp + 1);
  return [...out].sort((a, b) => a - b);
}

/**
 * DESIGN's metrics by simulation: the counted subscriptions (active or past due) at each
 * interval's ends, and every change of a subscription's counted state at each instant of
 * `instants` (by default every instant where one can happen; a test passes every
 * second): comparing the state one second before with the state then, in time order,
 * so that becoming counted the first time is new and later reactivated. A change falls
 * in the interval (from, to] holding its instant.
 */
export function naiveMetrics(r: Records, intervals: Array<{ from: number; to: number }>, at: number, grace: number, byPlan: boolean, instants = changeInstants(r, grace), valued?: Valued): MetricsRow[] {
  return naiveRun(r, intervals, at, grace, byPlan, instants, valued).rows;
}

/** In one currency (DESIGN "MRR in one currency"): the rate of each instant, and whether rows go across tokens (token `*`). */
export interface Valued {
  rates: NaiveRates;
  across: boolean;
}

/**
 * DESIGN's movement list (`metrics --movements`) by the same simulation: every change of a
 * subscription's counted state, and in a currency every change of its value while it is
 * counted (fx), at the instant it happens, ordered by instant, then subscriptionId.
 */
export function naiveMovements(r: Records, intervals: Array<{ from: number; to: number }>, at: number, grace: number, instants = changeInstants(r, grace), valued?: Valued): MovementRow<NaiveRate>[] {
  return naiveRun(r, intervals, at, grace, false, instants, valued).movements.sort((a, b) => a.instant - b.instant || (a.subscriptionId < b.subscriptionId ? -1 : 1));
}

function naiveRun(r: Records, intervals: Array<{ from: number; to: number }>, at: number, grace: number, byPlan: boolean, instants: number[], valued: Valued | undefined) {
  const { billings, cancellations } = r;
  // A subscription's figure: its MRR, or in the currency its MRR × the rate at the cycleStart of the cycle in force (its latest paid cycle seen).
  const figure = (s: NaiveSub) => (valued ? naiveValue(naiveMrr(s.subscribe), valued.rates(s.subscribe.token, s.lastPaidCycle)) : naiveMrr(s.subscribe));
  // A billing's amount, or its value at its own time.
  const cash = (b: BillingInput, t = b.timestamp) => (valued ? naiveValue(b.amount, valued.rates(b.token, t)) : new Big(b.amount));
  const movements: MovementRow<NaiveRate>[] = [];
  const memo = new Map<number, Map<string, NaiveSub>>();
  const stateAt = (t: number) => {
    if (!memo.has(t)) memo.set(t, naiveAt(billings, cancellations, t, grace));
    return memo.get(t)!;
  };
  const counted = (s: NaiveSub | undefined) => s !== undefined && (s.state === 'active' || s.state === 'past_due');
  const atAt = stateAt(at);
  // Each case (subscription, cycleStart) with its first failed billing.
  const firstFailures = new Map<string, BillingInput>();
  for (const b of billings) {
    const k = JSON.stringify([b.subscriptionId, b.cycleStart]);
    const seen = firstFailures.get(k);
    if (failed(b) && (!seen || b.timestamp < seen.timestamp)) firstFailures.set(k, b);
  }
  type Cell = { token: string; planId: string; n: Record<string, number>; mrr: Record<string, Big> };
  const cells = intervals.map(() => new Map<string, Cell>());
  const cell = (q: number, own: string, planId: string) => {
    const token = valued?.across && !byPlan ? '*' : own;
    const key = JSON.stringify([token, byPlan ? planId : '']);
    if (!cells[q].has(key)) cells[q].set(key, { token, planId: byPlan ? planId : '', n: {}, mrr: {} });
    return cells[q].get(key)!;
  };
  const add = (c: Cell, what: string, mrr?: Big) => {
    c.n[what] = (c.n[what] ?? 0) + 1;
    if (mrr) c.mrr[what] = (c.mrr[what] ?? new Big(0)).plus(mrr);
  };
  intervals.forEach(({ from, to }, q) => {
    for (const [when, what] of [[from, 'start'], [to, 'end']] as const) {
      for (const s of stateAt(when).values()) if (counted(s)) add(cell(q, s.subscribe.token, s.subscribe.planId), what, figure(s));
    }
  });
  // Changes, in time order from the first instant on.
  const ever = new Set<string>();
  const last = intervals.at(-1)?.to ?? -Infinity;
  for (const x of instants) {
    if (x > last) break;
    const before = stateAt(x - 1);
    const now = stateAt(x);
    const q = intervals.findIndex((i) => i.from < x && x <= i.to);
    for (const id of new Set([...before.keys(), ...now.keys()])) {
      const was = counted(before.get(id));
      const is = counted(now.get(id));
      const sub = (now.get(id) ?? before.get(id))!.subscribe;
      let what: 'new' | 'reactivated' | 'churned' | 'fx';
      let change: Big;
      if (was && is) {
        // Counted before and after: only its value can move (a later cycle's rate).
        change = figure(now.get(id)!).minus(figure(before.get(id)!));
        if (change.eq(0)) continue;
        what = 'fx';
      } else if (was === is) continue;
      else {
        what = is ? (ever.has(id) ? 'reactivated' : 'new') : 'churned';
        change = is ? figure(now.get(id)!) : figure(before.get(id)!);
      }
      if (is) ever.add(id);
      if (q === -1) continue;
      add(cell(q, sub.token, sub.planId), what, change);
      const mrr = what === 'fx' ? new Big(0) : what === 'churned' ? naiveMrr(sub).neg() : naiveMrr(sub);
      movements.push({
        from: intervals[q].from,
        to: intervals[q].to,
        instant: x,
        subscriptionId: id,
        planId: sub.planId,
        token: sub.token,
        kind: what,
        mrr_change: mrr.toFixed(),
        ...(valued ? { value: (what === 'churned' ? change.neg() : change).toFixed(), rate: valued.rates(sub.token, (is ? now : before).get(id)!.lastPaidCycle) } : {}),
      });
    }
  }
  intervals.forEach(({ from, to }, q) => {
    for (const b of billings) {
      if (b.timestamp < from || b.timestamp >= to || !(paid(b) || failed(b))) continue;
      const c = cell(q, b.token, b.planId);
      add(c, 'attempts');
      if (failed(b)) add(c, 'failed');
      add(c, failed(b) ? 'failed_amount' : 'collected', cash(b));
    }
    for (const b of firstFailures.values()) {
      if (b.timestamp < from || b.timestamp >= to) continue;
      const c = cell(q, b.token, b.planId);
      add(c, 'dunning');
      // Recovered: the same cycle paid before --at; in the currency its amount at the time of the first billing that paid it.
      const payers = billings.filter((o) => paid(o) && o.subscriptionId === b.subscriptionId && o.cycleStart === b.cycleStart && o.timestamp < at);
      if (payers.length > 0) add(c, 'recovered', cash(b, Math.min(...payers.map((o) => o.timestamp))));
      else if (['cancelled', 'lapsed'].includes(atAt.get(b.subscriptionId)?.state ?? '')) add(c, 'lost');
    }
  });
  // Every interval for each key with anything in the window, zeros included.
  const keys = new Map<string, Cell>();
  for (const byKey of cells) for (const [k, c] of byKey) keys.set(k, c);
  const sorted = [...keys.values()].sort((a, b) => (a.token !== b.token ? (a.token < b.token ? -1 : 1) : a.planId < b.planId ? -1 : a.planId > b.planId ? 1 : 0));
  const rows: MetricsRow[] = [];
  intervals.forEach(({ from, to }, q) => {
    for (const k of sorted) {
      const c: Pick<Cell, 'n' | 'mrr'> = cells[q].get(JSON.stringify([k.token, k.planId])) ?? { n: {}, mrr: {} };
      const n = (what: string) => c.n[what] ?? 0;
      const money = (what: string) => c.mrr[what] ?? new Big(0);
      const ratio = (a: Big, b: Big) => (b.eq(0) ? null : new Ratio(a).div(b).toFixed(8));
      rows.push({
        from,
        to,
        token: k.token,
        ...(byPlan ? { planId: k.planId } : {}),
        subscriptions_start: n('start'),
        subscriptions_end: n('end'),
        new: n('new'),
        reactivated: n('reactivated'),
        churned: n('churned'),
        mrr_start: money('start').toFixed(),
        mrr_end: money('end').toFixed(),
        mrr_new: money('new').toFixed(),
        mrr_reactivated: money('reactivated').toFixed(),
        mrr_churned: money('churned').toFixed(),
        ...(valued ? { mrr_fx: money('fx').toFixed() } : {}),
        mrr_net: money('end').minus(money('start')).toFixed(),
        logo_churn: ratio(new Big(n('churned')), new Big(n('start'))),
        revenue_churn: ratio(money('churned'), money('start')),
        attempts: n('attempts'),
        failed: n('failed'),
        failure_rate: ratio(new Big(n('failed')), new Big(n('attempts'))),
        dunning_cases: n('dunning'),
        recovered: n('recovered'),
        recovered_amount: money('recovered').toFixed(),
        lost: n('lost'),
        open: n('dunning') - n('recovered') - n('lost'),
        collected: money('collected').toFixed(),
        failed_amount: money('failed_amount').toFixed(),
      });
    }
  });
  return { rows, movements };
}

/** Intervals cut at `at`, as the command cuts a window: the last one ends there, none begins at or after it. */
export function cutAt(intervals: Array<{ from: number; to: number }>, at: number): Array<{ from: number; to: number }> {
  return intervals.filter((i) => i.from < at).map((i) => ({ from: i.from, to: Math.min(i.to, at) }));
}


export interface Records {
  billings: BillingInput[];
  cancellations: CancellationInput[];
}

/** The emulator's subscription facts as records: every billing and cancellation, with its plan (the API's per-subscription lists lack it). */
export function recordsOfFacts(facts: SubscriptionFacts[]): Records {
  return {
    billings: facts.flatMap((f) => f.billings.map((b) => ({ ...b, planId: f.planId }) as unknown as BillingInput)),
    cancellations: facts.flatMap((f) => (f.cancellation ? [{ ...f.cancellation, planId: f.planId } as unknown as CancellationInput] : [])),
  };
}
