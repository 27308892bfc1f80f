import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BusyError, InterruptedError, UsageError } from '../../core/runtime/errors.js';
import { neutraliseTerminal, printable } from '../../core/output/sanitize.js';
import { formatDuration } from '../../core/runtime/time.js';
import { CATALOG, namingCollections, type MirroredCollection, type ScopeParam } from '../catalog.js';
import { coverageOf } from '../coverage.js';
import type { PgVerdicts } from './verdicts.js';
import type { PgRates } from './rates.js';
import type { RateFilter, StoredRate, TokenSpan } from '../rates.js';
import { inTransaction } from '../engine.js';
import type { Verifier } from '../../chain/verifier.js';
import type { AckRow, Access, CollectionWriter, CommitPlan, Coverage, CursorState, MirrorStore, OpenOptions, ParquetExport, PlanSources, QueryResult, TableSummary, VerifyOptions, VerifyReport } from '../engine.js';
import type { ServerUrl } from '../server-url.js';
import { PgConnection, serverError } from './connection.js';
import { CURSOR_TABLE, ensureLayout, schemasOf, storedTable, tableOf, TABLES, type Schemas } from './layout.js';
import { cellKindOf, valueOf } from './results.js';
import { PgState } from './state.js';
import { PgSubscriptions } from './subscription-records.js';
import { literal, quote } from './types.js';
import { PgWriter } from './writer.js';

// The PostgreSQL engine of the mirror store (../engine.ts): a team's mirror on a server
// (DESIGN.md "A team's mirror on PostgreSQL"). Several runners share it: each sync
// holds an advisory lock per (service, chain, collection, scope) while it walks that
// list, commits every batch with its cursor, and readers never wait for writers.
// `payrec sql` runs each query in a read-only transaction with a statement timeout, so
// the server refuses a write as well as payrec.

/** How long one query of payrec sql may run: a BI tool's ad-hoc limit, not a report's. */
const STATEMENT_TIMEOUT = '5min';
/** How often a sync --wait asks for a busy scope again. */
const WAIT_POLL_MS = 250;
/** What payrec sql runs: a query, never a command (the read-only transaction is the server's guard; this is payrec's, and says why). */
const READS = /^(SELECT|WITH|VALUES|TABLE|EXPLAIN|SHOW)\b/i;

export class PostgresStore implements MirrorStore {
  private readonly state: PgState;
  private readonly schemas: Schemas;
  private readonly held = new Set<string>();

  private constructor(
    private readonly db: PgConnection,
    private readonly server: ServerUrl,
    private readonly o: OpenOptions,
  ) {
    this.schemas = schemasOf(server.schema);
    this.state = new PgState(db, this.schemas.view);
  }

  static async open(server: ServerUrl, access: Access, o: OpenOptions & { env: NodeJS.ProcessEnv }): Promise<PostgresStore> {
    const db = await PgConnection.connect(server, o.env);
    try {
      const s = schemasOf(server.schema);
      // Readers see the views as plain names, times in --tz; the subscriptions view's now is the command's clock.
      await db.run(`SET search_path TO ${s.view}, public`);
      await db.run(`SET TIME ZONE ${literal(o.timeZone ?? 'UTC')}`);
      await db.run(`SET DateStyle = 'ISO, YMD'`);
      if (o.now !== undefined) await db.run(`SET payrec.now = ${literal(String(Math.floor(o.now)))}`);
      if (access === 'read') await db.run('SET default_transaction_read_only = on');
    } catch (err) {
      db.close();
      throw err;
    }
    return new PostgresStore(db, server, o);
  }

  get name(): string {
    return this.server.shown;
  }

  async isMirror(): Promise<boolean> {
    const [row] = await this.db.rows('SELECT to_regclass($1) IS NOT NULL AS present', [`${this.schemas.view}.${CURSOR_TABLE}`]);
    return row.present === 't';
  }

  layout(): Promise<string | undefined> {
    return ensureLayout(this.db, this.server.schema);
  }

  readMeta(key: string): Promise<string | undefined> {
    return this.state.readMeta(key);
  }

  writeMeta(key: string, value: string): Promise<void> {
    return this.state.writeMeta(key, value);
  }

