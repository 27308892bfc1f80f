import { addDecimal, formatAtto, formatDecimal, ratio, type DecimalSum } from './exact.js';
import { rateNeeds, scaleAtto, valueAtto, type ExactRate, type RateOf } from './rates.js';
import { SubscriptionRecords, type EngineInput, type Subscription, type Terms } from './records.js';

// The subscription engine (DESIGN.md "Subscriptions and revenue metrics"; STYLE.md
// "Derived answers"): billings and cancellations in, the ledger of subscriptions, the
// revenue metrics and one subscription's history out. Pure: no DuckDB, no HTTP, no
// clock but the instants it is given.
//
// As of an instant t, only records stamped strictly before t are seen: a billing stamped
// exactly at t is not yet there (it is seen from t + 1). A forced cancellation ends a
// subscription once seen; a voluntary one when its paid period ends (Stripe's cancel at
// period end).
//
// Movements are events: a subscription is counted (active or past due) over a few spans
// of time, and each span's first second (becoming counted: new the first time, else
// reactivated) and the second after its last (churned) falls in the one interval
// (from, to] that holds it. So an interval's end is its start plus its movements, and
// the movements of consecutive intervals add up to those of the interval spanning
// them. Each subscription's spans are found once from its records (a paid billing seen,
// its paid period or grace over, its cancellation seen), not by reading its state at
// every boundary.
//
// Figures: each subscription's MRR is an exact rational rounded half-even once, to 18
// places: the figure the ledger prints. Every total is the exact sum of those printed
// figures, so a total is always the sum of the ledger rows behind it, and
// mrr_end = mrr_start + mrr_new + mrr_reactivated − mrr_churned holds to the last
// printed digit (rounding each total's exact rational on its own could break it by
// 10^-18). The difference from rounding the exact total is at most half of 10^-18 per
// subscription.

export { outcomeCode, SubscriptionRecords } from './records.js';
export { billingOutcome, failedBilling, paidBilling } from '../registry/outcome.js';
export type { BillingInput, CancellationInput, EngineInput } from './records.js';
export { rateNeeds, type ExactRate, type RateOf };

export type SubscriptionState = 'active' | 'past_due' | 'lapsed' | 'cancelled';

/** Every state, in the order of the lifecycle: what --state accepts. */
export const SUBSCRIPTION_STATES: readonly SubscriptionState[] = ['active', 'past_due', 'lapsed', 'cancelled'];

const DAY = 86_400;

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
  /** The last second its cancellation lets it count: cancelledAt when forced, else paidThrough (or cancelledAt when that came later). */
  endsAt: number | null;
  /** Whole days since the first unpaid second (paidThrough + 1), when past due or lapsed. */
  daysPastDue: number | null;
  state: SubscriptionState;
}

/** A ledger row with rates: the value of its MRR at the rate of the cycle in force (null when that rate is missing), and that rate. */
export interface ValuedSubscriptionRow<R extends ExactRate = ExactRate> extends SubscriptionRow {
  value: string | null;
  rate: R | null;
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
  /** Only with rates: the change of value of subscriptions counted across a later cycle's paid billing (exchange-rate impact). */
  mrr_fx?: string;
  mrr_net: string;
  logo_churn: string | null;
  revenue_churn: string | null;
  attempts: number;
  failed: number;
  failure_rate: string | null;
  dunning_cases: number;
  recovered: number;
  recovered_amount: string;
  lost: number;
  open: number;
  /** Amounts of the paid billings stamped in the interval (values with rates). */
  collected: string;
  /** Amounts of the failed ones. */
  failed_amount: string;
}

