import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { payrec, tempDir } from './helpers.js';
import { sql } from './mirror-helpers.js';

// The server's window is not trusted (issue 48, item 7): a service that ignores `from`
// and `to` and sends a record stamped 9999-12-31 had it counted in the month (exit 0).
// Every reader of a list goes through the one paginator: a list, its --summary, -o,
// `payrec transfers`, `sync` and `--follow` each stop with exit 6 naming the record,
// print no total and write no file. The server is written here; nothing of payrec's.

const OCTOBER_15 = 1_792_022_400; // 2026-10-15T00:00:00Z
const NINES = 253_402_214_400; // 9999-12-31T00:00:00Z
const transfer = (timestamp: number, n: number) => ({
  description: 'Ebook', amount: '10', fee: '0.1', token: 'USDT', category: 'Shop', timestamp, transactionStatus: 'confirmed',
  transactionHash: `0x${String(n).repeat(64)}`, sender: `0x${'2'.repeat(40)}`, receiver: `0x${'3'.repeat(40)}`, oneTimeId: `0x${'4'.repeat(64)}`,
});

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const offset = Number(url.searchParams.get('offset') ?? 0);
    // Whatever window is asked: one record of October and one of 9999, in the order asked.
    const all = url.pathname === '/v1/bsc/one-time/transfers' ? [transfer(OCTOBER_15, 1), transfer(NINES, 2)] : [];
    if (url.searchParams.get('sort') !== 'asc') all.reverse();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: offset === 0 ? all : [], limit: 1000, offset, total: all.length }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const run = (args: string[]) => payrec(undefined, ['--retries', '0', ...args], { env: { PAYREC_BASE_URL: base, PAYREC_API_KEY: 'prk_test_key', PAYREC_CHAIN: 'bsc' } });

/** The one line each reader says: the record outside the window asked, and that nothing of the service's is counted. */
const OUTSIDE = (from: string, to: string) =>
  `error: the service sent 1 record stamped outside the window asked (${from} to ${to}), the first at 9999-12-31T00:00:00Z: it does not keep to the window, so no total of it is counted\n` +
  'hint: check --base-url: is it the API? If it is, report the record to 8pay\n';

describe('a record outside the window asked is not counted: exit 6', () => {
  test.concurrent('a list of October, its --summary, and -o: nothing printed, no file', async () => {
    // Mutant killed: the paginator without the window check (the summary counted 2 records, exit 0).
    const october = OUTSIDE('2026-10-01T00:00:00Z', '2026-10-31T23:59:59Z');
    const summary = await run(['ot', 'transfers', '--period', '2026-10', '--summary', '-f', 'json']);
    expect(summary.stderr).toBe(october);
    expect(summary.exitCode).toBe(6);
    expect(summary.stdout).toBe('');
    const dir = tempDir();
    const exported = await run(['ot', 'transfers', '--period', '2026-10', '-o', join(dir, 'october.csv')]);
    expect(exported.stderr).toBe(october);
    expect(exported.exitCode).toBe(6);
    expect(readdirSync(dir)).toEqual([]);
  });

  test.concurrent('payrec transfers, which merges every product\'s list', async () => {
    const r = await run(['transfers', '--period', '2026-10', '--count']);
    // After the line on the plans it covers.
    expect(r.stderr).toMatch(/^including the billings of 0 fixed-recurring plans/);
    expect(r.stderr.split('\n').slice(1).join('\n')).toBe(OUTSIDE('2026-10-01T00:00:00Z', '2026-10-31T23:59:59Z'));
    expect(r.exitCode).toBe(6);
    expect(r.stdout).toBe('');
  });

  test.concurrent('sync: the record is not mirrored', async () => {
    const db = join(tempDir(), 'm.duckdb');
    const r = await run(['sync', 'ot/transfers', '--db', db, '--from', '2026-10-01', '-q']);
    expect(r.stderr).toMatch(/^error: the service sent 1 record stamped outside the window asked \(2026-10-01T00:00:00Z to \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\), the first at 9999-12-31T00:00:00Z/);
    expect(r.exitCode).toBe(6);
    // Neither record: the batch that held them was never written.
    expect(await sql(db, 'SELECT count(*) AS n FROM one_time_transfers')).toEqual([{ n: 0 }]);
  });

  test.concurrent('--follow: its first poll stops it', async () => {
    const r = await run(['ot', 'transfers', '--follow', '--from', '2026-10-01', '--interval', '1']);
    expect(r.stderr).toMatch(/^error: the service sent 1 record stamped outside the window asked \(.*\), the first at 9999-12-31T00:00:00Z/);
    expect(r.exitCode).toBe(6);
  });
});
