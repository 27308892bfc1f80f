import { describe, expect, it } from 'vitest';
import { ledger, metrics, type BillingInput, type CancellationInput, type MetricsRow } from '../../src/subscriptions/engine.js';
import { MalformedResponseError } from '../../src/core/runtime/errors.js';
import { percent } from '../../src/commands/subscriptions.js';

// A hand-worked fixture (issue 22, item 8): every expected figure below is typed by hand,
// with its arithmetic in the comments; nothing is computed by the code under test.

const DAY = 86_400;
const HOUR = 3_600;
const GRACE = 30 * DAY;
// Month starts of 2026 in UTC (Unix seconds).
const JAN = 1_767_225_600;
const FEB = 1_769_904_000; // JAN + 31 days
const MAR = 1_772_323_200; // FEB + 28 days
const APR = 1_775_001_600; // MAR + 31 days
const MAY = 1_777_593_600; // APR + 30 days
const MONTHS = [
  { from: JAN, to: FEB },
  { from: FEB, to: MAR },
  { from: MAR, to: APR },
  { from: APR, to: MAY },
];

const M30 = 30 * DAY; // plan-m: 10 USDT every 30 days → a month band (28–31 days) → MRR 10
const Y365 = 365 * DAY; // plan-y: 120 USDT every 365 days → 12 months → MRR 120 / 12 = 10
const Q91 = 91 * DAY; // plan-q: 10 EIGHT every 91 days → 3 months → MRR 10 / 3 = 3.333333333333333333

let hashes = 0;
function billing(sub: string, plan: string, token: string, amount: string, period: number, timestamp: number, cycleStart: number, outcome: 'paid' | 'failed-success-0' | 'failed-status' | 'pending'): BillingInput {
  return {
    subscriptionId: sub,
    planId: plan,
    token,
    amount,
    timestamp,
    cycleStart,
    cycleEnd: cycleStart + period - 1, // inclusive
    success: outcome === 'failed-success-0' ? 0 : 1,
    transactionStatus: outcome === 'failed-status' || outcome === 'failed-success-0' ? (outcome === 'failed-status' ? 'failed' : 'confirmed') : outcome === 'pending' ? 'pending' : 'confirmed',
    transactionHash: `0x${(++hashes).toString(16).padStart(4, '0')}`,
  };
}
const m = (sub: string, t: number, cycleStart: number, outcome: Parameters<typeof billing>[7] = 'paid') => billing(sub, 'plan-m', 'USDT', '10', M30, t, cycleStart, outcome);

// m1: subscribes Jan 2; its second cycle (starting FEB = Jan 2 + 30 days) fails once
//     (success 0, confirmed) and is paid on the retry two days later: a recovered case;
//     the third cycle (Mar 3) is paid, through Apr 2 − 1 s; the customer cancels on Mar 20,
//     so it ends with its paid period: active until Apr 2 − 1 s, cancelled from Apr 2.
// y1: 120 USDT a year from Jan 10: counted throughout.
// m2: subscribes Jan 20 (paid through Feb 19 − 1 s); the Feb 19 renewal fails twice (status
//     failed, then success 0 and failed): one case, lost while m2 is lapsed; past due until
//     Feb 19 − 1 s + 30 days = Mar 21 − 1 s, lapsed from Mar 21; billed again on Apr 25 for
//     the anchored cycle of Apr 20 (Jan 20 + 3 × 30 days): a reactivation.
// m3: only a pending billing: never started, never listed, not an attempt.
// e1: 10 EIGHT a quarter from Feb 10: another token, totalled apart.
const JAN2 = JAN + DAY;
const JAN20 = JAN + 19 * DAY;
const FEB19 = JAN20 + M30; // = FEB + 18 days
const MAR3 = FEB + M30; // m1's third cycle
const MAR20 = MAR + 19 * DAY;
const APR2 = MAR3 + M30; // m1's paid period ends the second before
const APR20 = JAN20 + 3 * M30;
const APR25 = APR + 24 * DAY;
const FEB10 = FEB + 9 * DAY;
const JAN10 = JAN + 9 * DAY;

