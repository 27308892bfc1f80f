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
import { dunningCaseRows, ledger, metrics, movements, type RateOf } from '../subscriptions/engine.js';
import { startEnrichers, enrichPage, type PageEnricher, type RecordEnricher } from '../core/lists/enrich.js';
import type { CurrencyChoice } from '../values/currency-flags.js';
import { MISSING_SOURCE } from '../values/rate.js';
import type { VerifyQuery } from '../chain/list-verification.js';
import { BAD_VERDICTS } from '../chain/verdict-names.js';
import { CHAIN_IDS } from '../chain/model.js';
import { JSON_LINES, RowSpool, spoolFolder, type SpoolFormat } from './spool.js';
import { join } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };

// The month-end close (DESIGN.md "The month-end close in one command"): what the
// commands that answer each part compute, gathered for one period, as sheets a
// workbook or a page lays out (workbook.ts, page.ts). Nothing here computes a figure:
// metrics, the ledger and the dunning cases are the subscription engine's (as
// `payrec metrics` and `payrec subscriptions` give them), billings and transfers the
// merged list of `payrec transfers`. With a currency, every money figure is the one
// `metrics --currency`, `subscriptions --currency` and `transfers --currency` print (the
// engine handed rates, lists valued by their enricher); with --verify, transfers carry
// the verdicts of `transfers --verify`, and the bad ones are listed on a sheet of their own.

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
  /** How many rows it has. */
  count: number;
  /** Its first row, if any (a sheet's columns are as wide as its values). */
  first: Row | undefined;
  /** Its rows in order, in batches: in memory (one batch), or (transfers and billings, spooled as JSON lines) read back from their spool once. */
  rows: Iterable<readonly Row[]> | AsyncIterable<readonly Row[]>;
  /** Transfers and billings: their spool (whose format may hold them as their sheet's XML already). */
  spool?: RowSpool;
}

/** One line of the cover: what, and its value as text. */
export interface CoverLine {
  item: string;
  value: string;
}

/** A token's MRR over the whole period (or all tokens' in a currency): where it started, each movement, where it ended (the engine's exact figures). */
export interface Waterfall {
  /** The token, or `*` for every token in the currency. */
  token: string;
  /** The currency of its figures; undefined: the token's own amounts. */
  currency?: string;
  period: string;
  start: string;
  new: string;
  reactivated: string;
  churned: string;
  /** In a currency: the change of rates (mrr_fx, signed). */
  fx?: string;
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
  /** Removes the spools of transfers and billings, once the file is written (or not). */
  discard(): void;
}

/** Ratios: fractions a spreadsheet shows as percentages. */
const RATIOS = new Set(['logo_churn', 'revenue_churn', 'failure_rate']);
/** Money of the subscription engine's rows (metrics' mrr_*, collected, failed_amount, recovered_amount), beside the API's amount fields: as metrics' own exports hold them. */
const MONEY = (name: string) => name.startsWith('mrr') || name.endsWith('_amount') || name === 'collected' || AMOUNT_FIELDS.has(name);
const TIMES = new Set([...TIMESTAMP_FIELDS, 'firstFailure', 'instant']);
/** Values in the currency, and their rates, held as the lists' exports hold them (a number beside the exact text, none when missing). */
const VALUES: Record<string, CellKind> = { value: 'value', feeValue: 'value', rate: 'rate' };

/** How a column's cells are held: by its name, as the commands' exports hold them. */
export function kindOf(name: string): CellKind {
  const field = name.slice(name.lastIndexOf('.') + 1);
  if (RATIOS.has(field)) return 'ratio';
  if (TIMES.has(field)) return 'time';
  if (VALUES[field]) return VALUES[field];
  return MONEY(field) ? 'amount' : 'plain';
}

/** A sheet's columns: the fields `first` names first (its rows share a shape), then any other row's, in order. */
function columnsOf(rows: readonly Row[], first: readonly string[] = []): CloseColumn[] {
  const names = new Set(first);
  for (const r of rows) for (const p of leafPaths(r)) names.add(p.join('.'));
  return named(names);
}

const named = (names: Iterable<string>): CloseColumn[] => [...names].map((name) => ({ name, kind: kindOf(name) }));

