import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator, Fixtures } from '../../src/emulator/index.js';
import { apiRecords, emulator, payrec, payrecInProcess } from './helpers.js';

// --summary and --chart, checked against totals and buckets computed here, independently
// (BigInt fixed-point sums, UTC dates by hand), over the emulator's records read here
// page by page with plain HTTP: never over what payrec itself printed.

// The first summary, the charts by period (ASCII in 80 columns) and the first refusal run the
// built binary in a process; the other answers, read from the emulator over HTTP, run in this
// worker (payrecInProcess, issue 48): no process boundary is under test there.

let emu: Emulator;
let fx: Fixtures;

beforeAll(async () => {
  emu = await emulator({ records: 400 });
  fx = emu.fixtures('bsc');
});
afterAll(() => emu.close());

type Rec = Record<string, any>;

const truth = (path: string, query: Record<string, string | number> = {}) => apiRecords(emu, path, query);

// ---------------------------------------------------------------------------
// Exact decimal sums with BigInt, independent of the big.js code under test.

const FRACTION = 30;
function units(decimal: string): bigint {
  const negative = decimal.startsWith('-');
  const [whole, fraction = ''] = decimal.replace('-', '').split('.');
  expect(fraction.length).toBeLessThanOrEqual(FRACTION);
  const n = BigInt(whole) * 10n ** BigInt(FRACTION) + BigInt(fraction.padEnd(FRACTION, '0'));
  return negative ? -n : n;
}
function decimal(n: bigint): string {
  const sign = n < 0n ? '-' : '';
  const abs = n < 0n ? -n : n;
  const scale = 10n ** BigInt(FRACTION);
  const fraction = (abs % scale).toString().padStart(FRACTION, '0').replace(/0+$/, '');
  return `${sign}${abs / scale}${fraction ? '.' + fraction : ''}`;
}

/**
 * The status a record is totalled under (DESIGN.md): a billing failed when success is not 1
 * or its status is failed; a wallet-to-wallet payment, with statuses per receiver only, by
 * its worst receiver; anything else by its transactionStatus.
 */
function statusOf(r: Rec): string {
  if (r.success !== undefined && r.success !== 1) return 'failed';
  if (r.transactionStatus !== undefined) return r.transactionStatus;
  const statuses = (r.receivers as Rec[]).map((x) => x.transactionStatus);
  return statuses.includes('failed') ? 'failed' : statuses.includes('pending') ? 'pending' : 'confirmed';
}

/** token|status → field → total (and count), the way a finance user would add them up in a spreadsheet of exact numbers. */
function expectedTotals(recs: Rec[]): Record<string, Record<string, string>> {
  const sums = new Map<string, Map<string, bigint>>();
  const counts = new Map<string, number>();
  const group = (token: string, status: string) => `${token}|${status}`;
  const add = (key: string, field: string, value: string) => {
    const fields = sums.get(key) ?? sums.set(key, new Map()).get(key)!;
    fields.set(field, (fields.get(field) ?? 0n) + units(value));
  };
  for (const r of recs) {
    const token = r.token ?? r.inputToken;
    const status = statusOf(r);
    const key = group(token, status);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    sums.get(key) ?? sums.set(key, new Map());
    for (const f of ['amount', 'fee', 'serviceFee']) if (r[f] !== undefined) add(key, f, r[f]);
    for (const x of r.receivers ?? []) {
      add(key, 'receivers.amount', x.amount);
      add(key, 'receivers.fee', x.fee);
    }
    for (const s of r.swaps ?? []) {
      add(key, 'swaps.inputAmount', s.inputAmount);
      add(group(s.outputToken, status), 'swaps.outputAmount', s.outputAmount);
    }
  }
  const out: Record<string, Record<string, string>> = {};
  for (const [key, fields] of sums) {
    out[key] = { count: String(counts.get(key) ?? 0), ...Object.fromEntries([...fields].filter(([, v]) => v !== 0n).map(([f, v]) => [f, decimal(v)])) };
  }
  return out;
}

/** The summary's rows in the shape of expectedTotals (fields that total zero left out on both sides). */
function totalsOf(rows: Rec[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const { token, status, count, ...fields } of rows) {
    out[`${token}|${status}`] = { count: String(count), ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== '0')) };
  }
  return out;
}

function countBy(recs: Rec[], key: (r: Rec) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of recs) out[key(r)] = (out[key(r)] ?? 0) + 1;
  return out;
}