/** One movement: a subscription becoming counted (new, reactivated), ceasing to be (churned), or its value moving to a later cycle's rate (fx). */
export interface MovementRow<R extends ExactRate = ExactRate> {
  /** The interval (from, to] that holds the instant. */
  from: number;
  to: number;
  /** The first second of the new state. */
  instant: number;
  subscriptionId: string;
  planId: string;
  token: string;
  kind: 'new' | 'reactivated' | 'churned' | 'fx';
  /** The change of MRR in the token: + for new and reactivated, − for churned, 0 for fx. */
  mrr_change: string;
  /** Only with rates: the change in the currency; null when its rate is missing. */
  value?: string | null;
  /** Only with rates: the rate in force after the change (for churned: the one last counted). */
  rate?: R | null;
}

export interface LedgerOptions {
  /** The instant of the ledger (Unix seconds): records stamped before it are seen. */
  at: number;
  /** Past due for this long after paidThrough, then lapsed. */
  graceSeconds: number;
}

export interface MetricsOptions<R extends ExactRate = ExactRate> extends LedgerOptions {
  /**
   * Calendar intervals [from, to), ascending and not overlapping, none ending after `at`
   * (the caller computes them in --tz and cuts the last one at `at`).
   */
  intervals: ReadonlyArray<{ from: number; to: number }>;
  /** One row per plan within each token. */
  byPlan: boolean;
  /**
   * Values in one currency: MRR at the rate of the cycleStart of each subscription's cycle
   * in force, billings at their timestamps; every money column in the currency, and mrr_fx.
   */
  rates?: RateOf<R>;
  /** With rates and without byPlan: one row per interval across tokens (token `*`). */
  acrossTokens?: boolean;
}

/** A change of a subscription's state: from `time` on it is `state`. */
export interface StateChange {
  time: number;
  state: SubscriptionState;
}

export interface SubscriptionHistory {
  /** Its ledger row as of `at`; undefined when it has no paid billing before `at`. */
  row?: SubscriptionRow;
  /** Every change of state up to `at`, in time order (the first: its subscribe seen). */
  changes: StateChange[];
  /** The change that comes next unless a record arrives (a lapse, a cancellation's end, a renewal due). */
  next?: StateChange;
}

/**
 * The ledger as of `at`: one row per subscription started before it, ordered by
 * started, then subscriptionId.
 */
export function ledger(input: EngineInput | SubscriptionRecords, o: LedgerOptions): SubscriptionRow[];
/** With rates: each row also carries the value of its MRR at the rate of its cycle in force as of `at` (ChartMogul's rule). */
export function ledger<R extends ExactRate>(input: EngineInput | SubscriptionRecords, o: LedgerOptions & { rates: RateOf<R> }): ValuedSubscriptionRow<R>[];
export function ledger(input: EngineInput | SubscriptionRecords, o: LedgerOptions & { rates?: RateOf }): SubscriptionRow[] {
  const rows: SubscriptionRow[] = [];
  for (const s of recordsOf(input).subscriptions()) {
    const row = rowAt(s, o.at, o.graceSeconds);
    if (!row) continue;
    if (o.rates) {
      const rate = o.rates(row.token, s.lastPaidCycleAfter[countBefore(s.paidTimes, s.paid, o.at) - 1]);
      rows.push({ ...row, value: rate ? formatAtto(scaleAtto(s.terms!.mrr, rate)) : null, rate: rate ?? null } as ValuedSubscriptionRow);
    } else rows.push(row);
  }
  return rows.sort((a, b) => a.started - b.started || compare(a.subscriptionId, b.subscriptionId));
}

/** One subscription's ledger row as of `at` and every change of its state up to then; undefined when the records name no such subscription. */
export function history(input: EngineInput | SubscriptionRecords, subscriptionId: string, o: LedgerOptions): SubscriptionHistory | undefined {
  for (const s of recordsOf(input).subscriptions()) {
    if (s.id !== subscriptionId) continue;
    const changes: StateChange[] = [];
    for (const time of changeInstants(s, o.graceSeconds)) {
      if (time > o.at) break;
      const state = seenAt(s, time, o.graceSeconds)?.state;
      if (state !== undefined && state !== changes.at(-1)?.state) changes.push({ time, state });
    }
    const row = rowAt(s, o.at, o.graceSeconds);
    return { ...(row ? { row, next: nextChange(row, o.graceSeconds) } : {}), changes };
  }
  return undefined;
}

