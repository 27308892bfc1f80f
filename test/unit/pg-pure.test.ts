import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/core/runtime/errors.js';
import { isDbUrl, maskDbUrl } from '../../src/core/runtime/secrets.js';
import { cellKindOf, instantOf, OID, valueOf } from '../../src/mirror/postgres/results.js';
import { COPY_NULL, copyText, copyValue, fitsNumeric, literal, PG_TYPES, quote, tableColumns, timeText } from '../../src/mirror/postgres/types.js';
import { DEFAULT_SCHEMA, parseServerUrl } from '../../src/mirror/server-url.js';

// The pure parts of a team's mirror on PostgreSQL: the URL (a secret, never with a
// password), the type mapping and COPY's text encoding, and how results read back.
// Expected values are written here by hand, from PostgreSQL's documentation (COPY's text
// format, NUMERIC's limits, the ISO output of TIMESTAMPTZ), not computed by the code.

describe('a mirror URL', () => {
  const parse = (text: string) => parseServerUrl(text, '--db');
  const refusal = (text: string) => {
    try {
      parse(text);
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      return (err as UsageError).message;
    }
    throw new Error(`${text} was accepted`);
  };

  test('postgres:// and postgresql:// name a server, in any case; a path is a file', () => {
    for (const text of ['postgres://h/d', 'postgresql://h/d', 'POSTGRES://h/d', 'PostgreSQL://u@h:5/d']) expect(isDbUrl(text)).toBe(true);
    for (const text of ['/tmp/postgres://x', 'mirror.duckdb', 'postgres:/h/d', 'postgres//h', 'mysql://h/d', ' postgres://h/d']) expect(isDbUrl(text)).toBe(false);
  });

  test('the schema is payrec unless ?schema= says; it leaves the connection URL, which keeps the rest', () => {
    expect(parse('postgres://u@db.internal:5433/finance')).toEqual({ connection: 'postgres://u@db.internal:5433/finance', schema: DEFAULT_SCHEMA, shown: 'postgres://db.internal:5433/****' });
    expect(DEFAULT_SCHEMA).toBe('payrec');
    const named = parse('postgresql://u@h/d?schema=team_a&sslmode=require');
    expect(named.schema).toBe('team_a');
    expect(named.connection).toBe('postgresql://u@h/d?sslmode=require');
    expect(parse('postgres://u@h/d?application_name=x&connect_timeout=5').connection).toBe('postgres://u@h/d?application_name=x&connect_timeout=5');
    expect(parse('postgres:///d?host=/var/run/postgresql').schema).toBe('payrec');
  });

  test('a password in the URL, or as a parameter, is refused without showing it', () => {
    for (const text of ['postgres://u:hunter2secret@h/d', 'postgres://u@h/d?password=hunter2secret', 'postgres://:hunter2secret@h/d']) {
      const message = refusal(text);
      expect(message).toMatch(/holds a password/);
      expect(message).not.toContain('hunter2secret');
    }
  });

  test('bad schemas, parameters, fragments and hosts are refused naming the flag', () => {
    expect(refusal('postgres://u@h/d?schema=Team')).toMatch(/^invalid --db postgres:\/\/h\/\*\*\*\*: \?schema= takes/);
    for (const schema of ['1abc', 'a-b', '', 'x'.repeat(58), 'a"b', 'é']) expect(refusal(`postgres://u@h/d?schema=${encodeURIComponent(schema)}`)).toMatch(/schema/);
    expect(parse(`postgres://u@h/d?schema=${'x'.repeat(57)}`).schema).toHaveLength(57);
    expect(parse('postgres://u@h/d?schema=_a9').schema).toBe('_a9');
    expect(refusal('postgres://u@h/d?sslcert=/x')).toMatch(/unknown parameter "sslcert"/);
    expect(refusal('postgres://u@h/d#frag')).toMatch(/fragment/);
    expect(refusal('postgres:///d')).toMatch(/no host/);
    expect(refusal('postgres://[bad/d')).toMatch(/not a URL/);
  });

  test('shown as scheme and host only, whatever it holds', () => {
    expect(maskDbUrl('postgres://alice@db.example.com:6543/ledger?schema=s')).toBe('postgres://db.example.com:6543/****');
    expect(maskDbUrl('postgresql://h/d')).toBe('postgresql://h/****');
    expect(maskDbUrl('postgres://[bad/d')).toBe('postgres://****');
    expect(maskDbUrl('/home/me/mirror.duckdb')).toBe('/home/me/mirror.duckdb');
  });
});

