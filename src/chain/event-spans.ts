import { NodeAnswerError, type EventLog } from './answers.js';
import { SPAN_BLOCKS } from './canonical-blocks.js';
import type { ChainClient, LogFilter } from './rpc-client.js';

// Every log of some filters over spans of blocks, whole, grouped by transaction: the
// evidence logs-first judges records by (logs-first.ts). A span is asked once per filter,
// at most SPAN_BLOCKS wide; one the node refuses (too wide, too many logs: -32005 or
// any JSON-RPC error of the call) is asked again in halves, down to one block, and no
// span as wide again this run. A block still refused leaves that filter's logs out for
// the whole block: its transactions then lack all their 8pay events or all their token
// Transfers, which decode.ts finds absent (a difference), so their receipts judge them.

/** What one eth_getLogs asks, besides its blocks. */
export type Wanted = Omit<LogFilter, 'fromBlock' | 'toBlock'>;

/** Blocks `from` to `to`, inclusive. */
export interface Range {
  from: bigint;
  to: bigint;
}

export class EventSpans {
  private spanBlocks = SPAN_BLOCKS;
  /** False once the node says it serves no eth_getLogs. */
  private getLogs = true;

  constructor(private readonly client: ChainClient) {}

  get served(): boolean {
    return this.getLogs;
  }

  /** The logs `wanted` finds over `ranges` (a log found twice, as where two ranges meet, counts once), by transaction (lower-case hash); undefined when the node serves no eth_getLogs. */
  async read(ranges: readonly Range[], wanted: readonly Wanted[]): Promise<Map<string, EventLog[]> | undefined> {
    let asks = ranges.flatMap((r) => widths(r, this.spanBlocks)).flatMap((range) => wanted.map((w) => ({ range, wanted: w })));
    const logs: EventLog[] = [];
    while (asks.length > 0 && this.getLogs) {
      const answers = await this.client.eventLogs(asks.map((a) => ({ fromBlock: a.range.from, toBlock: a.range.to, ...a.wanted })));
      const next: typeof asks = [];
      asks.forEach((a, i) => {
        const answer = answers[i];
        const { from, to } = a.range;
        if (answer === 'unsupported') this.getLogs = false;
        else if (answer !== 'refused') logs.push(...answer);
        else if (from < to) {
          const half = (to - from + 1n) / 2n;
          if (half < this.spanBlocks) this.spanBlocks = half;
          next.push({ range: { from, to: from + half - 1n }, wanted: a.wanted }, { range: { from: from + half, to }, wanted: a.wanted });
        }
      });
      asks = next;
    }
    return this.getLogs ? byTransaction(logs) : undefined;
  }
}

/** A range cut into spans of at most `blocks` blocks. */
function widths(r: Range, blocks: bigint): Range[] {
  const out: Range[] = [];
  for (let from = r.from; from <= r.to; from += blocks) out.push({ from, to: from + blocks - 1n < r.to ? from + blocks - 1n : r.to });
  return out;
}

/**
 * The live logs by transaction, each once (two filters may find one log), sorted by
 * position. A node at odds with itself (one log said two ways, two blocks at one
 * height, two timestamps for one block) is exit 6.
 */
function byTransaction(logs: readonly EventLog[]): Map<string, EventLog[]> {
  const seen = new Map<string, EventLog>();
  const blocks = new Map<bigint, EventLog>();
  const out = new Map<string, EventLog[]>();
  for (const log of logs) {
    // removed: a log of a block that left the canonical chain, never evidence of it.
    if (log.removed === true) continue;
    const key = `${log.transactionHash} ${log.logIndex}`;
    const twin = seen.get(key);
    if (twin) {
      if (twin.address !== log.address || twin.data !== log.data || twin.blockHash !== log.blockHash || twin.topics.join() !== log.topics.join()) throw new NodeAnswerError(`two logs at position ${log.logIndex} of transaction ${log.transactionHash}`);
      continue;
    }
    seen.set(key, log);
    const block = blocks.get(log.blockNumber);
    if (block && block.blockHash !== log.blockHash) throw new NodeAnswerError(`logs of two blocks at height ${log.blockNumber} (${block.blockHash} and ${log.blockHash})`);
    if (block && (block.blockTimestamp ?? undefined) !== undefined && (log.blockTimestamp ?? undefined) !== undefined && block.blockTimestamp !== log.blockTimestamp) {
      throw new NodeAnswerError(`two timestamps for block ${log.blockHash} (${block.blockTimestamp} and ${log.blockTimestamp})`);
    }
    if (!block || (block.blockTimestamp ?? undefined) === undefined) blocks.set(log.blockNumber, log);
    const own = out.get(log.transactionHash);
    if (own) own.push(log);
    else out.set(log.transactionHash, [log]);
  }
  for (const own of out.values()) own.sort((a, b) => (a.logIndex < b.logIndex ? -1 : a.logIndex > b.logIndex ? 1 : 0));
  return out;
}
