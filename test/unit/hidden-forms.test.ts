import { describe, expect, it } from 'vitest';
import { checkApiPath } from '../../src/commands/api.js';
import { hasControlCharacters, neutraliseTerminal, printable, terminalJson } from '../../src/core/output/sanitize.js';
import { keepSecret, maskSecrets } from '../../src/core/runtime/secrets.js';

// What hides in plain sight (issue 32 items 10, 11, 12): the key in Basic auth at any
// offset, in hex or with every byte percent-encoded; a path segment that servers read as
// `..` or `\`; a token name with an invisible character in it.

const KEY = 'prk_live_Zq8/x+Yt2Lm9Wp4Rs7Vn';
keepSecret(KEY);

describe('maskSecrets: the key in other clothes (item 10)', () => {
  it('Basic auth of user:key, whatever the user\'s length: the key\'s own base64 characters are masked at each offset', () => {
    // Mutant killed: only the key's own base64 (offset 0): the other two offsets printed in full.
    for (const user of ['', 'a', 'ab', 'abc', 'shop']) {
      const basic = Buffer.from(`${user}:${KEY}`).toString('base64');
      const shown = maskSecrets(`401 bad credentials: Basic ${basic}`);
      // What is left cannot be decoded back to more than 3 characters of the key.
      const left = shown.replace('401 bad credentials: Basic ', '').split('****');
      expect(shown, user).toContain('****');
      for (const part of left) expect(Buffer.from(part, 'base64').toString('latin1'), user).not.toMatch(new RegExp(KEY.slice(4, 8).replace(/[+/]/g, '\\$&')));
      // The same in base64url.
      expect(maskSecrets(Buffer.from(`${user}:${KEY}`).toString('base64url')), user).toContain('****');
    }
  });

  it('hex (either case) and every byte percent-encoded (either case)', () => {
    // Mutant killed: encodings() without the hex and every-byte forms (printed in full).
    const hex = Buffer.from(KEY).toString('hex');
    const everyByte = hex.replace(/../g, '%$&');
    for (const form of [hex, hex.toUpperCase(), everyByte, everyByte.toUpperCase()]) expect(maskSecrets(`token=${form}&x=1`), form).toBe('token=****&x=1');
  });
});

describe('checkApiPath: segments servers read as a step up (item 11)', () => {
  it.each(['one-time%5c..%5cadmin', 'one-time%5C..%5Cadmin', 'one-time/..;/admin', '..;/admin', 'one-time/.;/transfers'])('refuses %s', (path) => {
    // Mutant killed: the check without %5c and ..; (the path was sent with the key).
    expect(() => checkApiPath(path)).toThrow(/expected no \. or \.\. segments and no encoded slashes \(nor \.\.; or %5C\)/);
  });
  it('keeps a semicolon elsewhere and ordinary paths', () => {
    expect(checkApiPath('one-time/transfers')).toBe('/one-time/transfers');
    expect(checkApiPath('short-urls/a;b')).toBe('/short-urls/a;b');
  });
});

describe('invisible characters are shown (item 12)', () => {
  it('three token names that print alike as USDT print apart', () => {
    // Mutant killed: the old list of characters (U+2060 and the tag characters reached the terminal raw).
    const tokens = ['USDT', 'USD\u2060T', 'US\u{E0044}T', 'USDT\u00ad', 'US\u115fDT', 'U\u200dSDT'];
    const shown = tokens.map(neutraliseTerminal);
    expect(shown).toEqual(['USDT', 'USD\\u2060T', 'US\\u{e0044}T', 'USDT\\xad', 'US\\u115fDT', 'U\\u200dSDT']);
    for (const t of tokens.slice(1)) expect(hasControlCharacters(t), t).toBe(true);
    // In messages and terminal JSON: escapes that JSON reads back as the same text.
    expect(printable(tokens[2])).toBe('US\\udb40\\udc44T');
    for (const t of tokens) expect(JSON.parse(terminalJson(t))).toBe(t);
  });

  it('emoji keep the joiner and the selector that make them one picture', () => {
    for (const s of ['❤️', '👩🏽‍💻', '🏳️‍🌈']) expect(neutraliseTerminal(s)).toBe(s);
  });
});