/**
 * Revenue metrics per interval and token (and plan with byPlan): every interval for
 * each key with anything in the window (a subscription counted at an end, a movement,
 * an attempt or a dunning case), zeros included; in interval order, then token, then
 * planId. With rates, every money column is in the currency and mrr_fx is given; with
 * acrossTokens (and not byPlan) one row per interval, token `*`.
 */
export function metrics<R extends ExactRate>(input: EngineInput | SubscriptionRecords, o: MetricsOptions<R>): MetricsRow[] {
  return run(input, o, undefined).rows;
}

/**
 * Every movement in the window (DESIGN.md "The month-end close": `metrics --movements`),
 * ordered by instant, then subscriptionId: the events that metrics' rows of the same
 * intervals add up, one row each. mrr_change is signed (churned negative, fx 0); with
 * rates, value is the change in the currency and rate the rate in force after it (for
 * churned, the one last counted).
 */
export function movements<R extends ExactRate>(input: EngineInput | SubscriptionRecords, o: MetricsOptions<R>): MovementRow<R>[] {
  const list: MovementRow<R>[] = [];
  run(input, o, list);
  return list.sort((a, b) => a.instant - b.instant || compare(a.subscriptionId, b.subscriptionId));
}

const NEW = 0;
const REACTIVATED = 1;
const CHURNED = 2;
const FX = 3;
const KINDS = ['new', 'reactivated', 'churned', 'fx'] as const;

