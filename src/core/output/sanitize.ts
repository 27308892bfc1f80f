// Server data is untrusted text. These helpers keep it from acting on the terminal
// that shows it or on the spreadsheet that opens an export.

// C0 controls (with \t, \n, \r), DEL, C1 controls (8-bit CSI \x9b and OSC \x9d
// among them), the bidi embedding/override/isolate characters and marks (LRM U+200E,
// RLM U+200F, ALM U+061C) that can make text read in a different order than it is
// stored, the zero-width space (U+200B) that hides a difference between two values
// that look alike, and the Unicode line/paragraph separators that some terminals treat
// as line breaks.
// The same set is refused in what a user types (validators.ts): a value that would be
// neutralised when shown has no business being sent.
const UNSAFE_CHARACTERS = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200b\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029';
const UNSAFE_FOR_TERMINAL = new RegExp(`[${UNSAFE_CHARACTERS}]`, 'g');
const HAS_UNSAFE = new RegExp(`[${UNSAFE_CHARACTERS}]`);

/** True when `s` holds a character that neutraliseTerminal() would escape. */
export function hasControlCharacters(s: string): boolean {
  return HAS_UNSAFE.test(s);
}

const NAMED_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function visibleEscape(c: string): string {
  const code = c.charCodeAt(0);
  return NAMED_ESCAPES[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
}

/**
 * Makes server text inert on a terminal. Every unsafe character becomes a visible
 * escape (`\n`, `\t`, `\x1b`, `\u202e`) rather than being dropped: once the ESC (or
 * 8-bit CSI/OSC) byte is escaped, the rest of any escape sequence is plain printable
 * text, so nothing can move the cursor, set the title or change colours, and the
 * reader still sees that the server sent something odd. Line breaks and tabs become
 * `\n`/`\t` too, so every record stays on one line and columns stay aligned.
 */
export function neutraliseTerminal(s: string): string {
  return s.replace(UNSAFE_FOR_TERMINAL, visibleEscape);
}

// Amounts are decimal strings such as "-12.5": they are data, not formulas, and a
// leading quote would corrupt them, so they are left alone. A decimal cannot invoke
// a function or reference, so letting it through carries no injection risk.
const DECIMAL = /^-?\d+(\.\d+)?$/;

// OWASP's list (= + - @ tab CR), plus the full-width = + - @ that some spreadsheets
// (Apple Numbers) normalise to their ASCII forms before evaluating, also after
// leading white space (a space, a line break, a no-break space, a zero-width space):
// spreadsheets skip it before they look for a formula.
const FORMULA_START = /^(?:[\t\r]|[\s\u200b\ufeff]*[=+\-@\uff1d\uff0b\uff0d\uff20])/;

/** Prefixes `'` to a CSV cell a spreadsheet would run as a formula (OWASP CSV injection). */
export function neutraliseFormula(s: string): string {
  if (!FORMULA_START.test(s) || DECIMAL.test(s)) return s;
  return `'${s}`;
}

/**
 * Shortens the middle of a long value to `max` characters, keeping both ends
 * recognisable: `0x57b2…6bf7` at 11. The head gets the extra character, so a hex
 * value keeps its `0x` plus as many digits as its tail.
 */
export function shortenMiddle(s: string, max: number): string {
  if (s.length <= max) return s;
  const chars = Array.from(s); // code points, so a surrogate pair is never cut in half
  if (chars.length <= max) return s;
  if (max <= 1) return '…'.slice(0, Math.max(0, max));
  const head = Math.min(max - 1, Math.ceil((max - 1) / 2) + 1);
  const tail = max - 1 - head;
  return chars.slice(0, head).join('') + '…' + (tail > 0 ? chars.slice(-tail).join('') : '');
}

/** Longest part of a user's value quoted back in a message. */
const SHOWN_CHARS = 80;

/**
 * Shows a user's value in a message without letting it break the terminal; an
 * oversize value is cut (its length said), so one bad flag cannot flood stderr.
 */
export function printable(s: string): string {
  const shown = s.length > SHOWN_CHARS ? `${s.slice(0, SHOWN_CHARS)}… (${s.length} characters)` : s;
  return escapeRawInJson(JSON.stringify(shown).slice(1, -1));
}

// JSON.stringify escapes C0 controls; DEL, C1 (8-bit CSI/OSC), bidi overrides and
// marks, the zero-width space and line separators it leaves raw. They can only stand
// inside JSON strings, where a \uXXXX escape means the same character.
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeRawInJson(json: string): string {
  return json.replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * JSON of server data for a terminal: the same document JSON.stringify writes (it
 * parses to the same value), with every character that could act on a terminal
 * written as a \uXXXX escape.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return escapeRawInJson(JSON.stringify(value, null, indent));
}

/** Most items a message lists; the rest are counted. */
const LISTED_ITEMS = 10;

/**
 * Items joined for a message, the first few only: "a, b, c, … and 9,990 more". A
 * server can send any number of odd fields; one warning must stay one readable line.
 */
export function firstOf(items: readonly string[], max = LISTED_ITEMS): string {
  if (items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')}, … and ${(items.length - max).toLocaleString('en-US')} more`;
}