describe('--summary', () => {
  test.concurrent('one-time transfers: exact totals over 18-decimal and 14-digit amounts, statuses, first/last', async () => {
    const recs = await truth('/one-time/transfers');
    const r = await payrec(emu, ['one-time', 'transfers', '--all', '--summary', '-f', 'json']);
    expect(r.exitCode).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.count).toBe(recs.length);
    expect(totalsOf(s.totals)).toEqual(expectedTotals(recs));
    // The data holds what floats get wrong: 18 decimals, and more significant digits than a double holds.
    expect(recs.some((t) => /\.\d{18}$/.test(t.amount))).toBe(true);
    expect(recs.some((t) => t.amount.replace('.', '').replace(/^0+/, '').length > 17)).toBe(true);
    expect(s.statuses).toEqual(countBy(recs, (t) => t.transactionStatus));
    // Settled totals apart from pending and failed ones: one row per token and status.
    expect(Object.keys(s.totals[0])).toEqual(['token', 'status', 'count', 'amount', 'fee']);
    const times = recs.map((t) => t.timestamp);
    expect(s.firstTimestamp).toBe(Math.min(...times));
    expect(s.lastTimestamp).toBe(Math.max(...times));
  });

  test.concurrent('without --all or --limit it summarises the whole window, not the first 100', async () => {
    const [all, implied] = await Promise.all([
      payrecInProcess(emu, ['one-time', 'transfers', '--all', '--summary', '-f', 'json']),
      payrecInProcess(emu, ['one-time', 'transfers', '--summary', '-f', 'json']),
    ]);
    expect(JSON.parse(implied.stdout).count).toBe(400);
    expect(implied.stdout).toBe(all.stdout);
    const cut = await payrecInProcess(emu, ['one-time', 'transfers', '--summary', '--limit', '30', '-f', 'json']);
    expect(JSON.parse(cut.stdout).count).toBe(30);
  });

  test.concurrent('billings: failed = success is not 1 or status failed', async () => {
    const args = ['fixed-recurring', 'billings', '--plan-id', fx.plans['fixed-recurring'][0]];
    const recs = await truth(`/fixed-recurring/plans/${fx.plans['fixed-recurring'][0]}/billings`);
    const s = JSON.parse((await payrecInProcess(emu, [...args, '--summary', '-f', 'json'])).stdout);
    expect(recs.length).toBeGreaterThan(0);
    expect(s.count).toBe(recs.length);
    expect(s.statuses).toEqual(countBy(recs, statusOf));
    expect(s.statuses.failed).toBe(recs.filter((b) => b.success !== 1 || b.transactionStatus === 'failed').length);
    expect(totalsOf(s.totals)).toEqual(expectedTotals(recs));
  });

  test.concurrent('cancellations: forced', async () => {
    const args = ['variable-recurring', 'cancellations', '--plan-id', fx.plans['variable-recurring'][0]];
    const recs = await truth(`/variable-recurring/plans/${fx.plans['variable-recurring'][0]}/cancellations`);
    const s = JSON.parse((await payrecInProcess(emu, [...args, '--summary', '-f', 'json'])).stdout);
    expect(recs.length).toBeGreaterThan(0);
    expect(s.forced).toBe(recs.filter((c) => c.forced).length);
    expect(s.statuses).toEqual(countBy(recs, (c) => c.transactionStatus));
  });

  test.concurrent('wallet-to-wallet payments: serviceFee and receivers amounts and fees', async () => {
    const recs = await truth('/wallet-to-wallet/payments');
    const s = JSON.parse((await payrecInProcess(emu, ['wallet-to-wallet', 'payments', 'list', '--summary', '-f', 'json'])).stdout);
    expect(Object.keys(s.totals[0])).toEqual(['token', 'status', 'count', 'serviceFee', 'receivers.amount', 'receivers.fee']);
    expect(totalsOf(s.totals)).toEqual(expectedTotals(recs));
  });

  test.concurrent('dollar-cost-average executions: swaps in per input token, swaps out per output token', async () => {
    const recs = await truth('/dollar-cost-average/executions');
    const s = JSON.parse((await payrecInProcess(emu, ['dollar-cost-average', 'executions', '--summary', '-f', 'json'])).stdout);
    expect(s.totals.some((f: Rec) => f['swaps.inputAmount'] !== '0')).toBe(true);
    expect(totalsOf(s.totals)).toEqual(expectedTotals(recs));
  });

  test.concurrent('piped table: field<TAB>value lines with the same numbers', async () => {
    const [tsv, json] = await Promise.all([
      payrecInProcess(emu, ['one-time', 'transfers', '--summary']),
      payrecInProcess(emu, ['one-time', 'transfers', '--summary', '-f', 'json']),
    ]);
    expect(tsv.exitCode).toBe(0);
    const s = JSON.parse(json.stdout);
    const [overview, totals] = tsv.stdout.trimEnd().split('\n\n');
    const rows = Object.fromEntries(overview.split('\n').map((l) => l.split('\t')));
    expect(rows.count).toBe(String(s.count));
    expect(rows['first.timestamp']).toBe(String(s.firstTimestamp));
    for (const [status, n] of Object.entries(s.statuses)) expect(rows[`status.${status}`]).toBe(String(n));
    const [title, header, ...lines] = totals.split('\n');
    expect(title).toBe('exact totals per token and status:');
    expect(header).toBe('token\tstatus\tcount\tamount\tfee');
    expect(lines.map((l) => l.split('\t'))).toEqual(s.totals.map((t: Rec) => [t.token, t.status, String(t.count), t.amount, t.fee]));
  });

  test.concurrent('-f csv of a window without records: the fixed header, no rows', async () => {
    const r = await payrecInProcess(emu, ['one-time', 'transfers', '--from', '2020-01-01', '--to', '2020-01-02', '--summary', '-f', 'csv']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('token,status,count,amount,fee\r\n');
  });

  test('--summary with --chart is a usage error, nothing sent', async () => {
    const own = await emulator();
    const r = await payrec(own, ['one-time', 'transfers', '--summary', '--chart', 'day']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/only one of --summary, --chart/);
    expect(own.requests).toEqual([]);
    await own.close();
  });
});

