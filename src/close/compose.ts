import type { CellKind } from '../core/output/document.js';
import { TIMESTAMP_FIELDS, leafPaths, type Row } from '../core/output/rows.js';
import { AMOUNT_FIELDS } from '../registry/field-kinds.js';
import { intervalsOf, type Span } from '../core/runtime/period.js';
import type { Session } from '../core/runtime/session.js';
import { formatLocal } from '../core/runtime/zone.js';
import { recordChecker } from '../core/lists/records.js';
import { mergedTransfers } from '../core/lists/merged-transfers.js';
import { outcomeAdder } from '../registry/outcome.js';
import { perPlan, PRODUCT_FIELD, TRANSFER_ENDPOINTS, TRANSFER_FIELDS } from '../registry/transfers.js';
import { billedPlans, type PlanSource } from '../mirror/plan-coverage.js';
import { loadRecords, type MirrorFlags } from '../mirror/subscription-source.js';
import { dunningCaseRows, ledger, metrics, movements } from '../subscriptions/engine.js';
import pkg from '../../package.json' with { type: 'json' };

// The month-end close (DESIGN.md "The month-end close in one command"): what the
// commands that answer each part compute, gathered for one period, as sheets a
// workbook or a page lays out (workbook.ts, page.ts). Nothing here computes a figure:
// metrics, the ledger and the dunning cases are the subscription engine's (as
// `payrec metrics` and `payrec subscriptions` give them), billings and transfers the
// merged list of `payrec transfers`.

/** A column of a sheet: its name (the field of the JSON the command prints) and how its cells are held. */
export interface CloseColumn {
  name: string;
  kind: CellKind;
}

export interface CloseSheet {
  /** The sheet's name, and the page's section. */
  name: string;
  /** What it is, as the page's heading says it. */
  title: string;
  /** The command whose -f json gives the same rows. */
  command: string;
  columns: CloseColumn[];
  rows: Row[];
}

/** One line of the cover: what, and its value as text. */
export interface CoverLine {
  item: string;
  value: string;
}

/** A token's MRR over the whole period: where it started, each movement, where it ended (the engine's exact figures). */
export interface Waterfall {
  token: string;
  period: string;
  start: string;
  new: string;
  reactivated: string;
  churned: string;
  end: string;
}

export interface CloseReport {
  cover: CoverLine[];
  /** What the close could not cover, said on the cover and on stderr (empty when whole). */
  incomplete: string[];
  sheets: CloseSheet[];
  /** One per token, as metrics gives the period taken as one interval. */
  waterfalls: Waterfall[];
  /** The zone its times are shown in. */
  zone: string;
}

/** Ratios: fractions a spreadsheet shows as percentages. */
const RATIOS = new Set(['logo_churn', 'revenue_churn', 'failure_rate']);
/** Money of the subscription engine's rows (metrics' mrr_* and the like), beside the API's amount fields. */
const MONEY = (name: string) => name.startsWith('mrr') || name === 'recovered_amount' || AMOUNT_FIELDS.has(name);
const TIMES = new Set([...TIMESTAMP_FIELDS, 'firstFailure', 'instant']);

/** How a column's cells are held: by its name, as the commands' exports hold them. */
export function kindOf(name: string): CellKind {
  const field = name.slice(name.lastIndexOf('.') + 1);
  if (RATIOS.has(field)) return 'ratio';
  if (TIMES.has(field)) return 'time';
  return MONEY(field) ? 'amount' : 'plain';
}

/** A sheet's columns: the fields `first` names first (its rows share a shape), then any other row's, in order. */
function columnsOf(rows: readonly Row[], first: readonly string[] = []): CloseColumn[] {
  const names = new Set(first);
  for (const r of rows) for (const p of leafPaths(r)) names.add(p.join('.'));
  return [...names].map((name) => ({ name, kind: kindOf(name) }));
}

export interface CloseOptions {
  /** The period as typed (2026-10), and its instants. */
  periodText: string;
  period: Span;
  /** What is known: records stamped before it. */
  at: number;
  graceSeconds: number;
  plans: string[];
  flags: MirrorFlags;
}

const SOURCE_NAMES: Record<PlanSource, string> = { 'short url': 'short url', stated: 'PAYREC_PLANS', added: 'fr plans add', synced: 'sync --plan-id', earlier: 'synced earlier' };

