import { describe, expect, it } from 'vitest';
import { parseRatesFile } from '../../src/values/rates-file.js';
import { age, isoTime, RowBook, type LegAnswer, type LegQuery, type LegSource } from '../../src/values/selection.js';
import { cross, Rates } from '../../src/values/resolve.js';
import type { Rate } from '../../src/values/rate.js';

// Which row is in force, and how a query becomes one leg or two, with every answer and
// message written whole (docs/values.md "Which rate"). Expected rates are worked by hand.

const HEADER = 'time,chain,token,currency,rate,source';
const book = (name: string, ...lines: string[]) => new RowBook(parseRatesFile([HEADER, ...lines].join('\n'), name), name);
// 2026-10-05T00:00:00Z (2026-01-01 = 1767225600, + 277 days).
const OCT5 = 1_767_225_600 + 277 * 86_400;
const H = 3600;
const leg = (at: number, over: Partial<LegQuery> = {}): LegQuery => ({ chain: 'bsc', token: 'BNB', currency: 'USD', at, fiat: false, maxAge: 25 * H, ...over });

describe('age and isoTime', () => {
  it('says an age in hours and minutes under two days, in days and hours from two days', () => {
    expect(age(0)).toBe('0 h 0 min');
    expect(age(25 * H + 59)).toBe('25 h 0 min');
    expect(age(2 * 86_400 - 1)).toBe('47 h 59 min');
    expect(age(2 * 86_400)).toBe('2 d 0 h');
    expect(age(3 * 86_400 + 4 * H + 59 * 60 + 59)).toBe('3 d 4 h');
    expect(isoTime(OCT5 + 1)).toBe('2026-10-05T00:00:01Z');
  });
});

