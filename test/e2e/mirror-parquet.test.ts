import { DuckDBInstance } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
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

/** pyarrow, as a warehouse's Python would read the files (.ci/run installs it; off CI a missing one skips the test, saying so). */
const pyarrow = spawnSync('python3', ['-c', 'import pyarrow'], { stdio: 'ignore' }).status === 0;
const IN_CI = !['', '0', 'false'].includes(process.env.CI ?? '');

test.skipIf(!pyarrow && !IN_CI)(`pyarrow reads amounts as decimal128(38, 18) and times as UTC timestamps, and sums them exactly${pyarrow ? '' : ' (pyarrow is not installed: pip install pyarrow)'}`, async () => {
  const d = join(tempDir(), 'pa.duckdb');
  const lake = join(tempDir(), 'lake');
  expect((await payrec(emu, ['sync', 'ot/transfers', 'fr/billings', '--plan-id', emu.fixtures('bsc').plans['fixed-recurring'][0], '--db', d, '--parquet', lake, '-q'])).exitCode).toBe(0);
  const script = [
    'import json, sys, decimal, pyarrow.dataset as ds',
    'decimal.getcontext().prec = 80',
    'out = {}',
    'for name in ["one_time_transfers", "fixed_recurring_billings"]:',
    '    t = ds.dataset(sys.argv[1] + "/" + name, format="parquet", partitioning="hive").to_table()',
    '    sums = {}',
    '    for token, amount in zip(t.column("token").to_pylist(), t.column("amount").to_pylist()):',
    '        sums[token] = sums.get(token, decimal.Decimal(0)) + amount',
    '    out[name] = {"types": {c: str(t.schema.field(c).type) for c in ["amount", "fee", "timestamp", "last_updated"]}, "sums": {k: format(v.normalize(), "f") for k, v in sums.items()}, "rows": t.num_rows}',
    'print(json.dumps(out))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', script, lake], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  const got = JSON.parse(r.stdout) as Record<string, { types: Record<string, string>; sums: Record<string, string>; rows: number }>;
  const truth = {
    one_time_transfers: await listOf(emu, '/one-time/transfers'),
    fixed_recurring_billings: await listOf(emu, `/fixed-recurring/plans/${emu.fixtures('bsc').plans['fixed-recurring'][0]}/billings`),
  };
  for (const [name, records] of Object.entries(truth)) {
    expect(got[name].types).toEqual({ amount: 'decimal128(38, 18)', fee: 'decimal128(38, 18)', timestamp: 'timestamp[us, tz=UTC]', last_updated: 'timestamp[us, tz=UTC]' });
    expect(got[name].rows).toBe(records.length);
    const tokens = [...new Set(records.map((x) => x.token as string))];
    expect(got[name].sums).toEqual(Object.fromEntries(tokens.map((token) => [token, decimalSum(records.filter((x) => x.token === token).map((x) => x.amount as string))])));
  }
});
