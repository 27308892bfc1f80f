import { z } from 'zod';
import { endpoints } from './endpoints.js';
import type { Endpoint, Filter, Product } from './types.js';
import { OUTCOME_FIELD, outcomeAdder } from './outcome.js';

// `payrec transfers`: the transfers of every product in one list. Everything here is
// derived from the entries marked `transfers: true`: a new transfers product joins the
// list (and the mirror's `transfers` view) by that one property. Fixed-recurring
// billings are listed per plan only (the API lists no plans): they are read once per
// known plan, and come after the lists of every record, so that their fields (and
// `outcome`) are appended to the others'.

/** A list read per plan (`/fixed-recurring/plans/:planId/billings`): walked once for each plan. */
export const perPlan = (e: Pick<Endpoint, 'params'>): boolean => e.params.length === 1 && e.params[0].name === 'planId';

const transferLists = (endpoints as readonly Endpoint[]).filter((e) => e.transfers === true && e.kind === 'list' && e.method === 'GET');

/** The list endpoints of every product's transfers: the whole lists in registry order, then the per-plan ones (the list's tie-break order). */
export const TRANSFER_ENDPOINTS: readonly Endpoint[] = [...transferLists.filter((e) => e.params.length === 0), ...transferLists.filter(perPlan)];

export const TRANSFER_PRODUCTS: readonly Product[] = TRANSFER_ENDPOINTS.map((e) => e.product);

/** The column that says which product a merged record came from. */
export const PRODUCT_FIELD = 'product';

function topLevelKeys(schema: z.ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/**
 * `product`, then the union of the products' record fields in the list's order, then
 * `outcome` when billings are among them: the shape of the mirror's `transfers` view
 * (its UNION ALL BY NAME keeps the first table's columns and appends each new one
 * where it first appears; billings' `outcome` is computed there too).
 */
export const TRANSFER_FIELDS: readonly string[] = [
  PRODUCT_FIELD,
  ...new Set(TRANSFER_ENDPOINTS.flatMap((e) => [...topLevelKeys(e.record), ...e.params.map((p) => p.name)])),
  ...(TRANSFER_ENDPOINTS.some((e) => outcomeAdder(e)) ? [OUTCOME_FIELD] : []),
];

/** Default table columns: `product`, then the union of the products' own defaults. */
export const TRANSFER_COLUMNS: readonly string[] = [PRODUCT_FIELD, ...new Set(TRANSFER_ENDPOINTS.flatMap((e) => e.columns))];

/**
 * A merged record of these products: `product` plus that product's own schema, so each
 * record is checked against the schema of the list it came from (and a summary says
 * what a failed billing is only when billings are among them).
 */
export function transferRecord(selected: readonly Endpoint[] = TRANSFER_ENDPOINTS): z.ZodType {
  return z.discriminatedUnion(
    PRODUCT_FIELD,
    selected.map((e) => z.looseObject({ [PRODUCT_FIELD]: z.literal(e.product), ...(e.record as z.ZodObject).shape })) as unknown as [z.ZodObject, ...z.ZodObject[]],
  );
}

/**
 * Every filter some transfers product takes, by name, with the products that take it.
 * A per-plan list takes --plan-id: its plan, read instead of every known plan.
 */
export function transferFilters(): { filter: Filter; products: Product[] }[] {
  const byName = new Map<string, { filter: Filter; products: Product[] }>();
  for (const e of TRANSFER_ENDPOINTS) {
    const plan = e.params.filter((p) => p.name === 'planId').map(({ name, schema, help }) => ({ name, schema, help }));
    for (const f of [...e.filters, ...plan]) {
      const known = byName.get(f.name);
      if (known) known.products.push(e.product);
      else byName.set(f.name, { filter: f, products: [e.product] });
    }
  }
  return [...byName.values()];
}
