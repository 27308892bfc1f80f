import Big from 'big.js';

// --chart day|week|month: a bar chart of records (or of one token's amount) per
// period, in UTC, readable in 80 columns. Bars use block characters on a terminal
// with colour and plain '#' otherwise, so logs and pipes stay ASCII.

export type Period = 'day' | 'week' | 'month';

export function periodStart(ts: number, period: Period): string {
  const d = new Date(ts * 1000);
  if (period === 'month') return d.toISOString().slice(0, 7);
  if (period === 'week') {
    // ISO weeks start on Monday.
    const day = (d.getUTCDay() + 6) % 7;
    d.setUTCDate(d.getUTCDate() - day);
  }
  return d.toISOString().slice(0, 10);
}

export class ChartBuilder {
  private buckets = new Map<string, Big>();

  constructor(
    private readonly period: Period,
    /** Sum the amount of this token instead of counting records. */
    private readonly token?: string,
  ) {}

  add(r: Record<string, unknown>): void {
    if (typeof r.timestamp !== 'number') return;
    let value = new Big(1);
    if (this.token !== undefined) {
      if (r.token !== this.token || typeof r.amount !== 'string' || !/^-?\d+(\.\d+)?$/.test(r.amount)) return;
      value = new Big(r.amount);
    }
    const key = periodStart(r.timestamp, this.period);
    this.buckets.set(key, (this.buckets.get(key) ?? new Big(0)).plus(value));
  }

  render(width: number, fancy: boolean): string {
    if (this.buckets.size === 0) return `no records to chart\n`;
    const rows = [...this.buckets].sort(([a], [b]) => a.localeCompare(b));
    const labels = rows.map(([, v]) => v.toFixed());
    const labelWidth = Math.max(...labels.map((l) => l.length));
    const keyWidth = rows[0][0].length;
    const room = Math.max(10, Math.min(width, 120) - keyWidth - labelWidth - 3);
    const max = rows.reduce((m, [, v]) => (v.gt(m) ? v : m), new Big(0));
    const unit = this.token ? `${this.token} amount` : 'records';
    const lines = [`${unit} per ${this.period} (UTC)`];
    rows.forEach(([key, v], i) => {
      const n = max.eq(0) ? 0 : Math.round(Number(v.div(max).times(room).toFixed(4)));
      const bar = (fancy ? '█' : '#').repeat(Math.max(n, v.gt(0) ? 1 : 0));
      lines.push(`${key} ${bar.padEnd(room)} ${labels[i].padStart(labelWidth)}`);
    });
    return lines.join('\n') + '\n';
  }
}
