import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator, RequestLogEntry } from '../../src/emulator/index.js';
import { emulator, payrec, tempDir, until } from './helpers.js';

// How many pages payrec has in flight when no --concurrency is given (DESIGN.md
// "--concurrency"), read from the emulator's request log: each request's arrival and
// answer on the emulator's own clock give the requests in flight at any moment. An
// emulator far away (its latency setting) lets more pages in flight pay; a rate limit
// (its token bucket, 429 with Retry-After beyond) asks for fewer. Nothing here measures
// time: the log's order and overlaps are what payrec did.

const PATH = '/v1/bsc/one-time/transfers';

/** The most of these requests in flight at once at the emulator. */
function mostInFlight(requests: RequestLogEntry[]): number {
  let most = 0;
  for (const q of requests) most = Math.max(most, requests.filter((o) => o.received <= q.received && o.answered > q.received).length);
  return most;
}

/**
 * After each 429 (whose Retry-After is `ms`), the page's next try and the next request on
 * its connection came no sooner. A kept-alive connection carries its next request only
 * once the 429 has been read, so by then payrec knew to wait: with other pages ready to
 * go, a client that held only the page it answered would send one at once.
 */
function expectPauses(requests: RequestLogEntry[], ms: number): void {
  const sameQuery = (a: RequestLogEntry, b: RequestLogEntry) => JSON.stringify(a.query) === JSON.stringify(b.query);
  for (const q of requests.filter((o) => o.status === 429)) {
    const later = requests.filter((o) => o.received > q.received);
    const retry = later.find((o) => sameQuery(o, q));
    expect(retry).toBeDefined();
    expect(retry!.received - q.answered, 'the next try of the page answered 429').toBeGreaterThanOrEqual(ms);
    const next = later.find((o) => o.connection === q.connection);
    if (next) expect(next.received - q.answered, 'the next request on its connection').toBeGreaterThanOrEqual(ms);
  }
}

/** An export of the list to a file: the file's bytes, the run's requests of that list, and its stderr. */
async function exportAll(emu: Emulator, args: string[]) {
  emu.clearLog();
  const file = join(tempDir(), 'x.jsonl');
  const r = await payrec(emu, ['one-time', 'transfers', '--all', '-o', file, ...args]);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return { bytes: readFileSync(file), requests: emu.requests.filter((q) => q.path === PATH) };
}

describe('far from the API (the emulator 100 ms away)', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await emulator({ records: 6000, latencyMs: 100 });
  });
  afterAll(() => emu.close());

  test('the window grows to twice the fixed default of 4 and more, stays within 16, and the file is the one a page at a time gives', async () => {
    const adaptive = await exportAll(emu, ['--page-size', '100']);
    const four = await exportAll(emu, ['--page-size', '100', '--concurrency', '4']);
    const serial = await exportAll(emu, ['--page-size', '100', '--concurrency', '1']);
    expect(adaptive.bytes.equals(serial.bytes)).toBe(true);
    expect(four.bytes.equals(serial.bytes)).toBe(true);
    expect(adaptive.bytes.toString().split('\n')).toHaveLength(6001);
    // Every page asked for once: no page lost or read twice while the window moved.
    for (const run of [adaptive, four, serial]) expect(run.requests.map((q) => Number(q.query.offset)).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i * 100));
    expect(mostInFlight(serial.requests)).toBe(1);
    expect(mostInFlight(four.requests)).toBe(4);
    // From 4, one more for each answer while they come back as fast as the first: twice as many within two round trips.
    expect(mostInFlight(adaptive.requests)).toBeGreaterThanOrEqual(8);
    expect(mostInFlight(adaptive.requests)).toBeLessThanOrEqual(16);
  });

  test('payrec api --all finds the pace as the lists do, and its document holds every record once', async () => {
    emu.clearLog();
    const r = await payrec(emu, ['api', 'one-time/transfers', '--all', '--query', 'limit=100']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout) as { data: { transactionHash: string }[]; total: number };
    const truth = emu.records('bsc', 'one-time/transfers').records;
    expect(doc.total).toBe(truth.length);
    // Every record once (the API's order is its own; the pages' order is the offsets').
    expect(doc.data.map((x) => x.transactionHash).sort()).toEqual(truth.map((x) => x.transactionHash as string).sort());
    const requests = emu.requests.filter((q) => q.path === PATH);
    expect(requests.map((q) => Number(q.query.offset)).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i * 100));
    // A fixed 4 (what api --all used) never has more in flight.
    expect(mostInFlight(requests)).toBeGreaterThanOrEqual(8);
    expect(mostInFlight(requests)).toBeLessThanOrEqual(16);
  });

  test("the library's list finds the pace too, and yields every record once", async () => {
    emu.clearLog();
    const lib = pathToFileURL(resolve(import.meta.dirname, '../../dist/index.js')).href;
    const script = `import { createClient } from ${JSON.stringify(lib)};
const c = createClient({ apiKey: process.env.KEY, baseUrl: process.env.URL });
for await (const r of c.list('one-time.transfers', { pageSize: 100 })) console.log(r.transactionHash);`;
    const r = await execa('node', ['--input-type=module', '-e', script], { env: { KEY: emu.keyFor('bsc'), URL: emu.url }, reject: false });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const hashes = r.stdout.split('\n');
    expect(hashes.sort()).toEqual(emu.records('bsc', 'one-time/transfers').records.map((x) => x.transactionHash as string).sort());
    const requests = emu.requests.filter((q) => q.path === PATH);
    expect(mostInFlight(requests)).toBeGreaterThanOrEqual(8);
    expect(mostInFlight(requests)).toBeLessThanOrEqual(16);
  });
});

