import type { Page } from '../core/lists/paginate.js';
import type { CellKind } from '../core/output/document.js';
import type { Verdict } from '../chain/verdict-names.js';
import type { Verifier } from '../chain/verifier.js';
import type { SubscriptionRecords } from '../subscriptions/engine.js';
import type { MirroredCollection, ScopeParam } from './catalog.js';
import type { RateFilter, StoredRate, TokenSpan } from './rates.js';

// The mirror store: what sync, sql, verify, subscriptions, metrics, plans and doctor
// ask of a mirror, whatever database holds it (dlt's destination). openMirror()
// (open.ts) picks the engine; DuckDB's is src/mirror/duckdb/ (engine.ts), and a
// PostgreSQL engine implements the same interface beside it, held to the same contract
// tests (test/unit/mirror-store-contract.test.ts). Nothing outside an engine's folder
// writes SQL or names a database type.
//
// The tables follow the registry: one per mirrored collection (catalog.ts), its columns
// from the record schema (fields.ts: text, decimal amounts held exactly, times with
// their zone, whole numbers, nested objects and lists), plus the chain, `extra_fields`
// and `inexact_amounts` (what a column could not hold, by path), `first_seen` and
// `last_updated`. Each table is queried through a view of its collection's table name
// (`one_time_transfers`), beside a `transfers` view of every product's transfers with
// billings' outcome, `inexact_amounts`, `subscriptions` and `chain_verdicts`
// (docs/mirror.md). The state (cursors, remembered scopes, meta) lives in the same
// database and is written in the same transactions as the records, so the two can
// never disagree.

/** Opened to write (sync, verify) or only to read (sql, subscriptions, metrics, plans, doctor). */
export type Access = 'write' | 'read';

/** How a mirror is opened (open.ts fills it from the session). */
export interface OpenOptions {
  /** The engine's memory budget (PAYREC_MIRROR_MEMORY), such as 128MB. */
  memoryLimit: string;
  /** Said once on stderr when the open waits for another process. */
  waiting?: (message: string) => unknown;
  /** Ctrl-C: stop waiting. */
  signal?: AbortSignal;
  /**
   * sync --wait: how long a writer waits for another writer's lock on the mirror, in
   * seconds (Infinity: no limit). Without it, a writer finding another one is busy
   * (BusyError, exit 10) at once.
   */
  waitForSync?: number;
  /** The session's zone (--tz): where SQL's days and months begin, and how times print. UTC by default. */
  timeZone?: string;
  /** Unix seconds: `now` of the views that depend on it (the subscriptions view); the command's clock. */
  now?: number;
}

/** Records of one collection the store wrote, by what became of them. */
export interface UpsertCounts {
  new: number;
  updated: number;
  unchanged: number;
}

/** Records on their way to a table, built by CollectionWriter.add from pages. */
export interface WriteBatch {
  readonly size: number;
  /** The batch's last record in walk order. */
  readonly last?: Record<string, unknown>;
}

/**
 * Writes one collection's records into its table, by identity (the registry's
 * `identity`): new ones inserted, known ones updated only when their content changed,
 * the rest left alone, each counted. A walk yields each record once.
 */
export interface CollectionWriter {
  /** The scope of the next walk: a record read through one plan's list carries the plan (its scope column), else none. */
  scope(param?: ScopeParam, id?: string): void;
  /** Before a walk's first batch: notes whether every record of the walk will be new (appendsOnly). */
  beginWalk(): Promise<void>;
  /** No row of the chain was in the table when the walk began (a first sync): batches may be written without lookups. */
  readonly appendsOnly: boolean;
  /** An empty batch. */
  newBatch(): WriteBatch;
  /** Adds a page's records to `batch` (the page's bytes travel with it: an engine may read them as they are). */
  add(batch: WriteBatch, page: Page & { body?: Buffer }): void;
  /** Upserts `batch` in the caller's transaction; `remember`: note its identities for removeUnseen*. */
  write(batch: WriteBatch, o: { remember: boolean }): Promise<UpsertCounts>;
  /** Starts remembering the identities written (a walk that may remove what it no longer sees). */
  startSeen(): Promise<void>;
  /** Removes the scope's rows whose identity the walk did not see (a list without a time window, read whole). */
  removeUnseen(): Promise<number>;
  /** The same, for rows stamped in [from, to] (a list with a time window, walked whole over it). */
  removeUnseenBetween(from: number, to: number): Promise<number>;
  /** Paths (without list indexes) that held an unknown field or a value of another type, with counts. */
  readonly drift: ReadonlyMap<string, number>;
  /** Records whose text held a lone UTF-16 surrogate, stored with U+FFFD in its place: how they are named. */
  readonly repaired: readonly string[];
  /** Amounts the table could not hold exactly, written as text to `inexact_amounts` by this writer. */
  readonly inexact: number;
}

