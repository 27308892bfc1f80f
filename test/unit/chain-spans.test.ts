import { afterEach, describe, expect, it } from 'vitest';
import { askedFor, either, filterOf, SPAN_BLOCKS, SPAN_TERMS, spansOf, type Asked } from '../../src/chain/canonical-blocks.js';
import type { Subject } from '../../src/chain/decode.js';
import { ChainClient } from '../../src/chain/rpc-client.js';
import { Verifier } from '../../src/chain/verifier.js';
import { EXIT } from '../../src/core/runtime/errors.js';
import { failure, rpcNode, type Call, type CallReply, type NodeTables, type RpcNode } from './rpc-node.js';
import * as f from './chain-fixtures.js';

// The canonical block at each receipt's height learned from eth_getLogs spans: against a
// node written in the test, whose logs, blocks and refusals are set by hand, so each
// verdict is decided here. The node's blocks always agree with the API: a verdict other
// than `verified` can only come from what its logs say.

let node: RpcNode | undefined;
afterEach(async () => {
  await node?.close();
  node = undefined;
});

const T0 = 1_700_000_000;
const HEAD = 100_000;
/** Block n is stamped T0 + n. */
const at = (n: number) => T0 + n;
const AMOUNT = 5n * f.E18;
const PLAN = f.id32(1, 'aa');
const INTERMEDIARY = '0x5555555555555555555555555555555555555555';

/**
 * A fixed-recurring cancellation at block `block`: SubscriptionCancelled from FR
 * Subscriptions (ONCHAIN.md §7). Its `triggeredBy` is the receipt's `from`, so it is judged
 * by its receipt (logs-first.ts leaves it out): the blocks of receipts are what this file tests.
 */
function cancellation(i: number, block: number, o: { blockHash?: string; status?: '0x0' | '0x1' } = {}) {
  const hash = f.txHash(i);
  const subscriptionId = f.id32(i, 'cc');
  const record = { subscriptionId, forced: false, triggeredBy: f.ALICE, timestamp: at(block), transactionHash: hash, transactionStatus: 'confirmed' };
  const logs = [f.subscriptionEvent(f.TOPIC.subscriptionCancelled, f.BSC.frSubscriptions, PLAN, subscriptionId)];
  return { subject: { collection: 'fixed-recurring/cancellations', record, planId: PLAN } as Subject, receipt: f.receipt({ hash, block, blockHash: o.blockHash, from: f.ALICE, to: f.BSC.frSubscriptions, status: o.status, logs }) };
}

/** A wallet-to-wallet transfer of 5 USDT from the intermediary to Bob: one token Transfer, no 8pay contract. */
function walletTransfer(i: number, block: number) {
  const hash = f.txHash(i);
  const record = { description: 'd', amount: '5', fee: '0', token: 'USDT', category: 'c', timestamp: at(block), transactionHash: hash, transactionStatus: 'confirmed', email: 'x', receiver: f.BOB, payment_id: 'p' };
  return { subject: { collection: 'wallet-to-wallet/transfers', record } as Subject, receipt: f.receipt({ hash, block, from: INTERMEDIARY, to: f.BSC.usdt, logs: [f.erc20Transfer(f.BSC.usdt, INTERMEDIARY, f.BOB, AMOUNT)] }) };
}

type Built = ReturnType<typeof cancellation>;

/**
 * A node holding `txs`: their receipts, the canonical blocks at their heights, and as
 * eth_getLogs's table the receipts' logs, each with its block's timestamp unless
 * `timestamps` is false (an older node).
 */
function chainOf(txs: Built[], o: { timestamps?: boolean } = {}): NodeTables {
  const stamp = (l: Record<string, any>) => (o.timestamps === false ? l : { ...l, blockTimestamp: f.hex(at(Number(BigInt(l.blockNumber)))) });
  const receipts = new Map(txs.map((t) => [t.receipt.transactionHash, { ...t.receipt, logs: t.receipt.logs.map(stamp) }]));
  const blocks = new Map(txs.map((t) => [Number(BigInt(t.receipt.blockNumber)), f.block(Number(BigInt(t.receipt.blockNumber)), at(Number(BigInt(t.receipt.blockNumber))))]));
  return { chainId: 56, head: HEAD, receipts, blocks, logs: txs.flatMap((t) => t.receipt.logs.map(stamp)) };
}

