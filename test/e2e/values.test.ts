import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANCHOR, emulator, inFrontOf, payrec, tempDir } from './helpers.js';
import type { Emulator } from '../../src/emulator/index.js';
import { atto, frac } from '../oracle/exact.js';

// --currency end to end: the built payrec against the emulator's API and chain. Every
// expected value is computed here from the emulator's ground truth (its records, and each
// feed's rounds from GET /_emulator/chain/feeds) with BigInt arithmetic: the round in
// force by a scan of every round, value = amount × rate rounded half to even at 18 places.

interface Round { roundId: string; answer: string; updatedAt: number }
interface Feed { address: string; pair: string; phases: { decimals: number; rounds: Round[] }[] }

let emu: Emulator;
let quiet: Emulator;
const feeds: Record<string, Feed[]> = {};
const env = { PAYREC_EMULATOR_NOW: '2026-01-01T00:00:00Z' };

beforeAll(async () => {
  [emu, quiet] = await Promise.all([emulator(), emulator({ records: 0 })]);
  for (const chain of ['bsc', 'ethereum']) feeds[chain] = ((await (await fetch(`${emu.url}/_emulator/chain/feeds?chain=${chain}`)).json()) as { feeds: Feed[] }).feeds;
});
afterAll(async () => {
  await Promise.all([emu?.close(), quiet?.close()]);
});

const run = (args: string[], chain = 'bsc') => payrec(emu, ['--chain', chain, ...args], { chain, env: { ...env, PAYREC_RPC_URL: emu.rpcUrl(chain) } });

/** The round in force at t (greatest updatedAt ≤ t), by a scan, with its phase's decimals. */
function inForce(chain: string, pair: string, t: number): Round & { decimals: number; feed: string } {
  const f = feeds[chain].find((x) => x.pair === pair)!;
  const all = f.phases.flatMap((p) => p.rounds.map((r) => ({ ...r, decimals: p.decimals, feed: f.address.toLowerCase() })));
  return all.filter((r) => r.updatedAt <= t).at(-1)!;
}

