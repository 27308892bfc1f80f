import { describe, expect, it } from 'vitest';
import { SUBSCRIPTION_STATES, billingOutcome, history, ledger, metrics, type BillingInput, type CancellationInput } from '../../src/subscriptions/engine.js';
import { addDecimal, divHalfEven, formatAtto, formatDecimal, ratio, readDecimal } from '../../src/subscriptions/exact.js';

// Edges of the definitions (DESIGN.md "Subscriptions and revenue metrics"), each pinned to
// the second. Every expected value is typed by hand; the comment says which bug the test
// catches (the mutants applied by hand are listed in the engine's report).

const DAY = 86_400;
const T = 1_767_225_600; // 2026-01-01T00:00:00Z
const P = 30 * DAY;
const G = 30 * DAY;
const E = T + P - 1; // the first cycle's inclusive cycleEnd: paidThrough

let n = 0;
function b(fields: Partial<BillingInput> & { timestamp: number }): BillingInput {
  const cycleStart = fields.cycleStart ?? fields.timestamp;
  return {
    subscriptionId: 's',
    planId: 'p',
    token: 'USDT',
    amount: '10',
    success: 1,
    transactionStatus: 'confirmed',
    transactionHash: `0x${++n}`,
    cycleStart,
    cycleEnd: cycleStart + P - 1,
    ...fields,
  };
}
const subscribe = b({ timestamp: T });
const cancel = (timestamp: number, forced: boolean, transactionStatus = 'confirmed'): CancellationInput => ({ subscriptionId: 's', planId: 'p', timestamp, forced, transactionStatus, transactionHash: `0xc${timestamp}` });
const states = (billings: BillingInput[], at: number, cancellations: CancellationInput[] = [], grace = G) =>
  ledger({ billings, cancellations }, { at, graceSeconds: grace }).map((r) => r.state);
const one = (billings: BillingInput[], intervals: Array<{ from: number; to: number }>, at = T + 400 * DAY, byPlan = false) =>
  metrics({ billings, cancellations: [] }, { intervals, at, graceSeconds: G, byPlan });

describe('state edges, to the second', () => {
  it('is active through the inclusive cycleEnd, past due from the second after it (cycleEnd read as exclusive fails here)', () => {
    expect(states([subscribe], E)).toEqual(['active']);
    expect(states([subscribe], E + 1)).toEqual(['past_due']);
  });

  it('is past due through paidThrough + grace and lapsed one second later (the edge moved by a second fails here)', () => {
    expect(states([subscribe], E + G)).toEqual(['past_due']);
    expect(states([subscribe], E + G + 1)).toEqual(['lapsed']);
    // The same edge in metrics: counted at E + G, not at E + G + 1 → churned in [E + G, E + G + 1).
    const rows = one([subscribe], [
      { from: E + G - 1, to: E + G },
      { from: E + G, to: E + G + 1 },
      { from: E + G + 1, to: E + G + 2 },
    ]);
    expect(rows.map((r) => [r.from - E - G, r.subscriptions_start, r.subscriptions_end, r.churned])).toEqual([
      [-1, 1, 1, 0],
      [0, 1, 0, 1],
      [1, 0, 0, 0],
    ]);
  });

  it('with no grace, lapses the second after paidThrough', () => {
    expect(states([subscribe], E, [], 0)).toEqual(['active']);
    expect(states([subscribe], E + 1, [], 0)).toEqual(['lapsed']);
  });

  it('does not see a billing stamped exactly at t; sees it at t + 1', () => {
    expect(states([subscribe], T)).toEqual([]);
    expect(states([subscribe], T + 1)).toEqual(['active']);
    // A renewal stamped exactly at t does not extend paidThrough at t.
    const renewal = b({ timestamp: E + G + 1, cycleStart: T + P });
    expect(states([subscribe, renewal], E + G + 1)).toEqual(['lapsed']);
    // Seen a second later: paid through E + P = E + G, so past due again.
    expect(states([subscribe, renewal], E + G + 2)).toEqual(['past_due']);
  });

  it('counts an attempt stamped at from in its interval and one stamped at to in the next', () => {
    const rows = one([subscribe], [
      { from: T - 10, to: T },
      { from: T, to: T + 10 },
    ]);
    // Nothing is counted at T (the subscribe is not seen yet) and nothing is attempted before T: a row of zeros.
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ from: T - 10, subscriptions_start: 0, subscriptions_end: 0, new: 0, attempts: 0 });
    expect(rows[1]).toMatchObject({ from: T, subscriptions_start: 0, subscriptions_end: 1, new: 1, mrr_new: '10', attempts: 1 });
  });

  it('sees a cancellation from the second after its stamp; only a confirmed one, the first', () => {
    expect(states([subscribe], T + 100, [cancel(T + 100, true)])).toEqual(['active']);
    expect(states([subscribe], T + 101, [cancel(T + 100, true)])).toEqual(['cancelled']);
    expect(states([subscribe], T + 101, [cancel(T + 100, true, 'pending'), cancel(T + 90, true, 'failed')])).toEqual(['active']);
    const c = (timestamp: number, transactionStatus: string, forced: boolean) => cancel(timestamp, forced, transactionStatus);
    const row = ledger({ billings: [subscribe], cancellations: [c(T + 200, 'confirmed', false), c(T + 100, 'confirmed', true)] }, { at: T + 300, graceSeconds: G })[0];
    expect([row.cancelledAt, row.forced]).toEqual([T + 100, true]);
  });
});

