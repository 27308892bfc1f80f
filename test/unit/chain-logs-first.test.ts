import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { keccak256, stringToHex } from 'viem';
import type { Subject } from '../../src/chain/decode.js';
import { ChainClient } from '../../src/chain/rpc-client.js';
import { Verifier } from '../../src/chain/verifier.js';
import type { Judgement } from '../../src/chain/verdict.js';
import { EXIT } from '../../src/core/runtime/errors.js';
import { failure, rpcNode, type Call, type CallReply, type NodeTables, type RpcNode } from './rpc-node.js';
import * as f from './chain-fixtures.js';

// Logs first: records judged by their 8pay events from eth_getLogs, a receipt only where
// logs cannot answer. Against nodes written here, whose receipts, logs and blocks are
// written by hand (chain-fixtures.ts). The ground truth of every judgement is the receipt
// path: the same chain on a node that serves no eth_getLogs, where every record is read
// by its receipt and every block by eth_getBlockByNumber; and each test's verdicts are
// also spelled out by hand from ONCHAIN.md §9.

const nodes: RpcNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

const T0 = 1_700_000_000;
const HEAD = 100_000;
/** Block n is stamped T0 + n. */
const at = (n: number) => T0 + n;
const USDT_5 = 5n * f.E18;
const ZERO = `0x${'0'.repeat(64)}`;
const TAG = keccak256(stringToHex('t'));
/** Every 8pay contract on bsc (ONCHAIN.md §3), lower case: the first filter's addresses. */
const ALL_8PAY = [
  f.BSC.transfers,
  f.BSC.oneTime,
  f.BSC.frSubscriptions,
  f.BSC.frManagement,
  f.BSC.vrSubscriptions,
  f.BSC.vrManagement,
  f.BSC.odSubscriptions,
  f.BSC.odManagement,
  f.BSC.scheduledPayments,
  f.BSC.dollarCostAverage,
  f.BSC.biller,
];
const topicOf = (a: string) => `0x${f.addr(a)}`;

/** How the chain holds a record's transaction: as the API says, or one of §9's discrepancies. */
type Kind = 'ok' | 'missing' | 'reverted' | 'spoofed' | 'reorged';

interface Tx {
  subject: Subject;
  /** The node's receipt (null: it has none). */
  receipt: ReturnType<typeof f.receipt> | null;
  /** Whether its logs lie in the canonical block (eth_getLogs finds them). */
  canonical: boolean;
  transaction?: ReturnType<typeof f.transaction>;
}

/** The leg's and OneTime's logs of `amount` paid Alice → Bob (§7); `spoofed`: 8pay's events from a look-alike. */
function oneTimeLogs(token: string, amount: bigint, kind: Kind): f.LogSpec[] {
  const logs = [
    ...f.leg({ token, sender: f.ALICE, receiver: f.BOB, amount, pct: 100n, paymentType: f.PAYMENT_TYPE.oneTime, metadata: ZERO }),
    f.payment(f.BSC.oneTime, f.ALICE, TAG, token, 'd', 'c'),
    f.receiverEvent(f.BSC.oneTime, f.BOB, amount),
  ];
  return kind === 'spoofed' ? logs.map((l) => (l.address === f.BSC.transfers || l.address === f.BSC.oneTime ? { ...l, address: f.LOOKALIKE } : l)) : logs;
}

function txOf(subject: Subject, hash: string, block: number, kind: Kind, logs: f.LogSpec[], from: string, to: string, value?: bigint): Tx {
  const receipt = kind === 'missing' ? null : f.receipt({ hash, block, blockHash: kind === 'reorged' ? f.blockHash(block, 'c') : undefined, from, to, status: kind === 'reverted' ? '0x0' : '0x1', logs });
  const transaction = value === undefined ? undefined : f.transaction({ hash, from, to, value, block });
  return { subject, receipt, canonical: kind !== 'missing' && kind !== 'reorged' && kind !== 'reverted', transaction };
}

/** A one-time transfer of 5 USDT (or BNB) from Alice to Bob at block `block`; `api` overrides the API's fields. */
function oneTime(i: number, block: number, o: { kind?: Kind; bnb?: boolean; api?: Record<string, unknown> } = {}): Tx {
  const hash = f.txHash(i);
  const token = o.bnb ? f.NATIVE : f.BSC.usdt;
  const record = { description: 'd', amount: '5', fee: '0.05', token: o.bnb ? 'BNB' : 'USDT', category: 'c', timestamp: at(block), transactionHash: hash, transactionStatus: 'confirmed', sender: f.ALICE, receiver: f.BOB, ...o.api };
  return txOf({ collection: 'one-time/transfers', record }, hash, block, o.kind ?? 'ok', oneTimeLogs(token, USDT_5, o.kind ?? 'ok'), f.ALICE, f.BSC.oneTime, o.bnb ? USDT_5 : undefined);
}

