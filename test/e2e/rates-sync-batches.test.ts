import { execa } from 'execa';
import { copyFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { BIN, emulator, interruptWhen, payrec, payrecInProcess, program, screen, tempDir } from './helpers.js';
import { sql } from './mirror-helpers.js';

// `payrec rates sync` over feeds that write a round each hour (the emulator's hourlyFeeds):
// 43 days of them is 1,032 rounds a feed, read 500 a batch, so each feed takes three
// batches (the fewest days that do: a Ctrl-C half-way through a feed's rounds falls after
// its first batch). What a person sees at a terminal (the bar moving batch after batch, then gone),
// and a Ctrl-C between two batches of one feed (that feed untouched, none half-stored).

const env = { PAYREC_EMULATOR_NOW: '2026-01-01T00:00:00Z' };
/** 43 days: every feed but BUSD (retired on October 3rd: two days of rounds) has a round each hour of them. */
const SPAN = ['--from', '2025-10-01', '--to', '2025-11-13'];
/** Round ids a sync reads per batch (src/mirror/rates-sync.ts). */
const BATCH = 500;
/** getRoundData(uint80): the selector of a round read. */
const GET_ROUND_DATA = '0x9a6fc8f5';

let emu: Emulator;
/** A mirror of the emulator's records, no rates in it yet. */
let bare: string;
/**
 * The file's one whole rates sync over SPAN, piped (-f json), through a front node that
 * logged its calls: the Ctrl-C test's reference and the terminal test's piped run (issue 48:
 * the same command once, not twice).
 */
let whole: { db: string; stdout: string; stderr: string; log: FrontNode['log'] };

/** A node in front of the emulator's chain that logs each eth_call (to, selector), waits `delayMs` per request, and holds every request once `answering` calls were answered. */
interface FrontNode {
  url: string;
  log: { to: string; selector: string }[];
  answering: number;
  delayMs: number;
  close(): void;
}

async function frontNode(): Promise<FrontNode> {
  const node: FrontNode = { url: '', log: [], answering: Infinity, delayMs: 0, close: () => undefined };
  const server: Server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    if (node.log.length >= node.answering) return;
    const calls = JSON.parse(body);
    for (const c of Array.isArray(calls) ? calls : [calls]) node.log.push({ to: String(c.params?.[0]?.to ?? '').toLowerCase(), selector: String(c.params?.[0]?.data ?? '').slice(0, 10) });
    if (node.delayMs > 0) await new Promise((ok) => setTimeout(ok, node.delayMs));
    const answer = await fetch(emu.rpcUrl('bsc'), { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    res.writeHead(200, { 'content-type': 'application/json' }).end(await answer.text());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  node.close = () => {
    server.closeAllConnections();
    server.close();
  };
  return node;
}

const run = (args: string[], db: string, rpc: string) => payrec(emu, ['--chain', 'bsc', ...args], { chain: 'bsc', env: { ...env, PAYREC_RPC_URL: rpc, PAYREC_DB: db } });
const copyOfBare = () => {
  const db = join(tempDir(), 'mirror.duckdb');
  copyFileSync(bare, db);
  return db;
};
const rounds = (db: string) => sql(db, 'SELECT token, feed, roundId, "time" FROM rates ORDER BY token, "time", roundId');
const coverage = async (db: string) => new Map((await sql(db, "SELECT key, value FROM payrec_meta WHERE key LIKE 'rates coverage %'")).map((r) => [String(r.key), r.value]));

beforeAll(async () => {
  emu = await emulator({ records: 120, hourlyFeeds: true });
  bare = join(tempDir(), 'bare.duckdb');
  const synced = await payrec(emu, ['--chain', 'bsc', 'sync', '--db', bare, '-q'], { chain: 'bsc', env });
  expect(synced.exitCode, synced.stderr).toBe(0);
  const node = await frontNode();
  try {
    const db = copyOfBare();
    const r = await run(['rates', 'sync', ...SPAN, '-f', 'json'], db, node.url);
    expect(r.exitCode, r.stderr).toBe(0);
    whole = { db, stdout: r.stdout, stderr: r.stderr, log: node.log };
  } finally {
    node.close();
  }
}, 180_000);
afterAll(async () => {
  await emu?.close();
});

describe('rates sync of feeds read in several batches', () => {
  it('stopped by Ctrl-C between two batches of a feed: exit 130, that feed untouched (no round, no coverage), the feeds before it whole, and a re-run equal to one whole sync', async () => {
    const node = await frontNode();
    try {
      // The whole sync, its calls logged: each feed's rounds are read after every feed's first and last round ids were found.
      const report = (JSON.parse(whole.stdout) as Record<string, any>[]).filter((r) => r.status === 'synced');
      const log = whole.log;
      // The feeds in the order their rounds are read (each feed's reading is its last getRoundData calls).
      const lastCall = (feed: string) => {
        let i = log.length - 1;
        while (i >= 0 && !(log[i].to === feed && log[i].selector === GET_ROUND_DATA)) i--;
        return i;
      };
      const order = report.map((r) => String(r.feed).toLowerCase()).sort((a, b) => lastCall(a) - lastCall(b));
      // The stopped feed: one read in three batches or more, with a feed stored whole before it.
      const readOf = (feed: string) => report.find((r) => String(r.feed).toLowerCase() === feed)!.read as number;
      const at = order.findIndex((feed, i) => i > 0 && readOf(feed) > 2 * BATCH);
      expect(at).toBeGreaterThan(0);
      const stoppedFeed = order[at];
      const read = readOf(stoppedFeed);
      // Its reading: its last `read` getRoundData calls (those before found its first and last round ids).
      const reading = log.flatMap((c, i) => (c.to === stoppedFeed && c.selector === GET_ROUND_DATA ? [i] : [])).slice(-read);
      const wholeRounds = await rounds(whole.db);
      const wholeCoverage = await coverage(whole.db);

      // The same sync held half-way through the stopped feed's rounds: its first batch read, not its last.
      const mine = copyOfBare();
      // Held after more than one batch of it, before its last.
      node.answering = reading[Math.floor(read / 2)];
      expect(Math.floor(read / 2)).toBeGreaterThan(BATCH);
      await interruptWhen(run(['rates', 'sync', ...SPAN, '-q'], mine, node.url), 'half the feed read', () => node.log.length >= node.answering);
      const held = await rounds(mine);
      const covered = await coverage(mine);
      const of = (rows: Record<string, unknown>[], feed: string) => rows.filter((r) => String(r.feed).toLowerCase() === feed);
      // The feeds read before: whole, as one whole sync stores them.
      for (const feed of order.slice(0, at)) {
        expect(of(held, feed).length).toBeGreaterThan(0);
        expect(of(held, feed)).toEqual(of(wholeRounds, feed));
        expect([...covered.keys()].filter((k) => k.toLowerCase().endsWith(feed)).map((k) => covered.get(k))).toEqual([...wholeCoverage.keys()].filter((k) => k.toLowerCase().endsWith(feed)).map((k) => wholeCoverage.get(k)));
      }
      // The feed stopped between its batches, and those after it: no round, no coverage.
      for (const feed of order.slice(at)) {
        expect(of(held, feed)).toEqual([]);
        expect([...covered.keys()].filter((k) => k.toLowerCase().endsWith(feed))).toEqual([]);
      }
      // A re-run ends as one whole sync (in this worker: no process boundary under test).
      node.answering = Infinity;
      const again = await payrecInProcess(emu, ['--chain', 'bsc', 'rates', 'sync', ...SPAN, '-q'], { chain: 'bsc', env: { ...env, PAYREC_RPC_URL: node.url, PAYREC_DB: mine } });
      expect(again.exitCode, again.stderr).toBe(0);
      expect(await rounds(mine)).toEqual(wholeRounds);
      expect(await coverage(mine)).toEqual(wholeCoverage);
    } finally {
      node.close();
    }
  });

  const script = program('script', 'bsdutils');
  const onPty = script.skip ? it.skip : it;

  onPty(`on a terminal: the bar counts the rounds read batch after batch, then is gone, leaving the report whole${script.note}`, async () => {
    const node = await frontNode();
    // Each request waits: the sync lasts long enough for the bar to be drawn between batches.
    node.delayMs = 40;
    try {
      const db = copyOfBare();
      const command = `stty cols 120 rows 40; exec node ${BIN} --chain bsc rates sync ${SPAN.join(' ')} --db ${db} -f json`;
      const r = await execa('script', ['-qec', command, '/dev/null'], {
        reject: false,
        stdin: 'ignore',
        extendEnv: false,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', NO_COLOR: '1', PAYREC_CONFIG_DIR: tempDir(), PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc'), PAYREC_RPC_URL: node.url, ...env },
      });
      expect(r.exitCode, r.stdout).toBe(0);
      // What is left on the screen is the report and the line saying what was stored: the bar was erased.
      const shown = screen(r.stdout);
      const report = JSON.parse(shown.slice(0, -1).join('\n')) as Record<string, any>[];
      const total = report.reduce((n, x) => n + x.read, 0);
      expect(total).toBeGreaterThan(4 * BATCH);
      expect(shown.at(-1)).toBe(`stored ${total.toLocaleString('en-US')} new rounds of ${report.filter((x) => x.status === 'synced').length} feeds`);
      // What was drawn on the way: rounds read of the total, rising batch by batch to at most the total.
      const drawn = [...r.stdout.matchAll(/rates: ([\d,]+) of ([\d,]+) rounds · [\d,]+\/s/g)].map((m) => [Number(m[1].replaceAll(',', '')), Number(m[2].replaceAll(',', ''))]);
      expect(new Set(drawn.map(([, of]) => of))).toEqual(new Set([total]));
      const done = [...new Set(drawn.map(([d]) => d))];
      expect(done).toEqual([...done].sort((a, b) => a - b));
      expect(done.length).toBeGreaterThanOrEqual(3);
      expect(Math.max(...done)).toBeLessThanOrEqual(total);
      // Not on a terminal (the whole sync of beforeAll, piped): no bar, only the line saying what was stored.
      expect(whole.stderr).toBe(`${shown.at(-1)}\n`);
      expect(JSON.parse(whole.stdout)).toEqual(report);
    } finally {
      node.close();
    }
  });
});
