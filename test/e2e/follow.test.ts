import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec, until } from './helpers.js';

// --follow: records added to the emulator while payrec polls (POST /_emulator/records)
// are printed once each, however many polls see them; Ctrl-C (SIGINT) ends it with 130
// and, in json, a closed document. Each test has its own emulator: the request log and
// the records added are its own, so the tests run at once (their polls and the traffic's
// settling are waits).

const NO_STACK = /\n\s+at /;

async function append(emu: Emulator, collection: string, count: number): Promise<void> {
  const res = await fetch(`${emu.url}/_emulator/records`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${emu.keyFor('bsc')}` },
    body: JSON.stringify({ chain: 'bsc', collection, count }),
  });
  expect(res.status).toBe(201);
}

/** What the API itself holds from `from` on (the emulator's own answer, for comparison). */
async function apiSince(emu: Emulator, path: string, from: number, query = ''): Promise<Record<string, any>[]> {
  const res = await fetch(`${emu.url}/v1/bsc${path}?from=${from}&limit=1000${query}`, { headers: { authorization: `Bearer ${emu.keyFor('bsc')}` } });
  return ((await res.json()) as { data: Record<string, any>[] }).data;
}

/** Starts `payrec … --follow --interval 0.2`, collecting stdout as it comes. */
function follow(emu: Emulator, args: string[]) {
  const child = payrec(emu, [...args, '--follow', '--interval', '0.2']);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  const polls = (path: string) => emu.requests.filter((q) => q.path === `/v1/bsc${path}`).length;
  return { child, out: () => out, lines: () => out.split('\n').filter(Boolean), polls };
}

describe.concurrent('--follow', () => {
  test('transfers in jsonl: each added record exactly once across many polls; SIGINT exits 130', async () => {
    const emu = await emulator();
    const start = Math.floor(Date.now() / 1000);
    const f = follow(emu, ['one-time', 'transfers', '-f', 'jsonl']);
    const path = '/one-time/transfers';
    await until('the first poll', () => f.polls(path) >= 1);
    expect(f.out()).toBe(''); // history is not replayed: only what is new

    await append(emu, 'one-time/transfers', 3);
    await until('3 records', () => f.lines().length >= 3);
    await append(emu, 'one-time/transfers', 2);
    await until('5 records', () => f.lines().length >= 5);
    // More polls over the same window must not print anything again.
    const seen = f.polls(path);
    await until('3 more polls', () => f.polls(path) >= seen + 3);

    f.child.kill('SIGINT');
    const r = await f.child;
    expect(r.exitCode).toBe(130);
    expect(r.stderr).toMatch(/^interrupted$/m);
    expect(r.stderr).not.toMatch(NO_STACK);
    // Every poll asked for oldest-first records, looking back the default 10 minutes for
    // late ones: the first from its own end, each later one from the end of the one before.
    // (Bounds from payrec's own requests: the test's clock says nothing of when payrec's
    // first poll began, seconds after the spawn on a loaded machine.)
    const asked = emu.requests.filter((q) => q.path === `/v1/bsc${path}`);
    expect(asked.length).toBeGreaterThan(5);
    expect(asked.every((q) => q.query.sort === 'asc')).toBe(true);
    expect(Number(asked[0].query.to) - Number(asked[0].query.from)).toBe(600);
    for (let i = 1; i < asked.length; i++) expect(Number(asked[i].query.from), `poll ${i}`).toBe(Number(asked[i - 1].query.to) - 600);
    expect(Number(asked[0].query.to)).toBeGreaterThanOrEqual(start);

    const printed = f.lines().map((l) => JSON.parse(l));
    const added = await apiSince(emu, path, start);
    expect(added).toHaveLength(5);
    expect(printed).toHaveLength(5);
    expect(new Set(printed.map((t) => t.transactionHash)).size).toBe(5);
    expect(printed.map((t) => t.transactionHash).sort()).toEqual(added.map((t) => t.transactionHash).sort());
    // Oldest first, as they happened.
    expect(printed.map((t) => t.timestamp)).toEqual([...printed.map((t) => t.timestamp)].sort((a, b) => a - b));
    await emu.close();
  });

  test('-f json: SIGINT closes the document, which parses and holds each record once', async () => {
    const emu = await emulator();
    const f = follow(emu, ['scheduled-payments', 'transfers', '-f', 'json']);
    await until('the first poll', () => f.polls('/scheduled-payments/transfers') >= 1);
    await append(emu, 'scheduled-payments/transfers', 4);
    await until('4 records', () => (f.out().match(/"transactionHash"/g) ?? []).length >= 4);
    f.child.kill('SIGINT');
    const r = await f.child;
    expect(r.exitCode).toBe(130);
    const doc = JSON.parse(r.stdout) as Record<string, any>[];
    expect(doc).toHaveLength(4);
    expect(new Set(doc.map((t) => t.transactionHash)).size).toBe(4);
    await emu.close();
  });

  test('-f json with nothing new: an empty array, exit 130', async () => {
    const emu = await emulator();
    const f = follow(emu, ['one-time', 'transfers', '-f', 'json']);
    await until('two polls', () => f.polls('/one-time/transfers') >= 2);
    f.child.kill('SIGINT');
    const r = await f.child;
    expect(r.exitCode).toBe(130);
    expect(JSON.parse(r.stdout)).toEqual([]);
    await emu.close();
  });

  test.concurrent.each([
    ['billings of a plan', 'fixed-recurring/billings', ['fixed-recurring', 'billings', '--plan-id'], '/fixed-recurring/plans/:plan/billings'],
    ['one-time payments', 'one-time/payments', ['one-time', 'payments', 'list'], '/one-time'],
    ['dollar-cost-average executions', 'dollar-cost-average/executions', ['dollar-cost-average', 'executions'], '/dollar-cost-average/executions'],
  ])('%s: the new records that match, once each', async (_name, collection, command, apiPath) => {
    const emu = await emulator();
    const plan = emu.fixtures('bsc').plans['fixed-recurring'][0];
    const args = command.at(-1) === '--plan-id' ? [...command, plan] : command;
    const path = apiPath.replace(':plan', plan);
    const start = Math.floor(Date.now() / 1000);
    const f = follow(emu, [...args, '-f', 'jsonl']);
    await until('the first poll', () => f.polls(path) >= 1);
    // Enough that some belong to the followed plan (generated records pick plans at random).
    await append(emu, collection, 40);
    const added = await apiSince(emu, path, start);
    expect(added.length).toBeGreaterThan(0);
    await until(`${added.length} records`, () => f.lines().length >= added.length);
    const seen = f.polls(path);
    await until('2 more polls', () => f.polls(path) >= seen + 2);
    f.child.kill('SIGINT');
    const r = await f.child;
    expect(r.exitCode).toBe(130);
    const printed = f.lines().map((l) => JSON.parse(l));
    const key = (x: Record<string, any>) => x.id ?? x.transactionHash;
    expect(printed.map(key).sort()).toEqual(added.map(key).sort());
    await emu.close();
  });

  test('under live traffic with a slow first poll: records stamped from the start that the first poll sees are printed', async () => {
    // Data up to now, traffic arriving, every answer 400 ms late: the first poll runs
    // while records keep coming. Before payrec starts, the test also stamps records for
    // the next few seconds (as a chain indexer can), so some are surely stamped in the
    // very second the first poll reads up to, and seen by it.
    const now = Math.floor(Date.now() / 1000);
    const emu = await emulator({ records: 1000, now, faults: { rate: 1, kinds: ['slow'], slowMs: 400, seed: 1 } });
    const collection = 'one-time/transfers';
    const path = '/one-time/transfers';
    try {
      emu.live.start({ rate: 50, lateFraction: 0.2, lateMaxSeconds: 60, pendingFraction: 0, chains: ['bsc'], collections: [collection] });
      for (let s = 0; s < 4; s++) {
        const res = await fetch(`${emu.url}/_emulator/records`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${emu.keyFor('bsc')}` }, body: JSON.stringify({ chain: 'bsc', collection, count: 5, timestamp: now + 1 + s }) });
        expect(res.status).toBe(201);
      }
      const spawned = Math.floor(Date.now() / 1000);
      const f = follow(emu, ['one-time', 'transfers', '-f', 'jsonl']);
      await until('the first poll', () => f.polls(path) >= 1);
      await new Promise((r) => setTimeout(r, 3000));
      emu.live.stop();
      await emu.live.settle();
      const stopped = f.polls(path);
      await until('two more polls', () => f.polls(path) >= stopped + 2);
      f.child.kill('SIGINT');
      const r = await f.child;
      expect(r.exitCode).toBe(130);

      // The ground truth: the emulator's complete records, and what its first answer saw
      // (its `seq`). The command started between the spawn and the first poll's second
      // (the poll's `from` plus the 10-minute lookback).
      const asked = emu.requests.filter((q) => q.path === `/v1/bsc${path}`);
      const first = asked[0];
      const pollStarted = Number(first.query.from) + 600;
      // Records stamped after the `to` of the last poll payrec received (the test stamps
      // some seconds ahead), or arriving after it, were not yet due. The last request's
      // answer may still have been on its way (400 ms late) at SIGINT: the one before it
      // was received, since a poll (one page here) starts only after the previous printed.
      const received = asked.slice(0, -1);
      const lastTo = Math.max(...received.map((q) => Number(q.query.to)));
      const lastSeq = received.at(-1)!.seq;
      const truth = emu.records('bsc', collection);
      const records = truth.records as Record<string, any>[];
      const sawFirst = (i: number) => truth.arrivals[i] <= first.seq;
      const due = (t: Record<string, any>, i: number) => t.timestamp <= lastTo && truth.arrivals[i] <= lastSeq;
      const must = records.filter((t, i) => due(t, i) && (!sawFirst(i) || t.timestamp >= pollStarted)).map((t) => t.transactionHash);
      const either = new Set(records.filter((t, i) => sawFirst(i) && t.timestamp >= spawned && t.timestamp < pollStarted).map((t) => t.transactionHash));
      // The case at issue did happen: the first poll saw records stamped in its own second.
      const seenAtStart = records.filter((t, i) => sawFirst(i) && t.timestamp === pollStarted);
      expect(seenAtStart.length).toBeGreaterThan(0);

      const hashes = f.lines().map((l) => JSON.parse(l).transactionHash as string);
      expect(hashes.length).toBe(new Set(hashes).size);
      const got = new Set(hashes);
      const missing = must.filter((h) => !got.has(h));
      expect(missing).toEqual([]);
      const undue = new Set(records.filter((t, i) => !due(t, i)).map((t) => t.transactionHash));
      expect(hashes.filter((h) => !must.includes(h) && !either.has(h) && !undue.has(h))).toEqual([]);
      expect(must.length).toBeGreaterThan(50);
    } finally {
      emu.live.stop();
      await emu.close();
    }
  });

  test.concurrent.each([
    ['--all', ['--all'], /--follow .*does not take --all/],
    ['--to', ['--to', '1d'], /--follow .*--to/],
    ['a zero interval', ['--interval', '0'], /invalid --interval "0"/],
    ['a word for an interval', ['--interval', 'often'], /invalid --interval "often"/],
  ])('--follow with %s is exit 2 before anything is sent', async (_name, extra, message) => {
    const emu = await emulator();
    const r = await payrec(emu, ['one-time', 'transfers', '--follow', ...extra]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(emu.requests).toEqual([]);
    await emu.close();
  });

  test('--failed under live traffic: every transfer that failed after the start is printed once, as it turned failed, and nothing else', async () => {
    // Live records arrive pending or confirmed; pending ones turn confirmed or failed 1-5 s
    // later. The filter keeps a pending record out until it has failed: it must not be
    // remembered as seen while pending, or its failure would never be printed.
    const emu = await emulator({ records: 300 });
    const collection = 'one-time/transfers';
    const path = '/one-time/transfers';
    try {
      const spawned = Math.floor(Date.now() / 1000);
      const f = follow(emu, ['one-time', 'transfers', '--failed', '-f', 'jsonl']);
      await until('the first poll', () => f.polls(path) >= 1);
      const firstSeq = emu.requests.find((q) => q.path === `/v1/bsc${path}`)!.seq;
      emu.live.start({ rate: 60, lateFraction: 0, lateMaxSeconds: 60, pendingFraction: 0.6, chains: ['bsc'], collections: [collection] });
      await new Promise((r) => setTimeout(r, 4000));
      emu.live.stop();
      await emu.live.settle();
      const settled = f.polls(path);
      await until('two polls after the last failure', () => f.polls(path) >= settled + 2);
      f.child.kill('SIGINT');
      const r = await f.child;
      expect(r.exitCode).toBe(130);

      const truth = emu.records('bsc', collection);
      const records = truth.records as Record<string, any>[];
      const liveFailed = records.filter((t, i) => truth.arrivals[i] > firstSeq && t.transactionStatus === 'failed').map((t) => t.transactionHash);
      expect(liveFailed.length).toBeGreaterThan(5);
      const printed = f.lines().map((l) => JSON.parse(l) as Record<string, any>);
      expect(printed.every((t) => t.transactionStatus === 'failed')).toBe(true);
      const hashes = printed.map((t) => t.transactionHash as string);
      expect(hashes.length).toBe(new Set(hashes).size);
      expect(liveFailed.filter((h) => !hashes.includes(h))).toEqual([]);
      // Anything else printed is a failed record of the start's own second (printed by design, see follow.ts).
      const others = printed.filter((t) => !liveFailed.includes(t.transactionHash));
      expect(others.every((t) => t.timestamp >= spawned)).toBe(true);
    } finally {
      emu.live.stop();
      await emu.close();
    }
  });

  test('--interval without --follow is exit 2', async () => {
    const emu = await emulator();
    const r = await payrec(emu, ['one-time', 'transfers', '--interval', '5']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--interval goes with --follow/);
    expect(emu.requests).toEqual([]);
    await emu.close();
  });
});

