// The round in force at t within one phase of a Chainlink feed: the greatest aggregator
// round id whose updatedAt ≤ t (rounds' updatedAt grow with their ids; a round that is
// absent, reverting or all zeros, lies beyond the phase's last). Every time asked is
// searched at once, in steps: each step reads, in one batch, a guess for every time
// not yet pinned (and the round after it), by interpolation between the rounds known
// around it, or halfway every other step so that no feed can make it slow. A time is
// pinned once the rounds on both sides of it are known: so a month of records costs
// about the rounds in force and their successors, not a search per record.

/** updatedAt of each round asked, or null when the round is absent. */
export type Probe = (ids: readonly number[]) => Promise<ReadonlyMap<number, number | null>>;

export interface PhaseStart {
  /** updatedAt of the phase's round 1 (every time searched is at or after it). */
  first: number;
  /** The phase's last round, when known (the current phase's latest). */
  last?: { id: number; updatedAt: number };
  /** Seconds between rounds: where to look first when nothing later is known. */
  spacing: number;
}

/** Most steps: far more than halving 2^53 rounds needs. */
const MAX_STEPS = 200;

/**
 * The round in force at each of `times` (each ≥ start.first), by time. `known` holds
 * rounds read before (updatedAt or null) and gains those read now: the cache per round.
 */
export async function roundsInForce(times: readonly number[], start: PhaseStart, probe: Probe, known: Map<number, number | null> = new Map()): Promise<Map<number, number>> {
  known.set(1, start.first);
  if (start.last) known.set(start.last.id, start.last.updatedAt);
  const pending = [...new Set(times)];
  const found = new Map<number, number>();
  const tries = new Map<number, number>();
  for (let step = 0; pending.length > 0; step++) {
    // Stryker disable next-line EqualityOperator: a search never comes near MAX_STEPS (halving 2^53 rounds takes 2 × 53 steps), so 200 or 201 decides nothing
    if (step > MAX_STEPS) throw new Error('the round search did not end');
    const view = knownView(known);
    const wanted = new Set<number>();
    for (let i = pending.length - 1; i >= 0; i--) {
      const t = pending[i];
      const around = view.bracket(t);
      const { lo, hi } = around;
      if (hi === lo.id + 1 || (start.last && lo.id === start.last.id)) {
        found.set(t, lo.id);
        pending.splice(i, 1);
        continue;
      }
      const n = (tries.get(t) ?? 0) + 1;
      tries.set(t, n);
      const g = guess(t, around, view.rounds, n, start.spacing);
      // And the round after it (already known when it is hi).
      wanted.add(g).add(g + 1);
    }
    const ids = [...wanted].filter((id) => !known.has(id));
    if (ids.length === 0) continue;
    const read = await probe(ids);
    for (const id of ids) known.set(id, read.get(id) ?? null);
  }
  return found;
}

interface Known {
  id: number;
  updatedAt: number;
}

/** The rounds known around t: the last at or before it, and the first id after it (a round, or the first absent id). */
interface Bracket {
  lo: Known;
  /** The first known round after t, when one is known. */
  next?: Known;
  /** next's id, else the first id known to be absent; undefined when neither is known. */
  hi?: number;
}

/** The known rounds in order, up to the first id known to be absent (no round after it is believed). */
function knownView(known: ReadonlyMap<number, number | null>) {
  let absentFrom = Infinity;
  // Stryker disable next-line EqualityOperator: a map's ids are distinct, so no id equals the least absent one found before it
  for (const [id, u] of known) if (u === null && id < absentFrom) absentFrom = id;
  const rounds: Known[] = [];
  for (const [id, u] of known) if (id < absentFrom) rounds.push({ id, updatedAt: u! });
  rounds.sort((a, b) => a.id - b.id);
  return {
    rounds,
    /** Round 1 is at or before every time searched. */
    bracket(t: number): Bracket {
      let a = 0;
      let b = rounds.length;
      while (a < b) {
        const m = (a + b) >>> 1;
        if (rounds[m].updatedAt <= t) a = m + 1;
        else b = m;
      }
      const lo = rounds[a - 1];
      const next = rounds[a];
      if (next) return { lo, next, hi: next.id };
      return { lo, hi: absentFrom === Infinity ? undefined : absentFrom };
    },
  };
}

/** The id to read next for t, strictly between lo and hi. */
function guess(t: number, { lo, next, hi }: Bracket, rounds: readonly Known[], tries: number, spacing: number): number {
  const inside = (g: number) => Math.min(Math.max(g, lo.id + 1), hi === undefined ? Infinity : hi - 1);
  // Every other step after the first two (the 3rd, 5th…): halfway (or, unbounded, twice as far each time).
  if (tries % 2 === 1 && tries > 1) return inside(hi === undefined ? lo.id + 2 ** tries : Math.floor((lo.id + hi) / 2));
  if (next) return inside(lo.id + Math.floor(((t - lo.updatedAt) * (next.id - lo.id)) / (next.updatedAt - lo.updatedAt)));
  // Nothing known after t (or only an absent round): the spacing of the rounds known, else the phase's guess.
  const seen = rounds.length > 1 ? (rounds[rounds.length - 1].updatedAt - rounds[0].updatedAt) / (rounds[rounds.length - 1].id - rounds[0].id) : spacing;
  return inside(lo.id + Math.max(1, Math.floor((t - lo.updatedAt) / Math.max(1, seen))));
}
