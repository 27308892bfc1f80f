import Big from 'big.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { UsageError } from '../../src/core/runtime/errors.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { resolveCollections, scopeKey } from '../../src/mirror/catalog.js';
import { DuckDbStore } from '../../src/mirror/duckdb/engine.js';
import type { Access, MirrorStore, OpenOptions } from '../../src/mirror/engine.js';
import type { StoredRate } from '../../src/mirror/rates.js';
import { PostgresStore } from '../../src/mirror/postgres/engine.js';
import { parseServerUrl } from '../../src/mirror/server-url.js';
import { ledger } from '../../src/subscriptions/engine.js';
import { ANCHOR, tempDir } from '../e2e/helpers.js';
import { postgres } from '../e2e/pg-helpers.js';

// The contract every mirror engine keeps (src/mirror/engine.ts), written against the
// interface alone and run once per engine: DuckDB's, and PostgreSQL's on the server
// .ci/run starts (PAYREC_TEST_PG; skipped with the reason without one, failing under CI). The records are the emulator's
// ground truth, as the API serves them: what is read back is held against what was
// written, never against what the engine computed.

interface Engine {
  name: string;
  /** Skipped: its server is not there (a developer's machine; CI fails instead). */
  skip?: boolean;
  /** A place for a new, empty mirror. */
  fresh(): string;
  /** How the store names the mirror at `where`. */
  shown(where: string): string;
  open(where: string, access: Access, o?: Partial<OpenOptions>): Promise<MirrorStore>;
}

const ENGINES: Engine[] = [
  {
    name: 'duckdb',
    fresh: () => join(tempDir(), 'contract.duckdb'),
    shown: (where) => where,
    open: (where, access, o) => DuckDbStore.open(where, access, { memoryLimit: '128MB', ...o }),
  },
  {
    name: `postgresql${postgres.prerequisite.note}`,
    skip: postgres.prerequisite.skip,
    fresh: () => postgres.freshUrl('contract'),
    shown: (where) => parseServerUrl(where, '--db').shown,
    open: (where, access, o) => PostgresStore.open(parseServerUrl(where, '--db'), access, { memoryLimit: '', env: process.env, ...o }),
  },
];

const CHAIN = 'bsc';
const RUN_AT = '2026-01-01T00:00:00.000Z';
const [TRANSFERS] = resolveCollections(['ot/transfers']);
const [BILLINGS, CANCELLATIONS, SHORT_URLS] = resolveCollections(['fr/billings', 'fr/cancellations', 'fr/short-urls']);

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, records: 60, seed: 1, now: ANCHOR });
});
afterAll(() => emu.close());

/** Every row a query of the store gives, as records (times as Unix seconds). */
async function rowsOf(store: MirrorStore, sql: string): Promise<Record<string, unknown>[]> {
  const result = await store.query(sql);
  const out: Record<string, unknown>[] = [];
  for await (const chunk of result.records('UTC', true)) out.push(...chunk);
  expect(out).toHaveLength(result.rows);
  return out;
}

/** Writes `records` of `collection` (scoped to a plan when `plan`), with the cursor of a list with a time window, in one transaction; the counts. */
async function sync(store: MirrorStore, collection: typeof TRANSFERS, records: Record<string, unknown>[], plan?: string) {
  const writer = await store.writer(collection, CHAIN, RUN_AT);
  return store.transaction(async () => {
    writer.scope(plan ? 'planId' : undefined, plan);
    await writer.beginWalk();
    const batch = writer.newBatch();
    writer.add(batch, { records: structuredClone(records), total: records.length });
    const counts = await writer.write(batch, { remember: false });
    if (collection.endpoint.timeWindow && records.length > 0) await store.writeCursor(CHAIN, collection.name, scopeKey(plan ? 'planId' : undefined, plan), Math.max(...records.map((r) => r.timestamp as number)));
    return counts;
  });
}

