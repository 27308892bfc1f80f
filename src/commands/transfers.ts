import type { Command } from 'commander';
import type { CommandAction } from '../core/runtime/action.js';
import { UsageError } from '../core/runtime/errors.js';
import { flagOf } from '../core/runtime/options.js';
import type { Session } from '../core/runtime/session.js';
import { printable } from '../core/output/sanitize.js';
import { runEndpoint, type MergedList } from '../core/lists/run-endpoint.js';
import { endpointWalk, fillPath } from '../core/lists/walk.js';
import { mergeWalks, type MergeSource } from '../core/lists/merge.js';
import type { WalkWindow } from '../core/lists/list-query.js';
import type { ApiClient } from '../core/http/client.js';
import { addedPlans, statedPlans } from '../core/config/added-plans.js';
import { mirrorExists, mirrorLocation } from '../mirror/location.js';
import { openMirror } from '../mirror/open.js';
import { knownPlans, noteBilledPlans, payrecCommand, shortUrlPlans, withShortUrlPlans, type PlanSource } from '../mirror/plan-coverage.js';
import { identityOf } from '../core/lists/paginate.js';
import { productAliases } from '../registry/products.js';
import { perPlan, PRODUCT_FIELD, TRANSFER_COLUMNS, TRANSFER_ENDPOINTS, TRANSFER_FIELDS, transferFilters, transferRecord } from '../registry/transfers.js';
import type { Endpoint } from '../registry/types.js';
import { addListOptions, parseListFlags, takesWholeWindow, type ListFlags } from './registry-commands.js';
import { addCurrencyEnricher, addCurrencyOptions } from './currency-flags.js';
import { topCommand } from './tree.js';
import { addGateOptions } from './list-gates.js';
import { hasStatus, hasSuccess } from '../registry/outcome.js';

// `payrec transfers`: the transfers of every product (the registry's entries marked
// `transfers`) in one list, merged by time, through the same list machinery as each
// product's own `transfers` command: the one paginator walks each product exactly,
// mergeWalks orders them, and runEndpoint prints, summarises, charts or follows.
// Fixed-recurring billings (the subscription revenue) are listed per plan only: each
// known plan's billings are one more walk (DESIGN.md "Lists and exports"), and stderr
// says how many plans that is and where they were found (plan-coverage.ts).

const FILTERS = transferFilters();
/** The filter payrec applies to billings itself (the API has no such filter on them, but each billing names its token). */
const KEPT_BY_PAYREC = 'token';
/** The product whose lists are per plan: the fixed-recurring billings. */
const BILLED = TRANSFER_ENDPOINTS.find(perPlan)!.product;
/** A --token filter is also what --chart charts (as on each product's list). */
const HAS_TOKEN_FILTER = FILTERS.some((f) => f.filter.name === 'token');
const aliasList = () => TRANSFER_ENDPOINTS.map((e) => `${e.product} (${productAliases[e.product]})`).join(', ');

export function addTransfersCommand(program: Command, action: CommandAction): void {
  const cmd = topCommand(program, 'transfers');
  cmd.option('--product <list>', `only these products, comma-separated, by name or alias: ${aliasList()}`);
  for (const { filter, products } of FILTERS) {
    const only = products.length === TRANSFER_ENDPOINTS.length || filter.name === KEPT_BY_PAYREC ? '' : ` (${products.join(', ')} only: narrow with --product)`;
    cmd.option(`${flagOf(filter.name)} <value>`, filter.help + only);
  }
  cmd.option('--db <file>', "the mirror whose plans' billings are included too (env PAYREC_DB; default the profile's mirror, when there is one)");
  addListOptions(cmd, true, HAS_TOKEN_FILTER, true);
  addCurrencyOptions(cmd);
  addGateOptions(cmd, TRANSFER_ENDPOINTS.some(hasStatus), TRANSFER_ENDPOINTS.every(hasSuccess) ? 'all' : TRANSFER_ENDPOINTS.some(hasSuccess) ? 'some' : 'none');
  const examples = [
    'payrec transfers --from 7d',
    'payrec transfers --all --from 2026-10-01 --to 2026-10-31 -f csv -o transfers.csv',
    'payrec transfers --product ot,w2w --token USDT --all --summary',
    'payrec transfers --product fr --period last-month --summary',
    'payrec transfers --follow',
  ];
  const billings = [
    'Fixed-recurring billings are listed per plan: those of every known plan are included (the plans',
    'short urls name, those added with fr plans add, and those the mirror remembers); stderr says how',
    'many. --plan-id reads one plan instead.',
  ];
  cmd.addHelpText('after', `\n${billings.join('\n')}\n\nExamples:\n${examples.map((x) => `  $ ${x}`).join('\n')}\n`);
  cmd.action(action((session, c) => runTransfers(session, c), { output: true }));
}

