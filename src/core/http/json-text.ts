import { isAscii } from 'node:buffer';

/**
 * A response body as text for JSON.parse, without paying for UTF-8 decoding.
 *
 * Why: a page is ASCII but for a few strings (names, emoji, hostile text). One such
 * character makes V8 decode the whole body into a two-byte string, about five times
 * slower than copying ASCII (and it parses slower and takes twice the memory). JSON
 * lets any character inside a string be written as a \uXXXX escape, so each run of
 * non-ASCII bytes is decoded alone and written as escapes: the text stays one byte per
 * character and JSON.parse returns the same values. A run right after a backslash
 * could turn an invalid escape into a valid one, so such a body is decoded whole
 * instead. Invalid UTF-8 becomes U+FFFD either way, as a whole-body decode does.
 */
export function jsonText(body: Buffer): string {
  const start = hasBom(body) ? 3 : 0;
  const end = body.length;
  if (isAscii(body)) return body.toString('latin1', start, end);
  let text = '';
  let copied = start;
  // isAscii (vectorised) skips clean blocks; only blocks holding a non-ASCII byte are scanned.
  for (let block = start; block < end; block += BLOCK) {
    const blockEnd = Math.min(block + BLOCK, end);
    if (blockEnd <= copied || isAscii(body.subarray(block, blockEnd))) continue;
    for (let i = Math.max(block, copied); i < blockEnd; i++) {
      if (body[i]! < 0x80) continue;
      if (i > start && body[i - 1] === BACKSLASH) return body.toString('utf8', start, end);
      let runEnd = i + 1;
      while (runEnd < end && body[runEnd]! >= 0x80) runEnd++;
      text += body.toString('latin1', copied, i) + escaped(body.toString('utf8', i, runEnd));
      copied = runEnd;
      i = runEnd - 1;
    }
  }
  return text + body.toString('latin1', copied, end);
}

const BLOCK = 4096;
const BACKSLASH = 0x5c;

function hasBom(body: Buffer): boolean {
  return body.length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
}

function escaped(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * Deepest nesting of JSON payrec accepts (responses, --body, notifications). Records
 * are 3 or 4 levels deep; what goes far beyond would overflow the stack of every
 * recursive step after the parse (JSON.stringify fails between 3,000 and 5,000
 * levels), so it is refused up front.
 */
export const MAX_DEPTH = 512;

/**
 * True when `value` (parsed JSON) nests objects and arrays more than `max` levels
 * deep. Iterative, so the check itself cannot overflow the stack; it visits only
 * objects and arrays (about 0.1 ms for a page of 1000 records, a tenth of its parse).
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: object[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return true;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (child !== null && typeof child === 'object') stack.push(child), depths.push(depth + 1);
      }
    } else {
      for (const key in node) {
        const child: unknown = (node as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') stack.push(child), depths.push(depth + 1);
      }
    }
  }
  return false;
}
