import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiRecords, emulator, parseCsv, payrec, payrecInProcess, tempDir } from './helpers.js';
import { sql } from './mirror-helpers.js';
import { rpcNode, type RpcNode } from '../unit/rpc-node.js';
import { plantedChain, plantedSetup, units, type Planted } from './verify-chain.js';
import type { Emulator } from '../../src/emulator/index.js';
import * as f from '../unit/chain-fixtures.js';

// `payrec verify` on a mirror, end to end: the emulator's wallet-to-wallet transfers
// synced into a mirror, checked against a JSON-RPC node whose chain is built by hand
// with a discrepancy of each kind (verify-chain.ts). The stored verdicts are held
// against the planted ones; a second run is held to asking only about records not
// final, and to noticing a block hash that changed.

let emu: Emulator;
let node: RpcNode;
let records: Record<string, any>[];
let expected: Map<string, Planted>;
let db: string;

beforeAll(async () => {
  ({ emu, records, expected, node } = await plantedSetup());
  db = join(tempDir(), 'm.duckdb');
  const synced = await payrec(emu, ['sync', 'w2w/transfers', '--db', db]);
  expect(synced.exitCode).toBe(0);
});

afterAll(async () => {
  await Promise.all([emu?.close(), node?.close()]);
});

const verify = (args: string[] = [], run: typeof payrec | typeof payrecInProcess = payrec) => run(emu, ['verify', 'w2w/transfers', '--db', db, '-f', 'json', ...args], { env: { PAYREC_RPC_URL: node.url } });
const stored = async () => new Map((await sql(db, 'SELECT transactionHash, verdict FROM chain_verdicts')).map((r) => [String(r.transactionHash).toLowerCase(), r.verdict]));

describe('payrec verify on the mirror', () => {
  it('stores each record\'s verdict in chain_verdicts, counts them, and exits 9 on bad ones', async () => {
    const r = await verify();
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toMatch(/are mismatch, missing, reverted, spoofed, reorged \(--fail-if-any\)/);
    expect(await stored()).toEqual(expected);
    const counts: Record<string, number> = {};
    for (const v of expected.values()) counts[v] = (counts[v] ?? 0) + 1;
    const [report] = JSON.parse(r.stdout) as Record<string, number>[];
    expect(report).toMatchObject({ collection: 'wallet-to-wallet/transfers', checked: records.length, newlyReorged: 0, ...counts });
  });

  it('chain_verdicts joins the records in payrec sql', async () => {
    const rows = await sql(db, "SELECT t.amount, v.verdict, v.chainDiff FROM wallet_to_wallet_transfers t JOIN chain_verdicts v USING (transactionHash) WHERE v.verdict = 'mismatch'");
    expect(rows).toHaveLength(1);
    expect((rows[0].chainDiff as any[])[0]).toMatchObject({ field: 'amount', api: rows[0].amount });
    // payrec sql -f csv writes chainDiff as --verify's CSV does: the planted amount, one base unit more.
    const mismatched = records.find((r) => expected.get(r.transactionHash.toLowerCase()) === 'mismatch')!;
    const chain = (units(mismatched.amount) + 1n).toString().padStart(19, '0');
    const csv = await payrecInProcess(undefined, ['sql', '--db', db, '-f', 'csv', "SELECT chainDiff FROM chain_verdicts WHERE verdict = 'mismatch'"]);
    expect(parseCsv(csv.stdout)).toEqual([['chainDiff'], [`amount ${mismatched.amount} → ${`${chain.slice(0, -18)}.${chain.slice(-18)}`.replace(/\.?0+$/, '')}`]]);
  });

  it('a second run asks the chain only about records not final, and notices a final record whose block changed (reading its receipt again)', async () => {
    // Not final: missing, unconfirmed, and reorged (this node names no finalized block, so no reorged block is final).
    const open = [...expected].filter(([, v]) => v === 'missing' || v === 'unconfirmed' || v === 'reorged').map(([h]) => h);
    const verified = records.findIndex((r) => expected.get(r.transactionHash.toLowerCase()) === 'verified' && r.transactionStatus === 'confirmed');
    // The chain reorganises: the verified record's block is now another one.
    node.tables.blocks!.set(1000 + verified, f.block(1000 + verified, records[verified].timestamp, 'd'));
    const before = node.calls('eth_getTransactionReceipt').length;
    // The file's first verify was a process: this one runs in this worker (issue 48).
    const r = await verify(['--fail-if-any', 'pending'], payrecInProcess);
    const asked = node.calls('eth_getTransactionReceipt').slice(before).map((c) => String(c.params[0]).toLowerCase());
    expect(asked.sort()).toEqual([...open, records[verified].transactionHash.toLowerCase()].sort());
    const [report] = JSON.parse(r.stdout) as Record<string, number>[];
    expect(report.newlyReorged).toBe(1);
    expect(report.reorged).toBe([...expected.values()].filter((v) => v === 'reorged').length + 1);
    expect((await stored()).get(records[verified].transactionHash.toLowerCase())).toBe('reorged');
    // --fail-if-any pending: the emulator has pending records.
    expect(r.exitCode).toBe([...expected.values()].includes('pending') ? 9 : 0);
  });

  it('refuses another chain\'s node (exit 2) and a missing mirror (exit 2)', async () => {
    const other = await rpcNode({ chainId: 137, head: 1 });
    try {
      const r = await payrec(emu, ['verify', '--db', db], { env: { PAYREC_RPC_URL: other.url } });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/chain id 137 \(polygon\), not bsc/);
    } finally {
      await other.close();
    }
    const none = await payrecInProcess(emu, ['verify', '--db', join(tempDir(), 'none.duckdb')], { env: { PAYREC_RPC_URL: node.url } });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/there is no mirror at/);
  });
});

