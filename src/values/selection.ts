import type { NoRate, Rate } from './rate.js';
import { ANY_CHAIN, FIAT, type RateRow } from './rates-file.js';
import { rateText } from './valuation.js';

// Which row of a rates file (or of the rates imported into the mirror) is in force at an
// instant: the latest at or before it (never one from after it), no older than the
// leg's max age; a chain's own row beats a `*` row of the same time; a constant (`*`)
// row, a declared peg, serves when no dated row is in force. A zero is used only when
// written so, and flagged.

/** Seconds a rate serves for: 25 hours (daily rows, 24-hour heartbeats), 5 days for fiat legs (weekends, holidays). */
export const DEFAULT_MAX_AGE = 25 * 3600;
export const FIAT_MAX_AGE = 5 * 86_400;

/** One leg of a value: token → currency on a chain, or (fiat) currency → currency. */
export interface LegQuery {
  chain: string;
  token: string;
  currency: string;
  at: number;
  /** A currency-to-currency leg: fiat rows, or a EUR/USD feed on `chain`. */
  fiat: boolean;
  /** Seconds the rate in force may be old. */
  maxAge: number;
}

export type LegAnswer = Rate | NoRate;

/** A source of legs: a rates file, the mirror's rates, Chainlink. */
export interface LegSource {
  /** Whether the source holds rates of this leg (then it decides it). */
  has(q: Pick<LegQuery, 'chain' | 'token' | 'currency' | 'fiat'>): boolean;
  /** The rate in force for each leg (the same order), or why none. */
  legs(queries: readonly LegQuery[]): Promise<LegAnswer[]> | LegAnswer[];
  /** Said when no source has a leg: what this source would need (`no feed for 8PAY on bsc`). */
  lacks?(q: LegQuery): string | undefined;
  /**
   * A source whose rates are at hand (a rates file read once, the mirror's rows) answers a
   * leg at an instant at once, with no request and no batch: the rate in force as `legs`
   * would give it, or undefined where it must be read (ask `legs` then). Undefined when it
   * holds no rates of the leg, or must always read them (Chainlink).
   */
  atHand?(q: Omit<LegQuery, 'at'>): ((at: number) => LegAnswer | undefined) | undefined;
}


/** The rows of one key as read, and the constant one if any. */
interface Group {
  rows: RateRow[];
  constant?: RateRow;
}

/** The rows of one key, dated ones by time, and the constant one if any. */
interface Series {
  times: number[];
  rows: RateRow[];
  constant?: RateRow;
}

