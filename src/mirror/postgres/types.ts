import { CHAIN_COLUMN, EXTRA_COLUMN, FIRST_SEEN_COLUMN, INEXACT_COLUMN, LAST_UPDATED_COLUMN, type Field, type FieldType } from '../fields.js';

// PostgreSQL's type mapping of the mirror's fields (../fields.ts), and how a value
// travels to it in COPY's text format. Amounts are unconstrained NUMERIC: any plain
// decimal string is exact, however many digits (where DuckDB's DECIMAL(38,18) stops at
// 20 integer digits), so only text that is no decimal is inexact. Times are TIMESTAMPTZ,
// nested objects and lists JSONB (their amounts stay strings and their times Unix
// seconds, as the API sent them), text TEXT, whole numbers BIGINT, other numbers DOUBLE
// PRECISION. Unlike DuckDB, PostgreSQL keeps the case of a quoted name: the columns are
// the API's names as they are (`"transactionHash"`), so SQL quotes camelCase names.

/** The SQL type of each kind of field, as stored. */
export const PG_TYPES = {
  text: 'TEXT',
  decimal: 'NUMERIC',
  time: 'TIMESTAMPTZ',
  integer: 'BIGINT',
  number: 'DOUBLE PRECISION',
  boolean: 'BOOLEAN',
  json: 'JSONB',
  struct: 'JSONB',
  list: 'JSONB',
} as const satisfies Record<FieldType['kind'], string>;

/** A name as SQL quotes it: `"transactionHash"`, a `"` doubled. */
export const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** A text as an SQL literal: `'it''s'`. */
export const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** PostgreSQL's NUMERIC holds up to 131,072 digits before the point and 16,383 after. */
const NUMERIC = /^-?[0-9]{1,131072}(\.[0-9]{1,16383})?$/;

/**
 * Whether an amount as the API sent it fits NUMERIC exactly: a plain decimal string. A
 * JSON number, '1e5', '1.', '.5', null or no amount at all is inexact (kept as text in
 * inexact_amounts), as in DuckDB.
 */
export function fitsNumeric(value: unknown): boolean {
  return typeof value === 'string' && NUMERIC.test(value);
}

/**
 * Every stored column of a table, in order, with its type: chain, the API's fields, the
 * scope columns (`planId` of a billing read by plan), then bookkeeping. No identity hash:
 * the primary key finds a record's row.
 */
export function tableColumns(fields: readonly Field[], scopes: readonly string[]): [string, string][] {
  return [
    [CHAIN_COLUMN, 'TEXT NOT NULL'],
    ...fields.map((f): [string, string] => [f.name, PG_TYPES[f.type.kind]]),
    ...scopes.map((s): [string, string] => [s, 'TEXT']),
    [EXTRA_COLUMN, 'JSONB'],
    [INEXACT_COLUMN, 'JSONB'],
    [FIRST_SEEN_COLUMN, 'TIMESTAMPTZ NOT NULL'],
    [LAST_UPDATED_COLUMN, 'TIMESTAMPTZ NOT NULL'],
  ];
}

// ---------------------------------------------------------------------------
// COPY's text format: one line a row, columns separated by tabs, \N for NULL, and a
// backslash, tab, newline or carriage return inside a value escaped.

const SPECIAL = /[\\\t\n\r]/;
const SPECIAL_ALL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A text as a COPY value. */
export function copyText(text: string): string {
  return SPECIAL.test(text) ? text.replace(SPECIAL_ALL, (c) => ESCAPES[c]) : text;
}

export const COPY_NULL = '\\N';

/** Unix seconds as a TIMESTAMPTZ literal in UTC: years 1 to 9999 (conform.ts keeps others out). */
export function timeText(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * A value conformed to its field (conform.ts) as a COPY value of its column. Objects and
 * lists go as their JSON; a value of another type never reaches here (it became null).
 */
export function copyValue(kind: FieldType['kind'], value: unknown): string {
  if (value === null || value === undefined) return COPY_NULL;
  switch (kind) {
    case 'text':
    case 'decimal':
      return copyText(value as string);
    case 'time':
      return timeText(value as number);
    case 'boolean':
      return value ? 't' : 'f';
    // Stryker disable next-line StringLiteral: the default's JSON.stringify writes a finite number as String does (conform.ts lets only JSON's finite numbers reach here)
    case 'integer':
    // Stryker disable next-line StringLiteral,ConditionalExpression: as above
    case 'number':
      return String(value);
    default:
      return copyText(JSON.stringify(value));
  }
}