describe('a rate-limited API (20 requests a second, 429 with Retry-After beyond)', () => {
  let emu: Emulator;
  let adaptive: Awaited<ReturnType<typeof exportAll>>;
  let fixed: Awaited<ReturnType<typeof exportAll>>;
  beforeAll(async () => {
    emu = await emulator({ records: 3000, latencyMs: 100, rateLimit: 20 });
    // 150 pages at 20 a second: several seconds each, and both meet the limit.
    adaptive = await exportAll(emu, ['--page-size', '20', '--retries', '10']);
    fixed = await exportAll(emu, ['--page-size', '20', '--retries', '10', '--concurrency', '16']);
  });
  afterAll(() => emu.close());

  const tooMany = (run: typeof adaptive) => run.requests.filter((q) => q.status === 429);

  test('both files hold every record once, the same bytes', () => {
    expect(adaptive.bytes.equals(fixed.bytes)).toBe(true);
    const hashes = adaptive.bytes.toString().trim().split('\n').map((l) => (JSON.parse(l) as { transactionHash: string }).transactionHash);
    expect(new Set(hashes).size).toBe(3000);
  });

  test('finding the pace meets no more 429s than 16 at once', () => {
    expect(tooMany(fixed).length).toBeGreaterThan(0);
    expect(tooMany(adaptive).length).toBeGreaterThan(0);
    expect(tooMany(adaptive).length, `429s: ${tooMany(adaptive).length} finding the pace, ${tooMany(fixed).length} with 16 at once`).toBeLessThanOrEqual(tooMany(fixed).length);
  });

  test('after a 429 the window halves: the requests sent as the pause ends are half those in flight when it came, or fewer', () => {
    const limited = tooMany(adaptive);
    const first = limited[0];
    // The answers already on their way met the limit too: the pause ends with the last of their Retry-Afters.
    const pauseEnd = Math.max(...limited.filter((q) => q.answered < first.answered + 1000).map((q) => q.answered + 1000));
    const inFlight = mostInFlight(adaptive.requests.filter((q) => q.received < first.answered));
    // Sent together when the pause ends, they arrive before any of their answers can (the emulator is 100 ms away).
    const resumed = adaptive.requests.filter((q) => q.received >= pauseEnd);
    const firstAnswer = Math.min(...resumed.map((q) => q.answered));
    const burst = resumed.filter((q) => q.received < firstAnswer);
    expect(inFlight).toBeGreaterThanOrEqual(4);
    expect(burst.length).toBeGreaterThan(0);
    expect(burst.length).toBeLessThanOrEqual(Math.ceil(inFlight / 2));
  });

  test("no request waits less than a 429's Retry-After (1 s here): not its page's next try, nor the next request on its connection", () => {
    for (const run of [adaptive, fixed]) expectPauses(run.requests, 1000);
  });
});

