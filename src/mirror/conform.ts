// TIME_RANGE: the Unix seconds the mirror's times hold (years 1 to 9999, DuckDB's TIMESTAMP WITH TIME ZONE; PostgreSQL holds them too); a time beyond them is a value of another type.
import { TIME_RANGE } from '../core/runtime/time.js';
import { EXTRA_COLUMN, INEXACT_COLUMN, type Field, type FieldType } from './fields.js';

// Records as the API sent them → values that fit their columns, whatever the engine.
// Every value is checked against its field's type: one that does not match becomes
// null, and goes, with every field the schema does not know, into `extra_fields` by
// path; an amount the engine's decimal type cannot hold (each engine says which:
// DuckDB's DECIMAL(38,18), PostgreSQL's NUMERIC) goes into `inexact_amounts` by path,
// as text.

/** The columns that hold a record's content: compared to tell an updated record from an unchanged one. */
export function contentColumns(fields: Field[], scopes: readonly string[] = []): string[] {
  return [...fields.map((f) => f.name), ...scopes, EXTRA_COLUMN, INEXACT_COLUMN];
}

/** What inexact_amounts keeps for an amount the record does not have at all. */
export const ABSENT_AMOUNT = '(absent)';

/** The text an inexact amount keeps: a string as sent, anything else as JSON, an absent one as ABSENT_AMOUNT. */
export function amountText(value: unknown): string {
  return value === undefined ? ABSENT_AMOUNT : typeof value === 'string' ? value : JSON.stringify(value);
}


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
function fits(t: FieldType, fitsDecimal: Check): Check {
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
      const element = fits(t.element, fitsDecimal);
      return (v) => {
        if (v == null) return true;
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
        return true;
      };
    }
    case 'struct': {
      const object = objectFits(t.fields, fitsDecimal);
      return (v) => v == null || object(v);
    }
  }
}

function objectFits(fields: Field[], fitsDecimal: Check): Check {
  const names = fields.map((f) => f.name);
  const checks = fields.map((f) => fits(f.type, fitsDecimal));
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

function conformer(t: FieldType, fitsDecimal: Check): Conformer {
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
      return scalar(fits(t, fitsDecimal));
    case 'json':
      return (v) => v;
    case 'list': {
      const element = conformer(t.element, fitsDecimal);
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
      const object = objectConformer(t.fields, fitsDecimal);
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

function objectConformer(fields: Field[], fitsDecimal: Check): (o: Record<string, unknown>, prefix: string, out: Leftovers) => void {
  const known = new Map(fields.map((f) => [f.name, conformer(f.type, fitsDecimal)]));
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
 * amount the engine's decimal type cannot hold (`fitsDecimal` false), becomes null.
 * Returns where those values went (and the fields the schema does not know), or
 * undefined when the record fits as it is.
 */
export function recordConformer(fields: Field[], fitsDecimal: (value: unknown) => boolean): (record: Record<string, unknown>) => Leftovers | undefined {
  const clean = objectFits(fields, fitsDecimal);
  const object = objectConformer(fields, fitsDecimal);
  return (record) => {
    if (clean(record)) return undefined;
    const out: Leftovers = {};
    object(record, '', out);
    return out;
  };
}