function run<R extends ExactRate>(input: EngineInput | SubscriptionRecords, o: MetricsOptions<R>, list: MovementRow<R>[] | undefined): { rows: MetricsRow[] } {
  const intervals = o.intervals;
  for (let q = 0; q < intervals.length; q++) {
    const { from, to } = intervals[q];
    if (!(from < to) || (q > 0 && from < intervals[q - 1].to)) throw new Error(`metrics: intervals must be ascending and not overlap (interval ${q})`);
    // A state at a later instant would read records not known at `at`.
    if (to > o.at) throw new Error(`metrics: interval ${q} ends after at`);
  }
  const rates = o.rates;
  // Tokens are added together only as values in one currency.
  if (o.acrossTokens && !rates) throw new Error('metrics: rows across tokens need rates');
  const across = o.acrossTokens === true && !o.byPlan;
  const records = recordsOf(input);
  // Each key's cells, one per interval, made when the key first has anything; labels map to keys once.
  const keys = new Map<string, Map<string, Cell[]>>();
  const byLabel: Array<Cell[] | undefined> = [];
  const cellsOf = (label: number): Cell[] => {
    let cells = byLabel[label];
    if (cells) return cells;
    const { token: own, planId } = records.label(label);
    const token = across ? ACROSS : own;
    const plan = o.byPlan ? planId : '';
    let byToken = keys.get(token);
    if (!byToken) keys.set(token, (byToken = new Map()));
    cells = byToken.get(plan);
    if (!cells) byToken.set(plan, (cells = intervals.map(emptyCell)));
    return (byLabel[label] = cells);
  };
  // Interval boundaries, each evaluated once per subscription.
  const boundaries = [...new Set(intervals.flatMap((i) => [i.from, i.to]))].sort((a, b) => a - b);
  const fromIndex = intervals.map((i) => boundaries.indexOf(i.from));
  const toIndex = intervals.map((i) => boundaries.indexOf(i.to));
  const countedAt = new Uint8Array(boundaries.length);
  const spans = new Spans();
  const values = rates && new Values();
  const valuer = rates && new Valuer(rates, values!);

  for (const s of records.subscriptions()) {
    const terms = s.terms;
    if (terms) {
      spans.of(s, o.graceSeconds);
      spans.countedAt(boundaries, countedAt);
      valuer?.of(s, terms);
      // The subscription's figure while counted at t: its MRR, or its value at the rate of the cycle in force.
      const figureAt = (t: number): bigint => (valuer ? valuer.valueAt(t) : terms.mrr);
      // Stryker disable next-line EqualityOperator: one interval past the end reads undefined indexes, counted at neither end, and is skipped
      for (let q = 0; q < intervals.length; q++) {
        const atFrom = countedAt[fromIndex[q]] === 1;
        const atTo = countedAt[toIndex[q]] === 1;
        if (!atFrom && !atTo) continue;
        const c = cellsOf(terms.label)[q];
        if (atFrom) {
          c.start++;
          c.mrrStart += figureAt(intervals[q].from);
        }
        if (atTo) {
          c.end++;
          c.mrrEnd += figureAt(intervals[q].to);
        }
      }
      /** A movement at `instant` in interval q: its figure (for fx, the change) into the cell, and a row when listed. */
      const move = (q: number, instant: number, kind: number, figure: bigint, cycle: number) => {
        const c = cellsOf(terms.label)[q];
        if (kind === NEW) {
          c.new++;
          c.mrrNew += figure;
        } else if (kind === REACTIVATED) {
          c.reactivated++;
          c.mrrReactivated += figure;
        } else if (kind === CHURNED) {
          c.churned++;
          c.mrrChurned += figure;
        } else c.mrrFx += figure;
        if (!list) return;
        const sign = kind === CHURNED ? -1n : 1n;
        const row: MovementRow<R> = {
          from: intervals[q].from,
          to: intervals[q].to,
          instant,
          subscriptionId: s.id,
          planId: terms.planId,
          token: terms.token,
          kind: KINDS[kind],
          mrr_change: formatAtto(kind === FX ? 0n : sign * terms.mrr),
        };
        if (valuer) {
          const rate = valuer.rate(cycle) as R | undefined;
          // A value whose rate is missing is left out of the totals (as 0), and shown empty here.
          row.value = rate === undefined && kind !== FX ? null : formatAtto(sign * figure);
          row.rate = rate ?? null;
        }
        list.push(row);
      };
      // A span's first second is in (from, to] when the second before it is in [from, to).
      for (let k = 0; k < spans.count; k++) {
        const start = spans.starts[k];
        const end = spans.ends[k];
        const began = intervalOf(intervals, start - 1);
        if (began !== -1) move(began, start, k === 0 ? NEW : REACTIVATED, figureAt(start), valuer ? valuer.cycleAt(start) : 0);
        // In the currency: each paid billing of a later cycle seen while counted (p + 1 in (start, end]) moves the value to its cycle's rate.
        if (valuer) {
          for (let i = countBefore(s.paidTimes, s.paid, start); i < s.paid && s.paidTimes[i] < end; i++) {
            const p = s.paidTimes[i];
            // Billings stamped in the same second count at once: from the cycle before the first to the one after the last.
            if (i + 1 < s.paid && s.paidTimes[i + 1] === p) continue;
            const q = intervalOf(intervals, p);
            if (q === -1) continue;
            const before = valuer.cycleAt(p);
            const after = s.lastPaidCycleAfter[i];
            if (after === before) continue;
            const change = valuer.value(after) - valuer.value(before);
            if (change !== 0n) move(q, p + 1, FX, change, after);
          }
        }
        const ceased = intervalOf(intervals, end);
        if (ceased !== -1) move(ceased, end + 1, CHURNED, figureAt(end), valuer ? valuer.cycleAt(end) : 0);
      }
    }
    // Attempts come in time order, mostly of one label: reuse the last cell until the interval or label changes.
    let last: { q: number; label: number; cell: Cell } | undefined;
    for (let i = 0; i < s.attempts; i++) {
      const t = s.attemptTimes[i];
      const label = s.attemptLabels[i];
      const q = last && t < intervals[last.q].to ? last.q : intervalOf(intervals, t);
      if (q === -1) continue;
      if (!last || last.q !== q || last.label !== label) last = { q, label, cell: cellsOf(label)[q] };
      const c = last.cell;
      c.attempts++;
      const amount = amountAt(records, label, t, rates, values);
      if (s.attemptFailed[i] === 1) {
        c.failed++;
        c.failedAmount = addDecimal(c.failedAmount, amount);
      } else c.collected = addDecimal(c.collected, amount);
    }
    for (const k of dunningCases(s)) {
      const q = intervalOf(intervals, s.failedTimes[k]);
      if (q === -1) continue;
      const label = s.failedLabels[k];
      const c = cellsOf(label)[q];
      c.dunning++;
      const paid = paidBefore(s, s.failedCycles[k], o.at);
      if (paid !== -1) {
        c.recovered++;
        // In the currency: the cycle's amount at the rate of the billing that paid it (the cash recovered, as collected counts it).
        c.recoveredAmount = addDecimal(c.recoveredAmount, amountAt(records, label, s.paidTimes[paid], rates, values));
      } else {
        const state = seenAt(s, o.at, o.graceSeconds)?.state;
        if (state === 'cancelled' || state === 'lapsed') c.lost++;
      }
    }
  }

  const rows: MetricsRow[] = [];
  const ordered = [...keys.keys()].sort(compare).flatMap((token) => {
    const byToken = keys.get(token)!;
    return [...byToken.keys()].sort(compare).map((plan) => ({ token, plan, cells: byToken.get(plan)! }));
  });
  intervals.forEach(({ from, to }, q) => {
    for (const { token, plan, cells } of ordered) rows.push(rowOf(from, to, token, o.byPlan ? plan : undefined, cells[q], rates !== undefined));
  });
  return { rows };
}