async function runTransfers(session: Session, cmd: Command): Promise<void> {
  const opts = cmd.opts() as Record<string, string | boolean | undefined>;
  const selected = selectProducts(opts.product as string | undefined);
  const filters: Record<string, string> = {};
  for (const { filter, products } of FILTERS) {
    const value = opts[filter.name];
    if (typeof value !== 'string') continue;
    const lacking = selected
      .filter((e) => !products.includes(e.product) && !(perPlan(e) && filter.name === KEPT_BY_PAYREC))
      .map((e) => `${e.product} ${perPlan(e) ? 'billings' : 'transfers'}`);
    if (lacking.length > 0) {
      throw new UsageError(
        `${flagOf(filter.name)} is not a filter of ${lacking.join(', ')}`,
        `narrow the list to products that have it: --product ${products.map((p) => productAliases[p]).join(',')}`,
      );
    }
    const r = filter.schema.safeParse(value);
    if (!r.success) throw new UsageError(`invalid ${flagOf(filter.name)} "${printable(value)}": ${r.error.issues[0].message}`);
    filters[filter.name] = r.data;
  }
  const list = parseListFlags(opts, session.ctx.now(), HAS_TOKEN_FILTER, session.zone, takesWholeWindow(session, opts as ListFlags));
  await addCurrencyEnricher(list, opts, session, Boolean(opts.summary));
  const plans = selected.some(perPlan) ? await billedPlans(session, opts.db as string | undefined, filters.planId) : undefined;
  // One connection per page in flight: the products share --concurrency, at least one page each.
  await session.client(Math.max(list.window.concurrency, selected.length));
  await runEndpoint(session, mergedTransfers(selected, filters, plans), {}, {}, list);
}

/** The plans whose billings are read, once a client can ask the API for the short urls that name them. */
type PlansOf = (client: ApiClient) => Promise<string[]>;

/**
 * The plans whose billings `payrec transfers` reads: the one given with --plan-id, else
 * every known plan (plan-coverage.ts knownPlans): the profile's and the mirror's (read
 * now, so a bad --db is exit 2 before any request), and those the short urls name,
 * read online with the first walk. Said on stderr once.
 */
async function billedPlans(session: Session, dbFlag: string | undefined, given: string | undefined): Promise<PlansOf> {
  if (given !== undefined) {
    return async () => {
      noteBilledPlans(session, new Map(), given);
      return [given];
    };
  }
  const known = await localPlans(session, dbFlag);
  let found: Promise<string[]> | undefined;
  return (client) =>
    (found ??= (async () => {
      const all = withShortUrlPlans(known, await shortUrlPlans(client));
      noteBilledPlans(session, all, undefined);
      return [...all.keys()];
    })());
}

/** The plans the profile and the mirror know (none from a mirror that does not exist, unless --db named it). */
async function localPlans(session: Session, dbFlag: string | undefined): Promise<Map<string, PlanSource[]>> {
  const { chain } = await session.settings();
  const added = await addedPlans(session);
  const stated = statedPlans(session);
  const location = await mirrorLocation(session, dbFlag);
  if (!mirrorExists(location)) {
    if (dbFlag !== undefined) throw new UsageError(`there is no mirror at ${printable(location.file)}`, `give --db the mirror ${payrecCommand(session)}sync fills, or leave --db out`);
    return knownPlans(undefined, chain, added, stated);
  }
  // The engine (DuckDB: a native addon, most of a second to load) only when there is a mirror to read.
  const db = await openMirror(session, location, 'read');
  try {
    if (!(await db.isMirror())) throw new UsageError(`${printable(location.file)} is not a payrec mirror: it holds none of payrec's tables`, `give another --db, or fill it with: ${payrecCommand(session)}sync`);
    return await knownPlans(db, chain, added, stated);
  } finally {
    db.close();
  }
}

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
function mergedTransfers(selected: readonly Endpoint[], filters: Record<string, string>, plans: PlansOf | undefined): MergedList {
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

/** --product: names or aliases, comma-separated; the list keeps the registry's order. */
function selectProducts(raw: string | undefined): Endpoint[] {
  if (raw === undefined) return [...TRANSFER_ENDPOINTS];
  const words = raw.split(',').map((w) => w.trim());
  const chosen = new Set<Endpoint>();
  for (const word of words) {
    const e = TRANSFER_ENDPOINTS.find((x) => x.product === word || productAliases[x.product] === word);
    if (!e) throw new UsageError(`invalid --product "${printable(word)}": expected products with transfers, comma-separated: ${aliasList()}`);
    chosen.add(e);
  }
  return TRANSFER_ENDPOINTS.filter((e) => chosen.has(e));
}
