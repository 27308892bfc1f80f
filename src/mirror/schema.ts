import { z } from 'zod';
import { decimal } from '../registry/schemas.js';
import { EXACT_SUFFIX, EXACT_TYPE } from './amounts.js';

// Table layouts from the registry's zod record schemas (never a second hand-written
// list): strings are VARCHAR, whole numbers BIGINT, other numbers DOUBLE, nested
// objects STRUCT, arrays LIST, open maps and anything else JSON. Each amount (the
// registry's `decimal` schema) also gets its exact companion (see amounts.ts), inside
// nested structs too, so `UNNEST(receivers)` yields `amount` and `amount_exact`.
// Fields a record has beyond its schema, and values of an unexpected type, are kept
// in one JSON column, `extra_fields`, keyed by their path (`memo`, `receivers[1].note`):
// DuckDB would otherwise convert them quietly (1.5 into a BIGINT is 2).

export type FieldType =
  | { kind: 'text' }
  | { kind: 'decimal' }
  | { kind: 'integer' }
  | { kind: 'number' }
  | { kind: 'boolean' }
  | { kind: 'json' }
  | { kind: 'struct'; fields: Field[] }
  | { kind: 'list'; element: FieldType };

export interface Field {
  name: string;
  type: FieldType;
}

/** Columns of every table besides the API's fields. */
export const CHAIN_COLUMN = 'chain';
export const EXTRA_COLUMN = 'extra_fields';
export const FIRST_SEEN_COLUMN = 'first_seen';
export const LAST_UPDATED_COLUMN = 'last_updated';
/** A hash of (chain, identity): finds a record's row without reading the text columns (identity-hash.ts). */
export const IDENTITY_HASH_COLUMN = 'identity_hash';
const BOOKKEEPING = [CHAIN_COLUMN, EXTRA_COLUMN, FIRST_SEEN_COLUMN, LAST_UPDATED_COLUMN, IDENTITY_HASH_COLUMN];

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
  return s;
}

export function fieldType(schema: z.ZodType): FieldType {
  const s = unwrap(schema);
  if (s === decimal) return { kind: 'decimal' };
  if (s instanceof z.ZodString || s instanceof z.ZodEnum) return { kind: 'text' };
  if (s instanceof z.ZodNumber) return { kind: s.isInt ? 'integer' : 'number' };
  if (s instanceof z.ZodBoolean) return { kind: 'boolean' };
  if (s instanceof z.ZodObject) return { kind: 'struct', fields: objectFields(s) };
  if (s instanceof z.ZodArray) return { kind: 'list', element: fieldType(s.element as z.ZodType) };
  return { kind: 'json' };
}

function objectFields(schema: z.ZodObject): Field[] {
  return Object.entries(schema.shape).map(([name, child]) => ({ name, type: fieldType(child as z.ZodType) }));
}

/** The API's fields of a record schema (a zod object), in the schema's order. */
export function recordFields(schema: z.ZodType): Field[] {
  const s = unwrap(schema);
  if (!(s instanceof z.ZodObject)) throw new Error('a mirrored record schema must be an object');
  const fields = objectFields(s);
  const names = new Set(fields.flatMap(storedNames));
  for (const b of BOOKKEEPING) if (names.has(b)) throw new Error(`record field "${b}" collides with the mirror's own column`);
  return fields;
}

/** Quotes an identifier for DuckDB. */
export const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** A field's stored names: itself, and its exact companion for an amount. */
function storedNames(f: Field): string[] {
  return f.type.kind === 'decimal' ? [f.name, f.name + EXACT_SUFFIX] : [f.name];
}

// ---------------------------------------------------------------------------
// Types and DDL.

/** The SQL type of each field type that holds one value (a decimal is stored as its text, see amounts.ts). */
export const SCALAR_TYPES = { text: 'VARCHAR', decimal: 'VARCHAR', integer: 'BIGINT', number: 'DOUBLE', boolean: 'BOOLEAN', json: 'JSON' } as const;

export function sqlType(t: FieldType): string {
  switch (t.kind) {
    case 'list':
      return `${sqlType(t.element)}[]`;
    case 'struct':
      return `STRUCT(${t.fields.flatMap((f) => storedColumns(f).map(([name, type]) => `${ident(name)} ${type}`)).join(', ')})`;
    default:
      return SCALAR_TYPES[t.kind];
  }
}

/** [name, SQL type] of what a field stores. */
function storedColumns(f: Field): [string, string][] {
  const own: [string, string] = [f.name, sqlType(f.type)];
  return f.type.kind === 'decimal' ? [own, [f.name + EXACT_SUFFIX, EXACT_TYPE]] : [own];
}

