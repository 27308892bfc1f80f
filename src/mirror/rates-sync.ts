import type { Address } from 'viem';
import { decimalOf } from '../chain/feed-legs.js';
import type { FeedReader, FeedRound, OpenFeed } from '../chain/feeds.js';
import { InterruptedError } from '../core/runtime/errors.js';
import type { MirrorStore } from './engine.js';
import { coverageKey, coverageText, parseCoverage, type RoundCoverage, type StoredRate } from './rates.js';

// `payrec rates sync` (DESIGN.md "Values in one currency"): the Chainlink rounds of the
// feeds of the mirror's tokens over the mirror's time span, into `rates`. Incremental:
// the span a feed's rounds are held whole for (its coverage, in the meta) is never read
// again; only what lies before or after it is. Each feed's rounds and its new coverage
// are one transaction: Ctrl-C or a failing node leaves every feed as whole as it was.
// A feed that does not answer as the pair's feed (a lying node, a renamed proxy) is
// refused and nothing of it is written.

export interface RatesSyncOptions {
  chain: string;
  /** Also the feeds of these currencies' /USD rates (EUR / USD for --currency EUR). */
  currencies: readonly string[];
  /** Bounds over the mirror's span (Unix seconds). */
  from?: number;
  to?: number;
  /** The chain head's time: no span reaches past it (a round written later would be missing from what the mirror says it holds whole). */
  head: number;
  signal: AbortSignal;
  /** Rounds read of those to read, as the reading goes. */
  progress?: (done: number, total: number) => void;
}

/** What became of one token's feed. */
export interface FeedSync {
  token: string;
  feed: string | null;
  pair: string | null;
  /** The span asked (Unix seconds). */
  from: number;
  to: number;
  /** Rounds read from the chain, and of them stored anew. */
  read: number;
  stored: number;
  status: 'synced' | 'up to date' | 'no feed' | 'refused';
  problem: string;
}

/** A feed to read: a token's, over a span, with what the mirror holds of it. */
interface Task {
  token: string;
  address: Address;
  pair: string;
  span: RoundCoverage;
  coverage?: RoundCoverage;
}

export async function syncRates(store: MirrorStore, reader: FeedReader, o: RatesSyncOptions): Promise<FeedSync[]> {
  const spans = await store.tokenSpans(o.chain);
  const bounded = spans.map((s) => ({ token: s.token, from: o.from ?? s.first, to: Math.min(o.to ?? s.last, o.head) })).filter((s) => s.from <= s.to);
  // A currency's feed over the whole span of the records.
  if (bounded.length > 0) {
    const whole = { from: Math.min(...bounded.map((s) => s.from)), to: Math.max(...bounded.map((s) => s.to)) };
    for (const c of o.currencies) if (c !== 'USD') bounded.push({ token: c, ...whole });
  }
  const report: FeedSync[] = [];
  const tasks: Task[] = [];
  for (const s of bounded) {
    const feed = reader.feedOf(s.token);
    if (!feed) {
      report.push({ token: s.token, feed: null, pair: null, from: s.from, to: s.to, read: 0, stored: 0, status: 'no feed', problem: `no Chainlink feed of ${s.token} on ${o.chain}: its rates come from a rates file (payrec rates import, --rates)` });
      continue;
    }
    const coverage = parseCoverage(await store.readMeta(coverageKey(o.chain, s.token, feed.address)));
    tasks.push({ token: s.token, address: feed.address, pair: feed.pair, span: { from: s.from, to: s.to }, ...(coverage ? { coverage } : {}) });
  }
  // What each feed lacks: the span before and after what the mirror holds whole.
  const gaps = tasks.map((t) => gapsOf(t.span, t.coverage));
  const planned: { task: Task; feed: OpenFeed; ids: bigint[][] }[] = [];
  for (const [i, task] of tasks.entries()) {
    const base = { token: task.token, feed: task.address, pair: task.pair, from: task.span.from, to: task.span.to, read: 0, stored: 0 };
    if (gaps[i].length === 0) {
      report.push({ ...base, status: 'up to date', problem: '' });
      continue;
    }
    const feed = await reader.open(task.address, task.pair);
    if ('refused' in feed) {
      report.push({ ...base, status: 'refused', problem: feed.refused });
      continue;
    }
    planned.push({ task, feed, ids: await Promise.all(gaps[i].map((g) => roundIdsBetween(reader, feed, g))) });
    report.push({ ...base, status: 'synced', problem: '' });
  }
  const total = planned.reduce((n, p) => n + p.ids.reduce((m, ids) => m + ids.length, 0), 0);
  let done = 0;
  o.progress?.(0, total);
  for (const { task, feed, ids } of planned) {
    const all = ids.flat();
    const rounds: FeedRound[] = [];
    // A batch at a time, so the bar moves and Ctrl-C is heard between batches.
    for (let k = 0; k < all.length; k += BATCH) {
      if (o.signal.aborted) throw new InterruptedError();
      const part = all.slice(k, k + BATCH);
      const read = await reader.client.each(part, (id) => reader.round(feed.address, id, phaseOf(feed, id).decimals));
      for (const r of read) if (r) rounds.push(r);
      done += part.length;
      o.progress?.(done, total);
    }
    if (o.signal.aborted) throw new InterruptedError();
    const rows = rounds.map((r) => storedRound(o.chain, task.token, feed, r));
    const span = task.coverage ? { from: Math.min(task.coverage.from, task.span.from), to: Math.max(task.coverage.to, task.span.to) } : task.span;
    const stored = await store.transaction(async () => {
      const n = await store.storeRates(rows);
      await store.writeMeta(coverageKey(o.chain, task.token, feed.address), coverageText(span));
      return n;
    });
    const line = report.find((r) => r.token === task.token && r.feed === task.address)!;
    Object.assign(line, { read: all.length, stored });
  }
  return report;
}

