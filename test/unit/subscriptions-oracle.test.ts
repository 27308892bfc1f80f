import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SubscriptionRecords, ledger, metrics, outcomeCode, type MetricsRow } from '../../src/subscriptions/engine.js';
import { cutAt, naiveLedger, naiveMetrics, type Records } from '../oracle/subscriptions.js';
import { BERLIN, chaosArb, cycleArb, DAY, edges, END, every, GRACE, lifecycleArb, lifecycles, MONTHS, SEED, T0, tinyArb, TINY_GRACE } from '../oracle/lifecycles.js';

// The engine held against a brute-force simulation written from DESIGN.md alone
// (test/oracle/subscriptions.ts; STYLE.md "Derived answers": a naive reference kept
// beside the fast code). The naive side scans every record at every instant it is asked
// about, keeps money in big.js (not the engine's BigInt code), and finds movements as
// DESIGN defines them, as events: it compares each subscription's counted state one
// second before an instant with the state then, at every instant where a state can
// change (each record seen, each paid period and grace over), and in a small world of
// seconds at every second. It runs over two years of months, every day, and every second
// around those instants, on lifecycles fast-check generates with a fixed seed. Then
// property tests of the engine's own rows: the identities, months that add up to their
// quarter, plans to their token.

describe('the engine agrees with the brute-force simulation', () => {
  const recordsArb = fc.array(lifecycleArb, { minLength: 1, maxLength: 25 }).map(lifecycles);
  const fewArb = fc.array(lifecycleArb, { minLength: 1, maxLength: 8 }).map(lifecycles);

  it('second by second: the simulation of every second, the simulation of the change instants and the engine agree (a small world in seconds)', () => {
    fc.assert(
      fc.property(tinyArb, fc.boolean(), ({ records, intervals, at }, byPlan) => {
        const everySecond = every(1, -1, at + 1);
        const bySecond = naiveMetrics(records, intervals, at, TINY_GRACE, byPlan, everySecond);
        expect(naiveMetrics(records, intervals, at, TINY_GRACE, byPlan)).toEqual(bySecond);
        expect(metrics(records, { intervals, at, graceSeconds: TINY_GRACE, byPlan })).toEqual(bySecond);
        for (const t of everySecond) expect(ledger(records, { at: t, graceSeconds: TINY_GRACE })).toEqual(naiveLedger(records.billings, records.cancellations, t, TINY_GRACE));
      }),
      { seed: SEED, numRuns: 60 },
    );
  });

  it('ledger: every day of two years and every second where a state can change (generated lifecycles)', () => {
    fc.assert(
      fc.property(fewArb, fc.constantFrom(GRACE, 0, 7 * DAY), (r, grace) => {
        for (const t of [...every(DAY, T0, END + 1), ...edges(r, grace)]) {
          expect(ledger(r, { at: t, graceSeconds: grace })).toEqual(naiveLedger(r.billings, r.cancellations, t, grace));
        }
      }),
      { seed: SEED, numRuns: 12 },
    );
  });

  it('metrics: 24 calendar months cut at --at, by token and by plan, dunning as of --at (generated lifecycles)', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(recordsArb, fc.integer({ min: T0 + 1, max: END + 100 * DAY }), fc.boolean(), (r, at, byPlan) => {
        const intervals = cutAt(MONTHS, at);
        const rows = metrics(r, { intervals, at, graceSeconds: GRACE, byPlan });
        expect(rows).toEqual(naiveMetrics(r, intervals, at, GRACE, byPlan));
        for (const k of ['new', 'reactivated', 'churned', 'recovered', 'lost', 'open'] as const) if (rows.some((row) => row[k] > 0)) seen.add(k);
        if (rows.some((row) => row.new > 0 && row.churned > 0 && row.subscriptions_start === 0 && row.subscriptions_end === 0)) seen.add('new and churned alone');
      }),
      { seed: SEED, numRuns: 40 },
    );
    // The generator makes what the figures must see: not a vacuous comparison.
    expect([...seen].sort()).toEqual(['churned', 'lost', 'new', 'new and churned alone', 'open', 'reactivated', 'recovered']);
  });

  it('metrics: Berlin months, with their 23- and 25-hour days (generated lifecycles)', () => {
    // Berlin October 2026: from 2026-09-30T22:00Z to 2026-10-31T23:00Z, 31 days and 1 hour.
    expect([BERLIN[21].from, BERLIN[21].to - BERLIN[21].from]).toEqual([Date.UTC(2026, 8, 30, 22) / 1000, 31 * DAY + 3_600]);
    fc.assert(
      fc.property(recordsArb, fc.boolean(), (r, byPlan) => {
        const at = BERLIN.at(-1)!.to;
        expect(metrics(r, { intervals: BERLIN, at, graceSeconds: GRACE, byPlan })).toEqual(naiveMetrics(r, BERLIN, at, GRACE, byPlan));
      }),
      { seed: SEED, numRuns: 15 },
    );
  });

  it('metrics: intervals cut at the edges, to the second (generated lifecycles)', () => {
    fc.assert(
      fc.property(recordsArb, fc.integer({ min: 2, max: 40 }), (r, cuts) => {
        const all = edges(r, GRACE);
        const step = Math.max(1, Math.floor(all.length / cuts));
        const points = [...new Set(all.filter((_, i) => i % step === 0))];
        const intervals = points.slice(1).map((to, i) => ({ from: points[i], to }));
        const at = points.at(-1)!;
        expect(metrics(r, { intervals, at, graceSeconds: GRACE, byPlan: false })).toEqual(naiveMetrics(r, intervals, at, GRACE, false));
      }),
      { seed: SEED, numRuns: 40 },
    );
  });

  it('records fed one at a time in any order (SubscriptionRecords) give the same answers', () => {
    fc.assert(
      fc.property(recordsArb, fc.integer(), (r, seed) => {
        // A seeded shuffle; generated lifecycles never bill one subscription twice in a second.
        let x = seed >>> 0 || 1;
        const random = () => ((x = (x * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32);
        const shuffled = r.billings.map((b) => [random(), b] as const).sort((a, b) => a[0] - b[0]).map(([, b]) => b);
        const fed = new SubscriptionRecords();
        for (const c of [...r.cancellations].reverse()) fed.addCancellation(c);
        for (const b of shuffled) fed.addBilling(b);
        expect(fed.billings).toBe(r.billings.length);
        expect(metrics(fed, { intervals: MONTHS, at: END, graceSeconds: GRACE, byPlan: true })).toEqual(naiveMetrics(r, MONTHS, END, GRACE, true));
        expect(ledger(fed, { at: END, graceSeconds: GRACE })).toEqual(naiveLedger(r.billings, r.cancellations, END, GRACE));
      }),
      { seed: SEED, numRuns: 20 },
    );
  });

  it('subscriptions with more billings than the store sorts by insertion (over 64), fed in any order, give the same answers', () => {
    const longArb = fc.array(lifecycleArb.map((l) => ({ ...l, plan: 0, cancel: undefined })).chain((l) => fc.array(cycleArb, { minLength: 70, maxLength: 120 }).map((cycles) => ({ ...l, cycles }))), { minLength: 1, maxLength: 3 }).map(lifecycles);
    fc.assert(
      fc.property(longArb, fc.integer(), (r, seed) => {
        let x = seed >>> 0 || 1;
        const random = () => ((x = (x * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32);
        const fed = new SubscriptionRecords();
        for (const b of r.billings.map((b) => [random(), b] as const).sort((a, b) => a[0] - b[0]).map(([, b]) => b)) fed.addBilling(b);
        for (const c of r.cancellations) fed.addCancellation(c);
        expect(metrics(fed, { intervals: MONTHS, at: END, graceSeconds: GRACE, byPlan: true })).toEqual(naiveMetrics(r, MONTHS, END, GRACE, true));
        expect(ledger(fed, { at: END, graceSeconds: GRACE })).toEqual(naiveLedger(r.billings, r.cancellations, END, GRACE));
        return r.billings.filter((b) => b.subscriptionId === 'sub0').length > 64;
      }),
      { seed: SEED, numRuns: 10 },
    );
  });

  it('billings handed over as numbers (addBillingNumbers, as the mirror\'s reader does) give the same answers', () => {
    fc.assert(
      fc.property(recordsArb, (r) => {
        const fed = new SubscriptionRecords();
        for (const b of r.billings) {
          const taken = fed.addBillingNumbers(fed.subscriptionNumber(b.subscriptionId), fed.labelNumber(b.token, b.planId, b.amount), outcomeCode(b), b.timestamp, b.cycleStart, b.cycleEnd);
          expect(taken).toBe(true);
        }
        for (const c of r.cancellations) fed.addCancellation(c);
        expect(metrics(fed, { intervals: MONTHS, at: END, graceSeconds: GRACE, byPlan: true })).toEqual(naiveMetrics(r, MONTHS, END, GRACE, true));
        expect(ledger(fed, { at: END, graceSeconds: GRACE })).toEqual(naiveLedger(r.billings, r.cancellations, END, GRACE));
      }),
      { seed: SEED, numRuns: 20 },
    );
  });

  it('addBillingNumbers takes nothing it cannot read exactly, and refuses numbers that are not the store\'s', () => {
    const s = new SubscriptionRecords();
    const sub = s.subscriptionNumber('0xs');
    const label = s.labelNumber('USDC', '0xp', '10');
    const paid = outcomeCode({ success: 1, transactionStatus: 'confirmed' });
    expect(s.addBillingNumbers(sub, s.labelNumber('USDC', '0xp', '1e5'), paid, T0, T0, T0 + DAY)).toBe(false);
    expect(s.addBillingNumbers(sub, label, paid, T0 + 0.5, T0, T0 + DAY)).toBe(false);
    expect(s.addBillingNumbers(sub, label, paid, T0, T0 + DAY, T0)).toBe(false);
    expect(s.billings).toBe(0);
    expect(s.addBillingNumbers(sub, label, outcomeCode({ success: 0, transactionStatus: 'confirmed' }), T0, T0 + DAY, T0)).toBe(true);
    expect(() => s.addBillingNumbers(sub + 1, label, paid, T0, T0, T0 + DAY)).toThrow(/not of this store/);
    expect(() => s.addBillingNumbers(sub, label + 5, paid, T0, T0, T0 + DAY)).toThrow(/not of this store/);
    expect(() => s.addBillingNumbers(sub, label, 7, T0, T0, T0 + DAY)).toThrow(/not of this store/);
    expect(s.billings).toBe(1);
  });

  it('ledger and metrics on records in any order, with ties, duplicates and late billings (chaos)', () => {
    const days = every(DAY, T0 - 10 * DAY, T0 + 260 * DAY);
    const weeks = days.slice(1).filter((_, i) => i % 7 === 0).map((from) => ({ from, to: from + 7 * DAY }));
    fc.assert(
      fc.property(chaosArb, fc.integer({ min: T0, max: T0 + 260 * DAY }), fc.boolean(), (r, at, byPlan) => {
        for (const t of [...days, ...edges(r, GRACE)]) expect(ledger(r, { at: t, graceSeconds: GRACE })).toEqual(naiveLedger(r.billings, r.cancellations, t, GRACE));
        const intervals = cutAt(weeks, at);
        expect(metrics(r, { intervals, at, graceSeconds: GRACE, byPlan })).toEqual(naiveMetrics(r, intervals, at, GRACE, byPlan));
      }),
      { seed: SEED, numRuns: 40 },
    );
  });
});

// ---------------------------------------------------------------- properties of the rows

describe('properties of the metrics rows (generated lifecycles)', () => {
  const recordsArb = fc.array(lifecycleArb, { minLength: 1, maxLength: 40 }).map(lifecycles);
  const run = (r: Records, byPlan: boolean, intervals = MONTHS) => metrics(r, { intervals, at: END, graceSeconds: GRACE, byPlan });
  const key = (r: MetricsRow) => JSON.stringify([r.from, r.token]);
  const COUNTS = ['new', 'reactivated', 'churned', 'attempts', 'failed', 'dunning_cases', 'recovered', 'lost', 'open'] as const;
  const AMOUNTS = ['mrr_new', 'mrr_reactivated', 'mrr_churned', 'mrr_net', 'recovered_amount'] as const;

  it('subscriptions_end = subscriptions_start + new + reactivated − churned, the same in MRR, mrr_net = mrr_end − mrr_start, cases = recovered + lost + open, in every row', () => {
    fc.assert(
      fc.property(recordsArb, fc.boolean(), (r, byPlan) => {
        for (const row of run(r, byPlan)) {
          expect(new Big(row.mrr_start).plus(row.mrr_new).plus(row.mrr_reactivated).minus(row.mrr_churned).eq(row.mrr_end)).toBe(true);
          expect(row.subscriptions_start + row.new + row.reactivated - row.churned).toBe(row.subscriptions_end);
          expect(new Big(row.mrr_end).minus(row.mrr_start).eq(row.mrr_net)).toBe(true);
          expect(row.recovered + row.lost + row.open).toBe(row.dunning_cases);
        }
      }),
      { seed: SEED, numRuns: 60 },
    );
  });

  it("every interval has a row for each token with anything in the window, and each interval's end is the next one's start", () => {
    fc.assert(
      fc.property(recordsArb, (r) => {
        const rows = run(r, false);
        const tokens = [...new Set(rows.map((row) => row.token))].sort();
        expect(rows.map((row) => [row.from, row.token])).toEqual(MONTHS.flatMap((m) => tokens.map((t) => [m.from, t])));
        const byKey = new Map(rows.map((row) => [key(row), row]));
        for (const token of tokens) {
          for (let q = 0; q + 1 < MONTHS.length; q++) {
            const here = byKey.get(JSON.stringify([MONTHS[q].from, token]))!;
            const next = byKey.get(JSON.stringify([MONTHS[q + 1].from, token]))!;
            expect(next.subscriptions_start).toBe(here.subscriptions_end);
            expect(next.mrr_start).toBe(here.mrr_end);
          }
        }
      }),
      { seed: SEED, numRuns: 60 },
    );
  });

  it('months add up to their quarter, and any intervals to the interval that spans them (movements are events)', () => {
    const QUARTERS = Array.from({ length: 8 }, (_, i) => ({ from: MONTHS[3 * i].from, to: MONTHS[3 * i + 2].to }));
    let moved = 0;
    fc.assert(
      fc.property(recordsArb, fc.boolean(), fc.uniqueArray(fc.integer({ min: 1, max: 23 }), { maxLength: 8 }), (r, byPlan, cuts) => {
        // Quarters from months, and a random coarsening of the months (each part a run of months).
        const points = [0, ...[...cuts].sort((a, b) => a - b), 24];
        const parts = points.slice(1).map((end, i) => ({ from: MONTHS[points[i]].from, to: MONTHS[end - 1].to }));
        const months = run(r, byPlan);
        for (const coarse of [QUARTERS, parts]) {
          for (const big of run(r, byPlan, coarse)) {
            const small = months.filter((m) => m.token === big.token && m.planId === big.planId && m.from >= big.from && m.to <= big.to);
            expect(small[0].subscriptions_start).toBe(big.subscriptions_start);
            expect(small[0].mrr_start).toBe(big.mrr_start);
            expect(small.at(-1)!.subscriptions_end).toBe(big.subscriptions_end);
            expect(small.at(-1)!.mrr_end).toBe(big.mrr_end);
            for (const c of COUNTS) expect(small.reduce((n, m) => n + m[c], 0), c).toBe(big[c]);
            for (const a of AMOUNTS) expect(small.reduce((n, m) => n.plus(m[a]), new Big(0)).eq(big[a]), a).toBe(true);
            if (big.new > 0 && big.churned > 0 && big.reactivated > 0) moved++;
          }
        }
      }),
      { seed: SEED, numRuns: 40 },
    );
    expect(moved).toBeGreaterThan(10);
  });

  it('rows by plan add up to the rows by token', () => {
    const counts = ['subscriptions_start', 'subscriptions_end', ...COUNTS] as const;
    const amounts = ['mrr_start', 'mrr_end', ...AMOUNTS] as const;
    fc.assert(
      fc.property(recordsArb, (r) => {
        const byToken = run(r, false);
        const summed = new Map<string, Record<string, number | Big>>();
        for (const row of run(r, true)) {
          const s = summed.get(key(row)) ?? {};
          for (const c of counts) s[c] = ((s[c] as number) ?? 0) + row[c];
          for (const a of amounts) s[a] = ((s[a] as Big) ?? new Big(0)).plus(row[a]);
          summed.set(key(row), s);
        }
        expect([...summed.keys()]).toEqual(byToken.map(key));
        for (const row of byToken) {
          const s = summed.get(key(row))!;
          for (const c of counts) expect(s[c]).toBe(row[c]);
          for (const a of amounts) expect((s[a] as Big).eq(row[a])).toBe(true);
        }
      }),
      { seed: SEED, numRuns: 60 },
    );
  });
});
