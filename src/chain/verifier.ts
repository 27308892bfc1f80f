import { decodeFunctionResult, encodeFunctionData, type Address, type Hex } from 'viem';
import { NetworkError, UsageError } from '../core/runtime/errors.js';
import { NodeAnswerError, type Block, type Log, type Receipt, type Transaction } from './answers.js';
import { askedFor, CanonicalBlocks, either, SPAN_BLOCKS, type Asked } from './canonical-blocks.js';
import { EventSpans, type Range } from './event-spans.js';
import { GROUP_MIN, GUESSED_BLOCKS_PER_SECOND, groups, kept, LOGS_FIRST, receiptOf, secondOf, wantedFor } from './logs-first.js';
import type { ChainClient } from './rpc-client.js';
import { decode, valueAt, type ChainContext, type Evidence, type Subject } from './decode.js';
import { CHAIN_IDS, CONTRACTS, FUNCTIONS, type ChainSlug } from './model.js';
import { bySymbolCall, listedSymbol, symbolCandidates, type ResolvedToken } from './tokens.js';
import { judge, worst, type Judgement } from './verdict.js';

// Verifies records in batches: reads what the chain holds for them (their 8pay events
// from eth_getLogs where logs can answer (logs-first.ts), else each receipt once, each
// block once per run, learned from eth_getLogs spans where it can be (see
// canonical-blocks.ts), each token's decimals once, the contracts' constants once)
// through the chain client, then decodes and judges each record with the pure
// rules. It knows neither the output formats nor the mirror: lists and `payrec
// verify` feed it records and take its judgements.

/** Blocks remembered between batches: a block holds many records, and is read once. */
const BLOCKS_KEPT = 100_000;

export class Verifier {
  private readonly blocks = new Map<bigint, Block | null>();
  private readonly canonical: CanonicalBlocks;
  private readonly spans: EventSpans;
  /** How records' seconds map to heights, learnt from the receipts of each group's edges: only groups depend on it. */
  private blocksPerSecond = GUESSED_BLOCKS_PER_SECOND;
  /** 8pay's contracts on the chain (lower case): their logs attest a block. */
  private readonly contracts: ReadonlySet<string>;
  private readonly tokens = new Map<string, ResolvedToken | null>();
  private symbols?: Map<Address, string>;
  private feeCollector?: Address;
  private paymentTypes: ChainContext['paymentTypes'] = {};

  private constructor(
    readonly client: ChainClient,
    readonly chain: ChainSlug,
    readonly confirmations: number,
  ) {
    this.canonical = new CanonicalBlocks(client);
    this.spans = new EventSpans(client);
    this.contracts = new Set(Object.values(CONTRACTS[chain]).map((a) => a.toLowerCase()));
  }

  /** Checks that the node serves `chain` before anything is verified: another chain's node is exit 2. */
  static async open(client: ChainClient, chain: string, confirmations: number): Promise<Verifier> {
    if (!Object.hasOwn(CHAIN_IDS, chain)) {
      throw new UsageError(`payrec knows 8pay's contracts on ${Object.keys(CHAIN_IDS).join(', ')}, not on "${chain}": its records cannot be verified`);
    }
    const slug = chain as ChainSlug;
    const id = await client.chainId();
    if (id !== BigInt(CHAIN_IDS[slug])) {
      const other = Object.entries(CHAIN_IDS).find(([, n]) => BigInt(n) === id)?.[0];
      throw new UsageError(
        `the chain's node (${client.shownUrl}) serves chain id ${id}${other ? ` (${other})` : ''}, not ${slug} (${CHAIN_IDS[slug]}): nothing was verified`,
        `give the RPC URL of a ${slug} node (--rpc, PAYREC_RPC_URL or payrec config set rpc), or --chain ${other ?? 'CHAIN'}`,
      );
    }
    return new Verifier(client, slug, confirmations);
  }