describe('cancellations: forced at once, voluntary when the paid period ends (Stripe\'s cancel at period end)', () => {
  // The first cycle is paid through E. Intervals split the second around E: a churn at
  // instant x falls in the interval (from, to] holding x.
  const around = [
    { from: T, to: E - 10 },
    { from: E - 10, to: E },
    { from: E, to: E + 1 },
    { from: E + 1, to: E + 2 },
  ];
  const churnedIn = (c: CancellationInput) =>
    metrics({ billings: [subscribe], cancellations: [c] }, { intervals: around, at: E + 2, graceSeconds: G, byPlan: false }).map((r) => [r.subscriptions_end, r.churned, r.mrr_churned]);

  it('forced by the plan during its paid period: cancelled from the second after its stamp, churned then (a forced one kept until the period end fails here)', () => {
    const c = cancel(E - 20, true);
    expect(states([subscribe], E - 20, [c])).toEqual(['active']);
    expect(states([subscribe], E - 19, [c])).toEqual(['cancelled']);
    expect(churnedIn(c)).toEqual([
      [0, 1, '10'],
      [0, 0, '0'],
      [0, 0, '0'],
      [0, 0, '0'],
    ]);
    const [row] = ledger({ billings: [subscribe], cancellations: [c] }, { at: E - 19, graceSeconds: G });
    expect(row).toMatchObject({ cancelledAt: E - 20, forced: true, endsAt: E - 20, daysPastDue: null, state: 'cancelled' });
  });

  it('by the customer during its paid period: active through paidThrough, cancelled from the second after, churned then (ending at once fails here)', () => {
    const c = cancel(E - 20, false);
    expect(states([subscribe], E - 19, [c])).toEqual(['active']);
    expect(states([subscribe], E, [c])).toEqual(['active']);
    expect(states([subscribe], E + 1, [c])).toEqual(['cancelled']);
    // Counted at E (the end of the second interval), gone at E + 1: churned in (E, E + 1].
    expect(churnedIn(c)).toEqual([
      [1, 0, '0'],
      [1, 0, '0'],
      [0, 1, '10'],
      [0, 0, '0'],
    ]);
    const at = (t: number) => ledger({ billings: [subscribe], cancellations: [c] }, { at: t, graceSeconds: G })[0];
    expect(at(E)).toMatchObject({ cancelledAt: E - 20, forced: false, endsAt: E, daysPastDue: null, state: 'active' });
    expect(at(E + 1)).toMatchObject({ endsAt: E, daysPastDue: null, state: 'cancelled' });
  });

  it('by the customer at the last paid second, or after the paid period ended: cancelled once seen (paidThrough kept as its end fails here)', () => {
    // Stamped at E, seen at E + 1, when the period is over anyway.
    expect(churnedIn(cancel(E, false))).toEqual(churnedIn(cancel(E - 20, false)));
    // Past due, then cancelled: it ends at once, not back at paidThrough.
    const late = cancel(E + 5 * DAY, false);
    expect(states([subscribe], E + 5 * DAY, [late])).toEqual(['past_due']);
    expect(ledger({ billings: [subscribe], cancellations: [late] }, { at: E + 5 * DAY + 1, graceSeconds: G })[0]).toMatchObject({ endsAt: E + 5 * DAY, state: 'cancelled', daysPastDue: null });
    // Lapsed, then cancelled: not counted since the lapse; cancelled from the stamp on.
    const later = cancel(E + G + 10, false);
    expect(states([subscribe], E + G + 5, [later])).toEqual(['lapsed']);
    expect(states([subscribe], E + G + 11, [later])).toEqual(['cancelled']);
  });

  it('forced after the paid period ended, within the grace: churned when seen, not at paidThrough', () => {
    const c = cancel(E + 3 * DAY, true);
    const rows = metrics({ billings: [subscribe], cancellations: [c] }, { intervals: [{ from: T, to: E + 1 }, { from: E + 1, to: E + 3 * DAY }, { from: E + 3 * DAY, to: E + 4 * DAY }], at: E + 4 * DAY, graceSeconds: G, byPlan: false });
    expect(rows.map((r) => [r.subscriptions_end, r.churned])).toEqual([
      [1, 0],
      [1, 0],
      [0, 1],
    ]);
  });
});

