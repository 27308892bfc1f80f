import { judge } from '../chain/feed-legs.js';
import type { FeedRound } from '../chain/feeds.js';
import type { Rate } from '../values/rate.js';
import type { RateRow } from '../values/rates-file.js';
import { isoTime, lastAtOrBefore, RowBook, type LegAnswer, type LegQuery, type LegSource } from '../values/selection.js';
import type { MirrorStore } from './engine.js';
import { coverageKey, parseCoverage, type RoundCoverage, type StoredRate } from './rates.js';

// The mirror's `rates` table as sources of legs (DESIGN.md "Which rate"), after --rates
// FILE and before Chainlink read live: the rates files `payrec rates import` stored (a
// team's policy: first), then the Chainlink rounds `payrec rates sync` stored. A round
// serves only where the mirror holds the feed's rounds whole (its coverage): outside it a
// later round may exist that the mirror never read, so the feed is read live there. Within
// it the rounds are at hand: a report looks each instant up at once, with no batch. Every
// rate says where it was kept: `mirror:chainlink:bsc:0x…:round=…`, `mirror:file:rates.csv:12`.

/** The mirror's rates of `chain`: its imported rows, then its synced rounds (`live` answers where they do not reach). */
export async function mirrorLegs(store: MirrorStore, chain: string, live: LegSource | undefined): Promise<LegSource[]> {
  const stored = await store.rates({ chain });
  const imported = stored.filter((r) => r.feed === null);
  const rounds = stored.filter((r) => r.feed !== null);
  const sources: LegSource[] = [];
  if (imported.length > 0) sources.push(importedBook(imported));
  if (rounds.length > 0) {
    const coverage = new Map<string, RoundCoverage>();
    for (const key of new Set(rounds.map((r) => coverageKey(chain, r.token, r.feed!)))) {
      const c = parseCoverage(await store.readMeta(key));
      if (c) coverage.set(key, c);
    }
    sources.push(new StoredRounds(chain, rounds, coverage, live));
  }
  return sources;
}

/** The imported rows, as a rates file is read: each names its file and line. */
function importedBook(rows: readonly StoredRate[]): RowBook {
  const origin = new Map<RateRow, StoredRate>();
  const book = rows.map((r) => {
    const row: RateRow = { line: r.line ?? 0, time: r.time, chain: r.chain, token: r.token, currency: r.currency, rate: r.rate ?? '', source: r.source };
    origin.set(row, r);
    return row;
  });
  const where = (row: RateRow) => `${origin.get(row)!.file}:${row.line}`;
  return new RowBook(book, "the mirror's rates", { source: (row, constant) => `mirror:${constant ? 'peg' : 'file'}:${where(row)}`, where: (row) => `${where(row)} in the mirror` });
}

interface Series {
  feed: string;
  description: string;
  coverage?: RoundCoverage;
  times: number[];
  rounds: StoredRate[];
  /** Each round's rate once judged one (the same object for every instant it serves): a report asks a round for every record of its hours. */
  rates: (Rate | undefined)[];
}

/** The synced rounds of a chain's feeds, by (token, currency). */
class StoredRounds implements LegSource {
  private readonly series = new Map<string, Series>();

  constructor(
    private readonly chain: string,
    rows: readonly StoredRate[],
    coverage: ReadonlyMap<string, RoundCoverage>,
    private readonly live: LegSource | undefined,
  ) {
    const byFeed = new Map<string, Series>();
    for (const r of rows) {
      const key = `${r.token}\u0000${r.currency}\u0000${r.feed}`;
      let s = byFeed.get(key);
      if (!s) byFeed.set(key, (s = { feed: r.feed!, description: r.description ?? '', coverage: coverage.get(coverageKey(chain, r.token, r.feed!)), times: [], rounds: [], rates: [] }));
      s.rounds.push(r);
    }
    // Rows come by time; a token whose feed changed (config set feed) keeps the feed synced last.
    for (const [key, s] of byFeed) {
      s.times = s.rounds.map((r) => r.time!);
      const pair = key.slice(0, key.lastIndexOf('\u0000'));
      const other = this.series.get(pair);
      if (!other || (s.coverage?.to ?? 0) > (other.coverage?.to ?? 0)) this.series.set(pair, s);
    }
  }

  has(q: Pick<LegQuery, 'chain' | 'token' | 'currency' | 'fiat'>): boolean {
    return q.chain === this.chain && this.series.has(`${q.token}\u0000${q.currency}`);
  }

  async legs(queries: readonly LegQuery[]): Promise<LegAnswer[]> {
    const answers: LegAnswer[] = new Array(queries.length);
    const beyond: number[] = [];
    queries.forEach((q, i) => {
      const answer = this.stored(this.series.get(`${q.token}\u0000${q.currency}`)!, q);
      if (answer) answers[i] = answer;
      else beyond.push(i);
    });
    if (beyond.length > 0) {
      const read = await this.live!.legs(beyond.map((i) => queries[i]));
      beyond.forEach((i, k) => (answers[i] = read[k]));
    }
    return answers;
  }

  /** The stored rounds are at hand: each instant within their coverage answered at once, one beyond it left to be read live (undefined). */
  atHand(q: Omit<LegQuery, 'at'>): ((at: number) => LegAnswer | undefined) | undefined {
    const s = this.has(q) ? this.series.get(`${q.token}\u0000${q.currency}`)! : undefined;
    return s && ((at) => this.stored(s, { ...q, at }));
  }

  /** The answer of the rounds stored, or undefined where the coverage ends and the feed is read live. */
  private stored(s: Series, q: LegQuery): LegAnswer | undefined {
    const c = s.coverage;
    if (c && q.at >= c.from && q.at <= c.to) return this.inForce(s, q);
    if (this.live?.has(q)) return undefined;
    return { missing: `the mirror's rounds of ${s.description} (${s.feed}) cover ${c ? `${isoTime(c.from)} to ${isoTime(c.to)}` : 'nothing whole'}, not ${isoTime(q.at)}, and no node is there to read it: payrec rates sync --to …, or --rpc` };
  }

  /** The stored round with the greatest time ≤ q.at, judged as a round read live is. */
  private inForce(s: Series, q: LegQuery): LegAnswer {
    const i = lastAtOrBefore(s.times, q.at);
    const made = s.rates[i];
    // A round judged a rate is one at every instant it is fresh for (judge asks nothing else of the instant).
    if (made && q.at - made.rateTime! <= q.maxAge) return made;
    const row = s.rounds[i];
    const round: FeedRound | null = row ? { roundId: BigInt(row.roundId!), phaseId: row.phase!, answer: BigInt(row.answer!), decimals: row.decimals!, startedAt: row.time!, updatedAt: row.time! } : null;
    const answer = judge(this.chain, { address: s.feed as `0x${string}`, pair: s.description }, round, q);
    if (!('rateSource' in answer)) return answer;
    return (s.rates[i] = { ...answer, rateSource: `mirror:${answer.rateSource}` });
  }
}
