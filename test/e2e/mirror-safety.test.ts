import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec, payrecInProcess, tempDir } from './helpers.js';
import { decimalSum, duck, expectMirrorsList, fetchAgain, listOf, sql, type Row } from './mirror-helpers.js';

// What can go wrong around a mirror: bad input (exit 2, nothing sent, nothing written),
// another service's mirror, a second sync at the same time, a sync stopped half-way
// (Ctrl-C or kill -9: the mirror stays consistent and the next sync goes on), and
// mirrors made by another version of payrec. Refusals run inside this worker
// (payrecInProcess, issue 48); the syncs that make, share and stop mirrors are processes.

let emu: Emulator;
/** Receives only bad input: its request log must stay empty. */
let quiet: Emulator;
let dir: string;

beforeAll(async () => {
  [emu, quiet] = await Promise.all([emulator({ records: 400 }), emulator({ records: 0 })]);
  dir = tempDir();
});
afterAll(async () => {
  expect(quiet.requests).toEqual([]);
  await Promise.all([emu.close(), quiet.close()]);
});
beforeEach(() => emu.clearLog());

async function faults(target: Emulator, body: unknown): Promise<void> {
  const res = await fetchAgain(`${target.url}/_emulator/faults`, { method: body ? 'POST' : 'DELETE', body: body ? JSON.stringify(body) : undefined });
  expect(res.ok).toBe(true);
}

// At once: each test sends bad input to the quiet emulator alone (its log is checked empty once all
// have ended) and names files of its own (issue 48, the suite's time).
describe.concurrent('bad input exits 2 before any request, and writes nothing', () => {
  const PLAN = '0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7';
  const cases: [string, string[], RegExp][] = [
    ['unknown collection', ['sync', 'ot/transfer'], /unknown collection "ot\/transfer": expected product\/collection, one of fixed-recurring\/short-urls, .*one-time\/transfers/],
    ['collection without product', ['sync', 'transfers'], /unknown collection "transfers"/],
    ['a lookback in years', ['sync', '--lookback', '1y'], /invalid --lookback "1y": expected a duration such as 90s, 10m, 2h/],
    ['a negative lookback', ['sync', '--lookback', '-5m'], /invalid --lookback "-5m"/],
    ['a lookback beyond a year', ['sync', '--lookback', '400d'], /invalid --lookback "400d": expected at most 366d \(to re-read everything, use --full\)/],
    ['a bad plan id', ['sync', 'fr/billings', '--plan-id', '0x12'], /invalid --plan-id "0x12": expected 0x followed by 64 hex characters/],
    ['a bad strategy id', ['sync', '--strategy-id', `${PLAN}z`], /invalid --strategy-id/],
    ['a bad --from', ['sync', '--from', '2026-02-30'], /invalid --from "2026-02-30": there is no such calendar date/],
    ['a bad --concurrency', ['sync', '--concurrency', '0'], /invalid --concurrency "0": expected a whole number from 1 to 16/],
    ['an unknown report column', ['sync', '--columns', 'table,bogus'], /unknown column "bogus" in --columns/],
  ];
  test.each(cases)('%s', async (_, args, message) => {
    const db = join(tempDir(), 'never.duckdb');
    const r = await payrecInProcess(quiet, [...args, '--db', db]);
    expect(r.stderr).toMatch(message);
    expect(r.exitCode).toBe(2);
    expect(existsSync(db)).toBe(false);
  });

  test('a --db in a directory that does not exist', async () => {
    const r = await payrecInProcess(quiet, ['sync', '--db', join(dir, 'missing', 'm.duckdb')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/error: cannot open the mirror .*missing\/m\.duckdb: its directory does not exist\nhint: check --db \(or PAYREC_DB, XDG_DATA_HOME\)/);
  });

  test('a --db that is not a DuckDB file is left as it was', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'my notes, not a database\n');
    const r = await payrecInProcess(quiet, ['sync', '--db', file]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/notes\.txt is not a payrec mirror \(not a DuckDB database file\); nothing was changed/);
    expect(readFileSync(file, 'utf8')).toBe('my notes, not a database\n');
    expect(existsSync(`${file}.wal`)).toBe(false);
    const q = await payrecInProcess(undefined, ['sql', '--db', file, 'SELECT 1']);
    expect(q.exitCode).toBe(2);
  });

  test('a DuckDB file that is someone else\'s database is left alone', async () => {
    const file = join(dir, 'theirs.duckdb');
    await duck(file, 'CREATE TABLE invoices (id INTEGER)', 'INSERT INTO invoices VALUES (7)');
    const r = await payrecInProcess(quiet, ['sync', '--db', file]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/theirs\.duckdb is a DuckDB database but not a payrec mirror; nothing was changed/);
    expect(await sql(file, 'SELECT table_name FROM duckdb_tables() WHERE NOT temporary')).toEqual([{ table_name: 'invoices' }]);
  });

  test('--parquet that is a file, not a directory', async () => {
    const file = join(dir, 'plain-file');
    writeFileSync(file, '');
    const r = await payrecInProcess(quiet, ['sync', '--db', join(dir, 'p.duckdb'), '--parquet', file]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/cannot write --parquet ".*plain-file": EEXIST/);
  });

  test('payrec sql on a mirror that does not exist', async () => {
    const r = await payrecInProcess(undefined, ['sql', '--db', join(dir, 'nothing.duckdb'), 'SELECT 1']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/there is no mirror at .*nothing\.duckdb\nhint: create it with: payrec sync/);
    const d = await payrec(undefined, ['--emulator', 'sql'], { env: { XDG_DATA_HOME: tempDir() } });
    expect(d.exitCode).toBe(2);
    expect(d.stderr).toMatch(/hint: create it with: payrec --emulator sync/);
  });
});