  async clearRecords(): Promise<void> {
    for (const { collection } of TABLES) await this.db.run(`DELETE FROM ${storedTable(this.schemas, collection)}`);
    await this.state.clear();
  }

  readCursor(chain: string, collection: string, scope: string): Promise<number | undefined> {
    return this.state.readCursor(chain, collection, scope);
  }

  writeCursor(chain: string, collection: string, scope: string, cursor: number): Promise<void> {
    return this.state.writeCursor(chain, collection, scope, cursor);
  }

  readSince(chain: string, collection: string, scope: string): Promise<number> {
    return this.state.readSince(chain, collection, scope);
  }

  writeSince(chain: string, collection: string, scope: string, since: number): Promise<void> {
    return this.state.writeSince(chain, collection, scope, since);
  }

  async cursors(): Promise<CursorState[]> {
    return (await this.isMirror()) ? this.state.cursorRows() : [];
  }

  rememberScopes(chain: string, collection: string, param: ScopeParam, ids: readonly string[]): Promise<void> {
    return this.state.rememberScopes(chain, collection, param, ids);
  }

  rememberedScopes(chain: string, collection: string, param: ScopeParam): Promise<string[]> {
    return this.state.rememberedScopes(chain, collection, param);
  }

  async discoveredScopes(chain: string, collection: MirroredCollection, param: ScopeParam): Promise<string[]> {
    const { hexId } = await import('../../registry/validators.js');
    const ids = new Set<string>();
    for (const naming of namingCollections(collection, param)) {
      const c = quote(param);
      const rows = await this.db.rows(`SELECT DISTINCT lower(${c}) AS id FROM ${storedTable(this.schemas, naming)} WHERE chain = $1 AND ${c} IS NOT NULL ORDER BY id`, [chain]);
      for (const r of rows) if (hexId.safeParse(r.id).success) ids.add(r.id!);
    }
    return [...ids];
  }

  async planSources(chain: string): Promise<PlanSources> {
    if (!(await this.isMirror())) return { named: [], remembered: [], synced: [] };
    const remembered: string[] = [];
    for (const collection of ['fixed-recurring/billings', 'fixed-recurring/cancellations']) remembered.push(...(await this.rememberedScopes(chain, collection, 'planId')));
    const synced = await this.db.rows(`SELECT DISTINCT scope FROM ${this.schemas.view}.${CURSOR_TABLE} WHERE chain = $1 AND collection = 'fixed-recurring/billings' AND scope LIKE 'planId=%' ORDER BY scope`, [chain]);
    const billings = CATALOG.find((c) => c.name === 'fixed-recurring/billings')!;
    return { named: await this.discoveredScopes(chain, billings, 'planId'), remembered, synced: synced.map((r) => r.scope!.slice('planId='.length)) };
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    return inTransaction(this, work);
  }

  async begin(): Promise<void> {
    await this.db.run('BEGIN');
  }

  async commit(): Promise<void> {
    await this.db.run('COMMIT');
  }

  async rollback(): Promise<void> {
    await this.db.run('ROLLBACK');
  }

  async writer(collection: MirroredCollection, chain: string, runAt: string): Promise<CollectionWriter> {
    return new PgWriter(this.db, tableOf(collection), this.schemas, chain, runAt);
  }

  /** Every batch is committed with its cursor: kill -9 loses at most the batch being written. */
  commitPlan(): CommitPlan {
    return { fillsCommit: () => false, take: () => true };
  }

  readersWaiting(): boolean {
    return false;
  }

  async letReadersIn(): Promise<void> {}

  async useAllCores(): Promise<void> {}