/** A one-time payment from Alice of USDT paying `receivers` on chain; the API lists `api`. */
function payment(i: number, block: number, receivers: [string, bigint][], api: [string, bigint][]): Tx {
    const hash = f.txHash(i);
    const logs = [
      ...receivers.flatMap(([user, amount]) => f.leg({ token: f.BSC.usdt, sender: f.ALICE, receiver: user, amount, pct: 100n, paymentType: f.PAYMENT_TYPE.oneTime, metadata: ZERO })),
      f.payment(f.BSC.oneTime, f.ALICE, TAG, f.BSC.usdt, 'd', 'c'),
      ...receivers.map(([user, amount]) => f.receiverEvent(f.BSC.oneTime, user, amount)),
    ];
    const record = { id: f.id32(i, 'ee'), description: 'd', sender: f.ALICE, token: 'USDT', category: 'c', tag: 't', timestamp: at(block), transactionHash: hash, transactionStatus: 'confirmed', receivers: api.map(([user, amount]) => ({ user, amount: String(amount / f.E18), fee: String(Number(amount / f.E18) / 100) })) };
    return txOf({ collection: 'one-time/payments', record }, hash, block, 'ok', logs, f.ALICE, f.BSC.oneTime);
  }

/**
 * The node of `txs`: their receipts, the canonical block at each height, the transactions
 * of the native ones, and as eth_getLogs's table the canonical receipts' logs, each with
 * its block's timestamp unless `timestamps` is false; `logs` false: a node without eth_getLogs.
 */
function chainOf(txs: Tx[], o: { timestamps?: boolean; logs?: boolean } = {}): NodeTables {
  const stamp = (l: Record<string, any>) => (o.timestamps === false ? l : { ...l, blockTimestamp: f.hex(at(Number(BigInt(l.blockNumber)))) });
  const mined = txs.filter((t) => t.receipt !== null);
  const receipts = new Map(mined.map((t) => [t.receipt!.transactionHash, { ...t.receipt!, logs: t.receipt!.logs.map(stamp) }]));
  const heights = mined.map((t) => Number(BigInt(t.receipt!.blockNumber)));
  const blocks = new Map(heights.map((n) => [n, f.block(n, at(n))]));
  const transactions = new Map(txs.flatMap((t) => (t.transaction ? [[t.transaction.hash, t.transaction] as const] : [])));
  const logs = mined.filter((t) => t.canonical).flatMap((t) => t.receipt!.logs.map(stamp));
  return { chainId: 56, head: HEAD, receipts, blocks, transactions, logs: o.logs === false ? undefined : logs };
}

interface Run {
  judged: Judgement[][];
  node: RpcNode;
}

async function run(tables: NodeTables, batches: Subject[][], call?: (c: Call) => CallReply | undefined): Promise<Run> {
  const node = await rpcNode(tables, { call });
  nodes.push(node);
  const verifier = await Verifier.open(new ChainClient({ url: node.url, timeoutMs: 5000, retries: 1, concurrency: 2 }), 'bsc', 15);
  const judged = [];
  for (const batch of batches) judged.push(await verifier.verify(batch));
  return { judged, node };
}

/** Verified logs first, and by receipts alone (the same chain, no eth_getLogs): both judgements. */
async function both(txs: Tx[], o: { timestamps?: boolean; call?: (c: Call) => CallReply | undefined; batches?: number[] } = {}) {
  const subjects = txs.map((t) => t.subject);
  const cuts = o.batches ?? [subjects.length];
  const batches = cuts.map((n, i) => subjects.slice(cuts.slice(0, i).reduce((a, b) => a + b, 0), cuts.slice(0, i).reduce((a, b) => a + b, 0) + n));
  const first = await run(chainOf(txs, { timestamps: o.timestamps }), batches, o.call);
  const receipts = await run(chainOf(txs, { logs: false }), batches);
  return { logsFirst: first.judged.flat(), receipts: receipts.judged.flat(), node: first.node };
}

const receiptsAsked = (node: RpcNode) => node.calls('eth_getTransactionReceipt').map((c) => String(c.params[0]));
const verdicts = (js: Judgement[]) => js.map((j) => j.verdict);

