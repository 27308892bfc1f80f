import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ANCHOR, apiRecords, emulator, payrec, payrecInProcess, tempDir } from './helpers.js';
import { duck, sql } from './mirror-helpers.js';
import { rpcNode, type Call, type CallReply, type RpcNode } from '../unit/rpc-node.js';
import { HEAD, plant, plantedChain, type Planted } from './verify-chain.js';
import type { Emulator } from '../../src/emulator/index.js';
import * as f from '../unit/chain-fixtures.js';

// `payrec verify` as a nightly CI job runs it: red on news, not on history. The
// emulator's wallet-to-wallet transfers, synced to a mirror, against a node whose chain
// is built by hand (verify-chain.ts) with a discrepancy of each kind planted; every
// expected count is taken from what was planted, never from payrec's own output.

const BAD: readonly Planted[] = ['mismatch', 'missing', 'reverted', 'spoofed', 'reorged'];

let emu: Emulator;
let records: Record<string, any>[];
let expected: Map<string, Planted>;
const nodes: RpcNode[] = [];

beforeAll(async () => {
  emu = await emulator({ records: 60 });
  records = await apiRecords(emu, '/wallet-to-wallet/transfers');
  expected = plantedChain(records).expected;
});

afterAll(async () => {
  await Promise.all([emu?.close(), ...nodes.map((n) => n.close())]);
});

/**
 * A fresh mirror of the transfers, and a node serving their planted chain (`call`: a hook
 * before its tables); `on`: an emulator of the same records. Its sync and verify run in
 * this worker (payrecInProcess, issue 48): answers held to what was planted. `asProcess`:
 * by the built binary in processes, as the gate on news runs (the first sync, exit 9).
 */
async function setup(call?: (c: Call) => CallReply | undefined, on = emu, asProcess = false) {
  const run = asProcess ? payrec : payrecInProcess;
  const chain = plantedChain(records);
  const node = await rpcNode(chain.tables, { call });
  nodes.push(node);
  const db = join(tempDir(), 'm.duckdb');
  expect((await run(on, ['sync', 'w2w/transfers', '--db', db])).exitCode).toBe(0);
  const verify = (args: string[] = []) => run(on, ['verify', 'w2w/transfers', '--db', db, '-f', 'json', ...args], { env: { PAYREC_RPC_URL: node.url } });
  return { node, db, verify };
}

const bad = (m: Map<string, Planted>) => [...m].filter(([, v]) => BAD.includes(v)).map(([h]) => h);
const stored = async (db: string) => new Map((await sql(db, 'SELECT lower(transactionHash) AS h, verdict FROM chain_verdicts')).map((r) => [String(r.h), r.verdict]));

describe('a gate on news: payrec verify --new, verify ack', () => {
  it('the first run\'s bad records are news; the next run has none; a new bad record fails --new alone; acknowledged records fail no gate', { timeout: 120_000 }, async () => {
    // An emulator of its own: records are added to it.
    const own = await emulator({ records: 60 });
    try {
      await news(own);
    } finally {
      await own.close();
    }
  });
});