describe('movements are events', () => {
  const JAN = T;
  const FEB = T + 31 * DAY;
  const months = [
    { from: JAN, to: FEB },
    { from: FEB, to: FEB + 28 * DAY },
    { from: FEB + 28 * DAY, to: FEB + 59 * DAY },
  ];
  const quarter = [{ from: JAN, to: FEB + 59 * DAY }];

  it('a subscription that starts and churns within one month is new and churned in it, counted at neither end (net changes fail here)', () => {
    const s = b({ subscriptionId: 'short', timestamp: JAN + DAY });
    const rows = metrics({ billings: [s], cancellations: [{ ...cancel(JAN + 10 * DAY, true), subscriptionId: 'short' }] }, { intervals: [months[0]], at: FEB, graceSeconds: G, byPlan: false });
    expect(rows).toEqual([
      expect.objectContaining({ subscriptions_start: 0, subscriptions_end: 0, new: 1, reactivated: 0, churned: 1, mrr_new: '10', mrr_churned: '10', mrr_net: '0', logo_churn: null, revenue_churn: null }),
    ]);
  });

  it('one that lapses and is paid again inside an interval churns and is reactivated in it, and its months add up to the quarter', () => {
    // Paid through E; lapses at E + G + 1 (within February with no grace… here G = 30 days:
    // E = Jan 30 23:59:59, lapse Mar 2 00:00:00); paid again on Mar 10.
    const back = b({ timestamp: T + 68 * DAY, cycleStart: T + 68 * DAY });
    const input = { billings: [subscribe, back], cancellations: [] };
    const byMonth = metrics(input, { intervals: months, at: months[2].to, graceSeconds: G, byPlan: false });
    expect(byMonth.map((r) => [r.subscriptions_start, r.new, r.reactivated, r.churned, r.subscriptions_end])).toEqual([
      [0, 1, 0, 0, 1], // January: subscribed Jan 1 (counted from T + 1)
      [1, 0, 0, 0, 1], // February: past due from Jan 31
      [1, 0, 1, 1, 1], // March: lapsed Mar 2, paid again Mar 10
    ]);
    const [q] = metrics(input, { intervals: quarter, at: months[2].to, graceSeconds: G, byPlan: false });
    expect([q.subscriptions_start, q.new, q.reactivated, q.churned, q.subscriptions_end, q.mrr_new, q.mrr_reactivated, q.mrr_churned]).toEqual([0, 1, 1, 1, 1, '10', '10', '10']);
  });

  it('a paid billing that extends the paid period while still counted is no movement (spans that meet are one)', () => {
    const renewal = b({ timestamp: E - 5, cycleStart: T + P });
    const rows = metrics({ billings: [subscribe, renewal], cancellations: [] }, { intervals: [{ from: T, to: E - 5 }, { from: E - 5, to: E + 10 }], at: E + 10, graceSeconds: G, byPlan: false });
    expect(rows.map((r) => [r.new, r.reactivated, r.churned, r.subscriptions_end])).toEqual([
      [1, 0, 0, 1],
      [0, 0, 0, 1],
    ]);
  });
});

describe('the ledger\'s daysPastDue, and --past-due-for\'s figure', () => {
  it('counts whole days from the first unpaid second: 0 through the first day, 29 on the last past-due second of a 30-day grace, 30 when lapsed', () => {
    const days = (t: number) => ledger({ billings: [subscribe], cancellations: [] }, { at: t, graceSeconds: G })[0].daysPastDue;
    expect([days(E), days(E + 1), days(E + DAY), days(E + DAY + 1), days(E + G), days(E + G + 1)]).toEqual([null, 0, 0, 1, 29, 30]);
  });
});

