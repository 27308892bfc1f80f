import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator, GroundTruth, LiveOptions } from '../../src/emulator/index.js';
import { emulator, parseCsv, payrec, until, watch } from './helpers.js';

// Exact lists while records keep arriving (DESIGN.md "Live traffic"). The emulator
// inserts 200 records a second into the collection under test, 30 % of them late (a
// timestamp up to 10 minutes back, so they land inside the window and shift every
// offset after them) and 40 % pending (rewritten in place to confirmed or failed a few
// seconds later). What payrec prints is compared with the emulator's own complete
// records (the ground truth), taken before payrec starts and after it ends.

const CHAIN = 'bsc';
const COLLECTION = 'on-demand/transfers';
const TRAFFIC: LiveOptions = { rate: 200, lateFraction: 0.3, lateMaxSeconds: 600, pendingFraction: 0.4, chains: [CHAIN], collections: [COLLECTION] };

type Transfer = Record<string, unknown> & { transactionHash: string; timestamp: number; transactionStatus: string };

/** The records a run printed, whatever the format. */
function printed(format: string, stdout: string): Transfer[] {
  if (format === 'json') return JSON.parse(stdout) as Transfer[];
  if (format === 'jsonl') return stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Transfer);
  // CSV shows times as date-times in --tz (UTC here): `2026-10-31 14:05:09`.
  const [head, ...rows] = parseCsv(stdout);
  const seconds = (text: string) => Date.parse(`${text.replace(' ', 'T')}Z`) / 1000;
  return rows.map((row) => Object.fromEntries(head.map((h, i) => [h, h === 'timestamp' ? seconds(row[i]) : row[i]])) as Transfer);
}

const byHash = (truth: GroundTruth) => new Map((truth.records as Transfer[]).map((r) => [r.transactionHash, r]));

function duplicatesOf(hashes: string[]): string[] {
  const seen = new Set<string>();
  return hashes.filter((h) => (seen.has(h) ? true : (seen.add(h), false)));
}

// The two emulators' traffic runs at once: each describe's waits (traffic, settling,
// polls) overlap the other's runs; inside the first, one run at a time.
describe.concurrent('--all while records arrive: every record of the window exactly once', () => {
  let emu: Emulator;
  beforeAll(async () => {
    // Data up to this very second, so late records land among the generated ones.
    emu = await emulator({ records: 20_000, now: Math.floor(Date.now() / 1000) });
    emu.records(CHAIN, COLLECTION); // generate the collection before the traffic starts
    emu.live.start(TRAFFIC);
    await until('200 live records', () => emu.live.status().inserted >= 200);
  });
  afterAll(async () => {
    emu.live.stop();
    await emu.close();
  });

  const runs: [number, number, 'asc' | 'desc', string][] = [
    [1, 100, 'desc', 'jsonl'],
    [4, 100, 'asc', 'csv'],
    [8, 100, 'desc', 'json'],
    [1, 1000, 'asc', 'json'],
    [4, 1000, 'desc', 'csv'],
    [8, 1000, 'asc', 'jsonl'],
    [8, 100, 'asc', 'csv'],
    [4, 100, 'desc', 'jsonl'],
  ];

  test.sequential.each(runs)('--concurrency %i --page-size %i --sort %s -f %s', async (concurrency, pageSize, sort, format) => {
    const before = emu.records(CHAIN, COLLECTION);
    const r = await payrec(emu, ['on-demand', 'transfers', '--all', '--sort', sort, '-f', format, '--concurrency', String(concurrency), '--page-size', String(pageSize)]);
    const after = emu.records(CHAIN, COLLECTION);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);

    const out = printed(format, r.stdout);
    const hashes = out.map((t) => t.transactionHash);
    expect(before.records.length).toBeGreaterThanOrEqual(20_000);
    expect(duplicatesOf(hashes)).toEqual([]);
    const got = new Set(hashes);
    const missing = (before.records as Transfer[]).filter((t) => !got.has(t.transactionHash)).map((t) => t.transactionHash);
    expect(missing).toEqual([]);
    // Nothing invented, and each record as the service had it (only its status may have moved on).
    const end = byHash(after);
    const start = byHash(before);
    const wrong = out.filter((t) => {
      const truth = end.get(t.transactionHash);
      const statuses = [start.get(t.transactionHash)?.transactionStatus, 'pending', truth?.transactionStatus];
      return truth === undefined || truth.timestamp !== t.timestamp || !statuses.includes(t.transactionStatus);
    });
    expect(wrong).toEqual([]);
    const unordered = out.filter((t, i) => i > 0 && (sort === 'asc' ? t.timestamp < out[i - 1].timestamp : t.timestamp > out[i - 1].timestamp));
    expect(unordered).toEqual([]);
    // The traffic did land inside the window while payrec read it.
    const newest = out.reduce((m, t) => Math.max(m, t.timestamp), 0);
    const lateArrivals = (after.records as Transfer[]).filter((t, i) => after.arrivals[i] > before.seq && t.timestamp <= newest);
    expect(lateArrivals.length).toBeGreaterThan(0);
  });

  test.sequential('--summary counts the same exact set: every record of the window once, none twice', async () => {
    const before = emu.records(CHAIN, COLLECTION);
    const r = await payrec(emu, ['on-demand', 'transfers', '--summary', '-f', 'json', '--page-size', '100', '--concurrency', '8']);
    const after = emu.records(CHAIN, COLLECTION);
    expect(r.exitCode).toBe(0);
    const summary = JSON.parse(r.stdout) as { count: number; totals: { token: string; status: string; amount: string }[] };
    const arrived = (after.records as Transfer[]).filter((_, i) => after.arrivals[i] > before.seq);
    expect(summary.count).toBeGreaterThanOrEqual(before.records.length);
    expect(summary.count).toBeLessThanOrEqual(before.records.length + arrived.length);
    // Exact totals: at least the start's, at most the start's plus every arrival's (amounts are never negative).
    const sum = (rs: Transfer[], token: string) => rs.filter((t) => t.token === token).reduce((s, t) => s + scaled(t.amount as string), 0n);
    // Per token over every status (a record's status may move while it is read).
    const perToken = new Map<string, bigint>();
    for (const t of summary.totals) perToken.set(t.token, (perToken.get(t.token) ?? 0n) + scaled(t.amount));
    for (const [token, total] of perToken) {
      const low = sum(before.records as Transfer[], token);
      expect(total).toBeGreaterThanOrEqual(low);
      expect(total).toBeLessThanOrEqual(low + sum(arrived, token));
    }
  });
});

