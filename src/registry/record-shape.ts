import type { z } from 'zod';

// Read by type only (zod's public `type`, `shape` and `options`), without importing zod:
// the status filters (status.ts) ask it, and `payrec sql` takes them without checking records.

/**
 * The fields of a record schema: an object's shape, or for a union of record shapes
 * (`payrec transfers`: one per product) every field any of them has, in order.
 */
export function recordShape(schema: z.ZodType): Record<string, z.ZodType> {
  if (schema.type === 'object') return (schema as z.ZodObject).shape as Record<string, z.ZodType>;
  if (schema.type === 'union') return Object.assign({}, ...(schema as z.ZodUnion).options.map((o) => recordShape(o as z.ZodType))) as Record<string, z.ZodType>;
  return {};
}