/**
 * When a walk commits (sync.ts): the engine knows what a commit costs it. `take` is told
 * each batch handed to the walk's transaction, and answers whether to commit after it.
 */
export interface CommitPlan {
  /** Whether a batch of `n` more records would end where a commit is cheapest (DuckDB: a whole row group). */
  fillsCommit(n: number): boolean;
  take(n: number): boolean;
}

/** A query's whole result (payrec sql): run to its end before a row is read. */
export interface QueryResult {
  /** How many rows it has: the caller checks it read them all. */
  rows: number;
  /** Column names, made unique (`a`, `a_1`). */
  columns: string[];
  /** How -f xlsx holds each column, from its type. */
  cellKinds(): Map<string, CellKind>;
  /**
   * The rows as records, a chunk at a time: exact decimals as their text without padding
   * zeros, times as text in `zone` (`2026-10-31 15:05:09+01`; with `asCells`, as the
   * workbook's cells take them: Unix seconds), whole numbers beyond a double as BigInt,
   * JSON as its value. Errors are the query's (UsageError) or an interruption (InterruptedError).
   */
  records(zone: string, asCells: boolean): AsyncGenerator<Record<string, unknown>[]>;
}

/** A table or view as `payrec sql` without a query lists it. */
export interface TableSummary {
  table: string;
  kind: 'table' | 'view';
  rows: number;
  columns: string;
}

/** A cursor: every record of (chain, collection, scope) stamped up to `cursor` was committed, `age` seconds ago. */
export interface CursorState {
  chain: string;
  collection: string;
  /** '' for a whole list, `planId=0x…` for one plan's. */
  scope: string;
  cursor: number;
  age: number;
}

/** The fixed-recurring plans a mirror knows of `chain`, by how (plan-coverage.ts). */
export interface PlanSources {
  /** Named by its short urls. */
  named: string[];
  /** Given once to sync --plan-id (remembered for billings or cancellations). */
  remembered: string[];
  /** Whose billings were synced (a cursor), whatever names them. */
  synced: string[];
}

export interface Coverage {
  /** Plans whose billings and cancellations were both synced, in id order. */
  plans: string[];
  /** The oldest of those lists' cursors (Unix seconds): every record stamped up to it is in the mirror. */
  syncedUpTo?: number;
  /** Per plan, where its lists' records begin (the latest `sync --from` of the two; 0: from the first record). */
  since: Map<string, number>;
}

export interface VerifyReport {
  collection: string;
  /** Records (receivers, for wallet-to-wallet payments) checked against the chain by this run. */
  checked: number;
  /** Final records whose block hash changed since they were judged (found reorged, their receipts read again). */
  newlyReorged: number;
  /** Every stored verdict of the collection (of the window), by verdict. */
  verdicts: Partial<Record<Verdict, number>>;
  /** Of those, the ones first seen or changed by this run, by verdict. */
  news: Partial<Record<Verdict, number>>;
  /** Of those, the ones whose transaction is acknowledged (chain_acks), by verdict. */
  acked: Partial<Record<Verdict, number>>;
  /** Of the news, the acknowledged ones, by verdict. */
  ackedNews: Partial<Record<Verdict, number>>;
  /** '' when the collection was checked whole; else why not (`stopped: …` where a failure stopped the run, `not checked: …` after it). */
  note: string;
}

