import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { ANCHOR, apiRecords, emulator, payrec, payrecInProcess, tempDir } from './helpers.js';
import { sql } from './mirror-helpers.js';
import { postgres } from './pg-helpers.js';
import { rpcNode, type Call, type CallReply, type RpcNode } from '../unit/rpc-node.js';
import { plant, plantedChain, type Planted } from './verify-chain.js';
import * as f from '../unit/chain-fixtures.js';

// payrec verify on a team's mirror (issue 47 item 6): the emulator's wallet-to-wallet
// transfers synced to a DuckDB file and to PostgreSQL, verified against a node whose
// chain is built by hand (verify-chain.ts) with a discrepancy of each kind planted. Every
// verdict is held against what was planted, and the two engines' reports against each
// other: the gate on news (--new), acknowledgements, a lying node's reorgs cleared.
//
// The built binary syncs both engines and verifies them first (exit 9) in the first test;
// every later sync, verdict, acknowledgement and list runs in this worker (payrecInProcess,
// issue 48): no process boundary is under test there, only the verdicts and the gate.

const pg = postgres.prerequisite;
const BAD: readonly Planted[] = ['mismatch', 'missing', 'reverted', 'spoofed', 'reorged'];
const bad = (m: Map<string, Planted>) => [...m].filter(([, v]) => BAD.includes(v)).map(([h]) => h);

