import { decimalOf } from './feed-legs.js';
import { FEEDS, USD_FEED_DECIMALS } from './feed-model.js';
import type { FeedReader } from './feeds.js';
import { TOKENS, type ChainSlug } from './model.js';
import { age, DEFAULT_MAX_AGE } from '../values/selection.js';

// `payrec rates feeds`: the feed of each token on the reader's chain (ONCHAIN.md §10, or
// the profile's own), checked as --currency checks it (description, decimals, phases)
// and read now: whether it answered, and its latest round.

/** Every column in every row (null where a feed has no such answer): a CSV's header is its first row's. */
export interface FeedStatus {
  token: string;
  pair: string | null;
  feed: string | null;
  /** ok; refused (it answered, but not as the pair's feed); no answer; no feed. */
  status: 'ok' | 'refused' | 'no answer' | 'no feed';
  description: string | null;
  decimals: number | null;
  phase: number | null;
  round: string | null;
  rate: string | null;
  updatedAt: number | null;
  /** Why it is not used, or what is odd about its latest round; empty when nothing is. */
  problem: string;
}

/** A row with its columns in order. */
const rowOf = (token: string, status: FeedStatus['status'], fields: Partial<FeedStatus>): FeedStatus => ({
  token,
  pair: null,
  feed: null,
  status,
  description: null,
  decimals: null,
  phase: null,
  round: null,
  rate: null,
  updatedAt: null,
  problem: '',
  ...fields,
});

/** The tokens of the chain: 8pay's list (8PAY v2 is the API's 8PAY), the feeds' (a currency's too), the profile's. */
function tokensOf(reader: FeedReader): string[] {
  const listed = (TOKENS[reader.chain as ChainSlug] ?? []).map((t) => t.symbol.split(' ')[0]);
  const fed = FEEDS.filter((f) => f.addresses[reader.chain as ChainSlug] !== undefined).flatMap((f) => f.tokens);
  return [...new Set([...listed, ...fed, ...Object.keys(reader.configured)])];
}

/** One row per token, in the list's order; each feed read once. `now`: Unix seconds, to say a latest round is stale. */
export async function feedRows(reader: FeedReader, now: number): Promise<FeedStatus[]> {
  return Promise.all(
    tokensOf(reader).map(async (token): Promise<FeedStatus> => {
      const where = reader.feedOf(token);
      if (!where) return rowOf(token, 'no feed', { problem: `no Chainlink feed of ${token} on ${reader.chain}: its rates come from a rates file (--rates)` });
      const feed = await reader.open(where.address, where.pair);
      const at = { pair: where.pair, feed: where.address };
      if ('refused' in feed) return rowOf(token, feed.description === undefined ? 'no answer' : 'refused', { ...at, description: feed.description ?? null, decimals: feed.decimals ?? null, problem: feed.refused });
      const top = feed.phases[feed.phases.length - 1];
      const last = top.last;
      const ok = { ...at, description: feed.description, decimals: USD_FEED_DECIMALS, phase: top.phaseId };
      if (!last) return rowOf(token, 'ok', { ...ok, problem: 'latestRoundData() did not answer a round of the current phase' });
      const problem = last.answer <= 0n ? `its latest round answers ${last.answer}, never a rate` : now - last.updatedAt > DEFAULT_MAX_AGE ? `its latest round is ${age(now - last.updatedAt)} old: a stale or retired feed` : '';
      return rowOf(token, 'ok', { ...ok, round: last.roundId.toString(), rate: decimalOf(last.answer, last.decimals), updatedAt: last.updatedAt, problem });
    }),
  );
}