describe('logs first: what is asked', () => {
  it('twenty one-time transfers: the receipts of the first and last, two eth_getLogs over their blocks, every judgement the receipts\' own', async () => {
    const txs = Array.from({ length: 20 }, (_, i) => oneTime(i, 1000 + 7 * i));
    const { logsFirst, receipts, node } = await both(txs);
    expect(verdicts(logsFirst)).toEqual(Array(20).fill('verified'));
    expect(logsFirst).toEqual(receipts);
    // Confirmations and height from each record's own block (head − block + 1), never a neighbour's.
    expect(logsFirst.map((j) => [j.blockNumber, j.confirmations])).toEqual(txs.map((_, i) => [1000 + 7 * i, HEAD - (1000 + 7 * i) + 1]));
    expect(receiptsAsked(node)).toEqual([f.txHash(0), f.txHash(19)]);
    const filters = node.calls('eth_getLogs').map((c) => c.params[0] as Record<string, any>);
    // Every log of 8pay's contracts (no topic: any event), and every Transfer from the records' sender (any token).
    expect(filters[0]).toEqual({ fromBlock: f.hex(1000), toBlock: f.hex(1133), address: ALL_8PAY });
    expect(filters[1]).toEqual({ fromBlock: f.hex(1000), toBlock: f.hex(1133), topics: [f.TOPIC.erc20Transfer, [topicOf(f.ALICE)]] });
    expect(node.calls('eth_getBlockByNumber')).toEqual([]);
  });

  it('sparse records (a span apart or more) are read by their receipts: no eth_getLogs of events', async () => {
    const txs = Array.from({ length: 5 }, (_, i) => oneTime(i, 1000 + 20_000 * i));
    const { logsFirst, receipts, node } = await both(txs);
    expect(verdicts(logsFirst)).toEqual(Array(5).fill('verified'));
    expect(logsFirst).toEqual(receipts);
    expect(receiptsAsked(node)).toHaveLength(5);
    expect(node.calls('eth_getLogs').every((c) => (c.params[0] as any).address.length === 1)).toBe(true);
  });

  it('two dense groups far apart: each read by its own edges and spans, not one span over the blocks between', async () => {
    const txs = [...Array.from({ length: 6 }, (_, i) => oneTime(i, 1000 + i)), ...Array.from({ length: 6 }, (_, i) => oneTime(6 + i, 50_000 + i))];
    const { logsFirst, receipts, node } = await both(txs);
    expect(verdicts(logsFirst)).toEqual(Array(12).fill('verified'));
    expect(logsFirst).toEqual(receipts);
    expect(receiptsAsked(node)).toEqual([0, 5, 6, 11].map(f.txHash));
  });

  it('a group whose spans would cost more calls than its receipts is read by receipts', async () => {
    // Four records over 30,001 blocks: 4 spans × 2 filters for 2 middle records.
    const txs = [oneTime(0, 1000), oneTime(1, 9000), oneTime(2, 18_000), oneTime(3, 27_000), oneTime(4, 31_000)];
    const { logsFirst, receipts, node } = await both(txs);
    expect(logsFirst).toEqual(receipts);
    expect(receiptsAsked(node)).toHaveLength(5);
  });

  it('a node that serves no eth_getLogs: every record by its receipt, each kind of eth_getLogs asked once', async () => {
    const txs = Array.from({ length: 12 }, (_, i) => oneTime(i, 1000 + i));
    const { judged, node } = await run(chainOf(txs, { logs: false }), [txs.slice(0, 6).map((t) => t.subject), txs.slice(6).map((t) => t.subject)]);
    expect(verdicts(judged.flat())).toEqual(Array(12).fill('verified'));
    // The events' two filters (8pay's contracts, the Transfers by sender: no address) once, in the first batch; the receipts' blocks once.
    const kind = (q: any) => (q.address === undefined || q.address.length === ALL_8PAY.length ? 'events' : 'blocks');
    expect(node.calls('eth_getLogs').map((c) => kind(c.params[0]))).toEqual(['events', 'events', 'blocks']);
    expect(receiptsAsked(node)).toHaveLength(12);
  });

  it('records in no order of time (a mirror\'s batch) are grouped by time all the same', async () => {
    const txs = [3, 0, 7, 1, 5, 2, 6, 4].map((i) => oneTime(i, 1000 + 5 * i));
    const { logsFirst, receipts, node } = await both(txs);
    expect(verdicts(logsFirst)).toEqual(Array(8).fill('verified'));
    expect(logsFirst).toEqual(receipts);
    expect(receiptsAsked(node).sort()).toEqual([0, 7].map(f.txHash).sort());
  });

  it('records of one block: one span of one block', async () => {
    const txs = Array.from({ length: 5 }, (_, i) => oneTime(i, 4242));
    const { logsFirst, receipts, node } = await both(txs);
    expect(verdicts(logsFirst)).toEqual(Array(5).fill('verified'));
    expect(logsFirst).toEqual(receipts);
    expect(receiptsAsked(node)).toEqual([0, 4].map(f.txHash));
  });

  it('a group over 25,000 blocks: spans of 10,000 blocks at most, none refused', async () => {
    const txs = Array.from({ length: 30 }, (_, i) => oneTime(i, 1000 + 850 * i));
    // A node that refuses a range of more than 10,000 blocks, as providers do.
    const strict = (c: Call): CallReply | undefined => {
      const q = c.params[0] as { fromBlock: string; toBlock: string };
      return c.method === 'eth_getLogs' && BigInt(q.toBlock) - BigInt(q.fromBlock) + 1n > 10_000n ? { error: { code: -32005, message: 'block range too large' } } : undefined;
    };
    const { logsFirst, receipts, node } = await both(txs, { call: strict });
    expect(verdicts(logsFirst)).toEqual(Array(30).fill('verified'));
    expect(logsFirst).toEqual(receipts);
    expect(receiptsAsked(node)).toEqual([0, 29].map(f.txHash));
    const spans = node.calls('eth_getLogs').filter((c) => (c.params[0] as any).address?.length === ALL_8PAY.length).map((c) => [Number(BigInt((c.params[0] as any).fromBlock)), Number(BigInt((c.params[0] as any).toBlock))]);
    expect(spans).toEqual([[1000, 10_999], [11_000, 20_999], [21_000, 25_650]]);
  });
});

