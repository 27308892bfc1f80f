import { endpoints } from '../registry/endpoints.js';
import { productAliases } from '../registry/products.js';
import { TRANSFER_ENDPOINTS } from '../registry/transfers.js';
import { PRODUCTS, type Endpoint, type Product } from '../registry/types.js';
import { UsageError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import { recordFields } from './fields.js';

// What the mirror holds, derived from the registry: every collection that a list
// endpoint reads, either as a whole (no path parameter) or per plan or strategy.
// Adding a list endpoint to the registry adds its collection here, with no other change.

/** Path parameters that scope a list the mirror can sync (flags --plan-id, --strategy-id). */
export const SCOPE_PARAMS = ['planId', 'strategyId'] as const;
export type ScopeParam = (typeof SCOPE_PARAMS)[number];

export interface MirroredCollection {
  /** The registry's collection, e.g. `one-time/transfers`. */
  name: string;
  product: Product;
  /** `one_time_transfers`: the table that holds it. */
  table: string;
  /** The list of every record, when the API has one (it covers every scope). */
  whole?: Endpoint;
  /** Lists of one plan or strategy, by the path parameter that scopes them. */
  scoped: Partial<Record<ScopeParam, Endpoint>>;
  /** Any of its list endpoints: they share the record schema, identity and time window. */
  endpoint: Endpoint;
}

const isScopeParam = (name: string): name is ScopeParam => (SCOPE_PARAMS as readonly string[]).includes(name);

/** `one-time/transfers` → `one_time_transfers`. */
export function tableName(collection: string): string {
  return collection.replace(/[^a-z0-9]+/gi, '_').toLowerCase();
}

function buildCatalog(): MirroredCollection[] {
  const byName = new Map<string, MirroredCollection>();
  for (const e of endpoints as readonly Endpoint[]) {
    if (e.kind !== 'list' || e.method !== 'GET') continue;
    const scope = e.params.length === 1 && isScopeParam(e.params[0].name) ? e.params[0].name : undefined;
    // Lists that need another id (billings of one subscription) are not mirrored: the plan's list holds them.
    if (e.params.length > 0 && scope === undefined) continue;
    let c = byName.get(e.collection);
    if (!c) {
      c = { name: e.collection, product: e.product, table: tableName(e.collection), scoped: {}, endpoint: e };
      byName.set(e.collection, c);
    }
    if (scope === undefined) c.whole = e;
    else c.scoped[scope as ScopeParam] = e;
  }
  return [...byName.values()];
}

export const CATALOG: readonly MirroredCollection[] = buildCatalog();

/** Collections whose records are transfers (billings too), in `payrec transfers`' order: the `transfers` view unites them. */
export const TRANSFER_COLLECTIONS = TRANSFER_ENDPOINTS.map((e) => CATALOG.find((c) => c.name === e.collection)!);

/** A scope in the mirror's cursors and state: '' for a whole list, `planId=0x…` for one plan's. */
export const scopeKey = (param?: string, id?: string): string => (param && id ? `${param}=${id}` : '');

/**
 * Plans need no flag: the records of a product name its plans (a fixed-recurring short
 * url its plan, a variable-recurring transfer the plan it was paid under), so a sync that
 * mirrored them knows which plans' billings and cancellations to read. These are the
 * collections read whole whose records name `collection`'s `param` ids.
 */
export function namingCollections(collection: MirroredCollection, param: ScopeParam): MirroredCollection[] {
  return CATALOG.filter((c) => c.product === collection.product && c.whole && recordFields(c.endpoint.record).some((f) => f.name === param && f.type.kind === 'text'));
}

/** Whether `collection`'s `param` ids may be found in `other`'s records (so syncing `other` first may find some). */
export function namesScopes(other: MirroredCollection, collection: MirroredCollection, param: ScopeParam): boolean {
  return namingCollections(collection, param).includes(other);
}

/**
 * The collections a user named: `product/collection`, the product by name or alias
 * (`ot/transfers`, `one-time/transfers`, `fr/billings`). Unknown names are a UsageError
 * that lists the known ones.
 */
export function resolveCollections(names: readonly string[]): MirroredCollection[] {
  const out: MirroredCollection[] = [];
  for (const raw of names) {
    const slash = raw.indexOf('/');
    const product = slash < 0 ? undefined : productOf(raw.slice(0, slash));
    const found = product && CATALOG.find((c) => c.name === `${product}/${raw.slice(slash + 1)}`);
    if (!found) {
      throw new UsageError(
        `unknown collection "${printable(raw)}": expected product/collection, one of ${CATALOG.map((c) => c.name).join(', ')}`,
        'products may be shortened: ot/transfers, fr/billings, dca/executions',
      );
    }
    if (!out.includes(found)) out.push(found);
  }
  return out;
}

function productOf(word: string): Product | undefined {
  if ((PRODUCTS as readonly string[]).includes(word)) return word as Product;
  return PRODUCTS.find((p) => productAliases[p] === word);
}
