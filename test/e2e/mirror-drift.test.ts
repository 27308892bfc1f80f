import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { payrec, tempDir } from './helpers.js';
import { sql } from './mirror-helpers.js';

// A service that sends what its documentation does not promise: amounts DECIMAL(38,18)
// cannot hold (a JSON number, '1e5', 19 decimals, 21 integer digits), fields the schema
// does not know, values of another type. Written here rather than in the emulator, which
// only sends well-formed records. The sync keeps every value, says so on stderr, and no
// query can total, sort or compare an amount it could not hold: each fails loudly.

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const payment = (n: number, receivers: unknown, extra: Record<string, unknown> = {}) => ({
  id: hash(n), description: 'Ebook', sender: `0x${'a'.repeat(40)}`, token: 'USDT', category: 'Shop', tag: 't',
  timestamp: 1_760_000_000 + n, transactionHash: hash(1000 + n), transactionStatus: 'confirmed', receivers, ...extra,
});

const PAYMENTS = [
  payment(1, [{ user: '0x01', amount: '1.5', fee: '0.01' }]),
  // 19 decimals: more than DECIMAL(38,18) holds.
  payment(2, [{ user: '0x02', amount: '0.1234567890123456789', fee: '0.01' }]),
  // Not a decimal string at all, and a JSON number where the schema says a decimal string.
  payment(3, [{ user: '0x03', amount: '1e5', fee: 0.5 }]),
  // A field the schema does not have, at the top and inside a receiver.
  payment(4, [{ user: '0x04', amount: '2', fee: '0', note: 'split' }], { memo: { ref: 'A-1' } }),
];

const transfer = (n: number, amount: unknown) => ({
  description: 'Ebook', amount, fee: '0.01', token: 'USDT', category: 'Shop', timestamp: 1_760_000_000 + n,
  transactionHash: hash(2000 + n), transactionStatus: 'confirmed', sender: `0x${'a'.repeat(40)}`, receiver: `0x${'b'.repeat(40)}`, oneTimeId: hash(3000 + n),
});
const TRANSFERS = [
  transfer(1, '1.5'),
  // 21 integer digits: more than DECIMAL(38,18) holds.
  transfer(2, '123456789012345678901'),
  transfer(3, 2.5),
  transfer(4, '-0.25'),
];

let server: Server;
let url: string;
let db: string;
let sync: Awaited<ReturnType<typeof payrec>>;

