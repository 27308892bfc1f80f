import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv, payrec, payrecInProcess } from './helpers.js';
import { rpcNode, type RpcNode } from '../unit/rpc-node.js';
import { HEAD, plantedSetup, units, type Planted } from './verify-chain.js';
import type { Emulator } from '../../src/emulator/index.js';
import * as f from '../unit/chain-fixtures.js';

// `--verify` on a list, end to end: the built payrec against the emulator's API and a
// JSON-RPC node written in the tests, whose chain is built by hand from the emulator's
// wallet-to-wallet transfers with a discrepancy of each kind planted (verify-chain.ts);
// payrec's verdicts are held against the planted ones.

let emu: Emulator;
let node: RpcNode;
let records: Record<string, any>[];
/** transactionHash → the verdict planted. */
let expected: Map<string, Planted>;

beforeAll(async () => {
  ({ emu, records, expected, node } = await plantedSetup());
});

afterAll(async () => {
  await Promise.all([emu?.close(), node?.close()]);
});

/**
 * A list with --verify. The verdicts and counts run in this worker (payrecInProcess, issue 48);
 * the built binary runs the first list, exit 9, the refusal of another chain's node and the
 * masking of a key-bearing URL (exit 7, --debug).
 */
const run = (args: string[], env: Record<string, string> = {}, runner: typeof payrec | typeof payrecInProcess = payrecInProcess) =>
  runner(emu, ['wallet-to-wallet', 'transfers', '--all', '--verify', ...args], { env: { PAYREC_RPC_URL: node.url, ...env } });

describe('--verify on a list', () => {
  it('gives each record the verdict planted on the chain', async () => {
    const r = await run(['-f', 'json'], {}, payrec);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, any>[];
    expect(out).toHaveLength(records.length);
    const got = new Map(out.map((x) => [String(x.transactionHash).toLowerCase(), x.verdict]));
    expect(got).toEqual(expected);
    // Every kind was planted (the test data is what it claims to be).
    expect(new Set(expected.values())).toEqual(new Set(['verified', 'pending', 'missing', 'reorged', 'unconfirmed', 'reverted', 'spoofed', 'mismatch']));
  });

  it('says what differs, as {field, api, chain} in JSON and as text in CSV', async () => {
    const mismatched = records.find((r) => expected.get(r.transactionHash.toLowerCase()) === 'mismatch')!;
    const chainAmount = units(mismatched.amount) + 1n;
    const text = chainAmount.toString().padStart(19, '0');
    const shown = `${text.slice(0, -18)}.${text.slice(-18)}`.replace(/\.?0+$/, '');
    const json = JSON.parse((await run(['-f', 'json', '--verdict', 'mismatch'])).stdout) as Record<string, any>[];
    expect(json).toHaveLength(1);
    expect(json[0].chainDiff).toEqual([{ field: 'amount', api: mismatched.amount, chain: shown }]);
    expect(json[0].blockNumber).toBe(1000 + records.indexOf(mismatched));
    expect(json[0].confirmations).toBe(HEAD - (1000 + records.indexOf(mismatched)) + 1);
    const csv = parseCsv((await run(['-f', 'csv', '--verdict', 'mismatch'])).stdout);
    expect(csv[1][csv[0].indexOf('chainDiff')]).toBe(`amount ${mismatched.amount} → ${shown}`);
  });

  it('--verdict bad --fail-if-any is the CI gate: exit 9, counting mismatch, missing, reverted, spoofed, reorged', async () => {
    const bad = [...expected.values()].filter((v) => ['mismatch', 'missing', 'reverted', 'spoofed', 'reorged'].includes(v)).length;
    const r = await run(['--verdict', 'bad', '--fail-if-any', '--count'], {}, payrec);
    expect(r.exitCode).toBe(9);
    expect(r.stdout).toBe(`${bad}\n`);
  });

  it('--summary counts verdicts in every format that prints counts (json, jsonl, table); csv holds the totals alone, as without --verify', async () => {
    const counts: Record<string, number> = {};
    for (const v of expected.values()) counts[v] = (counts[v] ?? 0) + 1;
    expect(JSON.parse((await run(['--summary', '-f', 'json'])).stdout).verdicts).toEqual(counts);
    const jsonl = (await run(['--summary', '-f', 'jsonl'])).stdout;
    expect(jsonl.split('\n')).toHaveLength(2);
    expect(JSON.parse(jsonl).verdicts).toEqual(counts);
    const table = (await run(['--summary', '-f', 'table'])).stdout;
    const lines = new Map(table.split('\n').filter((l) => /^verdict\.[a-z]+\t/.test(l)).map((l) => l.split('\t') as [string, string]));
    expect(lines).toEqual(new Map(Object.entries(counts).map(([v, n]) => [`verdict.${v}`, String(n)])));
    const plain = await payrecInProcess(emu, ['wallet-to-wallet', 'transfers', '--all', '--summary', '-f', 'csv']);
    expect((await run(['--summary', '-f', 'csv'])).stdout).toBe(plain.stdout);
  });

  it('--confirmations: 4 makes the unconfirmed record verified', async () => {
    const out = JSON.parse((await run(['-f', 'json', '--confirmations', '4'])).stdout) as Record<string, any>[];
    expect(out.filter((x) => x.verdict === 'unconfirmed')).toHaveLength(0);
  });

  it('each bad verdict says why, first in chainDiff, as planted; each record links its explorer page', async () => {
    const out = JSON.parse((await run(['-f', 'json'])).stdout) as Record<string, any>[];
    const at = (x: Record<string, any>) => records.findIndex((r) => r.transactionHash === x.transactionHash);
    const reasons = new Map(out.map((x) => [expected.get(x.transactionHash.toLowerCase()), { x, why: x.chainDiff[0] }]));
    expect(reasons.get('missing')!.why).toEqual({ field: 'receipt', api: 'mined', chain: null, note: 'no receipt, no transaction at the node' });
    const reorged = reasons.get('reorged')!;
    // Planted: the receipt names block 'b' of its height, the canonical block there is 'c'.
    expect(reorged.why).toMatchObject({ field: 'blockHash', api: f.blockHash(1000 + at(reorged.x)), chain: f.blockHash(1000 + at(reorged.x), 'c') });
    // Planted 3 blocks below the head (HEAD - 3): 4 confirmations of DESIGN's 15.
    expect(reasons.get('unconfirmed')!.why).toMatchObject({ field: 'confirmations', api: 15, chain: 4 });
    expect(reasons.get('reverted')!.why).toMatchObject({ field: 'transactionStatus', api: 'confirmed', chain: 'reverted' });
    const spoofed = reasons.get('spoofed')!;
    expect(spoofed.why).toMatchObject({ field: 'Transfer (token) emitter', chain: f.LOOKALIKE });
    expect(reasons.get('verified')!.x.chainDiff).toEqual([]);
    // bsc's explorer (DESIGN.md), each transaction's own page.
    for (const x of out) expect(x.explorer).toBe(`https://bscscan.com/tx/${x.transactionHash.toLowerCase()}`);
  });

  it('--summary with --verify adds the amount per verdict and token, exact', async () => {
    const sums: Record<string, Record<string, bigint>> = {};
    for (const r of records) {
      const v = expected.get(r.transactionHash.toLowerCase())!;
      (sums[v] ??= {})[r.token] = (sums[v][r.token] ?? 0n) + units(r.amount);
    }
    const text = (n: bigint) => {
      const s = n.toString().padStart(19, '0');
      return `${s.slice(0, -18)}.${s.slice(-18)}`.replace(/\.?0+$/, '');
    };
    const want = Object.fromEntries(Object.entries(sums).map(([v, byToken]) => [v, Object.fromEntries(Object.entries(byToken).map(([t, n]) => [t, text(n)]))]));
    expect(JSON.parse((await run(['--summary', '-f', 'json'])).stdout).verdictAmounts).toEqual(want);
  });

  it('payrec transfers --verify checks each product\'s records the same way', async () => {
    const r = await payrecInProcess(emu, ['transfers', '--product', 'w2w', '--all', '--verify', '-f', 'json'], { env: { PAYREC_RPC_URL: node.url } });
    const got = new Map((JSON.parse(r.stdout) as Record<string, any>[]).map((x) => [String(x.transactionHash).toLowerCase(), x.verdict]));
    expect(got).toEqual(expected);
  });

  it('the API key never goes to the RPC node', async () => {
    const key = emu.keyFor('bsc');
    for (const req of node.requests) {
      expect(JSON.stringify(req.headers)).not.toContain(key);
      expect(req.headers.authorization).toBeUndefined();
      expect(req.body).not.toContain(key);
    }
    expect(node.requests.length).toBeGreaterThan(0);
  });
});