describe.skipIf(pg.skip)(`payrec verify on a team's mirror${pg.note}`, () => {
  const nodes: RpcNode[] = [];
  let emu: Emulator;
  beforeAll(async () => {
    pg.need();
    emu = await emulator({ records: 60 });
  });
  afterAll(async () => {
    await Promise.all([emu?.close(), ...nodes.map((n) => n.close())]);
  });

  /**
   * The transfers synced to a DuckDB file and to a fresh schema; a node serving their planted
   * chain (`call`: a hook before its tables). `runner` syncs (the built binary in the first test).
   */
  async function setup(on: Emulator, call?: (c: Call) => CallReply | undefined, runner: typeof payrec | typeof payrecInProcess = payrecInProcess) {
    const records = await apiRecords(on, '/wallet-to-wallet/transfers');
    const chain = plantedChain(records);
    const node = await rpcNode(chain.tables, { call });
    nodes.push(node);
    const dbs = [join(tempDir(), 'm.duckdb'), postgres.freshUrl('verify')];
    for (const db of dbs) expect((await runner(on, ['sync', 'w2w/transfers', '--db', db])).exitCode).toBe(0);
    const verify = (db: string, args: string[] = [], run: typeof payrec | typeof payrecInProcess = payrecInProcess) =>
      run(on, ['verify', 'w2w/transfers', '--db', db, '-f', 'json', ...args], { env: { PAYREC_RPC_URL: node.url } });
    return { node, dbs, verify, expected: chain.expected };
  }

  const stored = async (db: string) => {
    const column = db.startsWith('postgres') ? '"transactionHash"' : 'transactionHash';
    return new Map((await sql(db, `SELECT lower(${column}) AS h, verdict FROM chain_verdicts`)).map((r) => [String(r.h), r.verdict]));
  };

  test('the same verdicts as DuckDB and as planted; --new fails on news only; acknowledged records fail no gate', async () => {
    // An emulator of its own: records are added to it.
    const own = await emulator({ records: 60 });
    try {
      const { node, dbs, verify, expected } = await setup(own, undefined, payrec);
      const [file, url] = dbs;
      const planted = bad(expected);
      expect(planted.length).toBeGreaterThanOrEqual(5);
      const first = await Promise.all(dbs.map((db) => verify(db, ['--new'], payrec)));
      for (const r of first) {
        expect(r.exitCode).toBe(9);
        expect(r.stderr).toContain(`${planted.length} records are newly mismatch, missing, reverted, spoofed, reorged (--fail-if-any --new)`);
      }
      expect(JSON.parse(first[1].stdout)).toEqual(JSON.parse(first[0].stdout));
      const [report] = JSON.parse(first[1].stdout);
      expect(report.checked).toBe(expected.size);
      for (const v of new Set(expected.values())) expect(report[v], v).toBe([...expected.values()].filter((x) => x === v).length);
      expect(await stored(url)).toEqual(expected);
      expect(await stored(file)).toEqual(expected);

      // Nothing new: --new passes, the whole gate still fails on history; only open verdicts are judged again
      // (and the reorged one: the node tells no final block, so its block could change again).
      const second = await Promise.all(dbs.map((db) => verify(db, ['--new'])));
      for (const r of second) expect([r.exitCode, r.stderr]).toEqual([0, '']);
      expect(JSON.parse(second[1].stdout)).toEqual(JSON.parse(second[0].stdout));
      expect(JSON.parse(second[1].stdout)[0].new).toBe(0);
      expect(JSON.parse(second[1].stdout)[0].checked).toBe([...expected.values()].filter((v) => ['pending', 'missing', 'unconfirmed', 'reorged'].includes(v)).length);
      expect((await verify(url)).exitCode).toBe(9);

      // A new record the chain holds with another amount: news again, on both.
      expect((await fetch(`${own.url}/_emulator/records`, { method: 'POST', headers: { authorization: `Bearer ${own.keyFor('bsc')}` }, body: JSON.stringify({ chain: 'bsc', collection: 'wallet-to-wallet/transfers', count: 6, timestamp: ANCHOR - 60 }) })).status).toBe(201);
      const added = (await apiRecords(own, '/wallet-to-wallet/transfers')).filter((r) => !expected.has(r.transactionHash.toLowerCase()));
      const wrong = added.find((r) => r.transactionStatus === 'confirmed' && r.token !== 'BNB')!;
      expect(wrong).toBeDefined();
      added.forEach((r, i) => r.transactionStatus !== 'pending' && plant(node.tables, r, 3000 + i, r === wrong ? 'mismatch' : 'verified'));
      for (const db of dbs) expect((await payrecInProcess(own, ['sync', 'w2w/transfers', '--db', db, '--full'])).exitCode).toBe(0);
      const news = await Promise.all(dbs.map((db) => verify(db, ['--new'])));
      for (const r of news) {
        expect(r.exitCode).toBe(9);
        expect(r.stderr).toContain('1 record is newly mismatch, missing, reverted, spoofed, reorged (--fail-if-any --new)');
      }
      expect(JSON.parse(news[1].stdout)).toEqual(JSON.parse(news[0].stdout));
      expect(JSON.parse(news[1].stdout)[0]).toMatchObject({ new: added.length });

      // Every bad record acknowledged on the server: the gate passes, the verdicts stay in the report and the table.
      const all = [...planted, wrong.transactionHash.toLowerCase()];
      const ack = await payrecInProcess(own, ['verify', 'ack', ...all, '--reason', 'reviewed: FIN-112', '--by', 'auditor', '--db', url, '-f', 'json']);
      expect(ack.stderr).toBe('');
      expect(ack.exitCode).toBe(0);
      expect((JSON.parse(ack.stdout) as any[]).map((a) => [a.transactionHash, a.verdict, a.reason, a.ackedBy]).sort()).toEqual(
        all.map((h) => [h, h === all.at(-1) ? 'mismatch' : expected.get(h), 'reviewed: FIN-112', 'auditor']).sort(),
      );
      expect((JSON.parse(ack.stdout) as any[]).every((a) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(a.ackedAt))).toBe(true);
      const gate = await verify(url);
      expect(gate.exitCode).toBe(0);
      expect(gate.stderr).toContain(`${all.length} acknowledged records are mismatch, missing, reverted, spoofed, reorged: not counted`);
      expect(JSON.parse(gate.stdout)[0].acked).toBe(all.length);
      const acks = await payrecInProcess(own, ['verify', 'acks', '--db', url, '-f', 'json']);
      expect(acks.exitCode).toBe(0);
      expect((JSON.parse(acks.stdout) as any[]).map((a) => a.transactionHash).sort()).toEqual([...all].sort());
      expect((await stored(url)).get(wrong.transactionHash.toLowerCase())).toBe('mismatch');
    } finally {
      await own.close();
    }
  }, 240_000);

  test('a record a later sync changed is judged again, though its verdict was final (the checkedAt condition, as in DuckDB)', async () => {
    const { node, dbs, verify, expected } = await setup(emu);
    const url = dbs[1];
    expect((await verify(url)).exitCode).toBe(9);
    // A confirmed record the chain verifies (a failed one is judged by its reverted transaction alone).
    const records = await apiRecords(emu, '/wallet-to-wallet/transfers');
    const hash = records.find((r) => r.transactionStatus === 'confirmed' && expected.get(r.transactionHash.toLowerCase()) === 'verified')!.transactionHash.toLowerCase();
    expect((await stored(url)).get(hash)).toBe('verified');
    // What a sync that rewrote the record leaves: another receiver (the service changed it), its last_updated after its verdict's checkedAt.
    const changed = await postgres.admin(
      `UPDATE "${postgres.schemaOf(url)}_store".wallet_to_wallet_transfers SET receiver = '${f.CAROL}', last_updated = now() + INTERVAL '1 minute' WHERE lower("transactionHash") = '${hash}' RETURNING 1 AS one`,
    );
    expect(changed).toHaveLength(1);
    const before = node.calls('eth_getTransactionReceipt').length;
    expect((await verify(url)).exitCode).toBe(9);
    expect(node.calls('eth_getTransactionReceipt').slice(before).map((c) => String(c.params[0]).toLowerCase())).toContain(hash);
    // Judged again on the record as it is now, not kept from the old verdict: the chain paid the old receiver.
    expect((await stored(url)).get(hash)).toBe('mismatch');
  }, 180_000);

  test('one lying eth_getBlockByNumber answer marks final records reorged; the next run, against an honest node, clears them as in DuckDB', async () => {
    let lying = false;
    const { node, dbs, verify, expected } = await setup(emu, (c) => {
      if (!lying || c.method !== 'eth_getBlockByNumber' || typeof c.params[0] !== 'string' || !c.params[0].startsWith('0x')) return undefined;
      return { result: f.block(Number(BigInt(c.params[0])), 0, 'e') };
    });
    const url = dbs[1];
    for (const db of dbs) expect((await verify(db)).exitCode).toBe(9);
    expect(await stored(url)).toEqual(expected);
    lying = true;
    const lied = await Promise.all(dbs.map((db) => verify(db)));
    expect(JSON.parse(lied[1].stdout)).toEqual(JSON.parse(lied[0].stdout));
    const verified = [...expected.values()].filter((v) => v === 'verified').length;
    expect(JSON.parse(lied[1].stdout)[0].newlyReorged).toBeGreaterThanOrEqual(verified);
    lying = false;
    const before = node.calls('eth_getTransactionReceipt').length;
    const honest = await verify(url);
    expect(JSON.parse(honest.stdout)[0].newlyReorged).toBe(0);
    expect(await stored(url)).toEqual(expected);
    expect(node.calls('eth_getTransactionReceipt').length - before).toBeGreaterThanOrEqual(verified);
  }, 180_000);
});
