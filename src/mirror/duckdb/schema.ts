import { amountText, DECIMAL_TYPE, fitsDecimal } from './amounts.js';
// TIME_RANGE: the Unix seconds a TIMESTAMP WITH TIME ZONE holds (years 1 to 9999); a time beyond them is a value of another type.
import { TIME_RANGE } from '../../core/runtime/time.js';
import { ident } from './ident.js';
import { CHAIN_COLUMN, EXTRA_COLUMN, FIRST_SEEN_COLUMN, IDENTITY_HASH_COLUMN, INEXACT_COLUMN, LAST_UPDATED_COLUMN, type Field, type FieldType } from '../fields.js';

// DuckDB's type mapping of the mirror's fields (fields.ts): strings are VARCHAR, amounts
// (the registry's `decimal`) DECIMAL(38,18) (see amounts.ts), times (its `timestamp`,
// Unix seconds) TIMESTAMP WITH TIME ZONE, other whole numbers BIGINT, other numbers
// DOUBLE, nested objects STRUCT, arrays LIST, open maps and anything else JSON. Fields a
// record has beyond its schema, and values of an unexpected type, are kept in one JSON
// column, `extra_fields`, keyed by their path (`memo`, `receivers[1].note`): DuckDB would
// otherwise convert them quietly (1.5 into a BIGINT is 2). Amounts DECIMAL(38,18) cannot
// hold go to `inexact_amounts` the same way.

export { ident };

// ---------------------------------------------------------------------------
// Types and DDL.

/** The SQL type of each field type that holds one value, as stored. */
export const SCALAR_TYPES = { text: 'VARCHAR', decimal: DECIMAL_TYPE, time: 'TIMESTAMPTZ', integer: 'BIGINT', number: 'DOUBLE', boolean: 'BOOLEAN', json: 'JSON' } as const;

export function sqlType(t: FieldType): string {
  switch (t.kind) {
    case 'list':
      return `${sqlType(t.element)}[]`;
    case 'struct':
      return `STRUCT(${t.fields.map((f) => `${ident(f.name)} ${sqlType(f.type)}`).join(', ')})`;
    default:
      return SCALAR_TYPES[t.kind];
  }
}

/**
 * Every stored column of a table, in order: chain, the API's fields, the scope columns
 * (`planId` of a billing read by plan, when the record does not carry it), then
 * bookkeeping. The view users query shows the same but the identity hash (layout.ts).
 */
export function tableColumns(fields: Field[], scopes: readonly string[] = []): [string, string][] {
  return [
    [CHAIN_COLUMN, 'VARCHAR NOT NULL'],
    ...fields.map((f): [string, string] => [f.name, sqlType(f.type)]),
    ...scopes.map((s): [string, string] => [s, 'VARCHAR']),
    [EXTRA_COLUMN, 'JSON'],
    [INEXACT_COLUMN, 'JSON'],
    [FIRST_SEEN_COLUMN, 'TIMESTAMPTZ NOT NULL'],
    [LAST_UPDATED_COLUMN, 'TIMESTAMPTZ NOT NULL'],
    [IDENTITY_HASH_COLUMN, 'BIGINT NOT NULL'],
  ];
}

/** The columns that hold a record's content: compared to tell an updated record from an unchanged one. */
export function contentColumns(fields: Field[], scopes: readonly string[] = []): string[] {
  return [...fields.map((f) => f.name), ...scopes, EXTRA_COLUMN, INEXACT_COLUMN];
}

// ---------------------------------------------------------------------------
// Records as the API sent them → values that fit their columns. Every value is checked
// against its field's type: one that does not match becomes null, and goes, with every
// field the schema does not know, into `extra_fields` by path; an amount that does not
// fit DECIMAL(38,18) goes into `inexact_amounts` by path, as text.

/** Where the values a record's columns cannot hold go, by path. */
export interface Leftovers {
  extra?: Record<string, unknown>;
  inexact?: Record<string, string>;
}

type Conformer = (value: unknown, path: string, out: Leftovers) => unknown;
type Check = (value: unknown) => boolean;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * True when a value (absent or null included) fits its field exactly, with no unknown
 * key at any depth: the common case, checked without allocating anything.
 */