/** The token of rows across tokens, as --summary names its totals across tokens. */
const ACROSS = '*';

/** A billing's amount, or with rates its value at instant t (units of 10^-18; 0 when the rate is missing: left out). */
function amountAt(records: SubscriptionRecords, label: number, t: number, rates: RateOf | undefined, values: Values | undefined): DecimalSum {
  const amount = records.amount(label);
  if (!rates) return amount;
  const rate = rates(records.label(label).token, t);
  return rate ? values!.of(label, amount, rate) : MISSING_VALUE;
}

/**
 * Values made once per (figure, rate): a million billings are a few labels' amounts at a
 * few thousand rates (a rates file's days), and each subscription's MRR one of a few
 * plans' at the same rates. The caller's lookup hands the same object for the same rate
 * (a row of a file, a round of a feed), so the rate object is the key; a rate that comes
 * as a new object each time is only valued again, never wrongly.
 */
class Values {
  private readonly byRate = new Map<ExactRate, { amounts: DecimalSum[]; mrrs: Map<bigint, bigint> }>();

  private cache(rate: ExactRate): { amounts: DecimalSum[]; mrrs: Map<bigint, bigint> } {
    let values = this.byRate.get(rate);
    if (!values) this.byRate.set(rate, (values = { amounts: [], mrrs: new Map() }));
    return values;
  }

  /** A label's amount × rate, as a sum's term (units of 10^-18). */
  of(label: number, amount: DecimalSum, rate: ExactRate): DecimalSum {
    const { amounts } = this.cache(rate);
    return (amounts[label] ??= { num: valueAtto(amount, rate), den: ATTO });
  }

  /** An MRR (units of 10^-18) × rate. */
  scaled(mrr: bigint, rate: ExactRate): bigint {
    const { mrrs } = this.cache(rate);
    let v = mrrs.get(mrr);
    if (v === undefined) mrrs.set(mrr, (v = scaleAtto(mrr, rate)));
    return v;
  }
}

const ATTO = 10n ** 18n;
const MISSING_VALUE: DecimalSum = { num: 0n, den: ATTO };

/** A missing rate, as Valuer's cache holds it. */
const NO_RATE: ExactRate = { num: 0n, den: 1n };