/** A sheet of rows in memory. */
const held = (rows: Row[], first?: readonly string[]) => ({ columns: columnsOf(rows, first), count: rows.length, first: rows[0], rows: [rows] });
/** A sheet of rows spooled to disk (spool.ts): its columns gathered as they were written. */
const spooled = (spool: RowSpool) => ({ columns: named(spool.names), count: spool.count, first: spool.first, rows: spool.batches(), spool });

export interface CloseOptions {
  /** The period as typed (2026-10), and its instants. */
  periodText: string;
  period: Span;
  /** What is known: records stamped before it. */
  at: number;
  graceSeconds: number;
  plans: string[];
  flags: MirrorFlags;
  /** --currency: every figure in it (exit 11 when a rate is missing, unless --rates-missing blank). */
  currency?: CurrencyChoice;
  /** --verify: transfers with their verdicts. */
  verify?: VerifyQuery;
  /** How transfers and billings are spooled, given the sheets before them (the workbook's: as their sheet's XML); JSON lines when not given. */
  spoolAs?: (before: readonly CloseSheet[]) => (sheet: string) => SpoolFormat;
}

const SOURCE_NAMES: Record<PlanSource, string> = { 'short url': 'short url', stated: 'PAYREC_PLANS', added: 'fr plans add', synced: 'sync --plan-id', earlier: 'synced earlier' };

/** Gathers every part of the close of `o.period`, as known at `o.at`. */
export async function composeClose(session: Session, o: CloseOptions): Promise<CloseReport> {
  const { zone } = session;
  const { chain } = await session.settings();
  const when = (t: number) => `${formatLocal(t, zone)} ${zone}`;
  // A period not over yet ends at what is known (as metrics --period this-month ends now).
  const end = Math.min(o.period.end, o.at);
  // The mirror's part first, in a function of its own: its records (a million billings, 250 MB) are let go before the transfers are walked.
  const { loaded, later, source, byToken, byPlan, waterfalls, moves, ledgerRows, cases } = await mirrorPart(session, o, end);
  const currency = o.currency?.currency;
  const enrichers: RecordEnricher[] = [];
  if (o.verify) enrichers.push((await import('../chain/list-verification.js')).verifyEnricher(o.verify));
  if (o.currency && source) enrichers.push((await import('../values/list-values.js')).currencyEnricher({ currency: o.currency.currency, blank: o.currency.blank }, async () => source));
  const c = currency ? ` --currency ${currency}` : '';
  const v = o.verify ? ' --verify' : '';
  // The sheets before the transfers, known before they are walked.
  const before: CloseSheet[] = [
    { name: 'metrics', title: currency ? `Metrics in ${currency}` : 'Metrics by token', command: `payrec metrics --period ${o.periodText}${c}`, ...held(byToken) },
    { name: 'metrics by plan', title: 'Metrics by plan', command: `payrec metrics --period ${o.periodText} --by plan${c}`, ...held(byPlan) },
    { name: 'movements', title: 'Who moved: each new, reactivated and churned subscription', command: `payrec metrics --period ${o.periodText} --movements${c}`, ...held(moves) },
    { name: 'ledger', title: "Subscriptions at the period's end", command: `payrec subscriptions --at ${end}${c}`, ...held(ledgerRows) },
  ];
  const formatOf = o.spoolAs?.(before) ?? (() => JSON_LINES);
  const folder = spoolFolder();
  const walked = await periodTransfers(session, o.flags.db, o.period.start, end, enrichers, folder.path, formatOf).catch((err: unknown) => {
    folder.remove();
    throw err;
  });
  const { transfers, billings } = walked;
  const bad = o.verify ? walked.bad : [];
  const incomplete: string[] = [];
  if (loaded.syncedUpTo + 1 < end) incomplete.push(`the mirror's billings and cancellations are synced up to ${when(loaded.syncedUpTo)}, before the period's end: later records are not counted (payrec sync, or --sync)`);
  if (o.period.end > o.at) incomplete.push(`the period is not over: its figures are as of ${when(o.at)}`);
  // No plan stated (PAYREC_PLANS, fr plans add, --plan-id): one no short url names is left out unseen (the rule gates follow).
  if (loaded.planCoverage.onlyShortUrls) incomplete.push(`the ${loaded.plans.length} plans covered are known from short urls alone: a plan no short url names is left out unseen (state every plan: PAYREC_PLANS, payrec fr plans add ID, or --plan-id)`);
  if (later.billings + later.cancellations > 0) {
    incomplete.push(`the mirror holds ${later.billings} billings and ${later.cancellations} cancellations stamped at or after the as-of instant ${when(o.at)}: left out, as every figure is as of then`);
  }
  // --rates-missing blank: what has no value is said here too, not only on stderr (the metrics' totals leave those figures out).
  const blank = o.currency ? [...moves, ...ledgerRows].filter((r) => r.rateSource === MISSING_SOURCE).length + walked.blank : 0;
  if (blank > 0) incomplete.push(`${blank} rows of the movements, the ledger and the transfers have no usable rate (--rates-missing blank): their values are blank, and every total in ${currency} leaves their figures out (stderr names the rates missing)`);
  if (bad.length > 0) incomplete.push(`${bad.length} ${bad.length === 1 ? 'transfer has a bad verdict' : 'transfers have bad verdicts'} (${verdictCounts(bad)}): listed on the sheet "bad verdicts"`);
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
    ...(o.currency ? [{ item: 'currency', value: `${o.currency.currency}: rates from ${o.currency.file ? `the rates file ${o.currency.file.name}, then ` : ''}Chainlink's feeds of ${chain} (each value's rate and source beside it)${o.currency.blank ? '; a value with no usable rate is left blank (--rates-missing blank)' : ''}` }] : []),
    ...(o.verify ? [{ item: 'verified against', value: `the node of ${chain} (chain id ${CHAIN_IDS[chain as keyof typeof CHAIN_IDS] ?? '?'}): ${bad.length === 0 ? 'no bad verdict' : `${bad.length} bad (${verdictCounts(bad)})`}` }] : []),
    { item: 'payrec version', value: pkg.version },
    { item: 'complete', value: incomplete.length === 0 ? 'yes' : `no: ${incomplete.join('; ')}` },
  ];
  const sheets: CloseSheet[] = [
    ...before,
    { name: 'billings', title: 'Billings with outcome', command: `payrec transfers --product fr --period ${o.periodText}${v}${c}`, ...spooled(billings) },
    { name: 'transfers', title: 'Transfers of every product', command: `payrec transfers --period ${o.periodText}${v}${c}`, ...spooled(transfers) },
    { name: 'dunning', title: 'Dunning cases', command: 'the cases metrics counts in dunning_cases', ...held(cases) },
  ];
  if (o.verify) sheets.push({ name: 'bad verdicts', title: 'Transfers the chain does not confirm', command: `payrec transfers --period ${o.periodText} --verify --verdict bad${c}`, ...held(bad, TRANSFER_FIELDS) });
  return { cover, incomplete, sheets, waterfalls, zone, discard: () => folder.remove() };
}

