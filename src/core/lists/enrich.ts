import type { Session } from '../runtime/session.js';

// The second step of a list (walk → enrich → gate → render): the records payrec kept
// of each page, handed to the list's enrichers in turn, each adding its fields.

/**
 * A record enricher: a per-page hook that adds fields to a list's records, registered
 * by the list query (ListQuery.enrichers) and run on every page the walk yields, after
 * --status kept its records and before the gates count them, whatever the output (records,
 * --summary, --chart, --count, --jq). core/lists knows only this interface: the room that
 * owns the knowledge plugs into it, loaded only when its flag is given.
 *
 * - `--verify` is the first (chain/list-verification.ts): `verdict`, `confirmations`,
 *   `blockNumber`, `chainDiff` per record, and per receiver of a wallet-to-wallet
 *   payment; its summary counts records per verdict, and `--verdict` is its `keep`.
 * - `--currency` is the second (values/list-values.ts): `value`, `feeValue`, `rate`,
 *   `rateTime`, `rateSource` per record and per receiver, from a rate source started
 *   (and checked) before the API is asked for anything; a record without a usable rate
 *   is the enricher's to name (exit 11), never a silent gap.
 *
 * Enrichers run in the query's order, each on the records the previous one kept. While
 * one runs, a list's output is held until its walk ends: a source that fails half-way
 * leaves nothing half printed.
 */
export interface RecordEnricher {
  /** The fields it adds to each record, in order: the last columns of an export, and names --columns accepts. */
  readonly fields: readonly string[];
  /** The list's default table columns with its fields placed among them (a narrow terminal keeps the first ones). */
  tableColumns(defaults: readonly string[]): string[];
  /** Made ready before the API is asked for anything (a node's chain id checked): bad input is exit 2 before a request. */
  start(list: EnrichedList): Promise<PageEnricher>;
}

/** What an enricher is told of the list it enriches. */
export interface EnrichedList {
  session: Session;
  /** The collection a record came from (`fixed-recurring/billings`): a registry list's own, or each record's in a merged list. */
  collectionOf(record: Record<string, unknown>): string;
  /** A registry list's one collection; undefined for a merged list (`payrec transfers`). */
  collection?: string;
  /** The command's path parameters (a plan's billings: `planId`). */
  pathValues: Record<string, string>;
  /** The output is JSON (-f json, jsonl, or --jq): structured values rather than text for a cell. */
  asJson: boolean;
}

/** A started enricher: what it does to each page. */
export interface PageEnricher {
  /** The page's records, each with the enricher's fields (the same records, in order). */
  page(records: Record<string, unknown>[]): Promise<Record<string, unknown>[]>;
  /** The records kept of those enriched (--verdict); undefined keeps all. */
  keep?: (record: Record<string, unknown>) => boolean;
  /**
   * What --summary adds: the member `key` (JSON) holding `counts`, shown as `label.NAME` lines in a table;
   * `amounts`: exact amounts per NAME and token, the member `amounts.key`, shown as `label.NAME.amount.TOKEN` lines.
   */
  readonly summary?: { key: string; label: string; counts: Record<string, number>; amounts?: { key: string; of(): Record<string, Record<string, string>> } };
  /** Its fields that hold exact decimals in one unit whatever the token (values in one currency): --summary totals them per token and status, and per status across tokens (token `*`). */
  readonly totals?: readonly string[];
  /** Once the walk has ended, before anything is printed: what the enricher saw may fail the list (a missing rate, exit 11) or be said on stderr. */
  finish?(): void;
}

/** Starts the list's enrichers, in order, before its walk. */
export async function startEnrichers(enrichers: readonly RecordEnricher[], list: EnrichedList): Promise<PageEnricher[]> {
  const started: PageEnricher[] = [];
  for (const e of enrichers) started.push(await e.start(list));
  return started;
}

/** A page's records through each enricher in turn, each keeping what its `keep` keeps. */
export async function enrichPage(records: Record<string, unknown>[], enrichers: readonly PageEnricher[]): Promise<Record<string, unknown>[]> {
  for (const e of enrichers) {
    records = await e.page(records);
    if (e.keep) records = records.filter(e.keep);
  }
  return records;
}
