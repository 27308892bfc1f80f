import { closeSync, constants, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync, writevSync, type Stats } from 'node:fs';
import { makeFilesPrivate } from '../../core/runtime/umask.js';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BusyError, InterruptedError, UsageError } from '../../core/runtime/errors.js';
import { printable } from '../../core/output/sanitize.js';
import { formatDuration } from '../../core/runtime/time.js';
import { diskRefusal, refusedByDisk, shellWord } from '../../core/runtime/trust.js';
import { MIRROR_KEEPER } from '../location.js';
import { RELEASE_EVERY, releaseChunks } from './chunks.js';
import { inTransaction } from '../engine.js';
import { refusedTableFunction } from './reading-functions.js';
import { DuckDBInstance, StatementType, type DuckDBConnection, type DuckDBDataChunk, type DuckDBResult, type DuckDBValue, type Json } from './node-api.js';
import type { Access, OpenOptions } from '../engine.js';
import { processAlive } from '../../core/runtime/process-alive.js';
import { removedAtExit } from '../../core/runtime/exit-cleanup.js';

// The one door to the DuckDB file. @duckdb/node-api is a native addon of several
// megabytes: only openMirror (../open.ts) loads this folder, lazily, when a command opens a mirror.
//
// DuckDB lets one process write a file, and no other process read it meanwhile. So a
// sync holds the mirror only while it works, and lets readers in between its
// transactions: a `payrec sql` that finds the file taken leaves a note in the mirror's
// readers folder and tries again every few milliseconds; the sync, before each batch
// it writes, looks for such notes, commits, closes the file and opens it again once
// the readers have it. Syncs keep each other out with a lock of their own, held for
// the whole run: DuckDB's lock on a small file beside the mirror, an operating-system
// lock that is released when its process ends in any way (kill -9 too), so it never
// goes stale.

/**
 * DuckDB's buffer pool keeps what a sync wrote until it reaches the memory limit (by
 * default 80 % of the machine's memory): a first sync of 3M transfers peaked at 850 MB
 * against 475 MB for 1M. The mirror's blocks are on disk, so a small pool costs little:
 * with 128 MB, 428 MB and 420 MB, and no slower (test/bench/mirror.mjs, part memory).
 */
export const DEFAULT_MEMORY_LIMIT = '128MB';

const SMALLEST_MEMORY_LIMIT = 40_000_000;

/** Validates PAYREC_MIRROR_MEMORY (exit 2 before anything is opened). */
export function memoryLimitOf(env: NodeJS.ProcessEnv): string {
  const given = env.PAYREC_MIRROR_MEMORY;
  if (given === undefined || given === '') return DEFAULT_MEMORY_LIMIT;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$/i.exec(given);
  if (!m || Number(m[1]) === 0) throw new UsageError(`invalid PAYREC_MIRROR_MEMORY "${printable(given)}": expected a size such as 256MB or 1GB`);
  // DuckDB's units: KB is 1000 bytes, KiB 1024. A sync allocates a 32 MiB block at once: below 40MB it failed with an internal out-of-memory error.
  const unit = m[2].toUpperCase();
  const bytes = Number(m[1]) * (unit.includes('I') ? 1024 : 1000) ** (['K', 'M', 'G', 'T'].indexOf(unit[0]) + 1);
  if (bytes < SMALLEST_MEMORY_LIMIT) throw new UsageError(`invalid PAYREC_MIRROR_MEMORY "${printable(given)}": expected at least 40MB, such as 128MB (the default)`);
  return `${m[1]}${m[2]}`;
}

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

/** How long a reader waits for a sync to let it in, and a sync for readers to be done, before saying so. */
const SAY_WAITING_MS = 1000;
/** How long an open waits for the file at most: a sync lets readers in within a batch; anything longer is another program. */
const READER_PATIENCE_MS = 60_000;
/** How long a sync that closed the file for readers waits for them to open it. */
const READERS_ENTER_MS = 2000;
const RETRY_MS = 25;
/** How often a sync --wait tries the other sync's lock: each try opens a small DuckDB file. */
const WAIT_FOR_SYNC_POLL_MS = 200;

