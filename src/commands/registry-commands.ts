import type { Command } from 'commander';
import { endpoints } from '../registry/endpoints.js';
import type { Endpoint } from '../registry/types.js';
import { PRODUCTS } from '../registry/types.js';
import { ApiError, UsageError } from '../core/runtime/errors.js';
import { flagOf } from '../core/runtime/options.js';
import { runEndpoint } from '../core/lists/run-endpoint.js';
import type { Session } from '../core/runtime/session.js';
import { printable } from '../core/output/sanitize.js';
import type { CommandAction } from '../core/runtime/action.js';
import { confirm } from '../core/runtime/prompt.js';
import { commandAt, topCommand } from './tree.js';
import { whereIdsComeFrom } from './id-hints.js';
import { addGateOptions } from '../core/lists/list-gates.js';
import { addListOptions, parseListFlags, prepareEnrichers, takesWholeWindow, type EnricherFlags, type ListFlags } from '../core/lists/list-flags.js';
import { hasStatus, hasSuccess } from '../registry/outcome.js';
import { VERIFY_FLAGS } from '../chain/verify-flags.js';
import { verifiable } from '../chain/verifiable.js';
import { CURRENCY_FLAGS } from './currency-flags.js';
import { amountFields } from '../core/lists/summary.js';

// The generic builder (Stripe CLI's OperationCmd): every registry entry becomes a
// command. Entries that share a command path (billings by plan or by subscription)
// become one command; the path parameters the user gives choose the endpoint.

export function addRegistryCommands(program: Command, action: CommandAction): void {
  for (const product of PRODUCTS) topCommand(program, product);
  for (const group of groupByCommand(endpoints)) {
    const first = group[0];
    const parent = commandAt(topCommand(program, first.product), first.command.slice(0, -1));
    const cmd = parent.command(first.command.at(-1)!).description(first.summary);
    defineOptions(cmd, group);
    // A delete prints no records (its answer is undocumented): it refuses -o like other actions.
    cmd.action(action((session, c) => runGroup(session, c, group), { output: group.some((e) => e.method !== 'DELETE') }));
  }
}

