// How the mirror keeps amounts exact.
//
// The API sends amounts as decimal strings with up to 18 fraction digits. The mirror
// stores each as DECIMAL(38,18) under the API's name, so `SUM(amount)`, `ORDER BY
// amount` and `amount > 100` are exact as typed (DuckDB sums DECIMAL(38,18) in 128-bit
// integers and raises on overflow, never wraps), and `SUM` equals --summary digit for
// digit (payrec sql prints decimals without padding zeros, results.ts).
//
// DECIMAL(38,18) holds 20 integer and 18 fraction digits. A value that is not a plain
// decimal string (a JSON number, '1e5', '1.', null, or none at all) or has more digits
// is *inexact*: its
// column holds NULL, its text is kept in the row's `inexact_amounts` (path → text), the
// sync reports it, and the view that users query raises an error for any use of the
// column on that row (layout.ts): a total, a sort or a comparison over it fails loudly
// instead of quietly leaving it out. `WHERE inexact_amounts IS NULL` leaves such rows
// out on purpose; the view `inexact_amounts` lists them all.
//
// Text becomes a DECIMAL in SQL without DuckDB's text-to-DECIMAL cast (about eight
// times slower on a first sync): the digits before and after the point are read as
// integers, joined into 128-bit units of 10^-18, and scaled (decimalSql).

/** Fraction digits DECIMAL(38,18) holds: the most any token the service lists uses. */
export const FRACTION_DIGITS = 18;
/** Integer digits it holds. */
export const INTEGER_DIGITS = 20;

export const DECIMAL_TYPE = `DECIMAL(38,${FRACTION_DIGITS})`;

/** A decimal the column holds exactly. */
const FITS = new RegExp(`^-?[0-9]{1,${INTEGER_DIGITS}}(\\.[0-9]{1,${FRACTION_DIGITS}})?$`);

/**
 * Whether an amount as the API sent it (any JSON value) fits DECIMAL(38,18) exactly.
 * Every amount of the API is required: null (or absent) is not an amount, and stored as
 * NULL without a word it would drop out of every SUM, so it is inexact too.
 */
export function fitsDecimal(value: unknown): boolean {
  return typeof value === 'string' && FITS.test(value);
}


const UNIT = '1' + '0'.repeat(FRACTION_DIGITS);
const SMALLEST = `0.${'0'.repeat(FRACTION_DIGITS - 1)}1`;

/**
 * The DECIMAL(38,18) of an amount's text `a` (an SQL expression of a VARCHAR that the
 * caller checked with fitsDecimal). The sign of the value applies to both parts:
 * '-0.5' is 0 * 10^18 - 500000000000000000 units.
 */
export function decimalSql(a: string): string {
  const sign = `(CASE WHEN starts_with(${a}, '-') THEN -1 ELSE 1 END)`;
  const units = `split_part(${a}, '.', 1)::HUGEINT * ${UNIT} + ${sign} * rpad(split_part(${a}, '.', 2), ${FRACTION_DIGITS}, '0')::BIGINT`;
  return `(${units})::DECIMAL(38,0) * ${SMALLEST}::${DECIMAL_TYPE}`;
}