  /**
   * Holds the advisory lock of (service, chain, collection, scope) in this mirror's
   * schema: another runner on the same list is busy (exit 10), or waited for with
   * --wait; runners on other lists go on. A session lock: it outlives the walk's
   * commits, and the server releases it when the connection ends, kill -9 too.
   */
  async lockScope(service: string, chain: string, collection: string, scope: string): Promise<() => Promise<void>> {
    const key = lockKey(this.server.schema, service, chain, collection, scope);
    if (this.held.has(key)) return async () => {};
    const what = `${collection}${scope ? ` (${scope})` : ''} of chain ${chain}`;
    const limit = this.o.waitForSync;
    const deadline = Date.now() + (limit ?? 0) * 1000;
    let said = false;
    for (;;) {
      const [row] = await this.db.rows('SELECT pg_try_advisory_lock($1::BIGINT) AS taken', [key]);
      if (row.taken === 't') break;
      if (limit === undefined) {
        throw new BusyError(
          `the mirror ${this.name} is busy: another payrec sync is writing ${what}`,
          'run again when it has finished (a sync commits as it goes, so nothing is lost by waiting), or wait for it: payrec sync --wait',
        );
      }
      if (Date.now() >= deadline) throw new BusyError(`the mirror ${this.name} is still busy after ${formatDuration(limit)}: another payrec sync is writing ${what}`, 'wait longer (--wait 30m), or without a limit (--wait alone)');
      if (!said) {
        said = true;
        this.o.waiting?.(`waiting for another payrec sync to finish ${what}${Number.isFinite(limit) ? ` (at most ${formatDuration(limit)})` : ''}…`);
      }
      if (this.o.signal?.aborted) throw new InterruptedError();
      await sleep(WAIT_POLL_MS);
    }
    this.held.add(key);
    return async () => {
      this.held.delete(key);
      await this.db.run('SELECT pg_advisory_unlock($1::BIGINT)', [key]);
    };
  }

  async query(sql: string): Promise<QueryResult> {
    const text = sql.replace(/^(\s|--[^\n]*\n?|\/\*[\s\S]*?\*\/)+/, '');
    if (!READS.test(text)) {
      throw new UsageError(`payrec sql only reads: "${printable(text.slice(0, 40))}" is not a query (SELECT, WITH, VALUES, TABLE, EXPLAIN, SHOW)`, 'the mirror changes only through payrec sync; export results with -o FILE');
    }
    let result;
    try {
      // The server refuses writes too (a function that writes, a CTE with DELETE), and stops a query past the timeout.
      await this.db.run('BEGIN READ ONLY');
      await this.db.run(`SET LOCAL statement_timeout = ${literal(STATEMENT_TIMEOUT)}`);
      result = await this.db.userQuery(sql);
      await this.db.run('COMMIT');
    } catch (err) {
      await this.db.run('ROLLBACK').catch(() => {});
      throw this.queryError(err);
    }
    const columns = unique(result.fields.map((f) => f.name));
    const oids = result.fields.map((f) => f.dataTypeID);
    const rows = result.rows;
    return {
      rows: rows.length,
      columns,
      cellKinds: () => new Map(columns.map((c, i) => [c, cellKindOf(oids[i])])),
      async *records(zone, asCells) {
        for (let start = 0; start < rows.length; start += 2048) {
          yield rows.slice(start, start + 2048).map((row) => {
            const record: Record<string, unknown> = {};
            for (let i = 0; i < columns.length; i++) record[columns[i]] = valueOf(oids[i], row[i], zone, asCells);
            return record;
          });
        }
      },
    };
  }

  /** A query's failure: the server's message (exit 2), a write the read-only transaction refused, the timeout, or Ctrl-C. */
  private queryError(err: unknown): Error {
    if (this.o.signal?.aborted) return new InterruptedError();
    const code = (err as { code?: string }).code;
    const message = neutraliseTerminal((err instanceof Error ? err.message : String(err)).split('\n')[0]);
    if (code === '25006') return new UsageError(`payrec sql only reads: ${message}`, 'the mirror changes only through payrec sync; export results with -o FILE');
    if (code === '57014' && /statement timeout/.test(message)) return new UsageError(`the query ran longer than payrec sql allows (${STATEMENT_TIMEOUT}): ${message}`, 'narrow it (WHERE, LIMIT), or ask the server from psql');
    if (code === undefined || code.startsWith('08') || code === '57014') return serverError(this.name, err, this.db.cancelled);
    if (code === '42501') return serverError(this.name, err);
    return new UsageError(`the query failed: ${message}`, /^42/.test(code) ? 'PostgreSQL keeps the case of quoted names: camelCase columns are written "transactionHash"' : undefined);
  }

  interrupt(): void {
    void this.db.cancel();
  }

