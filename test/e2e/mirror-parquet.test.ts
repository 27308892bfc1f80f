import { DuckDBInstance } from '@duckdb/node-api';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec, payrecInProcess as here, tempDir, until } from './helpers.js';
import { decimalSum, listOf, type Row, sql } from './mirror-helpers.js';
import { lakeRows, readLakeTable } from './parquet-reader.js';

// --parquet DIR: the mirror as Hive-partitioned Parquet (DIR/<table>/chain=<c>/month=<YYYY-MM>/),
// read back here with DuckDB the way Spark, Trino, Athena or BigQuery would read it,
// and rewritten only where something changed.
// The first lake is written by a process of the built binary (its files are on disk once
// it is gone), and so is the settle test's first sync (the clock this worker holds still);
// the other syncs and the delete run inside this worker (payrecInProcess: no process
// boundary under test in them, issue 48).

let emu: Emulator;
let dir: string;
let out: string;
let db: string;

beforeAll(async () => {
  emu = await emulator({ records: 600 });
  dir = tempDir();
  out = join(dir, 'lake');
  db = join(dir, 'm.duckdb');
});
afterAll(() => emu.close());

/** Every file under a directory, relative, with its modification time. */
function files(root: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      found.set(relative(root, path), statSync(path).mtimeMs);
    }
  }
  return found;
}

/** Runs a query on the Parquet files with a DuckDB of its own (as any reader would). */
async function readParquet(query: string): Promise<Row[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const rows = (await connection.runAndReadAll(query)).getRowObjectsJson() as Row[];
  connection.closeSync();
  instance.closeSync();
  return rows;
}

const month = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 7);

test('writes one Hive partition per chain and month, which readers see as the table, amounts exact', async () => {
  const r = await payrec(emu, ['sync', 'ot/transfers', 'od/short-urls', '--db', db, '--parquet', out, '-q']);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  const transfers = await listOf(emu, '/one-time/transfers');
  const months = [...new Set(transfers.map((t) => month(t.timestamp as number)))].sort();
  const written = [...files(out).keys()].filter((f) => f.startsWith('one_time_transfers/')).sort();
  expect(written).toEqual(months.map((m) => `one_time_transfers/chain=bsc/month=${m}/data.parquet`));
  // Short urls are partitioned by the month they were created.
  const shortUrls = await listOf(emu, '/on-demand/short-urls');
  expect([...files(out).keys()].filter((f) => f.startsWith('on_demand_short_urls/')).sort()).toEqual(
    [...new Set(shortUrls.map((s) => month(s.createdAt as number)))].sort().map((m) => `on_demand_short_urls/chain=bsc/month=${m}/data.parquet`),
  );

  const glob = `'${out}/one_time_transfers/**/*.parquet'`;
  const rows = await readParquet(`SELECT chain, month, count(*) AS n FROM read_parquet(${glob}, hive_partitioning = true) GROUP BY ALL ORDER BY month`);
  expect(rows).toEqual(months.map((m) => ({ chain: 'bsc', month: m, n: String(transfers.filter((t) => month(t.timestamp as number) === m).length) })));
  // Amounts travel as DECIMAL(38,18), times as UTC timestamps: exact totals from the files alone.
  const [types] = await readParquet(`SELECT typeof(amount) AS a, typeof("timestamp") AS t FROM read_parquet(${glob}) LIMIT 1`);
  expect(types).toEqual({ a: 'DECIMAL(38,18)', t: 'TIMESTAMP WITH TIME ZONE' });
  const totals = await readParquet(`SELECT token, sum(amount)::VARCHAR AS total FROM read_parquet(${glob}) GROUP BY token ORDER BY token`);
  const tokens = [...new Set(transfers.map((t) => t.token as string))].sort();
  expect(totals.map((t) => ({ token: t.token, total: String(t.total).replace(/\.?0+$/, '') }))).toEqual(
    tokens.map((token) => ({ token, total: decimalSum(transfers.filter((x) => x.token === token).map((x) => x.amount as string)) })),
  );
});

test('a later sync rewrites only the partitions that changed', async () => {
  const before = files(out);
  // Nothing changed: nothing rewritten.
  expect((await here(emu, ['sync', 'ot/transfers', 'od/short-urls', '--db', db, '--parquet', out, '-q'])).exitCode).toBe(0);
  expect(files(out)).toEqual(before);

  // One new transfer in this month, and one short url fewer.
  const now = Math.floor(Date.now() / 1000);
  await fetch(`${emu.url}/_emulator/records`, { method: 'POST', headers: { authorization: `Bearer ${emu.keyFor('bsc')}` }, body: JSON.stringify({ chain: 'bsc', collection: 'one-time/transfers', timestamp: now - 10 }) });
  const [gone] = await listOf(emu, '/on-demand/short-urls');
  expect((await here(emu, ['od', 'short-urls', 'delete', gone.path as string, '--yes'])).exitCode).toBe(0);
  const others = (await listOf(emu, '/on-demand/short-urls')).filter((s) => month(s.createdAt as number) === month(gone.createdAt as number));
  expect((await here(emu, ['sync', 'ot/transfers', 'od/short-urls', '--db', db, '--parquet', out, '-q'])).exitCode).toBe(0);

  const after = files(out);
  const current = `one_time_transfers/chain=bsc/month=${month(now)}/data.parquet`;
  const goneMonth = `on_demand_short_urls/chain=bsc/month=${month(gone.createdAt as number)}/data.parquet`;
  const changed = [...after].filter(([f, t]) => before.get(f) !== t).map(([f]) => f);
  const removed = [...before.keys()].filter((f) => !after.has(f));
  expect(changed).toEqual(others.length > 0 ? [current, goneMonth].sort() : [current]);
  expect(removed).toEqual(others.length > 0 ? [] : [goneMonth]);
  const [n] = await readParquet(`SELECT count(*) AS n FROM read_parquet('${out}/one_time_transfers/**/*.parquet')`);
  expect(Number(n.n)).toBe((await listOf(emu, '/one-time/transfers')).length);
});

