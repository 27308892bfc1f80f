import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MirrorStore } from '../../src/mirror/engine.js';
import { mirrorLegs } from '../../src/mirror/rate-legs.js';
import { coverageKey, coverageText, type StoredRate } from '../../src/mirror/rates.js';
import type { LegAnswer, LegQuery, LegSource } from '../../src/values/selection.js';

// The mirror's synced rounds answer at hand (a report's million instants, no batch) as
// their batch (`legs`) does, and both as a brute-force scan of the rounds does: the
// round with the greatest time ≤ the instant, a rate only while it is no older than the
// leg's max age (a round that served fresh is not served once stale), outside the
// coverage left to the feed read live (at hand: undefined), or missing with no node.

const FEED = '0x0567f2323251f0aab15c8dfb1967e4e8a7d3b7bd';
const HOUR = 3600;
const MAX_AGE = 25 * HOUR;

function round(time: number, answer: bigint, k: number): StoredRate {
  return { chain: 'bsc', token: 'BNB', currency: 'USD', time, rate: null, source: 'chainlink', feed: FEED, description: 'BNB / USD', phase: 1, roundId: String(k + 1), answer: String(answer), decimals: 8, file: null, line: null, sha256: null, address: null, note: null };
}

/** The rows as the mirror's store hands them (by time), with the feed's coverage. */
function storeOf(rows: StoredRate[], coverage: { from: number; to: number }): MirrorStore {
  const meta = new Map([[coverageKey('bsc', 'BNB', FEED), coverageText(coverage)]]);
  return { rates: async () => rows, readMeta: async (key: string) => meta.get(key) } as unknown as MirrorStore;
}

/** A live feed's stand-in: answers what it was asked, so the test sees which instants went to it. */
const live: LegSource = { has: (q) => q.token === 'BNB', legs: (qs) => qs.map((q) => ({ missing: `live ${q.at}` })) };

type Shape = undefined | 'missing' | { rateTime: number | null; rateSource: string };

/** What the rounds give at `at`, by a scan: undefined where the feed is read live. */
function scan(rows: StoredRate[], coverage: { from: number; to: number }, at: number, withLive: boolean): Shape {
  if (at < coverage.from || at > coverage.to) return withLive ? undefined : 'missing';
  const r = rows.filter((x) => x.time! <= at).at(-1);
  if (!r || BigInt(r.answer!) <= 0n || at - r.time! > MAX_AGE) return 'missing';
  return { rateTime: r.time, rateSource: `mirror:chainlink:bsc:${FEED}:round=${r.roundId}` };
}

const shape = (a: LegAnswer | undefined): Shape => (a === undefined ? undefined : 'missing' in a ? 'missing' : { rateTime: a.rateTime, rateSource: a.rateSource });

describe("the mirror's synced rounds", () => {
  it('answer at hand as their batch does and as a scan of the rounds does, a stale instant after a fresh one of the same round included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 40 * HOUR }), fc.bigInt({ min: -5n, max: 10n ** 10n })), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 0, max: 400 * HOUR }), { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        async (steps, instants, withLive) => {
          let t = 10 * HOUR;
          const rows = steps.map(([gap, answer], k) => round((t += gap), answer, k));
          const coverage = { from: 5 * HOUR, to: t + 100 * HOUR };
          const [source] = await mirrorLegs(storeOf(rows, coverage), 'bsc', withLive ? live : undefined);
          const leg: Omit<LegQuery, 'at'> = { chain: 'bsc', token: 'BNB', currency: 'USD', fiat: false, maxAge: MAX_AGE };
          const hand = source.atHand!(leg)!;
          // Ascending, as a report asks: a round judged fresh is asked again once stale.
          const sorted = [...instants].sort((a, b) => a - b);
          const atHand = sorted.map((at) => hand(at));
          const batch = await source.legs(sorted.map((at) => ({ ...leg, at })));
          sorted.forEach((at, i) => {
            expect(shape(atHand[i])).toEqual(scan(rows, coverage, at, withLive));
            // The batch reads live exactly what at hand leaves to be read.
            expect(shape(batch[i])).toEqual(atHand[i] === undefined ? 'missing' : shape(atHand[i]));
            if (atHand[i] === undefined) expect(batch[i]).toEqual({ missing: `live ${at}` });
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
