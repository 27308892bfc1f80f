import { abiString, defaultEthCall, rpcNode, type NodeTables, type RpcNode } from '../unit/rpc-node.js';
import { apiRecords, emulator } from './helpers.js';
import type { Emulator } from '../../src/emulator/index.js';
import * as f from '../unit/chain-fixtures.js';

// A chain built BY HAND (chain-fixtures.ts) for the emulator's wallet-to-wallet
// transfers, with a discrepancy of each kind planted on the first confirmed records:
// the verdict each record must get is decided here, when it is planted.

export const INTERMEDIARY = '0x5555555555555555555555555555555555555555';
/** bsc tokens as ONCHAIN.md §4 lists them (lower case); the API's 8PAY is 8PAY v2 (§4). */
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
  const tables: NodeTables = { chainId: 56, head: HEAD, receipts: new Map(), blocks: new Map(), transactions: new Map(), ethCall: symbolCall };
  const plan: Planted[] = ['mismatch', 'missing', 'reorged', 'unconfirmed', 'reverted', 'spoofed'];
  let confirmed = 0;
  records.forEach((r, i) => {
    const hash = String(r.transactionHash).toLowerCase();
    if (r.transactionStatus === 'pending') return void expected.set(hash, 'pending');
    const kind: Planted = r.transactionStatus === 'confirmed' ? (plan[confirmed++] ?? 'verified') : 'verified';
    expected.set(hash, plant(tables, r, kind === 'unconfirmed' ? HEAD - 3 : 1000 + i, kind));
  });
  return { tables, expected };
}

// symbol() as the real tokens answer it (ONCHAIN.md §4): v2 `8PAY v2`, the migrated v1 `8PAY`.
const SYMBOLS: Record<string, string> = { [f.BSC.eightPayV2]: '8PAY v2', [f.BSC.eightPayV1]: '8PAY', [f.BSC.usdt]: 'USDT', [f.BSC.busd]: 'BUSD' };
const symbolCall = (to: string, data: string) => (data.startsWith('0x95d89b41') ? abiString(SYMBOLS[to] ?? 'OTHER') : defaultEthCall(to, data));

/** Puts a wallet-to-wallet transfer's transaction on the chain at block `at`, as `kind` says; returns the verdict it must get. */
export function plant(tables: NodeTables, r: Record<string, any>, at: number, kind: Planted): Planted {
  const hash = String(r.transactionHash).toLowerCase();
  if (kind === 'missing') return kind;
  tables.blocks!.set(at, f.block(at, r.timestamp, kind === 'reorged' ? 'c' : 'b'));
  const status = r.transactionStatus === 'failed' || kind === 'reverted' ? '0x0' : '0x1';
  const value = kind === 'mismatch' ? units(r.amount) + 1n : units(r.amount);
  if (r.token === 'BNB') {
    tables.transactions!.set(hash, f.transaction({ hash, from: INTERMEDIARY, to: r.receiver, value, block: at }));
    tables.receipts!.set(hash, f.receipt({ hash, block: at, from: INTERMEDIARY, to: r.receiver, status, logs: [] }));
    // The native coin has no log to forge.
    return kind === 'spoofed' ? 'verified' : kind;
  }
  const token = kind === 'spoofed' ? f.LOOKALIKE : TOKEN[r.token];
  // A failed transfer's reverted transaction was sent to the token's contract (ONCHAIN.md §9 rule 5).
  tables.receipts!.set(hash, f.receipt({ hash, block: at, from: INTERMEDIARY, to: token, status, logs: [f.erc20Transfer(token, INTERMEDIARY, r.receiver, value)] }));
  return kind;
}

/** An emulator of `count` records per collection, its wallet-to-wallet transfers, and a node serving their planted chain. */
export async function plantedSetup(count = 60): Promise<{ emu: Emulator; records: Record<string, any>[]; expected: Map<string, Planted>; node: RpcNode }> {
  const emu = await emulator({ records: count });
  const records = await apiRecords(emu, '/wallet-to-wallet/transfers');
  const chain = plantedChain(records);
  return { emu, records, expected: chain.expected, node: await rpcNode(chain.tables) };
}