describe('logs first: every record logs cannot answer gets its receipt\'s verdict', () => {
  it('missing, reverted, spoofed and reorged transactions are not in the spans: each read by its receipt', async () => {
    const kinds: Kind[] = ['ok', 'missing', 'ok', 'reverted', 'spoofed', 'ok', 'reorged', 'ok'];
    const txs = kinds.map((kind, i) => oneTime(i, 1000 + 3 * i, { kind }));
    const { logsFirst, receipts, node } = await both(txs);
    expect(verdicts(logsFirst)).toEqual(['verified', 'missing', 'verified', 'reverted', 'spoofed', 'verified', 'reorged', 'verified']);
    expect(logsFirst).toEqual(receipts);
    // The edges, then those whose logs did not answer.
    expect(receiptsAsked(node).sort()).toEqual([0, 7, 1, 3, 4, 6].map(f.txHash).sort());
  });

  it('an edge the node has no receipt of gives way to its neighbour', async () => {
    const txs = [oneTime(0, 1000, { kind: 'missing' }), ...Array.from({ length: 5 }, (_, i) => oneTime(i + 1, 1001 + i))];
    const { logsFirst, receipts, node } = await both(txs);
    expect(verdicts(logsFirst)).toEqual(['missing', ...Array(5).fill('verified')]);
    expect(logsFirst).toEqual(receipts);
    expect(receiptsAsked(node)).toEqual([f.txHash(0), f.txHash(5), f.txHash(1)]);
  });

  it('a field the API says otherwise: the receipt judges, the same differences', async () => {
    const txs = Array.from({ length: 5 }, (_, i) => oneTime(i, 1000 + i, i === 2 ? { api: { amount: '4', fee: '0.04' } } : {}));
    const { logsFirst, receipts, node } = await both(txs);
    expect(logsFirst[2]).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'amount', api: '4', chain: '5' }, { field: 'fee', api: '0.04', chain: '0.05' }] });
    expect(logsFirst).toEqual(receipts);
    expect(receiptsAsked(node)).toContain(f.txHash(2));
  });

  it('a timestamp the API got wrong, its block still in the span: a mismatch on timestamp', async () => {
    const txs = Array.from({ length: 5 }, (_, i) => oneTime(i, 1000 + 10 * i, i === 2 ? { api: { timestamp: at(1020) + 4 } } : {}));
    const { logsFirst, receipts } = await both(txs);
    expect(logsFirst[2]).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'timestamp', api: at(1020) + 4, chain: at(1020) }] });
    expect(logsFirst).toEqual(receipts);
  });

  it('a timestamp the API got wrong, its block outside the span: read by its receipt', async () => {
    const txs = Array.from({ length: 5 }, (_, i) => oneTime(i, 1000 + 10 * i, i === 2 ? { api: { timestamp: at(1020) } } : {}));
    // Its transaction lies far after the last record's block.
    txs[2] = oneTime(2, 5000, { api: { timestamp: at(1020) } });
    const { logsFirst, receipts, node } = await both(txs);
    expect(logsFirst[2]).toMatchObject({ verdict: 'mismatch', blockNumber: 5000, differences: [{ field: 'timestamp', api: at(1020), chain: at(5000) }] });
    expect(logsFirst).toEqual(receipts);
    expect(receiptsAsked(node)).toContain(f.txHash(2));
  });

  it('a record the API says failed whose transaction succeeded: read by its receipt', async () => {
    const txs = Array.from({ length: 5 }, (_, i) => oneTime(i, 1000 + i, i === 2 ? { api: { transactionStatus: 'failed' } } : {}));
    const { logsFirst, receipts } = await both(txs);
    expect(logsFirst[2]).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'transactionStatus', api: 'failed', chain: 'confirmed' }] });
    expect(logsFirst).toEqual(receipts);
  });

  it('a node that answers a look-alike contract\'s events to the 8pay filter does not make them 8pay\'s: spoofed', async () => {
    const txs = Array.from({ length: 5 }, (_, i) => oneTime(i, 1000 + i, i === 2 ? { kind: 'spoofed' } : {}));
    const tables = chainOf(txs);
    // Every log of the span, whatever its address.
    const careless = (c: Call): CallReply | undefined => {
      if (c.method !== 'eth_getLogs') return undefined;
      const q = c.params[0] as { fromBlock: string; toBlock: string };
      return { result: tables.logs!.filter((l) => BigInt(l.blockNumber) >= BigInt(q.fromBlock) && BigInt(l.blockNumber) <= BigInt(q.toBlock)) };
    };
    const { logsFirst, receipts } = await both(txs, { call: careless });
    expect(verdicts(logsFirst)).toEqual(['verified', 'verified', 'spoofed', 'verified', 'verified']);
    expect(logsFirst).toEqual(receipts);
  });

  it('a payment the chain makes to one more receiver than the API lists: a mismatch on receivers, never verified from part of its logs', async () => {
    const two: [string, bigint][] = [[f.BOB, 5n * f.E18], [f.CAROL, 2n * f.E18]];
    const txs = [payment(0, 1000, two, two), payment(1, 1001, two, two.slice(0, 1)), payment(2, 1002, two, two), payment(3, 1003, two, two), payment(4, 1004, two, two)];
    const { logsFirst, receipts, node } = await both(txs);
    expect(logsFirst[1]).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'receivers', api: 1, chain: 2 }] });
    expect(verdicts(logsFirst)).toEqual(['verified', 'mismatch', 'verified', 'verified', 'verified']);
    expect(logsFirst).toEqual(receipts);
    // Records 2 and 3 were judged by their logs.
    expect(receiptsAsked(node)).toEqual([0, 4, 1].map(f.txHash));
  });
});