  /** Judges each subject (the same order). */
  async verify(subjects: readonly Subject[]): Promise<Judgement[]> {
    const head = await this.client.blockNumber();
    const asked = subjects.filter((s) => statusOf(s) !== 'pending' && typeof hashOf(s) === 'string');
    await this.resolveTokens(subjects);
    await this.readConstants(subjects);
    const ctx = this.context();
    const judging = { chain: this.chain, head, confirmations: this.confirmations, tokens: this.tokens };
    // A native payment's transaction (its value) is asked with the first receipts, in the
    // same batches: the API's token says which records need it before anything is read.
    const native = new Set(asked.filter((s) => needsTransaction(s) && this.tokens.get(String(s.record.token))?.native).map(hashKey));
    const read: Read = { receipts: new Map(), transactions: new Map() };
    const byLogs = await this.judgeByLogs(asked, native, read, (s, e) => judge(s, decode(s, e, ctx), judging));
    // The others by their receipts, as ever.
    await this.readReceipts(asked.filter((s) => !byLogs.has(s)).map(hashKey), [...native], read);
    // A record without a receipt says why: is the transaction at the node at all (pending in its mempool)?
    await this.readReceipts([], [...read.receipts].filter(([h, r]) => r === null && !read.transactions.has(h)).map(([h]) => h), read);
    const { receipts, transactions } = read;
    // Each height not read yet, and the logs that can attest it, from its receipts (canonical-blocks.ts).
    const heights = new Map<bigint, Asked | undefined>();
    const known: Log[] = [];
    for (const r of receipts.values()) {
      if (!r || this.blocks.has(r.blockNumber)) continue;
      heights.set(r.blockNumber, either(heights.get(r.blockNumber), askedFor(r.logs, this.contracts)));
      known.push(...r.logs);
    }
    await this.readBlocks(heights, known);
    return subjects.map((s) => {
      const byLog = byLogs.get(s);
      if (byLog) return byLog;
      const hash = hashOf(s);
      const receipt = typeof hash === 'string' ? (receipts.get(hash.toLowerCase()) ?? null) : null;
      const evidence: Evidence = { receipt, block: receipt ? this.blocks.get(receipt.blockNumber) : undefined, transaction: typeof hash === 'string' ? transactions.get(hash.toLowerCase()) : undefined };
      return judge(s, decode(s, evidence, ctx), judging);
    });
  }

  /** Receipts of `hashes` and transactions of `withTransaction` not read yet, into `read`. */
  private async readReceipts(hashes: readonly string[], withTransaction: readonly string[], read: Read): Promise<void> {
    const more = await this.client.receiptsAndTransactions(
      [...new Set(hashes)].filter((h) => !read.receipts.has(h)),
      withTransaction.filter((h) => !read.transactions.has(h)),
    );
    for (const [h, r] of more.receipts) read.receipts.set(h, r);
    for (const [h, t] of more.transactions) read.transactions.set(h, t);
  }

