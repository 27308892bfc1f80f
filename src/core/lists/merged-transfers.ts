import type { ApiClient } from '../http/client.js';
import { perPlan, PRODUCT_FIELD, TRANSFER_COLUMNS, TRANSFER_ENDPOINTS, TRANSFER_FIELDS, transferRecord } from '../../registry/transfers.js';
import type { Endpoint } from '../../registry/types.js';
import type { MergedList, WalkWindow } from './list-query.js';
import { mergeWalks, type MergeSource } from './merge.js';
import { identityOf } from './paginate.js';
import { endpointWalk, fillPath } from './walk.js';

// `payrec transfers` as one list (MergedList): each selected product's walk, billings
// once per plan (each record with its plan), merged by time (merge.ts) and read by the
// list machinery like any other list. The command parses its flags; the close report
// reads the same list.

/** The filter payrec applies to billings itself (the API has no such filter on them, but each billing names its token). */
export const KEPT_BY_PAYREC = 'token';
/** The product whose lists are per plan: the fixed-recurring billings. */
const BILLED = TRANSFER_ENDPOINTS.find(perPlan)!.product;

/** The plans whose billings are read, once a client can ask the API for the short urls that name them. */
export type PlansOf = (client: ApiClient) => Promise<string[]>;

/** Each selected product's walk: a whole list once, a per-plan list (billings) once per plan, each record with its plan. */
function sourcesOf(client: ApiClient, selected: readonly Endpoint[], filters: Record<string, string>, plans: readonly string[]): MergeSource[] {
  return selected.flatMap((e) => {
    // A per-plan list takes its plan in the path, not as a filter.
    const own = Object.fromEntries(Object.entries(filters).filter(([name]) => e.filters.some((f) => f.name === name)));
    if (!perPlan(e)) return [{ tag: e.product, walk: endpointWalk(client, e, e.path, own), identity: identityOf(e) }];
    return plans.map((planId) => ({ tag: e.product, walk: withPlan(endpointWalk(client, e, fillPath(e, { planId }), own), planId), identity: identityOf(e) }));
  });
}

/** A plan's billings carry no planId: each gets the plan it was listed under (as the mirror stores it). */
function withPlan(walk: WalkWindow, planId: string): WalkWindow {
  return async function* (...args) {
    for await (const page of walk(...args)) yield { ...page, records: page.records.map((r) => ({ planId, ...r })) };
  };
}

/** The merged list of these products' transfers, each read with the filters given; billings of `plans`. */
export function mergedTransfers(selected: readonly Endpoint[], filters: Record<string, string>, plans: PlansOf | undefined): MergedList {
  const token = filters[KEPT_BY_PAYREC];
  return {
    kind: 'list',
    method: 'GET',
    timeWindow: true,
    path: '/:product/transfers',
    title: selected.length === TRANSFER_ENDPOINTS.length ? 'transfers of every product' : `transfers of ${selected.map((e) => e.product).join(', ')}`,
    record: transferRecord(selected),
    identity: [PRODUCT_FIELD, ...new Set(selected.flatMap((e) => e.identity))],
    columns: TRANSFER_COLUMNS,
    fields: TRANSFER_FIELDS,
    collectionOf: (r) => selected.find((e) => e.product === r[PRODUCT_FIELD])!.collection,
    // The API filters billings by no token, but each names its own: payrec keeps those
    // in --token's, compared exactly as the API compares the other lists' tokens.
    keep: token === undefined ? undefined : (r) => r[PRODUCT_FIELD] !== BILLED || r.token === token,
    walk: (client) =>
      async function* (...args) {
        yield* mergeWalks(sourcesOf(client, selected, filters, plans ? await plans(client) : []), PRODUCT_FIELD)(...args);
      },
  };
}
