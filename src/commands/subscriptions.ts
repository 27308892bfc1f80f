import type { Command } from 'commander';
import { offerColumns } from '../completion/declared-columns.js';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CommandAction } from '../core/runtime/action.js';
import { GateMatched, UsageError } from '../core/runtime/errors.js';
import { intervalContaining, intervalsOf, INTERVAL_KINDS, parsePeriod, PERIOD_FORMS, type IntervalKind, type Span } from '../core/runtime/period.js';
import { parseTime } from '../core/runtime/time.js';
import type { Session } from '../core/runtime/session.js';
import { formatLocal } from '../core/runtime/zone.js';
import { futureWindow } from '../core/runtime/future-window.js';
import { printable } from '../core/output/sanitize.js';
import { CURSOR_TABLE } from '../mirror/state.js';
import { createWriter, validateColumns } from '../core/output/writer.js';
import { refuseCountWorkbook } from '../core/lists/list-query.js';
import { parseOption } from '../core/runtime/options.js';
import { hexId } from '../registry/validators.js';
import { topCommand } from './tree.js';
import { addCountOptions } from './list-gates.js';
import { resolveCollections } from '../mirror/catalog.js';
import { MIRROR_KEEPER, mirrorLocation } from '../mirror/location.js';
import { makeKeptFolder } from '../core/runtime/trust.js';
import { serviceOf } from '../mirror/service.js';
import { MirrorDb, openOptions } from '../mirror/store.js';
import { syncMirror } from '../mirror/sync.js';
import { readSubscriptionRecords, subscriptionCoverage } from '../mirror/subscription-records.js';
import { ledger, metrics, SUBSCRIPTION_STATES, type MetricsRow, type SubscriptionRecords, type SubscriptionState } from '../subscriptions/engine.js';
import { renderBars } from '../core/lists/chart.js';

// `payrec subscriptions` (the ledger: one row per subscription as of --at) and
// `payrec metrics` (MRR movements, churn and dunning per calendar interval), both
// derived from the mirror's fixed-recurring billings and cancellations by the engine in
// src/subscriptions (DESIGN.md "Subscriptions and revenue metrics").

const LEDGER_COLUMNS = ['subscriptionId', 'planId', 'token', 'amount', 'period', 'mrr', 'started', 'paidThrough', 'lastAttempt', 'failedAttempts', 'cancelledAt', 'forced', 'state'];
const METRICS_COLUMNS = [
  'from', 'to', 'token', 'subscriptions_start', 'subscriptions_end', 'new', 'reactivated', 'churned',
  'mrr_start', 'mrr_end', 'mrr_new', 'mrr_reactivated', 'mrr_churned', 'logo_churn', 'revenue_churn',
  'attempts', 'failed', 'failure_rate', 'dunning_cases', 'recovered', 'lost',
];
const DAY = 86_400;
/** Intervals `payrec metrics` shows without --period or --from: the last twelve, up to now. */
const DEFAULT_INTERVALS = 12;

interface MirrorFlags {
  planId?: string[];
  at?: string;
  grace?: string;
  db?: string;
  sync?: boolean;
}

interface LedgerFlags extends MirrorFlags {
  state?: string;
  count?: boolean;
  failIfAny?: boolean;
}

