import Big from 'big.js';
import fc from 'fast-check';
import { lstatSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCollections } from '../../src/mirror/catalog.js';
import { ensureLayout, layoutOf } from '../../src/mirror/duckdb/layout.js';
import { withoutPaddingZeros } from '../../src/mirror/duckdb/results.js';
import { MirrorDb } from '../../src/mirror/duckdb/connection.js';
import { Batch, Upserter } from '../../src/mirror/duckdb/upsert.js';
import type { UpsertCounts } from '../../src/mirror/engine.js';
import { tempDir } from '../e2e/helpers.js';

// The mirror's storage in-process: tables from the registry, upserts by identity with
// their counts, and DECIMAL(38,18) amounts checked against big.js (what --summary uses).

const dir = tempDir();
let db: MirrorDb;

beforeAll(async () => {
  db = await MirrorDb.open(join(dir, 'unit.duckdb'), 'write');
  await db.transaction(() => ensureLayout(db));
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const [transfers] = resolveCollections(['ot/transfers']);
const [paymentCollection] = resolveCollections(['one-time/payments']);

function transfer(hash: string, amount: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    description: 'Ebook', amount, fee: '0.01', token: 'USDT', category: 'Shop', timestamp: 1_700_000_000,
    transactionHash: hash, transactionStatus: 'confirmed', sender: '0xaa', receiver: '0xbb', oneTimeId: '0xcc', ...extra,
  };
}

/**
 * Writes records as one batch of one page, in one transaction: with `bytes`, the page
 * comes with its response body, which DuckDB takes as it is when it can.
 */
async function write(up: Upserter, records: Record<string, unknown>[], bytes = false): Promise<UpsertCounts & { fromBytes: boolean }> {
  const body = bytes ? Buffer.from(JSON.stringify({ data: records, limit: 1000, offset: 0, total: records.length })) : undefined;
  return db.transaction(async () => {
    await up.beginWalk();
    const batch = new Batch();
    up.add(batch, { records, total: records.length, body });
    return { ...(await up.write(batch)), fromBytes: batch.pages.length > 0 };
  });
}

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

describe('upserts', () => {
  it('inserts new records, updates changed ones and counts unchanged ones', async () => {
    const up = new Upserter(db, layoutOf(transfers), 'bsc', '2026-01-01T00:00:00Z');
    const first = await write(up, [transfer(hash(1), '1.5'), transfer(hash(2), '2')], true);
    expect(first).toEqual({ new: 2, updated: 0, unchanged: 0, fromBytes: true });
    const up2 = new Upserter(db, layoutOf(transfers), 'bsc', '2026-01-02T00:00:00Z');
    const second = await write(up2, [transfer(hash(1), '1.5'), transfer(hash(2), '2', { transactionStatus: 'failed' }), transfer(hash(3), '3')], true);
    expect(second).toEqual({ new: 1, updated: 1, unchanged: 1, fromBytes: true });
    const rows = await db.rows(
      `SELECT transactionHash, transactionStatus, first_seen::VARCHAR AS first, last_updated::VARCHAR AS last FROM one_time_transfers WHERE chain = 'bsc' ORDER BY 1`,
    );
    expect(rows.map((r) => [r.transactionStatus, r.first === r.last])).toEqual([
      ['confirmed', true],
      ['failed', false],
      ['confirmed', true],
    ]);
  });

  it('a record that comes back with another timestamp updates its row, never a second one', async () => {
    const up = new Upserter(db, layoutOf(transfers), 'ethereum', '2026-01-01T00:00:00Z');
    await write(up, [transfer(hash(40), '1', { timestamp: 100 })]);
    expect(await write(up, [transfer(hash(40), '1', { timestamp: 200 })])).toEqual({ new: 0, updated: 1, unchanged: 0, fromBytes: false });
    expect(await db.rows(`SELECT epoch("timestamp")::INTEGER AS t FROM one_time_transfers WHERE chain = 'ethereum'`)).toEqual([{ t: 200 }]);
  });

  it('keeps unknown fields and values of an unexpected type in extra_fields, and amounts that are not decimal strings in inexact_amounts, by path', async () => {
    const up = new Upserter(db, layoutOf(paymentCollection), 'bsc', '2026-01-01T00:00:00Z');
    const record = {
      id: hash(9), description: 'x', sender: '0xaa', token: 'USDT', category: 'Shop', tag: 't', timestamp: 1_700_000_000,
      transactionHash: hash(10), transactionStatus: 'confirmed', memo: { a: 1 },
      receivers: [{ user: '0x01', amount: '1', fee: '0' }, { user: '0x02', amount: 7, fee: '0', note: 'n' }],
    };
    // Offered as page bytes, it is written out by payrec all the same: it does not fit its schema.
    expect((await write(up, [record], true)).fromBytes).toBe(false);
    expect(Object.fromEntries(up.drift)).toEqual({ memo: 1, 'receivers[].note': 1 });
    expect(up.inexact).toBe(1);
    const [row] = await db.rows(`SELECT extra_fields, inexact_amounts, receivers FROM payrec_store.one_time_payments WHERE id = $1`, [hash(9)]);
    expect(JSON.parse(String(row.extra_fields))).toEqual({ memo: { a: 1 }, 'receivers[1].note': 'n' });
    expect(JSON.parse(String(row.inexact_amounts))).toEqual({ 'receivers[1].amount': '7' });
    expect((row.receivers as { amount: string | null }[]).map((r) => r.amount)).toEqual(['1.000000000000000000', null]);
  });

  it('refuses a batch whose records lack their identity, writing nothing', async () => {
    const up = new Upserter(db, layoutOf(transfers), 'bsc', '2026-01-03T00:00:00Z');
    const before = await db.rows('SELECT count(*)::INTEGER AS n FROM one_time_transfers');
    await expect(write(up, [transfer(hash(20), '1'), transfer(null as never, '2')], true)).rejects.toThrow(/transactionHash/);
    expect(await db.rows('SELECT count(*)::INTEGER AS n FROM one_time_transfers')).toEqual(before);
  });
});

describe('exact amounts', () => {
  const decimalText = fc
    .tuple(
      fc.boolean(),
      // Up to 18 integer digits: 40 of them still total within DECIMAL(38,18)'s 20.
      fc.oneof(fc.bigInt({ min: 0n, max: 9999n }), fc.bigInt({ min: 0n, max: 10n ** 18n - 1n })),
      fc.integer({ min: 0, max: 18 }),
      fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }),
    )
    .map(([negative, whole, digits, frac]) => {
      const f = digits === 0 ? '' : frac.toString().padStart(18, '0').slice(0, digits);
      return `${negative ? '-' : ''}${whole}${f ? '.' + f : ''}`;
    });

  let run = 0;
  it('SUM equals big.js digit for digit and ORDER BY sorts as big.js does, whatever the signs and sizes, from page bytes or records written out', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(decimalText, { minLength: 1, maxLength: 40 }), fc.boolean(), async (amounts, bytes) => {
        const chain = `prop${run++}`;
        const up = new Upserter(db, layoutOf(transfers), chain, '2026-01-01T00:00:00Z');
        expect((await write(up, amounts.map((a, i) => transfer(hash(i), a)), bytes)).fromBytes).toBe(bytes);
        const expected = amounts.reduce((s, a) => s.plus(a), new Big(0)).toFixed();
        const [row] = await db.rows(`SELECT SUM(amount)::VARCHAR AS total FROM one_time_transfers WHERE chain = $1`, [chain]);
        expect(withoutPaddingZeros(String(row.total))).toBe(expected === '-0' ? '0' : expected);
        const order = await db.rows(`SELECT transactionHash AS h FROM one_time_transfers WHERE chain = $1 ORDER BY amount, transactionHash`, [chain]);
        const want = amounts.map((a, i) => [a, hash(i)] as const).sort(([a, x], [b, y]) => new Big(a).cmp(b) || (x < y ? -1 : x > y ? 1 : 0));
        expect(order.map((r) => r.h)).toEqual(want.map(([, h]) => h));
      }),
      { numRuns: 100 },
    );
  });

  it('a record gives the same row from page bytes as written out by payrec, nested amounts included', async () => {
    const text = fc.oneof(fc.string(), fc.constantFrom('é€😀', '\u001b[31m', '"quoted"', 'a\\b'));
    const payment = fc.record({
      id: fc.constant(''), description: text, sender: text, token: text, category: text, tag: text,
      timestamp: fc.integer({ min: 0, max: 253_402_300_799 }), transactionHash: fc.constant(''), transactionStatus: text,
      receivers: fc.option(fc.array(fc.option(fc.record({ user: text, amount: decimalText, fee: decimalText })), { maxLength: 3 })),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(payment, { minLength: 1, maxLength: 5 }), async (payments) => {
        const n = run++;
        const made = () => payments.map((p, i) => ({ ...structuredClone(p), id: hash(i), transactionHash: hash(i) }));
        const [a, b] = [`bytes${n}`, `records${n}`];
        expect((await write(new Upserter(db, layoutOf(paymentCollection), a, '2026-01-01T00:00:00Z'), made(), true)).fromBytes).toBe(true);
        expect((await write(new Upserter(db, layoutOf(paymentCollection), b, '2026-01-01T00:00:00Z'), made(), false)).fromBytes).toBe(false);
        const rows = (chain: string) => db.rows(`SELECT * EXCLUDE (chain, identity_hash) FROM payrec_store.one_time_payments WHERE chain = $1 ORDER BY id`, [chain]);
        expect(await rows(a)).toEqual(await rows(b));
      }),
      { numRuns: 60 },
    );
  });

  it('refuses to sum a value it cannot hold, and lists it in inexact_amounts', async () => {
    const up = new Upserter(db, layoutOf(transfers), 'polygon', '2026-01-04T00:00:00Z');
    expect(up.inexact).toBe(0);
    const { amount: _none, ...amountless } = transfer(hash(35), '0');
    const written = await write(
      up,
      [transfer(hash(30), '1.1234567890123456789'), transfer(hash(31), '1e5'), transfer(hash(32), '5'), transfer(hash(33), '1' + '0'.repeat(20)), { ...transfer(hash(34), '0'), amount: null }, amountless],
      true,
    );
    expect(written).toEqual({ new: 6, updated: 0, unchanged: 0, fromBytes: false });
    expect(up.inexact).toBe(5);
    await expect(db.rows(`SELECT SUM(amount) FROM one_time_transfers WHERE chain = 'polygon'`)).rejects.toThrow(/amounts DECIMAL\(38,18\) cannot hold exactly/);
    const listed = await db.rows(`SELECT id, field, text FROM inexact_amounts WHERE chain = 'polygon' ORDER BY id`);
    expect(listed).toEqual([
      { id: hash(30), field: 'amount', text: '1.1234567890123456789' },
      { id: hash(31), field: 'amount', text: '1e5' },
      { id: hash(33), field: 'amount', text: '1' + '0'.repeat(20) },
      // null, and no amount at all: not an amount either (as NULL they would drop out of every SUM).
      { id: hash(34), field: 'amount', text: 'null' },
      { id: hash(35), field: 'amount', text: '(absent)' },
    ]);
  });

  it('a payment whose receiver has no amount, or null, is inexact there: the total over receivers fails', async () => {
    const payment = (n: number, receivers: unknown[]) => ({ id: hash(n), description: 'd', sender: '0x1', token: 'USDT', category: 'c', tag: 't', timestamp: 1_700_000_000, transactionHash: hash(n), transactionStatus: 'confirmed', receivers });
    const up = new Upserter(db, layoutOf(paymentCollection), 'nested', '2026-01-06T00:00:00Z');
    await write(up, [payment(60, [{ user: '0x2', amount: '1', fee: '0' }, { user: '0x3', fee: '0' }]), payment(61, [{ user: '0x4', amount: null, fee: '0.5' }]), payment(62, [{ user: '0x5', amount: '2', fee: '0' }])], true);
    expect(up.inexact).toBe(2);
    expect(await db.rows(`SELECT id, field, text FROM inexact_amounts WHERE chain = 'nested' ORDER BY id, field`)).toEqual([
      { id: hash(60), field: 'receivers[1].amount', text: '(absent)' },
      { id: hash(61), field: 'receivers[0].amount', text: 'null' },
    ]);
    await expect(db.rows(`SELECT SUM(r.amount) FROM one_time_payments, UNNEST(receivers) AS u(r) WHERE chain = 'nested'`)).rejects.toThrow(/amounts DECIMAL\(38,18\) cannot hold exactly/);
  });

  it('repairs a lone surrogate whether its page comes with the response body or not, and leaves a whole pair alone', async () => {
    // Mutants killed: the repair skipped for every page that has a body, or for every page that has none.
    for (const bytes of [true, false]) {
      const chain = `surrogates-${bytes}`;
      const up = new Upserter(db, layoutOf(transfers), chain, '2026-01-07T00:00:00Z');
      await write(up, [transfer(hash(70), '1', { description: 'lone \ud800 high' }), transfer(hash(71), '2', { description: 'pair \ud83d\ude00 whole' })], bytes);
      expect(up.repaired).toEqual([`transactionHash ${hash(70)}`]);
      const rows = await db.rows(`SELECT description FROM one_time_transfers WHERE chain = $1 ORDER BY transactionHash`, [chain]);
      expect(rows.map((r) => r.description)).toEqual(['lone \ufffd high', 'pair 😀 whole']);
    }
  });

  it('holds the widest values DECIMAL(38,18) takes, of either sign', async () => {
    const widest = `${'9'.repeat(20)}.${'9'.repeat(18)}`;
    const up = new Upserter(db, layoutOf(transfers), 'sandbox', '2026-01-05T00:00:00Z');
    await write(up, [transfer(hash(50), widest), transfer(hash(51), '-' + widest), transfer(hash(52), '-0.000000000000000001')], true);
    const rows = await db.rows(`SELECT amount::VARCHAR AS a FROM one_time_transfers WHERE chain = 'sandbox' ORDER BY amount`);
    expect(rows.map((r) => r.a)).toEqual(['-' + widest, '-0.000000000000000001', widest]);
  });
});

