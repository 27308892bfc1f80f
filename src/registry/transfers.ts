import { z } from 'zod';
import { endpoints } from './endpoints.js';
import type { Endpoint, Filter, Product } from './types.js';

// `payrec transfers`: the transfers of every product in one list. Everything here is
// derived from the entries marked `transfers: true`: a new transfers product joins the
// list (and the mirror's `transfers` view) by that one property.

/** The list endpoints of every product's transfers, in registry order (the list's tie-break order). */
export const TRANSFER_ENDPOINTS: readonly Endpoint[] = (endpoints as readonly Endpoint[]).filter(
  (e) => e.transfers === true && e.kind === 'list' && e.method === 'GET' && e.params.length === 0,
);

export const TRANSFER_PRODUCTS: readonly Product[] = TRANSFER_ENDPOINTS.map((e) => e.product);

/** The column that says which product a merged record came from. */
export const PRODUCT_FIELD = 'product';

function topLevelKeys(schema: z.ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/**
 * `product`, then the union of the products' record fields in registry order: the
 * shape of the mirror's `transfers` view (its UNION ALL BY NAME keeps the first
 * table's columns and appends each new one where it first appears).
 */
export const TRANSFER_FIELDS: readonly string[] = [PRODUCT_FIELD, ...new Set(TRANSFER_ENDPOINTS.flatMap((e) => topLevelKeys(e.record)))];

/** Default table columns: `product`, then the union of the products' own defaults. */
export const TRANSFER_COLUMNS: readonly string[] = [PRODUCT_FIELD, ...new Set(TRANSFER_ENDPOINTS.flatMap((e) => e.columns))];

/**
 * A merged record: `product` plus that product's own schema, so each record is checked
 * against the schema of the list it came from.
 */
export const transferRecord = z.discriminatedUnion(
  PRODUCT_FIELD,
  TRANSFER_ENDPOINTS.map((e) => z.looseObject({ [PRODUCT_FIELD]: z.literal(e.product), ...(e.record as z.ZodObject).shape })) as unknown as [z.ZodObject, ...z.ZodObject[]],
);

/** Every filter some transfers product takes, by name, with the products that take it. */
export function transferFilters(): { filter: Filter; products: Product[] }[] {
  const byName = new Map<string, { filter: Filter; products: Product[] }>();
  for (const e of TRANSFER_ENDPOINTS) {
    for (const f of e.filters) {
      const known = byName.get(f.name);
      if (known) known.products.push(e.product);
      else byName.set(f.name, { filter: f, products: [e.product] });
    }
  }
  return [...byName.values()];
}
