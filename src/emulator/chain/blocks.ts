import type { Hex } from 'viem';
import { hashString, mixSeed } from '../prng.js';

// The chain's blocks: one a second, so a record's block is stamped with the record's own
// timestamp (records of the same second share a block). Block n is stamped genesis + n.
// A block's hash is derived from the seed, the chain id and its number with the emulator's
// seed mixer (a block's hash is a label nobody recomputes, and a verifier reads a hundred
// thousand of them); its last 8 bytes also carry the number (masked), so
// eth_getBlockByHash finds it without a table.

const YEAR = 365 * 86_400;

/** When each chain started (its genesis block), as the real networks did. */
const LAUNCHED: Record<string, number> = {
  bsc: 1_598_671_449, // 2020-08-29
  ethereum: 1_438_269_973, // 2015-07-30
  polygon: 1_590_824_836, // 2020-05-30
  sandbox: 1_594_281_616, // 2020-07-09, BNB Smart Chain testnet
};

const ZERO_HASH: Hex = `0x${'0'.repeat(64)}`;
const EMPTY_BLOOM: Hex = `0x${'0'.repeat(512)}`;
/** keccak256(rlp([])): the uncles hash of a block without uncles. */
const EMPTY_UNCLES: Hex = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';

/** A JSON-RPC quantity: hex without leading zeros (ONCHAIN.md §6). viem's numberToHex checks more and costs more per call. */
export const quantity = (n: number | bigint): Hex => `0x${n.toString(16)}`;

/** Block hashes computed lately: a receipt and its block ask for the same ones. */
const HASHES_KEPT = 4096;

export interface RpcBlock {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  [field: string]: unknown;
}

export class Blocks {
  /** Unix seconds of block 0. */
  readonly genesis: number;
  private readonly hashes = new Map<number, Hex>();

  constructor(
    private readonly chainId: number,
    private readonly seed: number,
    chain: string,
    anchor: number,
  ) {
    // Data anchored before a network's launch still has blocks: genesis moves back.
    this.genesis = Math.min(LAUNCHED[chain] ?? LAUNCHED.bsc, anchor - 2 * YEAR);
  }

  numberAt(timestamp: number): number {
    return timestamp - this.genesis;
  }

  timestampOf(number: number): number {
    return this.genesis + number;
  }

  hashOf(number: number): Hex {
    let hash = this.hashes.get(number);
    if (hash === undefined) {
      hash = this.derive(number, 'block');
      if (this.hashes.size >= HASHES_KEPT) this.hashes.delete(this.hashes.keys().next().value!);
      this.hashes.set(number, hash);
    }
    return hash;
  }

  /** The hash of a block that lost a reorg at `number` (a receipt still names it). */
  orphanHashOf(number: number, transactionHash: string): Hex {
    return this.derive(number, `orphan ${transactionHash.toLowerCase()}`);
  }

  /** The number of a canonical block hash, or undefined for any other hash. */
  numberOf(hash: string): number | undefined {
    if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) return undefined;
    const h = hash.toLowerCase();
    const number = Number(BigInt(`0x${h.slice(50)}`) ^ BigInt(`0x${h.slice(2, 18)}`));
    if (!Number.isSafeInteger(number) || number < 0) return undefined;
    return this.hashOf(number) === h ? number : undefined;
  }

  /** eth_getBlockByNumber's answer (full=false): the header, without the list of transactions. */
  rpcBlock(number: number): RpcBlock {
    return {
      number: quantity(number),
      hash: this.hashOf(number),
      parentHash: number > 0 ? this.hashOf(number - 1) : ZERO_HASH,
      timestamp: quantity(this.timestampOf(number)),
      nonce: '0x0000000000000000',
      sha3Uncles: EMPTY_UNCLES,
      logsBloom: EMPTY_BLOOM,
      miner: '0x0000000000000000000000000000000000000000',
      difficulty: '0x2',
      extraData: '0x',
      gasLimit: '0x8f0d180',
      uncles: [],
    };
  }

  /** 24 bytes mixed from (seed, chain id, number, kind), then the number masked by the first 8 of them. */
  private derive(number: number, kind: string): Hex {
    const k = hashString(kind);
    // A number of blocks fits 53 bits: its high and low 32-bit halves both take part.
    const high = Math.floor(number / 2 ** 32);
    let h = '';
    for (let i = 0; i < 6; i++) h += mixSeed(this.seed, this.chainId, high, number >>> 0, k, i).toString(16).padStart(8, '0');
    const tail = (BigInt(number) ^ BigInt(`0x${h.slice(0, 16)}`)).toString(16).padStart(16, '0');
    return `0x${h}${tail}`;
  }
}