async function news(emu: Emulator): Promise<void> {
  {
    const { node, db, verify } = await setup(undefined, emu, true);
    const planted = bad(expected);
    const first = await verify(['--new']);
    expect(first.exitCode).toBe(9);
    expect(first.stderr).toContain(`${planted.length} records are newly mismatch, missing, reverted, spoofed, reorged (--fail-if-any --new)`);
    // Nothing new: --new passes, the whole gate still fails on history.
    const second = await verify(['--new']);
    expect(second.stderr).toBe('');
    expect(second.exitCode).toBe(0);
    expect(JSON.parse(second.stdout)[0].new).toBe(0);
    expect((await verify()).exitCode).toBe(9);

    // A new record the chain holds with another amount (a mismatch), and others it holds as the API says.
    expect((await fetch(`${emu.url}/_emulator/records`, { method: 'POST', headers: { authorization: `Bearer ${emu.keyFor('bsc')}` }, body: JSON.stringify({ chain: 'bsc', collection: 'wallet-to-wallet/transfers', count: 6, timestamp: ANCHOR - 60 }) })).status).toBe(201);
    const added = (await apiRecords(emu, '/wallet-to-wallet/transfers')).filter((r) => !expected.has(r.transactionHash.toLowerCase()));
    expect(added).toHaveLength(6);
    const wrong = added.find((r) => r.transactionStatus === 'confirmed' && r.token !== 'BNB')!;
    expect(wrong).toBeDefined();
    added.forEach((r, i) => r.transactionStatus !== 'pending' && plant(node.tables, r, 3000 + i, r === wrong ? 'mismatch' : 'verified'));
    // --full: the new records are stamped before the first sync's end (late arrivals).
    expect((await payrecInProcess(emu, ['sync', 'w2w/transfers', '--db', db, '--full'])).exitCode).toBe(0);
    const news = await verify(['--new']);
    expect(news.exitCode).toBe(9);
    expect(news.stderr).toContain('1 record is newly mismatch, missing, reverted, spoofed, reorged (--fail-if-any --new)');
    expect(JSON.parse(news.stdout)[0]).toMatchObject({ new: added.length, mismatch: planted.filter((h) => expected.get(h) === 'mismatch').length + 1 });
    expect((await verify(['--new'])).exitCode).toBe(0);

    // Every bad record reviewed and acknowledged: the whole gate passes, the verdicts stay in the report and the table.
    const all = [...planted, wrong.transactionHash.toLowerCase()];
    const ack = await payrecInProcess(emu, ['verify', 'ack', ...all, '--reason', 'reviewed: FIN-112', '--by', 'auditor', '--db', db, '-f', 'json']);
    expect(ack.exitCode).toBe(0);
    expect((JSON.parse(ack.stdout) as any[]).map((a) => [a.transactionHash, a.verdict, a.reason, a.ackedBy]).sort()).toEqual(
      all.map((h) => [h, h === all.at(-1) ? 'mismatch' : expected.get(h), 'reviewed: FIN-112', 'auditor']).sort(),
    );
    const gate = await verify();
    expect(gate.exitCode).toBe(0);
    expect(gate.stderr).toContain(`${all.length} acknowledged records are mismatch, missing, reverted, spoofed, reorged: not counted`);
    expect(JSON.parse(gate.stdout)[0].acked).toBe(all.length);
    const acks = await payrecInProcess(emu, ['verify', 'acks', '--db', db, '-f', 'json']);
    expect((JSON.parse(acks.stdout) as any[]).map((a) => a.transactionHash).sort()).toEqual([...all].sort());
    expect((await stored(db)).get(wrong.transactionHash.toLowerCase())).toBe('mismatch');
  }
}

