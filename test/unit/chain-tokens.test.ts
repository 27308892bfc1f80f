import { afterEach, describe, expect, it } from 'vitest';
import { keccak256, stringToHex } from 'viem';
import type { Subject } from '../../src/chain/decode.js';
import { ChainClient } from '../../src/chain/rpc-client.js';
import { Verifier } from '../../src/chain/verifier.js';
import { abiString, defaultEthCall, rpcNode, type RpcNode } from './rpc-node.js';
import * as f from './chain-fixtures.js';

// The API names tokens by symbol, the chain by address (ONCHAIN.md §4). A node written
// here answers symbol() as the real tokens do: 8PAY v2 `8PAY v2`, the migrated 8PAY v1
// `8PAY` (the trap: a lookup of the API's `8PAY` by symbol() finds v1). The expected
// verdicts are read off §4 by hand: the API's 8PAY is v2; v1 on chain is a token difference.

const nodes: RpcNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

const HEAD = 2000;
const T0 = 1_700_000_000;
const ZERO = `0x${'0'.repeat(64)}`;
const TAG = keccak256(stringToHex('t'));
/** symbol() as the real bsc tokens answer it; any other contract: the default (no symbol()). */
const SYMBOLS: Record<string, string> = { [f.BSC.eightPayV2]: '8PAY v2', [f.BSC.eightPayV1]: '8PAY', [f.BSC.usdt]: 'USDT', [f.BSC.busd]: 'BUSD' };

/** A one-time transfer of 5 `symbol` Alice → Bob whose leg is paid on chain in the token at `paidIn`. */
function transfer(i: number, symbol: string, paidIn: string) {
  const hash = f.txHash(i);
  const block = 1000 + i;
  const amount = 5n * f.E18;
  const logs = [
    ...f.leg({ token: paidIn, sender: f.ALICE, receiver: f.BOB, amount, pct: 100n, paymentType: f.PAYMENT_TYPE.oneTime, metadata: ZERO }),
    f.payment(f.BSC.oneTime, f.ALICE, TAG, paidIn, 'd', 'c'),
    f.receiverEvent(f.BSC.oneTime, f.BOB, amount),
  ];
  const record = { description: 'd', amount: '5', fee: '0.05', token: symbol, category: 'c', timestamp: T0 + block, transactionHash: hash, transactionStatus: 'confirmed', sender: f.ALICE, receiver: f.BOB };
  return { subject: { collection: 'one-time/transfers', record } as Subject, receipt: f.receipt({ hash, block, from: f.ALICE, to: f.BSC.oneTime, logs }), block: f.block(block, T0 + block) };
}

async function judged(txs: ReturnType<typeof transfer>[]) {
  const node = await rpcNode({
    chainId: 56,
    head: HEAD,
    receipts: new Map(txs.map((t) => [t.receipt.transactionHash, t.receipt])),
    blocks: new Map(txs.map((t) => [Number(BigInt(t.block.number)), t.block])),
    ethCall: (to, data) => (data.startsWith('0x95d89b41') ? (SYMBOLS[to] !== undefined ? abiString(SYMBOLS[to]) : undefined) : defaultEthCall(to, data)),
  });
  nodes.push(node);
  const verifier = await Verifier.open(new ChainClient({ url: node.url, timeoutMs: 5000, retries: 1, concurrency: 2 }), 'bsc', 15);
  return { judgements: await verifier.verify(txs.map((t) => t.subject)), node };
}

describe("the API's 8PAY is 8PAY v2 (ONCHAIN.md §4), whatever symbol() answers", () => {
  it('a payment in v2 is verified; one in the migrated v1 is a token difference naming v1', async () => {
    const { judgements } = await judged([transfer(1, '8PAY', f.BSC.eightPayV2), transfer(2, '8PAY', f.BSC.eightPayV1)]);
    expect(judgements[0]).toMatchObject({ verdict: 'verified', differences: [] });
    expect(judgements[1].verdict).toBe('mismatch');
    // The chain's token named by its list symbol.
    expect(judgements[1].differences).toEqual([{ field: 'token', api: '8PAY', chain: f.BSC.eightPayV1, note: '8PAY v1' }]);
  });

  it('8PAY is found by the list, not by asking symbol(); a symbol the list lacks asks only current tokens, never v1', async () => {
    const { judgements, node } = await judged([transfer(1, '8PAY', f.BSC.eightPayV2)]);
    expect(judgements[0].verdict).toBe('verified');
    expect(node.calls('eth_call').filter((c) => String((c.params[0] as { data: string }).data).startsWith('0x95d89b41'))).toEqual([]);
    // A symbol the list lacks: symbol() is asked of the list's current tokens, never of v1 (whose answer is no API name), and none answers it.
    const other = await judged([transfer(3, 'FOO', f.BSC.eightPayV1)]);
    const asked = other.node.calls('eth_call').filter((c) => String((c.params[0] as { data: string }).data).startsWith('0x95d89b41')).map((c) => (c.params[0] as { to: string }).to);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked).not.toContain(f.BSC.eightPayV1);
    expect(other.judgements[0].verdict).toBe('mismatch');
    expect(other.judgements[0].differences).toContainEqual({ field: 'token', api: 'FOO', chain: f.BSC.eightPayV1, note: '8PAY v1' });
  });

  it('the API\'s USDT (the list spells it so) and BUSD are verified by the list', async () => {
    const { judgements } = await judged([transfer(1, 'USDT', f.BSC.usdt), transfer(2, 'BUSD', f.BSC.busd)]);
    expect(judgements.map((j) => j.verdict)).toEqual(['verified', 'verified']);
  });
});