describe('--currency on a list', () => {
  it('stops at a missing rate (exit 11, nothing printed, lines to fill), then values every record once they are filled, the file winning over the feed', async () => {
    const dir = tempDir();
    const missing = await run(['ot', 'transfers', '--currency', 'USD', '--period', '2025-12', '-f', 'csv']);
    expect(missing.exitCode).toBe(11);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/bsc 8PAY → USD: \d+ records? from 2025-12-\d\dT.*no Chainlink feed of 8PAY on bsc/);
    expect(missing.stderr).toMatch(/bsc BUSD → USD: .*a stale or retired feed/);
    // To a file (written as it goes, renamed into place at the end): the file the user had stays as it was, no temporary is left.
    const out = join(dir, 'december.csv');
    writeFileSync(out, 'before\n');
    const toFile = await run(['ot', 'transfers', '--currency', 'USD', '--period', '2025-12', '-o', out]);
    expect(toFile.exitCode).toBe(11);
    expect(readFileSync(out, 'utf8')).toBe('before\n');
    expect(readdirSync(dir)).toEqual(['december.csv']);
    const toFill = missing.stderr.split('\n').filter((l) => /^2025-12-\d\d,bsc,(8PAY|BUSD),USD,,$/.test(l));
    expect(toFill.length).toBeGreaterThan(1);
    // Filled as a finance team would, and a BNB row for every day: the team's BNB rate, not the feed's.
    const filled = toFill.map((l) => l.replace(/,,$/, `,${l.includes('8PAY') ? '0.0512' : '1.0001'},desk`));
    const bnb = Array.from({ length: 31 }, (_, d) => `2025-12-${String(d + 1).padStart(2, '0')},bsc,BNB,USD,600.5,policy`);
    const lines = ['time,chain,token,currency,rate,source', ...filled, ...bnb];
    const file = join(dir, 'rates.csv');
    writeFileSync(file, lines.join('\n') + '\n');

    const r = await run(['ot', 'transfers', '--currency', 'USD', '--period', '2025-12', '--rates', file, '-f', 'json']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const records = JSON.parse(r.stdout) as Record<string, any>[];
    const truth = (await (await fetch(`${emu.url}/_emulator/records?chain=bsc&collection=one-time/transfers`)).json()) as { records: Record<string, any>[] };
    const inDecember = truth.records.filter((x) => x.timestamp >= ANCHOR - 31 * 86_400 && x.timestamp < ANCHOR);
    expect(records.length).toBe(inDecember.length);
    const tokens = new Set<string>();
    for (const x of records) {
      tokens.add(x.token);
      const day = new Date(x.timestamp * 1000).toISOString().slice(0, 10);
      let rate: [bigint, bigint];
      if (['8PAY', 'BUSD', 'BNB'].includes(x.token)) {
        const line = lines.findIndex((l) => l.startsWith(`${day},bsc,${x.token},`));
        expect(x.rateSource).toBe(`file:rates.csv:${line + 1}`);
        rate = frac(lines[line].split(',')[4]);
      } else {
        const round = inForce('bsc', `${x.token} / USD`, x.timestamp);
        expect(x.rateSource).toBe(`chainlink:bsc:${round.feed}:round=${round.roundId}`);
        expect(x.rateTime).toBe(round.updatedAt);
        rate = [BigInt(round.answer), 10n ** BigInt(round.decimals)];
      }
      const [a, ad] = frac(x.amount);
      const [f, fd] = frac(x.fee);
      expect(x.value).toBe(atto(a * rate[0], ad * rate[1]));
      expect(x.feeValue).toBe(atto(f * rate[0], fd * rate[1]));
    }
    // The data is what the test claims: feed tokens and file tokens both appear.
    expect([...tokens].sort()).toEqual(['8PAY', 'BNB', 'BUSD', 'USDC', 'USDT']);

    // --summary: per token and status the exact sum of the lines, and per status across tokens.
    const s = await run(['ot', 'transfers', '--currency', 'USD', '--period', '2025-12', '--rates', file, '--summary', '-f', 'json']);
    expect(s.exitCode).toBe(0);
    const totals = (JSON.parse(s.stdout) as { totals: Record<string, any>[] }).totals;
    // Each value in units of 10^-18 (it has at most 18 places), added as BigInts.
    const sum = (xs: Record<string, any>[], k: string) => atto(xs.reduce((t, x) => t + (frac(x[k])[0] * 10n ** 18n) / frac(x[k])[1], 0n), 10n ** 18n);
    for (const row of totals) {
      const mine = records.filter((x) => (row.token === '*' || x.token === row.token) && x.transactionStatus === row.status);
      expect(row.count).toBe(mine.length);
      expect(row.value).toBe(sum(mine, 'value'));
      expect(row.feeValue).toBe(sum(mine, 'feeValue'));
    }
    expect(totals.filter((t) => t.token === '*').map((t) => t.status)).toEqual(['confirmed', 'pending', 'failed']);
  });

  it('goes through USD once for EUR: ETH → USD × 1/(EUR → USD), exactly', async () => {
    const r = await run(['ot', 'transfers', '--currency', 'EUR', '--period', '2025-12', '--token', 'ETH', '-f', 'json'], 'ethereum');
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const records = JSON.parse(r.stdout) as Record<string, any>[];
    expect(records.length).toBeGreaterThan(0);
    for (const x of records) {
      const eth = inForce('ethereum', 'ETH / USD', x.timestamp);
      const eur = inForce('ethereum', 'EUR / USD', x.timestamp);
      expect(x.rateSource).toBe(`chainlink:ethereum:${eth.feed}:round=${eth.roundId} × 1/chainlink:ethereum:${eur.feed}:round=${eur.roundId}`);
      const [a, ad] = frac(x.amount);
      // amount × (eth / 10^8) ÷ (eur / 10^8)
      expect(x.value).toBe(atto(a * BigInt(eth.answer) * 10n ** BigInt(eur.decimals), ad * BigInt(eur.answer) * 10n ** BigInt(eth.decimals)));
      expect(x.rateTime).toBe(Math.min(eth.updatedAt, eur.updatedAt));
    }
  });

  it('shows the minor unit in a table, marked ~ where rounded', async () => {
    const r = await run(['ot', 'transfers', '--currency', 'USD', '--period', '2025-12', '--token', 'USDT', '--columns', 'amount,value']);
    expect(r.exitCode).toBe(0);
    const rows = r.stdout.trim().split('\n').slice(1);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.split('\t')[1]).toMatch(/^~?\d+\.\d\d$/);
  });
});