/** How long ago, in words: 26 h, 3 d. */
export function age(seconds: number): string {
  return seconds >= 2 * 86_400 ? `${Math.floor(seconds / 86_400)} d ${Math.floor((seconds % 86_400) / 3600)} h` : `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

/** The index of the last of `times` (ascending) at or before `t`: of equal times the last; -1 when every one is after t. */
export function lastAtOrBefore(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

export const isoTime = (t: number) => new Date(t * 1000).toISOString().replace('.000Z', 'Z');

/** How rows are named: in a rateSource (`file:rates.csv:12`, `peg:rates.csv:3` for a constant row) and in messages (`rates.csv:12`). */
export interface RowNaming {
  source(row: RateRow, constant: boolean): string;
  where(row: RateRow): string;
}

const fileNaming = (name: string): RowNaming => ({ source: (row, constant) => `${constant ? 'peg' : 'file'}:${name}:${row.line}`, where: (row) => `${name}:${row.line}` });

/** The rows of a rates file, asked by leg. `name` is how rateSource names the file (`file:rates.csv:12`). */
export class RowBook implements LegSource {
  private readonly series = new Map<string, Series>();
  /** Each row's rate, made once: a report asks a daily row for every record of its day. */
  private readonly made = new Map<RateRow, Rate>();

  constructor(
    rows: readonly RateRow[],
    private readonly name: string,
    /** The mirror's imported rows say where they are kept (`mirror:file:rates.csv:12`). */
    private readonly naming: RowNaming = fileNaming(name),
  ) {
    const grouped = new Map<string, Group>();
    // Rows come grouped by pair (a file's, the mirror's): a key is made when the pair changes, not per row.
    let last: RateRow | undefined;
    let group: Group = { rows: [] };
    for (const row of rows) {
      // Stryker disable next-line ConditionalExpression,LogicalOperator: a key made for every row finds the same group
      if (last?.chain !== row.chain || last.token !== row.token || last.currency !== row.currency) {
        const key = keyOf(row.chain, row.token, row.currency);
        group = grouped.get(key) ?? { rows: [] };
        grouped.set(key, group);
      }
      last = row;
      if (row.time === null) group.constant = row;
      else group.rows.push(row);
    }
    for (const [key, g] of grouped) this.series.set(key, seriesOf(g.rows, g.constant));
  }

  /** Whether the book holds rates of this leg (then it decides it, in force or not). */
  has(q: Pick<LegQuery, 'chain' | 'token' | 'currency' | 'fiat'>): boolean {
    return this.seriesOf(q) !== undefined;
  }

  /** The rate in force for `q`, or why none; undefined when the book has no rates of the leg. */
  leg(q: LegQuery): LegAnswer | undefined {
    const s = this.seriesOf(q);
    return s && this.inForce(s, q.at, q.maxAge);
  }

  /** The book's rows are at hand: the leg's series is found once, then each instant is one binary search. */
  atHand(q: Omit<LegQuery, 'at'>): ((at: number) => LegAnswer) | undefined {
    const s = this.seriesOf(q);
    return s && ((at) => this.inForce(s, at, q.maxAge));
  }

  private inForce(s: Series, at: number, maxAge: number): LegAnswer {
    // The last row at or before `at` (times sorted; equal times keep the chain's own last).
    const row: RateRow | undefined = s.rows[lastAtOrBefore(s.times, at)];
    if (row && at - row.time! <= maxAge) return this.rateOf(row, false);
    if (s.constant) return this.rateOf(s.constant, true);
    if (row) return { missing: `the latest row (${this.naming.where(row)}, ${isoTime(row.time!)}) is ${age(at - row.time!)} old, more than ${age(maxAge)}` };
    return { missing: `the first row (${this.naming.where(s.rows[0])}) is from ${isoTime(s.rows[0].time!)}, after the record` };
  }

  legs(queries: readonly LegQuery[]): LegAnswer[] {
    // Queries come grouped by pair: the series is looked up again only when the pair changes.
    let last: LegQuery | undefined;
    let s: Series | undefined;
    return queries.map((q) => {
      if (!last || q.token !== last.token || q.currency !== last.currency || q.chain !== last.chain || q.fiat !== last.fiat) s = this.seriesOf((last = q));
      return s ? this.inForce(s, q.at, q.maxAge) : { missing: `${this.name} has no rate of ${q.token} → ${q.currency}` };
    });
  }

  private seriesOf(q: Pick<LegQuery, 'chain' | 'token' | 'currency' | 'fiat'>): Series | undefined {
    if (q.fiat) return this.series.get(keyOf(FIAT, q.token, q.currency));
    const own = this.series.get(keyOf(q.chain, q.token, q.currency));
    const any = this.series.get(keyOf(ANY_CHAIN, q.token, q.currency));
    if (!own || !any) return own ?? any;
    // Both: one series of the two, made once: the `*` rows first, so that at a tie the chain's own is last (the search takes the last).
    const key = keyOf(`${q.chain}+*`, q.token, q.currency);
    let both = this.series.get(key);
    // Stryker disable next-line ConditionalExpression: making it again gives the same series
    if (!both) this.series.set(key, (both = seriesOf([...any.rows, ...own.rows], own.constant ?? any.constant)));
    return both;
  }

  private rateOf(row: RateRow, constant: boolean): Rate {
    let rate = this.made.get(row);
    // Stryker disable next-line ConditionalExpression: making it again gives the same rate
    if (!rate) this.made.set(row, (rate = this.make(row, constant)));
    return rate;
  }

  private make(row: RateRow, constant: boolean): Rate {
    return {
      rate: rateText(row.rate, '1'),
      numerator: row.rate,
      denominator: '1',
      rateTime: row.time,
      rateSource: this.naming.source(row, constant),
      zero: !/[1-9]/.test(row.rate),
    };
  }
}

/** Rows by time; rows of the same time keep their order (a stable sort). */
function seriesOf(rows: RateRow[], constant: RateRow | undefined): Series {
  rows.sort((a, b) => a.time! - b.time!);
  return { rows, times: rows.map((r) => r.time!), constant };
}

function keyOf(chain: string, token: string, currency: string): string {
  return `${chain}\u0000${token}\u0000${currency}`;
}