describe('one mirror, one service', () => {
  test('records of another service are refused, and the mirror is unchanged', async () => {
    const db = join(dir, 'one-service.duckdb');
    expect((await payrec(emu, ['sync', 'ot/transfers', '--db', db, '-q'])).exitCode).toBe(0);
    const before = await sql(db, 'SELECT count(*) AS n, max(last_updated)::VARCHAR AS at FROM one_time_transfers');
    const r = await payrecInProcess(quiet, ['sync', 'ot/transfers', '--db', db]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`holds records of ${emu.url}, not of ${quiet.url}: a mirror never mixes services; nothing was changed`);
    expect(r.stderr).toMatch(/hint: give another --db for this service/);
    expect(await sql(db, 'SELECT count(*) AS n, max(last_updated)::VARCHAR AS at FROM one_time_transfers')).toEqual(before);
    expect(await sql(db, "SELECT value FROM payrec_meta WHERE key = 'service'")).toEqual([{ value: emu.url }]);
  });
});

// Syncs of 20,000 records (21 pages of 960), slowed on purpose to 400 ms a page: about
// 8 s each on a quiet machine, twice that when the machine is busy; a timeout here would
// say nothing about the mirror. A slowed first sync commits about 4 s in (page 10 or so).
const SLOW = { rate: 1, kinds: ['slow'], slowMs: 400 } as const;
describe('concurrent and interrupted syncs', () => {
  let big: Emulator;
  beforeAll(async () => (big = await emulator({ records: 20_000 })));
  afterAll(() => big.close());

  const waitFor = async (what: () => boolean, ms = 60_000) => {
    const until = Date.now() + ms;
    while (!what()) {
      if (Date.now() > until) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const pages = () => big.requests.filter((q) => q.path === '/v1/bsc/one-time/transfers').length;
  /** Until the running sync's first commit is there for a reader: only then is stopping it a test of what it committed. */
  const waitForCommit = async (db: string) => {
    for (const until = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 200))) {
      const r = await payrec(undefined, ['sql', '--db', db, '-f', 'json', 'SELECT count(*) AS n FROM one_time_transfers']);
      if (r.exitCode === 0 && ((JSON.parse(r.stdout) as Row[])[0].n as number) > 0) return;
      if (Date.now() > until) throw new Error('timed out waiting for the first commit');
    }
  };

  test('a second sync while one runs exits 10 saying the mirror is busy; payrec sql reads meanwhile', async () => {
    const db = join(dir, 'busy.duckdb');
    await faults(big, SLOW);
    big.clearLog();
    const running = payrec(big, ['sync', 'ot/transfers', '--db', db, '--concurrency', '1', '-q']);
    try {
      await waitFor(() => pages() >= 2);
      const second = await payrec(big, ['sync', 'ot/transfers', '--db', db]);
      expect(second.exitCode).toBe(10);
      expect(second.stderr).toMatch(/error: the mirror .*busy\.duckdb is busy: another payrec sync \(PID \d+\) is writing it\nhint: run again when it has finished/);
      const query = await payrec(undefined, ['sql', '--db', db, 'SELECT 1 AS one']);
      expect(query.exitCode).toBe(0);
      expect(query.stdout).toBe('one\n1\n');
      expect(query.stderr).toMatch(/^(waiting for a sync to commit…\n)?$/);
    } finally {
      await faults(big, undefined);
    }
    expect((await running).exitCode).toBe(0);
    expect(await sql(db, 'SELECT count(*) AS n FROM one_time_transfers')).toEqual([{ n: 20_000 }]);
  });

  test('sync --wait waits for the running sync and then syncs; --wait 1s gives up after a second with exit 10', async () => {
    const db = join(dir, 'wait.duckdb');
    await faults(big, SLOW);
    big.clearLog();
    const running = payrec(big, ['sync', 'ot/transfers', '--db', db, '--concurrency', '1', '-q']);
    let waited;
    try {
      await waitFor(() => pages() >= 2);
      const started = Date.now();
      const short = await payrec(big, ['sync', 'ot/transfers', '--db', db, '--wait', '1s']);
      expect(short.exitCode).toBe(10);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(short.stderr).toMatch(/^waiting for another payrec sync \(PID \d+\) to finish \(at most 1s\)…\nerror: the mirror .*wait\.duckdb is still busy after 1s: another payrec sync \(PID \d+\) is writing it\nhint: wait longer/);
      // --wait followed by a collection: the collection is not taken for a duration.
      waited = payrec(big, ['sync', '--wait', 'ot/transfers', '--db', db, '-f', 'json']);
      // Still waiting a second later, while the first runs.
      expect(await Promise.race([waited.then(() => 'ended'), new Promise((r) => setTimeout(() => r('waiting'), 1000))])).toBe('waiting');
    } finally {
      await faults(big, undefined);
    }
    const first = await running;
    expect(first.exitCode).toBe(0);
    const second = await waited;
    expect(second.stderr).toMatch(/^waiting for another payrec sync \(PID \d+\) to finish…\n$/);
    expect(second.exitCode).toBe(0);
    // It ran after the first had committed everything: nothing new, nothing doubled.
    expect(JSON.parse(second.stdout)).toMatchObject([{ table: 'one_time_transfers', new: 0 }]);
    expect(await sql(db, 'SELECT count(*) AS n, count(DISTINCT transactionHash) AS d FROM one_time_transfers')).toEqual([{ n: 20_000, d: 20_000 }]);
  });

  test('a bad --wait is exit 2 before anything is sent', async () => {
    big.clearLog();
    for (const [value, message] of [
      ['2d', 'invalid --wait "2d": expected at most 1d (or --wait alone, without a limit)'],
      ['soon', 'invalid --wait "soon": expected a duration such as 90s, 10m, 2h or 7d (or plain seconds)'],
      ['ot/nothing', 'unknown collection "ot/nothing"'],
    ]) {
      const r = await payrecInProcess(big, ['sync', '--db', join(dir, 'bad-wait.duckdb'), '--wait', value]);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`error: ${message}`);
    }
    expect(big.requests).toEqual([]);
  });

  test('transient faults are retried as everywhere else, and the mirror ends exact', async () => {
    const db = join(dir, 'faulty.duckdb');
    await faults(big, { rate: 0.15, kinds: ['500', '503', 'reset', 'truncate'], seed: 7 });
    big.clearLog();
    let r;
    try {
      r = await payrec(big, ['sync', 'ot/transfers', '--db', db, '-f', 'json']);
    } finally {
      await faults(big, undefined);
    }
    expect(r.exitCode).toBe(0);
    // Some answers failed and were asked again (the report counts pages, the log every attempt).
    expect(big.requests.some((q) => q.status >= 500)).toBe(true);
    expect(pages()).toBeGreaterThan(JSON.parse(r.stdout)[0].requests);
    expect(await sql(db, 'SELECT count(*) AS n FROM one_time_transfers')).toEqual([{ n: 20_000 }]);
  });

  test('a network lost half-way exits 7 with what was fetched committed; the next sync goes on and ends exact', async () => {
    const db = join(dir, 'lost.duckdb');
    const truth = await listOf(big, '/one-time/transfers');
    await faults(big, SLOW);
    big.clearLog();
    const run = payrec(big, ['sync', 'ot/transfers', '--db', db, '--concurrency', '1', '--retries', '1']);
    let lost;
    try {
      // Past the first commit, well before the end.
      await waitForCommit(db);
      // From now on every connection is reset: the network is gone.
      await faults(big, { rate: 1, kinds: ['reset'] });
      lost = await run;
    } finally {
      await faults(big, undefined);
    }
    expect(lost.exitCode).toBe(7);
    expect(lost.stderr).toMatch(/error: GET \/v1\/bsc\/one-time\/transfers: connection reset/);
    const [state] = await sql(db, 'SELECT count(*) AS n FROM one_time_transfers');
    expect(state.n).toBeGreaterThan(0);
    big.clearLog();
    expect((await payrec(big, ['sync', 'ot/transfers', '--db', db, '--concurrency', '1'])).exitCode).toBe(0);
    expect(pages()).toBeLessThan(Math.ceil(truth.length / 960));
    await expectMirrorsList(db, 'one_time_transfers', ['transactionHash'], truth);
  });

  for (const signal of ['SIGINT', 'SIGKILL'] as const) {
    test(`a sync stopped by ${signal} leaves a consistent mirror; the next one goes on with far fewer requests and ends exact`, async () => {
      const db = join(dir, `stopped-${signal}.duckdb`);
      const truth = await listOf(big, '/one-time/transfers');
      await faults(big, SLOW);
      big.clearLog();
      const run = payrec(big, ['sync', 'ot/transfers', '--db', db, '--concurrency', '1', '-q']);
      let stopped;
      try {
        // Past the first commit, well before the end (21 pages).
        await waitForCommit(db);
        run.kill(signal);
        stopped = await run;
      } finally {
        await faults(big, undefined);
      }
      if (signal === 'SIGINT') {
        expect(stopped.exitCode).toBe(130);
        expect(stopped.stderr).toBe('interrupted\n');
      } else {
        expect(stopped.signal).toBe('SIGKILL');
      }
      // Consistent: the records committed, each once, and the cursor at the newest of them.
      const [state] = await sql(db, 'SELECT count(*) AS n, count(DISTINCT transactionHash) AS distinct_n, epoch(max("timestamp"))::BIGINT AS newest FROM one_time_transfers');
      expect(state.n).toBe(state.distinct_n);
      expect(state.n).toBeGreaterThan(0);
      expect(state.n).toBeLessThan(truth.length);
      const [cursor] = await sql(db, "SELECT cursor FROM payrec_cursors WHERE collection = 'one-time/transfers'");
      expect(cursor.cursor).toBe(state.newest);
      // What was committed is a prefix of the walk: every record older than the cursor, nothing else.
      const committed = new Set((await sql(db, 'SELECT transactionHash FROM one_time_transfers')).map((r) => r.transactionHash));
      const newest = state.newest as number;
      for (const t of truth) if ((t.timestamp as number) < newest) expect(committed.has(t.transactionHash)).toBe(true);
      const when = new Map(truth.map((t) => [t.transactionHash, t.timestamp as number]));
      for (const hash of committed) expect(when.get(hash)).toBeLessThanOrEqual(newest);

      big.clearLog();
      const resumed = await payrec(big, ['sync', 'ot/transfers', '--db', db, '-f', 'json', '--concurrency', '1']);
      expect(resumed.exitCode).toBe(0);
      // Pages of 960 records (see the sync's PAGE_SIZE).
      const full = Math.ceil(truth.length / 960);
      const committedPages = Math.floor((state.n as number) / 960);
      expect(pages()).toBeLessThanOrEqual(full - committedPages + 2);
      expect(pages()).toBeLessThan(full);
      const report = JSON.parse(resumed.stdout) as Row[];
      expect(report[0].new).toBe(truth.length - (state.n as number));
      await expectMirrorsList(db, 'one_time_transfers', ['transactionHash'], truth);
    });
  }
});