describe('logs first: the spans\' own faults', () => {
  it('a removed log (of a block that left the chain) is no evidence: the receipt naming that block is reorged', async () => {
    const txs = Array.from({ length: 5 }, (_, i) => oneTime(i, 1000 + i, i === 2 ? { kind: 'reorged' } : {}));
    const tables = chainOf(txs);
    // The node also returns the orphan block's logs, marked removed.
    const orphan = txs[2].receipt!.logs.map((l) => ({ ...l, blockTimestamp: f.hex(at(1002)), removed: true }));
    tables.logs = [...tables.logs!, ...orphan];
    const { judged } = await run(tables, [txs.map((t) => t.subject)]);
    expect(verdicts(judged[0])).toEqual(['verified', 'verified', 'reorged', 'verified', 'verified']);
  });

  it('logs without blockTimestamp (an older node): the middle records\' blocks are read, the verdicts the same', async () => {
    const txs = Array.from({ length: 5 }, (_, i) => oneTime(i, 1000 + 3 * i));
    const { logsFirst, receipts, node } = await both(txs, { timestamps: false });
    expect(verdicts(logsFirst)).toEqual(Array(5).fill('verified'));
    expect(logsFirst).toEqual(receipts);
    expect(node.calls('eth_getBlockByNumber').map((c) => Number(BigInt(String(c.params[0])))).sort()).toEqual([1000, 1003, 1006, 1009, 1012]);
  });

  it('a block read whole with another timestamp than the API\'s: a mismatch on timestamp', async () => {
    const txs = Array.from({ length: 5 }, (_, i) => oneTime(i, 1000 + 3 * i));
    const tables = chainOf(txs, { timestamps: false });
    tables.blocks!.set(1006, f.block(1006, at(1006) + 9));
    const { judged } = await run(tables, [txs.map((t) => t.subject)]);
    expect(verdicts(judged[0])).toEqual(['verified', 'verified', 'mismatch', 'verified', 'verified']);
    expect(judged[0][2].differences).toEqual([{ field: 'timestamp', api: at(1006), chain: at(1006) + 9 }]);
  });

  it('a block the node reads with another hash than its logs say: two blocks at one height in one run, exit 6, nothing judged for good', async () => {
    const txs = Array.from({ length: 5 }, (_, i) => oneTime(i, 1000 + 3 * i));
    const tables = chainOf(txs, { timestamps: false });
    tables.blocks!.set(1006, f.block(1006, at(1006), 'd'));
    const node = await rpcNode(tables);
    nodes.push(node);
    const verifier = await Verifier.open(new ChainClient({ url: node.url, timeoutMs: 5000, retries: 1, concurrency: 2 }), 'bsc', 15);
    const e = await failure(verifier.verify(txs.map((t) => t.subject)));
    expect(e.exitCode).toBe(EXIT.server);
    expect(e.message).toContain('two blocks at height 1006 in one run');
  });

  it('a block read in an earlier batch under another hash (a reorg since): the receipt judges, against the block read before', async () => {
    const first = [oneTime(0, 1000), oneTime(1, 1006), oneTime(2, 1010)];
    // The second batch's record 4 lies at 1006 in a block of another hash, its logs and receipt alike.
    const moved = oneTime(4, 1006);
    moved.receipt = f.receipt({ hash: f.txHash(4), block: 1006, blockHash: f.blockHash(1006, 'd'), from: f.ALICE, to: f.BSC.oneTime, logs: oneTimeLogs(f.BSC.usdt, USDT_5, 'ok') });
    const second = [oneTime(3, 1003), moved, oneTime(5, 1012)];
    const judgedBy = async (logs: boolean) => {
      const tables = chainOf(first, { logs });
      const node = await rpcNode(tables);
      nodes.push(node);
      const verifier = await Verifier.open(new ChainClient({ url: node.url, timeoutMs: 5000, retries: 1, concurrency: 2 }), 'bsc', 15);
      const before = await verifier.verify(first.map((t) => t.subject));
      // The reorg: block 1006 is now 'd', holding record 4's transaction; record 1's left the chain.
      Object.assign(tables, chainOf([first[0], { ...first[1], canonical: false }, first[2], ...second], { logs }));
      tables.blocks!.set(1006, f.block(1006, at(1006), 'd'));
      return [...before, ...(await verifier.verify(second.map((t) => t.subject)))];
    };
    const logsFirst = await judgedBy(true);
    expect(verdicts(logsFirst)).toEqual(['verified', 'verified', 'verified', 'verified', 'reorged', 'verified']);
    expect(logsFirst).toEqual(await judgedBy(false));
  });

  it('spans refused (-32005) are asked again in halves: the same judgements, down to a block read by receipt', async () => {
    const txs = Array.from({ length: 12 }, (_, i) => oneTime(i, 1000 + 7 * i));
    const refuse = (c: Call): CallReply | undefined => {
      const q = c.params[0] as { fromBlock: string; toBlock: string };
      if (c.method !== 'eth_getLogs') return undefined;
      // Wider than 20 blocks, and block 1035 whatever the width.
      if (BigInt(q.toBlock) - BigInt(q.fromBlock) + 1n > 20n || (BigInt(q.fromBlock) <= 1035n && BigInt(q.toBlock) >= 1035n)) return { error: { code: -32005, message: 'query returned more than 10000 results' } };
      return undefined;
    };
    const { logsFirst, receipts, node } = await both(txs, { call: refuse });
    expect(verdicts(logsFirst)).toEqual(Array(12).fill('verified'));
    expect(logsFirst).toEqual(receipts);
    // Record 5 lies at 1035: its logs could not be read, so its receipt was.
    expect(receiptsAsked(node).sort()).toEqual([0, 11, 5].map(f.txHash).sort());
  });

  it('after a refusal, later spans are no wider than the half that was', async () => {
    const txs = Array.from({ length: 12 }, (_, i) => oneTime(i, 1000 + 7 * i));
    const refuse = (c: Call): CallReply | undefined => {
      const q = c.params[0] as { fromBlock: string; toBlock: string };
      return c.method === 'eth_getLogs' && BigInt(q.toBlock) - BigInt(q.fromBlock) + 1n > 20n ? { error: { code: -32005, message: 'query returned more than 10000 results' } } : undefined;
    };
    const { logsFirst, receipts, node } = await both(txs, { call: refuse, batches: [6, 6] });
    expect(logsFirst).toEqual(receipts);
    const widths = node.calls('eth_getLogs').filter((c) => (c.params[0] as any).address?.length === ALL_8PAY.length).map((c) => Number(BigInt((c.params[0] as any).toBlock) - BigInt((c.params[0] as any).fromBlock)) + 1);
    // First batch: 36 blocks refused, halves of 18 answered; the second batch's 36 asked in spans of 18 at once.
    expect(widths).toEqual([36, 18, 18, 18, 18]);
  });

  it('unconfirmed records near the head: each its own confirmations', async () => {
    const txs = Array.from({ length: 6 }, (_, i) => oneTime(i, HEAD - 20 + 4 * i));
    // A seventh, between the last two: unconfirmed, and its API amount differs.
    txs.splice(5, 0, oneTime(6, HEAD - 3, { api: { amount: '4', fee: '0.04' } }));
    const { logsFirst, receipts, node } = await both(txs);
    expect(logsFirst).toEqual(receipts);
    // Unconfirmed with no difference is what the receipts would say too: kept from the logs. With differences, the receipt judges.
    expect(receiptsAsked(node)).toEqual([0, 5, 6].map(f.txHash));
    expect(logsFirst[5]).toMatchObject({ verdict: 'unconfirmed', confirmations: 4, differences: [{ field: 'confirmations', api: 15, chain: 4 }, { field: 'amount', api: '4', chain: '5' }, { field: 'fee', api: '0.04', chain: '0.05' }] });
    expect(logsFirst.filter((_, i) => i !== 5).map((j) => [j.verdict, j.confirmations])).toEqual([
      ['verified', 21],
      ['verified', 17],
      ['unconfirmed', 13],
      ['unconfirmed', 9],
      ['unconfirmed', 5],
      ['unconfirmed', 1],
    ]);
  });
});

