import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import type { Emulator, EmulatorOptions, GroundTruth } from '../../src/emulator/index.js';
import { call } from './emulator-helpers.js';
import { startEmulator } from '../../src/emulator/index.js';

// Live mode: records keep arriving (some late, some pending) while clients read. The
// ground truth (GET /_emulator/records, emulator.records()) is what tests of exact paging
// compare against; here it is checked against the API itself, over real HTTP.

// Pending records take up to 5 s to resolve, and settle() waits for them: the tests,
// each with emulators of its own, run at once so those waits overlap, and the emulators
// close when all are done (closing after each test would close the others' under them).

type Rec = Record<string, any>;

const CHAINS = ['bsc', 'ethereum', 'polygon', 'sandbox'];
const GENERATED = [
  'fixed-recurring/billings',
  'fixed-recurring/cancellations',
  'variable-recurring/cancellations',
  'variable-recurring/cancellation-requests',
  'variable-recurring/transfers',
  'on-demand/transfers',
  'one-time/payments',
  'one-time/transfers',
  'wallet-to-wallet/payments',
  'wallet-to-wallet/transfers',
  'scheduled-payments/transfers',
  'dollar-cost-average/executions',
];
const LISTS: Record<string, string> = {
  'one-time/transfers': '/one-time/transfers',
  'wallet-to-wallet/payments': '/wallet-to-wallet/payments',
  'on-demand/transfers': '/on-demand/transfers',
};

const nowSeconds = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const running: Emulator[] = [];
afterAll(async () => {
  await Promise.all(running.splice(0).map((e) => e.close()));
});

/** An emulator whose generated data ends now, so late records land among it. */
async function live(opts: EmulatorOptions = {}): Promise<Emulator> {
  const emu = await startEmulator({ now: nowSeconds(), records: 200, ...opts });
  running.push(emu);
  return emu;
}

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !ok(); await sleep(10)) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
}