// ---------------------------------------------------------------------------
// Charts.

const DAY = 86_400;
/** Period key computed by hand: days since the epoch (a Thursday), Monday-based weeks. */
function periodOf(ts: number, period: string): string {
  const day = Math.floor(ts / DAY);
  if (period === 'day') return new Date(day * DAY * 1000).toISOString().slice(0, 10);
  if (period === 'week') return new Date((day - ((day + 3) % 7)) * DAY * 1000).toISOString().slice(0, 10);
  return new Date(ts * 1000).toISOString().slice(0, 7);
}

function parseChart(stdout: string): { title: string; rows: [string, string][] } {
  const [title, ...lines] = stdout.trimEnd().split('\n');
  return {
    title,
    rows: lines.map((l) => {
      const m = /^(\d{4}-\d{2}(?:-\d{2})?) [# ]+ (\S+)$/.exec(l);
      expect(m, `chart line "${l}"`).not.toBeNull();
      return [m![1], m![2]];
    }),
  };
}

describe('--chart', () => {
  const window = ['--from', '2025-06-01', '--to', '2025-12-31T23:59:59Z'];

  for (const period of ['day', 'week', 'month']) {
    test.concurrent(`${period}: counts per period equal the records, every period in between shown, ASCII in 80 columns`, async () => {
      const [recs, r] = await Promise.all([
        truth('/one-time/transfers', { from: Date.UTC(2025, 5, 1) / 1000, to: Date.UTC(2025, 11, 31, 23, 59, 59) / 1000 }),
        payrec(emu, ['one-time', 'transfers', ...window, '--chart', period]),
      ]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/^[\x20-\x7e\n]+$/);
      for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
      const { title, rows } = parseChart(r.stdout);
      expect(title).toBe(`records per ${period} (UTC)`);
      const expected = countBy(recs, (t) => periodOf(t.timestamp, period));
      const got = Object.fromEntries(rows.map(([k, v]) => [k, Number(v)]));
      expect(Object.fromEntries(Object.entries(got).filter(([, n]) => n > 0))).toEqual(expected);
      // No holes: consecutive keys, first and last with records.
      const keys = rows.map(([k]) => k);
      expect(keys).toEqual([...keys].sort());
      expect(new Set(keys).size).toBe(keys.length);
      const spacing = period === 'day' ? 1 : period === 'week' ? 7 : undefined;
      if (spacing) {
        for (let i = 1; i < keys.length; i++) expect((Date.parse(keys[i]) - Date.parse(keys[i - 1])) / (DAY * 1000)).toBe(spacing);
      } else {
        expect(keys.length).toBe(new Set(recs.map((t) => periodOf(t.timestamp, 'month'))).size);
      }
      expect(got[keys[0]]).toBeGreaterThan(0);
      expect(got[keys.at(-1)!]).toBeGreaterThan(0);
    });
  }

  test.concurrent('--token charts that token\'s amount per month, bars proportional', async () => {
    const [recs, r] = await Promise.all([
      truth('/one-time/transfers').then((all) => all.filter((t) => t.token === 'USDT')),
      payrecInProcess(emu, ['one-time', 'transfers', '--token', 'USDT', '--chart', 'month']),
    ]);
    expect(r.exitCode).toBe(0);
    const { title, rows } = parseChart(r.stdout);
    expect(title).toBe('USDT amount per month (UTC)');
    const sums = new Map<string, bigint>();
    for (const t of recs) sums.set(periodOf(t.timestamp, 'month'), (sums.get(periodOf(t.timestamp, 'month')) ?? 0n) + units(t.amount));
    expect(rows.map(([k]) => k).filter((k) => sums.has(k))).toEqual([...sums.keys()].sort());
    for (const [key, label] of rows) {
      // Labels are exact, or rounded (two decimals, or exponent) when the exact one would not fit.
      const exact = Number(decimal(sums.get(key) ?? 0n));
      expect(Math.abs(Number(label) - exact)).toBeLessThanOrEqual(Math.max(0.005, exact * 1e-3));
    }
    for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  test.concurrent('-f csv and -f jsonl print the series as rows: exact amounts, every month between, empty ones 0', async () => {
    const [recs, csv, jsonl] = await Promise.all([
      truth('/one-time/transfers').then((all) => all.filter((t) => t.token === 'USDT')),
      payrecInProcess(emu, ['one-time', 'transfers', '--token', 'USDT', '--chart', 'month', '-f', 'csv']),
      payrecInProcess(emu, ['one-time', 'transfers', '--chart', 'month', '-f', 'jsonl']),
    ]);
    expect([csv.exitCode, jsonl.exitCode]).toEqual([0, 0]);
    const sums = new Map<string, bigint>();
    for (const t of recs) sums.set(periodOf(t.timestamp, 'month'), (sums.get(periodOf(t.timestamp, 'month')) ?? 0n) + units(t.amount));
    const [header, ...lines] = csv.stdout.trimEnd().split('\r\n');
    expect(header).toBe('period,token,amount');
    const rows = lines.map((l) => l.split(','));
    expect(rows.filter(([k]) => sums.has(k)).map(([k, token, amount]) => [k, token, amount])).toEqual([...sums.keys()].sort().map((k) => [k, 'USDT', decimal(sums.get(k)!)]));
    expect(rows.filter(([k]) => !sums.has(k)).every(([, , amount]) => amount === '0')).toBe(true);
    const all = await truth('/one-time/transfers');
    const counts = countBy(all, (t) => periodOf(t.timestamp, 'month'));
    const series = jsonl.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { period: string; records: number });
    expect(Object.fromEntries(series.filter((r) => r.records > 0).map((r) => [r.period, r.records]))).toEqual(counts);
  });

  test.concurrent('payments are charted by their receivers\' amounts: each month the exact sum of the USDT receivers', async () => {
    const [payments, r] = await Promise.all([truth('/one-time'), payrecInProcess(emu, ['one-time', 'payments', 'list', '--chart', 'month', '--token', 'USDT', '-f', 'csv'])]);
    expect(r.exitCode).toBe(0);
    const sums = new Map<string, bigint>();
    for (const p of payments.filter((x) => x.token === 'USDT')) {
      const month = periodOf(p.timestamp, 'month');
      for (const x of p.receivers) sums.set(month, (sums.get(month) ?? 0n) + units(x.amount));
    }
    expect(sums.size).toBeGreaterThan(1);
    const [header, ...lines] = r.stdout.trimEnd().split('\r\n');
    expect(header).toBe('period,token,amount');
    const rows = lines.map((l) => l.split(','));
    expect(rows.filter(([k]) => sums.has(k))).toEqual([...sums.keys()].sort().map((k) => [k, 'USDT', decimal(sums.get(k)!)]));
    expect(rows.filter(([k]) => !sums.has(k)).every(([, , amount]) => amount === '0')).toBe(true);
  });

  test('a bad period is exit 2 naming the choices, nothing sent', async () => {
    const own = await emulator();
    const r = await payrecInProcess(own, ['one-time', 'transfers', '--chart', 'year']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--chart.*year/);
    expect(r.stderr).toMatch(/day.*week.*month/);
    expect(r.stdout).toBe('');
    expect(own.requests).toEqual([]);
    await own.close();
  });
});
