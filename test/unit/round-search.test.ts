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

/** A phase whose round `id` has updatedAt `u(id)` (null: absent), recording each batch read. */
function recorded(u: (id: number) => number | null, first: number, spacing: number, last?: { id: number; updatedAt: number }) {
  const batches: number[][] = [];
  const probe = async (ids: readonly number[]) => {
    batches.push([...ids].sort((a, b) => a - b));
    return new Map(ids.map((id) => [id, u(id)]));
  };
  return { probe, start: { first, last, spacing }, batches };
}

// The search's reads, batch by batch, traced by hand from the rule in round-search.ts's
// header: interpolate between the rounds known around t, halve every other step after
// the first two (double the distance when nothing after t is known), and read the round
// after each guess. Each test says which step of the rule it traces.
describe('the rounds the search reads', () => {
  it('interpolates between the known rounds: one batch when rounds are evenly spaced', async () => {
    // Rounds every 100 s (round i at 100·i), the last (1000) known. t = 55,550:
    // 1 + ⌊(55,550 − 100) × 999 ÷ 99,900⌋ = 1 + ⌊554.5⌋ = 555, and 556 after it.
    // t = 100 is round 1's own second: guess 1, raised to 2 (strictly after round 1), and 3.
    const p = recorded((id) => (id <= 1000 ? 100 * id : null), 100, 3600, { id: 1000, updatedAt: 100_000 });
    const found = await roundsInForce([100, 55_550, 55_550], p.start, p.probe);
    expect(Object.fromEntries(found)).toEqual({ 100: 1, 55550: 555 });
    expect(p.batches).toEqual([[2, 3, 555, 556]]);
  });

  it('reads nothing for a time at or after the phase\'s last round', async () => {
    const p = recorded((id) => (id <= 1000 ? 100 * id : null), 100, 3600, { id: 1000, updatedAt: 100_000 });
    expect(Object.fromEntries(await roundsInForce([100_000, 200_000], p.start, p.probe))).toEqual({ 100000: 1000, 200000: 1000 });
    expect(p.batches).toEqual([]);
  });

  it('extrapolates by the spacing of the rounds seen, once two are known, when the last is not', async () => {
    // Rounds every 100 s, the phase's hint says 1000. Step 1: 1 + ⌊55,450 ÷ 1000⌋ = 56, and 57.
    // Step 2: seen (5700 − 100) ÷ (57 − 1) = 100 s; 57 + ⌊(55,550 − 5700) ÷ 100⌋ = 57 + 498 = 555, and 556.
    const p = recorded((id) => (id <= 1000 ? 100 * id : null), 100, 1000);
    expect((await roundsInForce([55_550], p.start, p.probe)).get(55_550)).toBe(555);
    expect(p.batches).toEqual([
      [56, 57],
      [555, 556],
    ]);
  });

  it('halves every other step after the first two, so that no spacing of rounds makes it slow', async () => {
    // Rounds 1–99 one second apart (round i at i), round 100, the last, at 1,000,000. t = 50:
    // step 1: 1 + ⌊49 × 99 ÷ 999,999⌋ = 1, raised to 2: reads 2, 3;
    // step 2: 3 + ⌊47 × 97 ÷ 999,997⌋ = 3, raised to 4: reads 4, 5;
    // step 3 (halving): ⌊(5 + 100) ÷ 2⌋ = 52: reads 52, 53;
    // step 4: 5 + ⌊45 × 47 ÷ 47⌋ = 50: reads 50, 51, and 50 is pinned between 50 and 51.
    const p = recorded((id) => (id <= 99 ? id : id === 100 ? 1_000_000 : null), 1, 1, { id: 100, updatedAt: 1_000_000 });
    expect((await roundsInForce([50], p.start, p.probe)).get(50)).toBe(50);
    expect(p.batches).toEqual([
      [2, 3],
      [4, 5],
      [52, 53],
      [50, 51],
    ]);
  });

  it('doubles the distance every other step when nothing after the time is known', async () => {
    // Rounds 1–10 every 1000 s, then one a second (round i at 10,000 + (i − 10)); t = 110,000 is round 100,010's.
    // step 1: 1 + ⌊109,000 ÷ 1000⌋ = 110: reads 110, 111;
    // step 2: seen (10,101 − 1000) ÷ 110 s; 111 + ⌊99,899 × 110 ÷ 9101⌋ = 111 + 1207 = 1318: reads 1318, 1319;
    // step 3 (doubling): 1319 + 2³ = 1327: reads 1327, 1328.
    const u = (id: number) => (id <= 10 ? 1000 * id : 10_000 + (id - 10));
    const p = recorded(u, 1000, 1000);
    expect((await roundsInForce([110_000], p.start, p.probe)).get(110_000)).toBe(100_010);
    expect(p.batches.slice(0, 3)).toEqual([
      [110, 111],
      [1318, 1319],
      [1327, 1328],
    ]);
  });

  it('believes no round after one read as absent', async () => {
    // Round 3 absent, round 4 present (a node that lies, or a gap): the phase ends at 2.
    // step 1: 1 + ⌊250 ÷ 100⌋ = 3: reads 3 (absent), 4; step 2: guess 3 lowered to 2 (below the absent 3): reads 2.
    const p = recorded((id) => (id === 3 ? null : 100 * id), 100, 100);
    expect((await roundsInForce([350], p.start, p.probe)).get(350)).toBe(2);
    expect(p.batches).toEqual([[3, 4], [2]]);
  });

  it('gives up after 200 steps rather than search forever when every round is before the time', async () => {
    // A node answering updatedAt 100 for every round id: no round is ever after t = 200.
    const p = recorded(() => 100, 100, 1);
    await expect(roundsInForce([200], p.start, p.probe)).rejects.toThrow(new Error('the round search did not end'));
    // Steps 0 to 200 read at most a batch each (once ids pass 2^53, a step can find its guess read).
    expect(p.batches.length).toBeGreaterThan(100);
    expect(p.batches.length).toBeLessThanOrEqual(201);
  });
});

describe('the rounds the search reads below an absent round', () => {
  it('guesses no further than the round before the first absent one', async () => {
    // Rounds 1–10 every 100 s, absent from 11 (the phase's last unknown); t = 5000, hint 100 s:
    // step 1: 1 + ⌊4900 ÷ 100⌋ = 50: reads 50, 51 (absent);
    // step 2: the same guess, lowered below the absent 50: reads 49 (absent);
    // step 3 (halving): ⌊(1 + 49) ÷ 2⌋ = 25: reads 25, 26; step 4: 50 lowered to 24;
    // step 5: ⌊25 ÷ 2⌋ = 12: reads 12, 13; step 6: 11; step 7: ⌊12 ÷ 2⌋ = 6: reads 6, 7 (present);
    // step 8: seen (700 − 100) ÷ 6 = 100 s, 7 + ⌊4300 ÷ 100⌋ = 50, lowered to 10: present, and 11 is known absent.
    const p = recorded((id) => (id <= 10 ? 100 * id : null), 100, 100);
    expect((await roundsInForce([5000], p.start, p.probe)).get(5000)).toBe(10);
    expect(p.batches).toEqual([[50, 51], [49], [25, 26], [24], [12, 13], [11], [6, 7], [10]]);
  });
});
