import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseRatesFile, type RateRow } from '../../src/values/rates-file.js';
import { RowBook, type LegQuery } from '../../src/values/selection.js';
import { cross, Rates } from '../../src/values/resolve.js';
import { isRate, type Rate } from '../../src/values/rate.js';
import { MissingRates } from '../../src/values/missing.js';

const HEADER = 'time,chain,token,currency,rate,source';
const file = (...lines: string[]) => [HEADER, ...lines].join('\n') + '\n';
// 2026-10-05T00:00:00Z, worked out: 2026-01-01 is 1767225600; + 277 days (Jan–Sep 273, + 4) × 86400.
const OCT5 = 1_767_225_600 + 277 * 86_400;

// A brute-force selector written from DESIGN.md alone: every row of the leg at or before
// t, the latest, the chain's own at a tie; within the max age, else the constant.
function bruteForce(rows: readonly RateRow[], q: LegQuery): { line: number; peg: boolean } | undefined {
  const mine = rows.filter((r) => (q.fiat ? r.chain === 'fiat' : r.chain === q.chain || r.chain === '*') && r.token === q.token && r.currency === q.currency);
  const dated = mine.filter((r) => r.time !== null && r.time <= q.at);
  let best: RateRow | undefined;
  for (const r of dated) if (!best || r.time! > best.time! || (r.time === best.time && r.chain !== '*')) best = r;
  if (best && q.at - best.time! <= q.maxAge) return { line: best.line, peg: false };
  const constant = mine.find((r) => r.time === null && r.chain !== '*') ?? mine.find((r) => r.time === null);
  return constant ? { line: constant.line, peg: true } : undefined;
}