/**
 * The larger emulator of the two interrupted runs, its wallet-to-wallet records synced once
 * (a process): each test verifies a copy of its own (issue 48: one emulator and one sync, not two).
 */
let bigSetup: Promise<{ big: Emulator; all: Record<string, any>[]; synced: string }> | undefined;
async function bigCopy(): Promise<{ big: Emulator; all: Record<string, any>[]; file: string }> {
  bigSetup ??= (async () => {
    const big = await emulator({ records: 2500 });
    const synced = join(tempDir(), 'big.duckdb');
    expect((await payrec(big, ['sync', 'w2w/transfers', 'w2w/payments', '--db', synced])).exitCode).toBe(0);
    return { big, all: await apiRecords(big, '/wallet-to-wallet/transfers'), synced };
  })();
  const { big, all, synced } = await bigSetup;
  const file = join(tempDir(), 'big.duckdb');
  copyFileSync(synced, file);
  return { big, all, file };
}
afterAll(async () => (await bigSetup)?.big.close());

describe('an interrupted payrec verify keeps what it verified', () => {
  it('Ctrl-C after the first batch: exit 130, that batch kept; the next run asks only about the rest', async () => {
    const { big, all, file } = await bigCopy();
    const chain = plantedChain(all);
    let slow = true;
    // Slow answers once the first batch is in: time to see it committed, and to stop the run.
    const sleepy = await rpcNode(chain.tables, { http: async () => (slow && (await new Promise((r) => setTimeout(r, 400))), undefined) });
    try {
      const child = payrec(big, ['verify', 'w2w/transfers', '--db', file], { env: { PAYREC_RPC_URL: sleepy.url } });
      // Read in this worker while the run goes on: a poll is no process start (issue 48).
      const count = async () => {
        const r = await payrecInProcess(undefined, ['sql', '--db', file, '-f', 'json', 'SELECT count(*)::INTEGER AS n FROM chain_verdicts']);
        return r.exitCode === 0 ? (JSON.parse(r.stdout)[0].n as number) : 0;
      };
      let kept = 0;
      while ((kept = await count()) === 0) await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGINT');
      const stopped = await child;
      expect(stopped.exitCode).toBe(130);
      kept = await count();
      expect(kept).toBeGreaterThanOrEqual(1000);
      expect(kept).toBeLessThan(all.length);
      slow = false;
      const before = sleepy.calls('eth_getTransactionReceipt').length;
      const again = await payrecInProcess(big, ['verify', 'w2w/transfers', '--db', file, '-f', 'json', '--fail-if-any', 'spoofed'], { env: { PAYREC_RPC_URL: sleepy.url } });
      expect([0, 9]).toContain(again.exitCode);
      // Receipts asked again: the records not judged before, and the open ones among those judged.
      const asked = sleepy.calls('eth_getTransactionReceipt').length - before;
      expect(asked).toBeLessThanOrEqual(all.length - kept + 10);
      expect(await count()).toBe(all.length);
    } finally {
      await sleepy.close();
    }
  });
});

describe('a payrec verify the node stops part-way', () => {
  it('exit 7, and its -f json report says what was verified: the collection it stopped in (the batches kept), those not reached', { timeout: 180_000 }, async () => {
    const { big, all, file } = await bigCopy();
    const chain = plantedChain(all);
    // Batches go in time order: the receipts of the latest records are asked last. The
    // node fails (503, every time) as soon as one of them is asked.
    const late = new Set(all.filter((r) => r.transactionStatus !== 'pending').sort((a, b) => b.timestamp - a.timestamp).slice(0, 300).map((r) => r.transactionHash.toLowerCase()));
    const failing = await rpcNode(chain.tables, {
      http: (req) => (req.calls.some((c) => c.method === 'eth_getTransactionReceipt' && late.has(String(c.params[0]).toLowerCase())) ? { status: 503, headers: { 'content-type': 'text/plain' }, body: 'down' } : undefined),
    });
    try {
      const r = await payrec(big, ['verify', 'w2w/transfers', 'w2w/payments', '--db', file, '-f', 'json', '--retries', '0'], { env: { PAYREC_RPC_URL: failing.url } });
      expect(r.exitCode).toBe(7);
      const [stopped, later, ...rest] = JSON.parse(r.stdout) as Record<string, any>[];
      expect(rest).toEqual([]);
      expect(stopped.collection).toBe('wallet-to-wallet/transfers');
      expect(stopped.note).toMatch(/^stopped: .*503/);
      expect(r.stderr).toMatch(/^error: .*503/);
      // The verdicts counted are those the mirror kept, each the one planted for its record.
      const kept = await sql(file, 'SELECT lower(transactionHash) AS h, verdict FROM chain_verdicts');
      expect(kept.length).toBeGreaterThanOrEqual(1000);
      expect(kept.length).toBeLessThan(all.length);
      const counts: Record<string, number> = {};
      for (const { h, verdict } of kept) {
        expect(verdict, String(h)).toBe(chain.expected.get(String(h)));
        counts[String(verdict)] = (counts[String(verdict)] ?? 0) + 1;
      }
      expect(stopped.checked).toBe(kept.length);
      for (const v of ['verified', 'pending', 'missing', 'reorged', 'unconfirmed', 'reverted', 'spoofed', 'mismatch']) expect(stopped[v], v).toBe(counts[v] ?? 0);
      expect(later).toMatchObject({ collection: 'wallet-to-wallet/payments', checked: 0, verified: 0, note: 'not checked: the run stopped at wallet-to-wallet/transfers' });
    } finally {
      await failing.close();
    }
  });
});
