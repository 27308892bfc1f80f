import Big from 'big.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SubscriptionFacts } from '../../src/emulator/index.js';
import { changeInstants, naiveLedger, naiveMetrics, naiveMovements, naiveMrr, naiveValue, type NaiveRate, type Records } from '../oracle/subscriptions.js';
import { payrec, payrecInProcess as here, suiteEmulators, tempDir } from './helpers.js';
import { syncLifecycles } from './lifecycle-mirror.js';

// MRR in one currency (DESIGN.md "Values in one currency", ChartMogul's rule), run as a
// user would: `payrec metrics --currency USD --rates FILE` and `payrec subscriptions
// --currency USD` over a mirror of the emulator's year of lifecycles. The rates file is
// written here: a row per token and day, and rows planted at cycle starts (at the very
// second, and one second before and after) and between them, so a subscription's value
// must move when, and only when, a later cycle's billing counts. Expected figures come
// from the brute-force oracle (test/oracle/subscriptions.ts), valuing each MRR in big.js
// at the row this test knows to be in force, never from payrec.
// Months against quarters, the movement list and the refusals run payrec inside this
// process (`here`, payrecInProcess; issue 48, the suite's time); the rows across and by
// token, exit 11 and the ledger run the built binary.

const s = suiteEmulators();
const DAY = 86_400;
const GRACE = 30 * DAY;
const YEAR = Array.from({ length: 12 }, (_, i) => ({ from: Date.UTC(2025, i, 1) / 1000, to: Date.UTC(2025, i + 1, 1) / 1000 }));
let db: string;
let file: string;
let facts: SubscriptionFacts[];
let records: Records;
let now: number;
/** Each token's rows, ascending: time, rate, the file's line. */
const rows = new Map<string, { time: number; rate: string; line: number }[]>();

/** The row in force at t (the latest at or before it), as the oracle takes a rate. */
function rateAt(token: string, t: number): NaiveRate & { line: number } {
  const list = rows.get(token)!;
  let pick = list[0];
  for (const r of list) if (r.time <= t) pick = r;
  expect(pick.time <= t && t - pick.time <= 25 * 3600, `${token} at ${t}`).toBe(true);
  return { times: pick.rate, over: '1', num: 0n, den: 1n, line: pick.line };
}

beforeAll(async () => {
  ({ db, facts, records, now } = await syncLifecycles(s.emu));
  // Daily rows from a month before the data to its end, and planted rows around cycle starts.
  const tokens = [...new Set(facts.map((f) => f.token))].sort();
  const first = Math.min(...records.billings.map((b) => b.cycleStart)) - 40 * DAY;
  const cycles = [...new Set(records.billings.map((b) => b.cycleStart))].sort((a, b) => a - b);
  let k = 0;
  const price = (token: string) => `${tokens.indexOf(token) + 1}.${String(((k += 7_919) % 99_991) + 10_000).padStart(6, '0')}`;
  for (const token of tokens) {
    const list: { time: number; rate: string; line: number }[] = [];
    for (let t = first - (first % DAY); t <= now; t += DAY) list.push({ time: t, rate: price(token), line: 0 });
    cycles.forEach((c, i) => {
      // A third of the cycle starts get a change at that second, a third one second before, a third one after; and one a few hours later.
      list.push({ time: c + ((i % 3) - 1), rate: price(token), line: 0 }, { time: c + 5 * 3600 + i, rate: price(token), line: 0 });
    });
    // One row per second (a planted row at a midnight replaces that day's).
    const unique = [...new Map(list.map((r) => [r.time, r])).values()].sort((a, b) => a.time - b.time);
    rows.set(token, unique);
  }
  const lines = ['time,chain,token,currency,rate,source'];
  for (const [token, list] of rows) {
    for (const r of list) {
      r.line = lines.length + 1;
      lines.push(`${new Date(r.time * 1000).toISOString().replace('.000Z', 'Z')},bsc,${token},USD,${r.rate},planted by the test`);
    }
  }
  file = join(tempDir(), 'rates.csv');
  writeFileSync(file, `${lines.join('\n')}\n`);
});

type Row = Record<string, string & number>;
const strip = ({ currency: _c, ...row }: Row) => row;

