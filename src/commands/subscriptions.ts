import type { Command } from 'commander';
import { offerColumns } from '../command-reference/declared-columns.js';
import type { CommandAction } from '../core/runtime/action.js';
import { UsageError } from '../core/runtime/errors.js';
import { intervalContaining, intervalsOf, INTERVAL_KINDS, parsePeriod, PERIOD_FORMS, type IntervalKind, type Span } from '../core/runtime/period.js';
import { parseTime } from '../core/runtime/time.js';
import type { Session } from '../core/runtime/session.js';
import { formatLocal } from '../core/runtime/zone.js';
import { futureWindow } from '../core/runtime/future-window.js';
import { printable } from '../core/output/sanitize.js';
import { validateColumns } from '../core/output/writer.js';
import type { OutputOptions } from '../core/output/options.js';
import { topCommand } from './tree.js';
import { addRowGateOptions, parseRowGates, printRows, type GateFlags, type RowGates } from '../core/lists/list-gates.js';
import type { CellKind } from '../core/output/document.js';
import { addMirrorOptions, loadRecords, noteAt, parseMirrorFlags, type MirrorFlags } from '../mirror/subscription-source.js';
import { refuseBlindGate } from '../mirror/plan-coverage.js';
import { ledger, metrics, movements, SUBSCRIPTION_STATES, type MetricsRow, type MovementRow, type RateOf, type SubscriptionState } from '../subscriptions/engine.js';
import type { EvidencedRate } from '../subscriptions/prepared-rates.js';
import { renderBars } from '../core/lists/chart.js';
import { addCurrencyOptions, parseCurrencyFlags, type CurrencyFlags } from '../values/currency-flags.js';
import { percentText } from '../core/output/percent.js';

// `payrec subscriptions` (the ledger: one row per subscription as of --at) and
// `payrec metrics` (MRR movements, churn and dunning per calendar interval), both
// derived from the mirror's fixed-recurring billings and cancellations by the engine in
// src/subscriptions (DESIGN.md "Subscriptions and revenue metrics").

const LEDGER_COLUMNS = ['subscriptionId', 'planId', 'token', 'amount', 'period', 'mrr', 'started', 'paidThrough', 'lastAttempt', 'failedAttempts', 'cancelledAt', 'forced', 'endsAt', 'daysPastDue', 'state'];
const METRICS_COLUMNS = [
  'from', 'to', 'token', 'subscriptions_start', 'subscriptions_end', 'new', 'reactivated', 'churned',
  'mrr_start', 'mrr_end', 'mrr_new', 'mrr_reactivated', 'mrr_churned', 'mrr_net', 'logo_churn', 'revenue_churn',
  'attempts', 'failed', 'failure_rate', 'dunning_cases', 'recovered', 'recovered_amount', 'lost', 'open', 'collected', 'failed_amount',
];
/** `metrics --movements`: one row per event, in the interval (from, to] that holds its instant. */
const MOVEMENT_COLUMNS = ['from', 'to', 'instant', 'subscriptionId', 'planId', 'token', 'kind', 'mrr_change'];
const MOVEMENT_ANSWERS = ['interval', 'instant', 'subscriptionId', 'token', 'kind', 'mrr_change'];
const MOVEMENT_TABLE_COLUMNS = [...MOVEMENT_ANSWERS, ...MOVEMENT_COLUMNS.filter((c) => !MOVEMENT_ANSWERS.includes(c))];
const MOVEMENT_CELLS = new Map<string, CellKind>([
  ['mrr_change', 'amount'],
  ...(['from', 'to', 'instant'] as const).map((c) => [c, 'time'] as const),
]);
/** On a terminal the columns that answer come first, and stay when the width is short (terminal-table.ts). */
const LEDGER_ANSWERS = ['subscriptionId', 'token', 'mrr', 'state', 'paidThrough'];
const LEDGER_TABLE_COLUMNS = [...LEDGER_ANSWERS, ...LEDGER_COLUMNS.filter((c) => !LEDGER_ANSWERS.includes(c))];
/** After the interval's name and the token (and plan). */
const METRICS_ANSWERS = ['mrr_end', 'mrr_net', 'new', 'churned', 'logo_churn'];
const RATIO_COLUMNS = ['logo_churn', 'revenue_churn', 'failure_rate'];
/** In xlsx, money and ratios are number cells with their exact text beside (xlsx.ts), times date cells. */
const LEDGER_CELLS = new Map<string, CellKind>([
  ...(['amount', 'mrr'] as const).map((c) => [c, 'amount'] as const),
  ...(['started', 'paidThrough', 'lastAttempt', 'cancelledAt', 'endsAt'] as const).map((c) => [c, 'time'] as const),
]);
const METRICS_CELLS = new Map<string, CellKind>([
  ...METRICS_COLUMNS.filter((c) => c.startsWith('mrr_') || c.endsWith('_amount') || c === 'collected' || RATIO_COLUMNS.includes(c)).map((c) => [c, 'amount'] as const),
  ...(['from', 'to'] as const).map((c) => [c, 'time'] as const),
]);
/** Intervals `payrec metrics` shows without --period or --from: the last twelve, up to --at. */
const DEFAULT_INTERVALS = 12;