async function verify(tables: NodeTables, subjects: Subject[][], call?: (c: Call) => CallReply | undefined) {
  node = await rpcNode(tables, { call });
  const verifier = await Verifier.open(new ChainClient({ url: node.url, timeoutMs: 5000, retries: 1, concurrency: 2 }), 'bsc', 15);
  const out = [];
  for (const batch of subjects) out.push(await verifier.verify(batch));
  return out;
}

const count = (method: string) => node!.calls(method).length;
const blocksRead = () => node!.calls('eth_getBlockByNumber').map((c) => Number(BigInt(String(c.params[0]))));
const widths = () => node!.calls('eth_getLogs').map((c) => Number(BigInt((c.params[0] as any).toBlock) - BigInt((c.params[0] as any).fromBlock)) + 1);

describe('blocks from eth_getLogs spans', () => {
  it('records a few blocks apart: one eth_getLogs for all of them, no block read, each verified', async () => {
    const txs = Array.from({ length: 20 }, (_, i) => cancellation(i, 1000 + 7 * i));
    const [judged] = await verify(chainOf(txs), [txs.map((t) => t.subject)]);
    expect(judged.map((j) => j.verdict)).toEqual(Array(20).fill('verified'));
    expect(count('eth_getLogs')).toBe(1);
    expect(count('eth_getBlockByNumber')).toBe(0);
    // Over the records' heights, the filter asks for the first 8pay event of each receipt: FR Subscriptions' SubscriptionCancelled.
    expect(node!.calls('eth_getLogs')[0].params[0]).toEqual({ fromBlock: f.hex(1000), toBlock: f.hex(1133), address: [f.BSC.frSubscriptions], topics: [[f.TOPIC.subscriptionCancelled]] });
  });

  it('sparse records (one per span) cost one call per height, as a block each did', async () => {
    const txs = Array.from({ length: 5 }, (_, i) => cancellation(i, 1000 + Number(SPAN_BLOCKS) * 2 * i));
    const [judged] = await verify(chainOf(txs), [txs.map((t) => t.subject)]);
    expect(judged.map((j) => j.verdict)).toEqual(Array(5).fill('verified'));
    expect(count('eth_getLogs') + count('eth_getBlockByNumber')).toBe(5);
  });

  it('a log at the record\'s height in another block than its receipt names: reorged, never verified (the node\'s block is not read)', async () => {
    const txs = Array.from({ length: 3 }, (_, i) => cancellation(i, 1000 + i));
    const tables = chainOf(txs);
    // The node's canonical block at 1001 holds the same logs under another hash; its eth_getBlockByNumber would still say the receipt's.
    tables.logs = tables.logs!.map((l) => (l.blockNumber === f.hex(1001) ? { ...l, blockHash: f.blockHash(1001, 'c') } : l));
    const [judged] = await verify(tables, [txs.map((t) => t.subject)]);
    expect(judged.map((j) => j.verdict)).toEqual(['verified', 'reorged', 'verified']);
    expect(count('eth_getBlockByNumber')).toBe(0);
  });

  it('logs without blockTimestamp (an older node): each height\'s block is read, verdicts the same', async () => {
    const txs = Array.from({ length: 4 }, (_, i) => cancellation(i, 1000 + 3 * i));
    const tables = chainOf(txs, { timestamps: false });
    // The block says another second for record 2: read from the block, the timestamp still differs.
    tables.blocks!.set(1006, f.block(1006, at(1006) + 9));
    const [judged] = await verify(tables, [txs.map((t) => t.subject)]);
    expect(judged.map((j) => j.verdict)).toEqual(['verified', 'verified', 'mismatch', 'verified']);
    expect(judged[2].differences).toEqual([{ field: 'timestamp', api: at(1006), chain: at(1006) + 9 }]);
    expect(blocksRead().sort()).toEqual([1000, 1003, 1006, 1009]);
  });

  it('a receipt\'s own logs give the timestamp of a canonical block whose eth_getLogs logs leave it out', async () => {
    const txs = Array.from({ length: 3 }, (_, i) => cancellation(i, 1000 + i));
    const tables = chainOf(txs);
    tables.logs = chainOf(txs, { timestamps: false }).logs;
    const [judged] = await verify(tables, [txs.map((t) => t.subject)]);
    expect(judged.map((j) => j.verdict)).toEqual(['verified', 'verified', 'verified']);
    expect(count('eth_getBlockByNumber')).toBe(0);
  });

  it('a blockTimestamp that is not the API\'s timestamp is a mismatch on timestamp, with no block read', async () => {
    const txs = Array.from({ length: 3 }, (_, i) => cancellation(i, 1000 + i));
    const tables = chainOf(txs);
    const moved = (l: Record<string, any>) => (l.blockNumber === f.hex(1002) ? { ...l, blockTimestamp: f.hex(at(1002) - 60) } : l);
    tables.logs = tables.logs!.map(moved);
    for (const [h, r] of tables.receipts!) tables.receipts!.set(h, { ...(r as any), logs: (r as any).logs.map(moved) });
    const [judged] = await verify(tables, [txs.map((t) => t.subject)]);
    expect(judged.map((j) => j.verdict)).toEqual(['verified', 'verified', 'mismatch']);
    expect(judged[2].differences).toEqual([{ field: 'timestamp', api: at(1002), chain: at(1002) - 60 }]);
    expect(count('eth_getBlockByNumber')).toBe(0);
  });

  it('a span the node refuses (-32005, too many results) is asked again in halves, and later spans are no wider', async () => {
    const txs = Array.from({ length: 20 }, (_, i) => cancellation(i, 1000 + 7 * i));
    const refuse = (c: Call): CallReply | undefined => {
      const q = c.params[0] as { fromBlock: string; toBlock: string };
      return c.method === 'eth_getLogs' && BigInt(q.toBlock) - BigInt(q.fromBlock) + 1n > 40n ? { error: { code: -32005, message: 'query returned more than 10000 results' } } : undefined;
    };
    const [first, second] = await verify(chainOf(txs), [txs.slice(0, 10).map((t) => t.subject), txs.slice(10).map((t) => t.subject)], refuse);
    expect([...first, ...second].map((j) => j.verdict)).toEqual(Array(20).fill('verified'));
    expect(count('eth_getBlockByNumber')).toBe(0);
    // First batch: 64 blocks refused, halves of 29 and 29 answered. The second starts no wider than half the refused span.
    expect(widths()).toEqual([64, 29, 29, 29, 29]);
  });

  it('a span refused down to one height reads that block', async () => {
    const txs = Array.from({ length: 3 }, (_, i) => cancellation(i, 1000 + i));
    const refuse = (c: Call): CallReply | undefined => (c.method === 'eth_getLogs' ? { error: { code: -32000, message: 'exceed maximum block range: 0' } } : undefined);
    const [judged] = await verify(chainOf(txs), [txs.map((t) => t.subject)], refuse);
    expect(judged.map((j) => j.verdict)).toEqual(['verified', 'verified', 'verified']);
    expect(blocksRead().sort()).toEqual([1000, 1001, 1002]);
    expect(widths()).toEqual([3, 2, 1, 1, 1]);
  });

  it('a height no log attests (the node\'s logs leave it out) is read as a block', async () => {
    const txs = Array.from({ length: 5 }, (_, i) => cancellation(i, 1000 + i));
    const tables = chainOf(txs);
    tables.logs = tables.logs!.filter((l) => l.blockNumber !== f.hex(1003));
    const [judged] = await verify(tables, [txs.map((t) => t.subject)]);
    expect(judged.map((j) => j.verdict)).toEqual(Array(5).fill('verified'));
    expect(blocksRead()).toEqual([1003]);
  });

  it('a removed log (of a block that left the chain) attests nothing: the block is read', async () => {
    const txs = Array.from({ length: 3 }, (_, i) => cancellation(i, 1000 + i));
    const tables = chainOf(txs);
    tables.logs = tables.logs!.map((l) => (l.blockNumber === f.hex(1001) ? { ...l, blockHash: f.blockHash(1001, 'c'), removed: true } : l));
    const [judged] = await verify(tables, [txs.map((t) => t.subject)]);
    expect(judged.map((j) => j.verdict)).toEqual(['verified', 'verified', 'verified']);
    expect(blocksRead()).toEqual([1001]);
  });

  it('a reverted receipt has no log to ask by: its block is read, and the others\' spans still serve', async () => {
    const txs = [cancellation(0, 1000), cancellation(1, 1001, { status: '0x0' }), cancellation(2, 1002)];
    const [judged] = await verify(chainOf(txs), [txs.map((t) => t.subject)]);
    expect(judged.map((j) => j.verdict)).toEqual(['verified', 'reverted', 'verified']);
    expect(blocksRead()).toEqual([1001]);
    expect(count('eth_getLogs')).toBe(1);
  });

  it('a node without eth_getLogs is asked once, then blocks are read as before', async () => {
    const txs = Array.from({ length: 6 }, (_, i) => cancellation(i, 1000 + i));
    const tables = { ...chainOf(txs), logs: undefined };
    const judged = await verify(tables, [txs.slice(0, 3).map((t) => t.subject), txs.slice(3).map((t) => t.subject)]);
    expect(judged.flat().map((j) => j.verdict)).toEqual(Array(6).fill('verified'));
    expect(count('eth_getLogs')).toBe(1);
    expect(blocksRead().sort()).toEqual([1000, 1001, 1002, 1003, 1004, 1005]);
  });

  it('wallet-to-wallet: the token\'s Transfers from the receipts\' senders, not every Transfer of the token', async () => {
    const txs = Array.from({ length: 3 }, (_, i) => walletTransfer(i, 1000 + 5 * i));
    const [judged] = await verify(chainOf(txs), [txs.map((t) => t.subject)]);
    expect(judged.map((j) => j.verdict)).toEqual(['verified', 'verified', 'verified']);
    expect(node!.calls('eth_getLogs').map((c) => c.params[0])).toEqual([{ fromBlock: f.hex(1000), toBlock: f.hex(1010), address: [f.BSC.usdt], topics: [f.TOPIC.erc20Transfer, [`0x${f.addr(INTERMEDIARY)}`]] }]);
    expect(count('eth_getBlockByNumber')).toBe(0);
  });
});

