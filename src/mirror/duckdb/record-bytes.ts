import { isUtf8 } from 'node:buffer';

// A list page's records as the service sent them, for DuckDB's JSON reader: the bytes
// inside the top-level "data" array of the response body. Handing DuckDB these bytes
// saves payrec from writing every record out again as JSON (serialising and encoding
// a first sync's records cost more than fetching them), and DuckDB reads a flat array
// of records several times faster than whole pages (a long list inside an object).
//
// Only a body that DuckDB reads exactly as JSON.parse did is handed over: valid UTF-8
// (JSON.parse saw U+FFFD where bytes were invalid) and without surrogate escapes (a
// lone \ud800 is a string to JSON.parse and an error to DuckDB; other escapes, \u0000
// and \u001b included, read the same). Other bodies are written out by payrec.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const DATA_KEY = Buffer.from('"data"');

/**
 * The bytes between the brackets of the body's "data" array (the last "data" key, as
 * JSON.parse keeps the last), or undefined when the body is not one to hand over.
 * `body` must be JSON that JSON.parse accepted: the scan trusts its structure.
 */
export function recordBytes(body: Buffer): Buffer | undefined {
  if (!isUtf8(body) || hasSurrogateEscape(body)) return undefined;
  let i = skipSpace(body, 0);
  if (body[i] !== OPEN_OBJECT) return undefined;
  let data: Buffer | undefined;
  i = skipSpace(body, i + 1);
  while (body[i] === QUOTE) {
    const keyEnd = stringEnd(body, i);
    const isData = keyEnd - i === DATA_KEY.length && body.subarray(i, keyEnd).equals(DATA_KEY);
    i = skipSpace(body, keyEnd);
    if (body[i] !== COLON) return undefined;
    const start = skipSpace(body, i + 1);
    const end = valueEnd(body, start);
    if (isData) data = body[start] === OPEN_ARRAY ? body.subarray(start + 1, end - 1) : undefined;
    i = skipSpace(body, end);
    if (body[i] === COMMA) i = skipSpace(body, i + 1);
  }
  return body[i] === CLOSE_OBJECT ? data : undefined;
}

/** Whether a \uD800–\uDFFF escape may be in the body (an escaped backslash before a u counts too: the answer only needs to be safe). */
export function hasSurrogateEscape(b: Buffer): boolean {
  for (let i = b.indexOf(ESCAPE_U); i >= 0; i = b.indexOf(ESCAPE_U, i + 2)) {
    const high = b[i + 2] | 0x20; // lower case
    const next = b[i + 3] | 0x20;
    if (high === 0x64 /* d */ && ((next >= 0x38 && next <= 0x39) || next === 0x61 || next === 0x62) /* 8-9, a-b */) return true;
  }
  return false;
}

const ESCAPE_U = Buffer.from('\\u');

function skipSpace(b: Buffer, i: number): number {
  while (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09) i++;
  return i;
}

/** The index after the string that opens at `i` (its closing quote is the first not escaped). */
function stringEnd(b: Buffer, i: number): number {
  for (let from = i + 1; ; ) {
    const q = b.indexOf(QUOTE, from);
    if (q < 0) return b.length;
    let backslashes = 0;
    while (b[q - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** The index after the value that starts at `i`. */
function valueEnd(b: Buffer, i: number): number {
  const c = b[i];
  if (c === QUOTE) return stringEnd(b, i);
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    let depth = 0;
    for (let j = i; j < b.length; j++) {
      const d = b[j];
      // Strings are skipped whole (memchr for the quote): brackets inside them do not count.
      if (d === QUOTE) j = stringEnd(b, j) - 1;
      else if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth++;
      else if ((d === CLOSE_OBJECT || d === CLOSE_ARRAY) && --depth === 0) return j + 1;
    }
    return b.length;
  }
  // A number, true, false or null: up to the next delimiter.
  let j = i;
  while (j < b.length && b[j] !== COMMA && b[j] !== CLOSE_OBJECT && b[j] !== CLOSE_ARRAY && b[j] !== 0x20 && b[j] !== 0x0a && b[j] !== 0x0d && b[j] !== 0x09) j++;
  return j;
}
