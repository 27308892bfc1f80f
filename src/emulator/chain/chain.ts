import { getAddress, keccak256, stringToHex, type Address, type Hex } from 'viem';
import { CHAIN_IDS, CONTRACTS, type ChainSlug } from '../../chain/model.js';
import type { Datasets } from '../datasets.js';
import { hashString, mixSeed } from '../prng.js';
import { Blocks, quantity, type RpcBlock } from './blocks.js';
import type { ChainClock } from './clock.js';
import { discrepancyOf, lookAlike, type DiscrepancyKind } from './discrepancies.js';
import { LAYOUTS, MOVED_MAX_S, transactionsOf, type Draft } from './layouts.js';
import { Locator } from './locator.js';
import { EmulatorFeeds } from './feeds.js';
import { eventLog, type Log } from './logs.js';
import { TransactionSeconds } from './seconds.js';
import { Transcript, type Difference } from './transcript.js';

// One chain of the emulator: its blocks, and the transaction and receipt of every record
// of the chain's collections, built when asked for (by transaction hash) from the record
// as the API serves it now, then kept in a small cache until records change. Nothing is
// built up front, so a million records cost only the index of their hashes.

const CACHE_SIZE = 2048;

/** Gas price per chain (wei), as their networks charge about. */
const GAS_PRICE: Record<ChainSlug, bigint> = { bsc: 1_000_000_000n, ethereum: 12_000_000_000n, polygon: 30_000_000_000n, sandbox: 10_000_000_000n };

/** A log as a node answers it, in a receipt or from eth_getLogs. */
export interface RpcLog {
  address: string;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  blockTimestamp: Hex;
  transactionHash: string;
  transactionIndex: Hex;
  logIndex: Hex;
  removed: false;
}

/** Which logs eth_getLogs asks for: any of `addresses` (all when undefined), and at each topic position any of its values (any when null). */
export interface LogQuery {
  from: number;
  to: number;
  addresses?: ReadonlySet<string>;
  topics: (ReadonlySet<string> | null)[];
}

/** A record's transaction as the chain has it. */
export interface Built {
  hash: string;
  collection: string;
  /** The receiver a wallet-to-wallet payment's transaction pays (0 otherwise). */
  receiver: number;
  draft: Draft;
  /** The seeded discrepancy, if any. */
  kind?: DiscrepancyKind;
  /** Where the chain says otherwise than the API (for confirmed records that are mined, not reverted and not spoofed). */
  differences: Difference[];
  /** The block's hash the receipt names (another than the canonical one when reorged). */
  blockHash: Hex;
  blockNumber: number;
}

/** A record on the ground-truth list of GET /_emulator/chain/discrepancies. */
export interface Listed {
  collection: string;
  transactionHash: string;
  /** For a wallet-to-wallet payment: the index of the receiver this transaction pays. */
  receiver?: number;
  kind: DiscrepancyKind;
  /** Planted on purpose (false: the API's values cannot all be put on chain, see `differences`). */
  seeded: boolean;
  differences: Difference[];
}

export class EmulatorChain {
  readonly chainId: number;
  readonly blocks: Blocks;
  readonly feeCollector: Address;
  /** Chainlink's price feeds on this chain (feeds.ts). */
  readonly feeds: EmulatorFeeds;
  private readonly locator: Locator;
  private readonly seconds: TransactionSeconds;
  private readonly base: number;
  private readonly cache = new Map<string, Built | null>();
  /** The insertion counter the cache was filled at: any record added, moved or removed since empties it. */
  private cacheSeq = -1;

  constructor(
    readonly chain: ChainSlug,
    private readonly datasets: Datasets,
    private readonly clock: ChainClock,
    seed: number,
  ) {
    this.chainId = CHAIN_IDS[chain];
    this.base = mixSeed(seed, hashString(chain), hashString('chain'));
    this.blocks = new Blocks(this.chainId, seed, chain, datasets.options.now);
    this.feeCollector = getAddress(`0x${keccak256(stringToHex(`payrec emulator fee collector ${chain}`)).slice(26)}`);
    this.feeds = new EmulatorFeeds(chain, seed, datasets.options.now, datasets.options.hourlyFeeds === true);
    this.locator = new Locator(datasets, chain);
    this.seconds = new TransactionSeconds(datasets, chain);
  }

  /** The newest block's number. */
  head(): number {
    return this.blocks.numberAt(this.clock.now());
  }

  block(number: number): RpcBlock | null {
    return number >= 0 && number <= this.head() ? this.blocks.rpcBlock(number) : null;
  }

  blockByHash(hash: string): RpcBlock | null {
    const number = this.blocks.numberOf(hash);
    return number === undefined ? null : this.block(number);
  }

  /** The tag of each one-time payment by lower-case id, read from its store when first asked and again after records change. */
  private tags?: { seq: number; byId: Map<string, string> };