describe('logs first: a node at odds with itself is exit 6, never a verdict', () => {
  const txs = () => Array.from({ length: 5 }, (_, i) => oneTime(i, 1000 + i));
  /** The logs-first node, with its eth_getLogs answers changed by `change`. */
  const failing = async (change: (logs: Record<string, any>[]) => Record<string, any>[]) => {
    const all = txs();
    const tables = chainOf(all);
    const node = await rpcNode(tables, {
      call: (c) => {
        if (c.method !== 'eth_getLogs' || (c.params[0] as any).address?.length !== ALL_8PAY.length) return undefined;
        const q = c.params[0] as { fromBlock: string; toBlock: string };
        return { result: change(tables.logs!.filter((l) => ALL_8PAY.includes(l.address) && BigInt(l.blockNumber) >= BigInt(q.fromBlock) && BigInt(l.blockNumber) <= BigInt(q.toBlock))) };
      },
    });
    nodes.push(node);
    const verifier = await Verifier.open(new ChainClient({ url: node.url, timeoutMs: 5000, retries: 1, concurrency: 2 }), 'bsc', 15);
    return failure(verifier.verify(all.map((t) => t.subject)));
  };

  it('one log said two ways', async () => {
    const err = await failing((logs) => [...logs, { ...logs[0], data: `0x${f.uint(1)}` }]);
    expect(err.exitCode).toBe(EXIT.server);
    expect(err.message).toMatch(/two logs at position \d+ of transaction 0x7+/);
  });

  it('logs of two blocks at one height', async () => {
    const err = await failing((logs) => logs.map((l) => (l.transactionHash === f.txHash(3) ? { ...l, blockNumber: f.hex(1002) } : l)));
    expect(err.exitCode).toBe(EXIT.server);
    expect(err.message).toMatch(/logs of two blocks at height 1002/);
  });

  it('two timestamps for one block', async () => {
    const err = await failing((logs) => logs.map((l, i) => (l.blockNumber === f.hex(1002) && i % 2 === 0 ? { ...l, blockTimestamp: f.hex(at(1002) + 1) } : l)));
    expect(err.exitCode).toBe(EXIT.server);
    expect(err.message).toMatch(/two timestamps for block 0xb+0*3ea/);
  });

  it('logs answered out of order are read in log order: a payment whose API lists its receivers the other way round is a mismatch', async () => {
    const two: [string, bigint][] = [[f.BOB, 5n * f.E18], [f.CAROL, 2n * f.E18]];
    const all = [payment(0, 1000, two, two), payment(1, 1001, two, [...two].reverse()), payment(2, 1002, two, two), payment(3, 1003, two, two), payment(4, 1004, two, two)];
    const tables = chainOf(all);
    tables.logs = [...tables.logs!].reverse();
    const { judged, node } = await run(tables, [all.map((t) => t.subject)]);
    expect(verdicts(judged[0])).toEqual(['verified', 'mismatch', 'verified', 'verified', 'verified']);
    expect(receiptsAsked(node)).toEqual([0, 4, 1].map(f.txHash));
    expect(judged[0][1].differences.map((d) => d.field)).toEqual(['receivers[0].user', 'receivers[0].amount', 'receivers[0].fee', 'receivers[1].user', 'receivers[1].amount', 'receivers[1].fee']);
  });

  it('a log answered twice (a repeat, or two filters finding it) counts once', async () => {
    const two: [string, bigint][] = [[f.BOB, 5n * f.E18], [f.CAROL, 2n * f.E18]];
    const all = Array.from({ length: 5 }, (_, i) => payment(i, 1000 + i, two, two));
    const tables = chainOf(all);
    tables.logs = [...tables.logs!, ...tables.logs!];
    const { judged, node } = await run(tables, [all.map((t) => t.subject)]);
    expect(verdicts(judged[0])).toEqual(Array(5).fill('verified'));
    expect(receiptsAsked(node)).toEqual([f.txHash(0), f.txHash(4)]);
  });
});