export class MirrorDb {
  /**
   * Where batches of records wait for DuckDB's JSON reader: a private folder beside the
   * mirror (mkdtemp: a new name, 0700, never a link), made on first use and removed on
   * close; what a killed sync left goes at the next open for writing (only the lock
   * holder stages). Its files are opened O_EXCL|O_NOFOLLOW: nothing planted is written
   * through or read back.
   */
  private stagingDir?: string;
  /** Where readers waiting for the file leave a note named by their process id. */
  private readonly readersDir: string;
  /** DuckDB's temp_directory (see makeSpillFolder). */
  private spill?: { path: string; remove(): void };
  private staged = 0;
  private instance?: DuckDBInstance;
  private connection?: DuckDBConnection;
  /** A sync's lock against other syncs (see SyncLock). */
  private syncLock?: DuckDBInstance;

  private constructor(
    readonly file: string,
    private readonly access: Access,
    private readonly o: OpenOptions,
  ) {
    this.readersDir = readersDirOf(file);
  }

  static async open(file: string, access: Access, o: OpenOptions = { memoryLimit: DEFAULT_MEMORY_LIMIT }): Promise<MirrorDb> {
    const db = new MirrorDb(file, access, o);
    if (file !== ':memory:') {
      // Every file this process makes from here on is private: the mirror, its WAL, its
      // staging and spill files, Parquet. They hold every payment record.
      makeFilesPrivate();
      // Also before a read: DuckDB replays a WAL it finds beside the file.
      refusePlanted(file);
      if (access === 'write') db.syncLock = await takeSyncLock(file, o);
    }
    try {
      db.spill = makeSpillFolder(file);
      await db.connect();
    } catch (err) {
      db.close();
      throw err;
    }
    if (access === 'write' && file !== ':memory:') removeStaleStaging(file);
    return db;
  }

  /**
   * Opens the file, waiting while another process has it (see the top of this file): at
   * most READER_PATIENCE_MS, except for a sync that let readers in (`patient`), which
   * waits for them however long their queries take (Ctrl-C stops it).
   */
  private async connect(patient = false): Promise<void> {
    // DuckDB sets them in this order, and takes no temp_directory once external access is off.
    const options = { temp_directory: this.spill?.path ?? '', ...(this.access === 'read' ? READ_OPTIONS : WRITE_OPTIONS), memory_limit: this.o.memoryLimit };
    const note = this.access === 'read' && this.file !== ':memory:' ? join(this.readersDir, String(process.pid)) : undefined;
    const started = Date.now();
    let said = false;
    try {
      for (;;) {
        try {
          this.instance = await DuckDBInstance.create(this.file, options);
          break;
        } catch (err) {
          const holder = heldBy(err);
          if (holder === undefined) throw openError(this.file, this.access, err);
          if (note && !said) leaveNote(this.readersDir, note);
          const waited = Date.now() - started;
          if (!patient && waited > READER_PATIENCE_MS) throw busy(this.file, holder);
          if (!said && (this.access === 'read' || waited > SAY_WAITING_MS)) {
            said = true;
            this.o.waiting?.(this.access === 'read' ? 'waiting for a sync to commit…' : `waiting for payrec sql (PID ${holder}) to finish reading the mirror…`);
          }
          if (this.o.signal?.aborted) throw new InterruptedError();
          await sleep(RETRY_MS);
        }
      }
    } finally {
      if (note) rmSync(note, { force: true });
    }
    this.connection = await this.instance.connect();
    // UTC unless --tz says otherwise, never the machine's zone: the same query gives the
    // same months on every machine. The zone is a canonical IANA name (session.ts).
    await this.connection.run(`SET TimeZone = '${(this.o.timeZone ?? 'UTC').replaceAll("'", "''")}'`);
    // A reader's settings are payrec's, whatever a query tries (external access, the memory limit, where it spills).
    if (this.access === 'read') await this.connection.run('SET lock_configuration = true');
  }

  private get conn(): DuckDBConnection {
    if (!this.connection) throw new Error('the mirror is closed');
    return this.connection;
  }

  /**
   * Between a sync's transactions: when readers wait for the file, closes it (DuckDB
   * writes what was committed into it), lets them open it, and opens it again once they
   * are done. Costs a directory listing while nobody waits.
   */
  async letReadersIn(): Promise<void> {
    if (!this.readersWaiting()) return;
    // What was committed is in the WAL, and readers read it from there: writing it into
    // the file first (the checkpoint when DuckDB closes) made them wait seconds more. The
    // sync's next open does it, once they are done.
    await this.conn.run('PRAGMA disable_checkpoint_on_shutdown');
    this.closeFile();
    const until = Date.now() + READERS_ENTER_MS;
    while (this.readersWaiting() && Date.now() < until) await sleep(RETRY_MS);
    await this.connect(true);
  }