describe('a rates file as a leg source', () => {
  it('gives the row in force as an exact rate: its text normalised, its digits kept, a zero flagged', () => {
    const b = book('r.csv', '2026-10-05,bsc,BNB,USD,612.3400,a', '2026-10-06,bsc,BNB,USD,0.00,written off', '2026-10-07,bsc,BNB,USD,0.01,b');
    expect(b.leg(leg(OCT5 + 5))).toEqual({ rate: '612.34', numerator: '612.3400', denominator: '1', rateTime: OCT5, rateSource: 'file:r.csv:2', zero: false });
    expect(b.leg(leg(OCT5 + 86_400))).toEqual({ rate: '0', numerator: '0.00', denominator: '1', rateTime: OCT5 + 86_400, rateSource: 'file:r.csv:3', zero: true });
    expect(b.leg(leg(OCT5 + 2 * 86_400))).toMatchObject({ rate: '0.01', zero: false });
  });

  it('prefers the chain\'s own row to a * row of the same second, whichever comes first in the file', () => {
    for (const lines of [
      ['2026-10-05,*,BNB,USD,1,any', '2026-10-05,bsc,BNB,USD,2,own'],
      ['2026-10-05,bsc,BNB,USD,2,own', '2026-10-05,*,BNB,USD,1,any'],
    ]) {
      const b = book('r.csv', ...lines);
      expect((b.leg(leg(OCT5)) as Rate).rate).toBe('2');
      // Another chain has only the * row.
      expect((b.leg(leg(OCT5, { chain: 'ethereum' })) as Rate).rate).toBe('1');
    }
    // A later * row beats an earlier own row: the latest at or before the record wins.
    const b = book('r.csv', '2026-10-05,bsc,BNB,USD,2,own', '2026-10-05T01:00:00Z,*,BNB,USD,1,any');
    expect((b.leg(leg(OCT5 + H)) as Rate).rateSource).toBe('file:r.csv:3');
    expect((b.leg(leg(OCT5 + H - 1)) as Rate).rateSource).toBe('file:r.csv:2');
  });

  it('answers a batch whose pairs change from one query to the next: another currency, or a fiat leg after a token\'s of the same names', () => {
    const b = book('r.csv', '2026-10-05,bsc,BNB,USD,600,a', '2026-10-05,bsc,BNB,EUR,550,b', '2026-10-05,bsc,EUR,USD,2,token EUR', '2026-10-05,fiat,EUR,USD,1.08,ECB');
    const answers = b.legs([leg(OCT5), leg(OCT5, { currency: 'EUR' }), leg(OCT5, { token: 'EUR' }), leg(OCT5, { token: 'EUR', fiat: true }), leg(OCT5)]);
    expect(answers.map((a) => (a as Rate).rateSource)).toEqual(['file:r.csv:2', 'file:r.csv:3', 'file:r.csv:4', 'file:r.csv:5', 'file:r.csv:2']);
  });

  it('merges each chain\'s own rows with the * rows apart from another chain\'s', () => {
    const b = book('r.csv', '2026-10-05,bsc,BNB,USD,1,bsc', '2026-10-05,ethereum,BNB,USD,2,eth', '2026-10-05,*,BNB,USD,3,any', '2026-10-06,*,BNB,USD,4,any');
    for (let i = 0; i < 2; i++) {
      expect((b.leg(leg(OCT5, { chain: 'bsc' })) as Rate).rate).toBe('1');
      expect((b.leg(leg(OCT5, { chain: 'ethereum' })) as Rate).rate).toBe('2');
      expect((b.leg(leg(OCT5, { chain: 'polygon' })) as Rate).rate).toBe('3');
      expect((b.leg(leg(OCT5 + 86_400, { chain: 'bsc' })) as Rate).rate).toBe('4');
    }
  });

  it('serves a peg when no dated row is in force, the chain\'s own peg first', () => {
    const b = book('r.csv', '*,*,USDT,USD,1,any peg', '*,bsc,USDT,USD,0.999,own peg', '2026-10-05,*,USDT,USD,1.002,dated');
    expect(b.leg(leg(OCT5 - 1, { token: 'USDT' }))).toEqual({ rate: '0.999', numerator: '0.999', denominator: '1', rateTime: null, rateSource: 'peg:r.csv:3', zero: false });
    expect((b.leg(leg(OCT5 - 1, { token: 'USDT', chain: 'polygon' })) as Rate).rateSource).toBe('peg:r.csv:2');
    expect((b.leg(leg(OCT5 + 25 * H, { token: 'USDT' })) as Rate).rateSource).toBe('file:r.csv:4');
    expect((b.leg(leg(OCT5 + 25 * H + 1, { token: 'USDT' })) as Rate).rateSource).toBe('peg:r.csv:3');
  });

  it('says why no row serves: too old, or after the record; and what it does not hold', () => {
    const b = book('r.csv', '2026-10-05,bsc,BNB,USD,600,a', '2026-10-08,bsc,BNB,USD,610,b');
    expect(b.leg(leg(OCT5 + 2 * 86_400 + 5 * H))).toEqual({ missing: 'the latest row (r.csv:2, 2026-10-05T00:00:00Z) is 2 d 5 h old, more than 25 h 0 min' });
    expect(b.leg(leg(OCT5 - 1))).toEqual({ missing: 'the first row (r.csv:2) is from 2026-10-05T00:00:00Z, after the record' });
    expect(b.leg(leg(OCT5, { token: 'ETH' }))).toBeUndefined();
    expect(b.legs([leg(OCT5 + 1), leg(OCT5, { token: 'ETH' })])).toEqual([
      { rate: '600', numerator: '600', denominator: '1', rateTime: OCT5, rateSource: 'file:r.csv:2', zero: false },
      { missing: 'r.csv has no rate of ETH → USD' },
    ]);
  });

  it('keeps token rows and fiat rows apart', () => {
    const b = book('r.csv', '2026-10-05,bsc,EUR,USD,9,a token named EUR', '2026-10-05,fiat,EUR,USD,1.083,ECB');
    const fiat = { chain: 'bsc', token: 'EUR', currency: 'USD', fiat: true };
    expect(b.has(fiat)).toBe(true);
    expect(b.has({ ...fiat, fiat: false })).toBe(true);
    expect(b.has({ ...fiat, chain: 'ethereum', fiat: false })).toBe(false);
    expect((b.leg(leg(OCT5, { token: 'EUR', fiat: true, maxAge: 5 * 86_400 })) as Rate).rate).toBe('1.083');
    expect((b.leg(leg(OCT5, { token: 'EUR' })) as Rate).rate).toBe('9');
    expect(book('r.csv', '2026-10-05,*,EUR,USD,9,a').has(fiat)).toBe(false);
  });
});