interface WindowFlags {
  period?: string;
  from?: string;
  to?: string;
}

interface LedgerFlags extends MirrorFlags, CurrencyFlags, GateFlags, WindowFlags {
  state?: string;
  pastDueFor?: string;
}

interface MetricsFlags extends MirrorFlags, CurrencyFlags, GateFlags, WindowFlags {
  interval?: string;
  by?: string;
  chart?: boolean;
  movements?: boolean;
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export function addSubscriptionCommands(program: Command, action: CommandAction): void {
  const subs = addMirrorOptions(offerColumns(topCommand(program, 'subscriptions'), LEDGER_COLUMNS))
    .argument('[subscriptionId]', "one subscription's story: its id, a billing's transactionHash or the first 8+ hex characters of its id (from the mirror when it holds it, else from the API)")
    .option('--state <list>', `only subscriptions in these states: ${SUBSCRIPTION_STATES.join(', ')} (comma-separated; canceled is accepted)`)
    .option('--past-due-for <days>', 'only past-due subscriptions with at least this many whole days past due (daysPastDue)')
    .option('--period <period>', `with --state cancelled: those that ended in this calendar period (endsAt in it): ${PERIOD_FORMS}`)
    .option('--from <time>', 'with --state cancelled: those that ended at or after this time')
    .option('--to <time>', 'with --state cancelled: those that ended at or before this time (a date-only --to includes that whole day)')
    .addHelpText(
      'after',
      [
        '',
        'One row per subscription that has started (its first paid billing), as of --at:',
        '  active     paid through --at (cycleEnd is inclusive), or cancelled by its customer',
        '             and still in the period it paid for (endsAt)',
        '  past_due   its paid time ended less than --grace days ago',
        '  lapsed     its paid time ended longer ago',
        '  cancelled  forced by the plan (at once), or cancelled by its customer and its paid',
        '             period over',
        'mrr is the amount per month (month-length periods divide by their months, others',
        'scale by the mean month of 2,629,746 s), exact to 18 decimals. Read from the mirror:',
        'sync first (payrec sync, or --sync).',
        '',
        'Examples:',
        '  $ payrec --emulator subscriptions --sync',
        '  $ payrec subscriptions --state past_due --fail-if-any        # CI: fail while any is past due',
        '  $ payrec subscriptions --at 2026-10-31 -o october.xlsx        # as of the end of October 31',
        '  $ payrec subscriptions --past-due-for 7 --jq \'.[].subscriptionId\'',
        '  $ payrec subscriptions --state cancelled --period last-month      # who ended last month',
        '  $ payrec --emulator subscriptions 0x4826911531a6c166eca8518e2e8cf98b91e2472a01de2fa0a4153f1a7f73d73a',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => runLedger(session, cmd), { output: true }));
  // --currency: each MRR at the rate of its cycle's start (ChartMogul's rule), as lists value their records.
  addCurrencyOptions(subs, 'add the value of each MRR in this ISO 4217 currency (USD, EUR) at the rate in force at the cycleStart of its cycle: value, rate, rateTime, rateSource');
  addRowGateOptions(subs);

  const metricsCommand = addMirrorOptions(offerColumns(topCommand(program, 'metrics'), [...METRICS_COLUMNS, 'planId', 'interval']))
    .option('--period <period>', `the calendar period to report: ${PERIOD_FORMS}`)
    .option('--from <time>', 'start of the report (Unix seconds, ISO 8601 date or date-time, or an age)')
    .option('--to <time>', 'end of the report, included (a date-only --to includes that whole day; default: now)')
    .option('--interval <unit>', `one row per ${INTERVAL_KINDS.join(', ')} in --tz (default month)`)
    .option('--by <key>', 'plan: one row per plan within each token; token: one row per token (the default without --currency, which adds the tokens up)')
    .option('--chart', 'draw MRR at the end of each interval, per token, in the terminal')
    .option('--movements', 'one row per movement (new, reactivated, churned) instead of the totals: who moved, when, by how much; its sums are the rows\' figures')
    .addHelpText(
      'after',
      [
        '',
        'One row per calendar interval [from, to) in --tz and token, every interval of the',
        'window (zeros included): subscriptions counted (active or past due) at from and at',
        'to; movements as events: new (counted the first time), reactivated (again) and',
        'churned, each in the interval holding it, so months add up to their quarter and',
        'mrr_end = mrr_start + mrr_new + mrr_reactivated - mrr_churned, exactly; billing',
        'attempts and failures, and the cash: collected (paid billings) and failed_amount;',
        'dunning cases recovered, lost or open as of --at. The window',
        'ends at --at (default now): the last 12 intervals up to it unless --period or',
        '--from. Read from the mirror: sync first.',
        '',
        'Examples:',
        '  $ payrec --emulator metrics --sync --period 2026',
        '  $ payrec metrics --at 2026-10-31 --interval month -o books.xlsx   # the 12 months to October',
        '  $ payrec metrics --period last-month --by plan -f csv -o mrr.csv',
        '  $ payrec metrics --period 2026-Q3 --interval week --tz Europe/Berlin',
        '  $ payrec metrics --period 2026-10 --movements --jq \'.[] | select(.kind == "churned") | .subscriptionId\'',
        '  $ payrec metrics --period 2026-Q4 --currency USD --rates rates.csv   # across tokens, with mrr_fx',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => runMetrics(session, cmd), { output: true }));
  addCurrencyOptions(metricsCommand, 'every money figure in this ISO 4217 currency (USD, EUR), one row across tokens (--by splits it), with mrr_fx: each MRR at the rate of its cycle\'s start, billings at their timestamps');
  addRowGateOptions(metricsCommand);
}

/** --currency (or the profile's) with what values the figures, loaded only then (values bring big.js and the chain's client). */
async function currencyOf(flags: CurrencyFlags, session: Session) {
  const choice = await parseCurrencyFlags(flags, session);
  if (!choice) return undefined;
  const [rows, { rateSourceOf }] = await Promise.all([import('../subscriptions/valued-rows.js'), import('../mirror/rate-source.js')]);
  // The rate source is the chain's (values/ may not import chain/): opened here, handed to the rows' valuation.
  const valued = async <T>(s: Session, c: typeof choice, records: Parameters<typeof rows.valued>[3], compute: (rates: RateOf<EvidencedRate>) => T): Promise<T> =>
    rows.valued(s, c, await rateSourceOf(s, c), records, compute);
  return { choice, ...rows, valued };
}
type Valuing = NonNullable<Awaited<ReturnType<typeof currencyOf>>>;

function parseStates(text: string | undefined): Set<SubscriptionState> | undefined {
  if (text === undefined) return undefined;
  const states = new Set<SubscriptionState>();
  for (const raw of text.split(',')) {
    // "canceled": the American spelling (Stripe's status) names the same state.
    const word = raw.trim().toLowerCase().replace('-', '_');
    const s = word === 'canceled' ? 'cancelled' : word;
    if (!SUBSCRIPTION_STATES.includes(s as SubscriptionState)) {
      throw new UsageError(`invalid --state "${printable(raw)}": expected ${SUBSCRIPTION_STATES.join(', ')} (comma-separated)`);
    }
    states.add(s as SubscriptionState);
  }
  return states;
}

/** Ratios as tables show them: percentages, the same digits as the 8-place fraction (0.66666667 → 66.666667%). */
export function percent(fraction: unknown): unknown {
  return typeof fraction === 'string' ? percentText(fraction) : fraction;
}

async function runLedger(session: Session, cmd: Command): Promise<void> {
  const flags = cmd.opts() as LedgerFlags;
  const states = parseStates(flags.state);
  const pastDueFor = flags.pastDueFor === undefined ? undefined : parseDays(flags.pastDueFor, '--past-due-for');
  const { plans, at, graceSeconds } = parseMirrorFlags(session, flags);
  const one = cmd.args[0] as string | undefined;
  // `subscriptions list` (gh's habit): a word where an id goes is a command that does not exist.
  if (one !== undefined && /^[a-z-]+$/.test(one) && /[g-z]/.test(one)) {
    throw new UsageError(`payrec subscriptions takes no subcommand "${printable(one)}": without an argument it lists every subscription (the ledger), with an id it shows that one`, 'narrow the list with --state, --plan-id, --at');
  }
  if (one !== undefined) {
    const show = await import('./subscription-show.js');
    const id = show.parseSubscriptionArgument(one);
    const ledgerOnly = (['state', 'pastDueFor', 'planId', 'sync', 'count', 'failIfAny', 'jq', 'period', 'from', 'to', 'currency'] as const).filter((k) => flags[k] !== undefined);
    if (ledgerOnly.length > 0) throw new UsageError(`one subscription's story: --${ledgerOnly.map(kebab).join(', --')} ${ledgerOnly.length === 1 ? 'is' : 'are'} for the ledger`);
    noteAt(session, flags, at);
    return show.showSubscription(session, id, at, graceSeconds, flags.db);
  }
  // A window picks those that ended in it: their churn (the second after endsAt) falls in it, as metrics counts it.
  const window = explicitWindow(session, flags, at);
  if (window && !(states?.size === 1 && states.has('cancelled'))) {
    throw new UsageError('a window (--period, --from, --to) keeps the subscriptions that ended in it: it goes with --state cancelled alone', 'every movement of a window, lapses too: payrec metrics --movements --period P');
  }
  // Checked (and jq compiled, the rates file read) before the mirror is read.
  const gates = await parseRowGates(flags, session.format);
  const v = await currencyOf(flags, session);
  // Stryker disable next-line StringLiteral: equivalent; any kind but 'single' prints a list
  const output = session.output('list', v ? v.valuedLedgerColumns(LEDGER_TABLE_COLUMNS) : LEDGER_TABLE_COLUMNS);
  const allColumns = v ? v.valuedLedgerColumns(LEDGER_COLUMNS) : LEDGER_COLUMNS;
  if (output.columns) validateColumns(output.columns, allColumns);
  const { records, planCoverage } = await loadRecords(session, flags, plans, at, window?.start);
  refuseBlindGate(session, gates.failIfAny, planCoverage, flags.shortUrlPlans);
  noteAt(session, flags, at);
  const all = v ? await v.valued(session, v.choice, records, (rates) => ledger(records, { at, graceSeconds, rates })) : ledger(records, { at, graceSeconds });
  const rows = all.filter(
    (r) =>
      (states === undefined || states.has(r.state)) &&
      (pastDueFor === undefined || (r.state === 'past_due' && r.daysPastDue! >= pastDueFor)) &&
      (window === undefined || (r.endsAt! >= window.start && r.endsAt! < window.end)),
  );
  const printed = v ? rows.map((r) => v.valuedLedgerRow(r as Parameters<Valuing['valuedLedgerRow']>[0])) : (rows as unknown as Record<string, unknown>[]);
  const cells = v ? new Map([...LEDGER_CELLS, ...v.VALUE_CELLS]) : LEDGER_CELLS;
  await printRows(session, { ...output, cellKinds: cells, keepColumns: v ? [...LEDGER_ANSWERS, 'value'] : LEDGER_ANSWERS, emptyHeader: [...allColumns] }, gates, printed, 'subscription', v?.tableMoney(v.choice.currency, ['value']));
  if (rows.length === 0 && !gates.count) session.note('no subscriptions match');
}

/** A whole number of days (--past-due-for). */
function parseDays(text: string, flag: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 3660) throw new UsageError(`invalid ${flag} "${printable(text)}": expected a whole number of days from 0 to 3660`);
  return Number(text);
}