describe('logs first: each collection it reads', () => {
  const PLAN = f.id32(1, 'aa');
  const sub = (n: number) => f.id32(n, 'cc');
  const SCHEDULE_TYPE = keccak256(stringToHex('SCHEDULED_PAYMENTS'));
  const leg = (paymentType: string, metadata: string) => f.leg({ token: f.BSC.usdt, sender: f.ALICE, receiver: f.BOB, amount: USDT_5, pct: 100n, paymentType, metadata });
  const transfer = (i: number, block: number, over: Record<string, unknown>) => ({ description: 'x', amount: '5', fee: '0.05', token: 'USDT', category: 'c', timestamp: at(block), transactionHash: f.txHash(i), transactionStatus: 'confirmed', sender: f.ALICE, receiver: f.BOB, ...over });
  const cases: [string, (i: number, block: number) => Tx][] = [
    ['on-demand/transfers', (i, block) => txOf({ collection: 'on-demand/transfers', record: transfer(i, block, { planId: PLAN, subscriptionId: sub(i) }) }, f.txHash(i), block, 'ok', [...leg(f.PAYMENT_TYPE.onDemand, sub(i)), f.onDemandBilling(f.BSC.odManagement, PLAN, sub(i), USDT_5)], f.KEEPER, f.BSC.odManagement)],
    ['variable-recurring/transfers', (i, block) => txOf({ collection: 'variable-recurring/transfers', record: transfer(i, block, { planId: PLAN, subscriptionId: sub(i) }) }, f.txHash(i), block, 'ok', [...leg(f.PAYMENT_TYPE.variableRecurring, sub(i)), f.variableBilling(f.BSC.vrManagement, PLAN, sub(i), USDT_5, at(block) - 100, at(block) - 1)], f.KEEPER, f.BSC.vrManagement)],
    ['scheduled-payments/transfers', (i, block) => txOf({ collection: 'scheduled-payments/transfers', record: transfer(i, block, { scheduleId: sub(i) }) }, f.txHash(i), block, 'ok', [...leg(SCHEDULE_TYPE, sub(i)), f.scheduleExecuted(f.BSC.scheduledPayments, sub(i))], f.KEEPER, f.BSC.scheduledPayments)],
    ['variable-recurring/cancellation-requests', (i, block) => txOf({ collection: 'variable-recurring/cancellation-requests', record: { subscriptionId: sub(i), timestamp: at(block), transactionHash: f.txHash(i), transactionStatus: 'confirmed' }, planId: PLAN }, f.txHash(i), block, 'ok', [f.subscriptionEvent(f.TOPIC.subscriptionCancellationRequested, f.BSC.vrSubscriptions, PLAN, sub(i))], f.ALICE, f.BSC.vrSubscriptions)],
  ];

  it.each(cases)('%s: the middle records by their logs, the same judgements, one differing field read by its receipt', async (_collection, make) => {
    const txs = Array.from({ length: 6 }, (_, i) => make(i, 1000 + 2 * i));
    // Record 3's API names another subscription (or schedule): a mismatch, by its receipt.
    const other = { ...txs[3], subject: { ...txs[3].subject, record: { ...txs[3].subject.record, ...('scheduleId' in txs[3].subject.record ? { scheduleId: sub(99) } : { subscriptionId: sub(99) }) } } };
    txs[3] = other;
    const { logsFirst, receipts, node } = await both(txs);
    expect(verdicts(logsFirst)).toEqual(['verified', 'verified', 'verified', 'mismatch', 'verified', 'verified']);
    expect(logsFirst).toEqual(receipts);
    expect(receiptsAsked(node)).toEqual([0, 5, 3].map(f.txHash));
  });
});