/** A leg source written here: the rates it holds by `token→currency` (fiat legs marked `fiat:`), recording each batch asked. */
function source(name: string, held: Record<string, Omit<Rate, 'rateSource' | 'numerator' | 'denominator'> & { numerator?: string; denominator?: string } | string>, lacks?: (q: LegQuery) => string | undefined) {
  const batches: LegQuery[][] = [];
  const keyOf = (q: Pick<LegQuery, 'token' | 'currency' | 'fiat'>) => `${q.fiat ? 'fiat:' : ''}${q.token}→${q.currency}`;
  const s: LegSource & { batches: LegQuery[][] } = {
    batches,
    has: (q) => keyOf(q) in held,
    legs(queries) {
      batches.push([...queries]);
      return queries.map((q): LegAnswer => {
        const h = held[keyOf(q)];
        if (typeof h === 'string') return { missing: h };
        return { numerator: h.rate, denominator: '1', ...h, rateSource: `${name}:${keyOf(q)}` };
      });
    },
    lacks,
  };
  return s;
}

const rate = (r: string, rateTime: number | null = OCT5, zero = false) => ({ rate: r, rateTime, zero });

describe('precedence per leg', () => {
  const q = (token: string, currency: string, at = OCT5 + H) => ({ chain: 'bsc', token, currency, at });

  it('asks each source once per batch, with every leg it decides, in the order of the queries', async () => {
    const file = source('file', { 'BNB→USD': rate('600') });
    const feeds = source('feed', { 'BNB→USD': rate('612.34'), 'USDT→USD': rate('0.9998'), 'fiat:EUR→USD': rate('1.083') });
    const answers = await new Rates([file, feeds]).rates([q('USDT', 'USD'), q('BNB', 'USD'), q('BNB', 'EUR'), q('USDT', 'USD', OCT5 + 2 * H)]);
    expect(answers.map((a) => ('rateSource' in a ? a.rateSource : a.missing))).toEqual(['feed:USDT→USD', 'file:BNB→USD', 'file:BNB→USD × 1/feed:fiat:EUR→USD', 'feed:USDT→USD']);
    expect(file.batches.map((b) => b.map((l) => `${l.token}@${l.at - OCT5}`))).toEqual([['BNB@3600', 'BNB@3600']]);
    expect(feeds.batches.map((b) => b.map((l) => `${l.token}@${l.at - OCT5}`))).toEqual([['USDT@3600', 'EUR@3600', 'USDT@7200']]);
  });

  it('gives each leg its max age: the token\'s, or the currency leg\'s', async () => {
    const feeds = source('feed', { 'BNB→USD': rate('612.34'), 'fiat:EUR→USD': rate('1.083') });
    await new Rates([feeds], { token: 7, fiat: 11 }).rates([q('BNB', 'EUR')]);
    expect(feeds.batches).toEqual([
      [
        { chain: 'bsc', token: 'BNB', currency: 'USD', at: OCT5 + H, fiat: false, maxAge: 7 },
        { chain: 'bsc', token: 'EUR', currency: 'USD', at: OCT5 + H, fiat: true, maxAge: 11 },
      ],
    ]);
  });

  it('takes a direct rate to the currency before any cross, and asks nothing when nothing can answer', async () => {
    const s = source('s', { 'BNB→EUR': rate('565'), 'BNB→USD': rate('612.34'), 'fiat:EUR→USD': rate('1.083') });
    expect(await new Rates([s]).rates([q('BNB', 'EUR')])).toEqual([{ rate: '565', numerator: '565', denominator: '1', rateTime: OCT5, zero: false, rateSource: 's:BNB→EUR' }]);
    const none = source('none', {});
    expect(await new Rates([none]).rates([q('BNB', 'USD')])).toEqual([{ missing: 'no rate of BNB → USD on bsc' }]);
    expect(none.batches).toEqual([]);
  });

  it('takes USD → currency as written, or currency → USD inverted, from the first source holding either', async () => {
    const forward = source('fwd', { 'fiat:USD→EUR': rate('0.92') });
    const backward = source('bwd', { 'BNB→USD': rate('612.34'), 'fiat:EUR→USD': rate('1.25') });
    // 612.34 × 0.92 = 563.3528, by hand.
    expect(await new Rates([forward, backward]).rates([q('BNB', 'EUR')])).toEqual([{ rate: '563.3528', numerator: '563.3528', denominator: '1', rateTime: OCT5, rateSource: 'bwd:BNB→USD × fwd:fiat:USD→EUR', zero: false }]);
    // 612.34 ÷ 1.25 = 489.872, by hand: a finite decimal, written as one.
    expect(await new Rates([backward, forward]).rates([q('BNB', 'EUR')])).toEqual([{ rate: '489.872', numerator: '612.34', denominator: '1.25', rateTime: OCT5, rateSource: 'bwd:BNB→USD × 1/bwd:fiat:EUR→USD', zero: false }]);
  });

  it('says which pair is missing, with what each source would need', async () => {
    const file = source('file', {}, (l) => (l.fiat ? undefined : `the file has no ${l.token}`));
    const feeds = source('feed', { 'USDT→USD': rate('0.9998') }, (l) => `no feed of ${l.token} on ${l.chain}`);
    const answers = await new Rates([file, feeds]).rates([q('8PAY', 'USD'), q('8PAY', 'EUR'), q('USDT', 'JPY')]);
    expect(answers).toEqual([
      { missing: 'no rate of 8PAY → USD on bsc (the file has no 8PAY; no feed of 8PAY on bsc)' },
      { missing: 'no rate of 8PAY → USD on bsc (the file has no 8PAY; no feed of 8PAY on bsc)' },
      { missing: 'USDT has a rate in USD, but there is no rate between USD and JPY: no rate of JPY → USD (no feed of JPY on bsc)' },
    ]);
  });

  it('passes on why a leg has no rate in force: the first leg\'s, else the second\'s', async () => {
    const s = source('s', { 'BNB→USD': 'BNB too old', 'USDT→USD': rate('0.9998'), 'fiat:EUR→USD': 'EUR too old', 'fiat:GBP→USD': rate('1.25') });
    const answers = await new Rates([s]).rates([q('BNB', 'GBP'), q('USDT', 'EUR'), q('BNB', 'EUR')]);
    expect(answers).toEqual([{ missing: 'BNB too old' }, { missing: 'EUR too old' }, { missing: 'BNB too old' }]);
  });
});