/**
 * The report's window, ending at --at (default now): --period, or --from/--to, or the
 * last twelve intervals up to it; one that begins at or after it is refused.
 */
function metricsWindow(session: Session, flags: MetricsFlags, kind: IntervalKind, at: number): Span {
  const given = explicitWindow(session, flags, at);
  if (given) return given;
  const { zone } = session;
  // The interval holding the last second known, and the eleven before it.
  let start = intervalContaining(kind, at - 1, zone).start;
  for (let i = 1; i < DEFAULT_INTERVALS; i++) start = intervalContaining(kind, start - 1, zone).start;
  session.note(`the last ${DEFAULT_INTERVALS} ${kind}s up to ${flags.at === undefined ? 'now' : '--at'}: from ${formatLocal(start, zone)} ${zone} (--period, or --from and --to, for another window)`);
  return { start, end: at };
}

/** --period or --from/--to, cut at --at (default now); undefined when none is given; one that begins at or after --at is refused. */
function explicitWindow(session: Session, flags: WindowFlags & MirrorFlags, at: number): Span | undefined {
  const { zone } = session;
  const nowMs = session.ctx.now();
  const now = Math.floor(nowMs / 1000);
  if (flags.period !== undefined && (flags.from !== undefined || flags.to !== undefined)) {
    throw new UsageError('give either --period or --from/--to, not both');
  }
  const after = (what: string) =>
    flags.at === undefined ? futureWindow(what, now, zone) : new UsageError(`${what} after --at (${formatLocal(at, zone)} ${zone}): nothing of it is known then`, 'a report ends at --at: give a window that begins before it, or a later --at');
  let window: Span;
  if (flags.period !== undefined) {
    const span = parsePeriod(flags.period, now, zone);
    if (!span) throw new UsageError(`invalid --period "${printable(flags.period)}": expected ${PERIOD_FORMS}`);
    if (span.start >= at) throw after(`--period "${printable(flags.period)}" begins`);
    window = span;
  } else if (flags.from !== undefined || flags.to !== undefined) {
    const start = flags.from === undefined ? undefined : parseTime(flags.from, nowMs, '--from', zone);
    const end = flags.to === undefined ? at : parseTime(flags.to, nowMs, '--to', zone, true) + 1;
    if (start === undefined) throw new UsageError('--to needs --from (or give --period)');
    if (start >= at) throw after(`--from "${printable(flags.from!)}" is`);
    if (start >= end) throw new UsageError('--from is after --to: the report would be empty');
    window = { start, end };
  } else return undefined;
  // Nothing later than --at is known: the last interval ends there (a record stamped at that very second is not yet seen).
  if (window.end > at) {
    session.note(`the last interval ends ${flags.at === undefined ? 'now' : 'at --at'} (${formatLocal(at, zone)} ${zone}), not at its calendar end`);
    window.end = at;
  }
  return window;
}

