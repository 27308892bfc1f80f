import { z } from 'zod';
import { UsageError } from '../runtime/errors.js';
import { printable } from './sanitize.js';

// What --columns and --flatten may name, read from the registry's record schemas. Apart
// from writer.ts, which does not need zod: commands that print no registry records
// (sql, metrics, subscriptions) write through it without loading zod.

/**
 * Dotted paths a record schema declares, for validating --columns and completing
 * them. Objects list themselves and their fields; arrays list themselves and their
 * elements' fields (`receivers`, `receivers.user`: meaningful with --flatten); open
 * maps (`z.record`, `z.unknown`) list `path.*`, which admits any key below them.
 */
export function schemaFields(schema: z.ZodType): string[] {
  const fields: string[] = [];
  collectFields(schema, '', fields);
  return [...new Set(fields)];
}

function collectFields(schema: z.ZodType, prefix: string, out: string[]): void {
  const s = unwrapOptional(schema);
  if (s instanceof z.ZodArray) return collectFields(s.element as z.ZodType, prefix, out);
  // A union of record shapes (`payrec transfers`): the fields of any of them.
  if (s instanceof z.ZodUnion) {
    for (const option of s.options) collectFields(option as z.ZodType, prefix, out);
    return;
  }
  if (s instanceof z.ZodObject) {
    for (const [key, child] of Object.entries(s.shape)) {
      const path = prefix ? `${prefix}.${key}` : key;
      out.push(path);
      collectFields(child as z.ZodType, path, out);
    }
  } else if (prefix && (s instanceof z.ZodRecord || s instanceof z.ZodUnknown || s instanceof z.ZodAny)) {
    out.push(`${prefix}.*`);
  }
}

/** Throws a UsageError unless --flatten names a top-level list field of these records. */
export function validateFlatten(field: string, schema: z.ZodType): void {
  const lists = listFields(schema);
  if (lists.includes(field)) return;
  const expected = lists.length > 0 ? `expected one of ${lists.join(', ')}` : 'these records have no list field to flatten';
  throw new UsageError(`invalid --flatten "${printable(field)}": ${expected}`);
}

function listFields(schema: z.ZodType): string[] {
  const s = unwrapOptional(schema);
  if (!(s instanceof z.ZodObject)) return [];
  return Object.entries(s.shape)
    .filter(([, child]) => unwrapOptional(child as z.ZodType) instanceof z.ZodArray)
    .map(([key]) => key);
}

function unwrapOptional(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
  return s;
}
