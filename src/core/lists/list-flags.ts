import type { Command } from 'commander';
import { UsageError } from '../runtime/errors.js';
import { CONCURRENCY_HELP, optionSchemas, parseOption } from '../runtime/options.js';
import type { Session } from '../runtime/session.js';
import { parseDuration, parseTime } from '../runtime/time.js';
import { parsePeriod, PERIOD_FORMS } from '../runtime/period.js';
import { futureWindow } from '../runtime/future-window.js';
import { printable } from '../output/sanitize.js';
import { token as tokenSchema } from '../../registry/validators.js';
import type { RecordEnricher } from './enrich.js';
import { parseGateFlags, type GateFlags } from './list-gates.js';
import type { ListQuery } from './list-query.js';

// The flags of every list (a registry entry's, and `payrec transfers`): the window
// (--from, --to, --period, --sort), paging (--limit, --all, --page-size, --offset,
// --concurrency), what to make of the records (--summary, --chart, --follow) and the
// gates, parsed into the list query (list-query.ts) before any request. The flags of a
// record enricher (--verify, chain/verify-flags.ts; --currency, commands/currency-flags.ts over values/currency-flags.ts)
// come in through EnricherFlags: core/lists knows only the hook.

/** The flags of a record enricher a list offers: declared after the list's own, parsed in their turn. */
export interface EnricherFlags {
  add(cmd: Command): void;
  /** The enrichers the flags ask for (none when not given); `follow`: the list is followed, which an enricher of a window refuses. */
  parse?(flags: ListFlags, follow: boolean): RecordEnricher[];
  /**
   * The enrichers of flags checked with the session or a file (a profile's setting, a file
   * read whole), once the list's own flags are parsed (prepareEnrichers) and before any
   * request; added after those `parse` gave.
   */
  prepare?(flags: ListFlags, list: ListQuery, session: Session): Promise<RecordEnricher[]>;
}

/** `hasTokenFilter`: the list's own --token filter also picks the token to chart. */
export function addListOptions(cmd: Command, timeWindow: boolean, hasTokenFilter: boolean, enrichers: readonly EnricherFlags[] = []): void {
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
    .option('--concurrency <n>', CONCURRENCY_HELP);
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
  for (const e of enrichers) e.add(cmd);
}

export interface ListFlags extends GateFlags {
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
 * the output takes the whole window unless --limit is given (takesWholeWindow);
 * `enrichers`: the enrichers' flags the list offers (addListOptions).
 */
export function parseListFlags(flags: ListFlags, nowMs: number, hasTokenFilter: boolean, zone: string, toFile = false, enrichers: readonly EnricherFlags[] = []): ListQuery {
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
  const concurrency = flags.concurrency !== undefined ? parseOption(optionSchemas.concurrency, flags.concurrency, '--concurrency') : undefined;
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
  const added = enrichers.flatMap((e) => e.parse?.(flags, Boolean(flags.follow)) ?? []);
  if (added.length > 0) query.enrichers = added;
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

/** Adds the enrichers the `prepare` of each enricher's flags asks for, in turn, to the parsed list (parseListFlags): exit 2 before any request. */
export async function prepareEnrichers(flags: ListFlags, list: ListQuery, session: Session, enrichers: readonly EnricherFlags[]): Promise<void> {
  for (const e of enrichers) {
    const added = (await e.prepare?.(flags, list, session)) ?? [];
    if (added.length > 0) list.enrichers = [...(list.enrichers ?? []), ...added];
  }
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