  async describe(): Promise<TableSummary[]> {
    const relations = await this.db.rows(
      `SELECT c.relname AS name, CASE WHEN c.relkind = 'v' THEN 'view' ELSE 'table' END AS kind,
              (SELECT string_agg(a.attname, ', ' ORDER BY a.attnum) FROM pg_attribute AS a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns
       FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relkind IN ('r', 'v', 'p')`,
      [this.server.schema],
    );
    const rank = (r: { name: string; kind: string }) => (r.name.startsWith('payrec_') ? 2 : r.kind === 'view' ? 1 : 0);
    const ordered = relations.map((r) => ({ name: r.name!, kind: r.kind as TableSummary['kind'], columns: r.columns ?? '' })).sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
    const out: TableSummary[] = [];
    for (const r of ordered) {
      const [count] = await this.db.rows(`SELECT count(*) AS n FROM ${this.schemas.view}.${quote(r.name)}`);
      out.push({ table: r.name, kind: r.kind, rows: Number(count.n), columns: r.columns });
    }
    return out;
  }

  async subscriptionCoverage(chain: string, wanted: readonly string[]): Promise<Coverage> {
    const rows = (await this.cursors()).filter((c) => c.chain === chain && ['fixed-recurring/billings', 'fixed-recurring/cancellations'].includes(c.collection) && c.scope.startsWith('planId='));
    return coverageOf(rows, chain, wanted, (collection, scope) => this.readSince(chain, collection, scope));
  }

  subscriptionRecords(chain: string, plans: readonly string[]) {
    return this.subscriptions().records(chain, plans);
  }

  subscriptionsNamed(chain: string, text: string): Promise<string[]> {
    return this.subscriptions().named(chain, text);
  }

  subscriptionRecordsOf(chain: string, subscriptionId: string) {
    return this.subscriptions().of(chain, subscriptionId);
  }

  private subscriptions(): PgSubscriptions {
    const [billings, cancellations] = ['fixed-recurring/billings', 'fixed-recurring/cancellations'].map((name) => storedTable(this.schemas, CATALOG.find((c) => c.name === name)!));
    return new PgSubscriptions(this.db, billings, cancellations);
  }

  async verify(verifier: Verifier, o: VerifyOptions): Promise<VerifyReport[]> {
    const { verifyMirror } = await import('../verify.js');
    return verifyMirror(await this.verdicts(), verifier, o);
  }

  async acknowledge(chain: string, hashes: readonly string[], reason: string, by: string): Promise<void> {
    return (await this.verdicts()).acknowledge(chain, hashes, reason, by);
  }

  async acknowledged(chain: string, hashes?: readonly string[]): Promise<AckRow[]> {
    return (await this.verdicts()).acknowledged(chain, hashes);
  }

  async storeRates(rows: readonly StoredRate[]): Promise<number> {
    return (await this.ratesTable()).store(rows);
  }

  async dropImport(file: string): Promise<number> {
    return (await this.ratesTable()).dropImport(file);
  }

  async rates(filter: RateFilter): Promise<StoredRate[]> {
    return (await this.ratesTable()).read(filter);
  }

  async tokenSpans(chain: string): Promise<TokenSpan[]> {
    return (await this.ratesTable()).tokenSpans(chain);
  }

  private async ratesTable(): Promise<PgRates> {
    const { PgRates } = await import('./rates.js');
    return new PgRates(this.db, this.schemas);
  }

  private async verdicts(): Promise<PgVerdicts> {
    const { PgVerdicts } = await import('./verdicts.js');
    return new PgVerdicts(this.db, this.schemas, () => this.layout());
  }

  async exportParquet(): Promise<ParquetExport> {
    throw new UsageError('--parquet writes a mirror file as Parquet, and this mirror is on a PostgreSQL server');
  }

  close(): void {
    this.db.close();
  }
}

/** The advisory lock's key: 64 bits of a hash of (schema, service, chain, collection, scope). */
function lockKey(schema: string, service: string, chain: string, collection: string, scope: string): string {
  return createHash('sha256').update(JSON.stringify([schema, service, chain, collection, scope])).digest().readBigInt64BE(0).toString();
}

/** Column names made unique as DuckDB's are: a, a_1, a_2. */
function unique(names: string[]): string[] {
  const seen = new Set<string>();
  return names.map((name) => {
    let candidate = name;
    for (let i = 1; seen.has(candidate); i++) candidate = `${name}_${i}`;
    seen.add(candidate);
    return candidate;
  });
}
