import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { BusyError, UsageError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import { DuckDBInstance, type DuckDBConnection, type DuckDBResult, type DuckDBValue, type Json } from './duckdb.js';

// The one door to the DuckDB file. @duckdb/node-api is a native addon of several
// megabytes: only `sync` and `sql` import this folder (lazily, see commands/top-level.ts).
// DuckDB's own file lock is what keeps a second sync out (it exits 1, busy): an operating-system lock,
// released when its process ends in any way (kill -9 too), so it never goes stale.

export type Access = 'write' | 'read';

/** Options for every open: DuckDB never downloads or loads extensions (JSON and Parquet are built in). */
const BASE_OPTIONS = { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' };

/**
 * Read-only opens also forbid file access from SQL (COPY TO, read_csv, ATTACH…): a
 * query typed into `payrec sql` reads the mirror and nothing else.
 */
const READ_OPTIONS = { ...BASE_OPTIONS, access_mode: 'READ_ONLY', enable_external_access: 'false' };

/**
 * A sync's DuckDB leaves one core to payrec's own thread, which fetches and parses the
 * pages the inserts are waiting for: on two cores, one DuckDB thread did a first sync's
 * inserts in less time, and less CPU in all, than two that competed with it
 * (test/bench/mirror.mjs).
 */
const WRITE_OPTIONS = { ...BASE_OPTIONS, threads: String(Math.max(1, availableParallelism() - 1)) };

export class MirrorDb {
  /**
   * Where batches of records wait for DuckDB's JSON reader: beside the mirror, made on
   * first use and removed on close; what a killed sync left there goes at the next open
   * for writing (only the lock holder uses it).
   */
  private readonly stagingDir: string;
  private staging = false;
  private staged = 0;

  private constructor(
    readonly file: string,
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
  ) {
    this.stagingDir = join(dirname(file), `.${basename(file)}.staging`);
  }

  static async open(file: string, access: Access): Promise<MirrorDb> {
    let instance: DuckDBInstance;
    try {
      instance = await DuckDBInstance.create(file, access === 'read' ? READ_OPTIONS : WRITE_OPTIONS);
    } catch (err) {
      throw openError(file, access, err);
    }
    const connection = await instance.connect();
    // Dates in UTC, as everywhere in payrec: the same query gives the same months on every
    // machine. This is the one place of the session's zone: date_trunc('month', timestamp)
    // and how payrec sql prints TIMESTAMP WITH TIME ZONE follow it (a --tz ZONE sets it here).
    await connection.run("SET TimeZone = 'UTC'");
    const db = new MirrorDb(file, instance, connection);
    if (access === 'write') rmSync(db.stagingDir, { recursive: true, force: true });
    return db;
  }

  /** Lets DuckDB use every core (for work payrec's own thread no longer shares, such as writing Parquet). */
  async useAllCores(): Promise<void> {
    await this.connection.run(`SET threads = ${availableParallelism()}`);
  }

  /** Runs statements, discarding any result. */
  async run(sql: string, params?: DuckDBValue[]): Promise<void> {
    await this.connection.run(sql, params);
  }

  /** Rows as plain objects; integers beyond a double and decimals come as strings, never rounded. */
  async rows(sql: string, params?: DuckDBValue[]): Promise<Record<string, Json>[]> {
    return (await this.connection.runAndReadAll(sql, params)).getRowObjectsJson();
  }

  /** Runs a statement; returns how many rows it inserted, updated or deleted. */
  async changed(sql: string): Promise<number> {
    return (await this.connection.run(sql)).rowsChanged;
  }

  /**
   * Runs `work` with `content` in a file of its own, for DuckDB's file readers: writing
   * a file costs payrec far less than handing DuckDB the same text as a query
   * parameter, and DuckDB reads it on its own threads. No content: no file.
   */
  async withFile<T>(content: string | Buffer | undefined, work: (quotedPath: string | undefined) => Promise<T>): Promise<T> {
    if (content === undefined) return work(undefined);
    if (!this.staging) mkdirSync(this.stagingDir, { recursive: true });
    this.staging = true;
    const file = join(this.stagingDir, `batch-${this.staged++}.json`);
    // Written at once: fs.promises writes in 512 KB pieces, each waiting for a turn of an
    // event loop busy parsing pages, and DuckDB sat idle ~150 ms a batch; this takes ~5 ms.
    writeFileSync(file, content);
    try {
      return await work(`'${file.replaceAll("'", "''")}'`);
    } finally {
      rmSync(file, { force: true });
    }
  }

  /** A streaming result, read chunk by chunk (for queries of any size). */
  stream(sql: string): Promise<DuckDBResult> {
    return this.connection.stream(sql);
  }

  /** How many statements `sql` holds (parsing only; nothing runs). */
  async statementCount(sql: string): Promise<number> {
    return (await this.connection.extractStatements(sql)).count;
  }

  async begin(): Promise<void> {
    await this.connection.run('BEGIN TRANSACTION');
  }

  async commit(): Promise<void> {
    await this.connection.run('COMMIT');
  }

  async rollback(): Promise<void> {
    await this.connection.run('ROLLBACK').catch(() => {});
  }

  /** Runs `work` in one transaction: all of it is committed, or none of it. */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.begin();
    try {
      const result = await work();
      await this.commit();
      return result;
    } catch (err) {
      await this.rollback();
      throw err;
    }
  }

  /** Stops a running query (Ctrl-C): it fails at once and its transaction is rolled back. */
  interrupt(): void {
    this.connection.interrupt();
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
    if (this.staging) rmSync(this.stagingDir, { recursive: true, force: true });
  }
}

/** DuckDB's open errors, said in terms of the mirror. */
function openError(file: string, access: Access, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  const shown = printable(file);
  const lock = /Conflicting lock is held in .*\(PID (\d+)\)/.exec(message);
  if (lock) {
    return new BusyError(
      `the mirror ${shown} is busy: another process (PID ${lock[1]}) is using it, most likely a payrec sync`,
      'run again when it has finished (a sync commits as it goes, so nothing is lost by waiting)',
    );
  }
  if (/not a valid DuckDB database file/i.test(message)) {
    return new UsageError(`${shown} is not a payrec mirror (not a DuckDB database file); nothing was changed`, 'give another --db, or move that file away');
  }
  if (access === 'read' && /database does not exist/i.test(message)) {
    return new UsageError(`there is no mirror at ${shown}`, 'create it with: payrec sync (or give --db FILE)');
  }
  const cause = /No such file or directory/i.test(message)
    ? 'its directory does not exist'
    : /Permission denied/i.test(message)
      ? 'permission denied'
      : printable(message.split('\n')[0]);
  return new UsageError(`cannot open the mirror ${shown}: ${cause}`, 'check --db (or PAYREC_DB)');
}
