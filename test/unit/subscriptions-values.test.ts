import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ledger, metrics, movements, rateNeeds, type BillingInput, type ExactRate, type MetricsRow, type MovementRow } from '../../src/subscriptions/engine.js';
import { chaosArb, DAY, edges, END, every, GRACE, lifecycleArb, lifecycles, MONTHS, plantRates, ratesArb, SEED, T0, tinyArb, TINY_GRACE } from '../oracle/lifecycles.js';
import { changeInstants, cutAt, naiveLedger, naiveMetrics, naiveMovements, naiveMrr, naiveValue, type NaiveRate, type Records } from '../oracle/subscriptions.js';

// The movement list (`metrics --movements`), the cash columns and MRR in one currency
// (DESIGN.md "The month-end close", "MRR in one currency"), held against the brute-force
// simulation of test/oracle/subscriptions.ts, which finds every movement by comparing
// each subscription one second before each instant with the instant itself, and values
// MRR in big.js at the rate of the cycle in force. Rates change at drawn instants and at
// cycle boundaries (at a cycleStart, and a second either side), so a value moves only
// when a later cycle's billing counts, and never between. Then the identities: the list
// sums to the rows, mrr_end = mrr_start + new + reactivated − churned + fx in every
// row, months add up to their quarter, tokens to the row across them.

const QUARTERS = Array.from({ length: 8 }, (_, i) => ({ from: MONTHS[3 * i].from, to: MONTHS[3 * i + 2].to }));
const recordsArb = fc.array(lifecycleArb, { minLength: 1, maxLength: 25 }).map(lifecycles);

/** The list's sums per (from, token), to compare with the rows: counts per kind, and exact sums (big.js) of the token and currency changes per kind. */
function sums(list: MovementRow[], key: (m: MovementRow) => string) {
  const out = new Map<string, { n: Record<string, number>; mrr: Record<string, Big>; value: Record<string, Big> }>();
  for (const m of list) {
    const k = key(m);
    if (!out.has(k)) out.set(k, { n: {}, mrr: {}, value: {} });
    const s = out.get(k)!;
    s.n[m.kind] = (s.n[m.kind] ?? 0) + 1;
    s.mrr[m.kind] = (s.mrr[m.kind] ?? new Big(0)).plus(m.mrr_change);
    if (m.value !== undefined) s.value[m.kind] = (s.value[m.kind] ?? new Big(0)).plus(m.value ?? 0);
  }
  return out;
}

/** Each row against the list's sums: counts, MRR (churned negative in the list), and in the currency the values and fx. */
function expectListSumsToRows(list: MovementRow[], rows: MetricsRow[], across: boolean) {
  const byRow = sums(list, (m) => JSON.stringify([m.from, across ? '*' : m.token]));
  const zero = new Big(0);
  for (const row of rows) {
    const s = byRow.get(JSON.stringify([row.from, row.token])) ?? { n: {}, mrr: {}, value: {} };
    expect([s.n.new ?? 0, s.n.reactivated ?? 0, s.n.churned ?? 0]).toEqual([row.new, row.reactivated, row.churned]);
    const money = row.mrr_fx === undefined ? s.mrr : s.value;
    expect((money.new ?? zero).eq(row.mrr_new)).toBe(true);
    expect((money.reactivated ?? zero).eq(row.mrr_reactivated)).toBe(true);
    expect((money.churned ?? zero).neg().eq(row.mrr_churned)).toBe(true);
    if (row.mrr_fx !== undefined) expect((money.fx ?? zero).eq(row.mrr_fx)).toBe(true);
    // Every change of the interval together is its net.
    expect(Object.values(money).reduce((a, b) => a.plus(b), zero).eq(row.mrr_net)).toBe(true);
  }
  // No movement falls outside the rows' intervals.
  expect(list.every((m) => rows.some((r) => r.from === m.from && r.to === m.to && r.from < m.instant && m.instant <= r.to))).toBe(true);
}