beforeAll(async () => {
  server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const offset = Number(u.searchParams.get('offset') ?? 0);
    const limit = Number(u.searchParams.get('limit') ?? 100);
    // The window is kept, as the API does (payrec stops at a record outside it): a later
    // sync's lookback finds nothing new here.
    const [from, to] = [Number(u.searchParams.get('from') ?? 0), Number(u.searchParams.get('to') ?? Infinity)];
    const records = (u.pathname.endsWith('/one-time/transfers') ? TRANSFERS : PAYMENTS).filter((r) => r.timestamp >= from && r.timestamp <= to);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: records.slice(offset, offset + limit), limit, offset, total: records.length }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  db = join(tempDir(), 'drift.duckdb');
  sync = await payrec(undefined, ['sync', 'ot/payments', 'ot/transfers', '--db', db, '-f', 'json'], { env: { PAYREC_BASE_URL: url, PAYREC_API_KEY: 'k', PAYREC_CHAIN: 'bsc' } });
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** Runs a query that must fail: exit 2, with the guard's message naming the table. */
async function fails(query: string, table: string): Promise<void> {
  const r = await payrec(undefined, ['sql', '--db', db, query]);
  expect(r.exitCode, query).toBe(2);
  expect(r.stdout, query).toBe('');
  expect(r.stderr, query).toMatch(new RegExp(`^error: the query failed: .*${table} 0x[0-9a-f]+.*: amounts DECIMAL\\(38,18\\) cannot hold exactly: \\{.*\\} \\(a total, sort or comparison over them cannot be exact; list them: SELECT \\* FROM inexact_amounts; leave such rows out: WHERE inexact_amounts IS NULL\\)`));
}

test('the sync keeps every record and says what it could not hold or did not know', async () => {
  expect(sync.exitCode).toBe(0);
  expect(JSON.parse(sync.stdout)).toEqual([
    expect.objectContaining({ table: 'one_time_payments', fetched: 4, new: 4 }),
    expect.objectContaining({ table: 'one_time_transfers', fetched: 4, new: 4 }),
  ]);
  expect(sync.stderr).toContain(
    'warning: one_time_payments: fields the documented schema does not have, or values of another type: receivers[].note (1), memo (1); kept in extra_fields',
  );
  expect(sync.stderr).toContain('warning: one_time_payments: 3 amounts DECIMAL(38,18) cannot hold exactly');
  expect(sync.stderr).toContain('warning: one_time_transfers: 2 amounts DECIMAL(38,18) cannot hold exactly');
});

test('amounts that do not fit are listed with their text, and every row knows its own', async () => {
  expect(await sql(db, 'SELECT "table", id, field, text FROM inexact_amounts ORDER BY "table", id, field')).toEqual([
    { table: 'one_time_payments', id: hash(2), field: 'receivers[0].amount', text: '0.1234567890123456789' },
    { table: 'one_time_payments', id: hash(3), field: 'receivers[0].amount', text: '1e5' },
    { table: 'one_time_payments', id: hash(3), field: 'receivers[0].fee', text: '0.5' },
    { table: 'one_time_transfers', id: hash(2002), field: 'amount', text: '123456789012345678901' },
    { table: 'one_time_transfers', id: hash(2003), field: 'amount', text: '2.5' },
  ]);
  expect(await sql(db, 'SELECT transactionHash, inexact_amounts FROM one_time_transfers ORDER BY transactionHash')).toEqual([
    { transactionHash: hash(2001), inexact_amounts: null },
    { transactionHash: hash(2002), inexact_amounts: { amount: '123456789012345678901' } },
    { transactionHash: hash(2003), inexact_amounts: { amount: '2.5' } },
    { transactionHash: hash(2004), inexact_amounts: null },
  ]);
});

test('no total, average, sort or comparison over an inexact amount answers: each fails loudly', async () => {
  for (const q of [
    'SELECT SUM(amount) FROM one_time_transfers',
    'SELECT token, SUM(amount) FROM one_time_transfers GROUP BY token',
    'SELECT AVG(amount) FROM one_time_transfers',
    'SELECT max(amount) FROM one_time_transfers',
    'SELECT transactionHash FROM one_time_transfers ORDER BY amount DESC LIMIT 1',
    'SELECT count(*) FROM one_time_transfers WHERE amount > 1',
    'SELECT SUM(amount) FROM transfers',
    'SELECT SUM(amount::DOUBLE) FROM one_time_transfers',
  ]) {
    await fails(q, 'one_time_transfers');
  }
  for (const q of ['SELECT SUM(r.amount) FROM one_time_payments, UNNEST(receivers) AS u(r)', 'SELECT SUM(r.fee) FROM one_time_payments, UNNEST(receivers) AS u(r)']) {
    await fails(q, 'one_time_payments');
  }
  // What does not read an amount answers; so does a total that leaves such rows out on purpose.
  expect(await sql(db, 'SELECT count(*) AS n, SUM(fee) AS fees FROM one_time_transfers')).toEqual([{ n: 4, fees: '0.04' }]);
  expect(await sql(db, 'SELECT SUM(amount) AS total FROM one_time_transfers WHERE inexact_amounts IS NULL')).toEqual([{ total: '1.25' }]);
  // Nested amounts: the rows are left out before their lists are unnested.
  expect(await sql(db, 'SELECT SUM(r.amount) AS total FROM (SELECT receivers FROM one_time_payments WHERE inexact_amounts IS NULL) AS p, UNNEST(p.receivers) AS u(r)')).toEqual([
    { total: '3.5' },
  ]);
});

test('fields beyond the schema and values of another type are kept in extra_fields, by path', async () => {
  const rows = await sql(db, 'SELECT id, extra_fields FROM one_time_payments WHERE extra_fields IS NOT NULL ORDER BY id');
  expect(rows).toEqual([{ id: hash(4), extra_fields: { memo: { ref: 'A-1' }, 'receivers[0].note': 'split' } }]);
});

test('--parquet refuses a partition that holds an amount DECIMAL(38,18) cannot hold (exit 6), and keeps the mirror', async () => {
  const lake = join(tempDir(), 'lake');
  // A first sync into a mirror of its own: every record is new, so every month is written.
  const own = join(tempDir(), 'lake.duckdb');
  const r = await payrec(undefined, ['sync', 'ot/payments', 'ot/transfers', '--db', own, '--parquet', lake, '-q'], { env: { PAYREC_BASE_URL: url, PAYREC_API_KEY: 'k', PAYREC_CHAIN: 'bsc' } });
  expect(r.exitCode).toBe(6);
  expect(r.stderr).toMatch(/^error: one_time_payments, chain bsc, month 2025-10: not written to Parquet: one_time_payments 0x0+2: amounts DECIMAL\(38,18\) cannot hold exactly/m);
  expect(await sql(own, 'SELECT count(*) AS n FROM one_time_payments')).toEqual([{ n: 4 }]);
});

test('an amount sent as null, or not sent at all, is inexact too: payrec sql SUM fails naming it rather than total without it', async () => {
  const { amount: _none, ...amountless } = transfer(12, '0');
  const records = [transfer(10, '1.5'), transfer(11, null), amountless, transfer(13, '0.25')];
  const quiet = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const offset = Number(u.searchParams.get('offset') ?? 0);
    const limit = Number(u.searchParams.get('limit') ?? 100);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: records.slice(offset, offset + limit), limit, offset, total: records.length }));
  });
  await new Promise<void>((resolve) => quiet.listen(0, '127.0.0.1', resolve));
  try {
    const file = join(tempDir(), 'nulls.duckdb');
    const env = { PAYREC_BASE_URL: `http://127.0.0.1:${(quiet.address() as AddressInfo).port}`, PAYREC_API_KEY: 'k', PAYREC_CHAIN: 'bsc' };
    const synced = await payrec(undefined, ['sync', 'ot/transfers', '--db', file, '-q'], { env });
    expect(synced.exitCode).toBe(0);
    const r = await payrec(undefined, ['sql', '--db', file, 'SELECT SUM(amount) FROM one_time_transfers']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^error: the query failed: .*one_time_transfers (${hash(2011)}|${hash(2012)}): amounts DECIMAL\\(38,18\\) cannot hold exactly: \\{"amount":"(null|\\(absent\\))"\\}`));
    const prev = db;
    db = file;
    try {
      expect(await sql(db, 'SELECT id, field, text FROM inexact_amounts ORDER BY id')).toEqual([
        { id: hash(2011), field: 'amount', text: 'null' },
        { id: hash(2012), field: 'amount', text: '(absent)' },
      ]);
      // Left out on purpose, the rest totals: 1.5 + 0.25.
      expect(await sql(db, 'SELECT SUM(amount) AS total FROM one_time_transfers WHERE inexact_amounts IS NULL')).toEqual([{ total: '1.75' }]);
    } finally {
      db = prev;
    }
  } finally {
    await new Promise((resolve) => quiet.close(resolve));
  }
});