describe('one subscription\'s history (payrec subscriptions ID)', () => {
  it('every change of state with its instant, and the next one unless a record arrives', () => {
    const fail = b({ timestamp: E + 5, cycleStart: T + P, success: 0 });
    const back = b({ timestamp: E + G + 100, cycleStart: T + 2 * P });
    const c = cancel(E + G + 200, false);
    const input = { billings: [subscribe, fail, back], cancellations: [c] };
    const h = history(input, 's', { at: E + G + 300, graceSeconds: G })!;
    expect(h.changes).toEqual([
      { time: T + 1, state: 'active' },
      { time: E + 1, state: 'past_due' },
      { time: E + G + 1, state: 'lapsed' },
      { time: E + G + 101, state: 'active' },
    ]);
    // Cancelled by the customer on E + G + 200: it ends with the paid period of the cycle paid late.
    expect(h.row).toMatchObject({ state: 'active', cancelledAt: E + G + 200, endsAt: T + 3 * P - 1 });
    expect(h.next).toEqual({ time: T + 3 * P, state: 'cancelled' });
    // Before the payment: lapsed, nothing follows on its own.
    expect(history(input, 's', { at: E + G + 50, graceSeconds: G })!.next).toBeUndefined();
    // Past due: the lapse comes next; active without a cancellation: past due when the period ends (lapsed with no grace).
    expect(history(input, 's', { at: E + 10, graceSeconds: G })!.next).toEqual({ time: E + G + 1, state: 'lapsed' });
    expect(history(input, 's', { at: T + 10, graceSeconds: G })!.next).toEqual({ time: E + 1, state: 'past_due' });
    expect(history(input, 's', { at: T + 10, graceSeconds: 0 })!.next).toEqual({ time: E + 1, state: 'lapsed' });
    // Not started before at: no row, no change; an id with no record: undefined.
    expect(history(input, 's', { at: T, graceSeconds: G })).toEqual({ changes: [] });
    expect(history(input, 'other', { at: T + 10, graceSeconds: G })).toBeUndefined();
  });

  it('a forced cancellation ends it at once and nothing comes next', () => {
    const h = history({ billings: [subscribe], cancellations: [cancel(T + 50, true)] }, 's', { at: E + 100, graceSeconds: G })!;
    expect(h.changes).toEqual([
      { time: T + 1, state: 'active' },
      { time: T + 51, state: 'cancelled' },
    ]);
    expect(h.next).toBeUndefined();
  });
});