describe('a node at odds with itself: exit 6, never a verdict', () => {
  it('logs of two blocks at one height', async () => {
    const txs = [cancellation(0, 1000)];
    const tables = chainOf(txs);
    const own = tables.logs!.find((l) => l.topics[0] === f.TOPIC.subscriptionCancelled)!;
    tables.logs = [...tables.logs!, { ...own, blockHash: f.blockHash(1000, 'c') }];
    const err = await failure(verify(tables, [txs.map((t) => t.subject)]));
    expect(err.exitCode).toBe(EXIT.server);
    expect(err.message).toMatch(/logs of two blocks at height 1000/);
  });

  it('a receipt\'s blockTimestamp that its own block contradicts', async () => {
    const txs = [cancellation(0, 1000)];
    const tables = chainOf(txs);
    tables.logs = [];
    tables.blocks!.set(1000, f.block(1000, at(1000) + 1));
    const err = await failure(verify(tables, [txs.map((t) => t.subject)]));
    expect(err.exitCode).toBe(EXIT.server);
    expect(err.message).toMatch(/two timestamps for block 0xb+0*3e8 \(1700001000 and 1700001001\)/);
  });

  it('a log outside the blocks asked', async () => {
    const txs = [cancellation(0, 1000), cancellation(1, 1001)];
    const stray = (c: Call): CallReply | undefined => (c.method === 'eth_getLogs' ? { result: [{ ...chainOf(txs).logs![0], blockNumber: f.hex(5000) }] } : undefined);
    const err = await failure(verify(chainOf(txs), [txs.map((t) => t.subject)], stray));
    expect(err.exitCode).toBe(EXIT.server);
    expect(err.message).toMatch(/a log of block 5000 when asked for blocks 1000 to 1001/);
  });
});

