import { toEventSelector } from 'viem';
import { NodeAnswerError, type Block, type Log, type SpanLog } from './answers.js';
import { EVENTS } from './model.js';
import type { ChainClient, LogFilter } from './rpc-client.js';

// The canonical block at each receipt's height, read for two things (ONCHAIN.md §9): its
// hash (rule 3: reorged when the receipt names another) and its timestamp (the record's).
// eth_getBlockByNumber costs a call per height, and records a few minutes apart rarely
// share a block. But a log eth_getLogs returns lies in the node's canonical block at its
// height: one eth_getLogs over a span of heights attests the hash of each height where a
// log lies and, on a modern node (`blockTimestamp` in logs, execution-apis PR 639; geth
// 1.16, besu), its timestamp. The filter asks for the logs the receipts themselves hold,
// one kind per receipt (a log is all a height needs), so answers stay small on a busy
// chain and cheap to check: the first event of an 8pay contract in each receipt (by
// emitter and topic0), or at a height with none (a wallet-to-wallet payment) the
// tokens' Transfers from the same senders. A height no log attests (a reverted transaction, a native transfer, a
// receipt of a block that lost a reorg) or whose timestamp no log says is read with
// eth_getBlockByNumber, as before: never more than a call per height, and about one per
// span when records are many.

/** Most blocks one eth_getLogs spans. Providers refuse wider ones at 2,000 to 10,000: a refusal halves it for the rest of the run. */
export const SPAN_BLOCKS = 10_000n;
/** Most addresses, topics and senders one span asks by, counted per height: the filter stays within node limits (geth's --rpc.logquerylimit is 1,000) and its answer near a log per height. */
export const SPAN_TERMS = 1_000;

const TRANSFER = toEventSelector(EVENTS.erc20Transfer);

/** The logs that can attest a height: these events of 8pay's contracts (`topics`: their topic0s; none: any), or the tokens' Transfers from these senders. */
export type Asked = { kind: 'contracts'; addresses: string[]; topics: string[] } | { kind: 'transfers'; addresses: string[]; senders: string[] };

interface Span {
  kind: Asked['kind'];
  items: { height: bigint; asked: Asked }[];
}

/** What attests a height, from the logs of one receipt there (`contracts`: 8pay's addresses on the chain, lower case); undefined when none can. */
export function askedFor(logs: readonly Log[], contracts: ReadonlySet<string>): Asked | undefined {
  const live = logs.filter((l) => l.removed !== true && l.topics.length > 0);
  const own = live.find((l) => contracts.has(l.address));
  if (own) return { kind: 'contracts', addresses: [own.address], topics: [own.topics[0]] };
  const transfers = live.filter((l) => l.topics[0] === TRANSFER && l.topics.length === 3);
  if (transfers.length > 0) return { kind: 'transfers', addresses: [...new Set(transfers.map((l) => l.address))], senders: [...new Set(transfers.map((l) => l.topics[1]))] };
  return undefined;
}

const sizeOf = (a: Asked) => a.addresses.length + (a.kind === 'transfers' ? a.senders.length : a.topics.length);

/** Two receipts at one height: either's logs attest it. */
export function either(a: Asked | undefined, b: Asked | undefined): Asked | undefined {
  if (!a || !b) return a ?? b;
  if (a.kind === 'contracts' || b.kind === 'contracts') return a.kind === 'contracts' ? a : b;
  return { kind: 'transfers', addresses: [...new Set([...a.addresses, ...b.addresses])], senders: [...new Set([...a.senders, ...b.senders])] };
}

/** Heights grouped by kind into spans of at most `blocks` blocks and SPAN_TERMS terms, each height once. */
export function spansOf(asked: ReadonlyMap<bigint, Asked>, blocks: bigint): Span[] {
  const spans: Span[] = [];
  for (const kind of ['contracts', 'transfers'] as const) {
    const items = [...asked].filter(([, a]) => a.kind === kind).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    let span: Span | undefined;
    let size = 0;
    for (const [height, a] of items) {
      if (!span || height - span.items[0].height >= blocks || size + sizeOf(a) > SPAN_TERMS) {
        span = { kind, items: [] };
        spans.push(span);
        size = 0;
      }
      span.items.push({ height, asked: a });
      size += sizeOf(a);
    }
  }
  return spans;
}

