import { EXIT, PayrecError } from '../core/runtime/errors.js';
import type { RateQuery } from './rate.js';
import { isoTime } from './selection.js';
import { grouped } from '../core/output/grouped.js';

// Missing is never zero (DESIGN.md): a record with no usable rate stops the report with
// exit 11, naming each (chain, token, currency) with the first and last time needed and a
// count, and printing rates-file lines with an empty rate to paste and fill: one per UTC
// day, since a day's row serves that whole day.

export class NoRateError extends PayrecError {
  /** `what` is what had no rate; `outcome` what the command did not do for it (a list's: no value was printed). */
  constructor(
    private readonly what: string,
    hint: string,
    outcome = 'no value was printed',
  ) {
    super(`${what}: ${outcome}`, EXIT.noRate, hint);
  }

  /** The same error, saying what the command left undone instead (a close: no file was written). */
  instead(outcome: string): NoRateError {
    return new NoRateError(this.what, this.hint ?? '', outcome);
  }
}

interface Gap {
  chain: string;
  token: string;
  currency: string;
  first: number;
  last: number;
  count: number;
  why: string;
  days: Set<number>;
}

/** Most lines to fill printed per pair: a year of days. */
const MAX_LINES = 366;

/** The records no rate could be given for, by (chain, token, currency). */
export class MissingRates {
  private readonly gaps = new Map<string, Gap>();
  count = 0;

  add(q: RateQuery, why: string): void {
    this.count++;
    const key = `${q.chain}\u0000${q.token}\u0000${q.currency}`;
    let g = this.gaps.get(key);
    if (!g) this.gaps.set(key, (g = { chain: q.chain, token: q.token, currency: q.currency, first: q.at, last: q.at, count: 0, why, days: new Set() }));
    g.count++;
    if (q.at < g.first) g.first = q.at;
    if (q.at > g.last) g.last = q.at;
    if (g.days.size < MAX_LINES) g.days.add(Math.floor(q.at / 86_400));
  }

  /** Each pair on a line: what is missing, when, how many, and why. */
  lines(): string[] {
    return [...this.gaps.values()].map(
      (g) => `${g.chain} ${g.token} → ${g.currency}: ${grouped(g.count)} record${g.count === 1 ? '' : 's'} from ${isoTime(g.first)} to ${isoTime(g.last)} (${g.why})`,
    );
  }

  /** Rates-file lines with an empty rate and source, one per UTC day needed, to paste and fill. */
  toFill(): string[] {
    const out = ['time,chain,token,currency,rate,source'];
    for (const g of this.gaps.values()) {
      for (const day of [...g.days].sort((a, b) => a - b)) out.push(`${isoTime(day * 86_400).slice(0, 10)},${g.chain},${csvCell(g.token)},${g.currency},,`);
    }
    return out;
  }

  /** What stderr shows before the error: each pair, then the lines to fill. */
  report(): string[] {
    return ['no usable rate for:', ...this.lines().map((l) => `  ${l}`), 'lines to fill in a rates file (--rates FILE):', ...this.toFill()];
  }

  error(): NoRateError {
    const n = grouped(this.count);
    return new NoRateError(
      `no usable rate for ${n} figure${this.count === 1 ? '' : 's'} (each pair, and rates-file lines to fill, above)`,
      'fill the lines above and give --rates FILE, or --rates-missing blank for a partial report that says what it leaves out',
    );
  }
}

/** A token is the server's text: quoted when CSV needs it. */
function csvCell(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
