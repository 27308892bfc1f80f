import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { ChainClient } from '../../src/chain/rpc-client.js';
import { FeedReader } from '../../src/chain/feeds.js';
import { ChainlinkLegs } from '../../src/chain/feed-legs.js';
import type { LegQuery } from '../../src/values/selection.js';
import type { Rate } from '../../src/values/rate.js';

// The feed reader against the emulator's chain over HTTP, held to the emulator's ground
// truth (GET /_emulator/chain/feeds): the expected round is found here by a scan of every
// round, and the rate by exact decimal text written from the answer and the phase's decimals.

const ANCHOR = 1_767_225_600; // 2026-01-01T00:00:00Z
interface TruthRound { roundId: string; answer: string; updatedAt: number }
interface TruthFeed { address: string; pair: string; description: string; phases: { phaseId: number; decimals: number; rounds: TruthRound[] }[] }

let emu: Emulator;
const truth: Record<string, TruthFeed[]> = {};
beforeAll(async () => {
  emu = await startEmulator({ port: 0, records: 0, seed: 1, now: ANCHOR });
  for (const chain of ['bsc', 'ethereum', 'polygon']) truth[chain] = ((await (await fetch(`${emu.url}/_emulator/chain/feeds?chain=${chain}`)).json()) as { feeds: TruthFeed[] }).feeds;
});
afterAll(() => emu.close());

const client = (chain: string) => new ChainClient({ url: emu.rpcUrl(chain), timeoutMs: 10_000, retries: 1 });
const feedOf = (chain: string, pair: string) => truth[chain].find((f) => f.pair === pair)!;
const roundsOf = (f: TruthFeed) => f.phases.flatMap((p) => p.rounds.map((r) => ({ ...r, decimals: p.decimals })));
/** The round with the greatest updatedAt ≤ t (the later id at a tie), by a scan. */
const inForce = (f: TruthFeed, t: number) => roundsOf(f).filter((r) => r.updatedAt <= t).at(-1);
/** answer ÷ 10^decimals written out by hand. */
const decimal = (answer: string, decimals: number) => {
  const d = answer.padStart(decimals + 1, '0');
  const frac = d.slice(-decimals).replace(/0+$/, '');
  return d.slice(0, -decimals) + (frac ? `.${frac}` : '');
};
const leg = (chain: string, token: string, at: number): LegQuery => ({ chain, token, currency: 'USD', at, fiat: false, maxAge: 25 * 3600 });

describe('Chainlink rounds read from the chain', () => {
  it('finds the round of the boundary second, the one before a second earlier, across the phase change with its decimals', async () => {
    const f = feedOf('ethereum', 'ETH / USD');
    const [old, current] = f.phases;
    expect(old.decimals).toBe(18);
    const firstOfNew = current.rounds[0];
    const lastOfOld = old.rounds.at(-1)!;
    const mid = current.rounds[40];
    const times = [firstOfNew.updatedAt, firstOfNew.updatedAt - 1, mid.updatedAt, mid.updatedAt - 1, old.rounds[10].updatedAt + 5, lastOfOld.updatedAt];
    const legs = new ChainlinkLegs('ethereum', async () => new FeedReader(client('ethereum'), 'ethereum'));
    const answers = (await legs.legs(times.map((t) => leg('ethereum', 'ETH', t)))) as Rate[];
    times.forEach((t, i) => {
      const r = inForce(f, t)!;
      expect(answers[i].rateSource).toBe(`chainlink:ethereum:${f.address.toLowerCase()}:round=${r.roundId}`);
      expect(answers[i].rate).toBe(decimal(r.answer, r.decimals));
      expect(answers[i].rateTime).toBe(r.updatedAt);
    });
    // One second before the new phase's first round is the old phase's last, at 18 decimals.
    expect(answers[1].rateSource).toMatch(new RegExp(`round=${lastOfOld.roundId}$`));
  });

  it('never takes a stale round: a retired feed is missing after its max age', async () => {
    const f = feedOf('bsc', 'BUSD / USD');
    const last = roundsOf(f).at(-1)!;
    const legs = new ChainlinkLegs('bsc', async () => new FeedReader(client('bsc'), 'bsc'));
    const [fresh, stale] = await legs.legs([leg('bsc', 'BUSD', last.updatedAt + 25 * 3600), leg('bsc', 'BUSD', last.updatedAt + 25 * 3600 + 1)]);
    expect((fresh as Rate).rate).toBe(decimal(last.answer, 8));
    expect((stale as { missing: string }).missing).toMatch(/is 25 h 0 min old, more than 25 h 0 min \(a stale or retired feed\)/);
  });

  it('never takes an answer ≤ 0, and refuses a feed whose description is not the pair', async () => {
    const dai = feedOf('ethereum', 'DAI / USD');
    const zero = roundsOf(dai).find((r) => BigInt(r.answer) <= 0n)!;
    const legs = new ChainlinkLegs('ethereum', async () => new FeedReader(client('ethereum'), 'ethereum'));
    const [bad] = await legs.legs([leg('ethereum', 'DAI', zero.updatedAt + 60)]);
    expect((bad as { missing: string }).missing).toBe(`chainlink:ethereum:${dai.address.toLowerCase()}:round=${zero.roundId} answers 0, never a rate`);
    const matic = feedOf('polygon', 'MATIC / USD');
    expect(matic.description).toBe('POL / USD');
    const polygon = new ChainlinkLegs('polygon', async () => new FeedReader(client('polygon'), 'polygon'));
    const [renamed] = await polygon.legs([leg('polygon', 'MATIC', roundsOf(matic)[100].updatedAt)]);
    expect((renamed as { missing: string }).missing).toBe(`the feed at ${matic.address.toLowerCase()} describes itself as "POL / USD", not "MATIC / USD"`);
  });

  it('costs at most 2 calls per distinct (feed, day) to value a month of records', async () => {
    const c = client('bsc');
    const reader = new FeedReader(c, 'bsc');
    const legs = new ChainlinkLegs('bsc', async () => reader);
    const from = ANCHOR - 62 * 86_400;
    // A record every 7 minutes for 30 days, in BNB and USDT.
    const queries = Array.from({ length: (30 * 86_400) / 420 }, (_, i) => from + i * 420).flatMap((t) => [leg('bsc', 'BNB', t), leg('bsc', 'USDT', t)]);
    const answers = await legs.legs(queries);
    expect(answers.filter((a) => !("rateSource" in a))).toEqual([]);
    const days = 2 * 30;
    expect(c.calls).toBeLessThanOrEqual(2 * days);
    // Each answer is the ground truth's.
    for (const [i, q] of queries.entries()) if (i % 50 === 0) expect((answers[i] as Rate).rateSource).toMatch(new RegExp(`round=${inForce(feedOf('bsc', q.token === 'BNB' ? 'BNB / USD' : 'USDT / USD'), q.at)!.roundId}$`));
  });
});