describe('--verify refuses what it cannot do, before the API is asked', () => {
  it('another chain\'s node: exit 2, nothing asked of the API', async () => {
    const other = await rpcNode({ chainId: 1, head: 10 });
    try {
      emu.clearLog();
      const r = await run(['-f', 'json'], { PAYREC_RPC_URL: other.url }, payrec);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/serves chain id 1 \(ethereum\), not bsc \(56\): nothing was verified/);
      expect(r.stdout).toBe('');
      expect(emu.requests).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('a node that keeps failing mid-way: exit 7, nothing half printed, its key-bearing URL masked', async () => {
    const failing = await rpcNode(node.tables, {
      path: '/v3/s3cretProviderKey42',
      http: (req) => (req.calls.some((c) => c.method === 'eth_getTransactionReceipt') ? { status: 503, headers: { 'content-type': 'text/plain' }, body: 'down' } : undefined),
    });
    try {
      const r = await run(['-f', 'json', '--retries', '1'], { PAYREC_RPC_URL: failing.url }, payrec);
      expect(r.exitCode).toBe(7);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('/****');
      expect(r.stderr).not.toContain('s3cretProviderKey42');
    } finally {
      await failing.close();
    }
  });

  it('--debug shows RPC requests with the URL masked', async () => {
    const keyed = await rpcNode(node.tables, { path: '/v3/s3cretProviderKey42' });
    try {
      const r = await payrec(emu, ['wallet-to-wallet', 'transfers', '--limit', '3', '--verify', '--debug', '--rpc', keyed.url]);
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toMatch(/debug: RPC POST http:\/\/127\.0\.0\.1:\d+\/\*\*\*\* \(a batch of \d+ calls\)/);
      expect(r.stderr).not.toContain('s3cretProviderKey42');
    } finally {
      await keyed.close();
    }
  });

  it.each([
    [['--verdict', 'bad'], /--verdict goes with --verify/],
    [['--verify', '--verdict', 'nice'], /invalid --verdict "nice"/],
    [['--verify', '--confirmations', '0'], /invalid --confirmations "0"/],
    [['--verify', '--follow'], /--verify checks a window of records, and --follow never ends/],
    [['--verify', '--rpc', 'ftp://x'], /invalid --rpc "ftp:\/\/x\/\*\*\*\*"|invalid --rpc "ftp:\/\/x"/],
  ])('%j: exit 2', async (args, message) => {
    emu.clearLog();
    // Refusals in this worker: the binary's exit 2 is held above (another chain's node).
    const r = await payrecInProcess(emu, ['wallet-to-wallet', 'transfers', ...args]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(emu.requests).toHaveLength(0);
  });
});