describe.concurrent('--follow at the edge of the lookback', () => {
  // A service written here, whose records arrive late, each stamped exactly at the lower
  // edge of the lookback of the poll that first sees it: with the window of poll k ending
  // at P (its `to`), a record stamped P - lookback. The next poll's window begins at that
  // very second (P - lookback, inclusive), so it sees the record again: payrec must still
  // remember it then. A memory that forgets one second too early prints it twice.
  const LOOKBACK = 30;
  const stored = new Map<number, Record<string, unknown>>();
  const hash = (ts: number) => '0x' + ts.toString(16).padStart(64, '0');
  const transfer = (ts: number) => ({
    description: 'late', amount: '1', fee: '0', token: 'USDT', category: 'c', timestamp: ts,
    transactionHash: hash(ts), transactionStatus: 'confirmed', sender: '0x' + 'a'.repeat(40), receiver: '0x' + 'b'.repeat(40), oneTimeId: hash(1),
  });
  const windows: [number, number][] = [];
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const from = Number(u.searchParams.get('from') ?? 0);
    const to = Number(u.searchParams.get('to') ?? 9_999_999_999);
    const offset = Number(u.searchParams.get('offset') ?? 0);
    const limit = Number(u.searchParams.get('limit') ?? 100);
    if (offset === 0) {
      windows.push([from, to]);
      // A late record of this poll, stamped at its lookback's edge (once per second of `to`).
      if (!stored.has(to - LOOKBACK)) stored.set(to - LOOKBACK, transfer(to - LOOKBACK));
    }
    const asc = u.searchParams.get('sort') === 'asc';
    const matching = [...stored.values()].filter((r) => (r.timestamp as number) >= from && (r.timestamp as number) <= to).sort((a, b) => ((a.timestamp as number) - (b.timestamp as number)) * (asc ? 1 : -1));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: matching.slice(offset, offset + limit), limit, offset, total: matching.length }));
  });

  test('records stamped exactly at the edge, over many polls: each printed once, none from before the start', async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const env = { PAYREC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, PAYREC_API_KEY: 'k'.repeat(32) };
      const child = payrec(undefined, ['one-time', 'transfers', '-f', 'jsonl', '--follow', '--interval', '1', '--lookback', `${LOOKBACK}s`], { env });
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
      // Five polls a second apart: each a new `to`, so each makes a new record at its edge.
      await until('five polls', () => new Set(windows.map(([, to]) => to)).size >= 5);
      child.kill('SIGINT');
      const r = await child;
      expect(r.exitCode).toBe(130);
      const printed = out.split('\n').filter(Boolean).map((l) => JSON.parse(l).timestamp as number);
      // Never twice.
      expect(printed.length).toBe(new Set(printed).size);
      // The first poll's record was stamped before following started: learnt, not printed.
      const first = windows[0][1] - LOOKBACK;
      expect(printed).not.toContain(first);
      // Each later poll's record, which that poll saw first, once; and every poll after it
      // read it again (its window began at that second), which is what is being tested.
      const later = [...stored.keys()].filter((ts) => ts !== first);
      expect(later.length).toBeGreaterThanOrEqual(3);
      const printedSet = new Set(printed);
      const seenAgain = later.filter((ts) => windows.some(([from]) => from === ts));
      expect(seenAgain.length).toBeGreaterThanOrEqual(2);
      for (const ts of seenAgain) expect(printedSet.has(ts), `record at ${ts}`).toBe(true);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