describe('metrics --movements: the list of events', () => {
  it('second by second: the engine lists what the simulation of every second finds (a small world in seconds)', () => {
    fc.assert(
      fc.property(tinyArb, ({ records, intervals, at }) => {
        const expected = naiveMovements(records, intervals, at, TINY_GRACE, every(1, -1, at + 1));
        const list = movements(records, { intervals, at, graceSeconds: TINY_GRACE, byPlan: false });
        expect(list).toEqual(expected);
        expectListSumsToRows(list, metrics(records, { intervals, at, graceSeconds: TINY_GRACE, byPlan: false }), false);
      }),
      { seed: SEED, numRuns: 60 },
    );
  });

  it('24 months of generated lifecycles cut at --at: the list is the simulation\'s, and it sums to the rows of the same window to the last digit', () => {
    const kinds = new Set<string>();
    fc.assert(
      fc.property(recordsArb, fc.integer({ min: T0 + 1, max: END + 100 * DAY }), (r, at) => {
        const intervals = cutAt(MONTHS, at);
        const list = movements(r, { intervals, at, graceSeconds: GRACE, byPlan: false });
        expect(list).toEqual(naiveMovements(r, intervals, at, GRACE));
        expectListSumsToRows(list, metrics(r, { intervals, at, graceSeconds: GRACE, byPlan: false }), false);
        for (const m of list) kinds.add(m.kind);
        // Without a currency there is no fx: an MRR in its token never changes.
        expect(list.some((m) => m.kind === 'fx' || 'value' in m)).toBe(false);
      }),
      { seed: SEED, numRuns: 40 },
    );
    expect([...kinds].sort()).toEqual(['churned', 'new', 'reactivated']);
  });

  it('records in any order, with ties, duplicates and late billings (chaos): the simulation\'s list', () => {
    const weeks = every(7 * DAY, T0 - 9 * DAY, T0 + 260 * DAY).map((from) => ({ from, to: from + 7 * DAY }));
    fc.assert(
      fc.property(chaosArb, fc.integer({ min: T0, max: T0 + 260 * DAY }), (r, at) => {
        const intervals = cutAt(weeks, at);
        expect(movements(r, { intervals, at, graceSeconds: GRACE, byPlan: true })).toEqual(naiveMovements(r, intervals, at, GRACE));
      }),
      { seed: SEED, numRuns: 40 },
    );
  });

  it('a start and an end in one interval are two rows; an instant equal to an interval\'s end belongs to it (from, to]', () => {
    // One 30-day subscription of 10 USDT, paid at T0 + 10 (counted from T0 + 11), never again:
    // it lapses at paidThrough + grace + 1 = T0 + 10 + 30 d − 1 + grace + 1.
    const b: BillingInput = { subscriptionId: 's', planId: 'p', token: 'USDT', amount: '10', timestamp: T0 + 10, cycleStart: T0 + 10, cycleEnd: T0 + 10 + 30 * DAY - 1, success: 1, transactionStatus: 'confirmed', transactionHash: '0x1' };
    const lapse = T0 + 10 + 30 * DAY + GRACE;
    const r = { billings: [b], cancellations: [] };
    const one = movements(r, { intervals: [{ from: T0, to: lapse }], at: lapse, graceSeconds: GRACE, byPlan: false });
    expect(one.map((m) => [m.instant, m.kind, m.mrr_change])).toEqual([
      [T0 + 11, 'new', '10'],
      [lapse, 'churned', '-10'],
    ]);
    // Cut one second earlier, the churn's instant is after the window: not listed.
    expect(movements(r, { intervals: [{ from: T0, to: lapse - 1 }], at: lapse, graceSeconds: GRACE, byPlan: false }).map((m) => m.kind)).toEqual(['new']);
    // A window that begins at the billing's timestamp holds its start (T0 + 10 < T0 + 11); one that begins a second later does not.
    expect(movements(r, { intervals: [{ from: T0 + 10, to: T0 + 20 }], at: lapse, graceSeconds: GRACE, byPlan: false })).toHaveLength(1);
    expect(movements(r, { intervals: [{ from: T0 + 11, to: T0 + 20 }], at: lapse, graceSeconds: GRACE, byPlan: false })).toHaveLength(0);
  });
});