describe('which row is in force', () => {
  // Made in each test, never when the file is collected: Stryker counts a file that fails
  // to load as no test failed, so a mutant that breaks it at load time would survive.
  const book = () => new RowBook(parseRatesFile(file('2026-10-05,bsc,BNB,USD,600,a', '2026-10-06,bsc,BNB,USD,610,b', '2026-10-06,*,BNB,USD,999,c', '*,bsc,USDT,USD,1,peg'), 'rates.csv'), 'rates.csv');
  const q = (at: number, token = 'BNB', maxAge = 25 * 3600): LegQuery => ({ chain: 'bsc', token, currency: 'USD', at, fiat: false, maxAge });

  it('takes the row of the second itself, never one from after the record', () => {
    expect((book().leg(q(OCT5 + 86_400)) as Rate).rateSource).toBe('file:rates.csv:3');
    expect((book().leg(q(OCT5 + 86_400 - 1)) as Rate).rateSource).toBe('file:rates.csv:2');
    expect(book().leg(q(OCT5 - 1))).toEqual({ missing: 'the first row (rates.csv:2) is from 2026-10-05T00:00:00Z, after the record' });
  });

  it('stops at the max age: 25 hours serve a daily row, not a day more', () => {
    expect((book().leg(q(OCT5 + 86_400 + 25 * 3600)) as Rate).rate).toBe('610');
    expect(book().leg(q(OCT5 + 86_400 + 25 * 3600 + 1))).toEqual({ missing: 'the latest row (rates.csv:3, 2026-10-06T00:00:00Z) is 25 h 0 min old, more than 25 h 0 min' });
    expect((book().leg(q(OCT5 + 3 * 86_400, 'BNB', 3 * 86_400)) as Rate).rate).toBe('610');
  });

  it('serves a declared peg at any time, and nothing for a token it does not hold', () => {
    const peg = book().leg(q(0, 'USDT')) as Rate;
    expect(peg).toMatchObject({ rate: '1', rateTime: null, rateSource: 'peg:rates.csv:5', zero: false });
    expect(book().leg(q(OCT5, 'USDC'))).toBeUndefined();
    expect(book().has({ chain: 'bsc', token: 'USDC', currency: 'USD', fiat: false })).toBe(false);
    expect(book().has({ chain: 'ethereum', token: 'BNB', currency: 'USD', fiat: false })).toBe(true);
  });

  it('agrees with a brute-force selector on any rows and instants', () => {
    const chains = ['bsc', 'ethereum', '*'];
    const rowArb = fc.record({ time: fc.option(fc.integer({ min: 0, max: 40 }), { freq: 6 }), chain: fc.constantFrom(...chains), token: fc.constantFrom('BNB', 'ETH'), rate: fc.integer({ min: 0, max: 5 }) });
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 14 }), fc.integer({ min: 0, max: 45 }), fc.integer({ min: 0, max: 12 }), fc.constantFrom('bsc', 'ethereum'), fc.constantFrom('BNB', 'ETH'), (drawn, at, maxAge, chain, token) => {
        // Keys must be unique (the parser refuses differing duplicates): keep each key's first.
        const seen = new Set<string>();
        const lines = drawn.filter((r) => {
          const k = `${r.time}|${r.chain}|${r.token}`;
          return !seen.has(k) && seen.add(k);
        });
        const text = file(...lines.map((r) => `${r.time === null ? '*' : `${new Date(r.time * 1000).toISOString().replace('.000Z', 'Z')}`},${r.chain},${r.token},USD,${r.rate},s`));
        const parsed = parseRatesFile(text, 'f');
        const leg: LegQuery = { chain, token, currency: 'USD', at, fiat: false, maxAge };
        const got = new RowBook(parsed, 'f').leg(leg);
        const want = bruteForce(parsed, leg);
        if (want === undefined) expect(got === undefined || 'missing' in got).toBe(true);
        else expect((got as Rate).rateSource).toBe(`${want.peg ? 'peg' : 'file'}:f:${want.line}`);
      }),
      { numRuns: 1500 },
    );
  });

  it('answers a batch of legs of mixed pairs as the brute-force selector answers each', () => {
    // legs() looks a pair's rows up again only when the pair changes, and makes each row's rate once:
    // a batch interleaving pairs, repeating instants, must still get each query's own row.
    const rowArb = fc.record({ time: fc.option(fc.integer({ min: 0, max: 40 }), { freq: 6 }), chain: fc.constantFrom('bsc', 'ethereum', '*'), token: fc.constantFrom('BNB', 'ETH'), rate: fc.integer({ min: 0, max: 5 }) });
    const queryArb = fc.record({ at: fc.integer({ min: 0, max: 45 }), chain: fc.constantFrom('bsc', 'ethereum'), token: fc.constantFrom('BNB', 'ETH', 'BUSD') });
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 14 }), fc.array(queryArb, { maxLength: 30 }), fc.integer({ min: 0, max: 12 }), (drawn, asked, maxAge) => {
        const seen = new Set<string>();
        const lines = drawn.filter((r) => {
          const k = `${r.time}|${r.chain}|${r.token}`;
          return !seen.has(k) && seen.add(k);
        });
        const parsed = parseRatesFile(file(...lines.map((r) => `${r.time === null ? '*' : new Date(r.time * 1000).toISOString().replace('.000Z', 'Z')},${r.chain},${r.token},USD,${r.rate},s`)), 'f');
        const legs: LegQuery[] = asked.map((a) => ({ ...a, currency: 'USD', fiat: false, maxAge }));
        const got = new RowBook(parsed, 'f').legs(legs);
        legs.forEach((leg, i) => {
          const want = bruteForce(parsed, leg);
          if (want === undefined) expect('missing' in got[i]).toBe(true);
          else expect((got[i] as Rate).rateSource).toBe(`${want.peg ? 'peg' : 'file'}:f:${want.line}`);
        });
      }),
      { numRuns: 800 },
    );
  });
});

