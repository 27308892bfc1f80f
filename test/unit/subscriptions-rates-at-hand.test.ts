import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ledger, metrics, movements, rateNeeds, SubscriptionRecords, type RateOf } from '../../src/subscriptions/engine.js';
import { prepareRates, ratesAtHand } from '../../src/subscriptions/prepared-rates.js';
import { MissingRates } from '../../src/values/missing.js';
import type { RateRow } from '../../src/values/rates-file.js';
import { Rates } from '../../src/values/resolve.js';
import { RowBook } from '../../src/values/selection.js';
import { DAY, END, GRACE, lifecycleArb, lifecycles, MONTHS, SEED, T0 } from '../oracle/lifecycles.js';
import { changeInstants, cutAt, naiveMetrics, type NaiveRate, type Records } from '../oracle/subscriptions.js';

// metrics --currency with a rates file (DESIGN.md "Values in one currency"): the rates are
// at hand, so the engine looks each one up as it asks (no batch of a million instants), and
// values each billing once per (label, rate) and each MRR once per (plan's MRR, rate),
// keyed by the rate object the lookup hands back. Held against a brute-force valuation of
// every billing and every MRR (the oracle of test/oracle/subscriptions.ts, given rates this
// test finds by scanning the file's rows itself), and against the batch path (rateNeeds,
// then prepareRates) that a chain's feeds take: the same rows, movements, ledger and
// missing rates, to the last digit.

const TOKENS = ['USDT', 'EIGHT'];
const HOUR = 3600;

/** A rates file as rows: a row per token about every day from before the first record to after the last, at drawn hours and rates (`gaps` skips some days: rates missing then), or one constant row. */
const fileArb = fc.record({
  rates: fc.array(fc.tuple(fc.integer({ min: 0, max: 900 }), fc.integer({ min: 0, max: 99_999_999 }), fc.integer({ min: 0, max: 8 })), { minLength: 1, maxLength: 60 }),
  hours: fc.array(fc.integer({ min: 0, max: HOUR - 1 }), { minLength: 1, maxLength: 30 }),
  gaps: fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 12 }),
  currency: fc.constantFrom('USD', 'USD', 'EUR'),
  // Tokens with one constant row (`*`, a declared peg) instead of daily rows: every billing of every plan of the token at one rate.
  pegged: fc.subarray(TOKENS),
});
type FileDraw = typeof fileArb extends fc.Arbitrary<infer U> ? U : never;

const FIRST = T0 - 130 * DAY;
const LAST = END + 60 * DAY;

function rowsOf(draw: FileDraw, withGaps: boolean): RateRow[] {
  const rows: RateRow[] = [];
  let n = 0;
  const text = () => {
    const [whole, part, places] = draw.rates[n++ % draw.rates.length];
    const t = places === 0 ? String(whole + 1) : `${whole}.${String(part).padStart(8, '0').slice(0, places)}`;
    return /[1-9]/.test(t) ? t : '0.5';
  };
  const skipped = new Set(withGaps ? draw.gaps : []);
  for (const token of TOKENS) {
    if (draw.pegged.includes(token)) {
      rows.push({ line: rows.length + 2, time: null, chain: 'bsc', token, currency: 'USD', rate: text(), source: 'test' });
      continue;
    }
    // Spaced at most a day and an hour (the 25-hour max age) unless a day is skipped.
    for (let d = 0, t = FIRST; t < LAST; d++, t += DAY) {
      if (skipped.has(d)) continue;
      rows.push({ line: rows.length + 2, time: t + draw.hours[d % draw.hours.length], chain: 'bsc', token, currency: 'USD', rate: text(), source: 'test' });
    }
  }
  // EUR through USD: a fiat row of EUR → USD every 4 days (within the 5 days' max age of fiat legs).
  for (let t = FIRST; t < LAST; t += 4 * DAY) rows.push({ line: rows.length + 2, time: t, chain: 'fiat', token: 'EUR', currency: 'USD', rate: `1.0${String(rows.length % 1000).padStart(3, '0')}`, source: 'test' });
  return rows;
}

/** The brute force: every row scanned for the latest at or before t within its max age; EUR as the token's USD rate divided by EUR's. */
function bruteRates(rows: RateRow[], currency: string): (token: string, t: number) => NaiveRate | undefined {
  const latest = (token: string, t: number, maxAge: number): RateRow | undefined => {
    let best: RateRow | undefined;
    for (const r of rows) if (r.token === token && r.time !== null && r.time <= t && (!best || r.time >= best.time!)) best = r;
    // A constant row serves when no dated row is in force.
    return best && t - best.time! <= maxAge ? best : rows.find((r) => r.token === token && r.time === null);
  };
  return (token, t) => {
    const usd = latest(token, t, 25 * HOUR);
    const eur = currency === 'EUR' ? latest('EUR', t, 5 * DAY) : undefined;
    if (!usd || (currency === 'EUR' && !eur)) return undefined;
    const over = eur ? eur.rate : '1';
    // num and den only satisfy the type: the oracle reads times and over.
    return { times: usd.rate, over, num: 0n, den: 1n };
  };
}