const billings: BillingInput[] = [
  m('m1', JAN2, JAN2),
  m('m1', FEB + HOUR, FEB, 'failed-success-0'),
  m('m1', FEB + 2 * DAY, FEB),
  m('m1', MAR3, MAR3),
  billing('y1', 'plan-y', 'USDT', '120', Y365, JAN10, JAN10, 'paid'),
  m('m2', JAN20, JAN20),
  m('m2', FEB19, FEB19, 'failed-status'),
  { ...m('m2', FEB19 + 3 * DAY, FEB19), success: 0, transactionStatus: 'failed' },
  m('m2', APR25, APR20),
  m('m3', MAR + 4 * DAY, MAR + 4 * DAY, 'pending'),
  billing('e1', 'plan-q', 'EIGHT', '10', Q91, FEB10, FEB10, 'paid'),
];
const cancellations: CancellationInput[] = [
  { subscriptionId: 'm1', planId: 'plan-m', timestamp: MAR20, forced: false, transactionStatus: 'confirmed', transactionHash: '0xc1' },
];
const input = { billings, cancellations };

/** A row with every figure zero, for the fields a test does not name. */
function row(from: number, to: number, token: string, fields: Partial<MetricsRow>): MetricsRow {
  return {
    from,
    to,
    token,
    subscriptions_start: 0,
    subscriptions_end: 0,
    new: 0,
    reactivated: 0,
    churned: 0,
    mrr_start: '0',
    mrr_end: '0',
    mrr_new: '0',
    mrr_reactivated: '0',
    mrr_churned: '0',
    mrr_net: '0',
    logo_churn: null,
    revenue_churn: null,
    attempts: 0,
    failed: 0,
    failure_rate: null,
    dunning_cases: 0,
    recovered: 0,
    recovered_amount: '0',
    lost: 0,
    open: 0,
    collected: '0',
    failed_amount: '0',
    ...fields,
  };
}