interface MetricsFlags extends MirrorFlags {
  period?: string;
  from?: string;
  to?: string;
  interval?: string;
  by?: string;
  chart?: boolean;
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const collect = (value: string, previous: string[] = []) => [...previous, ...value.split(',')];

function addMirrorOptions(cmd: Command): Command {
  return cmd
    .option('--plan-id <id>', 'only these plans (repeatable; default: every plan whose billings and cancellations the mirror holds)', collect)
    .option('--at <time>', 'the instant the states are read at: Unix seconds, ISO 8601 date or date-time, or an age (default: now)')
    .option('--grace <days>', 'days a subscription stays past due after its paid time ends, before it lapses (default 30)')
    .option('--db <file>', 'the mirror file (env PAYREC_DB; default <XDG data dir>/payrec/<profile>.duckdb, emulator.duckdb with --emulator)')
    .option('--sync', 'first bring the fixed-recurring billings and cancellations of the mirror up to date (payrec sync)');
}

export function addSubscriptionCommands(program: Command, action: CommandAction): void {
  const subs = addMirrorOptions(offerColumns(topCommand(program, 'subscriptions'), LEDGER_COLUMNS))
    .argument('[subscriptionId]', 'show this one subscription whole (its billings and cancellation, read from the API: no mirror needed)')
    .option('--state <list>', `only subscriptions in these states: ${SUBSCRIPTION_STATES.join(', ')} (comma-separated)`)
    .addHelpText(
      'after',
      [
        '',
        'One row per subscription that has started (its first paid billing), as of --at:',
        '  active     paid through --at (cycleEnd is inclusive)',
        '  past_due   its paid time ended less than --grace days ago',
        '  lapsed     its paid time ended longer ago',
        '  cancelled  a confirmed cancellation was stamped before --at',
        'mrr is the amount per month (month-length periods divide by their months, others',
        'scale by the mean month of 2,629,746 s), exact to 18 decimals. Read from the mirror:',
        'sync first (payrec sync, or --sync).',
        '',
        'Examples:',
        '  $ payrec --emulator subscriptions --sync',
        '  $ payrec subscriptions --state past_due --fail-if-any      # CI: fail while any is past due',
        '  $ payrec subscriptions --at 2026-10-31T23:59:59Z -f csv -o october.csv',
        '  $ payrec --emulator subscriptions 0x4826911531a6c166eca8518e2e8cf98b91e2472a01de2fa0a4153f1a7f73d73a',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => runLedger(session, cmd), { output: true }));
  addCountOptions(subs, 'rows');

  addMirrorOptions(offerColumns(topCommand(program, 'metrics'), [...METRICS_COLUMNS, 'planId']))
    .option('--period <period>', `the calendar period to report: ${PERIOD_FORMS}`)
    .option('--from <time>', 'start of the report (Unix seconds, ISO 8601 date or date-time, or an age)')
    .option('--to <time>', 'end of the report, included (a date-only --to includes that whole day; default: now)')
    .option('--interval <unit>', `one row per ${INTERVAL_KINDS.join(', ')} in --tz (default month)`)
    .option('--by <key>', 'plan: one row per plan within each token')
    .option('--chart', 'draw MRR at the end of each interval, per token, in the terminal')
    .addHelpText(
      'after',
      [
        '',
        'One row per calendar interval [from, to) in --tz and token: subscriptions counted',
        '(active or past due) at from and at to, new, reactivated and churned ones, MRR at',
        'both ends and its movements (mrr_end = mrr_start + mrr_new + mrr_reactivated -',
        'mrr_churned, exactly), billing attempts and failures, and dunning cases with how',
        'many were recovered or lost as of --at. Read from the mirror: sync first.',
        '',
        'Examples:',
        '  $ payrec --emulator metrics --sync --period 2026',
        '  $ payrec metrics --period last-month --by plan -f csv -o mrr.csv',
        '  $ payrec metrics --period 2026-Q3 --interval week --tz Europe/Berlin',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => runMetrics(session, cmd), { output: true }));
}

/** The flags both commands share, checked before the mirror is touched. */
function parseMirrorFlags(session: Session, flags: MirrorFlags): { plans: string[]; at: number; graceSeconds: number } {
  const plans = [...new Set((flags.planId ?? []).map((id) => parseOption(hexId, id, '--plan-id').toLowerCase()))];
  const now = Math.floor(session.ctx.now() / 1000);
  const at = flags.at === undefined ? now : parseTime(flags.at, session.ctx.now(), '--at', session.zone);
  // States after now would assume that nobody pays from here on: a guess, not a record.
  if (at > now) {
    throw new UsageError(`--at "${printable(flags.at!)}" is after now (${formatLocal(now, session.zone)} ${session.zone}): states are known up to now`, 'leave --at out for the states as of now');
  }
  const grace = flags.grace ?? '30';
  if (!/^\d+$/.test(grace) || Number(grace) > 3660) {
    throw new UsageError(`invalid --grace "${printable(grace)}": expected a whole number of days from 0 to 3660`);
  }
  return { plans, at, graceSeconds: Number(grace) * DAY };
}

/** The subscription records of the mirror (synced first with --sync), and what the reader must know about their reach. */
async function loadRecords(session: Session, flags: MirrorFlags, plans: string[], at: number, windowStart?: number): Promise<{ records: SubscriptionRecords; plans: string[] }> {
  const location = await mirrorLocation(session, flags.db);
  const sync = `payrec ${session.flags.emulator ? '--emulator ' : ''}sync`;
  if (flags.sync) {
    if (location.isDefault) await makeKeptFolder(dirname(location.file), MIRROR_KEEPER);
    const db = await MirrorDb.open(location.file, 'write', openOptions(session));
    try {
      // Without plans given, the whole default set: plans are found in short urls and transfers.
      const collections = plans.length > 0 ? resolveCollections(['fr/billings', 'fr/cancellations']) : undefined;
      const reports = await syncMirror(session, db, await serviceOf(session), { collections, ids: { planId: plans, strategyId: [] }, lookback: 3600, full: false, concurrency: 4 });
      const count = (k: 'fetched' | 'new' | 'updated') => reports.reduce((n, r) => n + r[k], 0);
      session.notice(`synced: ${count('fetched')} records fetched, ${count('new')} new, ${count('updated')} updated`);
    } finally {
      db.close();
    }
  } else if (!existsSync(location.file)) {
    throw new UsageError(`there is no mirror at ${printable(location.file)} yet`, `create it with: ${sync} (or add --sync)`);
  }
  const { chain } = await session.settings();
  const db = await MirrorDb.open(location.file, 'read', openOptions(session));
  try {
    // A DuckDB file payrec never synced into (a sync refused before its first write, another tool's database).
    const own = await db.rows(`SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = '${CURSOR_TABLE}'`);
    if (Number(own[0].n) === 0) {
      throw new UsageError(`${printable(location.file)} is not a payrec mirror: it holds none of payrec's tables`, `fill it with: ${sync} (or add --sync), or give another --db`);
    }
    const coverage = await subscriptionCoverage(db, chain, plans);
    if (coverage.plans.length === 0) {
      throw new UsageError(`the mirror holds no fixed-recurring plan of chain ${chain}`, `${sync} --plan-id ID (or add --sync); plan ids are in payrec fr short-urls list and payrec transfers --columns planId`);
    }
    // Records before a plan's synced start were never read: figures over them would be partial.
    const late = [...coverage.since].filter(([, since]) => since > 0);
    const cut = late.find(([, since]) => windowStart !== undefined && windowStart < since);
    if (cut) {
      throw new UsageError(
        `the mirror holds plan ${cut[0]} only from ${formatLocal(cut[1], session.zone)} ${session.zone} (sync --from), after the report's start ${formatLocal(windowStart!, session.zone)}: its figures would leave records out`,
        `start the report later (--from, --period), or read the plan whole: payrec sync fr/billings fr/cancellations --plan-id ${cut[0]} --full`,
      );
    }
    if (windowStart === undefined && late.length > 0) {
      session.warn(`${late.length === 1 ? 'a plan was' : `${late.length} plans were`} synced with sync --from (${late.map(([p, t]) => `${p} from ${formatLocal(t, session.zone)}`).join(', ')}): subscriptions that began earlier show only what followed`);
    }
    const upTo = coverage.syncedUpTo;
    const plural = coverage.plans.length === 1 ? 'plan' : 'plans';
    session.note(
      `from the mirror: ${coverage.plans.length} ${plural}, billings and cancellations synced up to ${upTo === undefined ? '(never)' : `${formatLocal(upTo, session.zone)} ${session.zone}`}` +
        (upTo !== undefined && at > upTo + 1 ? `; as of ${formatLocal(at, session.zone)}, so records since then are not counted (${sync}, or --sync)` : ''),
    );
    return { records: await readSubscriptionRecords(db, chain, coverage.plans), plans: coverage.plans };
  } finally {
    db.close();
  }
}

function parseStates(text: string | undefined): Set<SubscriptionState> | undefined {
  if (text === undefined) return undefined;
  const states = new Set<SubscriptionState>();
  for (const raw of text.split(',')) {
    const s = raw.trim().toLowerCase().replace('-', '_');
    if (!SUBSCRIPTION_STATES.includes(s as SubscriptionState)) {
      throw new UsageError(`invalid --state "${printable(raw)}": expected ${SUBSCRIPTION_STATES.join(', ')} (comma-separated)`);
    }
    states.add(s as SubscriptionState);
  }
  return states;
}

async function runLedger(session: Session, cmd: Command): Promise<void> {
  const flags = cmd.opts() as LedgerFlags;
  const states = parseStates(flags.state);
  const { plans, at, graceSeconds } = parseMirrorFlags(session, flags);
  const one = cmd.args[0] as string | undefined;
  if (one !== undefined) {
    const id = parseOption(hexId, one, 'SUBSCRIPTION_ID').toLowerCase();
    const mirrorOnly = (['state', 'planId', 'sync', 'db', 'count', 'failIfAny'] as const).filter((k) => flags[k] !== undefined);
    if (mirrorOnly.length > 0) throw new UsageError(`one subscription is read from the API: --${mirrorOnly.map(kebab).join(', --')} ${mirrorOnly.length === 1 ? 'is' : 'are'} for the ledger`);
    return (await import('./subscription-show.js')).showSubscription(session, id, at, graceSeconds);
  }
  refuseCountWorkbook(flags.count, session.format);
  const output = session.output('list', LEDGER_COLUMNS);
  if (output.columns) validateColumns(output.columns, LEDGER_COLUMNS);
  const { records } = await loadRecords(session, flags, plans, at);
  const rows = ledger(records, { at, graceSeconds }).filter((r) => states === undefined || states.has(r.state));
  const target = await session.openOutput();
  if (flags.count) session.ctx.stdout.write(`${rows.length}\n`);
  else {
    const writer = createWriter(target.stream, output);
    for (const r of rows) await writer.write({ ...r });
    await writer.end();
  }
  await target.commit();
  if (rows.length === 0 && !flags.count) session.note('no subscriptions match');
  if (flags.failIfAny && rows.length > 0) throw new GateMatched(rows.length, 'subscription');
}

/** The report's window: --period, or --from/--to, or the last twelve intervals; never past now. */
function metricsWindow(session: Session, flags: MetricsFlags, kind: IntervalKind): Span {
  const { zone } = session;
  const nowMs = session.ctx.now();
  const now = Math.floor(nowMs / 1000);
  if (flags.period !== undefined && (flags.from !== undefined || flags.to !== undefined)) {
    throw new UsageError('give either --period or --from/--to, not both');
  }
  let window: Span;
  if (flags.period !== undefined) {
    const span = parsePeriod(flags.period, now, zone);
    if (!span) throw new UsageError(`invalid --period "${printable(flags.period)}": expected ${PERIOD_FORMS}`);
    if (span.start >= now) throw futureWindow(`--period "${printable(flags.period)}" begins`, now, zone);
    window = span;
  } else if (flags.from !== undefined || flags.to !== undefined) {
    const start = flags.from === undefined ? undefined : parseTime(flags.from, nowMs, '--from', zone);
    const end = flags.to === undefined ? now : parseTime(flags.to, nowMs, '--to', zone, true) + 1;
    if (start === undefined) throw new UsageError('--to needs --from (or give --period)');
    if (start >= now) throw futureWindow(`--from "${printable(flags.from!)}" is`, now, zone);
    if (start >= end) throw new UsageError('--from is after --to: the report would be empty');
    window = { start, end };
  } else {
    let start = intervalContaining(kind, now, zone).start;
    for (let i = 1; i < DEFAULT_INTERVALS; i++) start = intervalContaining(kind, start - 1, zone).start;
    window = { start, end: now };
  }
  // A report never reads states in the future: its last interval ends now (a record
  // stamped this very second is the next report's).
  if (window.end > now) {
    session.note(`the last interval ends now (${formatLocal(now, zone)} ${zone}), not at its calendar end`);
    window.end = now;
  }
  return window;
}

async function runMetrics(session: Session, cmd: Command): Promise<void> {
  const flags = cmd.opts() as MetricsFlags;
  const kind = (flags.interval ?? 'month').toLowerCase() as IntervalKind;
  if (!INTERVAL_KINDS.includes(kind)) throw new UsageError(`invalid --interval "${printable(flags.interval!)}": expected ${INTERVAL_KINDS.join(', ')}`);
  if (flags.by !== undefined && flags.by !== 'plan') throw new UsageError(`invalid --by "${printable(flags.by)}": expected plan`);
  const byPlan = flags.by === 'plan';
  const { plans, at, graceSeconds } = parseMirrorFlags(session, flags);
  const window = metricsWindow(session, flags, kind);
  const columns = byPlan ? [...METRICS_COLUMNS.slice(0, 3), 'planId', ...METRICS_COLUMNS.slice(3)] : METRICS_COLUMNS;
  const output = session.output('list', columns);
  if (output.columns) validateColumns(output.columns, columns);
  if (flags.chart && session.flags.output !== undefined) throw new UsageError('--chart draws in the terminal: leave out -o (or drop --chart to export the rows)');
  const { records } = await loadRecords(session, flags, plans, at, window.start);
  const intervals = intervalsOf(kind, window, session.zone).map((s) => ({ from: s.start, to: s.end }));
  const rows = metrics(records, { intervals, at, graceSeconds, byPlan });
  if (flags.chart) return chartMrr(session, rows, kind);
  const target = await session.openOutput();
  const writer = createWriter(target.stream, output);
  for (const r of rows) await writer.write(byPlan ? { ...r } : withoutPlan(r));
  await writer.end();
  await target.commit();
  if (rows.length === 0) session.note('no subscription was counted, billed or in dunning in this window');
}

const withoutPlan = ({ planId: _planId, ...rest }: MetricsRow): Record<string, unknown> => rest;

/** An interval as people name it: 2026, 2026-Q4, 2026-10, or its first day. */
function intervalName(kind: IntervalKind, from: number, zone: string): string {
  const day = formatLocal(from, zone).slice(0, 10);
  if (kind === 'year') return day.slice(0, 4);
  if (kind === 'quarter') return `${day.slice(0, 4)}-Q${Math.floor((Number(day.slice(5, 7)) - 1) / 3) + 1}`;
  return kind === 'month' ? day.slice(0, 7) : day;
}

/** MRR at the end of each interval, one chart per token (tokens are never added together). */
function chartMrr(session: Session, rows: MetricsRow[], kind: IntervalKind): void {
  const tokens = [...new Set(rows.map((r) => r.token))].sort();
  if (tokens.length === 0) {
    session.ctx.stdout.write('no subscriptions to chart\n');
    return;
  }
  const charts = tokens.map((token) => {
    const bars = rows.filter((r) => r.token === token).map((r) => [intervalName(kind, r.from, session.zone), r.mrr_end] as [string, string]);
    return renderBars(`${token} MRR at the end of each ${kind} (${session.zone})`, bars, session.ctx.columns, session.color);
  });
  session.ctx.stdout.write(charts.join('\n'));
}
