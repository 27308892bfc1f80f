import { keccak256, stringToHex } from 'viem';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { ANCHOR, emulator, payrec } from './helpers.js';

// The emulator's chain as a client meets it: JSON-RPC 2.0 over real HTTP at
// <emulator>/rpc/<chain> (single calls, batches, the standard errors), eth_call of the
// view functions payrec reads, a head that moves with the clock, records added later
// mined as they come, and `payrec emulator start` printing where each node is.

type Rec = Record<string, any>;

/** One raw POST; the body as text is sent as is. */
async function post(url: string, body: string, method = 'POST'): Promise<{ status: number; json: any }> {
  // Adding records takes the chain's demo key (POST /_emulator/records).
  const chain = url.endsWith('/_emulator/records') ? (JSON.parse(body) as { chain?: string }).chain : undefined;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(chain ? { authorization: `Bearer prk_demo_${chain}` } : {}) };
  const res = await fetch(url, { method, body: method === 'GET' ? undefined : body, headers });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) };
}

const call = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });
const pad = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');

let emu: Emulator;
let rpc: (body: unknown, chain?: string) => Promise<any>;
beforeAll(async () => {
  emu = await emulator();
  rpc = async (body, chain = 'bsc') => (await post(emu.rpcUrl(chain), JSON.stringify(body))).json;
});
afterAll(() => emu.close());

