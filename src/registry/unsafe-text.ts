// The one rule of unsafe text: the characters payrec refuses in what a user types
// (validators.ts typedText) and neutralises in what it shows (core/output/sanitize.ts).
//
// Controls (Cc: C0 with \t, \n, \r, DEL, C1 with 8-bit CSI \x9b and OSC \x9d), every
// format character (Cf: the bidi embeddings, overrides, isolates and marks that make
// text read in another order than it is stored, zero-width spaces and joiners, word
// joiners, tag characters that spell text nobody sees), the other characters Unicode
// says to show as nothing (Hangul fillers, variation selectors), and the line and
// paragraph separators that some terminals treat as line breaks. Invisible, each could
// make two values that differ look alike ("USDT" and "USD\u2060T").
// Emoji keep the joiner and the presentation selector that make them one picture (👩‍👧, ❤️).
const EMOJI_PART = '(?<=\\p{Extended_Pictographic}[\\u{1F3FB}-\\u{1F3FF}\\ufe0f]?)\\u200d(?=\\p{Extended_Pictographic})|(?<=\\p{Extended_Pictographic})\\ufe0f';

/** One unsafe character, as a regular expression's source (flag `u`). */
export const UNSAFE_CHARACTERS = `(?!${EMOJI_PART})[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}]`;
const HAS_UNSAFE = new RegExp(UNSAFE_CHARACTERS, 'u');

/** True when `s` holds a character that neutraliseTerminal() would escape. */
export function hasControlCharacters(s: string): boolean {
  return HAS_UNSAFE.test(s);
}