// ---------------------------------------------------------------- in one currency

describe('MRR in one currency: the engine agrees with the simulation', () => {
  it('second by second, with rates that change at and around cycle starts (a small world in seconds)', () => {
    fc.assert(
      fc.property(tinyArb, ratesArb, fc.constantFrom('across', 'token', 'plan'), ({ records, intervals, at }, draw, by) => {
        const rates = plantRates(records, draw);
        const o = { intervals, at, graceSeconds: TINY_GRACE, byPlan: by === 'plan', acrossTokens: by === 'across', rates };
        const valued = { rates, across: by === 'across' };
        const seconds = every(1, -1, at + 1);
        expect(metrics(records, o)).toEqual(naiveMetrics(records, intervals, at, TINY_GRACE, by === 'plan', seconds, valued));
        expect(movements(records, o)).toEqual(naiveMovements(records, intervals, at, TINY_GRACE, seconds, valued));
      }),
      { seed: SEED, numRuns: 60 },
    );
  });

  it('24 months of generated lifecycles: rows across tokens, by token and by plan, and the movement list, with fx where a later cycle\'s rate differs', () => {
    let fx = 0;
    fc.assert(
      fc.property(recordsArb, ratesArb, fc.integer({ min: T0 + 1, max: END + 100 * DAY }), fc.constantFrom('across', 'token', 'plan'), (r, draw, at, by) => {
        const rates = plantRates(r, draw);
        const intervals = cutAt(MONTHS, at);
        const o = { intervals, at, graceSeconds: GRACE, byPlan: by === 'plan', acrossTokens: by === 'across', rates };
        const valued = { rates, across: by === 'across' };
        const rows = metrics(r, o);
        expect(rows).toEqual(naiveMetrics(r, intervals, at, GRACE, by === 'plan', changeInstants(r, GRACE), valued));
        const list = movements(r, o);
        expect(list).toEqual(naiveMovements(r, intervals, at, GRACE, changeInstants(r, GRACE), valued));
        if (by !== 'plan') expectListSumsToRows(list, rows, by === 'across');
        fx += list.filter((m) => m.kind === 'fx').length;
      }),
      { seed: SEED, numRuns: 40 },
    );
    expect(fx).toBeGreaterThan(20);
  });

  it('chaos: records in any order, ties, late payments of old cycles, terms that change', () => {
    const weeks = every(7 * DAY, T0 - 9 * DAY, T0 + 260 * DAY).map((from) => ({ from, to: from + 7 * DAY }));
    fc.assert(
      fc.property(chaosArb, ratesArb, fc.integer({ min: T0, max: T0 + 260 * DAY }), (r, draw, at) => {
        const rates = plantRates(r, draw);
        const intervals = cutAt(weeks, at);
        const o = { intervals, at, graceSeconds: GRACE, byPlan: false, acrossTokens: true, rates };
        expect(metrics(r, o)).toEqual(naiveMetrics(r, intervals, at, GRACE, false, changeInstants(r, GRACE), { rates, across: true }));
        expect(movements(r, o)).toEqual(naiveMovements(r, intervals, at, GRACE, changeInstants(r, GRACE), { rates, across: true }));
      }),
      { seed: SEED, numRuns: 40 },
    );
  });

  it('the ledger: each MRR\'s value at the rate of the cycle in force as of --at, every day and at every edge', () => {
    fc.assert(
      fc.property(fc.array(lifecycleArb, { minLength: 1, maxLength: 8 }).map(lifecycles), ratesArb, (r, draw) => {
        const rates = plantRates(r, draw);
        for (const t of [...every(7 * DAY, T0, END + 1), ...edges(r, GRACE)]) {
          const naive = naiveLedger(r.billings, r.cancellations, t, GRACE);
          const rows = ledger(r, { at: t, graceSeconds: GRACE, rates });
          expect(rows.map(({ value: _v, rate: _r, ...row }) => row)).toEqual(naive);
          // The cycle in force: the latest cycleStart of the paid billings stamped before t.
          for (const row of rows) {
            const cycle = Math.max(...r.billings.filter((b) => b.subscriptionId === row.subscriptionId && b.timestamp < t && b.success === 1 && b.transactionStatus === 'confirmed').map((b) => b.cycleStart));
            const subscribe = r.billings.find((b) => b.subscriptionId === row.subscriptionId && b.timestamp === row.started)!;
            expect(row.rate).toBe(rates(row.token, cycle));
            expect(row.value).toBe(naiveValue(naiveMrr(subscribe), rates(row.token, cycle)).toFixed());
          }
        }
      }),
      { seed: SEED, numRuns: 10 },
    );
  });
});