describe('JSON-RPC over HTTP', () => {
  test('each chain answers its ONCHAIN.md §3 chain id, with no key; a batch answers each call by id', async () => {
    const ids = { bsc: '0x38', ethereum: '0x1', polygon: '0x89', sandbox: '0x61' };
    for (const [chain, id] of Object.entries(ids)) expect((await rpc(call('eth_chainId'), chain)).result).toBe(id);
    const batch = await rpc([call('eth_chainId', [], 'a'), call('eth_blockNumber', [], 7), call('eth_getBlockByNumber', ['latest', false], null)]);
    expect(batch.map((r: Rec) => r.id)).toEqual(['a', 7, null]);
    expect(batch.every((r: Rec) => r.jsonrpc === '2.0' && 'result' in r)).toBe(true);
    expect(batch[2].result.number).toBe(batch[1].result);
    expect(emu.requests).toEqual([]);
  });

  test('errors: per call inside a batch (-32601 unknown method, -32602 bad params, -32600 not a request), parse error, empty batch, notifications, GET, unknown chain', async () => {
    const hash = `0x${'ab'.repeat(32)}`;
    const batch = await rpc([
      call('eth_chainId', [], 1),
      call('eth_sendRawTransaction', ['0x00'], 2),
      call('eth_getTransactionReceipt', ['0x1234'], 3),
      call('eth_getBlockByNumber', ['0x1', 'yes'], 4),
      call('eth_getBlockByNumber', ['0x01', false], 5),
      { id: 6, method: 'eth_chainId' },
      42,
      { jsonrpc: '2.0', method: 'eth_chainId' },
      call('eth_getTransactionReceipt', [hash], 9),
    ]);
    const byId = new Map<unknown, Rec>(batch.map((r: Rec) => [r.id, r]));
    expect(batch).toHaveLength(8); // the notification gets no answer
    expect(byId.get(1)!.result).toBe('0x38');
    expect(byId.get(2)!.error.code).toBe(-32601);
    expect(byId.get(3)!.error.code).toBe(-32602);
    expect(byId.get(4)!.error.code).toBe(-32602);
    expect(byId.get(5)!.error.code).toBe(-32602); // a quantity has no leading zeros
    expect(byId.get(6)!.error.code).toBe(-32600);
    expect(batch.filter((r: Rec) => r.id === null).map((r: Rec) => r.error.code)).toEqual([-32600]);
    expect(byId.get(9)).toEqual({ jsonrpc: '2.0', id: 9, result: null });

    const url = emu.rpcUrl('bsc');
    expect(await post(url, '{"jsonrpc":"2.0","id":1,')).toMatchObject({ status: 200, json: { id: null, error: { code: -32700 } } });
    expect(await post(url, '[]')).toMatchObject({ status: 200, json: { error: { code: -32600 } } });
    expect(await post(url, JSON.stringify({ jsonrpc: '2.0', method: 'eth_chainId' }))).toEqual({ status: 204, json: undefined });
    expect((await post(url, '', 'GET')).status).toBe(405);
    expect(await post(`${emu.url}/rpc/solana`, JSON.stringify(call('eth_chainId')))).toMatchObject({ status: 404, json: { error: { code: -32600 } } });
  });

  test('eth_call: decimals() and symbol() of tokens, feeCollector() of Transfers, PAYMENT_TYPE() of product contracts; a contract without the function reverts, an address without code answers 0x', async () => {
    const ethCall = async (to: string, data: string, chain = 'bsc') => rpc(call('eth_call', [{ to, data }, 'latest']), chain);
    const DECIMALS = '0x313ce567';
    const SYMBOL = '0x95d89b41';
    expect((await ethCall('0x55d398326f99059fF775485246999027B3197955', DECIMALS)).result).toBe(`0x${pad('12')}`); // USDT on bsc: 18
    expect((await ethCall('0xdAC17F958D2ee523a2206206994597C13D831ec7', DECIMALS, 'ethereum')).result).toBe(`0x${pad('6')}`); // USDT on ethereum: 6
    // symbol() as the real tokens answer (ONCHAIN.md §4), ABI strings: 8PAY v2 on bsc "8PAY v2", the migrated 8PAY v1 "8PAY".
    const abiString = (text: string) => `0x${pad('20')}${pad(text.length.toString(16))}${Buffer.from(text).toString('hex').padEnd(64, '0')}`;
    expect((await ethCall('0x6EaDc05928ACd93eFB3FA0DFbC644D96C6Aa1Df8', SYMBOL)).result).toBe(abiString('8PAY v2'));
    expect((await ethCall('0xFeea0bDd3D07eb6FE305938878C0caDBFa169042', SYMBOL)).result).toBe(abiString('8PAY'));
    expect((await ethCall('0x3bd9856BF578910b55261d45d9148d61C177B092', SYMBOL, 'polygon')).result).toBe(abiString('8PAY'));
    const collector = (await ethCall('0x3a6Da478E5C7D2aBc3856D49fD99E1bbDEf7C5a3', '0xc415b95c')).result as string;
    expect(collector).toMatch(/^0x0{24}[0-9a-f]{40}$/);
    // The fee Transfers of a receipt go to that collector.
    // A record whose fee is at least 0.1 % of its amount: its chain fee is not 0, so it has a fee Transfer.
    const record = (emu.records('bsc', 'one-time/transfers').records as Rec[]).find((r) => r.transactionStatus === 'confirmed' && r.token !== 'BNB' && Number(r.fee) > Number(r.amount) / 1000 && Number(r.fee) < Number(r.amount))!;
    const receipt = (await rpc(call('eth_getTransactionReceipt', [record.transactionHash]))).result;
    const feeTransfer = receipt.logs.find((l: Rec) => l.topics[0].startsWith('0xddf252ad') && l.topics[2] !== `0x${pad(record.receiver.toLowerCase())}`);
    expect(feeTransfer.topics[2]).toBe(collector);
    expect((await ethCall('0x77a7540A9BB53Fdd4ce759a531ba0296863a825C', '0xecf050e3')).result).toBe('0x321ceed4f135cef15526301774886b328eb3aaa7d23b372d0b5be8ca3acd3909');
    expect((await ethCall('0xDC371651b4b2D5C31250F2C23Ed566f1B4A5E8b8', '0xecf050e3')).result).toBe(keccak256(stringToHex('SCHEDULED_PAYMENTS')));
    expect((await ethCall('0x3a6Da478E5C7D2aBc3856D49fD99E1bbDEf7C5a3', DECIMALS)).error).toMatchObject({ code: 3 });
    expect((await ethCall(`0x${'12'.repeat(20)}`, DECIMALS)).result).toBe('0x');
    expect((await rpc(call('eth_call', [{ data: DECIMALS }]))).error.code).toBe(-32602);
  });
});

