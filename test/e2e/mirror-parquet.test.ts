import { DuckDBInstance } from '@duckdb/node-api';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec, tempDir } from './helpers.js';
import { decimalSum, listOf, type Row } from './mirror-helpers.js';

// --parquet DIR: the mirror as Hive-partitioned Parquet (DIR/<table>/chain=<c>/month=<YYYY-MM>/),
// read back here with DuckDB the way Spark, Trino, Athena or BigQuery would read it,
// and rewritten only where something changed.

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
  // The exact parts travel as DECIMAL(38,0) and BIGINT: the same exact totals from the files alone.
  const [types] = await readParquet(`SELECT typeof(amount_exact) AS t FROM read_parquet(${glob}) LIMIT 1`);
  expect(types.t).toBe('STRUCT(whole DECIMAL(38,0), frac BIGINT)');
  const totals = await readParquet(
    `SELECT token, sum(amount_exact.whole)::VARCHAR AS whole, sum(amount_exact.frac)::VARCHAR AS frac FROM read_parquet(${glob}) GROUP BY token ORDER BY token`,
  );
  for (const t of totals) {
    const want = decimalSum(transfers.filter((x) => x.token === t.token).map((x) => x.amount as string));
    const [whole, frac = ''] = want.split('.');
    // whole + frac/10^18, with frac possibly above 10^18: recombine exactly.
    const units = BigInt(t.whole as string) * 10n ** 18n + BigInt(t.frac as string);
    expect(units).toBe(BigInt(whole + frac.padEnd(18, '0')));
  }
});

test('a later sync rewrites only the partitions that changed', async () => {
  const before = files(out);
  // Nothing changed: nothing rewritten.
  expect((await payrec(emu, ['sync', 'ot/transfers', 'od/short-urls', '--db', db, '--parquet', out, '-q'])).exitCode).toBe(0);
  expect(files(out)).toEqual(before);

  // One new transfer in this month, and one short url fewer.
  const now = Math.floor(Date.now() / 1000);
  await fetch(`${emu.url}/_emulator/records`, { method: 'POST', body: JSON.stringify({ chain: 'bsc', collection: 'one-time/transfers', timestamp: now - 10 }) });
  const [gone] = await listOf(emu, '/on-demand/short-urls');
  expect((await payrec(emu, ['od', 'short-urls', 'delete', gone.path as string, '--yes'])).exitCode).toBe(0);
  const others = (await listOf(emu, '/on-demand/short-urls')).filter((s) => month(s.createdAt as number) === month(gone.createdAt as number));
  expect((await payrec(emu, ['sync', 'ot/transfers', 'od/short-urls', '--db', db, '--parquet', out, '-q'])).exitCode).toBe(0);

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