async function control(emu: Emulator, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  // Adding records takes the chain's demo key.
  const chain = method === 'POST' && path === '/records' ? (body as { chain?: string }).chain : undefined;
  const res = await fetch(`${emu.url}/_emulator${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(chain ? { authorization: `Bearer ${emu.keyFor(chain)}` } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Every record of a list through the API, page by page (100 a page), in `sort` order. */
async function apiAll(emu: Emulator, chain: string, path: string, sort: 'asc' | 'desc', window = ''): Promise<Rec[]> {
  const out: Rec[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await call(emu, `/v1/${chain}${path}?sort=${sort}&limit=100&offset=${offset}${window}`, { chain });
    expect(page.status).toBe(200);
    out.push(...page.body.data);
    if (offset + 100 >= page.body.total) return out;
  }
}

/** (timestamp, arrival) never decreases; among live records (arrival > 0) it strictly increases. */
function expectStoreOrder(gt: GroundTruth): void {
  const misplaced = gt.records.findIndex((r, i) => {
    if (i === 0) return false;
    const [t0, t1] = [gt.records[i - 1].timestamp as number, r.timestamp as number];
    return t1 < t0 || (t1 === t0 && gt.arrivals[i] > 0 && gt.arrivals[i] <= gt.arrivals[i - 1]);
  });
  expect(misplaced, `first record out of (timestamp, arrival) order in ${gt.collection}`).toBe(-1);
}

/** A record's status: its own, or its receivers' (wallet-to-wallet payments). */
const statusesOf = (r: Rec): string[] => (r.transactionStatus !== undefined ? [r.transactionStatus] : r.receivers.map((x: Rec) => x.transactionStatus));

/** Every live record of an emulator, in arrival order, with where it went. */
function liveRecords(emu: Emulator, chains = CHAINS, collections = GENERATED): { arrival: number; chain: string; collection: string; record: Rec }[] {
  const out = [];
  for (const chain of chains) {
    for (const collection of collections) {
      const gt = emu.records(chain, collection);
      for (let i = 0; i < gt.records.length; i++) if (gt.arrivals[i] > 0) out.push({ arrival: gt.arrivals[i], chain, collection, record: gt.records[i] });
    }
  }
  return out.sort((a, b) => a.arrival - b.arrival);
}

describe.concurrent('live traffic', () => {
  it('keeps the ground truth in (timestamp, arrival) order under traffic; at a quiet moment the API serves exactly it, asc and desc', async () => {
    const collections = Object.keys(LISTS);
    const emu = await live({ live: { rate: 500, chains: ['bsc'], collections, lateFraction: 0.5, lateMaxSeconds: 120, pendingFraction: 0.3 } });
    for (let i = 0; i < 5; i++) {
      await sleep(80);
      for (const collection of collections) expectStoreOrder(emu.records('bsc', collection));
    }
    emu.live.stop();
    await emu.live.settle();
    expect(emu.live.status()).toMatchObject({ running: false, pending: 0 });

    for (const collection of collections) {
      const gt = emu.records('bsc', collection);
      expectStoreOrder(gt);
      const added = gt.arrivals.filter((a) => a > 0).length;
      expect(added, collection).toBeGreaterThan(20);
      expect(gt.records.length).toBe(200 + added);
      // Late records really landed in the middle: some live record precedes one that arrived before it.
      expect(gt.arrivals.some((a, i) => a > 0 && gt.arrivals.slice(i + 1).some((b) => b > 0 && b < a))).toBe(true);
      expect(await apiAll(emu, 'bsc', LISTS[collection], 'asc')).toEqual(gt.records);
      expect(await apiAll(emu, 'bsc', LISTS[collection], 'desc')).toEqual([...gt.records].reverse());
    }
    const statuses = liveRecords(emu, ['bsc'], collections).flatMap((l) => statusesOf(l.record));
    expect(new Set(statuses)).toEqual(new Set(['confirmed', 'failed']));
  });

  it('shifts offsets: after late inserts the record at a fixed offset is another one', async () => {
    const emu = await live({ live: { rate: 300, chains: ['bsc'], collections: ['one-time/transfers'], lateFraction: 1, lateMaxSeconds: 30, pendingFraction: 0 } });
    await until('some records', () => emu.live.status().inserted >= 30);
    emu.live.stop();
    const before = emu.records('bsc', 'one-time/transfers');
    const offset = before.records.length - 1;
    const first = await call(emu, `/v1/bsc/one-time/transfers?sort=asc&limit=1&offset=${offset}`);
    expect(first.body.data).toEqual([before.records[offset]]);

    emu.live.start({ rate: 300, chains: ['bsc'], collections: ['one-time/transfers'], lateFraction: 1, lateMaxSeconds: 30, pendingFraction: 0 });
    await until('more records', () => emu.live.status().seq >= before.seq + 30);
    emu.live.stop();
    const after = emu.records('bsc', 'one-time/transfers');
    const moved = after.arrivals.indexOf(before.arrivals[offset]);
    // Records that arrived later but are stamped earlier went in before it.
    expect(moved).toBeGreaterThan(offset);
    expect(after.arrivals.slice(0, moved).filter((a) => a > before.seq).length).toBe(moved - offset);
    const second = await call(emu, `/v1/bsc/one-time/transfers?sort=asc&limit=1&offset=${offset}`);
    expect(second.body.data).toEqual([after.records[offset]]);
    expect(second.body.data[0]).not.toEqual(first.body.data[0]);
    expect((await call(emu, `/v1/bsc/one-time/transfers?sort=asc&limit=1&offset=${moved}`)).body.data).toEqual([before.records[offset]]);
    // With no pending share, every live record is confirmed from the start.
    expect(new Set(after.records.filter((_, i) => after.arrivals[i] > 0).map((r) => r.transactionStatus))).toEqual(new Set(['confirmed']));
  });

  it('resolves every pending record to confirmed or failed, in place', async () => {
    const emu = await live({ records: 20, live: { rate: 400, chains: ['bsc'], pendingFraction: 0.5 } });
    await until('200 records', () => emu.live.status().inserted >= 200);
    emu.live.stop();
    expect(emu.live.status().pending).toBeGreaterThan(0);
    const early = liveRecords(emu, ['bsc']);
    const pendingEarly = early.filter((l) => statusesOf(l.record).includes('pending'));
    expect(pendingEarly.length).toBeGreaterThan(0);
    // A wallet-to-wallet payment has no status of its own: all its receivers move together.
    for (const l of early) expect(new Set(statusesOf(l.record)).size).toBe(1);

    await emu.live.settle();
    expect(emu.live.status().pending).toBe(0);
    const settled = liveRecords(emu, ['bsc']);
    expect(settled.map((l) => l.arrival)).toEqual(early.map((l) => l.arrival));
    for (const l of settled) expect(['confirmed', 'failed']).toContain(statusesOf(l.record)[0]);
    const wasPending = new Set(pendingEarly.map((l) => l.arrival));
    const resolved = settled.filter((l) => wasPending.has(l.arrival)).map((l) => statusesOf(l.record)[0]);
    expect(new Set(resolved)).toEqual(new Set(['confirmed', 'failed']));
    // Only the status changed, in place: same records, same order.
    const strip = (r: Rec) => JSON.stringify(r).replace(/"transactionStatus":"\w+"/g, '');
    expect(settled.map((l) => strip(l.record))).toEqual(early.map((l) => strip(l.record)));
  });

  it('lookups by id see a new payment at once, also on a chain no request has touched yet', async () => {
    const emu = await live({ live: { rate: 200, chains: ['bsc', 'polygon'], collections: ['one-time/payments', 'wallet-to-wallet/payments'], pendingFraction: 0 } });
    await until('payments of each kind on each chain', () => emu.live.status().inserted >= 60);
    emu.live.stop();
    for (const chain of ['polygon', 'bsc']) {
      for (const [collection, path] of [['one-time/payments', '/one-time'], ['wallet-to-wallet/payments', '/wallet-to-wallet/payments']]) {
        const gt = emu.records(chain, collection);
        const newest = gt.arrivals.indexOf(Math.max(...gt.arrivals));
        expect(gt.arrivals[newest], `${chain} ${collection}`).toBeGreaterThan(0);
        const got = await call(emu, `/v1/${chain}${path}/${gt.records[newest].id}`, { chain });
        expect(got.status).toBe(200);
        expect(got.body).toEqual(gt.records[newest]);
      }
    }
    // Right after a single insert, with nothing else going on.
    emu.live.start({ rate: 1000, chains: ['sandbox'], collections: ['one-time/payments'], pendingFraction: 0 });
    const seq = emu.live.status().seq;
    await until('one more payment', () => emu.live.status().seq > seq, 5000);
    emu.live.stop();
    const gt = emu.records('sandbox', 'one-time/payments');
    const fresh = gt.records.filter((_, i) => gt.arrivals[i] > seq);
    expect(fresh.length).toBeGreaterThan(0);
    for (const r of fresh) expect((await call(emu, `/v1/sandbox/one-time/${r.id}`, { chain: 'sandbox' })).body).toEqual(r);
  });

  it('is deterministic: the same seed and options insert the same records, pending or not, late by as much, with the same final status', async () => {
    // Every collection but fixed-recurring's: a live billing or cancellation joins a
    // subscription chosen by the subscriptions' states at its timestamp (billed before
    // it, not cancelled), so two emulators agree there only while their clocks agree to
    // the second, which a loaded machine does not keep. Those are checked below, at
    // timestamps given.
    const collections = GENERATED.filter((c) => !c.startsWith('fixed-recurring/'));
    const options = { rate: 300, lateFraction: 0.5, lateMaxSeconds: 600, pendingFraction: 0.5, collections };
    const [a, b, other] = await Promise.all([live({ seed: 7, records: 10, live: options }), live({ seed: 7, records: 10, live: options }), live({ seed: 8, records: 10, live: options })]);
    await until('150 records each', () => [a, b, other].every((e) => e.live.status().inserted >= 150));
    for (const e of [a, b, other]) e.live.stop();
    await Promise.all([a.live.settle(), b.live.settle(), other.live.settle()]);

    const [la, lb, lo] = [liveRecords(a, CHAINS, collections), liveRecords(b, CHAINS, collections), liveRecords(other, CHAINS, collections)];
    const n = Math.min(la.length, lb.length, lo.length);
    expect(n).toBeGreaterThanOrEqual(150);
    /** The record with its times given relative to its own timestamp: what the seed decides. */
    const shape = (l: (typeof la)[number]) =>
      JSON.stringify({ ...l, record: JSON.parse(JSON.stringify(l.record), (k, v) => (['timestamp', 'cycleStart', 'cycleEnd'].includes(k) && typeof v === 'number' ? v - l.record.timestamp : v)) });
    expect(la.slice(0, n).map(shape)).toEqual(lb.slice(0, n).map(shape));
    // Both ran side by side: the same lateness gives timestamps at most a second or two apart (late ones differ by up to 600 s otherwise).
    for (let i = 0; i < n; i++) expect(Math.abs(la[i].record.timestamp - lb[i].record.timestamp)).toBeLessThanOrEqual(2);
    expect(lo.slice(0, n).map(shape)).not.toEqual(la.slice(0, n).map(shape));
  });

  it('is deterministic for fixed-recurring records at the same timestamps: the same subscriptions billed, reactivated and cancelled', async () => {
    const now = nowSeconds();
    const [a, b] = await Promise.all([live({ seed: 7, records: 40, now }), live({ seed: 7, records: 40, now })]);
    // Billings and cancellations one after another over the next hours, as live traffic adds them.
    for (let i = 0; i < 120; i++) {
      const body = { chain: 'bsc', collection: i % 3 === 2 ? 'fixed-recurring/cancellations' : 'fixed-recurring/billings', timestamp: now - 3600 + 30 * i };
      for (const e of [a, b]) expect((await control(e, 'POST', '/records', body)).status).toBe(201);
    }
    for (const collection of ['fixed-recurring/billings', 'fixed-recurring/cancellations']) {
      const [ra, rb] = [a.records('bsc', collection).records, b.records('bsc', collection).records];
      expect(ra.length).toBeGreaterThan(40);
      expect(ra).toEqual(rb);
    }
  });

  it('is started, reconfigured and stopped through its control route, with a ground truth route that equals the in-process one', async () => {
    const emu = await live({ records: 10 });
    expect((await control(emu, 'GET', '/live')).body).toMatchObject({ running: false, inserted: 0, pending: 0, seq: 0 });

    const started = await control(emu, 'POST', '/live', { rate: 200, chains: ['sandbox'], collections: ['one-time/transfers'] });
    expect(started).toEqual({
      status: 200,
      body: {
        running: true, rate: 200, lateFraction: 0.2, lateMaxSeconds: 600, pendingFraction: 0.3, removeFraction: 0, moveFraction: 0,
        chains: ['sandbox'], collections: ['one-time/transfers'], inserted: 0, pending: 0, removed: 0, moved: 0, seq: 0,
      },
    });
    await until('records', () => emu.live.status().inserted >= 20);

    const reconfigured = await control(emu, 'POST', '/live', { rate: 300, chains: ['sandbox', 'bsc'], collections: ['on-demand/transfers'], lateFraction: 0, pendingFraction: 1, lateMaxSeconds: 60 });
    expect(reconfigured.body).toMatchObject({ running: true, rate: 300, chains: ['sandbox', 'bsc'], collections: ['on-demand/transfers'], lateFraction: 0, pendingFraction: 1, lateMaxSeconds: 60 });
    const switchedAt = reconfigured.body.seq as number;
    await until('records after the switch', () => emu.live.status().seq >= switchedAt + 20);

    const stopped = await control(emu, 'DELETE', '/live');
    expect(stopped.body.running).toBe(false);
    await emu.live.settle();
    const inserted = emu.live.status().inserted;
    await sleep(100);
    expect(emu.live.status().inserted).toBe(inserted);

    // Nothing went to one-time/transfers after the switch; everything after it arrived pending and now resolved.
    const ot = emu.records('sandbox', 'one-time/transfers');
    expect(ot.arrivals.filter((a) => a > 0).length).toBeGreaterThan(0);
    expect(ot.arrivals.filter((a) => a > switchedAt)).toEqual([]);
    const od = liveRecords(emu, ['sandbox', 'bsc'], ['on-demand/transfers']);
    expect(od.length).toBe(emu.live.status().seq - switchedAt);
    expect(new Set(od.map((l) => l.chain))).toEqual(new Set(['sandbox', 'bsc']));

    for (const [chain, collection] of [['sandbox', 'one-time/transfers'], ['bsc', 'on-demand/transfers'], ['bsc', 'fixed-recurring/short-urls']]) {
      const route = await control(emu, 'GET', `/records?chain=${chain}&collection=${encodeURIComponent(collection)}`);
      expect(route).toEqual({ status: 200, body: emu.records(chain, collection) });
    }
    expect((await control(emu, 'GET', '/records?chain=bsc')).status).toBe(400);
    expect((await control(emu, 'GET', '/records?collection=one-time/transfers')).body.error.message).toMatch(/Missing chain/);
    expect((await control(emu, 'GET', '/records?chain=mars&collection=one-time/transfers')).status).toBe(404);
    expect((await control(emu, 'GET', '/records?chain=bsc&collection=one-time/nope')).body.error).toMatchObject({ code: 404, message: expect.stringContaining('one-time/nope') });
    expect(() => emu.records('bsc', 'one-time/nope')).toThrow(RangeError);
    // Control routes are never logged.
    expect(emu.requests).toEqual([]);
  });

  it.each([
    [{}, /^Invalid rate: expected records per second/],
    [{ rate: 0 }, /^Invalid rate/],
    [{ rate: -5 }, /^Invalid rate/],
    [{ rate: 'fast' }, /^Invalid rate/],
    [{ rate: 100_001 }, /^Invalid rate: .*at most 100000/],
    [{ rate: 10, lateFraction: 1.5 }, /^Invalid lateFraction: expected a number from 0 to 1/],
    [{ rate: 10, lateFraction: '0.2' }, /^Invalid lateFraction/],
    [{ rate: 10, pendingFraction: -0.1 }, /^Invalid pendingFraction/],
    [{ rate: 10, lateMaxSeconds: 0 }, /^Invalid lateMaxSeconds: expected whole seconds from 1/],
    [{ rate: 10, lateMaxSeconds: 1.5 }, /^Invalid lateMaxSeconds/],
    [{ rate: 10, chains: ['mars'] }, /^Invalid chains: unknown chain "mars"; expected a non-empty array of bsc, ethereum, polygon, sandbox/],
    [{ rate: 10, chains: [] }, /^Invalid chains/],
    [{ rate: 10, chains: 'bsc' }, /^Invalid chains/],
    [{ rate: 10, collections: ['one-time/nope'] }, /^Invalid collections: unknown collection "one-time\/nope"/],
    [{ rate: 10, collections: ['fixed-recurring/short-urls'] }, /^Invalid collections: unknown collection "fixed-recurring\/short-urls"/],
    [{ rate: 10, lateMax: 60 }, /^Unknown field lateMax: expected some of rate, lateFraction, lateMaxSeconds/],
    ['[1,2]', /expected a JSON object/],
    ['{not json', /expected JSON/],
  ])('a bad body %j answers 400 naming the field, and starts nothing', async (body, message) => {
    const emu = await live({ records: 10 });
    const res = await control(emu, 'POST', '/live', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 400, message: expect.stringMatching(message) });
    expect(emu.live.status().running).toBe(false);
    if (typeof body !== 'string') expect(() => emu.live.start(body as never)).toThrow(RangeError);
  });

  it('refuses bad options at start, before anything listens', async () => {
    await expect(startEmulator({ live: { rate: 0 } })).rejects.toThrow(/Invalid rate/);
  });

  it('builds no store for traffic: a chain no one has read gets its backlog when first read, and agrees with the ground truth', async () => {
    // A store of 30,000 records takes the better part of a second to build here: had the
    // traffic built the stores it touched (48 of them), the event loop would stall for long.
    const delay = monitorEventLoopDelay({ resolution: 10 });
    const emu = await live({ records: 30_000, live: { rate: 500, lateFraction: 0.5, lateMaxSeconds: 60, pendingFraction: 0.5 } });
    delay.enable();
    await until('400 records', () => emu.live.status().inserted >= 400);
    delay.disable();
    expect(delay.max / 1e6).toBeLessThan(1000);
    emu.live.stop();
    await emu.live.settle();

    // First read of polygon: the API builds the store and applies the backlog, statuses as they are now.
    const from = nowSeconds() - 120;
    const served = await apiAll(emu, 'polygon', '/one-time/transfers', 'asc', `&from=${from}`);
    const gt = emu.records('polygon', 'one-time/transfers');
    expect(served.length).toBeGreaterThan(0);
    expect(served).toEqual(gt.records.filter((r) => (r.timestamp as number) >= from));
    expect(gt.records.length).toBe(30_000 + gt.arrivals.filter((a) => a > 0).length);
    expectStoreOrder(gt);
    const statuses = gt.records.filter((_, i) => gt.arrivals[i] > 0).map((r) => r.transactionStatus);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 'confirmed' && s !== 'failed')).toEqual([]);
  });

  it('logs the counter with each request: a list answered at seq N holds exactly the records that arrived by then', async () => {
    const emu = await live({ records: 100, live: { rate: 400, chains: ['bsc'], collections: ['one-time/transfers'], lateFraction: 0.5, lateMaxSeconds: 60, pendingFraction: 0 } });
    const from = nowSeconds() - 3600;
    const to = nowSeconds() + 3600;
    const answers: { before: number; after: number; data: Rec[] }[] = [];
    for (let i = 0; i < 6; i++) {
      await sleep(40);
      const before = Date.now();
      const page = await call(emu, `/v1/bsc/one-time/transfers?sort=asc&limit=1000&from=${from}&to=${to}`);
      answers.push({ before, after: Date.now(), data: page.body.data });
    }
    emu.live.stop();
    const added = await control(emu, 'POST', '/records', { chain: 'bsc', collection: 'one-time/transfers', count: 3 });
    expect(added.status).toBe(201);

    const gt = emu.records('bsc', 'one-time/transfers');
    expect(gt.seq).toBe(emu.live.status().seq);
    expect(gt.arrivals.filter((a) => a > gt.seq - 3)).toEqual([gt.seq - 2, gt.seq - 1, gt.seq]);
    const log = emu.requests;
    expect(log).toHaveLength(answers.length);
    for (let i = 0; i < log.length; i++) {
      expect(log[i].at).toBeGreaterThanOrEqual(answers[i].before);
      expect(log[i].at).toBeLessThanOrEqual(answers[i].after);
      if (i > 0) expect(log[i].seq).toBeGreaterThan(log[i - 1].seq);
      const visible = gt.records.filter((r, k) => gt.arrivals[k] <= log[i].seq && (r.timestamp as number) >= from && (r.timestamp as number) <= to);
      expect(answers[i].data).toEqual(visible);
    }
  });
});
