import { z } from 'zod';
import { decimal, timestamp } from '../registry/schemas.js';

// The mirror's columns, from the registry's zod record schemas (never a second
// hand-written list), whatever engine stores them: each field's kind (text, an exact
// decimal amount, a time, a whole number, another number, a boolean, JSON, a nested
// object or a list) and the bookkeeping columns every table has. An engine maps the
// kinds to its types (DuckDB's: duckdb/schema.ts); fields a record has beyond its
// schema, and values of another type, go to `extra_fields` by path, and amounts a
// column cannot hold exactly to `inexact_amounts`.

export type FieldType =
  | { kind: 'text' }
  | { kind: 'decimal' }
  | { kind: 'time' }
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
/** Amounts the engine's decimal type cannot hold, by path, with their text. */
export const INEXACT_COLUMN = 'inexact_amounts';
export const FIRST_SEEN_COLUMN = 'first_seen';
export const LAST_UPDATED_COLUMN = 'last_updated';
/** A hash of (chain, identity): finds a record's row without reading the text columns (DuckDB's identity-hash.ts). Stored, not shown. */
export const IDENTITY_HASH_COLUMN = 'identity_hash';
const BOOKKEEPING = [CHAIN_COLUMN, EXTRA_COLUMN, INEXACT_COLUMN, FIRST_SEEN_COLUMN, LAST_UPDATED_COLUMN, IDENTITY_HASH_COLUMN];


function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
  return s;
}

export function fieldType(schema: z.ZodType): FieldType {
  const s = unwrap(schema);
  if (s === decimal) return { kind: 'decimal' };
  if (s === timestamp) return { kind: 'time' };
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
  const names = new Set(fields.map((f) => f.name));
  for (const b of BOOKKEEPING) if (names.has(b)) throw new Error(`record field "${b}" collides with the mirror's own column`);
  return fields;
}

/** Whether a value of type `t` holds a value of kind `kind`, at any depth. */
export const hasKind = (t: FieldType, kind: FieldType['kind']): boolean =>
  t.kind === kind || (t.kind === 'struct' && t.fields.some((f) => hasKind(f.type, kind))) || (t.kind === 'list' && hasKind(t.element, kind));
