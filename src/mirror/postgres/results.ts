import type { CellKind } from '../../core/output/document.js';
import { withoutPaddingZeros, zonedTime } from '../result-text.js';

// Query results from PostgreSQL's text, as DuckDB's engine gives them (../engine.ts
// QueryResult): whole numbers as numbers (BigInt beyond a double), NUMERIC as its exact
// text without padding zeros, JSON and JSONB as their value, booleans, and
// TIMESTAMPTZ as text in --tz with each instant's own offset (or, for a workbook's
// cells, Unix seconds). Everything else is PostgreSQL's own text.

/** PostgreSQL's type OIDs that payrec reads. */
export const OID = { bool: 16, int8: 20, int2: 21, int4: 23, text: 25, oid: 26, json: 114, float4: 700, float8: 701, date: 1082, timestamp: 1114, timestamptz: 1184, numeric: 1700, jsonb: 3802 } as const;

const MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** A TIMESTAMPTZ as PostgreSQL writes it in ISO style: 2026-10-31 15:05:09.5+01 (offsets to the second, years 1 AD on). */
const TIMESTAMPTZ = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?$/;

/** Seconds and microseconds of a TIMESTAMPTZ's text; undefined for what is no plain instant (infinity, BC). */
export function instantOf(text: string): { seconds: number; micros: number } | undefined {
  const m = TIMESTAMPTZ.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction, sign, oh, om, os] = m;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s));
  const offset = (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om ?? 0) * 60 + Number(os ?? 0));
  return { seconds: date.getTime() / 1000 - offset, micros: Number((fraction ?? '').padEnd(6, '0')) };
}

/** A value of type `oid` from its text, for the output module. */
export function valueOf(oid: number, text: string | null, zone: string, asCells: boolean): unknown {
  if (text === null) return null;
  switch (oid) {
    case OID.int2:
    case OID.int4:
    // Stryker disable next-line ConditionalExpression: an oid falling through to int8 reads the same number (an oid is below 2^32)
    case OID.oid:
      return Number(text);
    case OID.int8: {
      const n = BigInt(text);
      return n >= -MAX && n <= MAX ? Number(n) : n;
    }
    case OID.float4:
    case OID.float8:
      return Number(text);
    case OID.numeric:
      return withoutPaddingZeros(text);
    case OID.bool:
      return text === 't';
    case OID.json:
    case OID.jsonb:
      return JSON.parse(text);
    case OID.timestamptz: {
      const instant = instantOf(text);
      if (!instant) return text;
      return asCells ? instant.seconds + instant.micros / 1e6 : zonedTime(instant.seconds, instant.micros, zone);
    }
    case OID.date: {
      // A workbook's date cell: days since 1970-01-01.
      const m = /^(\d{4,})-(\d\d)-(\d\d)$/.exec(text);
      if (!asCells || !m) return text;
      const date = new Date(0);
      date.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
      return date.getTime() / 86_400_000;
    }
    default:
      return text;
  }
}

/** How a workbook holds a column of type `oid`: NUMERIC as amounts, times and dates as date cells. */
export function cellKindOf(oid: number): CellKind {
  if (oid === OID.numeric) return 'amount';
  if (oid === OID.timestamptz) return 'time';
  if (oid === OID.date) return 'date';
  return 'plain';
}