  /** Whether a live process left a note that it waits to read the file. */
  readersWaiting(): boolean {
    let names: string[];
    try {
      if (!ownFolder(this.readersDir)) return false;
      names = readdirSync(this.readersDir);
    } catch {
      return false;
    }
    return names.some((name) => {
      if (processAlive(Number(name))) return true;
      rmSync(join(this.readersDir, name), { force: true });
      return false;
    });
  }

  /** Lets DuckDB use every core (for work payrec's own thread no longer shares, such as writing Parquet). */
  async useAllCores(): Promise<void> {
    await this.conn.run(`SET threads = ${availableParallelism()}`);
  }

  /** Runs statements, discarding any result. */
  async run(sql: string, params?: DuckDBValue[]): Promise<void> {
    await this.onDisk(() => this.conn.run(sql, params));
  }

  /** Rows as plain objects; integers beyond a double and decimals come as strings, never rounded. */
  async rows(sql: string, params?: DuckDBValue[]): Promise<Record<string, Json>[]> {
    return (await this.onDisk(() => this.conn.runAndReadAll(sql, params))).getRowObjectsJson();
  }

  /**
   * DuckDB's work, with a write the disk refused (the mirror, its WAL, a spill: full,
   * over quota, read-only) said as exit 2 naming the folder and what moves it; DuckDB
   * rolls the open transaction back, so what earlier batches committed stays.
   */
  private async onDisk<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      const message = err instanceof Error ? err.message : '';
      if (this.spill && message.includes(this.spill.path) && dirname(this.spill.path) !== dirname(this.file)) {
        throw refusedByDisk(err, "DuckDB's spill file", dirname(this.spill.path), 'set TMPDIR to a folder on another disk');
      }
      throw refusedByDisk(err, `the mirror ${printable(this.file)}`, dirname(this.file), MOVE_MIRROR);
    }
  }

  /**
   * The rows of a read, a chunk of columns at a time (JS values: DOUBLE a number, VARCHAR
   * a string), so a million rows are never all held as objects. A streamed result that
   * fails after its first chunks ends like a complete one (see completeResult), so the
   * rows are counted first and a shortfall is an error.
   */
  async *columnChunks(sql: string, params: DuckDBValue[]): AsyncGenerator<unknown[][]> {
    for await (const chunk of (await this.dataChunks(sql, params)).chunks) yield chunk.getColumns() as unknown[][];
  }

  /**
   * The rows of a read as DuckDB's own chunks, for a reader that copies numbers out of
   * their vectors (chunks.ts) rather than make a JS value per row; and how many rows
   * there are, counted first (see columnChunks) unless the caller knows (`rows`: a read
   * that gives another number still fails). Use each chunk before asking for the next:
   * its memory is let go then.
   */
  async dataChunks(sql: string, params: DuckDBValue[], rows?: number): Promise<{ rows: number; chunks: AsyncGenerator<DuckDBDataChunk> }> {
    const expected = rows ?? Number((await this.rows(`SELECT count(*)::BIGINT AS n FROM (${sql})`, params))[0].n);
    const result = await this.conn.stream(sql, params);
    async function* chunks(): AsyncGenerator<DuckDBDataChunk> {
      let read = 0;
      let released = 0;
      for (let chunk = await result.fetchChunk(); chunk !== null && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
        read += chunk.rowCount;
        yield chunk;
        if (read - released >= RELEASE_EVERY) {
          released = read;
          releaseChunks();
        }
      }
      if (read !== expected) throw new Error(`the mirror's read ended after ${read} of ${expected} rows`);
    }
    return { rows: expected, chunks: chunks() };
  }

  /** Runs a statement; returns how many rows it inserted, updated or deleted. */
  async changed(sql: string): Promise<number> {
    return (await this.onDisk(() => this.conn.run(sql))).rowsChanged;
  }

  /**
   * Runs `work` with `content` in a file of its own, for DuckDB's file readers: writing
   * a file costs payrec far less than handing DuckDB the same text as a query
   * parameter, and DuckDB reads it on its own threads. No content: no file.
   */
  async withFile<T>(content: string | Buffer | Buffer[] | undefined, work: (quotedPath: string | undefined) => Promise<T>): Promise<T> {
    if (content === undefined) return work(undefined);
    let file: string | undefined;
    try {
      this.stagingDir ??= mkdtempSync(stagingPrefix(this.file));
      file = join(this.stagingDir, `batch-${this.staged++}.json`);
      // Written at once: fs.promises writes in 512 KB pieces, each waiting for a turn of an
      // event loop busy parsing pages, and DuckDB sat idle ~150 ms a batch; this takes ~5 ms.
      const fd = openSync(file, PRIVATE_NEW_FILE, 0o600);
      try {
        if (Array.isArray(content)) writePieces(fd, content);
        else writeFileSync(fd, content);
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      if (file) rmSync(file, { force: true });
      throw refusedByDisk(err, `the mirror's staging file in ${printable(dirname(this.file))}`, dirname(this.file), MOVE_MIRROR);
    }
    try {
      return await work(`'${file.replaceAll("'", "''")}'`);
    } finally {
      rmSync(file, { force: true });
    }
  }

  /**
   * Checks that `sql` is one statement that reads, a query or EXPLAIN [ANALYZE] of one,
   * and says which. DuckDB says what a statement is (the type of its prepared
   * statement), but not what an EXPLAIN explains, and EXPLAIN ANALYZE runs it (a COPY
   * over the mirror, a SET): the statement after the keywords must be a query itself.
   * Anything else is refused before it runs, also what a read-only file would take
   * (SET, PRAGMA, CALL, USE, LOAD…), and a query calling a table function that does
   * more than read (reading-functions.ts), found before DuckDB binds it.
   */
  async readKind(sql: string): Promise<'query' | 'explain'> {
    const keywords = /^\s*EXPLAIN\s+(?:ANALYZE\s+)?/i.exec(sql);
    const checked = await this.onlyReadingFunctions(keywords ? sql.slice(keywords[0].length) : sql);
    const type = await this.statementType(sql);
    if (type === StatementType.SELECT && checked) return 'query';
    if (type !== StatementType.EXPLAIN) throw onlyReads(`DuckDB takes this statement as ${typeName(type)}${type === StatementType.SELECT ? ' that payrec cannot look into' : ''}`);
    const explained = keywords ? await this.statementType(sql.slice(keywords[0].length)).catch(() => undefined) : undefined;
    if (explained !== StatementType.SELECT || !checked) {
      const what = explained === undefined ? '' : `; DuckDB takes the statement it explains as ${typeName(explained)}`;
      throw onlyReads(`EXPLAIN runs only as EXPLAIN [ANALYZE] followed by a query${what}`);
    }
    return 'explain';
  }

  /**
   * Refuses a query that calls a table function other than those that only read,
   * anywhere in it; false when DuckDB parses `sql` into something other than queries
   * (the statement's type then says what it is).
   */
  private async onlyReadingFunctions(sql: string): Promise<boolean> {
    const [{ tree }] = await this.rows('SELECT json_serialize_sql($1::VARCHAR) AS tree', [sql]);
    const parsed = JSON.parse(String(tree)) as { error?: boolean };
    if (parsed.error !== false) return false;
    const refused = refusedTableFunction(parsed);
    if (refused !== undefined) throw onlyReads(`the table function ${printable(refused)}() does more than read (payrec sql runs those that only read: range, unnest, json_each, duckdb_tables…)`);
    return true;
  }

  /** The type DuckDB gives `sql`, which must be one statement; prepared (bound), never run. */
  private async statementType(sql: string): Promise<StatementType> {
    const statements = await this.conn.extractStatements(sql);
    if (statements.count !== 1) throw new UsageError('give exactly one SQL statement');
    const prepared = await statements.prepare(0).catch((err: unknown) => {
      // The collections are views (layout.ts): DuckDB refuses a write to one while binding it, before its type is known.
      if (/Can only (delete from|update) base table|insert into (a )?view/i.test(err instanceof Error ? err.message : String(err))) {
        throw onlyReads(`DuckDB takes this statement as ${(/^\s*(\w+)/.exec(sql)?.[1] ?? 'a write').toUpperCase()}`);
      }
      throw err;
    });
    const type = prepared.statementType;
    prepared.destroySync();
    return type;
  }

  /**
   * Runs a query to the end before a row is read, and returns its rows as a stream with
   * their number. @duckdb/node-api ends a streamed result quietly when DuckDB raises an
   * error after its first chunks (fetch_chunk resolves null for an error as for the end,
   * and the result's error is not exposed), so a failed query would look complete: here
   * the query fills a temporary table (errors are raised; DuckDB spills it to disk
   * beyond the memory limit), and the caller checks that it read every row. The table
   * is the one trace: a query of the catalog (duckdb_tables(), SHOW ALL TABLES) lists
   * it, as a temporary table of its own connection.
   */
  async completeResult(sql: string, kind: 'query' | 'explain'): Promise<{ result: DuckDBResult; rows: number }> {
    if (kind === 'explain') {
      // EXPLAIN (ANALYZE) runs its query whole before it answers: its rows are a few.
      const result = await this.conn.run(sql);
      return { result, rows: result.rowCount };
    }
    try {
      await this.conn.run(`CREATE OR REPLACE TEMP TABLE ${RESULT} AS ${sql}`);
    } catch (err) {
      // DESCRIBE, SHOW and SUMMARIZE read, but only stand as a subquery.
      if (!/^Parser Error/.test(err instanceof Error ? err.message : '')) throw err;
      await this.conn.run(`CREATE OR REPLACE TEMP TABLE ${RESULT} AS SELECT * FROM (\n${sql.replace(/;\s*$/, '')}\n)`);
    }
    const [count] = await this.rows(`SELECT count(*)::BIGINT AS n FROM ${RESULT}`);
    return { result: await this.conn.stream(`SELECT * FROM ${RESULT}`), rows: Number(count.n) };
  }

  async begin(): Promise<void> {
    await this.conn.run('BEGIN TRANSACTION');
  }

  async commit(): Promise<void> {
    await this.onDisk(() => this.conn.run('COMMIT'));
  }

  async rollback(): Promise<void> {
    await this.connection?.run('ROLLBACK').catch(() => {});
  }

  /** Runs `work` in one transaction: all of it is committed, or none of it. */
  transaction<T>(work: () => Promise<T>): Promise<T> {
    return inTransaction(this, work);
  }


  /** Stops a running query (Ctrl-C): it fails at once and its transaction is rolled back. */
  interrupt(): void {
    this.connection?.interrupt();
  }

  private closeFile(): void {
    this.connection?.closeSync();
    this.instance?.closeSync();
    this.connection = undefined;
    this.instance = undefined;
  }

  close(): void {
    this.closeFile();
    if (this.stagingDir) rmSync(this.stagingDir, { recursive: true, force: true });
    this.spill?.remove();
    this.stagingDir = this.spill = undefined;
    this.syncLock?.closeSync();
    this.syncLock = undefined;
  }
}