describe('MRR in one currency: the identities, in every row, to the last digit', () => {
  const valuedRun = (r: Records, rates: (token: string, t: number) => NaiveRate, intervals: typeof MONTHS, by: 'across' | 'token' | 'plan') =>
    metrics(r, { intervals, at: END, graceSeconds: GRACE, byPlan: by === 'plan', acrossTokens: by === 'across', rates });

  it('mrr_end = mrr_start + mrr_new + mrr_reactivated − mrr_churned + mrr_fx, and each interval\'s end is the next one\'s start', () => {
    let moved = 0;
    fc.assert(
      fc.property(fc.array(lifecycleArb, { minLength: 1, maxLength: 40 }).map(lifecycles), ratesArb, fc.constantFrom('across', 'token', 'plan'), (r, draw, by) => {
        const rows = valuedRun(r, plantRates(r, draw), MONTHS, by as 'across');
        for (const row of rows) {
          expect(new Big(row.mrr_start).plus(row.mrr_new).plus(row.mrr_reactivated).minus(row.mrr_churned).plus(row.mrr_fx!).eq(row.mrr_end)).toBe(true);
          expect(new Big(row.mrr_end).minus(row.mrr_start).eq(row.mrr_net)).toBe(true);
          if (row.mrr_fx !== '0') moved++;
        }
        const keys = [...new Set(rows.map((x) => JSON.stringify([x.token, x.planId])))];
        for (const k of keys) {
          const own = rows.filter((x) => JSON.stringify([x.token, x.planId]) === k);
          for (let q = 0; q + 1 < own.length; q++) expect(own[q + 1].mrr_start).toBe(own[q].mrr_end);
        }
      }),
      { seed: SEED, numRuns: 60 },
    );
    expect(moved).toBeGreaterThan(20);
  });

  it('months add up to their quarter, in the currency: every movement, fx, collected and failed_amount', () => {
    fc.assert(
      fc.property(fc.array(lifecycleArb, { minLength: 1, maxLength: 40 }).map(lifecycles), ratesArb, fc.constantFrom('across', 'token'), (r, draw, by) => {
        const rates = plantRates(r, draw);
        const months = valuedRun(r, rates, MONTHS, by as 'across');
        for (const quarter of valuedRun(r, rates, QUARTERS, by as 'across')) {
          const parts = months.filter((m) => m.token === quarter.token && m.from >= quarter.from && m.to <= quarter.to);
          expect(parts).toHaveLength(3);
          expect([parts[0].mrr_start, parts[2].mrr_end]).toEqual([quarter.mrr_start, quarter.mrr_end]);
          for (const c of ['mrr_new', 'mrr_reactivated', 'mrr_churned', 'mrr_fx', 'mrr_net', 'collected', 'failed_amount', 'recovered_amount'] as const) {
            expect(parts.reduce((n, m) => n.plus(m[c]!), new Big(0)).eq(quarter[c]!), c).toBe(true);
          }
        }
      }),
      { seed: SEED, numRuns: 40 },
    );
  });

  it('rows by token add up to the row across tokens', () => {
    fc.assert(
      fc.property(fc.array(lifecycleArb, { minLength: 1, maxLength: 40 }).map(lifecycles), ratesArb, (r, draw) => {
        const rates = plantRates(r, draw);
        const across = valuedRun(r, rates, MONTHS, 'across');
        const byToken = valuedRun(r, rates, MONTHS, 'token');
        expect(across.every((x) => x.token === '*')).toBe(true);
        for (const row of across) {
          const parts = byToken.filter((x) => x.from === row.from);
          for (const c of ['subscriptions_start', 'subscriptions_end', 'new', 'churned', 'attempts'] as const) expect(parts.reduce((n, p) => n + p[c], 0)).toBe(row[c]);
          for (const c of ['mrr_start', 'mrr_end', 'mrr_fx', 'collected', 'failed_amount'] as const) expect(parts.reduce((n, p) => n.plus(p[c]!), new Big(0)).eq(row[c]!), c).toBe(true);
        }
      }),
      { seed: SEED, numRuns: 30 },
    );
  });
});

