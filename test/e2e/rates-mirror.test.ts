import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import pg from 'pg';
import type { AddressInfo } from 'node:net';
import { ANCHOR, emulator, inFrontOf, interruptWhen, payrec, payrecInProcess, tempDir, until } from './helpers.js';
import { sql } from './mirror-helpers.js';
import { postgres } from './pg-helpers.js';
import type { Emulator } from '../../src/emulator/index.js';
import { atto, frac } from '../oracle/exact.js';

// The mirror's `rates` table end to end (DESIGN.md "Values in one currency"): payrec
// rates sync, import, the list, check, sql, and --currency reading the table between
// --rates FILE and the feeds read live. Expected rates and values come from the
// emulator's ground truth (its records, and each feed's rounds from GET
// /_emulator/chain/feeds) with BigInt arithmetic written here, never from payrec's output.

interface Round { roundId: string; answer: string; updatedAt: number }
interface Feed { address: string; pair: string; tokens: string[]; phases: { decimals: number; rounds: Round[] }[] }

const DAY = 86_400;
const env = { PAYREC_EMULATOR_NOW: '2026-01-01T00:00:00Z' };
let emu: Emulator;
let feeds: Feed[];
/** A mirror synced from the emulator, its rates synced over the mirror's span. */
let db: string;
/** The same mirror before its rates were synced: --currency reads the feeds live. */
let bare: string;
let transfers: Record<string, any>[];

const options = (o: { db?: string; rpc?: string }) => ({ chain: 'bsc', env: { ...env, PAYREC_RPC_URL: o.rpc ?? emu.rpcUrl('bsc'), ...(o.db ? { PAYREC_DB: o.db } : {}) } });
const run = (args: string[], o: { db?: string; rpc?: string } = {}) => payrec(emu, ['--chain', 'bsc', ...args], options(o));
/** The same inside this worker (payrecInProcess, issue 48): answers valued or read from a mirror, no process boundary under test. */
const read = (args: string[], o: { db?: string; rpc?: string } = {}) => payrecInProcess(emu, ['--chain', 'bsc', ...args], options(o));
const ethCalls = () => emu.chain.calls().calls.bsc?.eth_call ?? 0;
/** A mirror of its own holding the emulator's records and no rates: a copy of `bare`, not another sync of the same data (issue 48). */
const bareCopy = () => {
  const mine = join(tempDir(), 'mirror.duckdb');
  copyFileSync(bare, mine);
  return mine;
};

beforeAll(async () => {
  emu = await emulator({ records: 120 });
  feeds = ((await (await fetch(`${emu.url}/_emulator/chain/feeds?chain=bsc`)).json()) as { feeds: Feed[] }).feeds;
  transfers = ((await (await fetch(`${emu.url}/_emulator/records?chain=bsc&collection=one-time/transfers`)).json()) as { records: Record<string, any>[] }).records;
  db = join(tempDir(), 'mirror.duckdb');
  const synced = await run(['sync', '--db', db, '-q']);
  expect(synced.exitCode, synced.stderr).toBe(0);
  bare = join(tempDir(), 'bare.duckdb');
  copyFileSync(db, bare);
  const rates = await run(['rates', 'sync', '--db', db, '-f', 'json']);
  expect(rates.exitCode, rates.stderr).toBe(0);
}, 180_000);
afterAll(async () => {
  await emu?.close();
});