  /**
   * The judgements logs-first keeps (logs-first.ts), by subject. Each group of records
   * close in time is read by the receipts of its first and last records (their heights;
   * they are judged by them), then eth_getLogs over the blocks between. A group whose
   * spans would cost as many calls as its records' receipts is left to the receipts.
   */
  private async judgeByLogs(asked: readonly Subject[], native: ReadonlySet<string>, read: Read, judged: (s: Subject, e: Evidence) => Judgement): Promise<Map<Subject, Judgement>> {
    const out = new Map<Subject, Judgement>();
    const candidates = this.spans.served ? groups(asked.filter((s) => LOGS_FIRST.has(s.collection)), this.blocksPerSecond, SPAN_BLOCKS) : [];
    // The blocks between each group's edges, when its spans cost fewer calls than its middle records' receipts.
    const ranges: Range[] = [];
    const middle: Subject[] = [];
    const wanted = (subjects: readonly Subject[]) => wantedFor([...this.contracts], subjects);
    for (const g of await this.withEdges(candidates, native, read)) {
      const [first, last] = [read.receipts.get(hashKey(g[0]))!, read.receipts.get(hashKey(g.at(-1)!))!];
      const [from, to] = first.blockNumber <= last.blockNumber ? [first.blockNumber, last.blockNumber] : [last.blockNumber, first.blockNumber];
      const seconds = secondOf(g.at(-1)!)! - secondOf(g[0])!;
      if (seconds > 0 && to > from) this.blocksPerSecond = Number(to - from) / seconds;
      const spans = Number((to - from) / SPAN_BLOCKS + 1n) * wanted(g).length;
      if (spans >= g.length - 2) continue;
      ranges.push({ from, to });
      middle.push(...g.slice(1, -1));
    }
    if (middle.length === 0) return out;
    const events = await this.spans.read(ranges, wanted(middle));
    if (!events) return out;
    // Each transaction found, with its block: known, or said by its logs' timestamp, or read.
    const found = new Map<Subject, Receipt>();
    for (const s of middle) {
      const logs = events.get(hashKey(s));
      if (!logs) continue;
      const receipt = receiptOf(hashKey(s), logs);
      // Logs eth_getLogs finds lie in the canonical block at their height: one known under another hash is a node at odds with itself.
      this.noTwoHashes(receipt.blockNumber, receipt.blockHash);
      const timestamp = logs.find((l) => l.blockTimestamp !== undefined && l.blockTimestamp !== null)?.blockTimestamp ?? undefined;
      if (timestamp !== undefined && !this.blocks.has(receipt.blockNumber)) this.keepBlocks([{ number: receipt.blockNumber, hash: receipt.blockHash, timestamp }]);
      found.set(s, receipt);
    }
    const unstamped = [...new Set([...found.values()].map((r) => r.blockNumber).filter((n) => !this.blocks.has(n)))];
    const said = new Map([...found.values()].map((r) => [r.blockNumber, r.blockHash]));
    for (const b of (await this.client.blocks(unstamped)).values()) {
      if (b && said.get(b.number) !== b.hash) throw new NodeAnswerError(`two blocks at height ${b.number} in one run (${said.get(b.number)} by its logs and ${b.hash} read whole)`);
      if (b) this.keepBlocks([b]);
    }
    for (const [s, receipt] of found) {
      // A judgement logs cannot give (logs-first.ts's kept) is left to the receipt.
      const j = judged(s, { receipt, block: this.blocks.get(receipt.blockNumber) ?? null, transaction: read.transactions.get(hashKey(s)) });
      if (kept(j)) out.set(s, j);
    }
    return out;
  }

  /**
   * The groups whose first and last records' receipts the node has, those receipts read
   * into `read` (with the native payments' transactions): an edge the node has no receipt
   * of (missing) gives way to its neighbour.
   */
  private async withEdges(groups: Subject[][], native: ReadonlySet<string>, read: Read): Promise<Subject[][]> {
    let transactions = [...native];
    for (;;) {
      const edges = groups.flatMap((g) => [g[0], g.at(-1)!]).map(hashKey).filter((h) => !read.receipts.has(h));
      if (edges.length === 0 && transactions.length === 0) return groups;
      await this.readReceipts(edges, transactions, read);
      transactions = [];
      groups = groups
        .map((g) => {
          let [lo, hi] = [0, g.length - 1];
          while (lo < hi && read.receipts.get(hashKey(g[lo])) === null) lo++;
          while (hi > lo && read.receipts.get(hashKey(g[hi])) === null) hi--;
          return g.slice(lo, hi + 1);
        })
        .filter((g) => g.length >= GROUP_MIN);
    }
  }

  /**
   * The height at or below which the node holds blocks final: its `finalized` block, else
   * its `safe` one; undefined when it names neither (an older node). A record there
   * cannot be reorged: a second `payrec verify` does not read its block again.
   */
  async finalHeight(): Promise<bigint | undefined> {
    for (const tag of ['finalized', 'safe'] as const) {
      try {
        const block = await this.client.block(tag);
        if (block) return block.number;
      } catch (err) {
        // A node that does not know the tag answers a JSON-RPC error (-32602, -39001): ask the next.
        if (!(err instanceof NetworkError && /JSON-RPC error/.test(err.message))) throw err;
      }
    }
    return undefined;
  }

  /** Canonical hashes of blocks, for records judged before (a second `payrec verify`): reorged when they changed. */
  async canonicalHashes(heights: readonly bigint[]): Promise<Map<bigint, string | null>> {
    // No receipt is read again: any log of 8pay's contracts at a height attests its block (no topics: any event).
    const asked: Asked = { kind: 'contracts', addresses: [...this.contracts], topics: [] };
    await this.readBlocks(new Map(heights.filter((h) => !this.blocks.has(h)).map((h) => [h, asked])), []);
    return new Map(heights.map((h) => [h, this.blocks.get(h)?.hash ?? null]));
  }