describe('eth_getLogs', () => {
  const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
  const PAYMENT = '0x6c461725b272d4f54c97a2dae69ba41c8e36a30b7e8af20fd64fdf0da2051341';
  const TRANSFERS = '0x3a6da478e5c7d2abc3856d49fd99e1bbdef7c5a3';
  const ONE_TIME = '0x77a7540a9bb53fdd4ce759a531ba0296863a825c';
  const USDT = '0x55d398326f99059ff775485246999027b3197955';
  const hex = (n: number) => `0x${n.toString(16)}`;
  /** Records POSTed a year and more before the generated ones: the only transactions of those blocks. */
  const T = ANCHOR - 400 * 86_400;

  let e: Emulator;
  let node: (body: unknown) => Promise<any>;
  /** Block n is stamped genesis + n (the head's block says where the count starts). */
  let genesis: number;
  beforeAll(async () => {
    e = await emulator({ records: 5 });
    node = async (body) => (await post(e.rpcUrl('bsc'), JSON.stringify(body))).json;
    // The collection and the chain's index (made by the first eth_getLogs) are there before the records come: each is indexed as it is placed.
    e.records('bsc', 'one-time/transfers');
    const head = (await node(call('eth_getBlockByNumber', ['latest', false]))).result;
    genesis = Number(head.timestamp) - Number(head.number);
    expect((await node(call('eth_getLogs', [{ fromBlock: hex(T - genesis), toBlock: hex(T + 20 - genesis) }]))).result).toEqual([]);
    for (let k = 0; k < 5; k++) {
      const added = await post(`${e.url}/_emulator/records`, JSON.stringify({ chain: 'bsc', collection: 'one-time/transfers', count: 8, timestamp: T + 3 * k }));
      expect(added.status).toBe(201);
    }
  });
  afterAll(() => e?.close());

  const logs = async (filter: Rec) => (await node(call('eth_getLogs', [filter]))).result as Rec[];

  test('the logs of the canonical blocks in range, as the receipts carry them (with blockTimestamp): of records mined there, not of pending, failed, missing, reverted or reorged ones', async () => {
    const posted = (e.records('bsc', 'one-time/transfers').records as Rec[]).filter((r) => r.timestamp >= T && r.timestamp < T + 15);
    expect(posted).toHaveLength(40);
    const listed = new Map(e.chain.discrepancies('bsc', 'one-time/transfers').map((d) => [d.transactionHash, d]));
    // The block of each: its record's second, or where a seeded difference of timestamp moved it (up to ten minutes earlier).
    const second = (r: Rec) => Number(listed.get(r.transactionHash)?.differences.find((d) => d.field === 'timestamp')?.chain ?? r.timestamp);
    const mined = posted.filter((r) => r.transactionStatus === 'confirmed' && !['missing', 'reverted', 'reorged'].includes(listed.get(r.transactionHash)?.kind ?? ''));
    expect(mined.length).toBeGreaterThan(20);
    const got = await logs({ fromBlock: hex(T - 700 - genesis), toBlock: hex(T + 20 - genesis) });
    expect(new Set(got.map((l) => l.transactionHash))).toEqual(new Set(mined.map((r) => r.transactionHash.toLowerCase())));
    for (const r of mined) {
      const receipt = (await node(call('eth_getTransactionReceipt', [r.transactionHash]))).result;
      expect(got.filter((l) => l.transactionHash === r.transactionHash.toLowerCase())).toEqual(receipt.logs);
      expect(receipt.logs.every((l: Rec) => l.blockNumber === hex(second(r) - genesis) && l.blockTimestamp === hex(second(r)))).toBe(true);
    }
    // 8pay's contracts' logs: of every mined record but those whose events come from look-alikes.
    const own = await logs({ fromBlock: hex(T - 700 - genesis), toBlock: hex(T + 20 - genesis), address: [TRANSFERS, ONE_TIME] });
    expect(own).toEqual(got.filter((l) => l.address === TRANSFERS || l.address === ONE_TIME));
    expect(new Set(own.map((l) => l.transactionHash))).toEqual(new Set(mined.filter((r) => listed.get(r.transactionHash)?.kind !== 'spoofed').map((r) => r.transactionHash.toLowerCase())));
    // In block and log order.
    const order = got.map((l) => Number(l.blockNumber) * 1e6 + Number(l.logIndex));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // A range past the head ends at the head; the blocks before the records hold none of their logs.
    expect(await logs({ fromBlock: hex(T - 5000 - genesis), toBlock: hex(T - 4000 - genesis) })).toEqual([]);
  });

  test('seeded discrepancies: a transaction moved to an earlier block is found there; a reorged one lies in the block that lost the reorg alone', async () => {
    const head = (await rpc(call('eth_getBlockByNumber', ['latest', false]))).result;
    const start = Number(head.timestamp) - Number(head.number);
    const moved = emu.chain.discrepancies('bsc').filter((d) => d.differences.some((x) => x.field === 'timestamp'));
    expect(moved.length).toBeGreaterThan(0);
    for (const d of moved) {
      const at = hex(Number(d.differences.find((x) => x.field === 'timestamp')!.chain) - start);
      const there = (await rpc(call('eth_getLogs', [{ fromBlock: at, toBlock: at }]))).result as Rec[];
      const receipt = (await rpc(call('eth_getTransactionReceipt', [d.transactionHash]))).result;
      expect(there.filter((l) => l.transactionHash === d.transactionHash.toLowerCase())).toEqual(receipt.logs);
    }
    const reorged = emu.chain.discrepancies('bsc').filter((d) => d.kind === 'reorged');
    expect(reorged.length).toBeGreaterThan(0);
    for (const d of reorged) {
      const receipt = (await rpc(call('eth_getTransactionReceipt', [d.transactionHash]))).result;
      const canonical = (await rpc(call('eth_getBlockByNumber', [receipt.blockNumber, false]))).result;
      expect(receipt.blockHash).not.toBe(canonical.hash);
      const there = (await rpc(call('eth_getLogs', [{ fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber }]))).result as Rec[];
      expect(there.filter((l) => l.transactionHash === d.transactionHash.toLowerCase())).toEqual([]);
      expect(there.every((l) => l.blockHash === canonical.hash)).toBe(true);
    }
  });

  test('filters: an address or a list, topics by position (null for any, a list for any of its values), one block by blockHash', async () => {
    const range = { fromBlock: hex(T - genesis), toBlock: hex(T + 12 - genesis) };
    const all = await logs(range);
    const transfers = all.filter((l) => l.address === USDT && l.topics[0] === TRANSFER);
    expect(transfers.length).toBeGreaterThan(1);
    const receivers = [...new Set(transfers.map((l) => l.topics[2]))].slice(0, 2);
    const picked = await logs({ ...range, address: USDT, topics: [TRANSFER, null, receivers] });
    expect(picked).toEqual(transfers.filter((l) => receivers.includes(l.topics[2])));
    expect(await logs({ ...range, address: [USDT.toUpperCase().replace('0X', '0x')], topics: [[TRANSFER, PAYMENT]] })).toEqual(transfers);
    expect(await logs({ ...range, topics: [PAYMENT] })).toEqual(all.filter((l) => l.topics[0] === PAYMENT));
    const block = (await node(call('eth_getBlockByNumber', [all[0].blockNumber, false]))).result;
    expect(await logs({ blockHash: block.hash })).toEqual(all.filter((l) => l.blockNumber === all[0].blockNumber));
    expect((await node(call('eth_getLogs', [{ blockHash: `0x${'ab'.repeat(32)}` }]))).error).toMatchObject({ code: -32000, message: 'unknown block' });
    for (const bad of [{ fromBlock: hex(10), toBlock: hex(9) }, { ...range, address: '0x12' }, { ...range, topics: ['0x12'] }, { ...range, topics: [null, null, null, null, null] }, { blockHash: block.hash, fromBlock: hex(1) }]) {
      expect((await node(call('eth_getLogs', [bad]))).error.code, JSON.stringify(bad)).toBe(-32602);
    }
  });

  test('limits, as real nodes answer them: at most 10,000 blocks and 10,000 logs a query (-32005)', async () => {
    expect(await logs({ fromBlock: hex(T - 9_999 - genesis), toBlock: hex(T - genesis) })).toEqual(expect.any(Array));
    expect((await node(call('eth_getLogs', [{ fromBlock: hex(T - 10_000 - genesis), toBlock: hex(T - genesis) }]))).error).toEqual({ code: -32005, message: 'query exceeds the range limit of 10000 blocks' });
    // 2,000 one-time payments in one block: some 20,000 logs; their Payment events alone are fewer than 2,000.
    const crowded = T - 86_400;
    expect((await post(`${e.url}/_emulator/records`, JSON.stringify({ chain: 'bsc', collection: 'one-time/payments', count: 2000, timestamp: crowded }))).status).toBe(201);
    const one = { fromBlock: hex(crowded - genesis), toBlock: hex(crowded - genesis) };
    expect((await node(call('eth_getLogs', [one]))).error).toEqual({ code: -32005, message: 'query returned more than 10000 results' });
    const payments = await logs({ ...one, topics: [PAYMENT] });
    expect(payments.length).toBeGreaterThan(1500);
    expect(payments.length).toBeLessThanOrEqual(2000);
  });
});