describe('payrec metrics --currency USD', () => {
  it('a year of lifecycles: every row across tokens, and by token, is the oracle\'s; mrr_end = mrr_start + new + reactivated − churned + fx in every row', async () => {
    const args = ['metrics', '--db', db, '--period', '2025', '--at', String(now), '--currency', 'USD', '--rates', file, '-f', 'json', '-q'];
    const [across, byToken] = await Promise.all([payrec(s.emu, args), payrec(s.emu, [...args, '--by', 'token'])]);
    expect(across.exitCode, across.stderr).toBe(0);
    const acrossRows = JSON.parse(across.stdout) as Row[];
    const tokenRows = JSON.parse(byToken.stdout) as Row[];
    const instants = changeInstants(records, GRACE);
    expect(acrossRows.map(strip)).toEqual(naiveMetrics(records, YEAR, now, GRACE, false, instants, { rates: rateAt, across: true }));
    expect(tokenRows.map(strip)).toEqual(naiveMetrics(records, YEAR, now, GRACE, false, instants, { rates: rateAt, across: false }));
    expect(acrossRows.every((r) => r.currency === 'USD' && r.token === '*')).toBe(true);
    let fx = 0;
    for (const row of [...acrossRows, ...tokenRows]) {
      expect(new Big(row.mrr_start).plus(row.mrr_new).plus(row.mrr_reactivated).minus(row.mrr_churned).plus(row.mrr_fx).eq(row.mrr_end), `${row.token} ${row.from}`).toBe(true);
      if (row.mrr_fx !== '0') fx++;
    }
    expect(fx).toBeGreaterThan(3);
  });

  it('months sum to their quarter in the currency, to the last digit', async () => {
    const args = ['metrics', '--db', db, '--period', '2025', '--at', String(now), '--currency', 'USD', '--rates', file, '-f', 'json', '-q'];
    const [months, quarters] = await Promise.all([here(s.emu, args), here(s.emu, [...args, '--interval', 'quarter'])]);
    const m = JSON.parse(months.stdout) as Row[];
    for (const q of JSON.parse(quarters.stdout) as Row[]) {
      const parts = m.filter((x) => x.from >= q.from && x.to <= q.to);
      expect(parts).toHaveLength(3);
      expect([parts[0].mrr_start, parts[2].mrr_end]).toEqual([q.mrr_start, q.mrr_end]);
      for (const c of ['mrr_new', 'mrr_reactivated', 'mrr_churned', 'mrr_fx', 'mrr_net', 'collected', 'failed_amount', 'recovered_amount']) {
        expect(parts.reduce((n, x) => n.plus(x[c]), new Big(0)).eq(q[c]), c).toBe(true);
      }
    }
  });

  it('--movements: each event valued as the oracle values it, with the file\'s line as its source; the values sum to the rows', async () => {
    const args = ['metrics', '--db', db, '--period', '2025', '--at', String(now), '--currency', 'USD', '--rates', file, '-f', 'json', '-q'];
    const [listed, totals] = await Promise.all([here(s.emu, [...args, '--movements']), here(s.emu, args)]);
    expect(listed.exitCode, listed.stderr).toBe(0);
    const list = JSON.parse(listed.stdout) as Row[];
    const expected = naiveMovements(records, YEAR, now, GRACE, changeInstants(records, GRACE), { rates: rateAt, across: true });
    expect(list.map(({ rate: _r, rateTime: _t, rateSource: _s, ...m }) => m)).toEqual(expected.map(({ rate: _r, ...m }) => m));
    list.forEach((m, i) => {
      const rate = expected[i].rate as NaiveRate & { line: number };
      expect(new Big(m.rate).eq(rate.times)).toBe(true);
      expect(m.rateSource).toBe(`file:rates.csv:${rate.line}`);
    });
    expect(new Set(list.map((m) => m.kind))).toEqual(new Set(['new', 'reactivated', 'churned', 'fx']));
    for (const row of JSON.parse(totals.stdout) as Row[]) {
      const own = list.filter((m) => m.from === row.from);
      expect(own.reduce((n, m) => n.plus(m.value), new Big(0)).eq(row.mrr_net)).toBe(true);
      expect(own.filter((m) => m.kind === 'fx').reduce((n, m) => n.plus(m.value), new Big(0)).eq(row.mrr_fx)).toBe(true);
    }
  });

  it('a rate missing is exit 11 naming it, with nothing printed; --rates-missing blank prints and says what it left out', async () => {
    const partial = join(tempDir(), 'partial.csv');
    // The file without its 8PAY rows: 8PAY has no Chainlink feed either.
    const text = (await import('node:fs')).readFileSync(file, 'utf8').split('\n').filter((l) => !l.includes(',8PAY,')).join('\n');
    writeFileSync(partial, text);
    const args = ['metrics', '--db', db, '--period', '2025-Q3', '--currency', 'USD', '--rates', partial, '-f', 'json'];
    const [fail, blank] = await Promise.all([payrec(s.emu, args), payrec(s.emu, [...args, '--rates-missing', 'blank'])]);
    expect(fail.exitCode).toBe(11);
    expect(fail.stdout).toBe('');
    expect(fail.stderr).toMatch(/bsc 8PAY → USD: [\d,]+ records? from/);
    expect(blank.exitCode, blank.stderr).toBe(0);
    expect(blank.stderr).toMatch(/had no usable rate: printed with an empty value/);
    for (const row of JSON.parse(blank.stdout) as Row[]) expect(new Big(row.mrr_start).plus(row.mrr_new).plus(row.mrr_reactivated).minus(row.mrr_churned).plus(row.mrr_fx).eq(row.mrr_end)).toBe(true);
  });

  it('bad input is exit 2 before the mirror is read: an unknown currency, --rates without --currency, a malformed rates file', async () => {
    const none = '/nonexistent-folder/none.duckdb';
    const bad = join(tempDir(), 'bad.csv');
    writeFileSync(bad, 'time,chain,token,currency,rate,source\n2025-01-01,bsc,BNB,USD,1e3,x\n');
    for (const [extra, message] of [
      [['--currency', 'XYZ'], 'XYZ is not an ISO 4217 currency'],
      [['--rates', file], '--rates goes with --currency'],
      [['--currency', 'USD', '--rates', bad], 'bad.csv:2'],
      [['--currency', 'USD', '--by', 'coin'], 'expected token or plan'],
    ] as const) {
      for (const command of ['metrics', 'subscriptions']) {
        if (command === 'subscriptions' && (extra as readonly string[]).includes('--by')) continue;
        const r = await here(s.quiet, [command, '--db', none, ...extra]);
        expect(r.exitCode, `${command} ${extra.join(' ')}`).toBe(2);
        expect(r.stderr).toContain(message);
      }
    }
    expect(s.quiet.requests).toEqual([]);
  });
});