  private async readBlocks(asked: ReadonlyMap<bigint, Asked | undefined>, known: readonly Log[]): Promise<void> {
    if (asked.size === 0) return;
    const read = await this.canonical.read(asked, known);
    if (this.blocks.size + read.size > BLOCKS_KEPT) this.blocks.clear();
    for (const [n, b] of read) {
      if (b) this.noTwoHashes(n, b.hash);
      this.blocks.set(n, b);
    }
  }

  private keepBlocks(blocks: readonly Block[]): void {
    if (this.blocks.size + blocks.length > BLOCKS_KEPT) this.blocks.clear();
    for (const b of blocks) {
      this.noTwoHashes(b.number, b.hash);
      this.blocks.set(b.number, b);
    }
  }

  /**
   * The node's canonical block at a height, said twice in one run (by a block, or by logs
   * eth_getLogs found there), must be one block: two hashes are a node at odds with
   * itself (exit 6), never a verdict kept for good.
   */
  private noTwoHashes(height: bigint, hash: string): void {
    const seen = this.blocks.get(height);
    if (seen && seen.hash !== hash) throw new NodeAnswerError(`two blocks at height ${height} in one run (${seen.hash} and ${hash})`);
  }

  private context(): ChainContext {
    return {
      chain: this.chain,
      feeCollector: this.feeCollector,
      paymentTypes: this.paymentTypes,
      tokenAddress: (symbol) => (typeof symbol === 'string' ? (this.tokens.get(symbol)?.address ?? undefined) : undefined),
    };
  }

  /** Every API symbol of these records, by 8pay's list (or symbol() of the list's contracts), with decimals() read once each. */
  private async resolveTokens(subjects: readonly Subject[]): Promise<void> {
    const symbols = new Set<string>();
    for (const s of subjects) for (const path of tokenPaths(s)) {
      const v = valueAt(s.record, path);
      if (typeof v === 'string' && !this.tokens.has(v)) symbols.add(v);
    }
    if (symbols.size === 0) return;
    const found = new Map<string, ResolvedToken | null>();
    for (const symbol of symbols) found.set(symbol, listedSymbol(this.chain, symbol) ?? null);
    if ([...found.values()].includes(null)) {
      this.symbols ??= await this.symbolsOfList();
      for (const [symbol, t] of found) if (t === null) found.set(symbol, bySymbolCall(this.chain, symbol, this.symbols));
    }
    const contracts = [...new Set([...found.values()].filter((t): t is ResolvedToken => t !== null && !t.native).map((t) => t.address))];
    const decimals = await this.client.each(contracts, (a) => this.readFunction(a, 'decimals'));
    const byAddress = new Map(contracts.map((a, i) => [a, decimals[i]]));
    for (const [symbol, t] of found) {
      const chainDecimals = t && !t.native ? byAddress.get(t.address) : undefined;
      this.tokens.set(symbol, t && { ...t, chainDecimals: typeof chainDecimals === 'number' ? chainDecimals : t.native ? undefined : null });
    }
  }

  private async symbolsOfList(): Promise<Map<Address, string>> {
    const candidates = symbolCandidates(this.chain);
    const answers = await this.client.each(candidates, (a) => this.readFunction(a, 'symbol'));
    return new Map(candidates.flatMap((a, i) => (typeof answers[i] === 'string' ? [[a, answers[i]] as [Address, string]] : [])));
  }

  /** A view function's answer; undefined when the contract does not answer it (no code, a revert). */
  private async readFunction(to: Address, functionName: 'decimals' | 'symbol' | 'feeCollector' | 'PAYMENT_TYPE'): Promise<unknown> {
    const data = encodeFunctionData({ abi: FUNCTIONS, functionName });
    let answer: Hex;
    try {
      answer = await this.client.ethCall(to, data);
    } catch (err) {
      // A contract that reverts answers a JSON-RPC error of its own (3 or -32000): no answer, not a node failure.
      if (err instanceof Error && /JSON-RPC error (3|-32000)\b/.test(err.message)) return undefined;
      throw err;
    }
    try {
      return decodeFunctionResult({ abi: FUNCTIONS, functionName, data: answer });
    } catch {
      return undefined;
    }
  }