describe('mirrors of other payrec versions', () => {
  test('an older mirror gains the tables and columns this payrec has, and is filled again', async () => {
    const db = join(dir, 'older.duckdb');
    expect((await payrec(emu, ['sync', 'ot/transfers', 'sp/transfers', '--db', db, '-q'])).exitCode).toBe(0);
    // As an older payrec would have left it: its own layout, without a `category` field or the executions table.
    await duck(db, "UPDATE payrec_meta SET value = 'an older layout' WHERE key = 'layout'", 'ALTER TABLE payrec_store.one_time_transfers DROP COLUMN category', 'DROP TABLE payrec_store.dollar_cost_average_executions');
    const r = await payrec(emu, ['sync', 'ot/transfers', 'sp/transfers', '--db', db, '-f', 'json']);
    expect(r.exitCode).toBe(0);
    const report = JSON.parse(r.stdout) as Row[];
    const transfers = await listOf(emu, '/one-time/transfers');
    // The table that changed is read again from the start; the other goes on from its cursor.
    expect(report[0]).toMatchObject({ table: 'one_time_transfers', fetched: transfers.length, updated: transfers.length });
    expect(report[1]).toMatchObject({ table: 'scheduled_payments_transfers', fetched: 0 });
    await expectMirrorsList(db, 'one_time_transfers', ['transactionHash'], transfers);
    expect(await sql(db, 'SELECT count(*) AS n FROM dollar_cost_average_executions')).toEqual([{ n: 0 }]);
  });

  test('a format 2 mirror (made by the previous payrec) is read again into DECIMAL amounts and timestamps, with a message; its plans are kept', async () => {
    // Made by the build before this format (commit 96c3349): payrec --emulator sync ot/transfers fr/billings --plan-id <the doc plan>.
    const d = join(tempDir(), 'format2.duckdb');
    writeFileSync(d, gunzipSync(readFileSync(join(import.meta.dirname, 'fixtures', 'format2-mirror.duckdb.gz'))));
    expect(await sql(d, "SELECT value FROM payrec_meta WHERE key = 'format'")).toEqual([{ value: '2' }]);
    const env = { XDG_DATA_HOME: tempDir() };
    const r = await payrec(undefined, ['--emulator', 'sync', '--db', d, '-f', 'json'], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(
      `warning: the mirror ${d} was made by an older payrec (amounts as text, times as Unix seconds): this sync reads its records again into DECIMAL(38,18) amounts and TIMESTAMP WITH TIME ZONE times (exact_sum(x_exact) is now SUM(x)); the plan and strategy ids it remembered are kept\n`,
    );
    const report = JSON.parse(r.stdout) as Row[];
    const transfers = report.find((x) => x.table === 'one_time_transfers')!;
    expect(transfers).toMatchObject({ new: transfers.fetched, updated: 0 });
    expect(await sql(d, "SELECT value FROM payrec_meta WHERE key = 'format'")).toEqual([{ value: '3' }]);
    // The plan it was given is still synced, with the plan on each billing.
    const plan = '0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7';
    expect(await sql(d, `SELECT id FROM payrec_scopes WHERE collection = 'fixed-recurring/billings' AND id = '${plan}'`)).toEqual([{ id: plan }]);
    expect((await sql(d, `SELECT count(*) AS n FROM fixed_recurring_billings WHERE planId = '${plan}'`))[0].n).toBeGreaterThan(0);
    // Plain SQL now, against the records as the emulator serves them (the same seed and day as that sync).
    const served = JSON.parse((await payrec(undefined, ['--emulator', 'ot', 'transfers', '--all', '--to', '99999999999', '-f', 'json'], { env })).stdout) as Row[];
    expect(served.length).toBe(transfers.fetched);
    const tokens = [...new Set(served.map((t) => t.token as string))].sort();
    expect(await sql(d, 'SELECT token, SUM(amount) AS total, typeof(min("timestamp")) AS t FROM one_time_transfers GROUP BY token ORDER BY token')).toEqual(
      tokens.map((token) => ({ token, total: decimalSum(served.filter((t) => t.token === token).map((t) => t.amount as string)), t: 'TIMESTAMP WITH TIME ZONE' })),
    );
    // Nothing of the old layout is left, and a second sync has nothing to rebuild.
    expect(await sql(d, "SELECT count(*) AS n FROM duckdb_functions() WHERE function_name IN ('exact_sum', 'exact_value', 'payrec_decimal_text')")).toEqual([{ n: 0 }]);
    const again = await payrec(undefined, ['--emulator', 'sync', '--db', d, '-q'], { env });
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toBe('');
  });

  test('a column payrec cannot convert in place is refused with the way to rebuild', async () => {
    const db = join(dir, 'retyped.duckdb');
    expect((await payrec(emu, ['sync', 'sp/transfers', '--db', db, '-q'])).exitCode).toBe(0);
    await duck(db, "UPDATE payrec_meta SET value = 'an older layout' WHERE key = 'layout'", 'DROP VIEW scheduled_payments_transfers', 'ALTER TABLE payrec_store.scheduled_payments_transfers ALTER COLUMN "timestamp" TYPE VARCHAR');
    const r = await payrecInProcess(emu, ['sync', 'sp/transfers', '--db', db]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/keeps scheduled_payments_transfers\.timestamp as VARCHAR, and this payrec as TIMESTAMP WITH TIME ZONE: it cannot convert it in place; nothing was changed\nhint: rebuild it: payrec sync --full --db NEW_FILE/);
  });

  test('a mirror made by a newer payrec is refused, not changed', async () => {
    const db = join(dir, 'newer.duckdb');
    expect((await payrec(emu, ['sync', 'sp/transfers', '--db', db, '-q'])).exitCode).toBe(0);
    await duck(db, "UPDATE payrec_meta SET value = '99' WHERE key = 'format'");
    const r = await payrecInProcess(emu, ['sync', 'sp/transfers', '--db', db]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/was made by a newer payrec \(mirror format 99; this payrec knows up to 3\); nothing was changed\nhint: upgrade payrec, or give another --db/);
    expect(await sql(db, "SELECT value FROM payrec_meta WHERE key = 'format'")).toEqual([{ value: '99' }]);
  });
});

describe('--dry-run', () => {
  test('prints the first request as curl, sends nothing, and neither creates nor changes the mirror', async () => {
    const fresh = join(tempDir(), 'fresh.duckdb');
    const r = await payrec(emu, ['--dry-run', 'sync', 'ot/transfers', '--db', fresh]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^curl -sS '.*\/v1\/bsc\/one-time\/transfers\?.*' -H "Authorization: Bearer \$PAYREC_API_KEY"\n$/);
    expect(existsSync(fresh)).toBe(false);
    expect(emu.requests).toEqual([]);

    const kept = join(tempDir(), 'kept.duckdb');
    expect((await payrec(emu, ['sync', 'ot/transfers', '--db', kept])).exitCode).toBe(0);
    const before = readFileSync(kept);
    emu.clearLog();
    expect((await payrec(emu, ['--dry-run', 'sync', '--db', kept])).exitCode).toBe(0);
    expect(readFileSync(kept).equals(before)).toBe(true);
    expect(emu.requests).toEqual([]);
  });
});
