import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonText, nestedDeeperThan } from '../../src/core/http/json-text.js';

/** What JSON.parse makes of the body decoded whole as UTF-8 (the ground truth), or the error's kind. */
function parsedWhole(body: Buffer): unknown {
  try {
    return { value: JSON.parse(body.toString('utf8').replace(/^\uFEFF/, '')) };
  } catch {
    return 'invalid';
  }
}

function parsedFast(body: Buffer): unknown {
  try {
    return { value: JSON.parse(jsonText(body)) };
  } catch {
    return 'invalid';
  }
}

describe('jsonText', () => {
  it('parses to the same values as a whole-body UTF-8 decode, for any JSON with any Unicode text', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }), (value) => {
        const body = Buffer.from(JSON.stringify(value), 'utf8');
        expect(parsedFast(body)).toEqual(parsedWhole(body));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps text that crosses the 4 KB blocks it scans by', () => {
    for (const at of [4090, 4094, 4095, 4096, 8190]) {
      const text = `${'a'.repeat(at)}é👨‍👩‍👧\u202Eż${'b'.repeat(at)}日本`;
      const body = Buffer.from(JSON.stringify({ data: [{ text }] }), 'utf8');
      expect(JSON.parse(jsonText(body))).toEqual({ data: [{ text }] });
    }
  });

  it('returns one byte per character, so V8 keeps it a one-byte string', () => {
    const body = Buffer.from(JSON.stringify({ name: 'Zoë 👋' }), 'utf8');
    expect(jsonText(body)).toBe('{"name":"Zo\\u00eb \\ud83d\\udc4b"}');
  });

  it('decodes invalid UTF-8 to U+FFFD as a whole-body decode does', () => {
    const body = Buffer.concat([Buffer.from('{"a":"x'), Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x82]), Buffer.from('y"}')]);
    expect(parsedFast(body)).toEqual(parsedWhole(body));
  });

  it('skips a byte-order mark, as undici did', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"é":1}')]);
    expect(JSON.parse(jsonText(body))).toEqual({ é: 1 });
  });

  it('does not turn an invalid escape before a non-ASCII character into a valid one', () => {
    const invalid = Buffer.from('{"a":"\\é"}', 'utf8');
    expect(parsedFast(invalid)).toBe('invalid');
    const escapedBackslash = Buffer.from('{"a":"\\\\é"}', 'utf8');
    expect(parsedFast(escapedBackslash)).toEqual({ value: { a: '\\é' } });
  });

  it('leaves non-ASCII outside strings invalid', () => {
    expect(parsedFast(Buffer.from('{"a":é}', 'utf8'))).toBe('invalid');
  });
});

describe('nestedDeeperThan', () => {
  /** Depth by a recursive walk (ground truth for the shallow values fast-check makes). */
  const depthOf = (v: unknown): number =>
    v === null || typeof v !== 'object' ? 0 : 1 + Math.max(0, ...Object.values(v as object).map(depthOf));

  it('agrees with a recursive walk on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 6 }), (value, max) => {
        expect(nestedDeeperThan(value, max)).toBe(depthOf(value) > max);
      }),
    );
  });

  it('measures 100,000-deep arrays without overflowing the stack', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    expect(nestedDeeperThan(deep, 512)).toBe(true);
    expect(nestedDeeperThan(JSON.parse('['.repeat(512) + ']'.repeat(512)), 512)).toBe(false);
    expect(nestedDeeperThan(JSON.parse('['.repeat(513) + ']'.repeat(513)), 512)).toBe(true);
  });
});
