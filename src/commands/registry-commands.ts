import type { Command } from 'commander';
import { endpoints } from '../registry/endpoints.js';
import { z } from 'zod';
import type { Endpoint, Product } from '../registry/types.js';
import { productAliases } from '../registry/products.js';
import { PRODUCTS } from '../registry/types.js';
import { ApiError, UsageError } from '../core/runtime/errors.js';
import { flagOf, optionSchemas, parseOption } from '../core/runtime/options.js';
import { runEndpoint, type ListQuery } from '../core/lists/run-endpoint.js';
import type { Session } from '../core/runtime/session.js';
import { parseDuration, parseTime } from '../core/runtime/time.js';
import { parsePeriod, PERIOD_FORMS } from '../core/runtime/period.js';
import { futureWindow } from '../core/runtime/future-window.js';
import { token as tokenSchema } from '../registry/validators.js';
import { printable } from '../core/output/sanitize.js';
import type { CommandAction } from '../core/runtime/action.js';
import { confirm } from '../core/runtime/prompt.js';
import { commandAt, topCommand } from './tree.js';
import { addGateOptions, parseGateFlags, type GateFlags } from './list-gates.js';
import { hasStatus, hasSuccess } from '../registry/outcome.js';
import { addVerifyOptions, parseVerifyFlags, type VerifyFlags } from './verify-flags.js';
import { verifiable } from '../chain/verifiable.js';
import { verifyEnricher } from '../chain/list-verification.js';
import { amountFields } from '../core/lists/summary.js';
import { addCurrencyEnricher, addCurrencyOptions, type CurrencyFlags } from './currency-flags.js';

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
    addListOptions(cmd, group.some((e) => e.timeWindow), seen.has('token'), group.some((e) => verifiable(e.collection)));
    if (group.some((e) => e.timeWindow && amountFields(e.record).length > 0)) addCurrencyOptions(cmd);
    addGateOptions(cmd, group.some(hasStatus), group.some(hasSuccess) ? 'all' : 'none');
  }
  const examples = group.flatMap((e) => e.examples);
  cmd.addHelpText('after', `\nExamples:\n${examples.map((x) => `  $ ${x}`).join('\n')}\n`);
}

/** `hasTokenFilter`: the list's own --token filter also picks the token to chart. */
export function addListOptions(cmd: Command, timeWindow: boolean, hasTokenFilter: boolean, verifiable = false): void {
  if (timeWindow) {
    cmd
      .option('--from <time>', 'oldest record: Unix seconds, ISO 8601 date or date-time, or an age (30m, 24h, 7d, 2w); not after now')
      .option('--to <time>', 'newest record, same forms as --from; a date alone includes that whole day (default: now, pinned when the command starts)')
      .option('--period <period>', `a calendar period in --tz, from its start up to the next one's (one not yet begun is refused): ${PERIOD_FORMS}`)
      .option('--sort <order>', 'asc or desc by timestamp (default desc)');
  }
  cmd
    .option('--limit <n>', 'most records to return (default 100)')
    .option('--all', 'every record (pages through the whole list)')
    .option('--page-size <n>', 'records per request, 1–1000 (default: the smaller of --limit and 1000)')
    .option('--offset <n>', 'skip this many records first')
    .option('--concurrency <n>', 'pages fetched at once with --all (default 4)');
  // Lists without a time window (short urls) have no status or amount to summarise.
  if (timeWindow) {
    cmd
      .option('--summary', 'print count, counts per status, first/last time and exact totals per token and status instead of the records')
      .option('--chart <period>', 'bar chart of records per day, week or month (with --token: of that token\'s amount); -f json|jsonl|csv|xlsx: its series as rows');
    if (!hasTokenFilter) cmd.option('--token <symbol>', 'with --chart: chart the amount of this token instead of the count');
    cmd
      .option('--follow', 'keep polling and print each new record once, on a terminal as one growing table with late arrivals marked (Ctrl-C to stop)')
      .option('--interval <seconds>', 'with --follow: seconds between polls (default 10)')
      .option('--lookback <duration>', 'with --follow: how late a record may appear and still be printed (default 10m)');
  }
  if (verifiable) addVerifyOptions(cmd);
}