  /** The tag of the one-time payment `id` (any case); undefined when the chain has none. */
  paymentTag(id: string): string | undefined {
    if (this.tags?.seq !== this.datasets.seq) {
      const byId = new Map<string, string>();
      for (const [, body] of this.datasets.store(this.chain, 'one-time/payments').scan()) {
        const p = JSON.parse(body) as { id?: unknown; tag?: unknown };
        if (typeof p.id === 'string' && typeof p.tag === 'string') byId.set(p.id.toLowerCase(), p.tag);
      }
      this.tags = { seq: this.datasets.seq, byId };
    }
    return this.tags.byId.get(id.toLowerCase());
  }

  /** The transaction of `hash` as it is now; null when the chain has none (unknown, or a seeded missing one). */
  built(hash: string): Built | null {
    const key = hash.toLowerCase();
    if (this.cacheSeq !== this.datasets.seq) {
      this.cache.clear();
      this.cacheSeq = this.datasets.seq;
    }
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const located = this.locator.locate(key);
    const unit = located && transactionsOf(located.collection, located.record).find((u) => u.hash.toLowerCase() === key);
    const built = located && unit ? this.build(located.collection, located.record, unit.receiver) : null;
    // Only what cannot change is kept: a pending record confirms later.
    if (built === null || built.draft.status !== 'pending') {
      if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, built);
    }
    return built;
  }

  /**
   * Builds the transaction of one record (one receiver's, for a wallet-to-wallet
   * payment); `encoded` false leaves the logs' topics and data out, for the differences alone.
   */
  build(collection: string, record: Record<string, any>, receiver: number, encoded = true): Built {
    const hash = transactionsOf(collection, record)[receiver].hash;
    const roll = (label: string) => mixSeed(this.base, hashString(label), hashString(hash.toLowerCase()));
    const layout = LAYOUTS[collection];
    const log = encoded ? eventLog : (address: Address): Log => ({ address, topics: [], data: '0x' });
    const paymentTag = (id: string) => this.paymentTag(id);
    const context = (t: Transcript) => ({ chain: this.chain, world: this.datasets.world(this.chain), contracts: CONTRACTS[this.chain], feeCollector: this.feeCollector, t, roll, log, paymentTag });
    let t = new Transcript(this.chain);
    let draft = layout(record, context(t), receiver);
    let kind = draft.status === 'confirmed' ? discrepancyOf(roll('discrepancy')) : undefined;
    // A transaction without logs (a native wallet-to-wallet payment) cannot be spoofed: a field differs instead.
    if (kind === 'spoofed' && draft.logs.length === 0) kind = 'mismatch';
    if (kind === 'mismatch') {
      t = new Transcript(this.chain, { field: t.fields[roll('field') % t.fields.length], roll: roll('how') });
      draft = layout(record, context(t), receiver);
    }
    if (kind === 'spoofed') draft = { ...draft, logs: draft.logs.map((l) => (this.isOwn(l.address, draft) ? { ...l, address: lookAlike(l.address) } : l)) };
    const blockNumber = this.blocks.numberAt(draft.timestamp);
    const blockHash = kind === 'reorged' ? this.blocks.orphanHashOf(blockNumber, hash) : this.blocks.hashOf(blockNumber);
    const compared = draft.status === 'confirmed' && kind !== 'missing' && kind !== 'reverted' && kind !== 'spoofed';
    return { hash, collection, receiver, draft, kind, differences: compared ? t.differences : [], blockHash, blockNumber };
  }

  /**
   * The logs a spoofed transaction moves to look-alike contracts: those of 8pay's
   * contracts, or, where none takes part (wallet-to-wallet), the token's.
   */
  private isOwn(address: Address, draft: Draft): boolean {
    const own = Object.values(CONTRACTS[this.chain]).map((a) => a.toLowerCase());
    const some8pay = draft.logs.some((l) => own.includes(l.address.toLowerCase()));
    return some8pay ? own.includes(address.toLowerCase()) : true;
  }

  /** eth_getTransactionByHash's answer. */
  transaction(hash: string): Record<string, unknown> | null {
    const b = this.built(hash);
    if (!b || b.kind === 'missing') return null;
    const mined = b.draft.status !== 'pending' && b.blockNumber <= this.head();
    const index = this.indexOf(b);
    const seal = keccak256(stringToHex(`payrec emulator signature ${b.hash}`));
    return {
      blockHash: mined ? b.blockHash : null,
      blockNumber: mined ? quantity(b.blockNumber) : null,
      transactionIndex: mined ? quantity(index) : null,
      hash: b.hash,
      from: b.draft.from.toLowerCase(),
      to: b.draft.to.toLowerCase(),
      value: quantity(b.draft.value),
      input: b.draft.input,
      nonce: quantity(mixSeed(this.base, hashString(b.hash)) % 5000),
      gas: quantity(this.gasOf(b) + 50_000),
      gasPrice: quantity(GAS_PRICE[this.chain]),
      type: '0x0',
      chainId: quantity(this.chainId),
      v: quantity(this.chainId * 2 + 35),
      r: `0x${seal.slice(2, 66)}`,
      s: keccak256(seal),
    };
  }

  /** eth_getTransactionReceipt's answer: null while pending, or when the chain has no such transaction. */
  receipt(hash: string): Record<string, unknown> | null {
    const b = this.built(hash);
    if (!b || b.kind === 'missing' || b.draft.status === 'pending' || b.blockNumber > this.head()) return null;
    const index = this.indexOf(b);
    const reverted = this.reverted(b);
    const gasUsed = this.gasOf(b);
    return {
      transactionHash: b.hash,
      transactionIndex: quantity(index),
      blockHash: b.blockHash,
      blockNumber: quantity(b.blockNumber),
      from: b.draft.from.toLowerCase(),
      to: b.draft.to.toLowerCase(),
      gasUsed: quantity(gasUsed),
      cumulativeGasUsed: quantity(gasUsed + index * 60_000),
      effectiveGasPrice: quantity(GAS_PRICE[this.chain]),
      contractAddress: null,
      logs: reverted ? [] : this.logsOf(b),
      // No bloom filter is kept (eth_getLogs finds logs by the index of seconds): it is left empty.
      logsBloom: `0x${'0'.repeat(512)}`,
      status: reverted ? '0x0' : '0x1',
      type: '0x0',
    };
  }

  /**
   * eth_getLogs's answer: the logs of the canonical blocks `from` to `to` that match, by
   * block and position. A transaction is in a canonical block when it is mined (not
   * pending, not above the head), not missing, and not one whose receipt names a block
   * that lost a reorg (it lies in that block alone). Its candidates come from the index
   * of seconds: a seeded difference of `timestamp` moves a block up to MOVED_MAX_S earlier.
   */
  logs(q: LogQuery): RpcLog[] {
    const to = Math.min(q.to, this.head());
    const out: RpcLog[] = [];
    for (const hash of this.seconds.between(this.blocks.timestampOf(q.from), this.blocks.timestampOf(to) + MOVED_MAX_S)) {
      const b = this.built(hash);
      if (!b || b.blockNumber < q.from || b.blockNumber > to || b.draft.status === 'pending' || b.kind === 'missing' || b.kind === 'reorged' || this.reverted(b)) continue;
      for (const log of this.logsOf(b)) if (matches(log, q)) out.push(log);
    }
    return out.sort((a, b) => Number(BigInt(a.blockNumber) - BigInt(b.blockNumber)) || Number(BigInt(a.logIndex) - BigInt(b.logIndex)));
  }

  /** A receipt's logs, placed in the block its receipt names (modern nodes add the block's timestamp to each). */
  private logsOf(b: Built): RpcLog[] {
    const index = this.indexOf(b);
    const where = { blockNumber: quantity(b.blockNumber), blockHash: b.blockHash, blockTimestamp: quantity(this.blocks.timestampOf(b.blockNumber)), transactionHash: b.hash, transactionIndex: quantity(index) };
    return b.draft.logs.map((l, i) => ({ address: l.address.toLowerCase(), topics: l.topics, data: l.data, ...where, logIndex: quantity(index * 32 + i), removed: false }));
  }

  private reverted(b: Built): boolean {
    return b.draft.status === 'failed' || b.kind === 'reverted';
  }

  /** Every record of the chain (or of one collection) whose transaction differs from the API, in store order. */
  discrepancies(collections: readonly string[]): Listed[] {
    const out: Listed[] = [];
    for (const collection of collections) {
      for (const body of this.datasets.snapshot(this.chain, collection).bodies) {
        const record = JSON.parse(body) as Record<string, any>;
        for (const unit of transactionsOf(collection, record)) {
          const b = this.build(collection, record, unit.receiver, false);
          if (b.kind === undefined && b.differences.length === 0) continue;
          out.push({
            collection,
            transactionHash: b.hash,
            ...(collection === 'wallet-to-wallet/payments' ? { receiver: unit.receiver } : {}),
            kind: b.kind ?? 'mismatch',
            seeded: b.kind !== undefined,
            differences: b.differences,
          });
        }
      }
    }
    return out;
  }

  /** Position in its block, from the hash: transactions of one second rarely meet. */
  private indexOf(b: Built): number {
    return mixSeed(this.base, hashString(`index ${b.hash}`)) % 100;
  }

  private gasOf(b: Built): number {
    return 21_000 + 25_000 * b.draft.logs.length;
  }
}

function matches(log: RpcLog, q: LogQuery): boolean {
  if (q.addresses && !q.addresses.has(log.address)) return false;
  return q.topics.every((wanted, i) => wanted === null || (i < log.topics.length && wanted.has(log.topics[i].toLowerCase())));
}
