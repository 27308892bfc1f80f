// Exact figures for the subscription engine: amounts are read from their decimal text
// into BigInts, divided as rationals and rounded half-even once, to 18 places (the
// "atto" unit, as DECIMAL(38,18) in the mirror). Nothing passes through a JS number.

/** A plain decimal string, as the API sends amounts (the registry's `decimal`). */
export const DECIMAL = /^-?\d+(\.\d+)?$/;

/** Figures are kept as integers of 10^-18 (payrec prints 18 decimals at most). */
export const PLACES = 18;
const ONE = 10n ** BigInt(PLACES);

/** A decimal amount as the exact fraction num / 10^scale; undefined when it is not a plain decimal string. */
export function readDecimal(value: unknown): { num: bigint; den: bigint } | undefined {
  if (typeof value !== 'string' || !DECIMAL.test(value)) return undefined;
  const point = value.indexOf('.');
  if (point === -1) return { num: BigInt(value), den: 1n };
  const fraction = value.length - point - 1;
  return { num: BigInt(value.slice(0, point) + value.slice(point + 1)), den: 10n ** BigInt(fraction) };
}

/** n / d rounded half to even (d ≠ 0): ties go to the even neighbour, as banks and IEEE 754 round. */
export function divHalfEven(n: bigint, d: bigint): bigint {
  if (d < 0n) return divHalfEven(-n, -d);
  const negative = n < 0n;
  const a = negative ? -n : n;
  let q = a / d;
  const twice = (a % d) * 2n;
  if (twice > d || (twice === d && q % 2n === 1n)) q += 1n;
  return negative ? -q : q;
}

/** The fraction num / den in units of 10^-18, rounded half-even. */
export function toAtto(num: bigint, den: bigint): bigint {
  return divHalfEven(num * ONE, den);
}

/** A figure in units of 10^-18 as payrec prints DECIMALs: every digit, no padding zeros ("10", "3.333333333333333333"). */
export function formatAtto(atto: bigint): string {
  return formatDecimal({ num: atto, den: ONE });
}

/** An exact sum of decimal amounts: num / 10^scale (readDecimal's fractions have such denominators). */
export interface DecimalSum {
  num: bigint;
  den: bigint;
}

/** a + b, exactly, over the larger of their denominators (both powers of ten). */
export function addDecimal(a: DecimalSum, b: DecimalSum): DecimalSum {
  if (a.den === b.den) return { num: a.num + b.num, den: a.den };
  return a.den > b.den ? { num: a.num + b.num * (a.den / b.den), den: a.den } : { num: a.num * (b.den / a.den) + b.num, den: b.den };
}

/** A sum as decimal text: every digit, no padding zeros ("10", "0.0000000000000000025"). */
export function formatDecimal({ num, den }: DecimalSum): string {
  const negative = num < 0n;
  const a = negative ? -num : num;
  const places = den.toString().length - 1;
  const fraction = places === 0 ? '' : (a % den).toString().padStart(places, '0').replace(/0+$/, '');
  const text = fraction === '' ? (a / den).toString() : `${a / den}.${fraction}`;
  return negative ? `-${text}` : text;
}

/** A ratio as a decimal fraction with exactly 8 places, rounded half-even; null when the denominator is 0. */
export function ratio(n: bigint, d: bigint): string | null {
  if (d === 0n) return null;
  const q = divHalfEven(n * 100_000_000n, d);
  const negative = q < 0n;
  const a = negative ? -q : q;
  const text = `${a / 100_000_000n}.${(a % 100_000_000n).toString().padStart(8, '0')}`;
  return negative ? `-${text}` : text;
}
