import { z } from 'zod';
import { endpoints } from './endpoints.js';
import { decimal, timestamp } from './schemas.js';

// Which fields are amounts and which are times, read from the record schemas (the
// `decimal` and `timestamp` schemas of schemas.ts), at any depth: `receivers[].amount`
// is an amount as `amount` is. Names, since that is how a record's JSON says them.

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
  return s;
}

/** The names of the fields of every record schema whose schema is `kind`, at any depth. */
function fieldsOf(kind: z.ZodType): ReadonlySet<string> {
  const names = new Set<string>();
  const visit = (schema: z.ZodType) => {
    const s = unwrap(schema);
    if (s instanceof z.ZodArray) visit(s.element as z.ZodType);
    if (!(s instanceof z.ZodObject)) return;
    for (const [name, child] of Object.entries(s.shape as Record<string, z.ZodType>)) {
      if (unwrap(child) === kind) names.add(name);
      else visit(child);
    }
  };
  for (const e of endpoints) visit(e.record);
  return names;
}

/** The API's amount fields: decimal text (`amount`, `fee`, `serviceFee`, `inputAmount`, `outputAmount`). */
export const AMOUNT_FIELDS: ReadonlySet<string> = fieldsOf(decimal);

/** The API's time fields: Unix seconds (`timestamp`, `createdAt`, `updatedAt`, `cycleStart`, `cycleEnd`). */
export const TIME_FIELDS: ReadonlySet<string> = fieldsOf(timestamp);
