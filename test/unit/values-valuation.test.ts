import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { rateText, shownValue, sumOf, Total, valueOf } from '../../src/values/valuation.js';

// Oracle: BigInt arithmetic written here (not big.js, which valueOf uses): amount and
// rate as integers over powers of ten, the quotient rounded half to even by hand.

function frac(text: string): { n: bigint; d: bigint } {
  const [w, f = ''] = text.replace('-', '').split('.');
  const n = BigInt(w + f) * (text.startsWith('-') ? -1n : 1n);
  return { n, d: 10n ** BigInt(f.length) };
}

function oracle(amount: string, num: string, den: string): string {
  const a = frac(amount);
  const p = frac(num);
  const q = frac(den);
  // amount × p ÷ q in units of 10^-18
  const top = a.n * p.n * q.d * 10n ** 18n;
  const bottom = a.d * p.d * q.n;
  const neg = top < 0n !== bottom < 0n && top !== 0n;
  const t = top < 0n ? -top : top;
  const b = bottom < 0n ? -bottom : bottom;
  let k = t / b;
  const r2 = (t % b) * 2n;
  if (r2 > b || (r2 === b && k % 2n === 1n)) k += 1n;
  const s = k.toString().padStart(19, '0');
  const text = `${s.slice(0, -18)}.${s.slice(-18)}`.replace(/0+$/, '').replace(/\.$/, '');
  return neg && text !== '0' ? `-${text}` : text;
}

const decimalText = (maxInt: number, maxFrac: number) =>
  fc.tuple(fc.bigInt({ min: 0n, max: 10n ** BigInt(maxInt) - 1n }), fc.integer({ min: 0, max: maxFrac }), fc.bigInt({ min: 0n, max: 10n ** 18n })).map(([w, places, f]) => {
    if (places === 0) return w.toString();
    return `${w}.${(f % 10n ** BigInt(places)).toString().padStart(places, '0')}`;
  });