describe('spans (pure)', () => {
  const contracts = new Set([f.BSC.transfers, f.BSC.oneTime]);
  const own: Asked = { kind: 'contracts', addresses: [f.BSC.transfers], topics: [f.TOPIC.transferSuccessful] };

  it('what attests a height: the first event of 8pay\'s contracts in a receipt, else its ERC-20 Transfers by sender, else nothing', () => {
    const log = (address: string, topics: string[], removed = false) => ({ address, topics, data: '0x', blockHash: null, transactionHash: null, logIndex: null, removed }) as any;
    const transfer = log(f.BSC.usdt, [f.TOPIC.erc20Transfer, `0x${f.addr(f.ALICE)}`, `0x${f.addr(f.BOB)}`]);
    const receiver = log(f.BSC.oneTime, [f.TOPIC.receiver]);
    expect(askedFor([transfer, log(f.BSC.transfers, [f.TOPIC.transferSuccessful], true), receiver, log(f.BSC.transfers, [f.TOPIC.transferSuccessful])], contracts)).toEqual({ kind: 'contracts', addresses: [f.BSC.oneTime], topics: [f.TOPIC.receiver] });
    const transfers = askedFor([transfer, transfer], contracts);
    expect(transfers).toEqual({ kind: 'transfers', addresses: [f.BSC.usdt], senders: [`0x${f.addr(f.ALICE)}`] });
    // Two receipts at one height: an 8pay event wins; two wallet-to-wallet transfers ask for both senders.
    const other = askedFor([log(f.BSC.busd, [f.TOPIC.erc20Transfer, `0x${f.addr(f.CAROL)}`, `0x${f.addr(f.BOB)}`])], contracts);
    expect(either(transfers, askedFor([receiver], contracts))).toEqual({ kind: 'contracts', addresses: [f.BSC.oneTime], topics: [f.TOPIC.receiver] });
    expect(either(transfers, other)).toEqual({ kind: 'transfers', addresses: [f.BSC.usdt, f.BSC.busd], senders: [`0x${f.addr(f.ALICE)}`, `0x${f.addr(f.CAROL)}`] });
    expect(either(undefined, other)).toBe(other);
    expect(askedFor([log(f.BSC.transfers, [f.TOPIC.transferSuccessful], true)], contracts)).toBeUndefined();
    expect(askedFor([log(f.LOOKALIKE, [f.TOPIC.receiver])], contracts)).toBeUndefined();
    expect(askedFor([], contracts)).toBeUndefined();
  });

  it('a span holds at most `blocks` blocks, one kind, and at most SPAN_TERMS addresses, topics and senders', () => {
    const asked = new Map<bigint, Asked>([
      [1009n, own],
      [1000n, own],
      [1010n, own],
      [1005n, { kind: 'transfers', addresses: [f.BSC.usdt], senders: ['0x01'] }],
    ]);
    expect(spansOf(asked, 10n).map((s) => [s.kind, s.items.map((i) => i.height)])).toEqual([
      ['contracts', [1000n, 1009n]],
      ['contracts', [1010n]],
      ['transfers', [1005n]],
    ]);
    // Two terms a height (an address and a topic).
    const many = new Map<bigint, Asked>(Array.from({ length: SPAN_TERMS + 1 }, (_, i) => [BigInt(i), own]));
    expect(spansOf(many, SPAN_BLOCKS).map((s) => s.items.length)).toEqual([SPAN_TERMS / 2, SPAN_TERMS / 2, 1]);
    expect(filterOf(spansOf(asked, 10n)[2])).toEqual({ fromBlock: 1005n, toBlock: 1005n, address: [f.BSC.usdt], topics: [f.TOPIC.erc20Transfer, ['0x01']] });
    expect(filterOf(spansOf(asked, 10n)[0])).toEqual({ fromBlock: 1000n, toBlock: 1009n, address: [f.BSC.transfers], topics: [[f.TOPIC.transferSuccessful]] });
    // Heights asked with no event named (the second payrec verify): any event of the contracts.
    const anyEvent = new Map<bigint, Asked>([[7n, { kind: 'contracts', addresses: [f.BSC.transfers, f.BSC.oneTime], topics: [] }]]);
    expect(filterOf(spansOf(anyEvent, 10n)[0])).toEqual({ fromBlock: 7n, toBlock: 7n, address: [f.BSC.transfers, f.BSC.oneTime] });
  });
});