/** A decimal string as an integer of 10^-18 units: exact, for comparisons. */
function scaled(decimal: string): bigint {
  const [whole, fraction = ''] = decimal.split('.');
  return BigInt(whole) * 10n ** 18n + BigInt(fraction.padEnd(18, '0'));
}

describe.concurrent('--follow while records arrive', () => {
  test('every record that appears while it runs, late ones too, exactly once; no listener warning', async () => {
    const emu = await emulator({ records: 1000 });
    try {
      emu.records(CHAIN, COLLECTION);
      emu.live.start(TRAFFIC);
      const spawned = Math.floor(Date.now() / 1000);
      const child = payrec(emu, ['on-demand', 'transfers', '--follow', '--interval', '1', '-f', 'jsonl']);
      const out = watch(child.stdout!);
      const path = `/v1/${CHAIN}/${COLLECTION}`;
      const polls = () => emu.requests.filter((q) => q.path === path);
      await until('the first poll', () => polls().length >= 1);
      // Traffic until enough has arrived after the first poll, late records among it (events, not a span of time).
      const firstSeq = polls()[0].seq;
      const arrived = () => {
        const { records, arrivals } = emu.records(CHAIN, COLLECTION);
        const after = records.filter((_, i) => arrivals[i] > firstSeq) as Transfer[];
        return { all: after.length, late: after.filter((t) => t.timestamp < polls()[0].at / 1000 - 5).length };
      };
      await until('1,100 records after the first poll, 120 of them late', () => arrived().all >= 1_100 && arrived().late >= 120);
      emu.live.stop();
      await emu.live.settle();
      // Two more polls see everything that arrived before the traffic stopped; the last record is printed once they are answered.
      const seen = polls().length;
      await until('two more polls', () => new Set(polls().slice(seen).map((q) => q.at)).size >= 2 && polls().length >= seen + 2);
      const newest = (emu.records(CHAIN, COLLECTION).records as Transfer[]).reduce((a, b) => (b.timestamp >= a.timestamp ? b : a));
      await out.waitFor(new RegExp(newest.transactionHash));
      child.kill('SIGINT');
      const r = await child;
      expect(r.exitCode).toBe(130);
      expect(r.stderr).not.toMatch(/MaxListenersExceededWarning|Warning/);

      // What the first poll saw stamped before the command started is not new; what
      // arrived after it is, and so is what it saw stamped at or after the start. The
      // start's second lies between the spawn's and the first poll's (its `from` plus
      // the 10-minute lookback): records the first poll saw stamped in between may go
      // either way, all others must be as said.
      const firstPoll = polls()[0];
      const pollStarted = Number(firstPoll.query.from) + 600;
      const truth = emu.records(CHAIN, COLLECTION);
      const records = truth.records as Transfer[];
      const sawFirst = (i: number) => truth.arrivals[i] <= firstPoll.seq;
      const expected = records.filter((t, i) => !sawFirst(i) || t.timestamp >= pollStarted).map((t) => t.transactionHash);
      const either = new Set(records.filter((t, i) => sawFirst(i) && t.timestamp >= spawned && t.timestamp < pollStarted).map((t) => t.transactionHash));
      const hashes = out.text.trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as Transfer).transactionHash);
      expect(expected.length).toBeGreaterThan(1000);
      expect(duplicatesOf(hashes)).toEqual([]);
      expect(hashes.filter((h) => !expected.includes(h) && !either.has(h))).toEqual([]);
      const got = new Set(hashes);
      expect(expected.filter((h) => !got.has(h))).toEqual([]);
      const late = (truth.records as Transfer[]).filter((t, i) => truth.arrivals[i] > firstPoll.seq && t.timestamp < firstPoll.at / 1000 - 5);
      expect(late.length).toBeGreaterThan(100); // late records were among them
    } finally {
      await emu.close();
    }
  });
});