/** What a `payrec verify` run re-judges and over which records. */
export interface VerifyScope {
  /** Verdicts judged again whether final or not (--recheck). */
  recheck: ReadonlySet<Verdict>;
  /** Records stamped in [from, to] (Unix seconds, inclusive) only; the whole mirror when absent. */
  from?: number;
  to?: number;
}

/** A reviewed discrepancy (`payrec verify ack`) with its record's current verdict (null: none yet). */
export interface AckRow {
  transactionHash: string;
  verdict: string | null;
  collection: string | null;
  reason: string;
  ackedBy: string;
  ackedAt: string;
}

export interface ParquetExport {
  written: number;
  unchanged: number;
  removed: number;
}

/**
 * What `verify` is told: the chain and collections, the run's scope. It reads the mirror
 * alone (a one-time transfer's payment's tag from its one-time payments, ONCHAIN.md §7):
 * no API key is needed.
 */
export interface VerifyOptions {
  chain: string;
  collections: readonly MirroredCollection[];
  scope: VerifyScope;
  signal: AbortSignal;
  progress?: (done: number) => void;
  /**
   * Filled with a report per collection as each ends. When the run fails (a node that
   * keeps failing, Ctrl-C), it still holds the account before the error goes on: each
   * collection checked, the one it stopped in (what it stored), those not reached (their
   * stored verdicts), each with its note; empty when it failed before checking anything.
   */
  reports?: VerifyReport[];
}

export interface MirrorStore {
  /** The mirror as messages name it: its file, or its server's URL masked (scheme and host). */
  readonly name: string;

  // What the mirror knows of itself: in the same database, in the same transactions as the records.
  /** Whether payrec laid it out (its state tables exist): not an empty file a refused sync left, nor another tool's database. */
  isMirror(): Promise<boolean>;
  /**
   * Makes it a mirror of this payrec's layout (in the caller's transaction): creates the
   * tables, or migrates them; refuses (UsageError) a database of another tool or of a
   * newer payrec. Returns what the user should know (a rebuild), if anything.
   */
  layout(): Promise<string | undefined>;
  readMeta(key: string): Promise<string | undefined>;
  writeMeta(key: string, value: string): Promise<void>;
  /** Empties it (records, cursors, remembered scopes) and keeps its layout: the next sync reads everything anew. */
  clearRecords(): Promise<void>;
  readCursor(chain: string, collection: string, scope: string): Promise<number | undefined>;
  /** The cursor of (chain, collection, scope), in the transaction of the records it vouches for. */
  writeCursor(chain: string, collection: string, scope: string, cursor: number): Promise<void>;
  /** Where a list's records begin in the mirror (the `from` of its first sync; 0: its first record). */
  readSince(chain: string, collection: string, scope: string): Promise<number>;
  writeSince(chain: string, collection: string, scope: string, since: number): Promise<void>;
  /** Every cursor, by collection, chain and scope; none when nothing was synced. */
  cursors(): Promise<CursorState[]>;
  /** Notes ids a collection was synced for (--plan-id), so later syncs keep them without being told. */
  rememberScopes(chain: string, collection: string, param: ScopeParam, ids: readonly string[]): Promise<void>;
  rememberedScopes(chain: string, collection: string, param: ScopeParam): Promise<string[]>;
  /** The `param` ids (lower case, well-formed) named by the records of `collection`'s product read whole (short urls name plans). */
  discoveredScopes(chain: string, collection: MirroredCollection, param: ScopeParam): Promise<string[]>;
  /** The fixed-recurring plans it knows; none when nothing was laid out. */
  planSources(chain: string): Promise<PlanSources>;