/** The hint of a mirror's disk that refused a write. */
const MOVE_MIRROR = `move the mirror to another disk: ${MIRROR_KEEPER.moveWith.replace('--db', '--db FILE')}`;

/**
 * Writes a batch's pieces (its pages) as they are: joined, a batch of 30,000 records
 * would be copied once more into a new 15 MB buffer. libuv's writev goes on after a
 * short write and past IOV_MAX pieces, but when the disk refuses part-way it returns
 * the bytes written, not the error: what is left is written again, which throws the
 * disk's error (ENOSPC…), so a cut file never reaches DuckDB.
 */
function writePieces(fd: number, pieces: Buffer[]): void {
  let rest = pieces.filter((p) => p.length > 0);
  while (rest.length > 0) {
    let written = writevSync(fd, rest);
    if (written === 0) throw Object.assign(new Error('the disk took none of a write'), { code: 'ENOSPC' });
    while (rest.length > 0 && written >= rest[0].length) written -= rest.shift()!.length;
    if (written > 0) rest[0] = rest[0].subarray(written);
  }
}

/** `payrec sql` refusing a statement that is not a read: exit 2, saying why. */
function onlyReads(why: string): UsageError {
  return new UsageError(`payrec sql only reads (SELECT, WITH, FROM, DESCRIBE, EXPLAIN…): ${why}, so it is refused`, 'the mirror changes only through payrec sync; export results with -o FILE');
}