describe('metrics on the hand-worked fixture', () => {
  it('rolls MRR 0 → 30 → 30 → 20 → 20 USDT and 0 → 3.33… EIGHT, month by month, every month for both tokens', () => {
    expect(metrics(input, { intervals: MONTHS, at: MAY, graceSeconds: GRACE, byPlan: false })).toEqual([
      // January, EIGHT: nothing yet, but EIGHT has figures in the window: a row of zeros.
      row(JAN, FEB, 'EIGHT', {}),
      // January: nobody at JAN; at FEB m1 (past due: paid through FEB − 1 s, inclusive, so FEB
      // is one second after it), y1 and m2 are counted, all started in January → 3 new, 10 each.
      // Attempts: the three subscribes, none failed → 0/3; collected 10 + 120 + 10 = 140.
      row(JAN, FEB, 'USDT', { subscriptions_end: 3, new: 3, mrr_end: '30', mrr_new: '30', mrr_net: '30', attempts: 3, failure_rate: '0.00000000', collected: '140' }),
      // February, EIGHT: e1 subscribes Feb 10 → new, 10 / 3 = 3.333…3 (18 places, half-even).
      row(FEB, MAR, 'EIGHT', { subscriptions_end: 1, new: 1, mrr_end: '3.333333333333333333', mrr_new: '3.333333333333333333', mrr_net: '3.333333333333333333', attempts: 1, failure_rate: '0.00000000', collected: '10' }),
      // February, USDT: at MAR m1 is paid through Mar 3 − 1 s, y1 active, m2 past due (paid
      // through Feb 19 − 1 s, within 30 days) → 3 and 3, nothing moves: churn 0/3, 0/30.
      // Attempts: m1 fail + m1 paid + m2 fail + m2 fail = 4, failed 3 → 0.75; collected
      // 10 (m1's retry), failed_amount 3 × 10 = 30.
      // Dunning: m1's FEB cycle (recovered by the Feb 3 retry: 10 USDT) and m2's Feb 19 cycle
      // (not recovered; m2 is active again at MAY, so not lost either: open).
      row(FEB, MAR, 'USDT', {
        subscriptions_start: 3,
        subscriptions_end: 3,
        mrr_start: '30',
        mrr_end: '30',
        logo_churn: '0.00000000',
        revenue_churn: '0.00000000',
        attempts: 4,
        failed: 3,
        failure_rate: '0.75000000',
        collected: '10',
        failed_amount: '30',
        dunning_cases: 2,
        recovered: 1,
        recovered_amount: '10',
        open: 1,
      }),
      row(MAR, APR, 'EIGHT', { subscriptions_start: 1, subscriptions_end: 1, mrr_start: '3.333333333333333333', mrr_end: '3.333333333333333333', logo_churn: '0.00000000', revenue_churn: '0.00000000' }),
      // March: m2 lapses at Mar 21 → 1 churned of 3, 10 of 30: 1/3 = 0.33333333 both. m1,
      // cancelled by its customer on Mar 20, is paid through Apr 2 − 1 s: still counted at APR.
      // MRR 30 → 20. Attempts: m1's Mar 3 renewal only (m3's pending billing is neither).
      row(MAR, APR, 'USDT', {
        subscriptions_start: 3,
        subscriptions_end: 2,
        churned: 1,
        mrr_start: '30',
        mrr_end: '20',
        mrr_churned: '10',
        mrr_net: '-10',
        logo_churn: '0.33333333',
        revenue_churn: '0.33333333',
        attempts: 1,
        failure_rate: '0.00000000',
        collected: '10',
      }),
      row(APR, MAY, 'EIGHT', { subscriptions_start: 1, subscriptions_end: 1, mrr_start: '3.333333333333333333', mrr_end: '3.333333333333333333', logo_churn: '0.00000000', revenue_churn: '0.00000000' }),
      // April: m1's paid period ends (Apr 2) → churned; m2 paid again Apr 25 (counted before, in
      // January) → reactivated, not new. 2 + 1 − 1 = 2; MRR 20 + 10 − 10 = 20, net 0.
      row(APR, MAY, 'USDT', {
        subscriptions_start: 2,
        subscriptions_end: 2,
        reactivated: 1,
        churned: 1,
        mrr_start: '20',
        mrr_end: '20',
        mrr_reactivated: '10',
        mrr_churned: '10',
        logo_churn: '0.50000000',
        revenue_churn: '0.50000000',
        attempts: 1,
        failure_rate: '0.00000000',
        collected: '10',
      }),
    ]);
  });

  it('counts a case lost when its subscription is lapsed at --at, and only then; open until then', () => {
    // February cut at --at when --at falls inside it, as the command cuts a window.
    const feb = (at: number) => metrics(input, { intervals: [{ from: FEB, to: Math.min(MAR, at) }], at, graceSeconds: GRACE, byPlan: false }).find((r) => r.token === 'USDT');
    // At Apr 22 m2 is lapsed (past Mar 21 − 1 s) and its Apr 25 payment is not yet seen.
    expect(feb(APR + 21 * DAY)).toMatchObject({ dunning_cases: 2, recovered: 1, recovered_amount: '10', lost: 1, open: 0 });
    // At Mar 21 − 1 s m2 is still past due: open, neither recovered nor lost.
    expect(feb(FEB19 + GRACE - 1)).toMatchObject({ dunning_cases: 2, recovered: 1, lost: 0, open: 1 });
    // ...and lapsed one second later, so lost.
    expect(feb(FEB19 + GRACE)).toMatchObject({ dunning_cases: 2, recovered: 1, lost: 1, open: 0 });
    // Before m1's retry (Feb 3) is seen, its case is open (m1 is past due); m2's failure is not known yet.
    expect(feb(FEB + 2 * DAY)).toMatchObject({ to: FEB + 2 * DAY, dunning_cases: 1, recovered: 0, recovered_amount: '0', lost: 0, open: 1 });
    expect(feb(FEB + 2 * DAY + 1)).toMatchObject({ dunning_cases: 1, recovered: 1, recovered_amount: '10', lost: 0, open: 0 });
  });

  it('refuses an interval that ends after --at (a caller that did not cut its window)', () => {
    expect(() => metrics(input, { intervals: [{ from: FEB, to: MAR }], at: MAR - 1, graceSeconds: GRACE, byPlan: false })).toThrow(/ends after at/);
  });

  it('splits rows by plan with --by plan, in token then plan order', () => {
    const rows = metrics(input, { intervals: [{ from: APR, to: MAY }], at: MAY, graceSeconds: GRACE, byPlan: true });
    expect(rows.map((r) => [r.token, r.planId, r.subscriptions_start, r.subscriptions_end, r.reactivated, r.churned, r.mrr_end])).toEqual([
      ['EIGHT', 'plan-q', 1, 1, 0, 0, '3.333333333333333333'],
      ['USDT', 'plan-m', 1, 1, 1, 1, '10'], // m1 ends, m2 back
      ['USDT', 'plan-y', 1, 1, 0, 0, '10'],
    ]);
  });
});