describe.each(ENGINES)('the mirror store contract: $name', (engine) => {
  let where: string;
  let store: MirrorStore;
  beforeAll(async () => {
    if (engine.skip) return;
    where = engine.fresh();
    store = await engine.open(where, 'write');
  });
  afterAll(() => store?.close());
  const it = engine.skip ? test.skip : test;

  it('lays a new mirror out once: not a mirror before, one after, and a second layout changes nothing', async () => {
    expect(store.name).toBe(engine.shown(where));
    expect(await store.isMirror()).toBe(false);
    expect(await store.transaction(() => store.layout())).toBeUndefined();
    expect(await store.isMirror()).toBe(true);
    expect(await store.transaction(() => store.layout())).toBeUndefined();
    const names = (await store.describe()).map((t) => t.table);
    expect(names).toEqual(expect.arrayContaining(['one_time_transfers', 'fixed_recurring_billings', 'transfers', 'subscriptions', 'inexact_amounts']));
  });

  it('a batch and its cursor are one transaction: one that fails leaves neither', async () => {
    const records = emu.records(CHAIN, TRANSFERS.name).records.slice(0, 5);
    const writer = await store.writer(TRANSFERS, CHAIN, RUN_AT);
    await expect(
      store.transaction(async () => {
        writer.scope();
        await writer.beginWalk();
        const batch = writer.newBatch();
        writer.add(batch, { records: structuredClone(records), total: records.length });
        await writer.write(batch, { remember: false });
        await store.writeCursor(CHAIN, TRANSFERS.name, '', 1);
        throw new Error('the walk failed');
      }),
    ).rejects.toThrow('the walk failed');
    expect(await store.readCursor(CHAIN, TRANSFERS.name, '')).toBeUndefined();
    expect(await rowsOf(store, 'SELECT * FROM one_time_transfers')).toEqual([]);
  });

  it('upserts by identity: new records, then the same unchanged, then a changed one updated; what is read back is what was written', async () => {
    const truth = emu.records(CHAIN, TRANSFERS.name).records;
    expect(truth.length).toBeGreaterThan(20);
    expect(await sync(store, TRANSFERS, truth)).toEqual({ new: truth.length, updated: 0, unchanged: 0 });
    expect(await sync(store, TRANSFERS, truth)).toEqual({ new: 0, updated: 0, unchanged: truth.length });
    const moved = truth.map((r, i) => (i === 3 ? { ...r, transactionStatus: r.transactionStatus === 'failed' ? 'confirmed' : 'failed' } : r));
    expect(await sync(store, TRANSFERS, moved)).toEqual({ new: 0, updated: 1, unchanged: truth.length - 1 });

    const rows = await rowsOf(store, 'SELECT "transactionHash", amount, fee, "transactionStatus", "timestamp" FROM one_time_transfers');
    const byHash = new Map(rows.map((r) => [r.transactionHash, r]));
    expect(byHash.size).toBe(truth.length);
    for (const sent of moved) {
      const got = byHash.get(sent.transactionHash)!;
      // Amounts exactly, however the engine prints a decimal (big.js compares the values).
      expect(new Big(got.amount as string).eq(new Big(sent.amount as string)), String(sent.amount)).toBe(true);
      expect(new Big(got.fee as string).eq(new Big(sent.fee as string))).toBe(true);
      expect(got.transactionStatus).toBe(sent.transactionStatus);
      expect(Number(got.timestamp)).toBe(sent.timestamp);
    }
    expect(await store.readCursor(CHAIN, TRANSFERS.name, '')).toBe(Math.max(...truth.map((r) => r.timestamp as number)));
  });

  it('removes what a whole walk no longer saw, and nothing it saw', async () => {
    const truth = emu.records(CHAIN, TRANSFERS.name).records;
    const kept = truth.slice(0, truth.length - 4);
    const writer = await store.writer(TRANSFERS, CHAIN, RUN_AT);
    const removed = await store.transaction(async () => {
      writer.scope();
      await writer.beginWalk();
      await writer.startSeen();
      const batch = writer.newBatch();
      writer.add(batch, { records: structuredClone(kept), total: kept.length });
      await writer.write(batch, { remember: true });
      return writer.removeUnseen();
    });
    expect(removed).toBe(4);
    const left = (await rowsOf(store, 'SELECT "transactionHash" FROM one_time_transfers')).map((r) => r.transactionHash).sort();
    expect(left).toEqual(kept.map((r) => r.transactionHash).sort());
  });

  it('keeps its state: meta, cursors, where a list begins, remembered scopes in the order given, and every cursor listed', async () => {
    expect(await store.readMeta('contract')).toBeUndefined();
    await store.writeMeta('contract', 'one');
    await store.writeMeta('contract', 'two');
    expect(await store.readMeta('contract')).toBe('two');
    expect(await store.readSince(CHAIN, 'one-time/payments', '')).toBe(0);
    await store.writeSince(CHAIN, 'one-time/payments', '', 1_700_000_000);
    expect(await store.readSince(CHAIN, 'one-time/payments', '')).toBe(1_700_000_000);
    const [a, b] = ['0x' + 'b'.repeat(64), '0x' + 'a'.repeat(64)];
    await store.rememberScopes(CHAIN, BILLINGS.name, 'planId', [a]);
    await store.rememberScopes(CHAIN, BILLINGS.name, 'planId', [b, a]);
    expect(await store.rememberedScopes(CHAIN, BILLINGS.name, 'planId')).toEqual([a, b]);
    expect(await store.rememberedScopes('polygon', BILLINGS.name, 'planId')).toEqual([]);
    const cursors = await store.cursors();
    expect(cursors.map((c) => [c.chain, c.collection, c.scope])).toContainEqual([CHAIN, TRANSFERS.name, '']);
    for (const c of cursors) expect(c.age).toBeGreaterThanOrEqual(0);
  });

  it("reads a plan's subscriptions as they were synced, and knows the plan from its short urls and its cursor", async () => {
    const plan = emu.subscriptions(CHAIN).plans[0].planId;
    const facts = emu.subscriptions(CHAIN, { planId: plan }).subscriptions;
    const billings = facts.flatMap((s) => s.billings);
    const cancellations = facts.flatMap((s) => (s.cancellation ? [s.cancellation] : []));
    expect(billings.length).toBeGreaterThan(0);
    await sync(store, BILLINGS, billings, plan);
    await sync(store, CANCELLATIONS, cancellations, plan);
    if (cancellations.length === 0) await store.writeCursor(CHAIN, CANCELLATIONS.name, scopeKey('planId', plan), ANCHOR);
    await sync(store, SHORT_URLS, emu.records(CHAIN, SHORT_URLS.name).records);

    const coverage = await store.subscriptionCoverage(CHAIN, []);
    expect(coverage.plans).toEqual([plan]);
    const records = await store.subscriptionRecords(CHAIN, [plan]);
    expect(records.billings).toBe(billings.length);
    // The store's reader against the same records handed to the engine as they were served.
    const asServed = { billings: billings.map((b) => ({ ...b, planId: plan })), cancellations: cancellations.map((c) => ({ ...c, planId: plan })) } as unknown as Parameters<typeof ledger>[0];
    const o = { at: ANCHOR, graceSeconds: 30 * 86_400 };
    expect(ledger(records, o)).toEqual(ledger(asServed, o));

    const one = facts[0].subscriptionId;
    expect(await store.subscriptionsNamed(CHAIN, one.slice(0, 20))).toEqual([one]);
    expect((await store.subscriptionRecordsOf(CHAIN, one)).billings).toHaveLength(facts[0].billings.length);

    const sources = await store.planSources(CHAIN);
    expect(sources.named).toContain(plan);
    expect(sources.synced).toEqual([plan]);
  });

  it('keeps rates as written: a round stored once however often given, an import replaced by name, read back by chain and time, a failed transaction leaving nothing', async () => {
    const round = (id: number, time: number, answer: string): StoredRate => ({
      chain: CHAIN, token: 'BNB', currency: 'USD', time, rate: answer === '-1' ? null : `${answer.slice(0, -8) || '0'}.${answer.slice(-8)}`, source: `chainlink:${CHAIN}:0xfeed:round=${(2n << 64n) + BigInt(id)}`,
      feed: '0xfeed', description: 'BNB / USD', phase: 2, roundId: ((2n << 64n) + BigInt(id)).toString(), answer, decimals: 8, file: null, line: null, sha256: null, address: null, note: null,
    });
    const line = (n: number, time: number | null, chain: string, token: string, rate: string): StoredRate => ({
      chain, token, currency: 'USD', time, rate, source: 'desk', feed: null, description: null, phase: null, roundId: null, answer: null, decimals: null, file: 'desk.csv', line: n, sha256: 'ab'.repeat(32), address: null, note: n === 2 ? 'a, "quoted" note' : null,
    });
    const rounds = [round(7, ANCHOR - 7200, '61234000000'), round(8, ANCHOR - 3600, '-1'), round(9, ANCHOR, '61300000001')];
    expect(await store.transaction(() => store.storeRates(rounds))).toBe(3);
    // Again with one more: only the new one.
    expect(await store.transaction(() => store.storeRates([...rounds, round(10, ANCHOR + 60, '61300000002')]))).toBe(1);
    const imported = [line(2, ANCHOR - 86_400, CHAIN, '8PAY', '0.0512'), line(3, null, '*', 'USDT', '1'), line(4, ANCHOR, 'fiat', 'EUR', '1.0830')];
    await store.transaction(async () => {
      expect(await store.dropImport('desk.csv')).toBe(0);
      expect(await store.storeRates(imported)).toBe(3);
    });
    await expect(store.transaction(async () => {
      await store.dropImport('desk.csv');
      await store.storeRates([line(2, ANCHOR, CHAIN, '8PAY', '9')]);
      throw new Error('the import failed');
    })).rejects.toThrow('the import failed');
    const all = await store.rates({ chain: CHAIN });
    expect(all).toEqual([imported[1], imported[0], ...rounds, round(10, ANCHOR + 60, '61300000002'), imported[2]].sort((a, b) => a.chain.localeCompare(b.chain) || a.token.localeCompare(b.token) || (a.time ?? -1) - (b.time ?? -1)));
    expect(await store.rates({ chain: 'ethereum', token: 'BNB' })).toEqual([]);
    expect(await store.rates({ chain: CHAIN, token: 'BNB', from: ANCHOR - 3600, to: ANCHOR })).toEqual([rounds[1], rounds[2]]);
    // Joinable by SQL, time as a time.
    expect(await rowsOf(store, `SELECT token, count(*)::INTEGER AS n, min(time) AS first FROM rates WHERE chain = '${CHAIN}' GROUP BY token ORDER BY token`)).toEqual([
      { token: '8PAY', n: 1, first: ANCHOR - 86_400 },
      { token: 'BNB', n: 4, first: ANCHOR - 7200 },
    ]);
    await store.transaction(async () => expect(await store.dropImport('desk.csv')).toBe(3));
    expect((await store.rates({})).filter((r) => r.file !== null)).toEqual([]);
  });

  it('a query only reads: a write is refused (exit 2) and changes nothing, in a writer as in a reader', async () => {
    const before = (await rowsOf(store, 'SELECT count(*) AS n FROM one_time_transfers'))[0].n;
    await expect(store.query('DELETE FROM one_time_transfers')).rejects.toBeInstanceOf(UsageError);
    expect((await rowsOf(store, 'SELECT count(*) AS n FROM one_time_transfers'))[0].n).toBe(before);
    store.close();
    const reader = await engine.open(where, 'read');
    try {
      await expect(reader.query("UPDATE one_time_transfers SET token = 'X'")).rejects.toBeInstanceOf(UsageError);
      await expect(reader.query('SELECT FROM WHERE')).rejects.toBeInstanceOf(UsageError);
      expect((await rowsOf(reader, 'SELECT count(*) AS n FROM one_time_transfers'))[0].n).toBe(before);
    } finally {
      reader.close();
    }
    store = await engine.open(where, 'write');
  });
});