const typeName = (type: StatementType) => (StatementType[type] ?? String(type)).replace('_', ' ');

/** The temporary table a query's result is made in (see completeResult). */
const RESULT = 'payrec_result';

const readersDirOf = (file: string) => join(dirname(file), `.${basename(file)}.readers`);

/** Staging folders are `.<mirror>.staging-XXXXXX`; `.<mirror>.staging` is where payrec before 2026-11 staged. */
const stagingPrefix = (file: string) => join(dirname(file), `.${basename(file)}.staging-`);

/** A new file, never one already there, never through a link. */
const PRIVATE_NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

const isOwn = (s: Stats) => typeof process.getuid !== 'function' || s.uid === process.getuid() || s.uid === 0;

/** A folder's names; none when it cannot be listed (DuckDB's open then says why). */
function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * A reader's note that it waits for the file: into a folder of the user's own only (in
 * /tmp another user could have made it a link). Where it cannot be left (a read-only
 * folder), the reader waits without it, for as long as a sync takes.
 */
function leaveNote(dir: string, note: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (ownFolder(dir)) closeSync(openSync(note, PRIVATE_NEW_FILE, 0o600));
  } catch {
    // No note: the sync does not let this reader in early; its open still retries.
  }
}

/** A real folder (no link) of the user's own. */
function ownFolder(path: string): boolean {
  const s = lstatSync(path, { throwIfNoEntry: false });
  return s !== undefined && s.isDirectory() && !s.isSymbolicLink() && isOwn(s);
}

