import Big from 'big.js';
import type { Rate } from './rate.js';

// value = amount × rate, exact, rounded half to even to 18 places once per figure
// (DESIGN.md "Values in one currency"). Totals are sums of those rounded figures, so an
// export's lines add up to its total to the last digit. Nothing passes through a float.

/** Places every value keeps (the mirror's DECIMAL(38,18)). */
export const VALUE_PLACES = 18;

/** big.js with its own settings: 18 places, half to even (RM 2), never exponents in text. */
const Exact = Big();
Exact.DP = VALUE_PLACES;
Exact.RM = 2;
Exact.NE = -1e6;
Exact.PE = 1e6;

/** A plain decimal: what amounts and rates are written as (no exponent, no sign but a leading minus). */
const PLAIN = /^-?\d+(\.\d+)?$/;

/**
 * The value of `amount` at `rate`: amount × numerator ÷ denominator, rounded half to even
 * to 18 places, printed with every digit and no padding zeros. A text that is not a
 * plain decimal is a RangeError (the caller names the record). In BigInts of 10^-18 (a
 * list values every record twice: this is its hot path).
 */
export function valueOf(amount: string, rate: Pick<Rate, 'numerator' | 'denominator'>): string {
  if (!PLAIN.test(amount)) throw new RangeError(`"${amount}" is not a plain decimal amount`);
  const [a, ap] = scaled(amount);
  const [n, np] = parsedRate(rate.numerator);
  const [d, dp] = parsedRate(rate.denominator);
  // a/10^ap × n/10^np ÷ (d/10^dp), in units of 10^-18.
  const shift = VALUE_PLACES + dp - ap - np;
  const top = a * n * (shift > 0 ? TEN ** BigInt(shift) : 1n) * (d < 0n ? -1n : 1n);
  const bottom = (d < 0n ? -d : d) * (shift < 0 ? TEN ** BigInt(-shift) : 1n);
  return attoText(bottom === 1n ? top : halfEven(top, bottom));
}

const TEN = 10n;

/** A plain decimal as digits and places: "612.34" → [61234n, 2]. */
function scaled(text: string): [bigint, number] {
  const point = text.indexOf('.');
  return point === -1 ? [BigInt(text), 0] : [BigInt(text.slice(0, point) + text.slice(point + 1)), text.length - point - 1];
}

/** Rates repeat across a list's records: each text is read once. */
const rates = new Map<string, [bigint, number]>();
function parsedRate(text: string): [bigint, number] {
  let r = rates.get(text);
  if (!r) {
    if (!PLAIN.test(text)) throw new RangeError(`"${text}" is not a plain decimal rate`);
    if (rates.size > 100_000) rates.clear();
    rates.set(text, (r = scaled(text)));
  }
  return r;
}

/** n ÷ d (d > 0) rounded half to even. */
function halfEven(n: bigint, d: bigint): bigint {
  const negative = n < 0n;
  const m = negative ? -n : n;
  let q = m / d;
  const twice = (m % d) * 2n;
  if (twice > d || (twice === d && (q & 1n) === 1n)) q += 1n;
  return negative ? -q : q;
}

/** Units of 10^-18 as decimal text: every digit, no padding zeros. */
function attoText(v: bigint): string {
  if (v === 0n) return '0';
  const negative = v < 0n;
  const digits = (negative ? -v : v).toString().padStart(VALUE_PLACES + 1, '0');
  const whole = digits.slice(0, digits.length - VALUE_PLACES);
  const fraction = digits.slice(digits.length - VALUE_PLACES).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** The exact sum of values (decimal texts). */
export function sumOf(values: Iterable<string>): string {
  let sum = new Exact(0);
  for (const v of values) sum = sum.plus(v);
  return text(sum);
}

/** An exact running total of values. */
export class Total {
  private sum = new Exact(0);
  count = 0;
  add(value: string): void {
    this.sum = this.sum.plus(value);
    this.count++;
  }
  text(): string {
    return text(this.sum);
  }
}

/**
 * A value as a table shows it: rounded half to even to the currency's minor unit (2 for
 * USD and EUR), padded to it, and marked `~` when rounding changed it.
 */
export function shownValue(value: string, minorDigits: number): string {
  const v = new Exact(value);
  const shown = v.round(minorDigits, 2);
  return `${shown.eq(v) ? '' : '~'}${shown.toFixed(minorDigits)}`;
}

/**
 * The exact text of numerator ÷ denominator: a plain decimal when the quotient has one
 * (at most 18 places beyond the legs' own), else `numerator/denominator`.
 */
export function rateText(numerator: string, denominator: string): string {
  if (denominator === '1') return text(new Exact(numerator));
  const q = new Exact(numerator).div(denominator);
  return q.times(denominator).eq(numerator) ? text(q) : `${text(new Exact(numerator))}/${text(new Exact(denominator))}`;
}

/** Every digit, no padding zeros, no exponent ("-0" is "0"). */
function text(b: Big): string {
  const s = b.toFixed();
  const trimmed = s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
  return trimmed === '-0' ? '0' : trimmed;
}
