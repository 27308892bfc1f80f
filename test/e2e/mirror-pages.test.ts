import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec, tempDir } from './helpers.js';
import { expectMirrorsList, fetchAgain, sql, type Row } from './mirror-helpers.js';

// Syncs that walk many pages (960 records a page, several fetched at once) while
// records keep arriving, most of them late, anywhere in the past year, so every page
// after them shifts while the walk reads it: pages overlap (a record seen twice) and
// records are pushed past the first total. Checked after the *first* sync, which
// inserts without lookups (a repeat that reached it would stay there for good), and
// after the last one, against the emulator's ground truth.

const LISTS: [table: string, collection: string, identity: string][] = [
  ['one_time_transfers', 'one-time/transfers', 'transactionHash'],
  ['wallet_to_wallet_payments', 'wallet-to-wallet/payments', 'id'],
  ['dollar_cost_average_executions', 'dollar-cost-average/executions', 'transactionHash'],
];
const RECORDS = 4500;

let emu: Emulator;
let db: string;

beforeAll(async () => {
  // Generated data up to now: late records land among it, not after it.
  emu = await emulator({ records: RECORDS, now: Math.floor(Date.now() / 1000) });
  db = join(tempDir(), 'pages.duckdb');
});
afterAll(() => emu.close());

async function faults(body: unknown): Promise<void> {
  const res = await fetchAgain(`${emu.url}/_emulator/faults`, { method: body ? 'POST' : 'DELETE', body: body ? JSON.stringify(body) : undefined });
  expect(res.ok).toBe(true);
}

const collections = LISTS.map(([, c]) => c);
const names = ['ot/transfers', 'w2w/payments', 'dca/executions'];

test('a first sync of many pages under traffic misses nothing that was there and doubles nothing; later syncs end exact', async () => {
  const before = new Map(LISTS.map(([table, collection, id]) => [table, emu.records('bsc', collection).records.map((r) => r[id] as string)]));
  emu.live.start({ rate: 400, lateFraction: 0.9, lateMaxSeconds: 300 * 86_400, pendingFraction: 0.3, chains: ['bsc'], collections });
  // Latency on a share of the pages: the pages fetched together come back at different moments, each seeing another list.
  await faults({ rate: 0.5, kinds: ['slow'], slowMs: 120, seed: 7 });
  const sync = async () => {
    const r = await payrec(emu, ['sync', ...names, '--db', db, '--concurrency', '4', '--lookback', '366d', '-f', 'json']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    return JSON.parse(r.stdout) as Row[];
  };
  try {
    const first = await sync();
    // Many pages each, more than the first total promised.
    for (const row of first) expect(row.requests as number, String(row.table)).toBeGreaterThanOrEqual(Math.ceil(RECORDS / 960));
    for (const [table, collection, id] of LISTS) {
      const rows = await sql(db, `SELECT ${id} AS id FROM ${table}`);
      const ids = rows.map((r) => r.id as string);
      // Nothing twice.
      expect(ids.length - new Set(ids).size, `${table}: records twice`).toBe(0);
      // Nothing missing of what was there when the sync began.
      const have = new Set(ids);
      expect(before.get(table)!.filter((x) => !have.has(x)), `${table}: records missing`).toEqual([]);
      // Nothing that is not the service's.
      const exists = new Set(emu.records('bsc', collection).records.map((r) => r[id] as string));
      expect(ids.filter((x) => !exists.has(x))).toEqual([]);
      expect(ids.length).toBeGreaterThan(before.get(table)!.length);
    }
    for (let i = 0; i < 2; i++) {
      await sync();
      // Every table in one query (one payrec sql, not three).
      const counts = await sql(db, LISTS.map(([table, , id]) => `SELECT '${table}' AS t, count(*) AS n, count(DISTINCT ${id}) AS d FROM ${table}`).join(' UNION ALL '));
      expect(counts.map((r) => r.t).sort()).toEqual(LISTS.map(([table]) => table).sort());
      for (const row of counts) expect(row.n, String(row.t)).toBe(row.d);
    }
  } finally {
    emu.live.stop();
    await faults(undefined);
  }
  await emu.live.settle();
  await sync();
  // Every record, once, with its current status.
  for (const [table, collection, id] of LISTS) await expectMirrorsList(db, table, [id], emu.records('bsc', collection).records);
}, 480_000);
