import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec, tempDir } from './helpers.js';

// Input that ended as an internal error (exit 1), issue 32 item 13: a memory limit DuckDB
// cannot work in is exit 2 before anything is opened, and a synced record stamped with a
// fraction of a second is exit 6 naming it. A hostile server of the test's own sends it.

const PLAN = '0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7';
const record = (timestamp: number) => ({
  description: 'payment', amount: '1.5', fee: '0', token: 'USDT', category: 'Shop', timestamp,
  transactionHash: `0x${'1'.repeat(64)}`, transactionStatus: 'confirmed', sender: `0x${'2'.repeat(40)}`, receiver: `0x${'3'.repeat(40)}`, oneTimeId: PLAN,
});

let server: Server;
let origin: string;
let emu: Emulator;
beforeAll(async () => {
  emu = await emulator({ records: 5 });
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [record(1_767_225_600.5)], limit: 100, offset: 0, total: 1 })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await emu.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('PAYREC_MIRROR_MEMORY too small for DuckDB (below 40MB)', () => {
  test.concurrent.each(['32MB', '39MB', '30MiB', '0.03GB', '1KB'])('%s: exit 2 before the mirror is opened', async (size) => {
    // Mutant killed: memoryLimitOf without the floor (DuckDB's internal out-of-memory error, exit 1).
    const db = join(tempDir(), 'm.duckdb');
    const r = await payrec(emu, ['sync', 'ot/transfers', '--db', db], { env: { PAYREC_MIRROR_MEMORY: size } });
    expect(r.stderr).toBe(`error: invalid PAYREC_MIRROR_MEMORY "${size}": expected at least 40MB, such as 128MB (the default)\n`);
    expect(r.exitCode).toBe(2);
    expect(existsSync(db)).toBe(false);
  });

  test('40MB is enough for a sync and a query', async () => {
    const db = join(tempDir(), 'm.duckdb');
    const env = { PAYREC_MIRROR_MEMORY: '40MB' };
    expect((await payrec(emu, ['sync', 'ot/transfers', '--db', db, '-q'], { env })).exitCode).toBe(0);
    const r = await payrec(undefined, ['sql', '--db', db, 'SELECT count(*) AS n FROM one_time_transfers', '-f', 'jsonl'], { env });
    expect([r.exitCode, r.stdout]).toEqual([0, '{"n":5}\n']);
  });
});

describe('a synced record stamped with a fraction of a second', () => {
  test('exit 6 naming the record, not "NOT NULL constraint failed" (exit 1)', async () => {
    // Mutant killed: checkIdentities without the whole-seconds check.
    const r = await payrec(undefined, ['--retries', '0', 'sync', 'ot/transfers', '--db', join(tempDir(), 'm.duckdb')], { env: { PAYREC_BASE_URL: origin, PAYREC_API_KEY: 'prk_test_odd', PAYREC_CHAIN: 'bsc' } });
    expect(r.stderr).toContain(`error: a one-time/transfers record (transactionHash 0x${'1'.repeat(64)}) is stamped 1767225600.5, not a whole number of seconds; nothing of its batch was written`);
    expect(r.exitCode).toBe(6);
  });
});
