import { FEED_FUNCTIONS } from './feed-abi.js';
import { decodeFunctionResult, encodeFunctionData, zeroAddress, type Address, type Hex } from 'viem';
import { feedOf, pairOf, proxyRoundId, USD_FEED_DECIMALS } from './feed-model.js';
import type { ChainClient } from './rpc-client.js';
import { roundsInForce } from './round-search.js';

// Chainlink's feeds read through the chain client of verification (its transport,
// batches and retries): a feed's proxy is checked (description() is the pair,
// decimals() 8) and its phases laid out (phaseAggregators, each aggregator's decimals,
// each phase's first round) once per run; then the rounds in force at many instants are
// found at once (round-search.ts), each round read once (cached per feed and round). A
// round that reverts or answers updatedAt 0 is absent. What a feed answers is evidence
// only: whether it is a usable rate (answer > 0, not too old) is the caller's to judge.

export interface FeedRound {
  /** The proxy's round id: (phaseId << 64) | aggregator round. */
  roundId: bigint;
  phaseId: number;
  answer: bigint;
  /** The decimals of the round's phase aggregator. */
  decimals: number;
  startedAt: number;
  updatedAt: number;
}

interface Phase {
  phaseId: number;
  aggregator: Address;
  decimals: number;
  first: FeedRound;
  /** The current phase's latest round. */
  last?: FeedRound;
}

/** A feed checked and laid out: its phases in order. */
export interface OpenFeed {
  address: Address;
  pair: string;
  description: string;
  phases: Phase[];
}

/** Why a feed is not used, with what it answered of itself. */
export interface RefusedFeed {
  address: Address;
  refused: string;
  description?: string;
  decimals?: number;
}

/** Seconds between rounds a search starts from: a feed's heartbeat. */
const HEARTBEAT_GUESS = 86_400;

export class FeedReader {
  private readonly opened = new Map<string, Promise<OpenFeed | RefusedFeed>>();
  /** Rounds read, per feed and round id (null: absent). */
  private readonly rounds = new Map<string, Map<bigint, FeedRound | null>>();

  constructor(
    readonly client: ChainClient,
    readonly chain: string,
    /** `payrec config set feed TOKEN ADDRESS`: the profile's feeds, over ONCHAIN §10's. */
    readonly configured: Readonly<Record<string, string>> = {},
  ) {}

  /** The feed of a token (or of a currency's /USD rate) on this chain, and the pair it must describe. */
  feedOf(token: string): { address: Address; pair: string } | undefined {
    const mine = Object.entries(this.configured).find(([t]) => t.toUpperCase() === token.toUpperCase())?.[1];
    if (mine) return { address: mine.toLowerCase() as Address, pair: pairOf(token) };
    const listed = feedOf(this.chain, token);
    return listed && { address: listed.address.toLowerCase() as Address, pair: listed.pair };
  }

  /** The feed checked (as the feed of `pair`) and laid out once per run. */
  open(address: Address, pair: string): Promise<OpenFeed | RefusedFeed> {
    const key = `${address} ${pair}`;
    let p = this.opened.get(key);
    if (!p) this.opened.set(key, (p = this.layOut(address, pair)));
    return p;
  }

  private async layOut(address: Address, pair: string): Promise<OpenFeed | RefusedFeed> {
    const [description, decimals, phaseId, latest] = await Promise.all([
      this.view(address, 'description'),
      this.view(address, 'decimals'),
      this.view(address, 'phaseId'),
      this.view(address, 'latestRoundData'),
    ]);
    const refused = (why: string): RefusedFeed => ({
      address,
      refused: `the feed at ${address} ${why}`,
      ...(typeof description === 'string' ? { description } : {}),
      ...(decimals !== undefined ? { decimals: Number(decimals) } : {}),
    });
    if (description === undefined || decimals === undefined || phaseId === undefined) return refused('does not answer as a Chainlink feed (description, decimals, phaseId)');
    if (description !== pair) return refused(`describes itself as "${String(description)}", not "${pair}"`);
    if (Number(decimals) !== USD_FEED_DECIMALS) return refused(`has ${decimals} decimals, not ${USD_FEED_DECIMALS} as every /USD feed`);
    const current = Number(phaseId);
    if (!(current >= 1 && current <= 1000)) return refused(`answers phase ${current}`);
    const ids = Array.from({ length: current }, (_, i) => i + 1);
    const aggregators = await Promise.all(ids.map((p) => this.view(address, 'phaseAggregators', [p])));
    const phases: Phase[] = [];
    await Promise.all(
      ids.map(async (p, i) => {
        const aggregator = aggregators[i] as Address | undefined;
        if (!aggregator || aggregator === zeroAddress) return;
        const d = await this.view(aggregator, 'decimals');
        const first = d === undefined ? null : await this.round(address, proxyRoundId(p, 1), Number(d));
        if (!first) return;
        phases[i] = { phaseId: p, aggregator: aggregator.toLowerCase() as Address, decimals: Number(d), first };
      }),
    );
    const laid = phases.filter((p) => p !== undefined);
    if (laid.length === 0) return refused('has no rounds');
    const top = laid[laid.length - 1];
    const l = latest as readonly [bigint, bigint, bigint, bigint, bigint] | undefined;
    if (l && l[3] > 0n && Number(l[0] >> 64n) === top.phaseId) {
      top.last = { roundId: l[0], phaseId: top.phaseId, answer: l[1], decimals: top.decimals, startedAt: Number(l[2]), updatedAt: Number(l[3]) };
    }
    return { address, pair, description: String(description), phases: laid };
  }