describe('the head and the clock', () => {
  test('the head is the anchor\'s block at start and moves with the clock: a second later, an advance, a record stamped ahead of it', async () => {
    const e = await emulator({ records: 20 });
    try {
      const head = async () => Number((await post(e.rpcUrl('polygon'), JSON.stringify(call('eth_blockNumber')))).json.result);
      const first = await head();
      const block = async (n: number) => (await post(e.rpcUrl('polygon'), JSON.stringify(call('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])))).json.result;
      expect(Number((await block(first)).timestamp) - ANCHOR).toBeGreaterThanOrEqual(0);
      expect(Number((await block(first)).timestamp) - ANCHOR).toBeLessThan(30);
      expect(await block(first + 1000)).toBeNull();
      // A second of wall time mines a block.
      for (const end = Date.now() + 10_000; (await head()) === first; await new Promise((r) => setTimeout(r, 100))) {
        if (Date.now() > end) throw new Error('the head did not move');
      }
      const advanced = await post(`${e.url}/_emulator/chain/advance`, JSON.stringify({ seconds: 3600 }));
      expect(advanced.status).toBe(200);
      expect(advanced.json.polygon.number - first).toBeGreaterThanOrEqual(3601);
      expect(await head()).toBeGreaterThanOrEqual(first + 3601);
      expect((await post(`${e.url}/_emulator/chain/advance`, JSON.stringify({ seconds: -5 }))).status).toBe(400);

      // A record stamped ahead of the head: the chain reaches its block, and it has a receipt there.
      const ahead = ANCHOR + 86_400;
      expect((await post(`${e.url}/_emulator/records`, JSON.stringify({ chain: 'polygon', collection: 'one-time/transfers', count: 1, timestamp: ahead }))).status).toBe(201);
      const added = (e.records('polygon', 'one-time/transfers').records as Rec[]).at(-1)!;
      expect(added.timestamp).toBe(ahead);
      const receipt = (await post(e.rpcUrl('polygon'), JSON.stringify(call('eth_getTransactionReceipt', [added.transactionHash])))).json.result;
      expect(Number((await block(Number(receipt.blockNumber))).timestamp)).toBe(ahead);
      expect(await head()).toBeGreaterThanOrEqual(Number(receipt.blockNumber));
    } finally {
      await e.close();
    }
  });

  test('live traffic: a pending record has no receipt until it settles, then has one (or a reverted one when it failed)', async () => {
    const e = await emulator({ records: 20, live: { rate: 50, pendingFraction: 1, chains: ['bsc'], collections: ['one-time/transfers'] } });
    try {
      for (const end = Date.now() + 15_000; e.live.status().inserted < 10; await new Promise((r) => setTimeout(r, 50))) {
        if (Date.now() > end) throw new Error('no live records');
      }
      e.live.stop();
      const pending = (e.records('bsc', 'one-time/transfers').records as Rec[]).filter((r) => r.transactionStatus === 'pending');
      expect(pending.length).toBeGreaterThan(0);
      const receipts = async (hashes: string[]) => (await post(e.rpcUrl('bsc'), JSON.stringify(hashes.map((h, i) => call('eth_getTransactionReceipt', [h], i))))).json.map((r: Rec) => r.result);
      expect((await receipts(pending.map((r) => r.transactionHash))).every((r: unknown) => r === null)).toBe(true);
      await e.live.settle();
      const now = new Map((e.records('bsc', 'one-time/transfers').records as Rec[]).map((r) => [r.transactionHash, r]));
      const settled = await receipts(pending.map((r) => r.transactionHash));
      const seeded = new Set(e.chain.discrepancies('bsc', 'one-time/transfers').filter((d) => d.seeded && d.kind !== 'mismatch').map((d) => d.transactionHash));
      pending.forEach((r, i) => {
        if (seeded.has(r.transactionHash)) return;
        const status = now.get(r.transactionHash)!.transactionStatus;
        expect(settled[i]?.status, `${r.transactionHash} ${status}`).toBe(status === 'confirmed' ? '0x1' : '0x0');
      });
    } finally {
      await e.close();
    }
  });
});

describe('payrec emulator start', () => {
  test('prints each chain\'s JSON-RPC URL and chain id; the URL answers', async () => {
    const child = payrec(undefined, ['emulator', 'start', '--port', '0', '--records', '10', '--now', '2026-01-01']);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    try {
      for (const end = Date.now() + 20_000; !out.includes('Press Ctrl-C'); await new Promise((r) => setTimeout(r, 20))) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`the emulator did not start: ${out}`);
      }
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
      expect(out).toContain(`  bsc       ${url}/rpc/bsc       chain id 56\n`);
      expect(out).toContain(`  ethereum  ${url}/rpc/ethereum  chain id 1\n`);
      expect(out).toContain(`  polygon   ${url}/rpc/polygon   chain id 137\n`);
      expect(out).toContain(`  sandbox   ${url}/rpc/sandbox   chain id 97\n`);
      expect((await post(`${url}/rpc/sandbox`, JSON.stringify(call('eth_chainId')))).json.result).toBe('0x61');
    } finally {
      child.kill('SIGINT');
      await child;
    }
  });
});
