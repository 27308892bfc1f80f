import type { Address } from 'viem';
import type { FeedReader, FeedRound, OpenFeed, RefusedFeed } from './feeds.js';
import { feedOf, pairOf } from './feed-model.js';
import type { Rate } from '../values/rate.js';
import { age, isoTime, type LegAnswer, type LegQuery, type LegSource } from '../values/selection.js';
import { rateText } from '../values/valuation.js';

// Chainlink as a source of legs: a token's /USD feed on the records' chain, and the
// EUR / USD feed for the currency leg of a cross. The round in force is evidence; it is
// a rate only when its answer is > 0 and it is no older than the leg's max age (a feed
// that stopped, such as a retired one, is caught here). The node is opened only when a
// leg needs it: a report whose rates all come from a file sends nothing to it.

/** The node of the chain, or why there is none (no RPC URL set: every feed leg is missing, said so). */
export type ReaderOf = () => Promise<FeedReader | string>;

export class ChainlinkLegs implements LegSource {
  private reader?: Promise<FeedReader | string>;

  constructor(
    private readonly chain: string,
    private readonly open: ReaderOf,
    /** `payrec config set feed TOKEN ADDRESS`: the profile's feeds. */
    private readonly configured: Readonly<Record<string, string>> = {},
  ) {}

  /** A token's /USD leg, or a currency's /USD leg (fiat), on the records' chain when a feed is known there. */
  has(q: Pick<LegQuery, 'chain' | 'token' | 'currency' | 'fiat'>): boolean {
    return q.chain === this.chain && q.currency === 'USD' && this.feedAddress(q.token) !== undefined;
  }

  lacks(q: LegQuery): string | undefined {
    return q.chain === this.chain && q.currency === 'USD' ? `no Chainlink feed of ${q.token} on ${q.chain}` : undefined;
  }

  async legs(queries: readonly LegQuery[]): Promise<LegAnswer[]> {
    const reader = await (this.reader ??= this.open());
    if (typeof reader === 'string') return queries.map(() => ({ missing: reader }));
    const byFeed = new Map<Address, LegQuery[]>();
    for (const q of queries) {
      const address = this.feedAddress(q.token)!;
      if (byFeed.has(address)) byFeed.get(address)!.push(q);
      else byFeed.set(address, [q]);
    }
    const answers = new Map<LegQuery, LegAnswer>();
    await Promise.all(
      [...byFeed].map(async ([address, qs]) => {
        const feed = await reader.open(address, pairOf(qs[0].token));
        if ('refused' in feed) {
          for (const q of qs) answers.set(q, { missing: feed.refused });
          return;
        }
        const rounds = await reader.roundsAt(feed, qs.map((q) => q.at));
        for (const q of qs) answers.set(q, judge(this.chain, feed, rounds.get(q.at) ?? null, q));
      }),
    );
    return queries.map((q) => answers.get(q)!);
  }

  private feedAddress(token: string): Address | undefined {
    const mine = Object.entries(this.configured).find(([t]) => t.toUpperCase() === token.toUpperCase())?.[1];
    return (mine ?? feedOf(this.chain, token)?.address)?.toLowerCase() as Address | undefined;
  }
}

/** A round in force as a leg: a rate, or why not. */
export function judge(chain: string, feed: Pick<OpenFeed, 'address' | 'pair'> | RefusedFeed, round: FeedRound | null, q: LegQuery): LegAnswer {
  if ('refused' in feed) return { missing: feed.refused };
  const source = (r: FeedRound) => `chainlink:${chain}:${feed.address}:round=${r.roundId}`;
  if (!round) return { missing: `${feed.pair} (${feed.address}) has no round at or before ${isoTime(q.at)}` };
  if (round.answer <= 0n) return { missing: `${source(round)} answers ${round.answer}, never a rate` };
  if (q.at - round.updatedAt > q.maxAge) {
    return { missing: `the round in force, ${source(round)} of ${isoTime(round.updatedAt)}, is ${age(q.at - round.updatedAt)} old, more than ${age(q.maxAge)} (a stale or retired feed)` };
  }
  const value = decimalOf(round.answer, round.decimals);
  const rate: Rate = { rate: rateText(value, '1'), numerator: value, denominator: '1', rateTime: round.updatedAt, rateSource: source(round), zero: false };
  return rate;
}

/** answer ÷ 10^decimals as exact decimal text. */
export function decimalOf(answer: bigint, decimals: number): string {
  const negative = answer < 0n;
  const digits = (negative ? -answer : answer).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}