/**
 * One subscription's MRR in the currency (ChartMogul's rule, DESIGN.md): its token MRR ×
 * the rate at the cycleStart of the cycle in force, the latest cycle paid and seen. Each
 * cycle's rate and value are asked for once per subscription.
 */
class Valuer {
  private s!: Subscription;
  private mrr = 0n;
  private token = '';
  private readonly values = new Map<number, bigint>();
  /** Each cycle's rate, asked once (NO_RATE: asked, and missing). */
  private readonly rates = new Map<number, ExactRate>();

  constructor(
    private readonly rateOf: RateOf,
    /** Values shared by every subscription: one plan's MRR at one rate is valued once. */
    private readonly made: Values,
  ) {}

  of(s: Subscription, terms: Terms): void {
    this.s = s;
    this.mrr = terms.mrr;
    this.token = terms.token;
    this.values.clear();
    this.rates.clear();
  }

  /** The cycleStart in force at t: the latest of the paid billings stamped before t (one at least). */
  cycleAt(t: number): number {
    return this.s.lastPaidCycleAfter[countBefore(this.s.paidTimes, this.s.paid, t) - 1];
  }

  rate(cycle: number): ExactRate | undefined {
    let rate = this.rates.get(cycle);
    if (rate === undefined) this.rates.set(cycle, (rate = this.rateOf(this.token, cycle) ?? NO_RATE));
    return rate === NO_RATE ? undefined : rate;
  }

  /** The MRR's value at the rate of this cycle's start, rounded once; 0 when that rate is missing (left out). */
  value(cycle: number): bigint {
    let v = this.values.get(cycle);
    if (v === undefined) {
      const rate = this.rate(cycle);
      this.values.set(cycle, (v = rate ? this.made.scaled(this.mrr, rate) : 0n));
    }
    return v;
  }

  valueAt(t: number): bigint {
    return this.value(this.cycleAt(t));
  }
}

/** Records given as arrays are read into the compact store first. */
function recordsOf(input: EngineInput | SubscriptionRecords): SubscriptionRecords {
  return input instanceof SubscriptionRecords ? input : SubscriptionRecords.from(input);
}

interface Seen {
  paidThrough: number;
  lastPaidCycle: number;
  /** The cancellation seen at t, if any. */
  cancellation?: { timestamp: number; forced: boolean };
  state: SubscriptionState;
}

/** A subscription as of t (records stamped before t); undefined when not started by then. */
function seenAt(s: Subscription, t: number, grace: number): Seen | undefined {
  const k = countBefore(s.paidTimes, s.paid, t);
  if (k === 0) return undefined;
  const paidThrough = s.paidThroughAfter[k - 1];
  const cancellation = s.cancellation && s.cancellation.timestamp < t ? s.cancellation : undefined;
  let state: SubscriptionState;
  // Forced: ended at once. Voluntary: active until its paid period ends.
  if (cancellation) state = cancellation.forced || t > paidThrough ? 'cancelled' : 'active';
  else state = t <= paidThrough ? 'active' : t <= paidThrough + grace ? 'past_due' : 'lapsed';
  return { paidThrough, lastPaidCycle: s.lastPaidCycleAfter[k - 1], cancellation, state };
}

function rowAt(s: Subscription, at: number, grace: number): SubscriptionRow | undefined {
  const terms = s.terms;
  const seen = terms && seenAt(s, at, grace);
  if (!terms || !seen) return undefined;
  const { paidThrough, cancellation, state } = seen;
  return {
    subscriptionId: s.id,
    planId: terms.planId,
    token: terms.token,
    amount: terms.amount,
    period: terms.period,
    mrr: formatAtto(terms.mrr),
    started: terms.started,
    paidThrough,
    // Never null here: the subscribe is an attempt before `at`.
    lastAttempt: s.attemptTimes[countBefore(s.attemptTimes, s.attempts, at) - 1],
    failedAttempts: failedSince(s, seen.lastPaidCycle, at),
    cancelledAt: cancellation ? cancellation.timestamp : null,
    forced: cancellation ? cancellation.forced : null,
    endsAt: cancellation ? (cancellation.forced ? cancellation.timestamp : Math.max(paidThrough, cancellation.timestamp)) : null,
    daysPastDue: state === 'past_due' || state === 'lapsed' ? Math.floor((at - paidThrough - 1) / DAY) : null,
    state,
  };
}

