// How the mirror keeps amounts exact.
//
// The API sends amounts as decimal strings with up to 18 fraction digits, and some
// have 25–30 integer digits: up to 48 significant digits in one value. No DuckDB
// DECIMAL holds that (its widest is 38 digits), DOUBLE rounds, and BIGNUM holds only
// integers (a cast of '12.5' to BIGNUM quietly gives 12) and sums slowly (0.5 s a
// million rows, against 0.06 s for the integer types on the same machine).
//
// So every amount field keeps two columns:
//   amount        VARCHAR  the text exactly as the API sent it (what --format json prints);
//   amount_exact  STRUCT(whole DECIMAL(38,0), frac BIGINT)
//                 the same value split at the decimal point: `whole` the integer part
//                 (38 digits), `frac` the fraction in units of 10^-18, with the sign of
//                 the value. value = whole + frac / 10^18, exactly.
// `exact_sum(amount_exact)` adds both parts in 128-bit integers (an overflow is an
// error, never a wrap) and joins them into a decimal string written as --summary
// writes it (big.js toFixed: no exponent, no trailing zeros): digit for digit equal.
// Plain `SUM(amount)` is refused by DuckDB (no SUM of VARCHAR), and so is comparing the
// text with a number: a mistake is an error, not a wrong total. Texts sort as texts, so
// `exact_value(text)` gives the number itself (a BIGNUM of 10^-18 units) to sort or
// compare amounts and totals exactly: ORDER BY exact_value(exact_sum(amount_exact)).
//
// A value that does not fit (more than 18 fraction digits, more than 38 integer
// digits, or not a decimal at all) keeps its text in `amount`, gets
// `{whole: NULL, frac: NULL}` in `amount_exact`, is reported by the sync, is listed by
// the view `inexact_amounts`, and makes exact_sum fail with an error rather than
// leave it out. (A missing amount is a NULL struct and, as in --summary, adds nothing.)
// The integer parts are DECIMAL(38,0) rather than HUGEINT because Parquet writers
// turn HUGEINT into DOUBLE; DECIMAL(38,0) reaches Spark, Trino and BigQuery intact.

/** Fraction digits the exact form holds: the most any token the service lists uses. */
export const FRACTION_DIGITS = 18;

export const EXACT_SUFFIX = '_exact';

export const EXACT_TYPE = 'STRUCT(whole DECIMAL(38,0), frac BIGINT)';

const UNIT = '1' + '0'.repeat(FRACTION_DIGITS);

/** A decimal the exact form can hold: up to 38 integer digits and FRACTION_DIGITS decimals. */
const HOLDABLE = new RegExp(`^-?[0-9]{1,38}(\\.[0-9]{1,${FRACTION_DIGITS}})?$`);

/** Whether the exact form holds an amount's text. */
export function isHoldable(text: string): boolean {
  return HOLDABLE.test(text);
}

/**
 * The exact parts of an amount's text, as digits (DuckDB reads them into integers), or
 * undefined when the exact form cannot hold it. '-12.5' gives whole '-12' and frac
 * '-500000000000000000': the sign of the value lives in both parts ('-0.5': whole '0').
 */
export function exactDigits(text: string): { whole: string; frac: string } | undefined {
  if (!isHoldable(text)) return undefined;
  const negative = text.charCodeAt(0) === 45; /* - */
  const dot = text.indexOf('.');
  const whole = trimZeros(text.slice(negative ? 1 : 0, dot < 0 ? text.length : dot));
  const frac = dot < 0 ? '0' : trimZeros(text.slice(dot + 1).padEnd(FRACTION_DIGITS, '0'));
  return negative ? { whole: whole === '0' ? '0' : '-' + whole, frac: frac === '0' ? '0' : '-' + frac } : { whole, frac };
}

/** Digits without leading zeros (DuckDB's strict JSON reader takes no '007'). */
function trimZeros(digits: string): string {
  let i = 0;
  while (i < digits.length - 1 && digits.charCodeAt(i) === 48) i++;
  return i === 0 ? digits : digits.slice(i);
}

/**
 * SQL macros stored in the mirror (so the DuckDB CLI and any other client can use
 * them too): `exact_sum`, the one exact total users call, and the text it returns.
 */
export const AMOUNT_MACROS: readonly string[] = [
  // The text of w + f/10^18 (integers, |f| may exceed 10^18). Each step binds its values
  // once through a one-element list_transform: a macro repeats its arguments where they
  // are used, and repeated aggregates made planning alone take 50 ms.
  `CREATE OR REPLACE MACRO payrec_decimal_text(w, f) AS list_transform(
    [struct_pack(n := w + f // ${UNIT}, r := f % ${UNIT})],
    -- borrow one unit where the signs differ, so both parts carry the value's sign
    lambda p: list_transform(
      [struct_pack(
        n := p.n - (p.n > 0 AND p.r < 0)::INTEGER + (p.n < 0 AND p.r > 0)::INTEGER,
        r := p.r + ((p.n > 0 AND p.r < 0)::INTEGER - (p.n < 0 AND p.r > 0)::INTEGER) * ${UNIT})],
      lambda q: CASE WHEN q.n IS NULL OR q.r IS NULL THEN NULL ELSE
        (CASE WHEN q.n < 0 OR q.r < 0 THEN '-' ELSE '' END) || abs(q.n)::VARCHAR ||
        (CASE WHEN q.r = 0 THEN '' ELSE '.' || rtrim(lpad(abs(q.r)::VARCHAR, ${FRACTION_DIGITS}, '0'), '0') END) END)[1])[1]`,
  `CREATE OR REPLACE MACRO exact_value(t) AS (
    CASE WHEN t IS NULL THEN NULL
    WHEN regexp_full_match(t, '-?[0-9]+(\\.[0-9]{1,${FRACTION_DIGITS}})?')
    THEN (split_part(t, '.', 1) || rpad(split_part(t, '.', 2), ${FRACTION_DIGITS}, '0'))::BIGNUM
    ELSE error('exact_value: "' || t || '" is not a decimal with at most ${FRACTION_DIGITS} decimals') END)`,
  `CREATE OR REPLACE MACRO exact_sum(x) AS (
    CASE WHEN count(x) > count(x.whole)
    THEN error('exact_sum: ' || (count(x) - count(x.whole)) || ' of the amounts cannot be held exactly (their text is kept; see SELECT * FROM inexact_amounts)')
    ELSE payrec_decimal_text(sum(x.whole)::HUGEINT, sum(x.frac)::HUGEINT) END)`,
];