describe('paid, failed and pending', () => {
  const renewalAt = T + P + 3600;
  const renewal = (success: number, transactionStatus: string) => b({ timestamp: renewalAt, cycleStart: T + P, success, transactionStatus });

  it('a pending renewal (success 1, pending) neither pays the cycle nor fails it', () => {
    const at = renewalAt + 1;
    const [row] = ledger({ billings: [subscribe, renewal(1, 'pending')], cancellations: [] }, { at, graceSeconds: G });
    // Counted as paid → paidThrough E + P; counted as failed → failedAttempts 1 and lastAttempt moves.
    expect(row).toMatchObject({ paidThrough: E, failedAttempts: 0, lastAttempt: T, state: 'past_due' });
    const [m] = one([subscribe, renewal(1, 'pending')], [{ from: T, to: at }]);
    expect(m).toMatchObject({ attempts: 1, failed: 0, dunning_cases: 0 });
  });

  it('success 0 fails whatever the status says; status failed fails whatever success says', () => {
    for (const r of [renewal(0, 'confirmed'), renewal(0, 'pending'), renewal(1, 'failed')]) {
      const [row] = ledger({ billings: [subscribe, r], cancellations: [] }, { at: renewalAt + 1, graceSeconds: G });
      expect(row).toMatchObject({ paidThrough: E, failedAttempts: 1, lastAttempt: renewalAt });
      const [m] = one([subscribe, r], [{ from: T, to: renewalAt + 1 }]);
      expect(m).toMatchObject({ attempts: 2, failed: 1, failure_rate: '0.50000000', dunning_cases: 1 });
    }
  });

  it('names each outcome for a history: success 1 confirmed paid; success 0 or status failed failed; else pending', () => {
    expect([billingOutcome({ success: 1, transactionStatus: 'confirmed' }), billingOutcome({ success: 1, transactionStatus: 'pending' }), billingOutcome({ success: 0, transactionStatus: 'confirmed' }), billingOutcome({ success: 0, transactionStatus: 'pending' }), billingOutcome({ success: 1, transactionStatus: 'failed' })]).toEqual(['paid', 'pending', 'failed', 'failed', 'failed']);
    // Schema drift: a success sent as text still reads as its number; a missing one is judged by the status alone, and is never paid.
    const drift = (success: unknown, transactionStatus: string) => billingOutcome({ success: success as number, transactionStatus });
    expect([drift('1', 'confirmed'), drift('0', 'confirmed'), drift(undefined, 'confirmed'), drift(null, 'confirmed'), drift(undefined, 'failed')]).toEqual(['paid', 'failed', 'pending', 'pending', 'failed']);
  });

  it('knows the four states, in the order of a lifecycle', () => {
    expect(SUBSCRIPTION_STATES).toEqual(['active', 'past_due', 'lapsed', 'cancelled']);
  });

  it('a confirmed success 1 renewal pays: paidThrough moves a period on', () => {
    const [row] = ledger({ billings: [subscribe, renewal(1, 'confirmed')], cancellations: [] }, { at: renewalAt + 1, graceSeconds: G });
    expect(row).toMatchObject({ paidThrough: E + P, failedAttempts: 0, state: 'active' });
  });

  it('counts failed attempts only at cycles after the last paid one', () => {
    // A late failure at the paid first cycle (T) does not count; two at the second cycle do.
    const billings = [subscribe, b({ timestamp: T + 10, cycleStart: T, success: 0 }), b({ timestamp: E + 5, cycleStart: T + P, success: 0 }), b({ timestamp: E + 9, cycleStart: T + P, transactionStatus: 'failed' })];
    expect(ledger({ billings, cancellations: [] }, { at: E + 10, graceSeconds: G })[0].failedAttempts).toBe(2);
  });

  it('takes the latest paid cycle, not the last paid billing, as the last paid one', () => {
    // Cycle 4 is paid (at E + 5), a failure at cycle 3 (E + 10), then cycle 2 paid late
    // (E + 20): the last paid cycle is still cycle 4, so the failure at cycle 3 does not count.
    const billings = [subscribe, b({ timestamp: E + 5, cycleStart: T + 3 * P }), b({ timestamp: E + 10, cycleStart: T + 2 * P, success: 0 }), b({ timestamp: E + 20, cycleStart: T + P })];
    expect(ledger({ billings, cancellations: [] }, { at: E + 30, graceSeconds: G })[0]).toMatchObject({ failedAttempts: 0, paidThrough: T + 4 * P - 1 });
  });
});

describe('new and reactivated', () => {
  it('a subscription started exactly at from is new in that interval', () => {
    const [row] = one([subscribe], [{ from: T, to: T + DAY }]);
    expect(row).toMatchObject({ new: 1, reactivated: 0 });
  });

  it('one started a second before from, lapsed at from and paid again, is reactivated', () => {
    const early = b({ timestamp: T - 1 });
    const back = b({ timestamp: T + 200 * DAY, cycleStart: T + 200 * DAY });
    const from = T + 199 * DAY; // early lapsed at T − 1 + P − 1 + G < from
    const [row] = one([early, back], [{ from, to: from + 2 * DAY }]);
    expect(row).toMatchObject({ subscriptions_start: 0, subscriptions_end: 1, new: 0, reactivated: 1, mrr_reactivated: '10', mrr_new: '0' });
  });

  it('a lost case: not recovered and cancelled at --at; a case of a subscription never started is open', () => {
    const fail = b({ timestamp: E + 5, cycleStart: T + P, success: 0 });
    // Cancelled by the customer after the paid period ended: it ends at once.
    const gone = cancel(E + 6, false);
    const upTo = (at: number) => metrics({ billings: [subscribe, fail], cancellations: [gone] }, { intervals: [{ from: E, to: at }], at, graceSeconds: G, byPlan: false })[0];
    expect(upTo(E + 6)).toMatchObject({ dunning_cases: 1, recovered: 0, lost: 0, open: 1 });
    expect(upTo(E + 7)).toMatchObject({ dunning_cases: 1, recovered: 0, lost: 1, open: 0, churned: 1 });
    const orphan = { ...fail, subscriptionId: 'never' };
    expect(metrics({ billings: [orphan], cancellations: [] }, { intervals: [{ from: E, to: E + DAY }], at: E + 400 * DAY, graceSeconds: G, byPlan: false })[0]).toMatchObject({ attempts: 1, failed: 1, dunning_cases: 1, recovered: 0, lost: 0, open: 1, subscriptions_end: 0 });
  });
});