test('an independent reader (hyparquet, no DuckDB) sees amounts as DECIMAL(38,18) and times as UTC timestamps, and sums them exactly', async () => {
  const d = join(tempDir(), 'hp.duckdb');
  const lake = join(tempDir(), 'lake');
  const plan = emu.fixtures('bsc').plans['fixed-recurring'][0];
  expect((await here(emu, ['sync', 'ot/transfers', 'fr/billings', '--plan-id', plan, '--db', d, '--parquet', lake, '-q'])).exitCode).toBe(0);
  const truth = {
    one_time_transfers: await listOf(emu, '/one-time/transfers'),
    fixed_recurring_billings: await listOf(emu, `/fixed-recurring/plans/${plan}/billings`),
  };
  for (const [table, records] of Object.entries(truth)) {
    const files = await readLakeTable(lake, table);
    for (const f of files) {
      const type = (name: string) => f.columns.find((c) => c.name === name)?.type;
      expect([type('amount'), type('fee'), type('timestamp'), type('last_updated')]).toEqual([
        'FIXED_LEN_BYTE_ARRAY DECIMAL(38,18)',
        'FIXED_LEN_BYTE_ARRAY DECIMAL(38,18)',
        'INT64 TIMESTAMP(MICROS,UTC)',
        'INT64 TIMESTAMP(MICROS,UTC)',
      ]);
    }
    const rows = files.flatMap((f) => f.rows);
    expect(rows.length).toBe(records.length);
    const tokens = [...new Set(records.map((x) => x.token as string))].sort();
    const sums = (list: Row[]) => tokens.map((token) => decimalSum(list.filter((x) => x.token === token).map((x) => x.amount as string)));
    expect(sums(rows)).toEqual(sums(records));
    // Every record's time to the second, and its partition the month of it.
    expect(rows.map((r) => r.timestamp).sort()).toEqual(records.map((x) => x.timestamp).sort());
    for (const f of files) for (const r of f.rows) expect(month(r.timestamp as number)).toBe(f.partition.month);
  }
});

test('records that settle in place between two syncs (pending to confirmed or failed, same count) reach the Parquet files: they equal the mirror and the API', async () => {
  const live = await emulator({ records: 50 });
  try {
    const d = join(tempDir(), 'settle.duckdb');
    const lake = join(tempDir(), 'lake');
    // The first sync a process: in this worker it would read the clock held still below.
    const sync = async (runner: typeof payrec | typeof here) => {
      const r = await runner(live, ['sync', 'ot/transfers', '--db', d, '--parquet', lake, '--lookback', '1h', '-q']);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
    };
    // Every live record arrives pending and settles 1-5 s later (by the emulator's clock), in the current month.
    live.live.start({ rate: 40, lateFraction: 0, lateMaxSeconds: 60, pendingFraction: 1, chains: ['bsc'], collections: ['one-time/transfers'] });
    await until('60 live records', () => live.live.status().inserted >= 60);
    live.live.stop();
    // The emulator runs in this process: its clock held still while the first sync reads,
    // so that no record settles before then, however slow the machine (with a clock that
    // ran on, a sync that started seconds late found them all settled already).
    expect(live.live.status().pending).toBeGreaterThan(5);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      await sync(payrec);
    } finally {
      vi.useRealTimers();
    }
    const byHash = (rows: Row[]) => new Map(rows.map((r) => [r.transactionHash as string, r]));
    const first = byHash(await lakeRows(lake, 'one_time_transfers'));
    expect(first.size).toBeGreaterThan(50);

    await live.live.settle();
    await sync(here);
    const truth = await listOf(live, '/one-time/transfers');
    // The count did not change, statuses did: records the first files hold as pending are confirmed or failed now.
    expect(truth.length).toBe(first.size);
    const settled = truth.filter((t) => first.get(t.transactionHash as string)?.transactionStatus === 'pending' && t.transactionStatus !== 'pending');
    expect(settled.length).toBeGreaterThan(5);
    const after = await lakeRows(lake, 'one_time_transfers');
    const fields = (r: Row) => ({ hash: r.transactionHash, status: r.transactionStatus, amount: r.amount, fee: r.fee, timestamp: r.timestamp });
    const order = (rows: Row[]) => rows.map(fields).sort((a, b) => String(a.hash).localeCompare(String(b.hash)));
    expect(order(after)).toEqual(order(truth));
    // And the mirror says the same as its files.
    const mirror = await sql(d, 'SELECT transactionHash, transactionStatus FROM one_time_transfers ORDER BY transactionHash');
    expect(mirror.map((r) => [r.transactionHash, r.transactionStatus])).toEqual(order(after).map((r) => [r.hash, r.status]));
  } finally {
    await live.close();
  }
});