/** What happens next to a subscription as of its row, unless a record arrives: a renewal falls due, the grace runs out, a cancellation takes effect. */
function nextChange(row: SubscriptionRow, grace: number): StateChange | undefined {
  if (row.endsAt !== null) return row.state === 'active' ? { time: row.endsAt + 1, state: 'cancelled' } : undefined;
  if (row.state === 'active') return { time: row.paidThrough + 1, state: grace > 0 ? 'past_due' : 'lapsed' };
  if (row.state === 'past_due') return { time: row.paidThrough + grace + 1, state: 'lapsed' };
  return undefined;
}

/** The instants at which a subscription's state can change, ascending: a record seen, a paid period or a grace over. */
function changeInstants(s: Subscription, grace: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.paid; i++) out.push(s.paidTimes[i] + 1, s.paidThroughAfter[i] + 1, s.paidThroughAfter[i] + grace + 1);
  if (s.cancellation) out.push(s.cancellation.timestamp + 1);
  return [...new Set(out)].sort((a, b) => a - b);
}

/** Failed attempts before t for cycles after the last one paid. */
function failedSince(s: Subscription, lastPaidCycle: number, t: number): number {
  let n = 0;
  for (let i = 0; i < s.failed; i++) if (s.failedTimes[i] < t && s.failedCycles[i] > lastPaidCycle) n++;
  return n;
}

/**
 * The spans [start, end] of seconds during which a subscription is counted (active or
 * past due), ascending and apart, in arrays reused from one subscription to the next.
 */
class Spans {
  count = 0;
  starts = new Float64Array(16);
  ends = new Float64Array(16);

  /**
   * After its i-th paid billing is seen (from p_i + 1) and until the next one is (p_{i+1}),
   * its paidThrough PT is fixed, and it is counted up to U: PT + grace without a
   * cancellation; min(c, PT + grace) with a forced one stamped c; with a voluntary one,
   * through PT when c < PT, else up to min(c, PT + grace) (cancelled when seen after the
   * paid period). A span that begins the second after the last one ended continues it.
   */
  of(s: Subscription, grace: number): void {
    if (s.paid > this.starts.length) {
      this.starts = new Float64Array(2 * s.paid);
      this.ends = new Float64Array(2 * s.paid);
    }
    const c = s.cancellation;
    let n = 0;
    for (let i = 0; i < s.paid; i++) {
      const pt = s.paidThroughAfter[i];
      const lapse = pt + grace;
      const until = !c ? lapse : c.forced ? Math.min(c.timestamp, lapse) : Math.max(pt, Math.min(c.timestamp, lapse));
      const start = s.paidTimes[i] + 1;
      const end = Math.min(i + 1 < s.paid ? s.paidTimes[i + 1] : Infinity, until);
      if (end < start) continue;
      if (n > 0 && this.ends[n - 1] === start - 1) this.ends[n - 1] = end;
      else {
        this.starts[n] = start;
        this.ends[n] = end;
        n++;
      }
    }
    this.count = n;
  }