/**
 * Refuses a mirror whose companions (its WAL, the sync lock, a staging folder) someone
 * else planted, or made links: DuckDB and payrec would write through them. A named pipe
 * or a device there (even the user's own) would hold DuckDB's open for ever, past
 * Ctrl-C (the open blocks the one thread that would hear it): a WAL and a lock are
 * regular files, a staging folder a folder.
 */
function refusePlanted(file: string): void {
  const dir = dirname(file);
  const base = `.${basename(file)}.`;
  const wal = /^\.wal(\.recovery|\.checkpoint)?$/;
  const names = namesIn(dir).filter((n) => (n.startsWith(basename(file)) && wal.test(n.slice(basename(file).length))) || (n.startsWith(base) && /^(sync-lock(\.wal(\.recovery|\.checkpoint)?)?|staging(-.*)?)$/.test(n.slice(base.length))));
  for (const name of names) {
    const s = lstatSync(join(dir, name), { throwIfNoEntry: false });
    const staging = name.startsWith(`${base}staging`);
    if (!s || (!s.isSymbolicLink() && isOwn(s) && (staging ? s.isDirectory() : s.isFile()))) continue;
    const why = s.isSymbolicLink() ? 'is a link' : !isOwn(s) ? `belongs to another user (uid ${s.uid})` : `is not a ${staging ? 'folder' : 'regular file (a pipe, a device or a folder)'}`;
    throw new UsageError(`${printable(join(dir, name))} ${why}: payrec does not use a mirror's file through it`, 'remove it (payrec makes its own), or give --db FILE in a folder of yours');
  }
}

/**
 * DuckDB's temp_directory, where it spills what does not fit in its memory (a large
 * result, a sort): a folder of a new name only this user can enter (mkdtemp: 0700,
 * never a link), removed on close and at exit. DuckDB's own `<mirror>.tmp` could be a
 * folder another user made, and would receive pieces of every large result. It is
 * beside the mirror, on its disk, named by this process (what a killed one left goes at
 * the next open); in the system's temporary folder where the mirror's cannot be
 * written, and for a dry run's database in memory.
 */
function makeSpillFolder(file: string): { path: string; remove(): void } {
  let dir: string | undefined;
  if (file !== ':memory:') {
    removeStaleSpills(file);
    try {
      dir = mkdtempSync(`${spillPrefix(file)}${process.pid}-`);
    } catch {
      // A mirror's folder this user may read but not write: the system's temporary folder.
    }
  }
  dir ??= mkdtempSync(join(tmpdir(), 'payrec-spill-'));
  return { path: dir, remove: removedAtExit(dir) };
}

const spillPrefix = (file: string) => join(dirname(file), `.${basename(file)}.tmp-`);

/** Removes the spill folders of processes that have ended (killed: nothing removed them), only real folders of the user's own. */
function removeStaleSpills(file: string): void {
  const prefix = basename(spillPrefix(file));
  for (const name of namesIn(dirname(file))) {
    if (!name.startsWith(prefix)) continue;
    const path = join(dirname(file), name);
    if (!processAlive(Number(name.slice(prefix.length).split('-')[0])) && ownFolder(path)) rmSync(path, { recursive: true, force: true });
  }
}