function groupByCommand(all: readonly Endpoint[]): Endpoint[][] {
  const groups = new Map<string, Endpoint[]>();
  for (const e of all) {
    const key = [e.product, ...e.command].join(' ');
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  return [...groups.values()];
}

function defineOptions(cmd: Command, group: Endpoint[]): void {
  const seen = new Set<string>();
  const args = group[0].params.filter((p) => p.as === 'argument');
  for (const a of args) cmd.argument(`<${kebab(a.name)}>`, a.help);
  for (const e of group) {
    for (const p of e.params.filter((p) => p.as === 'flag')) {
      if (!seen.has(p.name)) cmd.option(`${flagOf(p.name)} <id>`, p.help);
      seen.add(p.name);
    }
  }
  for (const e of group) {
    for (const f of e.filters) {
      if (!seen.has(f.name)) cmd.option(`${flagOf(f.name)} <value>`, f.help);
      seen.add(f.name);
    }
  }
  if (group.some((e) => e.confirm)) cmd.option('-y, --yes', 'do not ask for confirmation (required when not on a terminal)');
  if (group.some((e) => e.method === 'DELETE')) cmd.option('--ignore-missing', 'exit 0 when it is already gone (404), for provisioning jobs run again');
  if (group.some((e) => e.kind === 'list')) {
    const enrichers = [...(group.some((e) => verifiable(e.collection)) ? [VERIFY_FLAGS] : []), ...(group.some((e) => e.timeWindow && amountFields(e.record).length > 0) ? [CURRENCY_FLAGS] : [])];
    addListOptions(cmd, group.some((e) => e.timeWindow), seen.has('token'), enrichers);
    addGateOptions(cmd, group.some(hasStatus), group.some(hasSuccess) ? 'all' : 'none');
  }
  const examples = group.flatMap((e) => e.examples);
  cmd.addHelpText('after', `\nExamples:\n${examples.map((x) => `  $ ${x}`).join('\n')}\n`);
}

// Every list parses every enricher's flags: those a list does not declare are never given,
// and a profile's currency (config set currency) values every list.
const LIST_ENRICHERS: readonly EnricherFlags[] = [VERIFY_FLAGS, CURRENCY_FLAGS];

async function runGroup(session: Session, cmd: Command, group: Endpoint[]): Promise<void> {
  const opts = cmd.opts() as Record<string, string | boolean | undefined>;
  const endpoint = chooseEndpoint(group, opts);
  const pathValues: Record<string, string> = {};
  const args = endpoint.params.filter((p) => p.as === 'argument');
  args.forEach((p, i) => (pathValues[p.name] = cmd.args[i]));
  for (const p of endpoint.params.filter((p) => p.as === 'flag')) pathValues[p.name] = opts[p.name] as string;
  for (const p of endpoint.params) {
    const label = p.as === 'flag' ? flagOf(p.name) : `<${kebab(p.name)}>`;
    validate(p.schema, pathValues[p.name], label);
  }
  const filters: Record<string, string> = {};
  for (const f of endpoint.filters) {
    const value = opts[f.name];
    if (typeof value === 'string') filters[f.name] = validate(f.schema, value, flagOf(f.name));
  }
  if (endpoint.confirm) await confirmOrRefuse(session, endpoint, pathValues, opts.yes === true);
  const list =
    endpoint.kind === 'list'
      ? parseListFlags(opts as ListFlags, session.ctx.now(), endpoint.filters.some((f) => f.name === 'token'), session.zone, takesWholeWindow(session, opts as ListFlags), LIST_ENRICHERS)
      : undefined;
  if (list && !endpoint.timeWindow) {
    list.to = undefined;
  }
  if (list) await prepareEnrichers(opts as ListFlags, list, session, LIST_ENRICHERS);
  try {
    await runEndpoint(session, endpoint, pathValues, filters, list);
    if (endpoint.method !== 'GET') session.wrote();
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
    const what = missingThing(endpoint, pathValues);
    if (endpoint.method === 'DELETE' && opts.ignoreMissing) {
      session.note(`${what}: nothing to delete (--ignore-missing)`);
      return;
    }
    // A plan's webhook: the 404 says the plan has none (the id may well be right).
    if (endpoint.path.endsWith('/webhook')) throw new ApiError(`${what} (or no such plan on this chain)`, 404, endpoint.path, `set one: payrec fr webhook set --plan-id ${pathValues.planId} URL`);
    throw err;
  }
}

/** What a 404 of `endpoint` means, in words. */
function missingThing(endpoint: Endpoint, values: Record<string, string>): string {
  if (endpoint.path.endsWith('/webhook')) return `plan ${values.planId} has no webhook`;
  return `${endpoint.command.slice(0, -1).join(' ').replace(/-/g, ' ').replace(/s$/, '')} ${endpoint.params.map((p) => values[p.name]).join(' ')} was not found`;
}

async function confirmOrRefuse(session: Session, endpoint: Endpoint, values: Record<string, string>, yes: boolean): Promise<void> {
  if (yes || session.flags.dryRun) return;
  const what = `${endpoint.command.slice(0, -1).join(' ')} ${endpoint.params.map((p) => values[p.name]).join(' ')}`.trim();
  if (!session.ctx.stdinIsTTY || !session.ctx.stderrIsTTY) {
    throw new UsageError(`refusing to ${endpoint.command.at(-1)} ${what} without --yes (not on a terminal)`);
  }
  if (!(await confirm(session.ctx, `${endpoint.command.at(-1)} ${what} on ${(await session.settings()).chain}?`))) {
    throw new UsageError('cancelled: nothing was deleted');
  }
}

/** Picks the endpoint whose flag parameters are exactly those given. */
function chooseEndpoint(group: Endpoint[], opts: Record<string, unknown>): Endpoint {
  const given = (e: Endpoint) => e.params.filter((p) => p.as === 'flag').map((p) => p.name);
  const allFlags = [...new Set(group.flatMap(given))];
  const provided = allFlags.filter((n) => opts[n] !== undefined);
  const endpoint = group.find((e) => {
    const names = given(e);
    return names.length === provided.length && names.every((n) => provided.includes(n));
  });
  if (!endpoint) {
    const ways = group.map((e) => given(e).map(flagOf).join(' and ') || 'no id flag');
    throw new UsageError(`give ${ways.join(', or ')}${provided.length ? ` (got ${provided.map(flagOf).join(' and ')})` : ''}`, whereIdsComeFrom(group[0].product, allFlags));
  }
  for (const e of group) {
    for (const f of e.filters) {
      if (opts[f.name] !== undefined && !endpoint.filters.some((g) => g.name === f.name)) {
        const needs = group.find((x) => x.filters.some((g) => g.name === f.name))!;
        throw new UsageError(`${flagOf(f.name)} works only with ${given(needs).map(flagOf).join(' and ')}`);
      }
    }
  }
  return endpoint;
}

function validate(schema: Endpoint['params'][number]['schema'], value: string, label: string): string {
  const r = schema.safeParse(value);
  if (!r.success) throw new UsageError(`invalid ${label} "${printable(value)}": ${r.error.issues[0].message}`);
  return r.data;
}

function kebab(name: string): string {
  return flagOf(name).slice(2);
}