describe('valueOf', () => {
  it('multiplies exactly and rounds half to even once, at 18 places', () => {
    // 1.5 BNB at 612.34 USD = 918.51 exactly.
    expect(valueOf('1.5', { numerator: '612.34', denominator: '1' })).toBe('918.51');
    // 0.000000000000000001 × 0.5 = 5e-19: a tie, rounded to the even 0.
    expect(valueOf('0.000000000000000001', { numerator: '0.5', denominator: '1' })).toBe('0');
    // 0.000000000000000003 × 0.5 = 1.5e-18: a tie, rounded to the even 2e-18.
    expect(valueOf('0.000000000000000003', { numerator: '0.5', denominator: '1' })).toBe('0.000000000000000002');
    // 10 × 612.34 ÷ 1.083 = 5654.1089566020313942751… → …394275 at 18 places (next digit 1: down).
    expect(valueOf('10', { numerator: '612.34', denominator: '1.083' })).toBe('5654.108956602031394275');
    // 1 ÷ 8 = 0.125 exactly through a denominator.
    expect(valueOf('1', { numerator: '1', denominator: '8' })).toBe('0.125');
    expect(valueOf('0', { numerator: '612.34', denominator: '1' })).toBe('0');
    // Ties through a denominator: 1 ÷ 2e18 = 5e-19 → the even 0; 3 ÷ 2e18 = 1.5e-18 → 2e-18; 5 ÷ 2e18 = 2.5e-18 → 2e-18.
    const half = { numerator: '1', denominator: '2000000000000000000' };
    expect(valueOf('1', half)).toBe('0');
    expect(valueOf('3', half)).toBe('0.000000000000000002');
    expect(valueOf('5', half)).toBe('0.000000000000000002');
    expect(valueOf('-3', half)).toBe('-0.000000000000000002');
    expect(valueOf('-1.5', { numerator: '612.34', denominator: '1' })).toBe('-918.51');
    expect(valueOf('-0.000000000000000001', { numerator: '0.5', denominator: '1' })).toBe('0');
  });

  it('refuses text that is not a plain decimal, and a negative rate', () => {
    const one = { numerator: '1', denominator: '1' };
    expect(() => valueOf('1e3', one)).toThrow(new RangeError('"1e3" is not a plain decimal amount'));
    expect(() => valueOf('', one)).toThrow(new RangeError('"" is not a plain decimal amount'));
    expect(() => valueOf('1', { numerator: '6.1e2', denominator: '1' })).toThrow(new RangeError('"6.1e2" is not a plain decimal rate'));
    expect(() => valueOf('1', { numerator: '612.34', denominator: '-1.083' })).toThrow(new RangeError('"-1.083" is not a plain decimal rate'));
    expect(() => valueOf('1', { numerator: '-612.34', denominator: '1' })).toThrow(new RangeError('"-612.34" is not a plain decimal rate'));
  });

  it('scales up or down by the places of amount, rate and denominator', () => {
    // 18 places × 8 places: 0.000000000000000001 × 0.00000001 = 1e-26, below half a unit: 0.
    expect(valueOf('0.000000000000000001', { numerator: '0.00000001', denominator: '1' })).toBe('0');
    // 0.123456789012345678 × 612.34567891: 123456789012345678 × 61234567891 = 7559823128381344256651425098
    // (by hand, and by Python's int), ÷ 10^26 = 75.598231283813442566|51425098: past half, up.
    expect(valueOf('0.123456789012345678', { numerator: '612.34567891', denominator: '1' })).toBe('75.598231283813442567');
    // A denominator with more places than everything else: 1 ÷ 0.000000000000000000001 = 10^21.
    expect(valueOf('1', { numerator: '1', denominator: '0.000000000000000000001' })).toBe('1000000000000000000000');
  });

  it('equals exact BigInt arithmetic for any amount and rate', () => {
    fc.assert(
      fc.property(decimalText(14, 18), fc.boolean(), decimalText(6, 8), fc.oneof(fc.constant('1'), decimalText(2, 4).filter((d) => /[1-9]/.test(d))), (unsigned, negative, num, den) => {
        // A negative amount (a refund's sign, should a service send one) rounds half to even too.
        const amount = negative && /[1-9]/.test(unsigned) ? `-${unsigned}` : unsigned;
        expect(valueOf(amount, { numerator: num, denominator: den })).toBe(oracle(amount, num, den));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('sums', () => {
  it('adds every digit', () => {
    expect(sumOf(['0.1', '0.2', '0.000000000000000001'])).toBe('0.300000000000000001');
    expect(sumOf([])).toBe('0');
    expect(sumOf(['-0.5', '0.5'])).toBe('0');
    expect(sumOf(['1.10', '2.90'])).toBe('4');
    expect(new Total().text()).toBe('0');
    const t = new Total();
    t.add('918.51');
    t.add('-0.51');
    expect(t.text()).toBe('918');
    expect(t.count).toBe(2);
  });
});

describe('shownValue', () => {
  it('rounds to the minor unit half to even and marks rounding with ~', () => {
    expect(shownValue('918.51', 2)).toBe('918.51');
    expect(shownValue('918.5', 2)).toBe('918.50');
    expect(shownValue('918.515', 2)).toBe('~918.52');
    expect(shownValue('918.525', 2)).toBe('~918.52');
    expect(shownValue('918.525000000000000001', 2)).toBe('~918.53');
    expect(shownValue('1234.4', 0)).toBe('~1234');
    expect(shownValue('0', 2)).toBe('0.00');
  });
});

describe('rateText', () => {
  it('is a plain decimal when the quotient has one, else the fraction of its legs', () => {
    expect(rateText('612.34', '1')).toBe('612.34');
    expect(rateText('612.340', '1')).toBe('612.34');
    expect(rateText('612.34', '1.25')).toBe('489.872');
    expect(rateText('612.34', '1.083')).toBe('612.34/1.083');
    // More than 18 places, kept whole: never rounded to the 18 places of a value.
    expect(rateText('0.1234567890123456789', '1')).toBe('0.1234567890123456789');
    expect(rateText('0.12345678901234567890', '1.0')).toBe('0.1234567890123456789');
    expect(rateText('1.50', '1.083000')).toBe('1.5/1.083');
    // 1 ÷ 1.024 = 1 ÷ (2^10 / 10^3) = 0.9765625: a finite decimal found through a divisor with factors 2 only.
    expect(rateText('1', '1.024')).toBe('0.9765625');
    // 1 ÷ 2^70 has 70 places: more than 18, still exact (2^70 = 1180591620717411303424; 5^70 by BigInt below).
    expect(rateText('1', '1180591620717411303424')).toBe(`0.${(5n ** 70n).toString().padStart(70, '0')}`);
    expect(rateText('0', '1.083')).toBe('0');
    expect(rateText('2.166', '1.083')).toBe('2');
    expect(rateText('1', '3')).toBe('1/3');
    expect(rateText('10', '0.3')).toBe('10/0.3');
  });
});
