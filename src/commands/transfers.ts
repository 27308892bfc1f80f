import type { Command } from 'commander';
import type { CommandAction } from '../core/runtime/action.js';
import { UsageError } from '../core/runtime/errors.js';
import { flagOf } from '../core/runtime/options.js';
import type { Session } from '../core/runtime/session.js';
import { printable } from '../core/output/sanitize.js';
import { runEndpoint } from '../core/lists/run-endpoint.js';
import { KEPT_BY_PAYREC, mergedTransfers } from '../core/lists/merged-transfers.js';
import { billedPlans } from '../mirror/plan-coverage.js';
import { productAliases } from '../registry/products.js';
import { perPlan, TRANSFER_ENDPOINTS, transferFilters } from '../registry/transfers.js';
import type { Endpoint } from '../registry/types.js';
import { addListOptions, parseListFlags, prepareEnrichers, takesWholeWindow, type ListFlags } from '../core/lists/list-flags.js';
import { VERIFY_FLAGS } from '../chain/verify-flags.js';
import { CURRENCY_FLAGS } from './currency-flags.js';
import { topCommand } from './tree.js';
import { addGateOptions } from '../core/lists/list-gates.js';
import { hasStatus, hasSuccess } from '../registry/outcome.js';
import { MIRROR_DB_FLAG, mirrorDbHelp } from '../mirror/location.js';

// `payrec transfers`: the transfers of every product (the registry's entries marked
// `transfers`) in one list, merged by time, through the same list machinery as each
// product's own `transfers` command: the one paginator walks each product exactly,
// mergeWalks orders them, and runEndpoint prints, summarises, charts or follows.
// Fixed-recurring billings (the subscription revenue) are listed per plan only: each
// known plan's billings are one more walk (DESIGN.md "Lists and exports"), and stderr
// says how many plans that is and where they were found (plan-coverage.ts). The list is
// core/lists/merged-transfers.ts; this file parses the flags.

const FILTERS = transferFilters();
/** A --token filter is also what --chart charts (as on each product's list). */
const HAS_TOKEN_FILTER = FILTERS.some((f) => f.filter.name === 'token');
/** Transfers are transactions of amounts: --verify and --currency. */
const ENRICHERS = [VERIFY_FLAGS, CURRENCY_FLAGS];
const aliasList = () => TRANSFER_ENDPOINTS.map((e) => `${e.product} (${productAliases[e.product]})`).join(', ');

export function addTransfersCommand(program: Command, action: CommandAction): void {
  const cmd = topCommand(program, 'transfers');
  cmd.option('--product <list>', `only these products, comma-separated, by name or alias: ${aliasList()}`);
  for (const { filter, products } of FILTERS) {
    const only = products.length === TRANSFER_ENDPOINTS.length || filter.name === KEPT_BY_PAYREC ? '' : ` (${products.join(', ')} only: narrow with --product)`;
    cmd.option(`${flagOf(filter.name)} <value>`, filter.help + only);
  }
  cmd.option(MIRROR_DB_FLAG, mirrorDbHelp("the mirror whose plans' billings are included too", "the profile's mirror, when there is one"));
  addListOptions(cmd, true, HAS_TOKEN_FILTER, ENRICHERS);
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
  const list = parseListFlags(opts, session.ctx.now(), HAS_TOKEN_FILTER, session.zone, takesWholeWindow(session, opts as ListFlags), ENRICHERS);
  await prepareEnrichers(opts, list, session, ENRICHERS);
  const plans = selected.some(perPlan) ? await billedPlans(session, opts.db as string | undefined, filters.planId) : undefined;
  // One connection per page in flight: the products share --concurrency, at least one page each.
  const fixed = list.window.concurrency;
  await session.client(fixed === undefined ? undefined : Math.max(fixed, selected.length));
  await runEndpoint(session, mergedTransfers(selected, filters, plans), {}, {}, list);
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