describe('payrec subscriptions --currency USD', () => {
  it('each MRR valued at the row in force at the cycleStart of its cycle in force (the latest paid cycle seen), with that row as its evidence', async () => {
    const at = now - 40 * DAY;
    const r = await payrec(s.emu, ['subscriptions', '--db', db, '--at', String(at), '--currency', 'USD', '--rates', file, '-f', 'json', '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    const ledger = JSON.parse(r.stdout) as Row[];
    const naive = naiveLedger(records.billings, records.cancellations, at, GRACE);
    expect(ledger.map(({ value: _v, rate: _r, rateTime: _t, rateSource: _s, ...row }) => row)).toEqual(naive);
    for (const row of ledger) {
      const mine = records.billings.filter((b) => b.subscriptionId === row.subscriptionId && b.timestamp < at && b.success === 1 && b.transactionStatus === 'confirmed');
      const cycle = Math.max(...mine.map((b) => b.cycleStart));
      const subscribe = mine.reduce((a, b) => (b.timestamp < a.timestamp ? b : a));
      const rate = rateAt(row.token, cycle);
      expect(row.value).toBe(naiveValue(naiveMrr(subscribe), rate).toFixed());
      expect(new Big(row.rate).eq(rate.times)).toBe(true);
      expect([row.rateTime, row.rateSource]).toEqual([rows.get(row.token)!.find((x) => x.line === rate.line)!.time, `file:rates.csv:${rate.line}`]);
    }
  });
});
