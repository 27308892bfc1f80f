import Big from 'big.js';
import { amountsOf, describeAmount } from './summary.js';
import { MalformedResponseError } from '../runtime/errors.js';
import { printable } from '../output/sanitize.js';
import { offsetAt } from '../runtime/zone.js';
import { grouped } from '../output/grouped.js';

// --chart day|week|month: a bar chart of records (or of one token's amount) per
// period, in --tz (UTC by default), readable in 80 columns. Bars use block characters on a terminal
// with colour and plain '#' otherwise, so logs and pipes stay ASCII.

export type Period = 'day' | 'week' | 'month';

/** What a record moves in a token: a transfer's amount, a payment's receivers, an execution's swaps in. */
const MOVED = new Set(['amount', 'receivers.amount', 'swaps.inputAmount']);
/** Labels longer than this switch to exponent notation, so bars keep their room. */
const LABEL_MAX = 14;
/**
 * The most bars a chart draws: about 274 years of days. One record stamped in the year
 * 9999 among this year's made --chart day walk 2.9 million days, past every signal, into
 * a 4 GB heap abort; a span that needs more bars is refused before any is made.
 */
const MAX_BARS = 100_000;

/** How many periods from `first` to `last` (keys as periodStart writes them), both included. */
function periodsBetween(first: string, last: string, period: Period): number {
  if (period === 'month') {
    const [y1, m1] = first.split('-').map(Number);
    const [y2, m2] = last.split('-').map(Number);
    return (y2 - y1) * 12 + (m2 - m1) + 1;
  }
  const days = (Date.parse(`${last}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / 86_400_000;
  return Math.floor(days / (period === 'week' ? 7 : 1)) + 1;
}

/** The key of the period holding `ts` in `zone`: its first day (`2026-10-31`) or month (`2026-10`). */
export function periodStart(ts: number, period: Period, zone: string): string {
  // The local wall time, read with UTC getters: calendar arithmetic without a zone.
  const d = new Date((ts + offsetAt(ts, zone)) * 1000);
  if (period === 'month') return d.toISOString().slice(0, 7);
  if (period === 'week') {
    // ISO weeks start on Monday.
    const day = (d.getUTCDay() + 6) % 7;
    d.setUTCDate(d.getUTCDate() - day);
  }
  return d.toISOString().slice(0, 10);
}

/** The period after `key` (as periodStart writes it). */
function nextPeriod(key: string, period: Period): string {
  if (period === 'month') {
    const [y, m] = key.split('-').map(Number);
    return new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 7);
  }
  const d = new Date(`${key}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + (period === 'week' ? 7 : 1));
  return d.toISOString().slice(0, 10);
}

/** The bars' numbers: exact when they fit, else all to two decimals (the exact totals are --summary's). */
function labels(values: Big[]): string[] {
  const exact = values.map((v) => v.toFixed());
  if (exact.every((l) => l.length <= LABEL_MAX)) return exact;
  return values.map((v) => {
    const cents = v.round(2).toFixed(2);
    return cents.length <= LABEL_MAX ? cents : v.toExponential(3);
  });
}

export class ChartBuilder {
  private buckets = new Map<string, Big>();

  constructor(
    private readonly period: Period,
    /** Sum the amount of this token instead of counting records. */
    private readonly token: string | undefined,
    private readonly zone: string,
    /** The endpoint's amount fields (amountFields): one missing from a record fails the chart rather than shrinking a bar. */
    private readonly required: readonly string[] = [],
  ) {}

  add(r: Record<string, unknown>): void {
    // Never a bar that quietly left a record out: one without a time has no period.
    if (typeof r.timestamp !== 'number' || !Number.isFinite(r.timestamp)) {
      throw new MalformedResponseError(`cannot chart: a record has no timestamp (${printable(JSON.stringify(r.timestamp) ?? 'missing')})`);
    }
    let value = new Big(1);
    if (this.token !== undefined) {
      value = new Big(0);
      let moved = false;
      for (const a of amountsOf(r, this.required)) {
        if (a.token !== this.token || !(MOVED.has(a.field) || a.field === 'receivers' || a.field === 'swaps')) continue;
        // Never a bar that quietly left an amount out.
        if (!a.exact) throw new MalformedResponseError(`cannot chart exactly: a record's ${describeAmount(a)} (not a decimal string)`);
        (value = value.plus(a.value as string)), (moved = true);
      }
      if (!moved) return;
    }
    const key = periodStart(r.timestamp, this.period, this.zone);
    this.buckets.set(key, (this.buckets.get(key) ?? new Big(0)).plus(value));
  }

  /** Every period from the first to the last, empty ones included, so gaps show. */
  private rows(): [string, Big][] {
    const keys = [...this.buckets.keys()].sort();
    const bars = periodsBetween(keys[0], keys.at(-1)!, this.period);
    if (bars > MAX_BARS) {
      throw new MalformedResponseError(
        `cannot chart by ${this.period}: the records run from ${keys[0]} to ${keys.at(-1)}, ${grouped(bars)} bars (at most ${grouped(MAX_BARS)})`,
        'chart by month, or narrow the window (--from, --to, --period)',
      );
    }
    const rows: [string, Big][] = [];
    // Counted, not compared as text: after 9999-12 would come +010000-01, which sorts first.
    let key = keys[0];
    for (let i = 0; i < bars; i++) {
      if (i > 0) key = nextPeriod(key, this.period);
      rows.push([key, this.buckets.get(key) ?? new Big(0)]);
    }
    return rows;
  }

  /** The bars as rows for -f json, jsonl, csv and xlsx: `period` and `records`, or `period`, `token` and the exact `amount`. */
  series(): Record<string, unknown>[] {
    if (this.buckets.size === 0) return [];
    const token = this.token;
    return this.rows().map(([period, v]) => (token === undefined ? { period, records: v.toNumber() } : { period, token, amount: v.toFixed() }));
  }

  /** The series' columns, also when it is empty (a CSV header). */
  columns(): string[] {
    return this.token === undefined ? ['period', 'records'] : ['period', 'token', 'amount'];
  }

  render(width: number, fancy: boolean): string {
    if (this.buckets.size === 0) return `no records to chart\n`;
    const unit = this.token ? `${this.token} amount` : 'records';
    return renderBars(`${unit} per ${this.period} (${this.zone})`, this.rows(), width, fancy);
  }
}

/** Horizontal bars under a title, one line per key, labelled with their values, in at most 120 columns. */
export function renderBars(title: string, rows: readonly [string, Big | string][], width: number, fancy: boolean): string {
  const values = rows.map(([, v]) => new Big(v));
  const texts = labels(values);
  const labelWidth = Math.max(...texts.map((l) => l.length));
  const keyWidth = Math.max(...rows.map(([k]) => k.length));
  const room = Math.max(10, Math.min(width, 120) - keyWidth - labelWidth - 3);
  const max = values.reduce((m, v) => (v.gt(m) ? v : m), new Big(0));
  const lines = [title];
  rows.forEach(([key], i) => {
    const v = values[i];
    const n = max.eq(0) ? 0 : Math.round(Number(v.div(max).times(room).toFixed(4)));
    const bar = (fancy ? '█' : '#').repeat(Math.max(n, v.gt(0) ? 1 : 0));
    lines.push(`${key.padEnd(keyWidth)} ${bar.padEnd(room)} ${texts[i].padStart(labelWidth)}`);
  });
  return lines.join('\n') + '\n';
}