describe('MRR month bands, at each edge (amount 10)', () => {
  // d = P / 86,400 rounded half up to whole days. In a band: 10 ÷ months. Outside:
  // 10 × 2,629,746 / P, worked out by hand with exact fractions and rounded half-even.
  const cases: Array<[string, number, string]> = [
    ['27 days', 27 * DAY, '11.272916666666666667'], // 26,297,460 / 2,332,800
    ['27.5 days − 1 s (27)', 27 * DAY + 43_199, '11.067959203686533538'],
    ['27.5 days (rounds to 28)', 27 * DAY + 43_200, '10'],
    ['28 days', 28 * DAY, '10'],
    ['31 days', 31 * DAY, '10'],
    ['31.5 days − 1 s (31)', 31 * DAY + 43_199, '10'],
    ['31.5 days (32)', 31 * DAY + 43_200, '9.6625'], // 26,297,460 / 2,721,600
    ['32 days', 32 * DAY, '9.5115234375'],
    ['55 days', 55 * DAY, '5.533977272727272727'],
    ['56 days', 56 * DAY, '5'],
    ['62 days', 62 * DAY, '5'],
    ['62.5 days − 1 s (62)', 62 * DAY + 43_199, '5'],
    ['62.5 days (63: half up)', 62 * DAY + 43_200, '4.8699'],
    ['63 days', 63 * DAY, '4.83125'],
    ['83 days', 83 * DAY, '3.667093373493975904'], // 26,297,460 / 7,171,200
    ['84 days', 84 * DAY, '3.333333333333333333'],
    ['92 days', 92 * DAY, '3.333333333333333333'],
    ['93 days', 93 * DAY, '3.272782258064516129'],
    ['167 days', 167 * DAY, '1.822567365269461078'],
    ['168 days', 168 * DAY, '1.666666666666666667'], // 10 / 6 = 1.666…6|66… rounds up
    ['184 days', 184 * DAY, '1.666666666666666667'],
    ['185 days', 185 * DAY, '1.645236486486486486'],
    ['359 days', 359 * DAY, '0.847823816155988858'],
    ['360 days', 360 * DAY, '0.833333333333333333'],
    ['366 days', 366 * DAY, '0.833333333333333333'],
    ['367 days', 367 * DAY, '0.829342643051771117'],
    ['a week', 7 * DAY, '43.48125'], // 26,297,460 / 604,800; P − 1 would give 43.481321893720062368
    ['a day', DAY, '304.36875'],
    ['one second', 1, '26297460'],
  ];
  for (const [what, period, mrr] of cases) {
    it(`${what} → ${mrr}`, () => {
      const billing: BillingInput = { ...subscribe, cycleEnd: subscribe.cycleStart + period - 1 };
      const [row] = ledger({ billings: [billing], cancellations: [] }, { at: T + 1, graceSeconds: G });
      expect(row.period).toBe(period);
      expect(row.mrr).toBe(mrr);
    });
  }
});

