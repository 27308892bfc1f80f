import Big from 'big.js';
import type { Rate } from './rate.js';

// value = amount × rate, exact, rounded half to even to 18 places once per figure
// (DESIGN.md "Values in one currency"). Totals are sums of those rounded figures, so an
// export's lines add up to its total to the last digit. Nothing passes through a float.

/** Places every value keeps (the mirror's DECIMAL(38,18)). */
export const VALUE_PLACES = 18;

/** big.js for sums and a table's rounding (its own constructor: no other module's settings reach it); text is always toFixed()'s, never an exponent. */
const Exact = Big();

/** A plain decimal: what amounts are written as (no exponent, no sign but a leading minus). */
const PLAIN = /^-?\d+(\.\d+)?$/;
/** A rate's text: plain decimal, never negative (a feed's answer ≤ 0 is never a rate). */
const PLAIN_RATE = /^\d+(\.\d+)?$/;

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
  const top = a * n * TEN ** BigInt(Math.max(shift, 0));
  const bottom = d * TEN ** BigInt(Math.max(-shift, 0));
  // Stryker disable next-line ConditionalExpression: halfEven(top, 1n) is top; this only skips a division
  return attoText(bottom === 1n ? top : halfEven(top, bottom));
}

const TEN = 10n;

/** A plain decimal as digits and places: "612.34" → [61234n, 2]. */
function scaled(text: string): [bigint, number] {
  const point = text.indexOf('.');
  return point === -1 ? [BigInt(text), 0] : [BigInt(text.slice(0, point) + text.slice(point + 1)), text.length - point - 1];
}

/** Rates repeat across a list's records: each text is read once (a cache: it changes no answer). */
const rates = new Map<string, [bigint, number]>();
function parsedRate(text: string): [bigint, number] {
  let r = rates.get(text);
  // Stryker disable next-line ConditionalExpression: reading the text again gives the same pair
  if (!r) {
    if (!PLAIN_RATE.test(text)) throw new RangeError(`"${text}" is not a plain decimal rate`);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: when the cache is emptied changes no answer
    if (rates.size > 100_000) rates.clear();
    rates.set(text, (r = scaled(text)));
  }
  return r;
}

/** n ÷ d (d > 0) rounded half to even. */
function halfEven(n: bigint, d: bigint): bigint {
  // Stryker disable next-line EqualityOperator: 0n and -0n are one BigInt
  const negative = n < 0n;
  const m = negative ? -n : n;
  let q = m / d;
  const twice = (m % d) * 2n;
  if (twice > d || (twice === d && (q & 1n) === 1n)) q += 1n;
  return negative ? -q : q;
}

/** Units of 10^-places as decimal text: every digit, no padding zeros. */
function decimalText(v: bigint, places: number): string {
  const negative = v < 0n;
  const digits = (negative ? -v : v).toString().padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  const fraction = digits.slice(digits.length - places).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

const attoText = (v: bigint) => decimalText(v, VALUE_PLACES);

/** A plain decimal without padding zeros: "0612.340" → "612.34", so 1.0830 and 1.083 compare equal. */
export const plainDecimal = (text: string) => decimalText(...scaled(text));

/** The exact sum of values (decimal texts). */
export function sumOf(values: Iterable<string>): string {
  let sum = new Exact(0);
  for (const v of values) sum = sum.plus(v);
  return sum.toFixed();
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
    return this.sum.toFixed();
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
 * The exact text of numerator ÷ denominator (plain decimals, the denominator > 0): a plain
 * decimal when the quotient has a finite one, else `numerator/denominator`.
 */
export function rateText(numerator: string, denominator: string): string {
  // Stryker disable next-line ConditionalExpression,StringLiteral: the search below finds the same text; this skips it for every direct rate
  if (denominator === '1') return plainDecimal(numerator);
  const [n, np] = scaled(numerator);
  const [d, dp] = scaled(denominator);
  // numerator ÷ denominator = n·10^dp ÷ (d·10^np). It has a finite decimal when the part of
  // the divisor prime to 10 divides, and then at most as many places as the divisor has bits.
  const bottom = d * TEN ** BigInt(np);
  let top = n * TEN ** BigInt(dp);
  // Stryker disable next-line EqualityOperator: a finite quotient needs fewer places than the divisor has bits, so one more try finds nothing
  for (let places = 0, most = bottom.toString(2).length; places < most; places++, top *= TEN) {
    if (top % bottom === 0n) return decimalText(top / bottom, places);
  }
  return `${plainDecimal(numerator)}/${plainDecimal(denominator)}`;
}
