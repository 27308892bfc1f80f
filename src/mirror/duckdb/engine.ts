import { InterruptedError, UsageError } from '../../core/runtime/errors.js';
import { neutraliseTerminal } from '../../core/output/sanitize.js';
import type { Verifier } from '../../chain/verifier.js';
import type { MirroredCollection, ScopeParam } from '../catalog.js';
import type { RateFilter, StoredRate, TokenSpan } from '../rates.js';
import type { Access, CollectionWriter, CommitPlan, Coverage, CursorState, MirrorStore, OpenOptions, ParquetExport, PlanSources, QueryResult, TableSummary, VerifyReport, VerifyOptions, AckRow } from '../engine.js';
import { RowGroupCommits } from './commit-plan.js';
import { MirrorDb, openOptions } from './connection.js';
import { describeMirror } from './describe.js';
import { cellKinds, resultRecords } from './results.js';
import { CURSOR_TABLE, isMirror, readCursor, readMeta, readSince, rememberedScopes, rememberScopes, writeCursor, writeMeta, writeSince } from './state.js';

// The DuckDB engine of the mirror store (../engine.ts): one file, opened by one writer at
// a time (connection.ts), its tables and SQL in this folder. What only some commands
// need (the layout and the registry's schemas behind it, upserts, the subscription
// reader, verdicts, Parquet) is loaded when first asked: `payrec sql` loads neither zod
// nor the chain client.

export { openOptions };

export class DuckDbStore implements MirrorStore {
  private constructor(
    private readonly db: MirrorDb,
    /** Ctrl-C: an error after it is the interruption's, not the query's. */
    private readonly signal: AbortSignal | undefined,
  ) {}

  static async open(file: string, access: Access, o: OpenOptions): Promise<DuckDbStore> {
    const db = await MirrorDb.open(file, access, o);
    try {
      // The subscriptions view's now: the command's clock (pinned with PAYREC_EMULATOR_NOW).
      if (o.now !== undefined) await db.run(`SET VARIABLE payrec_now = to_timestamp(${Math.floor(o.now)})`);
    } catch (err) {
      db.close();
      throw err;
    }
    return new DuckDbStore(db, o.signal);
  }

  get name(): string {
    return this.db.file;
  }

  isMirror(): Promise<boolean> {
    return isMirror(this.db);
  }

  async layout(): Promise<string | undefined> {
    return (await import('./layout.js')).ensureLayout(this.db);
  }

  readMeta(key: string): Promise<string | undefined> {
    return readMeta(this.db, key);
  }

  writeMeta(key: string, value: string): Promise<void> {
    return writeMeta(this.db, key, value);
  }

  async clearRecords(): Promise<void> {
    await (await import('./layout.js')).clearRecords(this.db);
  }

  readCursor(chain: string, collection: string, scope: string): Promise<number | undefined> {
    return readCursor(this.db, chain, collection, scope);
  }

  writeCursor(chain: string, collection: string, scope: string, cursor: number): Promise<void> {
    return writeCursor(this.db, chain, collection, scope, cursor);
  }

  readSince(chain: string, collection: string, scope: string): Promise<number> {
    return readSince(this.db, chain, collection, scope);
  }

  writeSince(chain: string, collection: string, scope: string, since: number): Promise<void> {
    return writeSince(this.db, chain, collection, scope, since);
  }

  async cursors(): Promise<CursorState[]> {
    const tables = await this.db.rows(`SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = '${CURSOR_TABLE}'`);
    if (Number(tables[0].n) === 0) return [];
    const rows = await this.db.rows(`SELECT chain, collection, scope, cursor, (epoch(now()) - epoch(synced_at))::BIGINT AS age FROM ${CURSOR_TABLE} ORDER BY collection, chain, scope`);
    return rows.map((r) => ({ chain: String(r.chain), collection: String(r.collection), scope: String(r.scope), cursor: Number(r.cursor), age: Number(r.age) }));
  }

  rememberScopes(chain: string, collection: string, param: ScopeParam, ids: readonly string[]): Promise<void> {
    return rememberScopes(this.db, chain, collection, param, ids);
  }

  rememberedScopes(chain: string, collection: string, param: ScopeParam): Promise<string[]> {
    return rememberedScopes(this.db, chain, collection, param);
  }

  async discoveredScopes(chain: string, collection: MirroredCollection, param: ScopeParam): Promise<string[]> {
    return (await import('./scopes.js')).discoveredScopes(this.db, chain, collection, param);
  }

