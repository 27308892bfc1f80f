import { randomBytes } from 'node:crypto';

// JSON text of values that may hold BigInts (payrec sql's integers beyond a double's
// exact range), for every format that writes JSON: whole records (json, jsonl) and
// nested values in a cell (csv, table, xlsx).

/**
 * JSON of a value that may hold BigInts: each is written as a JSON number with all its
 * digits (JSON sets no limit; exact parsers such as Python's and jq 1.7's keep them).
 * JSON.stringify cannot write a BigInt, so it writes a marker string in its place,
 * named with a random key no server data can guess, which is then replaced.
 */
export function withBigInts(value: unknown, stringify: (v: unknown) => string): string {
  const found = { any: false };
  const text = stringify(markBigInts(value, found));
  return found.any ? text.replace(BIGINT_MARKED, '$1') : text;
}

function markBigInts(v: unknown, found: { any: boolean }): unknown {
  if (typeof v === 'bigint') {
    found.any = true;
    return `${BIGINT_MARK}${v}`;
  }
  if (Array.isArray(v)) return v.map((x) => markBigInts(x, found));
  if (v === null || typeof v !== 'object') return v;
  // fromEntries defines each key, so a field named __proto__ stays a field.
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, markBigInts(x, found)]));
}

const BIGINT_KEY = randomBytes(8).toString('hex');
const BIGINT_MARK = `\u0000${BIGINT_KEY}:`;
/** The marker as JSON.stringify writes it (NUL escaped), in quotes. */
const BIGINT_MARKED = new RegExp(`"\\\\u0000${BIGINT_KEY}:(-?\\d+)"`, 'g');

/** Compact JSON of a nested value for a cell; BigInts are numbers with all their digits. */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    // The one value JSON.stringify refuses in parsed data; records without one never pay for the walk.
    if (err instanceof TypeError) return withBigInts(value, (v) => JSON.stringify(v));
    throw err;
  }
}