describe('half-even rounding to 18 places, once per subscription', () => {
  const mrrOf = (amount: string, days: number) =>
    ledger({ billings: [{ ...subscribe, amount, cycleEnd: T + days * DAY - 1 }], cancellations: [] }, { at: T + 1, graceSeconds: G })[0].mrr;

  it('rounds a tie at the 19th place to the even neighbour (half up fails here)', () => {
    expect(mrrOf('0.0000000000000000025', 30)).toBe('0.000000000000000002');
    expect(mrrOf('0.0000000000000000035', 30)).toBe('0.000000000000000004');
    expect(mrrOf('0.0000000000000000005', 30)).toBe('0');
    expect(mrrOf('0.00000000000000000250001', 30)).toBe('0.000000000000000003');
    expect(mrrOf('-0.0000000000000000025', 30)).toBe('-0.000000000000000002');
    // Ties made by the division: 1e-18 / 2 months = 0.5e-18 → 0; 3e-18 / 2 = 1.5e-18 → 2e-18.
    expect(mrrOf('0.000000000000000001', 60)).toBe('0');
    expect(mrrOf('0.000000000000000003', 60)).toBe('0.000000000000000002');
  });

  it('totals are sums of the rounded figures, so the printed identity holds: 3 × 10/3', () => {
    // Three subscriptions of 10 a quarter: 3.333333333333333333 each, 9.999999999999999999 in all
    // (the exact 10 rounded alone would print 10 and break mrr_end = Σ ledger rows).
    const subs = ['a', 'b', 'c'].map((id) => ({ ...subscribe, subscriptionId: id, cycleEnd: T + 90 * DAY - 1 }));
    const [row] = one(subs, [{ from: T, to: T + DAY }]);
    expect(row).toMatchObject({ subscriptions_end: 3, mrr_new: '9.999999999999999999', mrr_end: '9.999999999999999999' });
  });

  it('ratios have 8 places, half-even (1/512 = 0.001953125 → 0.00195312; 3/512 → 0.00585938)', () => {
    const attempts = (failed: number) =>
      Array.from({ length: 512 }, (_, i) => b({ subscriptionId: `x${i}`, timestamp: T + i, ...(i < failed ? { success: 0 } : {}) }));
    expect(one(attempts(1), [{ from: T, to: T + DAY }])[0].failure_rate).toBe('0.00195312');
    expect(one(attempts(3), [{ from: T, to: T + DAY }])[0].failure_rate).toBe('0.00585938');
    expect(one(attempts(0), [{ from: T, to: T + DAY }])[0].failure_rate).toBe('0.00000000');
    expect(one(attempts(512), [{ from: T, to: T + DAY }])[0].failure_rate).toBe('1.00000000');
  });

  it('exact.ts: reading, dividing and printing', () => {
    expect(readDecimal('-12.50')).toEqual({ num: -1250n, den: 100n });
    for (const bad of ['1e5', '', ' 1', '1.', '.5', '+1', '0x10', 10, null, undefined]) expect(readDecimal(bad)).toBeUndefined();
    expect([divHalfEven(5n, 2n), divHalfEven(7n, 2n), divHalfEven(-5n, 2n), divHalfEven(5n, -2n), divHalfEven(11n, 4n), divHalfEven(9n, 4n)]).toEqual([2n, 4n, -2n, -2n, 3n, 2n]);
    // Negative quotients round by their size: −2.75 → −3, −2.25 → −2, −3.5 → −4 (even).
    expect([divHalfEven(-11n, 4n), divHalfEven(-9n, 4n), divHalfEven(-7n, 2n), divHalfEven(11n, -4n)]).toEqual([-3n, -2n, -4n, -3n]);
    expect([formatAtto(10n * 10n ** 18n), formatAtto(1n), formatAtto(-15n * 10n ** 17n), formatAtto(0n)]).toEqual(['10', '0.000000000000000001', '-1.5', '0']);
    expect([ratio(2n, 3n), ratio(1n, 0n), ratio(-1n, 8n), ratio(0n, 5n)]).toEqual(['0.66666667', null, '-0.12500000', '0.00000000']);
    // Sums of amounts keep every digit, over the larger denominator.
    const sum = [readDecimal('9.99')!, readDecimal('0.0000000000000000025')!, readDecimal('10')!].reduce(addDecimal, { num: 0n, den: 1n });
    expect(formatDecimal(sum)).toBe('19.9900000000000000025');
    expect(formatDecimal(addDecimal(readDecimal('0.5')!, readDecimal('-0.75')!))).toBe('-0.25');
    expect([formatDecimal({ num: 0n, den: 1n }), formatDecimal({ num: 1200n, den: 100n }), formatDecimal({ num: -5n, den: 1000n })]).toEqual(['0', '12', '-0.005']);
  });
});