describe('the profile: config set currency, config set feed', () => {
  it('values with the stored currency, and reads a token from the feed a profile names (sandbox has none in ONCHAIN §10)', async () => {
    const home = { ...env, PAYREC_CONFIG_DIR: tempDir(), PAYREC_RPC_URL: emu.rpcUrl('sandbox') };
    const sandbox = ((await (await fetch(`${emu.url}/_emulator/chain/feeds?chain=sandbox`)).json()) as { feeds: Feed[] }).feeds;
    const usdt = sandbox.find((f) => f.pair === 'USDT / USD')!;
    const set = (args: string[]) => payrec(emu, ['config', 'set', ...args], { env: home, chain: 'sandbox' });
    expect((await set(['currency', 'usd'])).exitCode).toBe(0);
    expect((await set(['feed', 'USDT', usdt.address, '--chain', 'sandbox'])).exitCode).toBe(0);
    expect((await set(['feed', 'USDT', 'nowhere'])).exitCode).toBe(2);
    const r = await payrec(emu, ['--chain', 'sandbox', 'ot', 'transfers', '--period', '2025-12', '--token', 'USDT', '-f', 'json'], { env: home, chain: 'sandbox' });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const records = JSON.parse(r.stdout) as Record<string, any>[];
    expect(records.length).toBeGreaterThan(0);
    for (const x of records) {
      const rounds = usdt.phases.flatMap((p) => p.rounds.map((q) => ({ ...q, decimals: p.decimals })));
      const round = rounds.filter((q) => q.updatedAt <= x.timestamp).at(-1)!;
      expect(x.rateSource).toBe(`chainlink:sandbox:${usdt.address.toLowerCase()}:round=${round.roundId}`);
      const [a, ad] = frac(x.amount);
      expect(x.value).toBe(atto(a * BigInt(round.answer), ad * 10n ** BigInt(round.decimals)));
    }
  });
});

describe('bad input is exit 2 before any request', () => {
  const bad = async (args: string[], message: RegExp) => {
    quiet.clearLog();
    const r = await payrec(quiet, args, { env: { ...env, PAYREC_RPC_URL: quiet.rpcUrl('bsc') } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(quiet.requests).toEqual([]);
  };

  it('an unknown currency, --rate-max-age nonsense, a malformed rates file, --currency with sql', async () => {
    await bad(['ot', 'transfers', '--currency', 'XYZ'], /invalid --currency "XYZ": XYZ is not an ISO 4217 currency/);
    await bad(['ot', 'transfers', '--currency', 'USD', '--rate-max-age', 'soon'], /invalid --rate-max-age "soon"/);
    await bad(['ot', 'transfers', '--rates', 'x.csv'], /--rates goes with --currency/);
    const file = join(tempDir(), 'rates.csv');
    writeFileSync(file, 'time,chain,token,currency,rate,source\n2025-12-01,bsc,BNB,USD,600,desk\n2025-12-02T10:00:00,bsc,BNB,USD,601,desk\n');
    await bad(['ot', 'transfers', '--currency', 'USD', '--rates', file], /rates\.csv:3: time "2025-12-02T10:00:00" has no zone/);
    await bad(['sql', 'SELECT 1', '--currency', 'USD'], /--currency/);
  });
});

describe('a node that lies is never taken for a rate', () => {
  const lyingNode = (change: Parameters<typeof inFrontOf>[1]) => inFrontOf(emu.rpcUrl('bsc'), change);

  it('another chain id is exit 2 before the API is asked', async () => {
    const node = await lyingNode((c, a) => (c.method === 'eth_chainId' ? { ...a, result: '0x1' } : a));
    emu.clearLog();
    const r = await payrec(emu, ['ot', 'transfers', '--currency', 'USD', '--period', '2025-12'], { env: { ...env, PAYREC_RPC_URL: node.url } });
    node.server.close();
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/serves chain id 1 \(ethereum\), not bsc/);
    expect(emu.requests).toEqual([]);
  });

  it('zeros for every call give no rate (exit 11 naming the feed), never a value', async () => {
    const node = await lyingNode((c, a) => (c.method === 'eth_call' ? { ...a, result: `0x${'0'.repeat(64)}` } : a));
    const r = await payrec(emu, ['ot', 'transfers', '--currency', 'USD', '--period', '2025-12', '--token', 'USDT', '-f', 'json'], { env: { ...env, PAYREC_RPC_URL: node.url } });
    node.server.close();
    expect(r.exitCode).toBe(11);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/bsc USDT → USD: .*the feed at 0xb97ad0e74fa7d920791e90258a6e2085088b4320 (describes itself as "", not "USDT \/ USD"|does not answer as a Chainlink feed)/);
  });
});