describe('ledger on the hand-worked fixture', () => {
  it('lists every started subscription as of MAY, by start', () => {
    expect(ledger(input, { at: MAY, graceSeconds: GRACE })).toEqual([
      // m1: last paid cycle Mar 3 (ends Mar 3 + 30 days − 1 s = Apr 2 − 1 s); its failed attempt
      // was at the FEB cycle, paid since → 0 failed attempts after the last paid cycle. Cancelled
      // by its customer on Mar 20: it ends with its paid period, Apr 2 − 1 s.
      { subscriptionId: 'm1', planId: 'plan-m', token: 'USDT', amount: '10', period: M30, mrr: '10', started: JAN2, paidThrough: APR2 - 1, lastAttempt: MAR3, failedAttempts: 0, cancelledAt: MAR20, forced: false, endsAt: APR2 - 1, daysPastDue: null, state: 'cancelled' },
      { subscriptionId: 'y1', planId: 'plan-y', token: 'USDT', amount: '120', period: Y365, mrr: '10', started: JAN10, paidThrough: JAN10 + Y365 - 1, lastAttempt: JAN10, failedAttempts: 0, cancelledAt: null, forced: null, endsAt: null, daysPastDue: null, state: 'active' },
      { subscriptionId: 'm2', planId: 'plan-m', token: 'USDT', amount: '10', period: M30, mrr: '10', started: JAN20, paidThrough: APR20 + M30 - 1, lastAttempt: APR25, failedAttempts: 0, cancelledAt: null, forced: null, endsAt: null, daysPastDue: null, state: 'active' },
      { subscriptionId: 'e1', planId: 'plan-q', token: 'EIGHT', amount: '10', period: Q91, mrr: '3.333333333333333333', started: FEB10, paidThrough: FEB10 + Q91 - 1, lastAttempt: FEB10, failedAttempts: 0, cancelledAt: null, forced: null, endsAt: null, daysPastDue: null, state: 'active' },
    ]);
  });

  it('shows m2 lapsed with its two failed attempts on Apr 22, 62 days past due; m1 cancelled on Mar 20 but active until Apr 2', () => {
    const apr22 = ledger(input, { at: APR + 21 * DAY, graceSeconds: GRACE });
    // Feb 19 (the first unpaid second) to Apr 22: 9 days of February, 31 of March, 22 of April.
    expect(apr22.find((r) => r.subscriptionId === 'm2')).toMatchObject({ paidThrough: FEB19 - 1, lastAttempt: FEB19 + 3 * DAY, failedAttempts: 2, daysPastDue: 62, state: 'lapsed' });
    // The cancellation stamped exactly at MAR20 is seen from MAR20 + 1.
    expect(ledger(input, { at: MAR20, graceSeconds: GRACE }).find((r) => r.subscriptionId === 'm1')).toMatchObject({ cancelledAt: null, forced: null, endsAt: null, state: 'active' });
    expect(ledger(input, { at: MAR20 + 1, graceSeconds: GRACE }).find((r) => r.subscriptionId === 'm1')).toMatchObject({ cancelledAt: MAR20, forced: false, endsAt: APR2 - 1, state: 'active' });
    expect(ledger(input, { at: APR2 - 1, graceSeconds: GRACE }).find((r) => r.subscriptionId === 'm1')).toMatchObject({ state: 'active' });
    expect(ledger(input, { at: APR2, graceSeconds: GRACE }).find((r) => r.subscriptionId === 'm1')).toMatchObject({ endsAt: APR2 - 1, daysPastDue: null, state: 'cancelled' });
    // Before m1's FEB retry is seen: one failed attempt at a cycle after the last paid one (JAN2).
    expect(ledger(input, { at: FEB + 2 * DAY, graceSeconds: GRACE }).find((r) => r.subscriptionId === 'm1')).toMatchObject({ failedAttempts: 1, lastAttempt: FEB + HOUR, state: 'past_due' });
  });

  it('never lists a subscription whose only billing is pending', () => {
    expect(ledger(input, { at: MAY, graceSeconds: GRACE }).map((r) => r.subscriptionId)).not.toContain('m3');
  });
});

