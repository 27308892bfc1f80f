import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordBytes } from '../../src/mirror/duckdb/record-bytes.js';

// The bytes the mirror hands to DuckDB instead of the parsed records: checked against
// JSON.parse of the whole body, the reading payrec itself uses everywhere else.

/** Whitespace JSON allows between tokens. */
const space = fc.constantFrom('', ' ', '\n', '\t ', '\r\n  ');

/** Strings with what could mislead a scan: brackets, braces, quotes, backslashes, keys. */
const tricky = fc.oneof(
  fc.string(),
  fc.constantFrom(']', '[', '}', '{', '"', '\\', '\\"', '"data"', '],"total":1}', 'é€😀', '\u001b[31m'),
);

/** Any JSON value, strings drawn from `tricky` too. */
const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
  ),
})).value;

const records = fc.array(fc.dictionary(tricky, value, { maxKeys: 5 }), { maxLength: 6 });

/** An envelope's text: its members in any order, other members around "data", any spacing, pretty-printed or not. */
const envelopeText = fc
  .record({
    data: records,
    others: fc.array(fc.tuple(fc.constantFrom('total', 'limit', 'offset', 'next', 'meta', 'd', 'data2'), value), { maxLength: 4 }),
    at: fc.nat(),
    indent: fc.constantFrom(undefined, 2),
    gaps: fc.array(space, { minLength: 4, maxLength: 4 }),
  })
  .map(({ data, others, at, indent, gaps: [a, b, c, d] }) => {
    const members = others.map(([k, v]) => `${JSON.stringify(k)}${a}:${b}${JSON.stringify(v, null, indent)}`);
    members.splice(at % (members.length + 1), 0, `"data"${a}:${c}${JSON.stringify(data, null, indent)}`);
    return `${d}{${c}${members.join(`${b},${a}`)}${d}}${a}`;
  });

describe('recordBytes', () => {
  it('gives exactly the records JSON.parse finds in "data", whatever surrounds them', () => {
    fc.assert(
      fc.property(envelopeText, (text) => {
        const body = Buffer.from(text);
        const bytes = recordBytes(body);
        const expected = JSON.parse(text).data;
        // Bodies with a surrogate escape are left to payrec; fc.string() may write one.
        // (No `return expect(…)`: fast-check fails a property that returns anything but true or nothing.)
        if (bytes === undefined) expect(text).toMatch(/\\u[dD][89abAB]/);
        else expect(JSON.parse(`[${bytes.toString()}]`)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the last "data" member, as JSON.parse does', () => {
    const bytes = recordBytes(Buffer.from('{"data":[{"a":1}],"total":2,"data":[{"b":"]"},{"c":2}]}'));
    expect(JSON.parse(`[${bytes}]`)).toEqual([{ b: ']' }, { c: 2 }]);
  });

  it('refuses bodies DuckDB would read otherwise than JSON.parse: invalid UTF-8, surrogate escapes', () => {
    expect(recordBytes(Buffer.concat([Buffer.from('{"data":[{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')]))).toBeUndefined();
    expect(recordBytes(Buffer.from('{"data":[{"a":"\\ud800"}]}'))).toBeUndefined();
    expect(recordBytes(Buffer.from('{"data":[{"a":"\\uD83D\\uDE00"}]}'))).toBeUndefined();
    // Other escapes read the same in both.
    expect(recordBytes(Buffer.from('{"data":[{"a":"\\u001b\\u0000\\n"}]}'))?.toString()).toBe('{"a":"\\u001b\\u0000\\n"}');
  });

  it('refuses a "data" that is not an array, and a body that is not an object', () => {
    expect(recordBytes(Buffer.from('{"data":{"a":1},"total":1}'))).toBeUndefined();
    expect(recordBytes(Buffer.from('[{"data":[]}]'))).toBeUndefined();
    expect(recordBytes(Buffer.from('{"total":0}'))).toBeUndefined();
  });
});