describe('staging', () => {
  it('stages each batch in a private folder of a new name (mkdtemp, 0700), in a 0600 file, and removes the folder on close', async () => {
    // Mutant killed: the old fixed `.<mirror>.staging` folder (a name another user can plant ahead).
    const own = tempDir();
    const file = join(own, 'staged.duckdb');
    const staging = await MirrorDb.open(file, 'write');
    let seen: { dir: string; dirMode: number; fileMode: number; text: string } | undefined;
    await staging.withFile('{"a":1}', async (quoted) => {
      const path = quoted!.slice(1, -1);
      seen = { dir: dirname(path), dirMode: lstatSync(dirname(path)).mode & 0o777, fileMode: statSync(path).mode & 0o777, text: readFileSync(path, 'utf8') };
    });
    expect(basename(seen!.dir)).toMatch(/^\.staged\.duckdb\.staging-[A-Za-z0-9]{6}$/);
    expect(seen).toMatchObject({ dirMode: 0o700, fileMode: 0o600, text: '{"a":1}' });
    staging.close();
    expect(readdirSync(own).filter((n) => n.includes('staging'))).toEqual([]);
  });

  it('writes a batch given in pieces whole and in order, more pieces than one writev takes (IOV_MAX 1024)', async () => {
    const staging = await MirrorDb.open(join(tempDir(), 'pieces.duckdb'), 'write');
    const values = Array.from({ length: 3000 }, (_, i) => i);
    // Pieces of every size (an empty one among them), split inside values as a page's bytes may be.
    const text = `[${values.map((a) => `{"a":${a}}`).join(',')}]`;
    const pieces: Buffer[] = [];
    for (let at = 0, size = 0; at < text.length; at += size, size = (size + 1) % 7) pieces.push(Buffer.from(text.slice(at, at + size)));
    expect(pieces.length).toBeGreaterThan(1024);
    let written = '';
    const rows = await staging.withFile(pieces, async (quoted) => {
      written = readFileSync(quoted!.slice(1, -1), 'utf8');
      return staging.rows(`SELECT count(*)::INTEGER AS n, sum(a)::INTEGER AS total FROM read_json(${quoted}, format = 'array')`);
    });
    staging.close();
    expect(written).toBe(text);
    expect(rows).toEqual([{ n: 3000, total: (2999 * 3000) / 2 }]);
  });

  // A worker that runs payrec in-process opens and closes many mirrors: each open's spill
  // folder is removed at exit by a listener that close() must take back, or they gather
  // (Node's MaxListenersExceededWarning at eleven, and folders of closed mirrors held).
  it('takes back the exit listener of its spill folder at close, however many mirrors a process opens', async () => {
    const file = join(tempDir(), 'reopened.duckdb');
    const before = process.listenerCount('exit');
    for (let i = 0; i < 12; i++) {
      const mirror = await MirrorDb.open(file, i % 2 ? 'read' : 'write');
      expect(process.listenerCount('exit')).toBe(before + 1);
      mirror.close();
    }
    expect(process.listenerCount('exit')).toBe(before);
    expect(readdirSync(dirname(file)).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });
});