/** Removes the staging folders a killed sync left (the caller holds the sync lock; refusePlanted vetted them). */
function removeStaleStaging(file: string): void {
  const base = `.${basename(file)}.staging`;
  for (const name of namesIn(dirname(file))) {
    if (name === base || name.startsWith(`${base}-`)) rmSync(join(dirname(file), name), { recursive: true, force: true });
  }
}

/** The process that holds a DuckDB file, from DuckDB's open error; undefined for other errors. */
function heldBy(err: unknown): string | undefined {
  const message = err instanceof Error ? err.message : String(err);
  const lock = /Conflicting lock is held in .*\(PID (\d+)\)/.exec(message);
  return lock ? lock[1] : /Conflicting lock/.test(message) ? 'unknown' : undefined;
}

/**
 * A sync's lock: DuckDB's own lock on a small DuckDB file beside the mirror, held from
 * the start of the sync to its end (the mirror itself is closed now and then for
 * readers). The file stays: removing it could let two syncs lock two files.
 */
async function takeSyncLock(file: string, o: OpenOptions): Promise<DuckDBInstance> {
  const lockFile = join(dirname(file), `.${basename(file)}.sync-lock`);
  const limit = o.waitForSync;
  const deadline = Date.now() + (limit ?? 0) * 1000;
  let said = false;
  for (;;) {
    try {
      return await DuckDBInstance.create(lockFile, BASE_OPTIONS);
    } catch (err) {
      const holder = heldBy(err);
      if (holder === undefined) throw lockError(lockFile, file, err);
      if (limit === undefined) throw busy(file, holder, 'another payrec sync');
      if (Date.now() >= deadline) {
        throw new BusyError(
          `the mirror ${printable(file)} is still busy after ${formatDuration(limit)}: another payrec sync (PID ${holder}) is writing it`,
          'wait longer (--wait 30m), or without a limit (--wait alone)',
        );
      }
      if (!said) {
        said = true;
        o.waiting?.(`waiting for another payrec sync (PID ${holder}) to finish${Number.isFinite(limit) ? ` (at most ${formatDuration(limit)})` : ''}…`);
      }
      if (o.signal?.aborted) throw new InterruptedError();
      await sleep(WAIT_FOR_SYNC_POLL_MS);
    }
  }
}

function busy(file: string, pid: string, who = 'another process'): BusyError {
  return new BusyError(
    `the mirror ${printable(file)} is busy: ${who} (PID ${pid}) is writing it`,
    'run again when it has finished (a sync commits as it goes, so nothing is lost by waiting), or wait for it: payrec sync --wait',
  );
}

/** The options of a command's open: PAYREC_MIRROR_MEMORY, waits said on stderr (unless --quiet), Ctrl-C. */
export function openOptions(session: { quiet: boolean; ctx: { env: NodeJS.ProcessEnv; stderr: NodeJS.WritableStream; signal: AbortSignal } }): OpenOptions {
  const { env, stderr, signal } = session.ctx;
  return { memoryLimit: memoryLimitOf(env), signal, waiting: (message) => !session.quiet && stderr.write(`${message}\n`) };
}

/** The sync lock's open errors: a lock file that is not DuckDB's (cut short, emptied) is named, as what can go; the rest are the mirror's. */
function lockError(lockFile: string, file: string, err: unknown): Error {
  if (!/not a valid DuckDB database file/i.test(err instanceof Error ? err.message : String(err))) return openError(file, 'write', err);
  return new UsageError(
    `the sync lock ${printable(lockFile)} is not a DuckDB file (empty or damaged); the mirror ${printable(file)} was not changed`,
    `remove it (it holds nothing; payrec sync makes it again): rm ${shellWord(lockFile)}`,
  );
}

/** DuckDB's open errors, said in terms of the mirror. */
function openError(file: string, access: Access, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  const shown = printable(file);
  if (diskRefusal(err)) return refusedByDisk(err, `the mirror ${shown}`, dirname(file), MOVE_MIRROR) as Error;
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
  const hint = cause === 'permission denied' ? 'give --db FILE in a folder you can write (or set PAYREC_DB, XDG_DATA_HOME)' : 'check --db (or PAYREC_DB, XDG_DATA_HOME)';
  return new UsageError(`cannot open the mirror ${shown}: ${cause}`, hint);
}