describe('rates at hand (a rates file, looked up as the engine asks)', () => {
  const file = () => book('r.csv', '2026-10-04,bsc,BNB,USD,590,z', '2026-10-05,bsc,BNB,USD,600,a', '2026-10-05,fiat,USD,GBP,0.75,BoE', '2026-10-05,fiat,EUR,USD,1.25,ECB');
  const asked = (rates: Rates, token: string, currency: string, at: number) => rates.rates([{ chain: 'bsc', token, currency, at }]).then((a) => a[0]);

  it('a cross through USD, as written or inverted, is the one rates() gives; a leg missing at an instant is passed on, the first\'s before the second\'s', async () => {
    const rates = new Rates([file()]);
    const gbp = rates.atHand('bsc', 'BNB', 'GBP')!;
    const eur = rates.atHand('bsc', 'BNB', 'EUR')!;
    // 600 × 0.75 = 450 and 600 ÷ 1.25 = 480, by hand; USD → GBP is a fiat row, not a token's.
    expect(gbp(OCT5 + H)).toMatchObject({ rate: '450', rateSource: 'file:r.csv:3 × file:r.csv:4' });
    expect(eur(OCT5 + H)).toMatchObject({ rate: '480', rateSource: 'file:r.csv:3 × 1/file:r.csv:5' });
    // The day before: BNB's row of the 4th is in force, no currency row yet (the second leg missing); before the 4th, BNB's (the first).
    for (const at of [OCT5 + H, OCT5 - 1, OCT5 - 2 * 86_400]) {
      expect(gbp(at)).toEqual(await asked(rates, 'BNB', 'GBP', at));
      expect(eur(at)).toEqual(await asked(rates, 'BNB', 'EUR', at));
    }
    expect(gbp(OCT5 - 1)).toEqual({ missing: 'the first row (r.csv:4) is from 2026-10-05T00:00:00Z, after the record' });
    expect(gbp(OCT5 - 2 * 86_400)).toEqual({ missing: 'the first row (r.csv:2) is from 2026-10-04T00:00:00Z, after the record' });
    // The same cross object for the same pair of rows.
    expect(gbp(OCT5 + H)).toBe(gbp(OCT5 + 2 * H));
  });

  it('a pair no source holds is missing at every instant; a leg whose source must be read (Chainlink) is not at hand', async () => {
    const rates = new Rates([file()]);
    const none = rates.atHand('bsc', 'CAKE', 'GBP')!;
    expect(none(OCT5)).toEqual(await asked(rates, 'CAKE', 'GBP', OCT5));
    expect(none(OCT5)).toEqual({ missing: expect.stringContaining('CAKE') });
    const feeds = source('feed', { 'fiat:USD→JPY': rate('150') });
    expect(new Rates([file(), feeds]).atHand('bsc', 'BNB', 'JPY')).toBeUndefined();
    expect(new Rates([feeds, file()]).atHand('bsc', 'BNB', 'JPY')).toBeUndefined();
    expect(new Rates([source('feed', { 'BNB→USD': rate('612.34') }), file()]).atHand('bsc', 'BNB', 'GBP')).toBeUndefined();
  });
});