function fits(t: FieldType): Check {
  switch (t.kind) {
    case 'text':
      return (v) => v == null || typeof v === 'string';
    case 'decimal':
      return fitsDecimal;
    case 'time':
      return (v) => v == null || (Number.isSafeInteger(v) && (v as number) >= TIME_RANGE[0] && (v as number) <= TIME_RANGE[1]);
    case 'integer':
      return (v) => v == null || Number.isSafeInteger(v);
    case 'number':
      return (v) => v == null || typeof v === 'number';
    case 'boolean':
      return (v) => v == null || typeof v === 'boolean';
    case 'json':
      return () => true;
    case 'list': {
      const element = fits(t.element);
      return (v) => {
        if (v == null) return true;
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
        return true;
      };
    }
    case 'struct': {
      const object = objectFits(t.fields);
      return (v) => v == null || object(v);
    }
  }
}

function objectFits(fields: Field[]): Check {
  const names = fields.map((f) => f.name);
  const checks = fields.map((f) => fits(f.type));
  return (v) => {
    if (!isObject(v)) return false;
    let present = 0;
    for (let i = 0; i < names.length; i++) {
      const value = v[names[i]];
      if (value !== undefined) present++;
      if (!checks[i](value)) return false;
    }
    let keys = 0;
    for (const _ in v) keys++;
    return keys === present;
  };
}

// No prototype: an unknown field named __proto__ is kept as a field, not taken as one.
const keepExtra = (out: Leftovers, path: string, v: unknown) => ((out.extra ??= Object.create(null) as Record<string, unknown>)[path] = v);

function conformer(t: FieldType): Conformer {
  const scalar = (ok: Check): Conformer => (v, path, out) => {
    if (ok(v)) return v;
    keepExtra(out, path, v);
    return null;
  };
  switch (t.kind) {
    case 'decimal':
      return (v, path, out) => {
        if (fitsDecimal(v)) return v;
        (out.inexact ??= Object.create(null) as Record<string, string>)[path] = amountText(v);
        return null;
      };
    case 'text':
    case 'time':
    case 'integer':
    case 'number':
    case 'boolean':
      return scalar(fits(t));
    case 'json':
      return (v) => v;
    case 'list': {
      const element = conformer(t.element);
      return (v, path, out) => {
        if (v === null || v === undefined) return v;
        if (!Array.isArray(v)) {
          keepExtra(out, path, v);
          return null;
        }
        for (let i = 0; i < v.length; i++) v[i] = element(v[i], `${path}[${i}]`, out);
        return v;
      };
    }
    case 'struct': {
      const object = objectConformer(t.fields);
      return (v, path, out) => {
        if (v === null || v === undefined) return v;
        if (!isObject(v)) {
          keepExtra(out, path, v);
          return null;
        }
        object(v, path + '.', out);
        return v;
      };
    }
  }
}

function objectConformer(fields: Field[]): (o: Record<string, unknown>, prefix: string, out: Leftovers) => void {
  const known = new Map(fields.map((f) => [f.name, conformer(f.type)]));
  const amounts = fields.filter((f) => f.type.kind === 'decimal').map((f) => f.name);
  return (o, prefix, out) => {
    for (const key in o) {
      const conform = known.get(key);
      if (conform === undefined) keepExtra(out, prefix + key, o[key]);
      else {
        const value = o[key];
        const kept = conform(value, prefix + key, out);
        if (kept !== value) o[key] = kept;
      }
    }
    // An amount the record lacks is inexact, not NULL: every amount of the API is required.
    for (const name of amounts) if (o[name] === undefined) (out.inexact ??= Object.create(null) as Record<string, string>)[prefix + name] = amountText(undefined);
  };
}

/**
 * Makes a record's values fit their fields, in place: a value of another type, or an
 * amount DECIMAL(38,18) cannot hold, becomes null. Returns where those values went (and
 * the fields the schema does not know), or undefined when the record fits as it is.
 */
export function recordConformer(fields: Field[]): (record: Record<string, unknown>) => Leftovers | undefined {
  const clean = objectFits(fields);
  const object = objectConformer(fields);
  return (record) => {
    if (clean(record)) return undefined;
    const out: Leftovers = {};
    object(record, '', out);
    return out;
  };
}