export interface ListFlags extends GateFlags, VerifyFlags, CurrencyFlags {
  summary?: boolean;
  chart?: string;
  token?: string;
  follow?: boolean;
  period?: string;
  interval?: string;
  lookback?: string;
  from?: string;
  to?: string;
  sort?: string;
  limit?: string;
  all?: boolean;
  pageSize?: string;
  offset?: string;
  concurrency?: string;
}

/**
 * Whether a list's output takes its whole window unless --limit is given: an export to a
 * file (-o), and a pipe or a redirect given a window (--period, --from, --to): a cron
 * job's `--period yesterday -f jsonl > day.jsonl` gets the whole day. A terminal, and
 * a pipe without a window, keep the default limit and its notice.
 */
export function takesWholeWindow(session: Session, flags: Pick<ListFlags, 'period' | 'from' | 'to'>): boolean {
  const windowGiven = flags.period !== undefined || flags.from !== undefined || flags.to !== undefined;
  return session.flags.output !== undefined || (!session.ctx.stdoutIsTTY && windowGiven);
}

/**
 * `zone`: --tz, where the days of --period and of date-only --from/--to begin; `toFile`:
 * the output takes the whole window unless --limit is given (takesWholeWindow).
 */
export function parseListFlags(flags: ListFlags, nowMs: number, hasTokenFilter: boolean, zone: string, toFile = false): ListQuery {
  if (flags.all && flags.limit !== undefined) throw new UsageError('give either --limit or --all, not both');
  const gates = parseGateFlags(flags);
  // A summary, chart, count or jq answer over the first 100 records would answer the wrong
  // question, and an export to a file is the whole window: they read all of it unless
  // --limit says otherwise.
  const computed = flags.summary || flags.chart !== undefined || gates.count || gates.jq !== undefined;
  const whole = flags.all || ((computed || (toFile && !flags.follow)) && flags.limit === undefined);
  const limit = whole ? Infinity : flags.limit !== undefined ? parseOption(optionSchemas.limit, flags.limit, '--limit') : 100;
  // --limit counts matching records: a filtered list reads full pages to find them.
  const pageSize =
    flags.pageSize !== undefined ? parseOption(optionSchemas.pageSize, flags.pageSize, '--page-size') : gates.statuses ? 1000 : Math.min(limit, 1000);
  const offset = flags.offset !== undefined ? parseOption(optionSchemas.offset, flags.offset, '--offset') : 0;
  const concurrency = flags.concurrency !== undefined ? parseOption(optionSchemas.concurrency, flags.concurrency, '--concurrency') : 4;
  const { from, to } = windowOf(flags, nowMs, zone);
  const sort = flags.sort !== undefined ? parseOption(optionSchemas.sort, flags.sort, '--sort') : undefined;
  const query: ListQuery = { window: { limit, pageSize, offset, concurrency }, from, to, sort, ...gates };
  const modes = [
    flags.summary && '--summary',
    flags.chart !== undefined && '--chart',
    flags.follow && '--follow',
    gates.count && '--count',
  ].filter(Boolean);
  if (modes.length > 1) throw new UsageError(`give only one of ${modes.join(', ')}`);
  // --jq reads the JSON that -f json prints: records, or a summary; a chart or a follow is not one document.
  if (gates.jq !== undefined && flags.follow) throw new UsageError('--jq does not go with --follow');
  query.summary = flags.summary;
  const verify = parseVerifyFlags(flags);
  if (verify) query.enrichers = [verifyEnricher(verify)];
  if (verify && flags.follow) throw new UsageError('--verify checks a window of records, and --follow never ends: give a --from/--to window instead');
  if (flags.chart !== undefined) {
    query.chart = { period: parseOption(optionSchemas.period, flags.chart, '--chart'), zone };
    if (flags.token !== undefined) query.chart.token = parseOption(tokenSchema, flags.token, '--token');
  } else if (flags.token !== undefined && !hasTokenFilter) {
    throw new UsageError('--token goes with --chart (to filter records by token, use the list\'s own --token where it has one)');
  }
  if (flags.follow) {
    if (gates.failIfAny) throw new UsageError('--fail-if-any gives its answer when the list ends, and --follow never ends: give a --from/--to window instead');
    if (flags.all || flags.limit !== undefined || flags.offset !== undefined || flags.to !== undefined || flags.period !== undefined) {
      throw new UsageError('--follow prints new records as they come: it does not take --all, --limit, --offset, --to or --period');
    }
    query.to = undefined;
    query.follow = {
      startedAt: Math.floor(nowMs / 1000),
      intervalMs: parseOption(optionSchemas.interval, flags.interval ?? '10', '--interval') * 1000,
      lookbackSeconds: parseDuration(flags.lookback ?? '10m', '--lookback'),
    };
  } else if (flags.interval !== undefined || flags.lookback !== undefined) {
    throw new UsageError(`${flags.interval !== undefined ? '--interval' : '--lookback'} goes with --follow`);
  }
  return query;
}