/** Gathers every part of the close of `o.period`, as known at `o.at`. */
export async function composeClose(session: Session, o: CloseOptions): Promise<CloseReport> {
  const { zone } = session;
  const when = (t: number) => `${formatLocal(t, zone)} ${zone}`;
  // A period not over yet ends at what is known (as metrics --period this-month ends now).
  const end = Math.min(o.period.end, o.at);
  const loaded = await loadRecords(session, o.flags, o.plans, o.at, o.period.start);
  const { records } = loaded;
  const intervals = intervalsOf('month', { start: o.period.start, end }, zone).map((s) => ({ from: s.start, to: s.end }));
  const engine = { at: o.at, graceSeconds: o.graceSeconds };
  const byToken = metrics(records, { ...engine, intervals, byPlan: false }).map(({ planId: _planId, ...r }) => r as Row);
  const byPlan = metrics(records, { ...engine, intervals, byPlan: true }) as unknown as Row[];
  // The period as one interval: movements add up (DESIGN.md), so these are the sums of its months.
  const waterfalls = metrics(records, { ...engine, intervals: [{ from: o.period.start, to: end }], byPlan: false }).map((r) => ({
    token: r.token,
    period: o.periodText,
    start: r.mrr_start,
    new: r.mrr_new,
    reactivated: r.mrr_reactivated,
    churned: r.mrr_churned,
    end: r.mrr_end,
  }));
  const moves = movements(records, { ...engine, intervals, byPlan: false }) as unknown as Row[];
  const ledgerRows = ledger(records, { at: end, graceSeconds: o.graceSeconds }) as unknown as Row[];
  const cases = dunningCaseRows(records, { ...engine, from: o.period.start, to: end }) as unknown as Row[];
  const transfers = await periodTransfers(session, o.flags.db, o.period.start, end);
  const billed = new Set(TRANSFER_ENDPOINTS.filter(perPlan).map((e) => e.product));
  const billings = transfers.filter((r) => billed.has(r[PRODUCT_FIELD] as never));

  const incomplete: string[] = [];
  if (loaded.syncedUpTo + 1 < end) incomplete.push(`the mirror's billings and cancellations are synced up to ${when(loaded.syncedUpTo)}, before the period's end: later records are not counted (payrec sync, or --sync)`);
  if (o.period.end > o.at) incomplete.push(`the period is not over: its figures are as of ${when(o.at)}`);
  // No plan stated (PAYREC_PLANS, fr plans add, --plan-id): one no short url names is left out unseen (the rule gates follow).
  if (loaded.planCoverage.onlyShortUrls) incomplete.push(`the ${loaded.plans.length} plans covered are known from short urls alone: a plan no short url names is left out unseen (state every plan: PAYREC_PLANS, payrec fr plans add ID, or --plan-id)`);
  if (loaded.planCoverage.leftOut > 0) incomplete.push(`${loaded.planCoverage.leftOut} known plans are not synced yet, so left out (payrec sync, or --sync)`);

  const plansLine = loaded.plans.map((p) => `${p} (${(loaded.planCoverage.known.get(p) ?? []).map((s) => SOURCE_NAMES[s]).join(', ') || '--plan-id'})`).join('; ');
  const cover: CoverLine[] = [
    { item: 'period', value: o.periodText },
    { item: 'from', value: when(o.period.start) },
    { item: 'to (excluded)', value: when(o.period.end) },
    { item: 'time zone', value: zone },
    { item: 'as of', value: when(o.at) },
    { item: 'synced up to', value: when(loaded.syncedUpTo) },
    { item: 'plans covered', value: `${loaded.plans.length}: ${plansLine}` },
    { item: 'grace (days)', value: String(o.graceSeconds / 86_400) },
    { item: 'payrec version', value: pkg.version },
    { item: 'complete', value: incomplete.length === 0 ? 'yes' : `no: ${incomplete.join('; ')}` },
  ];
  const sheets: CloseSheet[] = [
    { name: 'metrics', title: 'Metrics by token', command: `payrec metrics --period ${o.periodText}`, columns: columnsOf(byToken), rows: byToken },
    { name: 'metrics by plan', title: 'Metrics by plan', command: `payrec metrics --period ${o.periodText} --by plan`, columns: columnsOf(byPlan), rows: byPlan },
    { name: 'movements', title: 'Who moved: each new, reactivated and churned subscription', command: `payrec metrics --period ${o.periodText} --movements`, columns: columnsOf(moves), rows: moves },
    { name: 'ledger', title: "Subscriptions at the period's end", command: `payrec subscriptions --at ${end}`, columns: columnsOf(ledgerRows), rows: ledgerRows },
    { name: 'billings', title: 'Billings with outcome', command: `payrec transfers --product fr --period ${o.periodText}`, columns: columnsOf(billings, TRANSFER_FIELDS), rows: billings },
    { name: 'transfers', title: 'Transfers of every product', command: `payrec transfers --period ${o.periodText}`, columns: columnsOf(transfers, TRANSFER_FIELDS), rows: transfers },
    { name: 'dunning', title: 'Dunning cases', command: 'the cases metrics counts in dunning_cases', columns: columnsOf(cases), rows: cases },
  ];
  return { cover, incomplete, sheets, waterfalls, zone };
}

/** Every product's transfers stamped in [from, to), as `payrec transfers --period` lists them (billings of the known plans with their outcome). */
async function periodTransfers(session: Session, db: string | undefined, from: number, to: number): Promise<Row[]> {
  const list = mergedTransfers(TRANSFER_ENDPOINTS, {}, await billedPlans(session, db, undefined));
  const client = await session.client(TRANSFER_ENDPOINTS.length);
  const check = recordChecker(list, session);
  const outcome = outcomeAdder(list);
  const whole = { limit: Infinity, pageSize: 1000, offset: 0, concurrency: 4 };
  const rows: Row[] = [];
  for await (const page of list.walk(client)(whole, from, to - 1, undefined)) {
    for (const r of page.records) rows.push(outcome ? outcome(check(r)) : check(r));
  }
  return rows;
}