describe('precedence and the cross through USD', () => {
  function setup() {
    const policy = new RowBook(parseRatesFile(file('2026-10-05,bsc,BNB,USD,600,policy', '2026-10-05,fiat,EUR,USD,1.083,ECB', '2026-10-05,fiat,USD,GBP,0.75,BoE'), 'rates.csv'), 'rates.csv');
    // A stand-in for the feeds, written here: BNB and USDT at fixed rounds.
    const feeds = {
      asked: [] as LegQuery[],
      has: (q: Pick<LegQuery, 'chain' | 'token' | 'currency' | 'fiat'>) => !q.fiat && q.currency === 'USD' && ['BNB', 'USDT'].includes(q.token),
      legs(queries: readonly LegQuery[]) {
        this.asked.push(...queries);
        return queries.map((q) => ({ rate: q.token === 'BNB' ? '612.34' : '0.9998', numerator: q.token === 'BNB' ? '612.34' : '0.9998', denominator: '1', rateTime: OCT5, rateSource: `chainlink:${q.token}`, zero: false }));
      },
      lacks: (q: LegQuery) => (q.token === '8PAY' ? `no feed for 8PAY on ${q.chain}` : undefined),
    };
    return { feeds, rates: new Rates([policy, feeds]) };
  }
  const at = OCT5 + 3600;

  it('lets the file win over the feed, and asks the feed only for what the file lacks', async () => {
    const { feeds, rates } = setup();
    const [bnb, usdt] = await rates.rates([
      { chain: 'bsc', token: 'BNB', currency: 'USD', at },
      { chain: 'bsc', token: 'USDT', currency: 'USD', at },
    ]);
    expect((bnb as Rate).rateSource).toBe('file:rates.csv:2');
    expect((usdt as Rate).rateSource).toBe('chainlink:USDT');
    expect(feeds.asked.map((q) => q.token)).toEqual(['USDT']);
  });

  it('goes through USD once, inverting EUR → USD exactly, and shows the path', async () => {
    const [eur, gbp] = await setup().rates.rates([
      { chain: 'bsc', token: 'USDT', currency: 'EUR', at },
      { chain: 'bsc', token: 'USDT', currency: 'GBP', at },
    ]);
    // 0.9998 ÷ 1.083 has no finite decimal: the rate is its fraction.
    expect(eur).toMatchObject({ rate: '0.9998/1.083', numerator: '0.9998', denominator: '1.083', rateSource: 'chainlink:USDT × 1/file:rates.csv:3', rateTime: OCT5 });
    // 0.9998 × 0.75 = 0.74985.
    expect(gbp).toMatchObject({ rate: '0.74985', numerator: '0.74985', denominator: '1', rateSource: 'chainlink:USDT × file:rates.csv:4' });
  });

  it('says why when no source has the pair', async () => {
    const [pay, jpy] = await setup().rates.rates([
      { chain: 'bsc', token: '8PAY', currency: 'USD', at },
      { chain: 'bsc', token: 'USDT', currency: 'JPY', at },
    ]);
    expect(pay).toEqual({ missing: 'no rate of 8PAY → USD on bsc (no feed for 8PAY on bsc)' });
    expect(isRate(jpy)).toBe(false);
    expect((jpy as { missing: string }).missing).toMatch(/no rate between USD and JPY/);
  });

  it('never inverts a zero', () => {
    const a: Rate = { rate: '2', numerator: '2', denominator: '1', rateTime: 5, rateSource: 'a', zero: false };
    const z: Rate = { rate: '0', numerator: '0', denominator: '1', rateTime: 3, rateSource: 'z', zero: true };
    expect(cross(a, z, true)).toEqual({ missing: 'z is a zero rate, which cannot be inverted' });
    expect(cross(a, z, false)).toMatchObject({ rate: '0', zero: true, rateTime: 3, rateSource: 'a × z' });
  });
});

describe('missing rates', () => {
  it('names each pair with its first and last time and count, and prints one line per day to fill', () => {
    const m = new MissingRates();
    m.add({ chain: 'bsc', token: '8PAY', currency: 'USD', at: OCT5 + 5 }, 'no feed');
    m.add({ chain: 'bsc', token: '8PAY', currency: 'USD', at: OCT5 + 86_400 + 7 }, 'no feed');
    m.add({ chain: 'bsc', token: '8PAY', currency: 'USD', at: OCT5 + 9 }, 'no feed');
    expect(m.lines()).toEqual(['bsc 8PAY → USD: 3 records from 2026-10-05T00:00:05Z to 2026-10-06T00:00:07Z (no feed)']);
    expect(m.toFill()).toEqual([HEADER, '2026-10-05,bsc,8PAY,USD,,', '2026-10-06,bsc,8PAY,USD,,']);
    expect(m.error().exitCode).toBe(11);
    expect(m.report()).toEqual(['no usable rate for:', '  bsc 8PAY → USD: 3 records from 2026-10-05T00:00:05Z to 2026-10-06T00:00:07Z (no feed)', 'lines to fill in a rates file (--rates FILE):', HEADER, '2026-10-05,bsc,8PAY,USD,,', '2026-10-06,bsc,8PAY,USD,,']);
  });
});