describe('rows and keys', () => {
  it('totals per token, never across tokens, and per plan with byPlan', () => {
    const subs = [
      b({ subscriptionId: 'u1', timestamp: T, planId: 'p2' }),
      b({ subscriptionId: 'u2', timestamp: T, planId: 'p1' }),
      b({ subscriptionId: 'e1', timestamp: T, token: 'EIGHT', amount: '7' }),
    ];
    expect(one(subs, [{ from: T, to: T + DAY }]).map((r) => [r.token, r.planId, r.mrr_end])).toEqual([
      ['EIGHT', undefined, '7'],
      ['USDT', undefined, '20'],
    ]);
    expect(one(subs, [{ from: T, to: T + DAY }], T + DAY, true).map((r) => [r.token, r.planId, r.mrr_end])).toEqual([
      ['EIGHT', 'p', '7'],
      ['USDT', 'p1', '10'],
      ['USDT', 'p2', '10'],
    ]);
  });

  it("counts each attempt under its own billing's token and plan, even when one subscription's billings differ", () => {
    const billings = [subscribe, b({ timestamp: T + 10, token: 'EIGHT', success: 0 }), b({ timestamp: T + 20, planId: 'q', success: 0 }), b({ timestamp: T + 30 })];
    expect(one(billings, [{ from: T, to: T + DAY }], T + DAY, true).map((r) => [r.token, r.planId, r.attempts, r.failed, r.subscriptions_end])).toEqual([
      ['EIGHT', 'p', 1, 1, 0],
      ['USDT', 'p', 2, 0, 1],
      ['USDT', 'q', 1, 1, 0],
    ]);
  });

  it('keeps apart billings that differ in token, plan or amount alone, even one after another', () => {
    const subs = [
      b({ subscriptionId: 'a', timestamp: T, token: 'ab', planId: 'c' }),
      b({ subscriptionId: 'b', timestamp: T, token: 'a', planId: 'bc' }), // the same text run together
      b({ subscriptionId: 'c', timestamp: T, token: 'a', planId: 'bd' }), // the plan alone differs
      b({ subscriptionId: 'd', timestamp: T, token: 'a', planId: 'bd', amount: '20' }), // the amount alone
      b({ subscriptionId: 'e', timestamp: T, token: 'b', planId: 'bd', amount: '20' }), // the token alone
    ];
    expect(ledger({ billings: subs, cancellations: [] }, { at: T + 1, graceSeconds: G }).map((r) => [r.subscriptionId, r.token, r.planId, r.amount])).toEqual([
      ['a', 'ab', 'c', '10'],
      ['b', 'a', 'bc', '10'],
      ['c', 'a', 'bd', '10'],
      ['d', 'a', 'bd', '20'],
      ['e', 'b', 'bd', '20'],
    ]);
  });

  it('takes the terms of the first paid billing given when two are stamped in the same second (a sort that is not stable fails here)', () => {
    // Later billings after them, out of order, so that the billings are sorted at all;
    // and more than 64 of them, where the store sorts otherwise.
    const later = (count: number) => Array.from({ length: count }, (_, k) => b({ timestamp: T + (count - k) * DAY, cycleStart: T + (count - k) * P }));
    for (const count of [3, 70]) {
      for (const [first, second] of [['10', '20'], ['20', '10']]) {
        const billings = [...later(count), b({ timestamp: T, amount: first }), b({ timestamp: T, amount: second })];
        expect(ledger({ billings, cancellations: [] }, { at: T + 1, graceSeconds: G }).map((r) => r.amount)).toEqual([first]);
      }
    }
  });

  it('lists subscriptions started in the same second by id', () => {
    const subs = ['z', 'm', 'a'].map((subscriptionId) => b({ subscriptionId, timestamp: T }));
    expect(ledger({ billings: subs, cancellations: [] }, { at: T + 1, graceSeconds: G }).map((r) => r.subscriptionId)).toEqual(['a', 'm', 'z']);
  });

  it('no row for a window with nothing counted, moved, attempted or dunned; zeros for its other intervals when it has', () => {
    expect(one([subscribe], [{ from: T + 300 * DAY, to: T + 301 * DAY }])).toEqual([]);
    expect(one([subscribe], [{ from: T + 300 * DAY, to: T + 301 * DAY }, { from: T + 301 * DAY, to: T + 302 * DAY }], T + 400 * DAY, true)).toEqual([]);
    const rows = one([subscribe], [{ from: T, to: T + DAY }, { from: T + 300 * DAY, to: T + 301 * DAY }], T + 400 * DAY, true);
    expect(rows.map((r) => [r.from, r.token, r.planId, r.subscriptions_end, r.attempts, r.failure_rate])).toEqual([
      [T, 'USDT', 'p', 1, 1, '0.00000000'],
      [T + 300 * DAY, 'USDT', 'p', 0, 0, null],
    ]);
  });

  it('refuses intervals that overlap or run backwards (a caller bug)', () => {
    expect(() => one([subscribe], [{ from: T, to: T + 10 }, { from: T + 5, to: T + 20 }])).toThrow(/ascending/);
    expect(() => one([subscribe], [{ from: T, to: T }])).toThrow(/ascending/);
  });
});