describe('logs first: several records of one transaction', () => {
  const PLAN = f.id32(1, 'aa');
  const sub = (n: number) => f.id32(n, 'cc');
  /** A variable-recurring transfer record of subscription `n`. */
  const record = (hash: string, block: number, n: number, amount: string, fee: string) => ({
    description: 'x', amount, fee, token: 'USDT', category: 'c', timestamp: at(block), transactionHash: hash, transactionStatus: 'confirmed', sender: f.ALICE, receiver: f.BOB, planId: PLAN, subscriptionId: sub(n),
  });
  /** One transaction billing subscriptions `bills` (each its leg and VR Billing), autobilled when more than one (then a Bill from Biller). */
  const billing = (hash: string, block: number, bills: [number, bigint][]) => {
    const logs = bills.flatMap(([n, amount]) => [
      ...f.leg({ token: f.BSC.usdt, sender: f.ALICE, receiver: f.BOB, amount, pct: 100n, paymentType: f.PAYMENT_TYPE.variableRecurring, metadata: sub(n) }),
      f.variableBilling(f.BSC.vrManagement, PLAN, sub(n), amount, at(block) - 86400, at(block) - 1),
    ]);
    if (bills.length > 1) logs.push(f.billEvent(f.BSC.biller, f.KEEPER, PLAN, bills.map(([n]) => sub(n))));
    return f.receipt({ hash, block, from: f.KEEPER, to: bills.length > 1 ? f.BSC.biller : f.BSC.vrManagement, logs });
  };

  it('an autobilled transaction billing two subscriptions: each record keeps its own amount, and one claiming the other\'s is a mismatch', async () => {
    const single = (i: number, block: number): Tx => ({ subject: { collection: 'variable-recurring/transfers', record: record(f.txHash(i), block, 10 + i, '1', '0.01') }, receipt: billing(f.txHash(i), block, [[10 + i, f.E18]]), canonical: true });
    const hash = f.txHash(7);
    const receipt = billing(hash, 1005, [[1, 25n * f.E18 / 10n], [2, 4n * f.E18]]);
    const own = (n: number, amount: string, fee: string): Tx => ({ subject: { collection: 'variable-recurring/transfers', record: record(hash, 1005, n, amount, fee) }, receipt, canonical: true });
    const txs = [single(0, 1000), own(1, '2.5', '0.025'), own(2, '4', '0.04'), own(1, '4', '0.04'), single(1, 1010)];
    const { logsFirst, receipts } = await both(txs);
    expect(verdicts(logsFirst)).toEqual(['verified', 'verified', 'verified', 'mismatch', 'verified']);
    expect(logsFirst[3].differences).toEqual([{ field: 'amount', api: '4', chain: '2.5' }, { field: 'fee', api: '0.04', chain: '0.025' }]);
    expect(logsFirst).toEqual(receipts);
  });
});

describe('logs first: a property', () => {
  // Mostly records as the chain holds them, a few blocks apart; now and then a discrepancy, a field the API says otherwise, a gap wider than a span.
  const often = <T,>(usual: fc.Arbitrary<T>, rare: fc.Arbitrary<T>) => fc.oneof({ weight: 6, arbitrary: usual }, { weight: 1, arbitrary: rare });
  const spec = fc.record({
    gap: often(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 30_000 })),
    kind: often(fc.constant<Kind>('ok'), fc.constantFrom<Kind>('missing', 'reverted', 'spoofed', 'reorged')),
    bnb: fc.boolean(),
    api: often(
      fc.constant<Record<string, unknown>>({}),
      fc.constantFrom<Record<string, unknown>>({ amount: '4' }, { fee: '0.06' }, { receiver: f.CAROL }, { sender: f.CAROL }, { token: 'BUSD' }, { description: 'e' }, { transactionStatus: 'failed' }, { timestamp: 'moved' }),
    ),
  });

  it('random records judged logs first and by receipts alone: identical judgements', async () => {
    // Records, and receipts the logs-first node was asked: the logs must have answered for many.
    let records = 0;
    let asked = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(spec, { minLength: 1, maxLength: 30, size: 'max' }), fc.integer({ min: 1, max: 3 }), async (specs, batchCount) => {
        let block = 1000;
        const txs = specs.map((s, i) => {
          block += s.gap;
          const api = s.api.timestamp === 'moved' ? { timestamp: at(block) - 7 } : s.api;
          return oneTime(i, block, { kind: s.kind, bnb: s.bnb, api });
        });
        const size = Math.ceil(txs.length / batchCount);
        const batches = Array.from({ length: Math.ceil(txs.length / size) }, (_, i) => Math.min(size, txs.length - i * size));
        const { logsFirst, receipts, node } = await both(txs, { batches });
        records += txs.length;
        asked += new Set(receiptsAsked(node)).size;
        await Promise.all(nodes.splice(0).map((n) => n.close()));
        expect(logsFirst).toEqual(receipts);
      }),
      { numRuns: 40 },
    );
    // About 0.6 (the discrepancies, the groups too small or too sparse, their edges).
    expect(asked / records).toBeLessThan(0.8);
  });
});