  /** Transfers.feeCollector() once; PAYMENT_TYPE() of the product contracts whose records are here, once each. */
  private async readConstants(subjects: readonly Subject[]): Promise<void> {
    const c = CONTRACTS[this.chain];
    this.feeCollector ??= lowerAddress(await this.readFunction(c.transfers, 'feeCollector'));
    const has = (collection: string) => subjects.some((s) => s.collection === collection);
    if (has('scheduled-payments/transfers') && !this.paymentTypes.scheduledPayments) {
      this.paymentTypes.scheduledPayments = lowerHex(await this.readFunction(c.scheduledPayments, 'PAYMENT_TYPE'));
    }
    if (has('dollar-cost-average/executions') && !this.paymentTypes.dollarCostAverage) {
      this.paymentTypes.dollarCostAverage = lowerHex(await this.readFunction(c.dollarCostAverage, 'PAYMENT_TYPE'));
    }
  }
}

const lowerAddress = (v: unknown) => (typeof v === 'string' ? (v.toLowerCase() as Address) : undefined);
const lowerHex = (v: unknown) => (typeof v === 'string' ? (v.toLowerCase() as Hex) : undefined);

function statusOf(s: Subject): unknown {
  return valueAt(s.record, s.receiver === undefined ? 'transactionStatus' : `receivers[${s.receiver}].transactionStatus`);
}

/** The lower-case hash of a subject asked of the chain (one whose hash is a string). */
const hashKey = (s: Subject) => (hashOf(s) as string).toLowerCase();

/** What the node answered so far, by lower-case hash. */
interface Read {
  receipts: Map<string, Receipt | null>;
  transactions: Map<string, Transaction | null>;
}

function hashOf(s: Subject): unknown {
  return valueAt(s.record, s.receiver === undefined ? 'transactionHash' : `receivers[${s.receiver}].transactionHash`);
}

/** The native coin leaves no log: its value is read from the transaction (one-time and wallet-to-wallet). */
function needsTransaction(s: Subject): boolean {
  return s.collection.startsWith('one-time/') || s.collection.startsWith('wallet-to-wallet/');
}

/** The API paths that hold token symbols. */
function tokenPaths(s: Subject): string[] {
  if (s.collection !== 'dollar-cost-average/executions') return ['token'];
  const swaps = Array.isArray(s.record.swaps) ? s.record.swaps.length : 0;
  return ['inputToken', ...Array.from({ length: swaps }, (_, i) => `swaps[${i}].outputToken`)];
}

/** The subjects of a record: itself, or for a wallet-to-wallet payment each receiver (its own transaction). */
export function subjectsOf(collection: string, record: Record<string, unknown>, planId?: string): Subject[] {
  if (collection === 'wallet-to-wallet/payments') {
    const receivers = Array.isArray(record.receivers) ? record.receivers : [];
    return receivers.map((_, i) => ({ collection, record, receiver: i, planId }));
  }
  return [{ collection, record, planId }];
}

/** One record's judgement from its subjects': the worst verdict, the fewest confirmations, the latest block, every difference. */
export function combine(parts: readonly Judgement[]): Judgement {
  if (parts.length === 1) return parts[0];
  if (parts.length === 0) return { verdict: 'missing', confirmations: null, blockNumber: null, blockHash: null, differences: [{ field: 'receivers', api: 0, chain: null }] };
  const numbers = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null);
  const confirmations = numbers(parts.map((p) => p.confirmations));
  const blocks = numbers(parts.map((p) => p.blockNumber));
  return {
    verdict: worst(parts.map((p) => p.verdict)),
    confirmations: confirmations.length ? Math.min(...confirmations) : null,
    blockNumber: blocks.length ? Math.max(...blocks) : null,
    blockHash: null,
    differences: parts.flatMap((p) => p.differences),
  };
}