const recordsArb = fc.array(lifecycleArb, { minLength: 5, maxLength: 40 }).map(lifecycles);

function atHandOf(r: Records, rows: RateRow[], currency: string) {
  const source = new Rates([new RowBook(rows, 'rates.csv')]);
  const atHand = ratesAtHand(source, 'bsc', currency, SubscriptionRecords.from(r).tokens());
  if (!atHand) throw new Error('a rates file\'s rates are at hand');
  return { source, atHand };
}

describe('metrics --currency with rates at hand (a rates file)', () => {
  it('every figure is the brute force\'s: each billing and each MRR valued one by one at the row in force, rounded once, summed', () => {
    fc.assert(
      fc.property(recordsArb, fileArb, fc.integer({ min: T0 + DAY, max: END }), fc.constantFrom('across', 'token', 'plan'), (r, draw, at, by) => {
        const rows = rowsOf(draw, false);
        const { atHand } = atHandOf(r, rows, draw.currency);
        const intervals = cutAt(MONTHS, at);
        const o = { intervals, at, graceSeconds: GRACE, byPlan: by === 'plan', acrossTokens: by === 'across' };
        const brute = bruteRates(rows, draw.currency);
        const naive = (token: string, t: number): NaiveRate => {
          const rate = brute(token, t);
          if (!rate) throw new Error(`the test's file has no row in force for ${token} at ${t}`);
          return rate;
        };
        const rowsAtHand = metrics(r, { ...o, rates: atHand.rates });
        const missing = new MissingRates();
        atHand.countMissing(missing);
        expect(missing.count).toBe(0);
        expect(rowsAtHand).toEqual(naiveMetrics(r, intervals, at, GRACE, by === 'plan', changeInstants(r, GRACE), { rates: naive, across: by === 'across' }));
        // And to the last digit, the roll-forward.
        for (const row of rowsAtHand) expect(new Big(row.mrr_start).plus(row.mrr_new).plus(row.mrr_reactivated).minus(row.mrr_churned).plus(row.mrr_fx!).eq(row.mrr_end)).toBe(true);
      }),
      { seed: SEED, numRuns: 40 },
    );
  });

  it('the same rows, movements, ledger and missing rates as the batch path (rateNeeds, then prepareRates), with rates missing in gaps', async () => {
    await fc.assert(
      fc.asyncProperty(recordsArb, fileArb, fc.integer({ min: T0 + DAY, max: END }), async (r, draw, at) => {
        const rows = rowsOf(draw, true);
        const intervals = cutAt(MONTHS, at);
        const o = { intervals, at, graceSeconds: GRACE, byPlan: false, acrossTokens: true };
        const computations = [(rates: RateOf) => metrics(r, { ...o, rates }), (rates: RateOf) => movements(r, { ...o, rates }), (rates: RateOf) => ledger(r, { at, graceSeconds: GRACE, rates })];
        for (const compute of computations) {
          const { source, atHand } = atHandOf(r, rows, draw.currency);
          const fast = compute(atHand.rates);
          const fastMissing = new MissingRates();
          atHand.countMissing(fastMissing);
          const batchMissing = new MissingRates();
          const slow = compute(await prepareRates(rateNeeds(compute), source, 'bsc', draw.currency, batchMissing));
          expect(fast).toEqual(slow);
          expect(fastMissing.count).toBe(batchMissing.count);
          expect(fastMissing.report()).toEqual(batchMissing.report());
        }
      }),
      { seed: SEED, numRuns: 25 },
    );
  });

  it('a rate asked many times and missing is counted once; a token whose rates must be read (no row in the file, a feed) takes the batch path', () => {
    const rows: RateRow[] = [{ line: 2, time: T0, chain: 'bsc', token: 'USDT', currency: 'USD', rate: '1', source: 'test' }];
    const atHand = ratesAtHand(new Rates([new RowBook(rows, 'rates.csv')]), 'bsc', 'USD', ['USDT'])!;
    for (let i = 0; i < 3; i++) expect(atHand.rates('USDT', T0 + 2 * DAY)).toBeUndefined();
    expect(atHand.rates('USDT', T0 + HOUR)).toMatchObject({ num: 1n, den: 1n });
    const missing = new MissingRates();
    atHand.countMissing(missing);
    expect(missing.count).toBe(1);
    // A source with a leg it must read has no rates at hand for that token.
    const feed = { has: (q: { token: string }) => q.token === 'BNB', legs: () => [] };
    const source = new Rates([new RowBook(rows, 'rates.csv'), feed]);
    expect(ratesAtHand(source, 'bsc', 'USD', ['USDT'])).toBeDefined();
    expect(ratesAtHand(source, 'bsc', 'USD', ['USDT', 'BNB'])).toBeUndefined();
  });
});