/** answer ÷ 10^decimals as plain decimal text. */
const decimal = (answer: string, decimals: number) => atto(BigInt(answer) * 10n ** 18n, 10n ** BigInt(decimals + 18)).replace(/^$/, '0');
const iso = (t: number) => new Date(t * 1000).toISOString().replace('.000Z', 'Z');
const feedOf = (token: string) => feeds.find((f) => f.tokens.includes(token))!;
const roundsOf = (f: Feed) => f.phases.flatMap((p) => p.rounds.map((r) => ({ ...r, decimals: p.decimals })));
/** The round in force at t (greatest updatedAt ≤ t), by a scan of every round. */
const inForce = (token: string, t: number) => roundsOf(feedOf(token)).filter((r) => r.updatedAt <= t).at(-1)!;
const december = () => transfers.filter((x) => x.timestamp >= ANCHOR - 31 * DAY && x.timestamp < ANCHOR);
/** The records of 2025 (the emulator's year before its anchor). */
const year = () => transfers.filter((x) => x.timestamp >= ANCHOR - 365 * DAY && x.timestamp < ANCHOR);
const byId = (rows: Record<string, any>[]) => new Map(rows.map((r) => [r.transactionHash, r]));

/** Values a year of transfers from the mirror at `where`: every rate the round in force by ground truth, and no call to the node. */
async function expectValuedFromTable(where: string): Promise<void> {
  const before = ethCalls();
  const r = await read(['ot', 'transfers', '--currency', 'USD', '--period', '2025', '--all', '--rates-missing', 'blank', '-f', 'json'], { db: where });
  expect(r.exitCode, r.stderr).toBe(0);
  // Every rate came from the table: the feeds were not read live.
  expect(ethCalls()).toBe(before);
  const rows = byId(JSON.parse(r.stdout));
  // BUSD's feed is retired: its last round serves 25 hours, then no rate.
  const valued = year().filter((x) => ['BNB', 'USDT', 'USDC', 'BUSD'].includes(x.token));
  expect(valued.length).toBeGreaterThan(5);
  let stale = 0;
  for (const x of valued) {
    const round = inForce(x.token, x.timestamp);
    const row = rows.get(x.transactionHash)!;
    if (x.timestamp - round.updatedAt > 25 * 3600) {
      expect(row.rateSource).toBe('missing');
      stale++;
      continue;
    }
    expect(row.rateSource).toBe(`mirror:chainlink:bsc:${feedOf(x.token).address.toLowerCase()}:round=${round.roundId}`);
    expect(row.rateTime).toBe(round.updatedAt);
    const [an, ad] = frac(x.amount);
    expect(row.value).toBe(atto(an * BigInt(round.answer), ad * 10n ** BigInt(round.decimals)));
  }
  expect(stale).toBeGreaterThan(0);
}