  /**
   * The round in force at each of `times` (the greatest updatedAt ≤ t), by time: null
   * when the feed has no round at or before t.
   */
  async roundsAt(feed: OpenFeed, times: readonly number[]): Promise<Map<number, FeedRound | null>> {
    const out = new Map<number, FeedRound | null>();
    const byPhase = new Map<Phase, number[]>();
    for (const t of new Set(times)) {
      // The phase of t: the last one whose first round is at or before it.
      const phase = [...feed.phases].reverse().find((p) => p.first.updatedAt <= t);
      if (!phase) out.set(t, null);
      else if (byPhase.has(phase)) byPhase.get(phase)!.push(t);
      else byPhase.set(phase, [t]);
    }
    const cache = this.cacheOf(feed.address);
    await Promise.all(
      [...byPhase].map(async ([phase, ts]) => {
        const known = new Map<number, number | null>();
        for (const [id, r] of cache) if (Number(id >> 64n) === phase.phaseId) known.set(Number(id & 0xffffffffffffffffn), r ? r.updatedAt : null);
        const last = phase.last && { id: Number(phase.last.roundId & 0xffffffffffffffffn), updatedAt: phase.last.updatedAt };
        if (phase.last) cache.set(phase.last.roundId, phase.last);
        const found = await roundsInForce(ts, { first: phase.first.updatedAt, last, spacing: HEARTBEAT_GUESS }, async (ids) => {
          const read = await this.client.each(ids, (n) => this.round(feed.address, proxyRoundId(phase.phaseId, n), phase.decimals));
          return new Map(ids.map((n, i) => [n, read[i]?.updatedAt ?? null]));
        }, known);
        for (const [t, n] of found) out.set(t, cache.get(proxyRoundId(phase.phaseId, n)) ?? null);
      }),
    );
    return out;
  }

  /** Reads round `id` at the proxy (cached); null when absent: it reverts, or its updatedAt is 0. */
  async round(address: Address, id: bigint, decimals: number): Promise<FeedRound | null> {
    const cache = this.cacheOf(address);
    if (cache.has(id)) return cache.get(id)!;
    const r = (await this.view(address, 'getRoundData', [id])) as readonly [bigint, bigint, bigint, bigint, bigint] | undefined;
    const round = r && r[3] > 0n ? { roundId: id, phaseId: Number(id >> 64n), answer: r[1], decimals, startedAt: Number(r[2]), updatedAt: Number(r[3]) } : null;
    cache.set(id, round);
    return round;
  }

  private cacheOf(address: Address): Map<bigint, FeedRound | null> {
    let c = this.rounds.get(address);
    if (!c) this.rounds.set(address, (c = new Map()));
    return c;
  }

  /** A view function's decoded answer; undefined when it reverts or answers nothing a feed would. */
  private async view(to: Address, functionName: string, args?: readonly unknown[]): Promise<unknown> {
    const data = encodeFunctionData({ abi: FEED_FUNCTIONS, functionName, args } as Parameters<typeof encodeFunctionData>[0]);
    const raw = await this.client.ethCallOrRevert(to, data);
    if (raw === 'reverted' || raw === '0x') return undefined;
    try {
      return decodeFunctionResult({ abi: FEED_FUNCTIONS, functionName, data: raw as Hex } as Parameters<typeof decodeFunctionResult>[0]);
    } catch {
      return undefined;
    }
  }
}
