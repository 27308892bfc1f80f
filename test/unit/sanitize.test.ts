import { describe, expect, it } from 'vitest';
import { firstOf, neutraliseFormula, neutraliseTerminal, shortenMiddle, terminalJson } from '../../src/core/output/sanitize.js';

describe('neutraliseTerminal', () => {
  it('leaves ordinary text, emoji and right-to-left scripts alone', () => {
    for (const s of ['Coffee, "large" ☕', 'مرحبا بالعالم', 'שלום', '🎉👩‍👩‍👧', '']) expect(neutraliseTerminal(s)).toBe(s);
  });

  it('turns line breaks and tabs into visible escapes, so a record stays on one line', () => {
    expect(neutraliseTerminal('a\nb\r\nc\td')).toBe('a\\nb\\r\\nc\\td');
  });

  it('defuses CSI, OSC and other escape sequences', () => {
    const hostile = '\x1b[2J\x1b[31mred\x1b]0;pwned\x07\x1b]8;;http://evil\x1b\\link\x1bc\x9b31m\x9d0;t\x9c';
    const safe = neutraliseTerminal(hostile);
    expect(safe).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(safe).toBe('\\x1b[2J\\x1b[31mred\\x1b]0;pwned\\x07\\x1b]8;;http://evil\\x1b\\link\\x1bc\\x9b31m\\x9d0;t\\x9c');
  });

  it('escapes every C0 and C1 control character and DEL', () => {
    for (let code = 0; code <= 0x9f; code++) {
      if (code >= 0x20 && code < 0x7f) continue;
      expect(neutraliseTerminal(String.fromCharCode(code))).toMatch(/^\\(x[0-9a-f]{2}|[nrt])$/);
    }
  });

  it('neutralises the bidi marks (LRM, RLM, ALM) and the zero-width space, in text and in terminal JSON', () => {
    // Mutant killed: the set without U+200E/200F/061C/200B (they reorder or hide text unseen).
    expect(neutraliseTerminal('pay\u200eto\u200f0x1\u061c\u200bb')).toBe('pay\\u200eto\\u200f0x1\\u061c\\u200bb');
    expect(terminalJson({ a: '\u200e\u200b' })).toBe('{"a":"\\u200e\\u200b"}');
    expect(JSON.parse(terminalJson({ a: '\u061c' }))).toEqual({ a: '\u061c' });
  });

  it('neutralises bidi overrides and isolates, and Unicode line separators', () => {
    const bidi = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029';
    expect(neutraliseTerminal(`evil${bidi}txt.exe`)).toBe(
      'evil\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u2028\\u2029txt.exe',
    );
  });
});

describe('neutraliseFormula', () => {
  it.each(['=1+1', '+1', '-cmd', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("http://evil","click")', '\uff1d1', '-', '-1e5', '-12.5.3'])(
    'prefixes a quote to %j',
    (s) => expect(neutraliseFormula(s)).toBe(`'${s}`),
  );

  it.each([' =1', '\n=1', '\u00a0=1', '\u200b=1', ' \t @SUM(A1)', '\r\n+1', ' -1'])('prefixes a quote after leading white space: %j', (s) =>
    // Mutant killed: the check only at the first character.
    expect(neutraliseFormula(s)).toBe(`'${s}`),
  );

  it.each(['-12.5', '-0', '12', '0.000001', '-1000000000000000000000.5', 'abc', '', 'a=b', 'a =1', "'=1", 'x;=2+2;y'])('leaves %j alone', (s) =>
    expect(neutraliseFormula(s)).toBe(s),
  );

  it('decides every first character as the whole OWASP pattern does (the letter-and-digit shortcut changes nothing)', () => {
    // The rule as it stood before the shortcut, written out here: the oracle.
    const formulaStart = /^(?:[\t\r]|[\s\u200b\ufeff]*[=+\-@\uff1d\uff0b\uff0d\uff20])/;
    const oracle = (s: string) => (!formulaStart.test(s) || /^-?\d+(\.\d+)?$/.test(s) ? s : `'${s}`);
    const firsts = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c)).concat(['\u{1F600}', '\u{E0041}']);
    let quoted = 0;
    for (const c of firsts) {
      for (const s of [c, `${c}1`, `${c}=1+1`, `${c} =1`, `${c}-1`, `${c}x`]) {
        const got = neutraliseFormula(s);
        if (got !== oracle(s)) expect(got, JSON.stringify(s)).toBe(oracle(s));
        if (got !== s) quoted++;
      }
    }
    // The dangerous first characters (= + - @ tab CR, their full-width forms, white space before them) were met.
    expect(quoted).toBeGreaterThan(0x30);
  });
});

describe('shortenMiddle', () => {
  const hash = '0x57b2aa0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f9016bf7';

  it('keeps 0x, the first and the last digits', () => {
    expect(shortenMiddle(hash, 11)).toBe('0x57b2…6bf7');
    expect(shortenMiddle(hash, 11)).toHaveLength(11);
  });

  it('leaves values that fit alone', () => {
    expect(shortenMiddle('0x1234', 11)).toBe('0x1234');
    expect(shortenMiddle('12345678901', 11)).toBe('12345678901');
  });

  it('never exceeds max and never splits a surrogate pair', () => {
    for (let max = 0; max < 14; max++) {
      const out = shortenMiddle('🎉'.repeat(20), max);
      expect(Array.from(out).length).toBeLessThanOrEqual(max);
      expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    }
  });
});

describe('firstOf', () => {
  it('lists ten items and counts the rest', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => `f${i}`);
    expect(firstOf(items)).toBe('f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, … and 9,990 more');
    expect(firstOf(items.slice(0, 10))).toBe(items.slice(0, 10).join(', '));
    expect(firstOf([])).toBe('');
  });
});