export function filterOf(span: Span): LogFilter {
  const addresses = new Set(span.items.flatMap((i) => i.asked.addresses));
  const filter: LogFilter = { fromBlock: span.items[0].height, toBlock: span.items.at(-1)!.height, address: [...addresses] };
  const all = (pick: (a: Asked) => string[]) => [...new Set(span.items.flatMap((i) => pick(i.asked)))];
  if (span.kind === 'contracts') {
    // An item that names no event takes any of its contracts'.
    const anyEvent = span.items.some((i) => i.asked.kind === 'contracts' && i.asked.topics.length === 0);
    return anyEvent ? filter : { ...filter, topics: [all((a) => (a.kind === 'contracts' ? a.topics : []))] };
  }
  return { ...filter, topics: [TRANSFER, all((a) => (a.kind === 'transfers' ? a.senders : []))] };
}

export class CanonicalBlocks {
  /** The widest span asked: SPAN_BLOCKS until the node refuses one. */
  private spanBlocks = SPAN_BLOCKS;
  /** False once the node says it serves no eth_getLogs. */
  private getLogs = true;

  constructor(private readonly client: ChainClient) {}

  /**
   * The canonical block (hash and timestamp; null when the node has none) at each
   * height of `asked`; `known` are logs read already (the receipts'), whose blockTimestamp
   * says the timestamp of their block when that block is the canonical one.
   */
  async read(asked: ReadonlyMap<bigint, Asked | undefined>, known: readonly Log[]): Promise<Map<bigint, Block | null>> {
    const times = new Timestamps();
    for (const l of known) if (l.removed !== true && l.blockHash) times.add(l.blockHash, l.blockTimestamp);
    const attested = await this.attest(new Map([...asked].filter((e): e is [bigint, Asked] => e[1] !== undefined)), times);
    const out = new Map<bigint, Block | null>();
    const rest: bigint[] = [];
    for (const height of asked.keys()) {
      const hash = attested.get(height);
      const timestamp = hash === undefined ? undefined : times.of(hash);
      if (hash !== undefined && timestamp !== undefined) out.set(height, { number: height, hash, timestamp });
      else rest.push(height);
    }
    // A block read whole at a height its logs attest must be theirs; a log that gave its block another timestamp is a node at odds with itself too.
    for (const [height, block] of await this.client.blocks(rest)) {
      const logs = attested.get(height);
      if (logs !== undefined && block?.hash !== logs) throw new NodeAnswerError(`two blocks at height ${height} in one run (${logs} by its logs and ${block?.hash ?? 'none'} read whole)`);
      if (block) times.add(block.hash, block.timestamp);
      out.set(height, block);
    }
    return out;
  }

  /** The canonical hash of each height a log of its span lies at; spans the node refuses are asked again in halves, down to one height. */
  private async attest(asked: ReadonlyMap<bigint, Asked>, times: Timestamps): Promise<Map<bigint, SpanLog['blockHash']>> {
    const attested = new Map<bigint, SpanLog['blockHash']>();
    let spans = this.getLogs ? spansOf(asked, this.spanBlocks) : [];
    while (spans.length > 0 && this.getLogs) {
      const answers = await this.client.logs(spans.map(filterOf));
      const next: Span[] = [];
      spans.forEach((span, i) => {
        const answer = answers[i];
        if (answer === 'unsupported') this.getLogs = false;
        else if (answer === 'refused') {
          // One height refused is read as a block; a wider span is asked again in halves, and no span as wide again.
          if (span.items.length === 1) return;
          const width = span.items.at(-1)!.height - span.items[0].height + 1n;
          const halved = width > 1n ? width / 2n : 1n;
          if (halved < this.spanBlocks) this.spanBlocks = halved;
          const half = Math.ceil(span.items.length / 2);
          next.push({ kind: span.kind, items: span.items.slice(0, half) }, { kind: span.kind, items: span.items.slice(half) });
        } else
          for (const log of answer) {
            // removed: a log of a block that left the canonical chain (in filters' changes; never evidence of it).
            if (log.removed === true) continue;
            const seen = attested.get(log.blockNumber);
            if (seen !== undefined && seen !== log.blockHash) throw new NodeAnswerError(`logs of two blocks at height ${log.blockNumber} (${seen} and ${log.blockHash})`);
            attested.set(log.blockNumber, log.blockHash);
            times.add(log.blockHash, log.blockTimestamp);
          }
      });
      spans = next;
    }
    return attested;
  }
}

/** Each block's timestamp by hash, as logs and blocks say it: two that differ for one block are a node fault. */
class Timestamps {
  private readonly byHash = new Map<string, bigint>();

  add(hash: string, timestamp: bigint | null | undefined): void {
    if (timestamp === null || timestamp === undefined) return;
    const seen = this.byHash.get(hash);
    if (seen !== undefined && seen !== timestamp) throw new NodeAnswerError(`two timestamps for block ${hash} (${seen} and ${timestamp})`);
    this.byHash.set(hash, timestamp);
  }

  of(hash: string): bigint | undefined {
    return this.byHash.get(hash);
  }
}