async function runMetrics(session: Session, cmd: Command): Promise<void> {
  const flags = cmd.opts() as MetricsFlags;
  const kind = (flags.interval ?? 'month').toLowerCase() as IntervalKind;
  if (!INTERVAL_KINDS.includes(kind)) throw new UsageError(`invalid --interval "${printable(flags.interval!)}": expected ${INTERVAL_KINDS.join(', ')}`);
  if (flags.by !== undefined && flags.by !== 'plan' && flags.by !== 'token') throw new UsageError(`invalid --by "${printable(flags.by)}": expected token or plan`);
  const byPlan = flags.by === 'plan';
  const v = await currencyOf(flags, session);
  const { plans, at, graceSeconds } = parseMirrorFlags(session, flags);
  const window = metricsWindow(session, flags, kind, at);
  const keyed = byPlan ? [...METRICS_COLUMNS.slice(0, 3), 'planId', ...METRICS_COLUMNS.slice(3)] : METRICS_COLUMNS;
  const columns = v ? v.valuedMetricsColumns(keyed) : keyed;
  const movementColumns = v ? [...MOVEMENT_COLUMNS, ...v.MOVEMENT_VALUE_COLUMNS] : MOVEMENT_COLUMNS;
  // A table leads with what a row is and what it answers (kept longest on a narrow terminal), then the rest.
  const lead = ['interval', 'token', ...(byPlan ? ['planId'] : []), ...METRICS_ANSWERS];
  const tableColumns = [...lead, ...columns.filter((c) => !lead.includes(c))];
  // Stryker disable next-line StringLiteral: equivalent; any kind but 'single' prints a list
  const output = session.output('list', flags.movements ? (v ? [...MOVEMENT_TABLE_COLUMNS, ...v.MOVEMENT_VALUE_COLUMNS] : MOVEMENT_TABLE_COLUMNS) : tableColumns);
  if (output.columns && !flags.movements) validateColumns(output.columns, [...columns, 'interval']);
  if (flags.chart && session.flags.output !== undefined) throw new UsageError('--chart draws in the terminal: leave out -o (or drop --chart to export the rows)');
  const gates = await parseRowGates(flags, session.format);
  if (flags.chart && (gates.count || gates.jq)) throw new UsageError('--chart draws in the terminal: it does not go with --count or --jq');
  if (flags.movements) {
    if (flags.chart) throw new UsageError('--chart draws the totals: leave out --movements');
    if (flags.by !== undefined) throw new UsageError('--movements lists each movement with its token and plan: leave out --by');
    if (output.columns) validateColumns(output.columns, [...movementColumns, 'interval']);
  }
  const { records, planCoverage } = await loadRecords(session, flags, plans, at, window.start);
  refuseBlindGate(session, gates.failIfAny, planCoverage, flags.shortUrlPlans);
  noteAt(session, flags, at);
  const intervals = intervalsOf(kind, window, session.zone).map((s) => ({ from: s.start, to: s.end }));
  // In a currency, rows go across tokens unless --by splits them.
  const o = { intervals, at, graceSeconds, byPlan, acrossTokens: v !== undefined && flags.by === undefined };
  const value = <T>(compute: (rates?: RateOf) => T): Promise<T> | T => (v ? v.valued(session, v.choice, records, compute) : compute());
  if (flags.movements) return printMovements(session, output, kind, await value((rates) => movements(records, { ...o, rates })), gates, v);
  const rows = await value((rates) => metrics(records, { ...o, rates }));
  if (flags.chart) return chartMrr(session, rows, kind, v?.choice.currency);
  // --columns may name the interval in any format.
  const named = (r: MetricsRow): Record<string, unknown> => {
    const keyedRow: Record<string, unknown> = byPlan ? { ...r } : withoutPlan(r);
    const row = v ? v.valuedMetricsRow(keyedRow, v.choice.currency) : keyedRow;
    return output.columns?.includes('interval') ? { interval: intervalName(kind, r.from, session.zone), ...row } : row;
  };
  const money = v?.tableMoney(v.choice.currency, columns.filter((c) => METRICS_CELLS.get(c) === 'amount' && !RATIO_COLUMNS.includes(c)).concat('mrr_fx'));
  const table = (r: Record<string, unknown>): Record<string, unknown> => {
    const shown: Record<string, unknown> = { interval: intervalName(kind, r.from as number, session.zone), ...(money ? money(r) : r) };
    for (const k of RATIO_COLUMNS) shown[k] = percent(r[k]);
    return shown;
  };
  const cells = v ? new Map([...METRICS_CELLS, ...v.VALUE_CELLS]) : METRICS_CELLS;
  await printRows(session, { ...output, cellKinds: cells, keepColumns: lead }, gates, rows.map(named), 'row', table);
  if (rows.length === 0 && !gates.count) session.note('no subscription was counted, billed or in dunning in this window');
}