/** What the mirror's records give: every figure of the subscription engine, valued in the currency when asked, and what the close cannot count. */
async function mirrorPart(session: Session, o: CloseOptions, end: number) {
  const { zone } = session;
  const loaded = await loadRecords(session, o.flags, o.plans, o.at, o.period.start);
  const { records, ...rest } = loaded;
  const intervals = intervalsOf('month', { start: o.period.start, end }, zone).map((s) => ({ from: s.start, to: s.end }));
  const engine = { at: o.at, graceSeconds: o.graceSeconds };
  const whole = [{ from: o.period.start, to: end }];
  // In a currency, metrics go across tokens (token *), as `metrics --currency` prints them.
  const across = o.currency !== undefined;
  const compute = (rates?: RateOf) => ({
    byToken: metrics(records, { ...engine, intervals, byPlan: false, rates, acrossTokens: across }),
    byPlan: metrics(records, { ...engine, intervals, byPlan: true, rates }),
    // The period as one interval: movements add up (DESIGN.md), so these are the sums of its months.
    whole: metrics(records, { ...engine, intervals: whole, byPlan: false, rates, acrossTokens: across }),
    moves: movements(records, { ...engine, intervals, byPlan: false, rates }),
    ledger: ledger(records, { at: end, graceSeconds: o.graceSeconds, ...(rates ? { rates } : {}) }),
  });
  const valuing = o.currency && (await import('../subscriptions/valued-rows.js'));
  // Every rate the figures ask for, in one batch: a missing one is exit 11 here, before the API is asked for transfers.
  const source = o.currency && (await (await import('../mirror/rate-source.js')).rateSourceOf(session, o.currency));
  const figures = valuing && source ? await valuing.valued(session, o.currency!, source, records, (rateOf) => compute(rateOf as RateOf)) : compute();
  const currency = o.currency?.currency;
  const keyed = (r: Record<string, unknown>) => (valuing && currency ? valuing.valuedMetricsRow(r, currency) : r) as Row;
  const byToken = figures.byToken.map(({ planId: _planId, ...r }) => keyed(r));
  const byPlan = figures.byPlan.map((r) => keyed({ ...r }));
  const waterfalls: Waterfall[] = figures.whole.map((r) => ({
    token: r.token,
    ...(currency ? { currency, fx: r.mrr_fx } : {}),
    period: o.periodText,
    start: r.mrr_start,
    new: r.mrr_new,
    reactivated: r.mrr_reactivated,
    churned: r.mrr_churned,
    end: r.mrr_end,
  }));
  const moves = figures.moves.map((m) => (valuing ? valuing.valuedMovement(m as never) : { ...m })) as Row[];
  const ledgerRows = figures.ledger.map((r) => (valuing ? valuing.valuedLedgerRow(r as never) : { ...r })) as Row[];
  const cases = dunningCaseRows(records, { ...engine, from: o.period.start, to: end }) as unknown as Row[];
  // The mirror may hold records stamped at or after --at (synced later): left out, as every figure is as of --at.
  const later = records.stampedFrom(o.at);
  return { loaded: rest, later, source, valuing, byToken, byPlan, waterfalls, moves, ledgerRows, cases };
}