describe('--currency reads the mirror\'s rates', () => {
  it('values from the table before the feed: every rate the round in force by ground truth, and no call to the node', async () => {
    await expectValuedFromTable(db);
  });

  it('the rates file wins over the table', async () => {
    const file = join(tempDir(), 'policy.csv');
    const days = Array.from({ length: 365 }, (_, d) => `${new Date((ANCHOR - 365 * DAY + d * DAY) * 1000).toISOString().slice(0, 10)},bsc,BNB,USD,600.5,policy`);
    writeFileSync(file, ['time,chain,token,currency,rate,source', ...days].join('\n') + '\n');
    const r = await read(['ot', 'transfers', '--currency', 'USD', '--period', '2025', '--all', '--rates', file, '--rates-missing', 'blank', '-f', 'json'], { db });
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = byId(JSON.parse(r.stdout));
    const bnb = year().filter((x) => x.token === 'BNB');
    const usdt = year().filter((x) => x.token === 'USDT');
    expect(bnb.length).toBeGreaterThan(0);
    for (const x of bnb) {
      const day = Math.floor((x.timestamp - (ANCHOR - 365 * DAY)) / DAY);
      expect(rows.get(x.transactionHash)).toMatchObject({ rate: '600.5', rateSource: `file:policy.csv:${day + 2}` });
    }
    for (const x of usdt) expect(rows.get(x.transactionHash)!.rateSource).toBe(`mirror:chainlink:bsc:${feedOf('USDT').address.toLowerCase()}:round=${inForce('USDT', x.timestamp).roundId}`);
  });

  it('an imported row serves from its second on: a record one second before it is not valued from it', async () => {
    const mine = bareCopy();
    const pay = december().filter((x) => x.token === '8PAY').sort((a, b) => a.timestamp - b.timestamp);
    expect(pay.length).toBeGreaterThan(1);
    const [early, later] = [pay[0], pay[pay.length - 1]];
    const file = join(tempDir(), 'desk.csv');
    // A row one second after the first record, and one at the very second of the last.
    writeFileSync(file, ['time,chain,token,currency,rate,source', `${iso(early.timestamp + 1)},bsc,8PAY,USD,0.0512,OTC desk`, `${iso(later.timestamp)},bsc,8PAY,USD,0.0498,OTC desk`].join('\n') + '\n');
    const imported = await run(['rates', 'import', file, '--db', mine]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    const r = await read(['ot', 'transfers', '--currency', 'USD', '--period', '2025-12', '--all', '--token', '8PAY', '--rates-missing', 'blank', '-f', 'json'], { db: mine });
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = byId(JSON.parse(r.stdout));
    expect(rows.get(early.transactionHash)).toMatchObject({ value: '', rateSource: 'missing' });
    expect(r.stderr).toContain(`the first row (desk.csv:2 in the mirror) is from ${iso(early.timestamp + 1)}, after the record`);
    const [an, ad] = frac(later.amount);
    expect(rows.get(later.transactionHash)).toMatchObject({ rate: '0.0498', rateTime: later.timestamp, rateSource: 'mirror:file:desk.csv:3', value: atto(an * 498n, ad * 10_000n) });
  });
});

describe('metrics and subscriptions --currency read the synced rounds at hand', () => {
  it('as the feeds read live in one batch, byte for byte, with no call to the node; each MRR valued at the round in force at its cycleStart by ground truth', async () => {
    const report = async (args: string[], where: string) => {
      const r = await read([...args, '--currency', 'USD', '--rates-missing', 'blank', '--db', where, '-f', 'csv'], { db: where });
      expect(r.exitCode, r.stderr).toBe(0);
      return r;
    };
    for (const args of [['metrics', '--interval', 'month', '--by', 'token', '--period', '2025'], ['subscriptions', '--at', String(ANCHOR - DAY)]]) {
      const before = ethCalls();
      const atHand = await report(args, db);
      expect(ethCalls()).toBe(before);
      const live = await report(args, bare);
      expect(ethCalls()).toBeGreaterThan(before);
      // The same figures and notes (but the instant each ran, "as of now"); a rate's source says where it was kept (mirror:).
      expect(atHand.stdout.replaceAll(',mirror:chainlink:', ',chainlink:')).toBe(live.stdout);
      const notes = (text: string) => text.split('\n').filter((l) => !l.includes('as of'));
      expect(notes(atHand.stderr)).toEqual(notes(live.stderr));
      expect(atHand.stderr).toMatch(/figures had no usable rate/);
    }
    // Rounds synced up to mid-year only: what is beyond them is read live in one batch, and the report runs again with them: the same figures.
    const half = join(tempDir(), 'half.duckdb');
    copyFileSync(bare, half);
    expect((await run(['rates', 'sync', '--db', half, '--to', '2025-07-01', '-q'])).exitCode).toBe(0);
    const monthly = ['metrics', '--interval', 'month', '--period', '2025'];
    const before = ethCalls();
    expect((await report(monthly, half)).stdout).toBe((await report(monthly, bare)).stdout);
    expect(ethCalls()).toBeGreaterThan(before);
    const r = await read(['subscriptions', '--at', String(ANCHOR - DAY), '--currency', 'USD', '--rates-missing', 'blank', '--db', db, '-f', 'json', '-q'], { db });
    const billings = ((await (await fetch(`${emu.url}/_emulator/records?chain=bsc&collection=fixed-recurring/billings`)).json()) as { records: Record<string, any>[] }).records;
    let valued = 0;
    for (const row of JSON.parse(r.stdout) as Record<string, any>[]) {
      const paid = billings.filter((b) => b.subscriptionId === row.subscriptionId && b.timestamp < ANCHOR - DAY && b.success === 1 && b.transactionStatus === 'confirmed');
      if (!['BNB', 'USDT', 'USDC'].includes(row.token) || paid.length === 0) continue;
      const cycle = Math.max(...paid.map((b) => b.cycleStart));
      const round = inForce(row.token, cycle);
      if (cycle - round.updatedAt > 25 * 3600) {
        expect(row.rateSource).toBe('missing');
        continue;
      }
      expect(row.rateSource).toBe(`mirror:chainlink:bsc:${feedOf(row.token).address.toLowerCase()}:round=${round.roundId}`);
      const [mn, md] = frac(row.mrr);
      expect(row.value).toBe(atto(mn * BigInt(round.answer), md * 10n ** BigInt(round.decimals)));
      valued++;
    }
    expect(valued).toBeGreaterThan(2);
  });
});

describe('payrec rates sync', () => {
  /** Rounds of a feed in force at some instant of [from, to]: from the one in force at from to the one in force at to. */
  const inSpan = (token: string, from: number, to: number) => roundsOf(feedOf(token)).filter((r) => r.updatedAt <= to && r.updatedAt >= inForce(token, from).updatedAt);
  const counts = async (mine: string) => {
    const r = await read(['sql', '--db', mine, '-f', 'json', "SELECT token, count(*)::INTEGER AS n FROM rates GROUP BY token ORDER BY token"]);
    expect(r.exitCode, r.stderr).toBe(0);
    return Object.fromEntries((JSON.parse(r.stdout) as { token: string; n: number }[]).map((x) => [x.token, x.n]));
  };

  it('is incremental: a later --to adds only the rounds written since, and the same span again reads nothing', async () => {
    const mine = bareCopy();
    const from = Date.parse('2025-10-01T00:00:00Z') / 1000;
    const [t1, t2] = [Date.parse('2025-11-15T00:00:00Z') / 1000, Date.parse('2025-12-15T00:00:00Z') / 1000];
    // The file's first rates sync was a process (beforeAll): these run in this worker.
    const first = await read(['rates', 'sync', '--db', mine, '--from', iso(from), '--to', iso(t1), '-f', 'json']);
    expect(first.exitCode, first.stderr).toBe(0);
    const tokens = ['BNB', 'BUSD', 'USDC', 'USDT'];
    expect(await counts(mine)).toEqual(Object.fromEntries(tokens.map((t) => [t, inSpan(t, from, t1).length])));
    // Where the mirror holds the rounds whole it answers; after it, a later round may exist: the feed is read live.
    const valued = await read(['ot', 'transfers', '--currency', 'USD', '--from', iso(from), '--to', iso(t1 + 20 * DAY), '--token', 'USDT', '--all', '-f', 'json'], { db: mine });
    expect(valued.exitCode, valued.stderr).toBe(0);
    const usdt = (JSON.parse(valued.stdout) as Record<string, any>[]).map((x) => [x.timestamp <= t1, x.rateSource]);
    expect(usdt.some(([inside]) => inside) && usdt.some(([inside]) => !inside)).toBe(true);
    for (const [inside, source] of usdt) expect(source).toMatch(inside ? /^mirror:chainlink:bsc:/ : /^chainlink:bsc:/);
    const second = await read(['rates', 'sync', '--db', mine, '--from', iso(from), '--to', iso(t2), '-f', 'json']);
    expect(second.exitCode, second.stderr).toBe(0);
    const report = JSON.parse(second.stdout) as Record<string, any>[];
    for (const t of tokens) {
      const added = roundsOf(feedOf(t)).filter((r) => r.updatedAt > t1 && r.updatedAt <= t2).length;
      // It reads again only the round in force at t1 (stored already), then the new ones.
      expect(report.find((x) => x.token === t)).toMatchObject({ status: 'synced', stored: added, read: added + 1 });
    }
    expect(await counts(mine)).toEqual(Object.fromEntries(tokens.map((t) => [t, inSpan(t, from, t2).length])));
    const before = ethCalls();
    const again = await read(['rates', 'sync', '--db', mine, '--from', iso(from), '--to', iso(t2), '-f', 'json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(ethCalls()).toBe(before);
    expect((JSON.parse(again.stdout) as Record<string, any>[]).filter((x) => x.token !== '8PAY').map((x) => x.status)).toEqual(tokens.map(() => 'up to date'));
    expect(again.stderr).toBe('every feed was up to date: nothing read\n');
  });

  const lyingNode = (change: Parameters<typeof inFrontOf>[1]) => inFrontOf(emu.rpcUrl('bsc'), change);

  it('--currency EUR also syncs the EUR / USD feed over the records\' span: an ETH export in EUR then reads both legs from the table, as the ground truth has them', async () => {
    // Its first sync a process, the rates sync and the export after it in this worker.
    const eth = (args: string[], where: string, runner: typeof payrec | typeof payrecInProcess = payrecInProcess) =>
      runner(emu, ['--chain', 'ethereum', ...args], { chain: 'ethereum', env: { ...env, PAYREC_RPC_URL: emu.rpcUrl('ethereum'), PAYREC_DB: where } });
    const ethFeeds = ((await (await fetch(`${emu.url}/_emulator/chain/feeds?chain=ethereum`)).json()) as { feeds: Feed[] }).feeds;
    const truth = (pair: string, t: number) => {
      const f = ethFeeds.find((x) => x.pair === pair)!;
      return { feed: f.address.toLowerCase(), ...roundsOf(f).filter((r) => r.updatedAt <= t).at(-1)! };
    };
    const mine = join(tempDir(), 'ethereum.duckdb');
    expect((await eth(['sync', '--db', mine, '-q'], mine, payrec)).exitCode).toBe(0);
    const synced = await eth(['rates', 'sync', '--db', mine, '--currency', 'EUR', '-f', 'json'], mine);
    expect(synced.exitCode, synced.stderr).toBe(0);
    const eur = (JSON.parse(synced.stdout) as Record<string, any>[]).find((r) => r.token === 'EUR')!;
    expect([eur.pair, eur.status, eur.stored > 0]).toEqual(['EUR / USD', 'synced', true]);
    const calls = () => emu.chain.calls().calls.ethereum?.eth_call ?? 0;
    const before = calls();
    const r = await eth(['ot', 'transfers', '--currency', 'EUR', '--period', '2025-12', '--token', 'ETH', '--all', '-f', 'json'], mine);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(calls()).toBe(before);
    const records = JSON.parse(r.stdout) as Record<string, any>[];
    expect(records.length).toBeGreaterThan(0);
    for (const x of records) {
      const [e, u] = [truth('ETH / USD', x.timestamp), truth('EUR / USD', x.timestamp)];
      expect(x.rateSource).toBe(`mirror:chainlink:ethereum:${e.feed}:round=${e.roundId} × 1/mirror:chainlink:ethereum:${u.feed}:round=${u.roundId}`);
      const [a, ad] = frac(x.amount);
      expect(x.value).toBe(atto(a * BigInt(e.answer) * 10n ** BigInt(u.decimals), ad * BigInt(u.answer) * 10n ** BigInt(e.decimals)));
    }
  });

  it('stopped by Ctrl-C mid-way: exit 130, each feed whole (its coverage in the meta, every round of it) or untouched, and a re-run ends as one whole sync', async () => {
    // A node in front of the chain that answers `answering` JSON-RPC calls, then holds every other request: the sync waits there.
    let answered = 0;
    let answering = Infinity;
    const node: Server = createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      if (answered >= answering) return;
      const calls = JSON.parse(body);
      answered += Array.isArray(calls) ? calls.length : 1;
      const answer = await fetch(emu.rpcUrl('bsc'), { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      res.writeHead(200, { 'content-type': 'application/json' }).end(await answer.text());
    });
    await new Promise<void>((ok) => node.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
    try {
      const rounds = (where: string) => sql(where, 'SELECT token, feed, roundId, "time" FROM rates ORDER BY token, "time", roundId');
      const coverage = async (where: string) => new Map((await sql(where, "SELECT key, value FROM payrec_meta WHERE key LIKE 'rates coverage %'")).map((r) => [r.key, r.value]));
      const whole = await rounds(db);
      // The calls of a whole sync, counted (most read rounds, feed after feed); the stopped one is held half-way through them.
      const counted = join(tempDir(), 'counted.duckdb');
      copyFileSync(bare, counted);
      expect((await read(['rates', 'sync', '--db', counted, '-q'], { rpc: url })).exitCode).toBe(0);
      expect(await rounds(counted)).toEqual(whole);
      const total = answered;
      const mine = join(tempDir(), 'stopped.duckdb');
      copyFileSync(bare, mine);
      [answered, answering] = [0, Math.floor(total / 2)];
      await interruptWhen(run(['rates', 'sync', '--db', mine, '-q'], { rpc: url }), 'half the calls answered', () => answered >= answering);
      // Nothing half-stored: a feed with a coverage has every round of the whole sync's, one without has none.
      const held = await rounds(mine);
      const covered = await coverage(mine);
      const full = await coverage(db);
      expect(held.length).toBeLessThan(whole.length);
      // Mid-way: a feed stored whole, another not yet.
      expect(covered.size).toBeGreaterThan(0);
      expect(covered.size).toBeLessThan(full.size);
      for (const [key, span] of full) {
        const feed = String(key).split(' ').at(-1);
        const of = (rows: Record<string, unknown>[]) => rows.filter((r) => r.feed === feed);
        if (covered.has(key)) {
          expect(covered.get(key)).toBe(span);
          expect(of(held)).toEqual(of(whole));
        } else expect(of(held)).toEqual([]);
      }
      answering = Infinity;
      const again = await read(['rates', 'sync', '--db', mine, '-q'], { rpc: url });
      expect(again.exitCode, again.stderr).toBe(0);
      expect(await rounds(mine)).toEqual(whole);
      expect(await coverage(mine)).toEqual(full);
    } finally {
      node.closeAllConnections();
      node.close();
    }
  });

  it('against a lying node writes nothing: zeros for every call are refused (exit 6), another chain id is exit 2', async () => {
    const mine = bareCopy();
    const zeros = await lyingNode((c, a) => (c.method === 'eth_call' ? { ...a, result: `0x${'0'.repeat(64)}` } : a));
    const r = await run(['rates', 'sync', '--db', mine, '-f', 'json'], { rpc: zeros.url });
    zeros.server.close();
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/4 feeds were refused, nothing of them stored: BNB: the feed at 0x0567f2323251f0aab15c8dfb1967e4e8a7d42aee (describes itself as "", not "BNB \/ USD"|does not answer as a Chainlink feed)/);
    expect((JSON.parse(r.stdout) as Record<string, any>[]).filter((x) => x.token !== '8PAY').map((x) => [x.status, x.stored])).toEqual([['refused', 0], ['refused', 0], ['refused', 0], ['refused', 0]]);
    expect(await counts(mine)).toEqual({});
    const other = await lyingNode((c, a) => (c.method === 'eth_chainId' ? { ...a, result: '0x1' } : a));
    // In this worker after the ethereum test's runs: the secrets they kept (its RPC URL's path) are forgotten, never masking `ethereum` here.
    const o = await read(['rates', 'sync', '--db', mine], { rpc: other.url });
    other.server.close();
    expect(o.exitCode).toBe(2);
    expect(o.stderr).toMatch(/serves chain id 1 \(ethereum\), not bsc/);
    expect(await counts(mine)).toEqual({});
  });
});

describe('payrec rates: the list, import, check and sql', () => {
  it('-f csv is a rates file: --rates reads it back to the same values, and check finds every rate the same', async () => {
    const out = join(tempDir(), 'rates.csv');
    const listed = await run(['rates', '--db', db, '-f', 'csv', '-o', out]);
    expect(listed.exitCode, listed.stderr).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split(/\r?\n/);
    expect(lines[0]).toBe('time,chain,token,currency,rate,source,address,note');
    // A line per round of the span, as the ground truth has it.
    const usdt = feedOf('USDT');
    const r100 = roundsOf(usdt).find((r) => r.updatedAt > ANCHOR - 60 * DAY)!;
    expect(lines).toContain(`${iso(r100.updatedAt)},bsc,USDT,USD,${decimal(r100.answer, r100.decimals)},chainlink:bsc:${usdt.address.toLowerCase()}:round=${r100.roundId},,`);
    const fromTable = await read(['ot', 'transfers', '--currency', 'USD', '--period', '2025', '--all', '--rates-missing', 'blank', '-f', 'json'], { db });
    // No mirror this time: the file alone.
    const fromFile = await read(['ot', 'transfers', '--currency', 'USD', '--period', '2025', '--all', '--rates', out, '--rates-missing', 'blank', '-f', 'json']);
    expect(fromFile.exitCode, fromFile.stderr).toBe(0);
    const a = JSON.parse(fromTable.stdout) as Record<string, any>[];
    const b = JSON.parse(fromFile.stdout) as Record<string, any>[];
    expect(b.map((x) => [x.transactionHash, x.value, x.rate, x.rateTime])).toEqual(a.map((x) => [x.transactionHash, x.value, x.rate, x.rateTime]));
    for (const [i, x] of b.entries()) if (x.rateSource !== 'missing') expect(`mirror:${lines[Number(x.rateSource.split(':').at(-1)) - 1].split(',')[5]}`).toBe(a[i].rateSource);
    const checked = await read(['rates', 'check', '--db', db, '-f', 'json']);
    expect(checked.exitCode, checked.stderr).toBe(0);
    const verdicts = JSON.parse(checked.stdout) as Record<string, any>[];
    expect(verdicts.length).toBe(lines.length - 1);
    expect(new Set(verdicts.map((v) => v.verdict))).toEqual(new Set(['same']));
  });

  it('the list\'s gates reach the subcommands: rates feeds --count counts the feeds, rates check --fail-if-any gates the checked rows', async () => {
    const rows = JSON.parse((await read(['rates', 'feeds', '-f', 'json'])).stdout) as unknown[];
    // Every feed of the emulator's bsc is a row (8PAY, with none, too).
    expect(rows.length).toBeGreaterThan(feeds.length);
    const counted = await read(['rates', 'feeds', '--count']);
    expect(counted.exitCode, counted.stderr).toBe(0);
    expect(counted.stdout).toBe(`${rows.length}\n`);
    const gated = await run(['rates', 'check', '--db', db, '--fail-if-any', '-q']);
    expect(gated.exitCode).toBe(9);
  });

  it('import refuses a malformed file (exit 2 naming file and line) and stores nothing of it', async () => {
    const mine = bareCopy();
    const file = join(tempDir(), 'team.csv');
    writeFileSync(file, ['time,chain,token,currency,rate,source', '2025-12-01,bsc,8PAY,USD,0.0512,desk', '2025-12-02,bsc,8PAY,USD,0.05x,desk'].join('\n') + '\n');
    const r = await read(['rates', 'import', file, '--db', mine]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: team\.csv:3: rate "0\.05x": expected plain decimal text/);
    const listed = await read(['rates', '--db', mine, '-f', 'json']);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });

  it('payrec sql joins rates: each transfer with the round in force (ASOF JOIN), as the ground truth has it', async () => {
    const sql = "SELECT t.\"transactionHash\", r.\"roundId\" FROM one_time_transfers t ASOF JOIN rates r ON r.chain = t.chain AND r.token = t.token AND r.currency = 'USD' AND t.timestamp >= r.time WHERE t.token IN ('BNB', 'USDT') ORDER BY t.\"transactionHash\"";
    const r = await read(['sql', '--db', db, '-f', 'json', sql]);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { transactionHash: string; roundId: string }[];
    const mine = transfers.filter((x) => x.token === 'BNB' || x.token === 'USDT');
    expect(rows.length).toBe(mine.length);
    const truth = byId(mine);
    for (const row of rows) {
      const x = truth.get(row.transactionHash)!;
      expect(row.roundId).toBe(inForce(x.token, x.timestamp).roundId);
    }
  });
});

describe.skipIf(postgres.prerequisite.skip)(`on a team's mirror (PostgreSQL)${postgres.prerequisite.note}`, () => {
  it('syncs the rates into the server\'s mirror, values from them as the ground truth has it, and a second sync reads nothing', async () => {
    const url = postgres.freshUrl('rates');
    expect((await run(['sync', '--db', url, '-q'])).exitCode).toBe(0);
    const synced = await run(['rates', 'sync', '--db', url, '-f', 'json']);
    expect(synced.exitCode, synced.stderr).toBe(0);
    await expectValuedFromTable(url);
    const before = ethCalls();
    const again = await read(['rates', 'sync', '--db', url, '-f', 'json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(ethCalls()).toBe(before);
  });

  it('two rates syncs at once store a round once: one storing a round the other holds uncommitted waits for it, then keeps its row', async () => {
    const url = postgres.freshUrl('rates_race');
    const schema = postgres.schemaOf(url);
    // Its setup in this worker; the sync that meets the other one is a process.
    expect((await read(['sync', '--db', url, '-q'])).exitCode).toBe(0);
    expect((await read(['rates', 'sync', '--db', url, '-q'])).exitCode).toBe(0);
    // The other sync: BNB's last round, stored again in a transaction left open while
    // payrec syncs BNB's feed anew (its rows and its coverage taken away first).
    const [{ n: before }] = await postgres.admin(`SELECT count(*)::INT AS n FROM "${schema}".rates WHERE token = 'BNB'`);
    const [row] = await postgres.admin(`SELECT to_jsonb(r) AS row FROM "${schema}".rates r WHERE token = 'BNB' AND feed IS NOT NULL ORDER BY time DESC LIMIT 1`);
    await postgres.admin(`DELETE FROM "${schema}".rates WHERE token = 'BNB'`, `DELETE FROM "${schema}".payrec_meta WHERE key LIKE 'rates coverage bsc BNB %'`);
    const other = new pg.Client({ connectionString: postgres.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(`INSERT INTO "${schema}".rates SELECT * FROM jsonb_populate_record(NULL::"${schema}".rates, $1::JSONB)`, [JSON.stringify(row.row)]);
      const syncing = run(['rates', 'sync', '--db', url, '-q']);
      let ended = false;
      void syncing.finally(() => (ended = true));
      const waiting = async () => (await postgres.admin(`SELECT count(*)::INT AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%${schema}%rates%'`))[0].n === 1;
      await until('payrec waiting for the other sync, or done', async () => ended || (await waiting()), 60_000);
      await other.query('COMMIT');
      const r = await syncing;
      expect(r.exitCode, r.stderr).toBe(0);
    } finally {
      await other.end();
    }
    const counts = await postgres.admin(`SELECT "roundId", count(*)::INT AS n FROM "${schema}".rates WHERE token = 'BNB' GROUP BY "roundId" HAVING count(*) > 1`);
    expect(counts).toEqual([]);
    const [{ n: after }] = await postgres.admin(`SELECT count(*)::INT AS n FROM "${schema}".rates WHERE token = 'BNB'`);
    expect(after).toBe(before);
    expect(before).toBeGreaterThan(1);
  });
});