const withoutPlan = ({ planId: _planId, ...rest }: MetricsRow): Record<string, unknown> => rest;

/** `metrics --movements`: one row per event of the window, in the interval that holds it (its name with --columns interval, and first in a table). */
async function printMovements(session: Session, output: OutputOptions, kind: IntervalKind, list: MovementRow[], gates: RowGates, v: Valuing | undefined): Promise<void> {
  const named = (m: MovementRow): Record<string, unknown> => {
    const row = v ? v.valuedMovement(m as Parameters<Valuing['valuedMovement']>[0]) : { ...m };
    return output.columns?.includes('interval') ? { interval: intervalName(kind, m.from, session.zone), ...row } : row;
  };
  const money = v?.tableMoney(v.choice.currency, ['value']);
  const table = (r: Record<string, unknown>): Record<string, unknown> => ({ interval: intervalName(kind, r.from as number, session.zone), ...(money ? money(r) : r) });
  const cells = v ? new Map([...MOVEMENT_CELLS, ...v.VALUE_CELLS]) : MOVEMENT_CELLS;
  await printRows(session, { ...output, cellKinds: cells, keepColumns: v ? [...MOVEMENT_ANSWERS, 'value'] : MOVEMENT_ANSWERS }, gates, list.map(named), 'movement', table);
  if (list.length === 0 && !gates.count) session.note('no subscription moved in this window');
}

