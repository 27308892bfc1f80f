import { UNSAFE_CHARACTERS } from '../../registry/unsafe-text.js';
import { grouped } from './grouped.js';

export { hasControlCharacters } from '../../registry/unsafe-text.js';

// Server data is untrusted text. These helpers keep it from acting on the terminal
// that shows it or on the spreadsheet that opens an export.

// The characters neutralised are the registry's unsafe-text rule (registry/unsafe-text.ts):
// the same set is refused in what a user types, so a value that would be neutralised when
// shown has no business being sent.
const UNSAFE_FOR_TERMINAL = new RegExp(UNSAFE_CHARACTERS, 'gu');

const NAMED_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function visibleEscape(c: string): string {
  const code = c.codePointAt(0)!;
  if (NAMED_ESCAPES[c]) return NAMED_ESCAPES[c];
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
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

/** 0-9, A-Z, a-z. */
function startsWithLetterOrDigit(s: string): boolean {
  const c = s.charCodeAt(0); // NaN for '': no range holds it
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** Prefixes `'` to a CSV cell a spreadsheet would run as a formula (OWASP CSV injection). */
export function neutraliseFormula(s: string): string {
  // Most cells (ids, hashes, names, statuses) start with an ASCII letter or digit, which
  // FORMULA_START cannot match: answered without running it (a tenth of an export's rows stage).
  if (startsWithLetterOrDigit(s)) return s;
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

// JSON.stringify escapes C0 controls (a raw one is the indentation's line break) and
// leaves the rest of the set raw. They can only stand inside JSON strings, where \uXXXX
// escapes (a surrogate pair beyond U+FFFF) mean the same character.
function escapeRawInJson(json: string): string {
  return json.replace(UNSAFE_FOR_TERMINAL, (c) => (c < ' ' ? c : [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')));
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
  return `${items.slice(0, max).join(', ')}, … and ${grouped(items.length - max)} more`;
}