/** Each bad verdict and how many: `spoofed 1, mismatch 2`. */
function verdictCounts(rows: readonly Row[]): string {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(String(r.verdict), (counts.get(String(r.verdict)) ?? 0) + 1);
  return [...counts].map(([verdict, n]) => `${verdict} ${n}`).join(', ');
}

/** The period's transfers, and of them the billings, spooled to disk; the bad verdicts, and how many have no usable rate, counted on the way. */
interface PeriodTransfers {
  transfers: RowSpool;
  billings: RowSpool;
  bad: Row[];
  blank: number;
}

/**
 * Every product's transfers stamped in [from, to), as `payrec transfers --period` lists them
 * (billings of the known plans with their outcome), through `enrichers` (--verify, --currency)
 * as that command's are: started before the API is asked, and a missing rate fails once the walk ends.
 * Written to spools in `folder` as they come, so memory stays flat however many.
 */
async function periodTransfers(session: Session, db: string | undefined, from: number, to: number, enrichers: readonly RecordEnricher[], folder: string, formatOf: (sheet: string) => SpoolFormat): Promise<PeriodTransfers> {
  const list = mergedTransfers(TRANSFER_ENDPOINTS, {}, await billedPlans(session, db, undefined));
  const started: PageEnricher[] = await startEnrichers(enrichers, { session, collectionOf: (r) => list.collectionOf(r), pathValues: {}, asJson: false });
  // The products share the pages in flight, found as `payrec transfers` finds them (issue 49).
  const client = await session.client();
  const check = recordChecker(list, session);
  const outcome = outcomeAdder(list);
  const whole = { limit: Infinity, pageSize: 1000, offset: 0, concurrency: client.window };
  const billed = new Set<unknown>(TRANSFER_ENDPOINTS.filter(perPlan).map((e) => e.product));
  const bad: Row[] = [];
  let blank = 0;
  const transfers = new RowSpool(join(folder, 'transfers'), TRANSFER_FIELDS, formatOf('transfers'));
  const billings = new RowSpool(join(folder, 'billings'), TRANSFER_FIELDS, formatOf('billings'));
  for await (const page of list.walk(client)(whole, from, to - 1, undefined)) {
    for (const r of await enrichPage(page.records, started)) {
      const row = outcome ? outcome(check(r)) : check(r);
      if ((BAD_VERDICTS as readonly unknown[]).includes(row.verdict)) bad.push(row);
      if (row.rateSource === MISSING_SOURCE) blank++;
      const wait = transfers.add(row);
      if (wait) await wait;
      if (billed.has(row[PRODUCT_FIELD])) {
        const waitToo = billings.add(row);
        if (waitToo) await waitToo;
      }
    }
  }
  for (const e of started) e.finish?.();
  await Promise.all([transfers.end(), billings.end()]);
  return { transfers, billings, bad, blank };
}