// The last three describes, each with emulators of their own and held to no figure another
// run's load could move (fixed windows, pauses no shorter than a Retry-After, files' bytes),
// run at once; the window's growth and halving above are figures of in-flight requests, kept alone.
describe.concurrent('a ceiling set in the config, 100 ms away', () => {
  // An emulator of its own; held to exact figures of fixed windows (3, then 6 in flight), which
  // load cannot move: each window's requests leave together and are answered 100 ms later.
  test('config set concurrency lowers the ceiling; --concurrency still fixes the window', async () => {
    const emu = await emulator({ records: 6000, latencyMs: 100 });
    try {
      const config = tempDir();
      const env = { PAYREC_CONFIG_DIR: config };
      expect((await payrec(emu, ['config', 'set', 'concurrency', '3'], { env })).exitCode).toBe(0);
      emu.clearLog();
      const file = join(tempDir(), 'x.jsonl');
      expect((await payrec(emu, ['one-time', 'transfers', '--all', '--page-size', '100', '-o', file], { env })).exitCode).toBe(0);
      expect(mostInFlight(emu.requests.filter((q) => q.path === PATH))).toBe(3);
      emu.clearLog();
      expect((await payrec(emu, ['one-time', 'transfers', '--all', '--page-size', '100', '--concurrency', '6', '-o', file], { env })).exitCode).toBe(0);
      expect(mostInFlight(emu.requests.filter((q) => q.path === PATH))).toBe(6);
    } finally {
      await emu.close();
    }
  });
});

describe.concurrent('a 429 now and then (one answer in ten, Retry-After 1 s), 20 ms away', () => {
  // With a fixed window, pages after the one answered 429 are ready to go while it waits: only the pause holds them.
  // Each run has an emulator of its own and is held only to lower bounds (pauses no shorter than 1 s): the two run at once.
  test.concurrent.each([[[]], [['--concurrency', '8']]])('%j: holds every request, not only the page it answered, until its Retry-After has passed', async (extra) => {
    const emu = await emulator({ records: 2000, latencyMs: 20, faults: { rate: 0.1, kinds: ['429'], retryAfter: 1, seed: 3 } });
    try {
      const run = await exportAll(emu, ['--page-size', '50', '--retries', '10', ...extra]);
      expect(run.requests.filter((q) => q.status === 429).length).toBeGreaterThan(1);
      expectPauses(run.requests, 1000);
    } finally {
      await emu.close();
    }
  });
});

describe.concurrent('under live traffic, 20 ms away', () => {
  const COLLECTION = 'one-time/transfers';
  let emu: Emulator;
  beforeAll(async () => {
    // Data up to this very second, so late records land among the generated ones.
    emu = await emulator({ records: 5000, latencyMs: 20, now: Math.floor(Date.now() / 1000) });
    emu.records('bsc', COLLECTION);
    emu.live.start({ rate: 100, lateFraction: 0.3, lateMaxSeconds: 600, pendingFraction: 0.4, chains: ['bsc'], collections: [COLLECTION] });
    await until('100 live records', () => emu.live.status().inserted >= 100);
  });
  afterAll(async () => {
    emu.live.stop();
    await emu.close();
  });

  test('the adaptive file holds every record of the window once, and is byte for byte the one a page at a time gives but for the live records (a pending one may settle between the two)', async () => {
    const start = emu.records('bsc', COLLECTION);
    const adaptive = await exportAll(emu, ['--page-size', '100', '--sort', 'asc']);
    const serial = await exportAll(emu, ['--page-size', '100', '--sort', 'asc', '--concurrency', '1']);
    const end = emu.records('bsc', COLLECTION);
    // Live records may still change (a pending one settles): the generated ones never do.
    const live = new Set(end.records.filter((_, i) => end.arrivals[i] > 0).map((r) => r.transactionHash as string));
    // Late records did land inside the window while it was read.
    const newest = Math.max(...start.records.map((r) => r.timestamp as number));
    expect(end.records.filter((r, i) => end.arrivals[i] > start.seq && (r.timestamp as number) <= newest).length).toBeGreaterThan(0);
    const lines = (bytes: Buffer) => bytes.toString().split('\n').filter(Boolean);
    const hashOf = (line: string) => (JSON.parse(line) as { transactionHash: string }).transactionHash;
    const generated = (bytes: Buffer) => lines(bytes).filter((l) => !live.has(hashOf(l)));
    expect(generated(adaptive.bytes)).toHaveLength(5000);
    expect(generated(adaptive.bytes)).toEqual(generated(serial.bytes));
    // Every record of the window at the start once (live ones of before too), and no arrival twice either.
    const hashes = lines(adaptive.bytes).map(hashOf);
    expect(new Set(hashes).size).toBe(hashes.length);
    const printed = new Set(hashes);
    expect(start.records.filter((r) => !printed.has(r.transactionHash as string))).toEqual([]);
  });
});
