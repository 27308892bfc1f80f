import { abiString, defaultEthCall, rpcNode, type NodeTables, type RpcNode } from '../unit/rpc-node.js';
import { apiRecords, emulator } from './helpers.js';
import type { Emulator } from '../../src/emulator/index.js';
import * as f from '../unit/chain-fixtures.js';

// A chain built BY HAND (chain-fixtures.ts) for the emulator's wallet-to-wallet
// transfers, with a discrepancy of each kind planted on the first confirmed records:
// the verdict each record must get is decided here, when it is planted.

export const INTERMEDIARY = '0x5555555555555555555555555555555555555555';
/** bsc tokens as ONCHAIN.md §4 lists them (lower case); 8PAY is found by symbol() on 8PAY v2. */
const TOKEN: Record<string, string> = { USDT: f.BSC.usdt, BUSD: f.BSC.busd, USDC: '0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d', '8PAY': f.BSC.eightPayV2 };

export type Planted = 'verified' | 'pending' | 'missing' | 'reorged' | 'unconfirmed' | 'reverted' | 'spoofed' | 'mismatch';

/** An API decimal string in base units of 18 decimals, by string handling alone. */
export const units = (amount: string) => {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole + fraction.padEnd(18, '0'));
};

export const HEAD = 5000;

/** Record i lives in block 1000 + i (the unconfirmed one near the head). */
export function plantedChain(records: Record<string, any>[]): { tables: NodeTables; expected: Map<string, Planted> } {
  const expected = new Map<string, Planted>();
  const receipts = new Map<string, unknown>();
  const blocks = new Map<number, unknown>();
  const transactions = new Map<string, unknown>();
  const plan: Planted[] = ['mismatch', 'missing', 'reorged', 'unconfirmed', 'reverted', 'spoofed'];
  let confirmed = 0;
  records.forEach((r, i) => {
    const hash = String(r.transactionHash).toLowerCase();
    const block = 1000 + i;
    if (r.transactionStatus === 'pending') return void expected.set(hash, 'pending');
    const kind: Planted = r.transactionStatus === 'confirmed' ? (plan[confirmed++] ?? 'verified') : 'verified';
    expected.set(hash, kind);
    if (kind === 'missing') return;
    const at = kind === 'unconfirmed' ? HEAD - 3 : block;
    blocks.set(at, f.block(at, r.timestamp, kind === 'reorged' ? 'c' : 'b'));
    const status = r.transactionStatus === 'failed' || kind === 'reverted' ? '0x0' : '0x1';
    const value = kind === 'mismatch' ? units(r.amount) + 1n : units(r.amount);
    if (r.token === 'BNB') {
      transactions.set(hash, f.transaction({ hash, from: INTERMEDIARY, to: r.receiver, value, block: at }));
      receipts.set(hash, f.receipt({ hash, block: at, from: INTERMEDIARY, to: r.receiver, status, logs: [] }));
      // The native coin has no log to forge.
      if (kind === 'spoofed') expected.set(hash, 'verified');
    } else {
      const token = kind === 'spoofed' ? f.LOOKALIKE : TOKEN[r.token];
      receipts.set(hash, f.receipt({ hash, block: at, from: INTERMEDIARY, to: token, status, logs: [f.erc20Transfer(token, INTERMEDIARY, r.receiver, value)] }));
    }
  });
  const ethCall = (to: string, data: string) =>
    data.startsWith('0x95d89b41') ? (to === f.BSC.eightPayV2 || to === f.BSC.eightPayV1 ? abiString('8PAY') : abiString('OTHER')) : defaultEthCall(to, data);
  return { tables: { chainId: 56, head: HEAD, receipts, blocks, transactions, ethCall }, expected };
}

/** An emulator of `count` records per collection, its wallet-to-wallet transfers, and a node serving their planted chain. */
export async function plantedSetup(count = 60): Promise<{ emu: Emulator; records: Record<string, any>[]; expected: Map<string, Planted>; node: RpcNode }> {
  const emu = await emulator({ records: count });
  const records = await apiRecords(emu, '/wallet-to-wallet/transfers');
  const chain = plantedChain(records);
  return { emu, records, expected: chain.expected, node: await rpcNode(chain.tables) };
}