describe('types and COPY', () => {
  test('every kind of field has its PostgreSQL type', () => {
    expect(PG_TYPES).toEqual({ text: 'TEXT', decimal: 'NUMERIC', time: 'TIMESTAMPTZ', integer: 'BIGINT', number: 'DOUBLE PRECISION', boolean: 'BOOLEAN', json: 'JSONB', struct: 'JSONB', list: 'JSONB' });
  });

  test('a table: chain, the fields, the scope columns, then bookkeeping', () => {
    const columns = tableColumns(
      [
        { name: 'amount', type: { kind: 'decimal' } },
        { name: 'receivers', type: { kind: 'list', element: { kind: 'struct', fields: [] } } },
      ],
      ['planId'],
    );
    expect(columns).toEqual([
      ['chain', 'TEXT NOT NULL'],
      ['amount', 'NUMERIC'],
      ['receivers', 'JSONB'],
      ['planId', 'TEXT'],
      ['extra_fields', 'JSONB'],
      ['inexact_amounts', 'JSONB'],
      ['first_seen', 'TIMESTAMPTZ NOT NULL'],
      ['last_updated', 'TIMESTAMPTZ NOT NULL'],
    ]);
  });

  test('NUMERIC holds any plain decimal string; anything else is inexact', () => {
    for (const v of ['0', '-0', '1.5', '-1.000000000000000001', '123456789012345678901234567890.123456789012345678', '9'.repeat(131072), `1.${'9'.repeat(16383)}`]) expect(fitsNumeric(v), v.slice(0, 30)).toBe(true);
    for (const v of ['1e5', '1.', '.5', '+1', ' 1', '1 ', '1,5', '', '-', '0x10', '1.2.3', 1.5, null, undefined, '9'.repeat(131073), `1.${'9'.repeat(16384)}`, 'NaN', 'Infinity']) {
      expect(fitsNumeric(v), String(v).slice(0, 30)).toBe(false);
    }
  });

  test('names and literals quoted as SQL does', () => {
    expect(quote('transactionHash')).toBe('"transactionHash"');
    expect(quote('a"b')).toBe('"a""b"');
    expect(literal("it's")).toBe("'it''s'");
    expect(literal("''")).toBe("''''''");
  });

  test("COPY's text format escapes a backslash, tab, newline and carriage return, and nothing else", () => {
    expect(copyText('plain é ☃')).toBe('plain é ☃');
    expect(copyText('a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
    expect(copyText('\\N')).toBe('\\\\N');
    expect(copyText('x\\\\')).toBe('x\\\\\\\\');
    // Text of special characters alone is escaped too (a test of "has a character that is not special" would pass it as it is).
    expect(copyText('\n')).toBe('\\n');
    expect(copyText('\t\\')).toBe('\\t\\\\');
    expect(COPY_NULL).toBe('\\N');
  });

  test('values by kind: NULL, text, amounts as sent, times in UTC, booleans, numbers, JSON', () => {
    expect(copyValue('text', null)).toBe('\\N');
    expect(copyValue('decimal', undefined)).toBe('\\N');
    expect(copyValue('text', 'a\tb')).toBe('a\\tb');
    expect(copyValue('decimal', '-0.000000000000000001')).toBe('-0.000000000000000001');
    expect(copyValue('time', 1_767_225_600)).toBe('2026-01-01T00:00:00Z');
    expect(copyValue('time', -62_135_596_800)).toBe('0001-01-01T00:00:00Z');
    expect(copyValue('time', 253_402_300_799)).toBe('9999-12-31T23:59:59Z');
    expect(timeText(0)).toBe('1970-01-01T00:00:00Z');
    expect(copyValue('boolean', true)).toBe('t');
    expect(copyValue('boolean', false)).toBe('f');
    expect(copyValue('integer', 9_007_199_254_740_991)).toBe('9007199254740991');
    expect(copyValue('number', 0.1)).toBe('0.1');
    expect(copyValue('number', 1e21)).toBe('1e+21');
    expect(copyValue('list', [{ amount: '1.5', note: 'a\nb' }])).toBe('[{"amount":"1.5","note":"a\\\\nb"}]');
    expect(copyValue('struct', { a: 1 })).toBe('{"a":1}');
    expect(copyValue('json', 'x')).toBe('"x"');
  });
});

describe('results read back', () => {
  test('a TIMESTAMPTZ as PostgreSQL writes it: offsets of hours, minutes and seconds, fractions, old years', () => {
    expect(instantOf('2026-10-31 15:05:09+01')).toEqual({ seconds: 1_793_455_509, micros: 0 });
    expect(instantOf('2026-10-31 14:05:09+00')).toEqual({ seconds: 1_793_455_509, micros: 0 });
    expect(instantOf('2026-10-31 09:35:09-04:30')).toEqual({ seconds: 1_793_455_509, micros: 0 });
    expect(instantOf('1900-01-01 00:00:00+00:09:21')).toEqual({ seconds: -2_208_989_361, micros: 0 });
    expect(instantOf('2026-01-01 00:00:00.5+00')).toEqual({ seconds: 1_767_225_600, micros: 500_000 });
    expect(instantOf('2026-01-01 00:00:00.000001+00')).toEqual({ seconds: 1_767_225_600, micros: 1 });
    expect(instantOf('0001-01-01 00:00:00+00')).toEqual({ seconds: -62_135_596_800, micros: 0 });
    // 98 years of 365 days and 24 leap days, then January and February of 99: 35,853 days after 0001-01-01.
    expect(instantOf('0099-03-01 00:00:00+00')!.seconds).toBe(-62_135_596_800 + 35_853 * 86_400);
    for (const text of ['infinity', '-infinity', '0044-03-15 00:00:00+00 BC', '2026-01-01', '2026-01-01 00:00:00', 'about 2026-01-01 00:00:00+00']) expect(instantOf(text)).toBeUndefined();
  });

  test('values by type: whole numbers exact (BigInt beyond a double), decimals without padding, JSON, booleans, times in the zone or as seconds', () => {
    expect(valueOf(OID.int8, '9007199254740991', 'UTC', false)).toBe(9_007_199_254_740_991);
    expect(valueOf(OID.int8, '9007199254740992', 'UTC', false)).toBe(9_007_199_254_740_992n);
    expect(valueOf(OID.int8, '-9007199254740992', 'UTC', false)).toBe(-9_007_199_254_740_992n);
    expect(valueOf(OID.int8, '-9007199254740991', 'UTC', false)).toBe(-9_007_199_254_740_991);
    expect(valueOf(OID.int4, '42', 'UTC', false)).toBe(42);
    expect(valueOf(OID.int2, '-7', 'UTC', false)).toBe(-7);
    expect(valueOf(OID.oid, '16', 'UTC', false)).toBe(16);
    expect(valueOf(OID.float8, '0.1', 'UTC', false)).toBe(0.1);
    expect(valueOf(OID.float4, '1.5', 'UTC', false)).toBe(1.5);
    expect(valueOf(OID.numeric, '12.500000', 'UTC', false)).toBe('12.5');
    expect(valueOf(OID.numeric, '-0.000', 'UTC', false)).toBe('0');
    expect(valueOf(OID.numeric, '100', 'UTC', false)).toBe('100');
    expect(valueOf(OID.bool, 't', 'UTC', false)).toBe(true);
    expect(valueOf(OID.bool, 'f', 'UTC', false)).toBe(false);
    expect(valueOf(OID.jsonb, '{"a": [1, "2"]}', 'UTC', false)).toEqual({ a: [1, '2'] });
    expect(valueOf(OID.json, '"x"', 'UTC', false)).toBe('x');
    expect(valueOf(OID.text, null, 'UTC', false)).toBeNull();
    expect(valueOf(OID.numeric, null, 'UTC', false)).toBeNull();
    expect(valueOf(25, 'text as it is', 'UTC', false)).toBe('text as it is');
    expect(valueOf(OID.timestamptz, '2026-10-25 00:30:00+00', 'Europe/Berlin', false)).toBe('2026-10-25 02:30:00+02');
    expect(valueOf(OID.timestamptz, '2026-10-25 01:30:00+00', 'Europe/Berlin', false)).toBe('2026-10-25 02:30:00+01');
    expect(valueOf(OID.timestamptz, '2026-01-01 00:00:00.25+00', 'UTC', false)).toBe('2026-01-01 00:00:00.25+00');
    expect(valueOf(OID.timestamptz, '2026-01-01 00:00:00.25+00', 'UTC', true)).toBe(1_767_225_600.25);
    expect(valueOf(OID.timestamptz, 'infinity', 'UTC', true)).toBe('infinity');
    expect(valueOf(OID.date, '2026-01-02', 'UTC', true)).toBe(20_455);
    expect(valueOf(OID.date, '1969-12-31', 'UTC', true)).toBe(-1);
    expect(valueOf(OID.date, '2026-01-02', 'UTC', false)).toBe('2026-01-02');
    expect(valueOf(OID.date, 'infinity', 'UTC', true)).toBe('infinity');
    // A date before Christ is no date cell: its text, not the AD date of the same digits.
    expect(valueOf(OID.date, '0044-03-15 BC', 'UTC', true)).toBe('0044-03-15 BC');
    expect(valueOf(OID.date, 'about 2026-01-02', 'UTC', true)).toBe('about 2026-01-02');
    expect(valueOf(OID.timestamp, '2026-01-01 00:00:00', 'UTC', true)).toBe('2026-01-01 00:00:00');
  });

  test("a workbook's cells: NUMERIC amounts, TIMESTAMPTZ times, dates; the rest plain", () => {
    expect([OID.numeric, OID.timestamptz, OID.date, OID.timestamp, OID.int8, OID.text].map(cellKindOf)).toEqual(['amount', 'time', 'date', 'plain', 'plain', 'plain']);
  });
});