/** Round ids read per batch. */
const BATCH = 500;

/** The parts of `span` that `coverage` does not hold: each touching it, so the union stays one span. */
export function gapsOf(span: RoundCoverage, coverage: RoundCoverage | undefined): RoundCoverage[] {
  if (!coverage) return [span];
  const gaps: RoundCoverage[] = [];
  if (span.from < coverage.from) gaps.push({ from: span.from, to: coverage.from });
  if (span.to > coverage.to) gaps.push({ from: coverage.to, to: span.to });
  return gaps;
}

const phaseOf = (feed: OpenFeed, id: bigint) => feed.phases.find((p) => BigInt(p.phaseId) === id >> 64n)!;

/**
 * The ids of every round of `feed` that is in force at some instant of `span`: per phase,
 * over the part of the span the phase answers for (from its first round until the next
 * phase's first), from the round in force at its start to the round in force at its end.
 */
async function roundIdsBetween(reader: FeedReader, feed: OpenFeed, span: RoundCoverage): Promise<bigint[]> {
  const ids: bigint[] = [];
  for (const [i, phase] of feed.phases.entries()) {
    const next = feed.phases[i + 1];
    const from = Math.max(span.from, phase.first.updatedAt);
    const to = Math.min(span.to, next ? next.first.updatedAt - 1 : Infinity);
    if (from > to) continue;
    const inForce = await reader.roundsAt(feed, [from, to]);
    const first = inForce.get(from);
    const last = inForce.get(to);
    if (!first || !last) continue;
    for (let id = first.roundId; id <= last.roundId; id++) ids.push(id);
  }
  return ids;
}

/** A round as a row of `rates`: its rate when its answer is one (> 0), and where it came from. */
function storedRound(chain: string, token: string, feed: OpenFeed, r: FeedRound): StoredRate {
  return {
    chain,
    token,
    currency: 'USD',
    time: r.updatedAt,
    rate: r.answer > 0n ? decimalOf(r.answer, r.decimals) : null,
    source: `chainlink:${chain}:${feed.address}:round=${r.roundId}`,
    feed: feed.address,
    description: feed.description,
    phase: r.phaseId,
    roundId: r.roundId.toString(),
    answer: r.answer.toString(),
    decimals: r.decimals,
    file: null,
    line: null,
    sha256: null,
    address: null,
    note: null,
  };
}