/** An interval as people name it: 2026, 2026-Q4, 2026-10, or its first day. */
function intervalName(kind: IntervalKind, from: number, zone: string): string {
  const day = formatLocal(from, zone).slice(0, 10);
  if (kind === 'year') return day.slice(0, 4);
  if (kind === 'quarter') return `${day.slice(0, 4)}-Q${Math.floor((Number(day.slice(5, 7)) - 1) / 3) + 1}`;
  return kind === 'month' ? day.slice(0, 7) : day;
}

/** MRR at the end of each interval, one chart per token (tokens are never added together). */
function chartMrr(session: Session, rows: MetricsRow[], kind: IntervalKind, currency?: string): void {
  // metrics gives each token a row in every interval, in token order: the first interval names them all, in order.
  const tokens = [...new Set(rows.map((r) => r.token))];
  if (tokens.length === 0) {
    session.ctx.stdout.write('no subscriptions to chart\n');
    return;
  }
  const charts = tokens.map((token) => {
    const bars = rows.filter((r) => r.token === token).map((r) => [intervalName(kind, r.from, session.zone), r.mrr_end] as [string, string]);
    const what = currency === undefined ? token : token === '*' ? currency : `${token} in ${currency}`;
    return renderBars(`${what} MRR at the end of each ${kind} (${session.zone})`, bars, session.ctx.columns, session.color);
  });
  session.ctx.stdout.write(charts.join('\n'));
}