  /** Marks, for each boundary (ascending), whether a span holds it: one walk over both. */
  countedAt(boundaries: number[], out: Uint8Array): void {
    let k = 0;
    for (let i = 0; i < boundaries.length; i++) {
      const t = boundaries[i];
      while (k < this.count && this.ends[k] < t) k++;
      out[i] = k < this.count && this.starts[k] <= t ? 1 : 0;
    }
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

/** The first billing for this cycleStart paid before t (an index into paid*), or -1. */
function paidBefore(s: Subscription, cycleStart: number, t: number): number {
  for (let i = 0; i < s.paid && s.paidTimes[i] < t; i++) if (s.paidCycles[i] === cycleStart) return i;
  return -1;
}

/** The interval [from, to) holding t, or -1. */
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
  mrrFx: bigint;
  attempts: number;
  failed: number;
  dunning: number;
  recovered: number;
  recoveredAmount: DecimalSum;
  lost: number;
  collected: DecimalSum;
  failedAmount: DecimalSum;
}

function emptyCell(): Cell {
  return {
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
    mrrFx: 0n,
    attempts: 0,
    failed: 0,
    dunning: 0,
    recovered: 0,
    recoveredAmount: { num: 0n, den: 1n },
    lost: 0,
    collected: { num: 0n, den: 1n },
    failedAmount: { num: 0n, den: 1n },
  };
}

function rowOf(from: number, to: number, token: string, planId: string | undefined, c: Cell, valued: boolean): MetricsRow {
  return {
    from,
    to,
    token,
    ...(planId !== undefined ? { planId } : {}),
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
    ...(valued ? { mrr_fx: formatAtto(c.mrrFx) } : {}),
    mrr_net: formatAtto(c.mrrEnd - c.mrrStart),
    logo_churn: ratio(BigInt(c.churned), BigInt(c.start)),
    revenue_churn: ratio(c.mrrChurned, c.mrrStart),
    attempts: c.attempts,
    failed: c.failed,
    failure_rate: ratio(BigInt(c.failed), BigInt(c.attempts)),
    dunning_cases: c.dunning,
    recovered: c.recovered,
    recovered_amount: formatDecimal(c.recoveredAmount),
    lost: c.lost,
    open: c.dunning - c.recovered - c.lost,
    collected: formatDecimal(c.collected),
    failed_amount: formatDecimal(c.failedAmount),
  };
}

/** Code-unit order: the same on every machine and locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One dunning case (a subscription's cycle with a failed attempt), as metrics counts it. */
export interface DunningCaseRow {
  subscriptionId: string;
  planId: string;
  token: string;
  amount: string;
  cycleStart: number;
  /** Its first failed attempt: the instant that dates the case. */
  firstFailure: number;
  /** Failed attempts at this cycle before `at`. */
  failedAttempts: number;
  /** recovered (a paid billing of the cycle before `at`), lost (not, and cancelled or lapsed at `at`), or open. */
  outcome: 'recovered' | 'lost' | 'open';
}

/**
 * The dunning cases dated in [from, to) one by one, by the rules metrics counts them
 * with (its dunning_cases, recovered, lost and open are these rows counted), in the
 * order of their first failure, then subscription.
 */
export function dunningCaseRows(input: EngineInput | SubscriptionRecords, o: LedgerOptions & { from: number; to: number }): DunningCaseRow[] {
  const records = recordsOf(input);
  const rows: DunningCaseRow[] = [];
  for (const s of records.subscriptions()) {
    for (const k of dunningCases(s)) {
      const t = s.failedTimes[k];
      if (t < o.from || t >= o.to) continue;
      const { token, planId, amount } = records.label(s.failedLabels[k]);
      const cycle = s.failedCycles[k];
      let failedAttempts = 0;
      for (let i = 0; i < s.failed && s.failedTimes[i] < o.at; i++) if (s.failedCycles[i] === cycle) failedAttempts++;
      const state = seenAt(s, o.at, o.graceSeconds)?.state;
      const outcome = paidBefore(s, cycle, o.at) !== -1 ? 'recovered' : state === 'cancelled' || state === 'lapsed' ? 'lost' : 'open';
      rows.push({ subscriptionId: s.id, planId, token, amount, cycleStart: cycle, firstFailure: t, failedAttempts, outcome });
    }
  }
  return rows.sort((a, b) => a.firstFailure - b.firstFailure || compare(a.subscriptionId, b.subscriptionId));
}