/** Every column of a table, in order: chain, the API's fields (and companions), then bookkeeping. */
export function tableColumns(fields: Field[]): [string, string][] {
  return [
    [CHAIN_COLUMN, 'VARCHAR NOT NULL'],
    ...fields.flatMap(storedColumns),
    [EXTRA_COLUMN, 'JSON'],
    [FIRST_SEEN_COLUMN, 'TIMESTAMPTZ NOT NULL'],
    [LAST_UPDATED_COLUMN, 'TIMESTAMPTZ NOT NULL'],
    [IDENTITY_HASH_COLUMN, 'BIGINT NOT NULL'],
  ];
}

/** The columns that hold a record's content: compared to tell an updated record from an unchanged one. */
export function contentColumns(fields: Field[]): string[] {
  return [...fields.flatMap(storedNames), EXTRA_COLUMN];
}

/** Paths of every amount field, for finding the ones that cannot be held exactly. */
export interface AmountPath {
  /** Top-level field, or the list field that holds it. */
  column: string;
  /** Inside a list of structs: the member (`amount` in `receivers[].amount`). */
  member?: string;
  /** How reports name it: `amount`, `receivers[].amount`. */
  label: string;
}

export function amountPaths(fields: Field[]): AmountPath[] {
  const out: AmountPath[] = [];
  for (const f of fields) {
    if (f.type.kind === 'decimal') out.push({ column: f.name, label: f.name });
    if (f.type.kind === 'list' && f.type.element.kind === 'struct') {
      for (const m of f.type.element.fields) {
        if (m.type.kind === 'decimal') out.push({ column: f.name, member: m.name, label: `${f.name}[].${m.name}` });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Records as the API sent them → values that fit their columns. Every value is checked
// against its field's type: one that does not match becomes null, and it and every
// field the schema does not know go into `extra_fields`, by path.

type Conformer = (value: unknown, path: string, extras: Record<string, unknown>) => unknown;
type Check = (value: unknown) => boolean;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * True when a value (absent or null included) fits its field exactly, with no unknown
 * key at any depth: the common case, checked without allocating anything.
 */
function fits(t: FieldType): Check {
  switch (t.kind) {
    case 'text':
    case 'decimal':
      return (v) => v == null || typeof v === 'string';
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

function conformer(t: FieldType): Conformer {
  const scalar = (ok: Check): Conformer => (v, path, extras) => {
    if (ok(v)) return v;
    extras[path] = v;
    return null;
  };
  switch (t.kind) {
    case 'text':
    case 'decimal':
    case 'integer':
    case 'number':
    case 'boolean':
      return scalar(fits(t));
    case 'json':
      return (v) => v;
    case 'list': {
      const element = conformer(t.element);
      return (v, path, extras) => {
        if (v === null || v === undefined) return v;
        if (!Array.isArray(v)) {
          extras[path] = v;
          return null;
        }
        for (let i = 0; i < v.length; i++) v[i] = element(v[i], `${path}[${i}]`, extras);
        return v;
      };
    }
    case 'struct': {
      const object = objectConformer(t.fields);
      return (v, path, extras) => {
        if (v === null || v === undefined) return v;
        if (!isObject(v)) {
          extras[path] = v;
          return null;
        }
        object(v, path + '.', extras);
        return v;
      };
    }
  }
}

function objectConformer(fields: Field[]): (o: Record<string, unknown>, prefix: string, extras: Record<string, unknown>) => void {
  const known = new Map(fields.map((f) => [f.name, conformer(f.type)]));
  return (o, prefix, extras) => {
    for (const key in o) {
      const conform = known.get(key);
      if (conform === undefined) extras[prefix + key] = o[key];
      else {
        const value = o[key];
        const kept = conform(value, prefix + key, extras);
        if (kept !== value) o[key] = kept;
      }
    }
  };
}

/**
 * Makes a record's values fit their fields, in place: a value of another type becomes
 * null. Returns what goes into `extra_fields` (those values and the fields the schema
 * does not know, by path), or undefined when the record fits as it is.
 */
export function recordConformer(fields: Field[]): (record: Record<string, unknown>) => Record<string, unknown> | undefined {
  const clean = objectFits(fields);
  const object = objectConformer(fields);
  return (record) => {
    if (clean(record)) return undefined;
    // No prototype: an unknown field named __proto__ is kept as a field, not taken as one.
    const extras: Record<string, unknown> = Object.create(null);
    object(record, '', extras);
    return extras;
  };
}
