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
  const value = valuer(rate)(amount);
  if (value === undefined) throw new RangeError(`"${amount}" is not a plain decimal amount`);
  return value;
}

/**
 * A rate made ready to value figures: `valueOf(amount, rate)` as a function of the amount,
 * undefined for a text that is not a plain decimal (a list's record then has no value): the
 * one check of an amount, which a list made twice per figure before.
 */
export type Valuer = (amount: string) => string | undefined;

/**
 * valueOf at one rate, made once per rate text (its texts read once): each figure is then
 * one parse, one product and, past 18 places, one rounding division. Cheap to make: an
 * hourly rates file hands a list tens of thousands of rates, each valuing a few figures.
 */
export function valuer(rate: Pick<Rate, 'numerator' | 'denominator'>): Valuer {
  const { numerator, denominator } = rate;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: when the cache is emptied changes no answer
  if (direct.size + crossed.size > 100_000) {
    direct.clear();
    crossed.clear();
  }
  // Stryker disable next-line ConditionalExpression: both caches make the same valuer
  if (denominator === '1') {
    let v = direct.get(numerator);
    if (!v) direct.set(numerator, (v = made(numerator, denominator)));
    return v;
  }
  let byNumerator = crossed.get(numerator);
  if (!byNumerator) crossed.set(numerator, (byNumerator = new Map()));
  let v = byNumerator.get(denominator);
  if (!v) byNumerator.set(denominator, (v = made(numerator, denominator)));
  return v;
}

/**
 * Valuers by rate text (a cache: it changes no answer): a source may hand out a new rate
 * object for the same rate (a feed's round, judged for each record asking it). Direct
 * rates (denominator 1, most) by their numerator alone.
 */
const direct = new Map<string, Valuer>();
const crossed = new Map<string, Map<string, Valuer>>();

function made(numerator: string, denominator: string): Valuer {
  if (!PLAIN_RATE.test(numerator)) throw new RangeError(`"${numerator}" is not a plain decimal rate`);
  if (!PLAIN_RATE.test(denominator)) throw new RangeError(`"${denominator}" is not a plain decimal rate`);
  const [n, np] = scaled(numerator);
  const [d, dp] = scaled(denominator);
  const isDirect = d === 1n && dp === 0;
  return (amount) => {
    if (!PLAIN.test(amount)) return undefined;
    // Digits and places read apart: a pair made per figure was a fifth of what valuing allocates.
    const point = amount.indexOf('.');
    const a = digitsOf(amount, point);
    const ap = placesOf(amount, point);
    const top = a * n;
    // a/10^ap × n/10^np ÷ (d/10^dp) in units of 10^-18 is top × 10^shift ÷ d.
    const shift = VALUE_PLACES + dp - ap - np;
    // A direct rate's product of at most 18 places is the value exactly: its digits at its own places (the padding zeros are never printed).
    // Stryker disable next-line ConditionalExpression,EqualityOperator: the general path below prints the same digits (a product by 10^shift, a division by 1)
    if (isDirect && shift >= 0) return decimalText(top, VALUE_PLACES - shift);
    // Stryker disable next-line EqualityOperator: at shift 0 both are top ÷ d
    return attoText(shift >= 0 ? halfEven(top * pow10(shift), d) : halfEven(top, d * pow10(-shift)));
  };
}

/** 10^k as a BigInt, each made once. */
const powers: bigint[] = [];
const pow10 = (k: number): bigint => powers[k] ?? (powers[k] = 10n ** BigInt(k));

/** A plain decimal as digits and places: "612.34" → [61234n, 2]. */
function scaled(text: string): [bigint, number] {
  const point = text.indexOf('.');
  return [digitsOf(text, point), placesOf(text, point)];
}

/** The digits of a plain decimal whose point is at `point` (-1: none) as one integer: "612.34" → 61234n. */
const digitsOf = (text: string, point: number): bigint => BigInt(point === -1 ? text : text.slice(0, point) + text.slice(point + 1));

/** The places of a plain decimal whose point is at `point` (-1: none): "612.34" → 2. */
const placesOf = (text: string, point: number): number => (point === -1 ? 0 : text.length - point - 1);

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
  let digits = (negative ? -v : v).toString();
  if (digits.length <= places) digits = digits.padStart(places + 1, '0');
  const point = digits.length - places;
  // The fraction without its padding zeros (a loop: a regular expression per figure cost more).
  let end = digits.length;
  while (end > point && digits.charCodeAt(end - 1) === 48) end--;
  const text = end === point ? digits.slice(0, point) : `${digits.slice(0, point)}.${digits.slice(point, end)}`;
  return negative ? `-${text}` : text;
}

const attoText = (v: bigint) => decimalText(v, VALUE_PLACES);

/** A plain decimal already without padding zeros (what files and feeds mostly write). */
const UNPADDED = /^(0|[1-9]\d*)(\.\d*[1-9])?$/;

/** A plain decimal without padding zeros: "0612.340" → "612.34", so 1.0830 and 1.083 compare equal. */
export const plainDecimal = (text: string) => (UNPADDED.test(text) ? text : decimalText(...scaled(text)));

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
  const bottom = d * pow10(np);
  let top = n * pow10(dp);
  // Stryker disable next-line EqualityOperator: a finite quotient needs fewer places than the divisor has bits, so one more try finds nothing
  for (let places = 0, most = bottom.toString(2).length; places < most; places++, top *= 10n) {
    if (top % bottom === 0n) return decimalText(top / bottom, places);
  }
  return `${plainDecimal(numerator)}/${plainDecimal(denominator)}`;
}