describe('the cross of two legs', () => {
  const a: Rate = { rate: '612.34', numerator: '612.34', denominator: '1', rateTime: 500, rateSource: 'a', zero: false };

  it('multiplies numerators and denominators exactly, the older leg\'s time, the path shown', () => {
    const b: Rate = { rate: '0.92', numerator: '0.92', denominator: '1', rateTime: 400, rateSource: 'b', zero: false };
    expect(cross(a, b, false)).toEqual({ rate: '563.3528', numerator: '563.3528', denominator: '1', rateTime: 400, rateSource: 'a × b', zero: false });
    // Inverted: 612.34 ÷ 1.083 has no finite decimal.
    const eur: Rate = { rate: '1.083', numerator: '1.083', denominator: '1', rateTime: 600, rateSource: 'e', zero: false };
    expect(cross(a, eur, true)).toEqual({ rate: '612.34/1.083', numerator: '612.34', denominator: '1.083', rateTime: 500, rateSource: 'a × 1/e', zero: false });
    // Two legs that are themselves fractions: (3/7) × 1/(5/11) = 33/35, as 3 × 11 over 7 × 5.
    const f: Rate = { rate: '3/7', numerator: '3', denominator: '7', rateTime: null, rateSource: 'f', zero: false };
    const g: Rate = { rate: '5/11', numerator: '5', denominator: '11', rateTime: null, rateSource: 'g', zero: false };
    expect(cross(f, g, true)).toEqual({ rate: '33/35', numerator: '33', denominator: '35', rateTime: null, rateSource: 'f × 1/g', zero: false });
    expect(cross(f, g, false)).toEqual({ rate: '15/77', numerator: '15', denominator: '77', rateTime: null, rateSource: 'f × g', zero: false });
    // A peg's time is none: the other leg's counts.
    expect((cross(f, eur, false) as Rate).rateTime).toBe(600);
    expect((cross(a, g, false) as Rate).rateTime).toBe(500);
  });

  it('flags a zero leg, and never inverts one', () => {
    const z: Rate = { rate: '0', numerator: '0', denominator: '1', rateTime: 3, rateSource: 'z', zero: true };
    expect(cross(a, z, true)).toEqual({ missing: 'z is a zero rate, which cannot be inverted' });
    expect(cross(a, z, false)).toEqual({ rate: '0', numerator: '0', denominator: '1', rateTime: 3, rateSource: 'a × z', zero: true });
    expect(cross(z, a, true)).toEqual({ rate: '0', numerator: '0', denominator: '612.34', rateTime: 3, rateSource: 'z × 1/a', zero: true });
  });
});