describe('verify ack', () => {
  it('ack refuses a malformed hash or an empty reason (exit 2, nothing written)', async () => {
    const { db } = await setup();
    const r = await payrec(emu, ['verify', 'ack', '0x12', '--reason', 'x', '--db', db]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('invalid transaction hash "0x12"');
    const empty = await payrecInProcess(emu, ['verify', 'ack', `0x${'ab'.repeat(32)}`, '--reason', ' ', '--db', db]);
    expect(empty.exitCode).toBe(2);
    expect((await payrecInProcess(emu, ['verify', 'acks', '--db', db, '-f', 'json'])).stdout.trim()).toBe('[]');
  });
});

describe('verdicts a lying or lagging node cannot fix for ever', () => {
  it('one inconsistent eth_getBlockByNumber answer marks final records reorged; the next run, against an honest node, reads their receipts and clears them', { timeout: 120_000 }, async () => {
    let lying = false;
    // The lie: every block read whole answers another hash than the chain's.
    const { node, db, verify } = await setup((c) => {
      if (!lying || c.method !== 'eth_getBlockByNumber' || typeof c.params[0] !== 'string' || !c.params[0].startsWith('0x')) return undefined;
      const n = Number(BigInt(c.params[0]));
      return { result: f.block(n, 0, 'e') };
    });
    expect((await verify()).exitCode).toBe(9);
    expect(await stored(db)).toEqual(expected);
    lying = true;
    const lied = await verify();
    const verified = [...expected.values()].filter((v) => v === 'verified').length;
    expect(JSON.parse(lied.stdout)[0].newlyReorged).toBeGreaterThanOrEqual(verified);
    lying = false;
    const before = node.calls('eth_getTransactionReceipt').length;
    const honest = await verify();
    expect(JSON.parse(honest.stdout)[0].newlyReorged).toBe(0);
    expect(await stored(db)).toEqual(expected);
    // Their receipts were read again (not only their blocks).
    expect(node.calls('eth_getTransactionReceipt').length - before).toBeGreaterThanOrEqual(verified);
  });

  it('a record a later sync changed is judged again, though its verdict was final', async () => {
    const { node, db, verify } = await setup();
    await verify();
    // A confirmed record the chain verifies (a failed one is judged by its reverted transaction alone).
    const hash = records.find((r) => r.transactionStatus === 'confirmed' && expected.get(r.transactionHash.toLowerCase()) === 'verified')!.transactionHash.toLowerCase();
    expect((await stored(db)).get(hash)).toBe('verified');
    // What a sync that rewrote the record leaves: another receiver (the service changed it), its last_updated after its verdict's checkedAt.
    await duck(db, `UPDATE payrec_store.wallet_to_wallet_transfers SET receiver = '${f.CAROL}', last_updated = now() + INTERVAL 1 MINUTE WHERE lower(transactionHash) = '${hash}'`);
    const before = node.calls('eth_getTransactionReceipt').length;
    await verify();
    expect(node.calls('eth_getTransactionReceipt').slice(before).map((c) => String(c.params[0]).toLowerCase())).toContain(hash);
    // Judged again on the record as it is now, not kept from the old verdict: the chain paid the old receiver.
    expect((await stored(db)).get(hash)).toBe('mismatch');
  });

  it('--recheck re-judges chosen verdicts even when final', async () => {
    const { node, verify } = await setup();
    await verify();
    const mismatched = bad(expected).filter((h) => expected.get(h) === 'mismatch');
    const before = node.calls('eth_getTransactionReceipt').length;
    await verify(['--recheck', 'mismatch']);
    const asked = node.calls('eth_getTransactionReceipt').slice(before).map((c) => String(c.params[0]).toLowerCase());
    for (const h of mismatched) expect(asked).toContain(h);
    expect((await verify(['--recheck', 'nonsense'])).exitCode).toBe(2);
  });
});

describe('re-runs cost what is new', () => {
  it('a second run against a node with a finalized block reads no final record\'s block or receipt: only the open ones', async () => {
    const { node, verify } = await setup();
    // Every planted block but the unconfirmed one (near the head) is final.
    node.tables.finalized = HEAD - 1000;
    await verify();
    const firstCalls = node.requests.flatMap((r) => r.calls).length;
    const mark = node.requests.length;
    await verify();
    const second = node.requests.slice(mark).flatMap((r) => r.calls);
    // Open on the chain: missing and unconfirmed; the planted reorged one's block is final, so its verdict is too.
    const open = [...expected].filter(([, v]) => v === 'missing' || v === 'unconfirmed').map(([h]) => h);
    const receipts = second.filter((c) => c.method === 'eth_getTransactionReceipt').map((c) => String(c.params[0]).toLowerCase());
    expect(receipts.sort()).toEqual(open.sort());
    const heights = second.filter((c) => c.method === 'eth_getBlockByNumber' && String(c.params[0]).startsWith('0x')).map((c) => Number(BigInt(String(c.params[0]))));
    // Blocks: only the unconfirmed one's (near the head), none of a final record.
    expect(heights.every((h) => h > HEAD - 1000)).toBe(true);
    expect(second.length).toBeLessThan(firstCalls / 4);
  });
});

describe('payrec verify --from/--to/--period: a window of the mirror', () => {
  it('checks and counts only the records stamped in the window', async () => {
    const { verify } = await setup();
    const sorted = [...records].sort((a, b) => a.timestamp - b.timestamp);
    const cut = sorted[Math.floor(sorted.length / 2)].timestamp;
    const inside = records.filter((r) => r.timestamp <= cut);
    const r = await verify(['--to', String(cut), '--fail-if-any', 'pending']);
    const [report] = JSON.parse(r.stdout);
    expect(report.checked).toBe(inside.length);
    const counts: Record<string, number> = {};
    for (const x of inside) counts[expected.get(x.transactionHash.toLowerCase())!] = (counts[expected.get(x.transactionHash.toLowerCase())!] ?? 0) + 1;
    for (const [v, n] of Object.entries(counts)) expect(report[v], v).toBe(n);
    expect((await verify(['--period', 'nonsense'])).exitCode).toBe(2);
  });
});
