import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { roundsInForce } from '../../src/chain/round-search.js';

// The oracle: the greatest id whose updatedAt ≤ t, by a scan of every round.
const brute = (u: readonly number[], t: number) => {
  let best = 0;
  u.forEach((x, i) => x <= t && (best = i + 1));
  return best;
};

function phase(updatedAt: number[], withLast: boolean) {
  let reads = 0;
  const probe = async (ids: readonly number[]) => {
    reads += ids.length;
    return new Map(ids.map((id) => [id, id >= 1 && id <= updatedAt.length ? updatedAt[id - 1] : null]));
  };
  const start = { first: updatedAt[0], last: withLast ? { id: updatedAt.length, updatedAt: updatedAt[updatedAt.length - 1] } : undefined, spacing: 3600 };
  return { probe, start, reads: () => reads };
}

describe('the round in force', () => {
  it('is the round of the boundary second itself, and the one before a second earlier', async () => {
    // Rounds at 100, 200, 300 (ids 1, 2, 3), the last unknown: found through an absent round 4.
    const p = phase([100, 200, 300], false);
    const found = await roundsInForce([100, 199, 200, 299, 300, 10_000], p.start, p.probe);
    expect(Object.fromEntries(found)).toEqual({ 100: 1, 199: 1, 200: 2, 299: 2, 300: 3, 10000: 3 });
  });

  it('takes the later of two rounds of the same second', async () => {
    const p = phase([100, 200, 200, 300], true);
    expect((await roundsInForce([200, 250], p.start, p.probe)).get(250)).toBe(3);
  });

  it('agrees with a scan of every round, known last round or not', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 400 }), fc.array(fc.integer({ min: 0, max: 3_000_000 }), { minLength: 1, maxLength: 60 }), fc.boolean(), async (gaps, offsets, withLast) => {
        const u: number[] = [];
        gaps.reduce((t, g) => (u.push(t + g), t + g), 1000);
        const p = phase(u, withLast);
        const times = offsets.map((o) => u[0] + o);
        const found = await roundsInForce(times, p.start, p.probe);
        for (const t of times) expect(found.get(t)).toBe(brute(u, t));
      }),
      { numRuns: 300 },
    );
  });

  it('reads about the rounds in force when records are dense: a month of evenly spaced rounds', async () => {
    // 400 days of rounds every ~20 h; a record every 10 minutes of one month (days 300–330).
    const u = Array.from({ length: 480 }, (_, i) => 1_000_000 + i * 72_000 + ((i * 7919) % 900));
    const p = phase(u, true);
    const times = Array.from({ length: 30 * 144 }, (_, i) => 1_000_000 + 300 * 86_400 + i * 600);
    const found = await roundsInForce(times, p.start, p.probe);
    for (const t of times.filter((_, i) => i % 97 === 0)) expect(found.get(t)).toBe(brute(u, t));
    const inForce = new Set(times.map((t) => brute(u, t))).size;
    // Each round in force and the one after it, plus a few guesses on the way: under 2 per day.
    expect(p.reads()).toBeLessThanOrEqual(inForce + 12);
    expect(p.reads()).toBeLessThanOrEqual(2 * 30);
  });
});
