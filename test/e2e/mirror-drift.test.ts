import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { payrec, tempDir } from './helpers.js';
import { sql } from './mirror-helpers.js';

// A service that sends what its documentation does not promise: amounts the exact
// form cannot hold, fields the schema does not know, values of another type. Written
// here rather than in the emulator, which only sends well-formed records. The sync
// keeps every value, says so on stderr, and exact totals refuse what they cannot hold.

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const payment = (n: number, receivers: unknown, extra: Record<string, unknown> = {}) => ({
  id: hash(n), description: 'Ebook', sender: `0x${'a'.repeat(40)}`, token: 'USDT', category: 'Shop', tag: 't',
  timestamp: 1_760_000_000 + n, transactionHash: hash(1000 + n), transactionStatus: 'confirmed', receivers, ...extra,
});

const PAYMENTS = [
  payment(1, [{ user: '0x01', amount: '1.5', fee: '0.01' }]),
  // 19 decimals: more than the exact form holds.
  payment(2, [{ user: '0x02', amount: '0.1234567890123456789', fee: '0.01' }]),
  // Not a decimal at all, and a number where the schema says a decimal string.
  payment(3, [{ user: '0x03', amount: '1e5', fee: 0.5 }]),
  // A field the schema does not have, at the top and inside a receiver.
  payment(4, [{ user: '0x04', amount: '2', fee: '0', note: 'split' }], { memo: { ref: 'A-1' } }),
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
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: PAYMENTS.slice(offset, offset + limit), limit, offset, total: PAYMENTS.length }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  db = join(tempDir(), 'drift.duckdb');
  sync = await payrec(undefined, ['sync', 'ot/payments', '--db', db, '-f', 'json'], { env: { PAYREC_BASE_URL: url, PAYREC_API_KEY: 'k', PAYREC_CHAIN: 'bsc' } });
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

test('the sync keeps every record and says what it could not hold or did not know', async () => {
  expect(sync.exitCode).toBe(0);
  expect(JSON.parse(sync.stdout)).toEqual([expect.objectContaining({ table: 'one_time_payments', fetched: 4, new: 4 })]);
  expect(sync.stderr).toContain(
    'warning: one_time_payments: fields the documented schema does not have, or values of another type: receivers[].fee (1), receivers[].note (1), memo (1); kept in extra_fields',
  );
  expect(sync.stderr).toContain('warning: one_time_payments: 2 amounts cannot be held exactly (more than 18 decimals, or not a decimal)');
});

test('amounts keep their text; the ones the exact form cannot hold are listed, and exact_sum refuses them', async () => {
  const rows = await payrec(undefined, ['sql', '--db', db, '-f', 'jsonl', 'SELECT r.user, r.amount, r.amount_exact FROM one_time_payments, UNNEST(receivers) AS u(r) ORDER BY r.user']);
  // Read as text: integers keep every digit, and each column one JSON type in every row (DECIMAL text, BIGINT numbers).
  expect(rows.stdout).toBe(
    [
      '{"user":"0x01","amount":"1.5","amount_exact":{"whole":"1","frac":500000000000000000}}',
      '{"user":"0x02","amount":"0.1234567890123456789","amount_exact":{"whole":null,"frac":null}}',
      '{"user":"0x03","amount":"1e5","amount_exact":{"whole":null,"frac":null}}',
      '{"user":"0x04","amount":"2","amount_exact":{"whole":"2","frac":0}}',
      '',
    ].join('\n'),
  );
  expect(await sql(db, 'SELECT id, field, text FROM inexact_amounts ORDER BY id')).toEqual([
    { id: hash(2), field: 'receivers[].amount', text: '0.1234567890123456789' },
    { id: hash(3), field: 'receivers[].amount', text: '1e5' },
  ]);
  const total = await payrec(undefined, ['sql', '--db', db, 'SELECT exact_sum(r.amount_exact) FROM one_time_payments, UNNEST(receivers) AS u(r)']);
  expect(total.exitCode).toBe(2);
  expect(total.stderr).toMatch(/exact_sum: 2 of the amounts cannot be held exactly \(their text is kept; see SELECT \* FROM inexact_amounts\)/);
  expect(await sql(db, "SELECT exact_sum(r.amount_exact) AS total FROM one_time_payments, UNNEST(receivers) AS u(r) WHERE r.user IN ('0x01', '0x04')")).toEqual([{ total: '3.5' }]);
});

test('fields beyond the schema and values of another type are kept in extra_fields, by path', async () => {
  const rows = await sql(db, 'SELECT id, extra_fields FROM one_time_payments WHERE extra_fields IS NOT NULL ORDER BY id');
  expect(rows).toEqual([
    { id: hash(3), extra_fields: { 'receivers[0].fee': 0.5 } },
    { id: hash(4), extra_fields: { memo: { ref: 'A-1' }, 'receivers[0].note': 'split' } },
  ]);
});