  // Transactions: all of a batch and its cursor, or none of it.
  transaction<T>(work: () => Promise<T>): Promise<T>;
  begin(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;

  // Writing records (sync).
  /** A writer of `collection`'s records of `chain`; `runAt` (ISO 8601): first_seen of new records, last_updated of changed ones. */
  writer(collection: MirroredCollection, chain: string, runAt: string): Promise<CollectionWriter>;
  /**
   * Holds (service, chain, collection, scope) for this writer while it walks that list;
   * returns the release. Another writer holding it: BusyError (exit 10), or waits with
   * OpenOptions.waitForSync. An engine whose whole mirror has one writer (DuckDB's file
   * lock) holds every scope already.
   */
  lockScope(service: string, chain: string, collection: string, scope: string): Promise<() => Promise<void>>;
  /** When a walk commits; `appendsOnly`: every record of it is new. */
  commitPlan(appendsOnly: boolean): CommitPlan;
  /**
   * Whether readers wait for the writer to let them in (an engine whose file one process
   * holds at a time: DuckDB); false for an engine whose readers never wait.
   */
  readersWaiting(): boolean;
  /** Between transactions: lets waiting readers in, and goes on once they are done (no-op when none wait). */
  letReadersIn(): Promise<void>;
  /** The work ahead is the engine's alone (writing Parquet): it may use every core. */
  useAllCores(): Promise<void>;

  // Reading.
  /** One statement of the user's (payrec sql): refused (UsageError, exit 2) unless it only reads; run whole. */
  query(sql: string): Promise<QueryResult>;
  /** Stops a running query (Ctrl-C): it fails at once. */
  interrupt(): void;
  /** Every table and view users query, with row counts and columns (payrec sql without a query). */
  describe(): Promise<TableSummary[]>;
  /** The plans whose billings and cancellations were both synced; refuses a plan `wanted` but not synced whole. */
  subscriptionCoverage(chain: string, wanted: readonly string[]): Promise<Coverage>;
  /** The fixed-recurring billings and cancellations of `plans`, for the subscription engine. */
  subscriptionRecords(chain: string, plans: readonly string[]): Promise<SubscriptionRecords>;
  /** Subscription ids that `text` (a prefix) names. */
  subscriptionsNamed(chain: string, text: string): Promise<string[]>;
  /** One subscription's billings and cancellations, as the API sent them. */
  subscriptionRecordsOf(chain: string, subscriptionId: string): Promise<{ billings: Record<string, unknown>[]; cancellations: Record<string, unknown>[] }>;

  // Rates (rates.ts): payrec rates sync and import write them, --currency and payrec rates read them.
  /** Stores rates (in the caller's transaction); a Chainlink round already stored (chain, token, feed, roundId) stays as it is. Returns how many were new. */
  storeRates(rows: readonly StoredRate[]): Promise<number>;
  /** Removes (in the caller's transaction) the rows an earlier import of a file of this name stored. Returns how many. */
  dropImport(file: string): Promise<number>;
  /** The stored rates `filter` asks for, by chain, token, currency and time (constant rows first), a file's rows by line. */
  rates(filter: RateFilter): Promise<StoredRate[]>;
  /** Each token the records of `chain` are in (transfers' token, executions' input token), with their first and last timestamps. */
  tokenSpans(chain: string): Promise<TokenSpan[]>;

  // payrec verify and sync --parquet.
  /** Checks the records of `collections` not yet final against the chain, keeps the verdicts (`chain_verdicts`), counts them. */
  verify(verifier: Verifier, o: VerifyOptions): Promise<VerifyReport[]>;
  /** Acknowledges these transactions of `chain` (lower-case hashes) with why and by whom (`chain_acks`). */
  acknowledge(chain: string, hashes: readonly string[], reason: string, by: string): Promise<void>;
  /** The acknowledgements of `chain` (of `hashes`, or all), oldest first, with their records' verdicts. */
  acknowledged(chain: string, hashes?: readonly string[]): Promise<AckRow[]>;
  /** Writes each table as Parquet under `dir` (checked by parquetTarget), partitioned by chain and month; only what changed. */
  exportParquet(dir: string, signal: AbortSignal): Promise<ParquetExport>;

  close(): void;
}

/** Runs `work` in one transaction of `on`: all of it is committed, or none of it (a failed rollback hides not the failure). */
export async function inTransaction<T>(on: { begin(): Promise<void>; commit(): Promise<void>; rollback(): Promise<void> }, work: () => Promise<T>): Promise<T> {
  await on.begin();
  try {
    const result = await work();
    await on.commit();
    return result;
  } catch (err) {
    await on.rollback().catch(() => {});
    throw err;
  }
}