describe('amounts and times that cannot be read exactly fail the figures (exit 6), naming the billing', () => {
  const good = m('g', JAN2, JAN2);
  const cases: Array<[string, Partial<Record<keyof BillingInput, unknown>>]> = [
    ['an exponent', { amount: '1e5' }],
    ['a number', { amount: 10 }],
    ['null', { amount: null }],
    ['an empty string', { amount: '' }],
    ['a missing amount', { amount: undefined }],
    ['a fractional timestamp', { timestamp: JAN2 + 0.5 }],
    ['a cycleStart as text', { cycleStart: String(JAN2) }],
    ['a missing cycleEnd', { cycleEnd: undefined }],
  ];
  for (const [what, patch] of cases) {
    it(`${what}, even on a failed billing`, () => {
      const bad = { ...m('b', FEB, FEB, 'failed-status'), ...patch, transactionHash: '0xbad' } as BillingInput;
      for (const run of [() => ledger({ billings: [good, bad], cancellations: [] }, { at: MAY, graceSeconds: GRACE }), () => metrics({ billings: [good, bad], cancellations: [] }, { intervals: MONTHS, at: MAY, graceSeconds: GRACE, byPlan: false })]) {
        let thrown: unknown;
        try {
          run();
        } catch (err) {
          thrown = err;
        }
        expect(thrown).toBeInstanceOf(MalformedResponseError);
        expect((thrown as MalformedResponseError).exitCode).toBe(6);
        expect((thrown as Error).message).toContain('0xbad');
      }
    });
  }

  it('a cancellation whose time is not whole seconds', () => {
    const c = { ...cancellations[0], timestamp: 'soon' as unknown as number, transactionHash: '0xcbad' };
    expect(() => ledger({ billings: [good], cancellations: [c] }, { at: MAY, graceSeconds: GRACE })).toThrow(/0xcbad/);
  });

  it('says what it could not read, in one message with a hint', () => {
    const bad = { ...good, amount: undefined as unknown as string, timestamp: 1.5, transactionHash: '0xone' };
    let thrown: MalformedResponseError | undefined;
    try {
      ledger({ billings: [bad], cancellations: [] }, { at: MAY, graceSeconds: GRACE });
    } catch (err) {
      thrown = err as MalformedResponseError;
    }
    expect(thrown?.message).toBe('cannot compute subscriptions exactly: 1 record carry an amount or time that is not exact: billing 0xone (amount undefined, timestamp 1.5)');
    expect(thrown?.hint).toBe('the service sent amounts or times payrec cannot read exactly (a number or an exponent instead of a decimal string, a time that is not whole seconds); no figure was printed');
  });

  it('refuses a paid billing whose cycle ends before it starts (a period below one second); a failed one names no period', () => {
    const backwards = { ...good, cycleEnd: good.cycleStart - 1, transactionHash: '0xback' };
    expect(() => ledger({ billings: [backwards], cancellations: [] }, { at: MAY, graceSeconds: GRACE })).toThrow(`billing 0xback (cycleEnd ${JAN2 - 1} before cycleStart ${JAN2})`);
    expect(ledger({ billings: [good, { ...backwards, success: 0 }], cancellations: [] }, { at: MAY, graceSeconds: GRACE })).toHaveLength(1);
  });

  it('cuts a long value in the message to 80 characters', () => {
    const hash = `0x${'ab'.repeat(60)}`;
    expect(() => ledger({ billings: [{ ...good, amount: '1e5', transactionHash: hash }], cancellations: [] }, { at: MAY, graceSeconds: GRACE })).toThrow(`billing ${hash.slice(0, 80)}… (amount "1e5")`);
    const eighty = `0x${'cd'.repeat(39)}`;
    expect(() => ledger({ billings: [{ ...good, amount: '1e5', transactionHash: eighty }], cancellations: [] }, { at: MAY, graceSeconds: GRACE })).toThrow(`billing ${eighty} (amount "1e5")`);
  });

  it('counts in thousands with separators', () => {
    const bad = Array.from({ length: 1_012 }, (_, i) => ({ ...good, amount: 1 as unknown as string, transactionHash: `0xb${i}` }));
    expect(() => ledger({ billings: bad, cancellations: [] }, { at: MAY, graceSeconds: GRACE })).toThrow(/^cannot compute subscriptions exactly: 1,012 records .*, and 1,002 more$/);
  });

  it('names ten and counts the rest', () => {
    const bad = Array.from({ length: 12 }, (_, i) => ({ ...good, amount: 1 as unknown as string, transactionHash: `0xb${i}` }));
    expect(() => ledger({ billings: bad, cancellations: [] }, { at: MAY, graceSeconds: GRACE })).toThrow(/12 records .*0xb9 .*, and 2 more$/);
  });
});

describe('ratios as metrics tables show them (commands/subscriptions.ts percent)', () => {
  it('moves the fraction two places, keeps its digits, and pads or signs what needs it', () => {
    const cases: [unknown, unknown][] = [
      ['0.25000000', '25%'],
      ['0.66666667', '66.666667%'],
      ['1.00000000', '100%'],
      ['0.00000001', '0.000001%'],
      ['0.05000000', '5%'],
      ['0.5', '50%'],
      ['2', '200%'],
      ['-0.12500000', '-12.5%'],
      [null, null],
    ];
    for (const [fraction, shown] of cases) expect(percent(fraction), String(fraction)).toBe(shown);
  });
});