/**
 * [from, to] in inclusive Unix seconds (the API's), from --from/--to or --period.
 * `to` is pinned to the start of the command when not given, and a period that
 * reaches into the future ends now: the window is what existed then. Records that
 * arrive meanwhile with a timestamp inside it (late ones) are the paginator's care.
 */
export function windowOf(flags: Pick<ListFlags, 'period' | 'from' | 'to'>, nowMs: number, zone: string): { from?: number; to: number } {
  const now = Math.floor(nowMs / 1000);
  if (flags.period !== undefined) {
    const other = flags.from !== undefined ? '--from' : flags.to !== undefined ? '--to' : undefined;
    if (other) throw new UsageError(`give either --period or ${other}, not both (a period is its own from and to)`);
    const span = parsePeriod(flags.period, now, zone);
    if (!span) throw new UsageError(`invalid --period "${printable(flags.period)}": expected one of ${PERIOD_FORMS}`);
    if (span.start > now) throw futureWindow(`--period "${printable(flags.period)}" begins`, now, zone);
    // Half-open [start, end) as the API's inclusive seconds: whole seconds make end − 1 exact.
    // A period under way ends now.
    return { from: span.start, to: Math.min(span.end - 1, now) };
  }
  const from = flags.from !== undefined ? parseTime(flags.from, nowMs, '--from', zone) : undefined;
  if (from !== undefined && from > now) throw futureWindow(`--from "${printable(flags.from!)}" is`, now, zone);
  const to = flags.to !== undefined ? parseTime(flags.to, nowMs, '--to', zone, true) : now;
  if (from !== undefined && from > to) {
    // Quote what the user typed.
    throw new UsageError(`--from "${printable(flags.from!)}" is later than --to "${printable(flags.to!)}"`);
  }
  return { from, to };
}

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
      ? parseListFlags(opts as ListFlags, session.ctx.now(), endpoint.filters.some((f) => f.name === 'token'), session.zone, takesWholeWindow(session, opts as ListFlags))
      : undefined;
  if (list && !endpoint.timeWindow) {
    list.to = undefined;
  }
  if (list) await addCurrencyEnricher(list, opts as CurrencyFlags, session, Boolean(opts.summary));
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

/**
 * Where the ids a command asks for can be read: the product's lists whose records carry
 * that field and that do not themselves need it ("find plan ids with: payrec fr
 * short-urls list --columns planId"). Derived from the registry, so it stays true.
 */
export function whereIdsComeFrom(product: Product, names: string[]): string | undefined {
  const found = names.flatMap((name) => {
    const sources = endpoints.filter(
      (e) => e.product === product && e.kind === 'list' && e.record instanceof z.ZodObject && name in e.record.shape && !e.params.some((p) => p.name === name),
    );
    const commands = [...new Set(sources.map((e) => ['payrec', productAliases[product], ...e.command, ...e.params.map((p) => `${flagOf(p.name)} ID`), '--columns', name].join(' ')))];
    return commands.length ? [`${name.replace(/Id$/, '')} ids with: ${commands.join(', or ')}`] : [];
  });
  return found.length ? `find ${found.join('; ')}` : undefined;
}

function validate(schema: Endpoint['params'][number]['schema'], value: string, label: string): string {
  const r = schema.safeParse(value);
  if (!r.success) throw new UsageError(`invalid ${label} "${printable(value)}": ${r.error.issues[0].message}`);
  return r.data;
}

function kebab(name: string): string {
  return flagOf(name).slice(2);
}