  async planSources(chain: string): Promise<PlanSources> {
    const remembered: string[] = [];
    for (const collection of ['fixed-recurring/billings', 'fixed-recurring/cancellations']) remembered.push(...(await this.rememberedScopes(chain, collection, 'planId')));
    const synced = await this.db.rows(`SELECT DISTINCT scope FROM ${CURSOR_TABLE} WHERE chain = $1 AND collection = 'fixed-recurring/billings' AND scope LIKE 'planId=%'`, [chain]);
    const { CATALOG } = await import('../catalog.js');
    const billings = CATALOG.find((c) => c.name === 'fixed-recurring/billings')!;
    return { named: await this.discoveredScopes(chain, billings, 'planId'), remembered, synced: synced.map((r) => String(r.scope).slice('planId='.length)) };
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  begin(): Promise<void> {
    return this.db.begin();
  }

  commit(): Promise<void> {
    return this.db.commit();
  }

  rollback(): Promise<void> {
    return this.db.rollback();
  }

  async writer(collection: MirroredCollection, chain: string, runAt: string): Promise<CollectionWriter> {
    const [{ Upserter }, { layoutOf }] = await Promise.all([import('./upsert.js'), import('./layout.js')]);
    return new Upserter(this.db, layoutOf(collection), chain, runAt);
  }

  /** One sync at a time holds the whole file (connection.ts' sync lock): every scope is its already. */
  async lockScope(): Promise<() => Promise<void>> {
    return async () => {};
  }

  commitPlan(appendsOnly: boolean): CommitPlan {
    return new RowGroupCommits(appendsOnly);
  }

  readersWaiting(): boolean {
    return this.db.readersWaiting();
  }

  letReadersIn(): Promise<void> {
    return this.db.letReadersIn();
  }

  useAllCores(): Promise<void> {
    return this.db.useAllCores();
  }

  async query(sql: string): Promise<QueryResult> {
    const { result, rows } = await this.asUsage(async () => this.db.completeResult(sql, await this.db.readKind(sql)));
    const columns = result.deduplicatedColumnNames();
    const asUsage = <T>(work: () => Promise<T>) => this.asUsage(work);
    return {
      rows,
      columns,
      cellKinds: () => cellKinds(result, columns),
      async *records(zone, asCells) {
        // Only reading the result is DuckDB's: an error in what the caller does with a chunk is payrec's own, never "the query failed".
        const chunks = resultRecords(result, columns, zone, asCells);
        for (;;) {
          const next = await asUsage(() => chunks.next());
          if (next.done) return;
          yield next.value;
        }
      },
    };
  }

  interrupt(): void {
    this.db.interrupt();
  }

  describe(): Promise<TableSummary[]> {
    return describeMirror(this.db);
  }

  async subscriptionCoverage(chain: string, wanted: readonly string[]): Promise<Coverage> {
    return (await import('./subscription-records.js')).subscriptionCoverage(this.db, chain, wanted);
  }

  async subscriptionRecords(chain: string, plans: readonly string[]) {
    return (await import('./subscription-records.js')).readSubscriptionRecords(this.db, chain, plans);
  }

  async subscriptionsNamed(chain: string, text: string): Promise<string[]> {
    return (await import('./subscription-records.js')).subscriptionsNamed(this.db, chain, text);
  }

  async subscriptionRecordsOf(chain: string, subscriptionId: string) {
    return (await import('./subscription-records.js')).subscriptionRecordsOf(this.db, chain, subscriptionId);
  }

  async storeRates(rows: readonly StoredRate[]): Promise<number> {
    return (await import('./rates.js')).storeRates(this.db, rows);
  }

  async dropImport(file: string): Promise<number> {
    return (await import('./rates.js')).dropImport(this.db, file);
  }

  async rates(filter: RateFilter): Promise<StoredRate[]> {
    return (await import('./rates.js')).readRates(this.db, filter);
  }

  async tokenSpans(chain: string): Promise<TokenSpan[]> {
    const [{ tokenSpans }, { LAYOUTS }] = await Promise.all([import('./rates.js'), import('./layout.js')]);
    return tokenSpans(this.db, LAYOUTS, chain);
  }

  async verify(verifier: Verifier, o: VerifyOptions): Promise<VerifyReport[]> {
    const [{ verifyMirror }, { verdictStore }] = await Promise.all([import('../verify.js'), import('./verdicts.js')]);
    return verifyMirror(verdictStore(this.db), verifier, o);
  }

  async acknowledge(chain: string, hashes: readonly string[], reason: string, by: string): Promise<void> {
    return (await import('./verdicts.js')).acknowledge(this.db, chain, hashes, reason, by);
  }

  async acknowledged(chain: string, hashes?: readonly string[]): Promise<AckRow[]> {
    return (await import('./verdicts.js')).acknowledged(this.db, chain, hashes);
  }

  async exportParquet(dir: string, signal: AbortSignal): Promise<ParquetExport> {
    return (await import('./parquet.js')).exportParquet(this.db, dir, signal);
  }

  close(): void {
    this.db.close();
  }

  /** DuckDB's errors about a query become exit 2 with its message (a write says the mirror is read-only here); Ctrl-C is an interruption. */
  private async asUsage<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof UsageError || err instanceof InterruptedError) throw err;
      if (this.signal?.aborted) throw new InterruptedError();
      const message = err instanceof Error ? err.message : String(err);
      if (/read-only mode|file system operations are disabled/i.test(message)) {
        throw new UsageError(`payrec sql only reads: ${neutraliseTerminal(message.split('\n')[0])}`, 'the mirror changes only through payrec sync; export results with -o FILE');
      }
      if (/interrupted/i.test(message)) throw new InterruptedError();
      throw new UsageError(`the query failed: ${neutraliseTerminal(message.split('\n')[0])}`, firstHint(message));
    }
  }
}

/** DuckDB's LINE/caret lines are useful for syntax errors: keep the hint short. */
function firstHint(message: string): string | undefined {
  if (/No function matches the given name and argument types 'sum\(VARCHAR\)'|exact_sum|_exact/.test(message)) {
    return 'amounts are DECIMAL(38,18): total them with SUM(amount) (a mirror made by an older payrec becomes so at its next payrec sync)';
  }
  return undefined;
}