describe('MRR in one currency: worked by hand', () => {
  // 10 BNB every 30 days (a month band: MRR 10 BNB), subscribed at JAN1, renewed at its
  // anchored cycles JAN31 and MAR2. BNB/USD: 600 until FEB1 (the rate in force at JAN1
  // and JAN31), 650 from FEB1, 700 from MAR2 itself.
  const JAN1 = Date.UTC(2026, 0, 1) / 1000;
  const JAN31 = JAN1 + 30 * DAY;
  const FEB1 = Date.UTC(2026, 1, 1) / 1000;
  const MAR1 = Date.UTC(2026, 2, 1) / 1000;
  const MAR2 = JAN31 + 30 * DAY;
  const APR1 = Date.UTC(2026, 3, 1) / 1000;
  const bill = (t: number): BillingInput => ({ subscriptionId: 'b1', planId: 'p', token: 'BNB', amount: '10', timestamp: t + 60, cycleStart: t, cycleEnd: t + 30 * DAY - 1, success: 1, transactionStatus: 'confirmed', transactionHash: `0x${t}` });
  const r = { billings: [bill(JAN1), bill(JAN31), bill(MAR2)], cancellations: [] };
  const R600 = { num: 600n, den: 1n };
  const R650 = { num: 650n, den: 1n };
  const R700 = { num: 700n, den: 1n };
  const rates = (token: string, t: number): ExactRate | undefined => (token !== 'BNB' ? undefined : t < FEB1 ? R600 : t < MAR2 ? R650 : R700);
  const months = [
    { from: JAN1, to: FEB1 },
    { from: FEB1, to: MAR1 },
    { from: MAR1, to: APR1 },
  ];

  it('the value moves only when a later cycle\'s billing counts: not at FEB1, when the rate did; at MAR2 + 61 s, 6,000 → 7,000 USD', () => {
    const o = { intervals: months, at: APR1, graceSeconds: GRACE, byPlan: false, acrossTokens: true, rates };
    const rows = metrics(r, o);
    // January: new at JAN1 + 61 at 600 → 6,000. The JAN31 renewal (stamped JAN31 + 60, in
    // January) moves the cycle to JAN31, whose rate is still 600: no fx. Collected: two
    // billings of 10 BNB at 600 = 12,000.
    expect(rows[0]).toMatchObject({ token: '*', new: 1, mrr_start: '0', mrr_new: '6000', mrr_fx: '0', mrr_end: '6000', collected: '12000' });
    // February: the rate became 650 on FEB1, but no cycle began then: MRR stays 6,000. Nothing paid.
    expect(rows[1]).toMatchObject({ mrr_start: '6000', mrr_fx: '0', mrr_end: '6000', collected: '0' });
    // March: the MAR2 cycle (rate 700 at its start) counts at MAR2 + 61: fx +1,000. Collected at MAR2 + 60: 700 × 10.
    expect(rows[2]).toMatchObject({ mrr_start: '6000', mrr_fx: '1000', mrr_end: '7000', mrr_net: '1000', collected: '7000' });
    expect(movements(r, o).map((m) => [m.instant, m.kind, m.mrr_change, m.value, m.rate])).toEqual([
      [JAN1 + 61, 'new', '10', '6000', R600],
      [MAR2 + 61, 'fx', '0', '1000', R700],
    ]);
    expect(ledger(r, { at: APR1, graceSeconds: GRACE, rates })[0]).toMatchObject({ mrr: '10', value: '7000', rate: R700 });
  });

  it('rateNeeds lists exactly the instants asked: each cycle start in force, each billing\'s time; a lookup of only those answers everything', () => {
    const o = { intervals: months, at: APR1, graceSeconds: GRACE, byPlan: false, acrossTokens: true };
    const needs = rateNeeds((rateOf) => metrics(r, { ...o, rates: rateOf }));
    expect([...needs]).toEqual([['BNB', [JAN1, JAN1 + 60, JAN31, JAN31 + 60, MAR2, MAR2 + 60]]]);
    const prepared = new Map(needs.get('BNB')!.map((t) => [t, rates('BNB', t)!]));
    const strict = (token: string, t: number) => {
      if (!prepared.has(t)) throw new Error(`asked for ${token} at ${t}, which was not prepared`);
      return prepared.get(t);
    };
    expect(metrics(r, { ...o, rates: strict })).toEqual(metrics(r, { ...o, rates }));
  });

  it('rateNeeds gives each token\'s instants ascending and distinct, however often and in whatever order they are asked', () => {
    const needs = rateNeeds((rateOf) => {
      for (const [token, t] of [['BNB', 30], ['BNB', 10], ['USDT', 5], ['BNB', 30], ['BNB', 30], ['USDT', 5], ['BNB', 10], ['BNB', 20], ['USDT', 1]] as const) rateOf(token, t);
    });
    expect([...needs]).toEqual([
      ['BNB', [10, 20, 30]],
      ['USDT', [1, 5]],
    ]);
  });

  it('a missing rate leaves that figure out (empty in the list, 0 in the totals) and the roll-forward still holds', () => {
    // No rate for the JAN31 cycle: its value is unknown while it is in force (JAN31 + 61 to MAR2 + 60).
    const gap = (token: string, t: number) => (t === JAN31 ? undefined : rates(token, t));
    const o = { intervals: months, at: APR1, graceSeconds: GRACE, byPlan: false, acrossTokens: true, rates: gap };
    const rows = metrics(r, o);
    expect(rows.map((x) => [x.mrr_start, x.mrr_fx, x.mrr_end])).toEqual([
      ['0', '-6000', '0'],
      ['0', '0', '0'],
      ['0', '7000', '7000'],
    ]);
    // The January billing valued as usual, the JAN31 one (its own time, JAN31 + 60) too: cash has its own instants.
    expect(rows[0].collected).toBe('12000');
    const list = movements(r, o);
    expect(list.map((m) => [m.kind, m.value, m.rate])).toEqual([
      ['new', '6000', R600],
      ['fx', '-6000', null],
      ['fx', '7000', R700],
    ]);
    expect(ledger(r, { at: MAR2, graceSeconds: GRACE, rates: gap })[0]).toMatchObject({ value: null, rate: null });
    // No rate for the first cycle: the subscription's new movement has no value (empty, not 0), and no rate.
    const late = (token: string, t: number) => (t < FEB1 ? undefined : rates(token, t));
    expect(movements(r, { ...o, rates: late })[0]).toMatchObject({ kind: 'new', value: null, rate: null });
  });

  it('rows across tokens need rates', () => {
    expect(() => metrics(r, { intervals: months, at: APR1, graceSeconds: GRACE, byPlan: false, acrossTokens: true })).toThrow(/need rates/);
  });
});
