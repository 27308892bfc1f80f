import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { payrec, tempDir } from './helpers.js';
import { sql } from './mirror-helpers.js';

// A sync that fails part-way still tells a job what it did (issue 44 item 7): its -f json
// report is printed before the error and its exit code, a row per list synced, the one
// that failed (what it committed, and why it stopped) and those not reached. The service
// is written here: one-time payments are served whole, the transfers' pages after the first
// are a 503 every time, so what the mirror holds is decided by this test, not by payrec.

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const SENDER = `0x${'a'.repeat(40)}`;
const PAYMENTS = Array.from({ length: 3 }, (_, n) => ({
  id: hash(n + 1), description: 'Ebook', sender: SENDER, token: 'USDT', category: 'Shop', tag: 't',
  timestamp: 1_760_000_000 + n, transactionHash: hash(1000 + n), transactionStatus: 'confirmed', receivers: [{ user: `0x${'b'.repeat(40)}`, amount: '1.5', fee: '0.01' }],
}));
const TRANSFERS = Array.from({ length: 1500 }, (_, n) => ({
  description: 'Ebook', amount: '1.5', fee: '0.01', token: 'USDT', category: 'Shop', timestamp: 1_760_000_000 + n,
  transactionHash: hash(5000 + n), transactionStatus: 'confirmed', sender: SENDER, receiver: `0x${'b'.repeat(40)}`, oneTimeId: hash(1),
}));

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const offset = Number(u.searchParams.get('offset') ?? 0);
    const limit = Number(u.searchParams.get('limit') ?? 100);
    const records = u.pathname.endsWith('/one-time/transfers') ? TRANSFERS : u.pathname.endsWith('/one-time') ? PAYMENTS : [];
    if (records === TRANSFERS && offset > 0) {
      res.writeHead(503, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: { code: 'unavailable', message: 'down for maintenance' } }));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: records.slice(offset, offset + limit), limit, offset, total: records.length }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

test('sync -f json: a run that fails part-way prints what it did, then fails with the documented exit code', async () => {
  const db = join(tempDir(), 'account.duckdb');
  const env = { PAYREC_BASE_URL: url, PAYREC_API_KEY: 'k', PAYREC_CHAIN: 'bsc' };
  const r = await payrec(undefined, ['sync', 'ot/payments', 'ot/transfers', 'w2w/payments', '--db', db, '-f', 'json', '--retries', '0'], { env });
  expect(r.exitCode).toBe(6);
  expect(r.stderr).toMatch(/^error: GET \/v1\/bsc\/one-time\/transfers: 503 /);
  const report = JSON.parse(r.stdout) as Record<string, unknown>[];
  expect(report.map((x) => x.table)).toEqual(['one_time_payments', 'one_time_transfers', 'wallet_to_wallet_payments']);
  const [payments, transfers, later] = report;
  expect(payments).toMatchObject({ fetched: 3, new: 3, note: '' });
  expect(transfers.note).toMatch(/^stopped: GET \/v1\/bsc\/one-time\/transfers: 503 /);
  expect(later).toMatchObject({ fetched: 0, new: 0, note: 'not synced: the sync stopped at one_time_transfers' });
  // What the report says was stored is what the mirror holds: the payments, and of the
  // transfers the first page at most (committed before the failure), never the rest.
  const count = async (table: string) => Number((await sql(db, `SELECT count(*)::INTEGER AS n FROM ${table}`))[0].n);
  expect(await count('one_time_payments')).toBe(3);
  const kept = await count('one_time_transfers');
  expect(kept).toBeLessThan(TRANSFERS.length);
  expect(transfers.new).toBe(kept);
  expect(transfers.fetched).toBeGreaterThanOrEqual(kept);
});

