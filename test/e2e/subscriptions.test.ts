import { DuckDBInstance } from '@duckdb/node-api';
import Big from 'big.js';
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { execa } from 'execa';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { SubscriptionFacts } from '../../src/emulator/index.js';
import { cutAt, naiveLedger, naiveMetrics, recordsOfFacts, type Records } from '../oracle/subscriptions.js';
import { BIN, emulator, payrec, payrecEnv, payrecInProcess as here, program, suiteEmulators, tempDir } from './helpers.js';
import { syncLifecycles } from './lifecycle-mirror.js';

// Three tests at a time: enough to overlap the processes of one file, few enough that a
// loaded machine does not push a test past its timeout.
vi.setConfig({ maxConcurrency: 3 });

// payrec subscriptions and payrec metrics, run as a user would against a mirror of the
// emulator, held against an oracle written here from DESIGN.md's definitions and the
// emulator's subscription facts (its complete billings and cancellations): the states,
// MRR and counts are computed below by scanning every record, not by payrec's engine.
// Every test only reads the mirror synced once below (or a copy, or a file of its own),
// and sends the quiet emulator bad input alone, so the tests of each describe run at once
// (describe.concurrent; issue 48, the suite's time). Answers read from the mirror and
// refusals run payrec inside this process (`here`, payrecInProcess): no process boundary
// is under test there, and a process costs 0.4 to 0.9 s of CPU. Processes (`payrec`)
// stay for what only they show, and for one of each kind of answer: the first sync
// (lifecycle-mirror.ts), the whole ledger, a read of the API, exit 4, 6 and 9 once each,
// one file (-o), --jq (jq-web loads in a process only), a terminal; the later syncs and
// the second of each run in this process.

const s = suiteEmulators();
const DAY = 86_400;
const GRACE = 30 * DAY;
let db: string;
let facts: SubscriptionFacts[];
/** The same records as the brute-force oracle reads them (test/oracle/subscriptions.ts). */
let records: Records;

beforeAll(async () => {
  ({ db, facts, records } = await syncLifecycles(s.emu));
});

// ---- the oracle: DESIGN.md's definitions, record by record ----

const paid = (b: Record<string, unknown>) => b.success === 1 && b.transactionStatus === 'confirmed';
const failed = (b: Record<string, unknown>) => b.success !== 1 || b.transactionStatus === 'failed';

Big.DP = 60;
/** MRR of one cycle's amount: month bands by whole days, else the mean month; half-even to 18 places. */
function mrrOf(amount: string, period: number): string {
  const days = Math.round(period / DAY);
  const bands: [number, number, number][] = [[28, 31, 1], [56, 62, 2], [84, 92, 3], [168, 184, 6], [360, 366, 12]];
  const band = bands.find(([lo, hi]) => days >= lo && days <= hi);
  const exact = band ? new Big(amount).div(band[2]) : new Big(amount).times(2_629_746).div(period);
  return exact.round(18, Big.roundHalfEven).toFixed();
}

interface OracleRow {
  subscriptionId: string;
  planId: string;
  token: string;
  mrr: string;
  started: number;
  paidThrough: number;
  cancelledAt: number | null;
  state: string;
}

/** One subscription as of t (records stamped before t), or undefined when not started. */
function oracle(f: SubscriptionFacts, t: number, grace = GRACE): OracleRow | undefined {
  const seen = f.billings.filter((b) => (b.timestamp as number) < t);
  const paidOnes = seen.filter(paid);
  if (paidOnes.length === 0) return undefined;
  const paidThrough = Math.max(...paidOnes.map((b) => b.cycleEnd as number));
  const first = paidOnes.reduce((a, b) => ((b.timestamp as number) < (a.timestamp as number) ? b : a));
  const c = f.cancellation;
  const cancelled = c !== null && c.transactionStatus === 'confirmed' && (c.timestamp as number) < t;
  const period = (first.cycleEnd as number) - (first.cycleStart as number) + 1;
  // A forced cancellation ends it at once; one by its customer when its paid period ends.
  const ended = cancelled && (c!.forced === true || t > paidThrough);
  const state = ended ? 'cancelled' : cancelled || t <= paidThrough ? 'active' : t <= paidThrough + grace ? 'past_due' : 'lapsed';
  return { subscriptionId: f.subscriptionId, planId: f.planId, token: f.token, mrr: mrrOf(f.amount, period), started: first.timestamp as number, paidThrough, cancelledAt: cancelled ? (c!.timestamp as number) : null, state };
}

const counted = (r: OracleRow | undefined): r is OracleRow => r !== undefined && (r.state === 'active' || r.state === 'past_due');

describe.concurrent('payrec subscriptions', () => {
  it('the ledger at an instant equals the oracle, row for row', async () => {
    const at = s.emu.subscriptions('bsc').now - 40 * DAY;
    const r = await payrec(s.emu, ['subscriptions', '--db', db, '--at', String(at), '-f', 'json']);
    expect(r.exitCode).toBe(0);
    const rows = JSON.parse(r.stdout) as OracleRow[];
    const expected = facts.map((f) => oracle(f, at)).filter((x) => x !== undefined);
    const pick = ({ subscriptionId, planId, token, mrr, started, paidThrough, cancelledAt, state }: OracleRow) => ({ subscriptionId, planId, token, mrr, started, paidThrough, cancelledAt, state });
    const byId = (a: OracleRow, b: OracleRow) => a.subscriptionId.localeCompare(b.subscriptionId);
    expect(rows.map(pick).sort(byId)).toEqual(expected.sort(byId));
    // The data hold every state, so a state never given would show.
    expect(new Set(rows.map((x) => x.state))).toEqual(new Set(['active', 'past_due', 'lapsed', 'cancelled']));
    // started is the emulator's own fact, not only the oracle's reading.
    for (const row of rows) expect(row.started).toBe(facts.find((f) => f.subscriptionId === row.subscriptionId)!.start);
    // Every column (amount, period, lastAttempt, failedAttempts, forced, endsAt, daysPastDue too), in order: the brute-force oracle's ledger.
    expect(rows).toEqual(naiveLedger(records.billings, records.cancellations, at, GRACE));
    for (const column of ['forced', 'lastAttempt', 'failedAttempts', 'daysPastDue']) expect(new Set(rows.map((x) => (x as unknown as Record<string, unknown>)[column])).size, column).toBeGreaterThan(1);
  });

  it('active through cycleEnd inclusive, past due through the grace, lapsed one second later', async () => {
    // A subscription that ends paid and is never cancelled or paid again.
    const f = facts.find((x) => {
      const p = x.billings.filter(paid);
      if (p.length === 0 || x.cancellation !== null) return false;
      const end = Math.max(...p.map((b) => b.cycleEnd as number));
      return end + GRACE + 2 < s.emu.subscriptions('bsc').now;
    })!;
    expect(f).toBeDefined();
    const end = Math.max(...f.billings.filter(paid).map((b) => b.cycleEnd as number));
    const stateAt = async (t: number, grace = '30') => {
      const r = await here(s.emu, ['subscriptions', '--db', db, '--at', String(t), '--grace', grace, '--plan-id', f.planId, '-f', 'json']);
      expect(r.exitCode).toBe(0);
      return (JSON.parse(r.stdout) as OracleRow[]).find((x) => x.subscriptionId === f.subscriptionId)?.state;
    };
    expect(await stateAt(end)).toBe('active');
    expect(await stateAt(end + 1)).toBe('past_due');
    expect(await stateAt(end + GRACE)).toBe('past_due');
    expect(await stateAt(end + GRACE + 1)).toBe('lapsed');
    expect(await stateAt(end + 1, '0')).toBe('lapsed');
  });

  it('--state filters, --count counts, --fail-if-any gates with exit 9', async () => {
    const at = s.emu.subscriptions('bsc').now - 40 * DAY;
    const pastDue = facts.filter((f) => oracle(f, at)?.state === 'past_due').length;
    expect(pastDue).toBeGreaterThan(0);
    const count = await here(s.emu, ['subscriptions', '--db', db, '--at', String(at), '--state', 'past_due', '--count', '-q']);
    expect(count.stdout).toBe(`${pastDue}\n`);
    const gate = await payrec(s.emu, ['subscriptions', '--db', db, '--at', String(at), '--state', 'past_due', '--fail-if-any', '-f', 'jsonl', '-q']);
    expect(gate.exitCode).toBe(9);
    expect(gate.stdout.trim().split('\n')).toHaveLength(pastDue);
    expect(gate.stderr).toMatch(new RegExp(`${pastDue} subscriptions? matched \\(--fail-if-any\\)`));
  });
});

describe.concurrent('payrec subscriptions SUBSCRIPTION_ID', () => {
  it('shows one subscription whole from the API: every attempt in order with its outcome, the state and the cancellation', async () => {
    const at = s.emu.subscriptions('bsc').now;
    const f = facts.find((x) => x.cancellation !== null && x.cancellation.transactionStatus === 'confirmed' && x.billings.some(failed) && x.billings.some(paid))!;
    expect(f).toBeDefined();
    const r = await payrec(s.emu, ['subscriptions', f.subscriptionId, '--at', String(at), '-f', 'json']);
    expect(r.exitCode).toBe(0);
    const shown = JSON.parse(r.stdout) as { state: string; cancelledAt: number; attempts: { transactionHash: string; outcome: string; cycleStart: number }[]; cancellation: { transactionHash: string } };
    expect(shown.state).toBe(oracle(f, at)!.state);
    expect(shown.cancelledAt).toBe(f.cancelledAt);
    expect(shown.cancellation.transactionHash).toBe(f.cancellation!.transactionHash);
    const expected = f.billings.filter((b) => (b.timestamp as number) < at);
    expect(shown.attempts.map((a) => a.transactionHash)).toEqual(expected.map((b) => b.transactionHash));
    expect(shown.attempts.map((a) => a.outcome)).toEqual(expected.map((b) => (failed(b) ? 'failed' : paid(b) ? 'paid' : 'pending')));
  });

  it('an id with no billing and no cancellation is exit 4; mirror flags are refused (exit 2, nothing sent)', async () => {
    const missing = await payrec(s.emu, ['subscriptions', `0x${'ab'.repeat(32)}`]);
    expect(missing.exitCode).toBe(4);
    expect(missing.stderr).toMatch(/has no billing .* and no cancellation/);
    const refused = await here(s.quiet, ['subscriptions', `0x${'ab'.repeat(32)}`, '--state', 'active']);
    expect(refused.exitCode).toBe(2);
    expect(s.quiet.requests).toEqual([]);
  });
});

describe.concurrent('the mirror\'s subscriptions view', () => {
  it('holds the ledger of payrec subscriptions as of now, row for row, and SUM(mrr) per token is exact', async () => {
    // The view reads the real clock (now()): an emulator whose data end today, so that
    // every day some subscriptions are active and past due.
    const today = await emulator({ now: Math.floor(Date.now() / 1000 / DAY) * DAY });
    const db = join(tempDir(), 'today.duckdb');
    try {
      const plans = today.subscriptions('bsc').plans.flatMap((p) => ['--plan-id', p.planId]);
      expect((await here(today, ['sync', 'fr/billings', 'fr/cancellations', ...plans, '--db', db, '-q'])).exitCode).toBe(0);
    } finally {
      await today.close();
    }
    const columns = 'subscriptionId, planId, token, amount, period, mrr, epoch(started)::BIGINT AS started, epoch(paidThrough)::BIGINT AS paidThrough, epoch(lastAttempt)::BIGINT AS lastAttempt, failedAttempts, epoch(cancelledAt)::BIGINT AS cancelledAt, forced, epoch(endsAt)::BIGINT AS endsAt, daysPastDue, state';
    const [view, sums, cli] = await Promise.all([
      here(s.emu, ['sql', '--db', db, '-f', 'json', `SELECT ${columns} FROM subscriptions ORDER BY subscriptionId`]),
      here(s.emu, ['sql', '--db', db, '-f', 'json', `SELECT token, SUM(mrr) AS mrr FROM subscriptions WHERE state IN ('active', 'past_due') GROUP BY token ORDER BY token`]),
      here(s.emu, ['subscriptions', '--db', db, '-f', 'json', '-q']),
    ]);
    expect(view.exitCode).toBe(0);
    const norm = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v]));
    const ledger = (JSON.parse(cli.stdout) as Record<string, unknown>[]).sort((a, b) => String(a.subscriptionId).localeCompare(String(b.subscriptionId)));
    expect(new Set(ledger.map((r) => r.state))).toEqual(new Set(['active', 'past_due', 'lapsed', 'cancelled']));
    expect((JSON.parse(view.stdout) as Record<string, unknown>[]).map(norm)).toEqual(ledger.map(norm));
    const expected = new Map<string, Big>();
    for (const r of ledger) if (r.state === 'active' || r.state === 'past_due') expected.set(String(r.token), (expected.get(String(r.token)) ?? new Big(0)).plus(String(r.mrr)));
    expect((JSON.parse(sums.stdout) as { token: string; mrr: string }[]).map((x) => [x.token, new Big(x.mrr).toFixed()])).toEqual([...expected].sort().map(([t, v]) => [t, v.toFixed()]));
  });
});

const PERIOD_WORDS: Record<number, string> = {
  1: '1 day', 7: '7 days', 14: '14 days', 28: '28 days, 1 month', 30: '30 days, 1 month', 31: '31 days, 1 month', 60: '60 days, 2 months',
  91: '91 days, 3 months', 182: '182 days, 6 months', 183: '183 days, 6 months', 365: '365 days, 12 months',
};

describe.concurrent('payrec fr plans', () => {
  it('lists every plan synced, with the terms of the emulator\'s plans and its subscriptions that ever paid', async () => {
    const truth = s.emu.subscriptions('bsc');
    const r = await here(s.emu, ['fr', 'plans', '--db', db, '-f', 'json']);
    expect(r.exitCode).toBe(0);
    const rows = JSON.parse(r.stdout) as { planId: string; token: string | null; amount: string | null; period: number | null; periodInWords: string | null; subscriptions: number; seenIn: string }[];
    expect(rows.map((x) => x.planId)).toEqual(truth.plans.map((p) => p.planId).sort());
    for (const plan of truth.plans) {
      const row = rows.find((x) => x.planId === plan.planId)!;
      const started = facts.filter((f) => f.planId === plan.planId && f.billings.some(paid)).length;
      expect(row.subscriptions).toBe(started);
      if (started > 0) expect({ token: row.token, amount: row.amount, period: row.period }).toEqual({ token: plan.token, amount: plan.amount, period: plan.period });
      // The period in words, written here for each of the emulator's plans (DESIGN's month bands: 28-31 days one month, …).
      if (started > 0) expect(row.periodInWords, plan.planId).toBe(PERIOD_WORDS[plan.period / 86_400]);
      expect(row.seenIn).toContain('synced');
    }
  });

  it('a mirror that knows no plan: an empty list, said so, exit 0', async () => {
    const file = join(tempDir(), 'no-plans.duckdb');
    const now = s.emu.subscriptions('bsc').now;
    const sync = await here(s.emu, ['sync', 'one-time/payments', '--from', String(now - 86_400), '--db', file, '-q']);
    expect(sync.exitCode, sync.stderr).toBe(0);
    const r = await here(s.emu, ['fr', 'plans', '--db', file, '-f', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(r.stderr).toContain('0 fixed-recurring plans known on chain bsc');
  });
});

describe.concurrent('payrec metrics', () => {
  it('MRR and counts of every month of a year equal the oracle at the months\' ends; the identity holds in every row', async () => {
    const r = await here(s.emu, ['metrics', '--db', db, '--period', '2025', '-f', 'json', '--at', String(s.emu.subscriptions('bsc').now)]);
    expect(r.exitCode).toBe(0);
    const rows = JSON.parse(r.stdout) as Record<string, string & number>[];
    expect(rows.length).toBeGreaterThan(12);
    for (const row of rows) {
      const expectedAt = (t: number) => facts.filter((f) => f.token === row.token).map((f) => oracle(f, t)).filter(counted);
      const end = expectedAt(row.to);
      const start = expectedAt(row.from);
      expect(row.subscriptions_end, `${row.token} at ${row.to}`).toBe(end.length);
      expect(row.subscriptions_start).toBe(start.length);
      expect(row.mrr_end).toBe(end.reduce((sum, x) => sum.plus(x.mrr), new Big(0)).toFixed());
      expect(new Big(row.mrr_start).plus(row.mrr_new).plus(row.mrr_reactivated).minus(row.mrr_churned).eq(row.mrr_end)).toBe(true);
      expect(row.subscriptions_start + row.new + row.reactivated - row.churned).toBe(row.subscriptions_end);
      // Attempts: paid or failed billings stamped in the interval (pending ones are neither).
      const stamped = facts.filter((f) => f.token === row.token).flatMap((f) => f.billings).filter((b) => (b.timestamp as number) >= row.from && (b.timestamp as number) < row.to);
      expect(row.attempts).toBe(stamped.filter((b) => paid(b) || failed(b)).length);
      expect(row.failed).toBe(stamped.filter(failed).length);
    }
    // Month after month, one month's end is the next one's start.
    const months = [...new Set(rows.map((x) => x.from))].sort((a, b) => a - b);
    expect(months[0]).toBe(Date.UTC(2025, 0, 1) / 1000);
    expect(months).toHaveLength(12);
    // Every column, movements, churn and dunning too: the brute-force oracle's rows for the twelve months.
    const year = Array.from({ length: 12 }, (_, i) => ({ from: Date.UTC(2025, i, 1) / 1000, to: Date.UTC(2025, i + 1, 1) / 1000 }));
    expect(rows).toEqual(naiveMetrics(records, year, s.emu.subscriptions('bsc').now, GRACE, false));
    for (const column of ['new', 'churned', 'logo_churn', 'revenue_churn', 'failed', 'dunning_cases', 'recovered', 'lost']) {
      expect(rows.some((x) => ![0, '0', null].includes(x[column])), column).toBe(true);
    }
  });

  it('weeks of a Berlin October with its 25-hour Sunday begin at Berlin midnights on Mondays', async () => {
    const r = await here(s.emu, ['metrics', '--db', db, '--period', '2025-10', '--interval', 'week', '--tz', 'Europe/Berlin', '-f', 'json', '--columns', 'from,to']);
    expect(r.exitCode).toBe(0);
    const bounds = [...new Set((JSON.parse(r.stdout) as { from: number; to: number }[]).flatMap((x) => [x.from, x.to]))].sort((a, b) => a - b);
    // 1 October 00:00 CEST (UTC+2), Mondays 6, 13, 20 October (CEST), 27 October (CET,
    // after the 25-hour Sunday the 26th), 1 November 00:00 CET (UTC+1).
    const utc = (d: number, m: number, h: number) => Date.UTC(2025, m - 1, d, h) / 1000;
    const expected = [utc(30, 9, 22), utc(5, 10, 22), utc(12, 10, 22), utc(19, 10, 22), utc(26, 10, 23), utc(31, 10, 23)];
    expect(bounds).toEqual(expected);
  });

  it('--by plan rows add up to the token rows', async () => {
    const args = ['metrics', '--db', db, '--period', '2025-Q3', '-f', 'json'];
    const [byToken, byPlan] = await Promise.all([here(s.emu, args), here(s.emu, [...args, '--by', 'plan'])]);
    const tokens = JSON.parse(byToken.stdout) as Record<string, string & number>[];
    const plans = JSON.parse(byPlan.stdout) as Record<string, string & number>[];
    expect(plans.every((p) => typeof p.planId === 'string')).toBe(true);
    for (const t of tokens) {
      const parts = plans.filter((p) => p.token === t.token && p.from === t.from);
      expect(parts.reduce((sum, p) => sum.plus(p.mrr_end), new Big(0)).eq(t.mrr_end)).toBe(true);
      expect(parts.reduce((n, p) => n + p.churned, 0)).toBe(t.churned);
    }
  });
});

describe.concurrent('a plan synced with sync --from', () => {
  it('a report that starts before the plan\'s synced start is refused (exit 2, naming the plan); one after it runs', async () => {
    const plan = s.emu.subscriptions('bsc').plans[0].planId;
    const bounded = join(tempDir(), 'bounded.duckdb');
    const sync = await here(s.emu, ['sync', 'fr/billings', 'fr/cancellations', '--plan-id', plan, '--from', '2025-06-01', '--db', bounded, '-q']);
    expect(sync.exitCode).toBe(0);
    const before = await here(s.emu, ['metrics', '--db', bounded, '--period', '2025']);
    expect(before.exitCode).toBe(2);
    expect(before.stdout).toBe('');
    expect(before.stderr).toContain(`the mirror holds plan ${plan} only from 2025-06-01 00:00:00 UTC`);
    // One second later than the bound is not enough for the month of May, exactly the bound is.
    expect((await here(s.emu, ['metrics', '--db', bounded, '--from', '2025-05-31T23:59:59Z', '--to', '2025-07-31'])).exitCode).toBe(2);
    const after = await here(s.emu, ['metrics', '--db', bounded, '--period', '2025-06', '-f', 'json']);
    expect(after.exitCode).toBe(0);
  });
});

describe.concurrent('bad input: exit 2 before anything is read or sent', () => {
  const cases: [string, string[], RegExp][] = [
    ['an unknown state', ['subscriptions', '--state', 'overdue'], /invalid --state "overdue": expected active, past_due, lapsed, cancelled/],
    ['a negative grace', ['subscriptions', '--grace', '-1'], /invalid --grace "-1"/],
    ['an unknown interval', ['metrics', '--interval', 'fortnight'], /invalid --interval "fortnight"/],
    ['--period with --from', ['metrics', '--period', '2025', '--from', '2025-01-01'], /either --period or --from\/--to/],
    ['no mirror', ['metrics', '--db', '/nonexistent-folder/none.duckdb'], /no mirror at .*none\.duckdb[\s\S]*payrec sync \(or add --sync\)/],
    ['a --past-due-for that is no number of days', ['subscriptions', '--past-due-for', '1.5'], /invalid --past-due-for "1\.5": expected a whole number of days/],
    ['--count with --jq', ['metrics', '--count', '--jq', 'length'], /give either --count or --jq/],
    ['--count into a workbook', ['subscriptions', '--count', '-o', 'n.xlsx'], /--count prints a number: -f xlsx does not apply/],
    ['--jq into a workbook', ['metrics', '--jq', '.[0]', '-o', 'n.xlsx'], /--jq prints what jq answers: -f xlsx does not apply/],
    ['an id too short to look up', ['subscriptions', '0xabc'], /invalid SUBSCRIPTION_ID "0xabc"/],
  ];
  for (const [what, args, message] of cases) {
    it(what, async () => {
      const r = await here(s.quiet, args);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
      expect(s.quiet.requests).toEqual([]);
    });
  }
});

describe.concurrent('a DuckDB file payrec never synced into: exit 2 naming it, never an internal error', () => {
  it('an empty DuckDB file, and another tool\'s database', async () => {
    const dir = tempDir();
    const empty = join(dir, 'empty.duckdb');
    (await DuckDBInstance.create(empty)).closeSync();
    const foreign = join(dir, 'foreign.duckdb');
    const instance = await DuckDBInstance.create(foreign);
    const connection = await instance.connect();
    await connection.run('CREATE TABLE notes (t VARCHAR)');
    connection.closeSync();
    instance.closeSync();
    for (const file of [empty, foreign]) {
      for (const command of ['subscriptions', 'metrics']) {
        const r = await here(s.quiet, [command, '--db', file]);
        expect(r.stderr, `${command} ${file}`).toContain(`error: ${file} is not a payrec mirror: it holds none of payrec's tables`);
        expect(r.stderr).not.toContain('internal error');
        expect(r.exitCode).toBe(2);
      }
    }
    expect(s.quiet.requests).toEqual([]);
  });
});

describe.concurrent('the future is refused as the lists refuse it: exit 2 naming now, nothing read', () => {
  // The command's clock pinned (with --emulator): the same "now" on any day.
  const env = { PAYREC_EMULATOR_NOW: '2026-11-22T10:00:00Z' };
  const NOW = '2026-11-22 10:00:00 UTC';
  const cases: [string, string[], string][] = [
    ['metrics --period next month', ['metrics', '--period', '2026-12'], `--period "2026-12" begins after now (${NOW})`],
    ['metrics --period a day later this month', ['metrics', '--period', '2026-11-23'], `--period "2026-11-23" begins after now (${NOW})`],
    ['metrics --from one second after now', ['metrics', '--from', '2026-11-22T10:00:01Z'], `--from "2026-11-22T10:00:01Z" is after now (${NOW})`],
    ['subscriptions --at one second after now', ['subscriptions', '--at', '2026-11-22T10:00:01Z'], `--at "2026-11-22T10:00:01Z" is after now (${NOW}): states are known up to now`],
    ['metrics --at tomorrow', ['metrics', '--at', '2026-11-23'], `--at "2026-11-23" is after now (${NOW})`],
  ];
  for (const [what, args, message] of cases) {
    it(what, async () => {
      const r = await here(undefined, ['--emulator', ...args, '--db', join(tempDir(), 'none.duckdb')], { env });
      expect(r.stderr).toContain(`error: ${message}`);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
    });
  }
  it('--at now itself and a period under way are answered (with --sync)', async () => {
    const home = tempDir();
    const now = Date.UTC(2026, 10, 22, 10) / 1000;
    // --emulator's data under that anchor.
    const anchored = await emulator({ now });
    const { plans, subscriptions } = anchored.subscriptions('bsc');
    const truth = recordsOfFacts(subscriptions);
    await anchored.close();
    const every = plans.flatMap((p) => ['--plan-id', p.planId]);
    const at = await here(undefined, ['--emulator', 'subscriptions', '--at', '2026-11-22T10:00:00Z', '--count', '--sync', ...every, '--db', join(home, 'm.duckdb')], { env });
    expect(at.exitCode).toBe(0);
    expect(at.stdout).toBe(`${naiveLedger(truth.billings, truth.cancellations, now, GRACE).length}\n`);
    const month = await here(undefined, ['--emulator', 'metrics', '--period', '2026-11', '--db', join(home, 'm.duckdb'), '-f', 'json'], { env });
    expect(month.exitCode).toBe(0);
    // November up to now: the last interval ends at now.
    expect(JSON.parse(month.stdout)).toEqual(naiveMetrics(truth, cutAt([{ from: Date.UTC(2026, 10, 1) / 1000, to: Date.UTC(2026, 11, 1) / 1000 }], now), now, GRACE, false));
  });
});

describe.concurrent('a billing whose amount the mirror could not keep, but sent as a plain decimal', () => {
  it('is read from the text sent, in full: its subscription\'s MRR is that amount\'s, the ledger equals the oracle', async () => {
    // 19 decimals: more than DECIMAL(38,18) holds, so the mirror keeps NULL and the text.
    const copy = join(tempDir(), 'wide.duckdb');
    copyFileSync(db, copy);
    const at = s.emu.subscriptions('bsc').now;
    const f = facts.find((x) => oracle(x, at) !== undefined)!;
    const subscribe = f.billings.filter(paid).reduce((a, b) => ((b.timestamp as number) < (a.timestamp as number) ? b : a));
    const wide = `${f.amount.includes('.') ? f.amount : `${f.amount}.`}${'0'.repeat(18 - (f.amount.split('.')[1] ?? '').length)}7`;
    const instance = await DuckDBInstance.create(copy);
    const conn = await instance.connect();
    await conn.run(`UPDATE payrec_store.fixed_recurring_billings SET amount = NULL, inexact_amounts = $1::JSON WHERE transactionHash = $2`, [JSON.stringify({ amount: wide }), subscribe.transactionHash as string]);
    conn.closeSync();
    instance.closeSync();
    const r = await here(s.emu, ['subscriptions', '--db', copy, '--at', String(at), '-f', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as (OracleRow & { amount: string })[];
    const period = (subscribe.cycleEnd as number) - (subscribe.cycleStart as number) + 1;
    const expected = facts.map((x) => oracle(x, at)).filter((x) => x !== undefined).map((x) => (x.subscriptionId === f.subscriptionId ? { ...x, mrr: mrrOf(wide, period) } : x));
    const pick = ({ subscriptionId, planId, token, mrr, started, paidThrough, cancelledAt, state }: OracleRow) => ({ subscriptionId, planId, token, mrr, started, paidThrough, cancelledAt, state });
    const byId = (a: OracleRow, b: OracleRow) => a.subscriptionId.localeCompare(b.subscriptionId);
    expect(rows.map(pick).sort(byId)).toEqual(expected.sort(byId));
    expect(rows.find((x) => x.subscriptionId === f.subscriptionId)!.amount).toBe(wide);
    // The one-subscription view reads the same billing from the mirror: its attempt shows the text sent.
    const one = await here(s.emu, ['subscriptions', f.subscriptionId, '--db', copy, '--at', String(at), '-f', 'json']);
    expect(one.exitCode, one.stderr).toBe(0);
    const attempts = (JSON.parse(one.stdout) as { attempts: { transactionHash: string; amount: string }[] }).attempts;
    expect(attempts.find((a) => a.transactionHash === subscribe.transactionHash)!.amount).toBe(wide);
    expect(attempts.filter((a) => a.amount !== wide).every((a) => a.amount === f.amount)).toBe(true);
  });
});

describe.concurrent('a billing the mirror holds but cannot read as numbers is read whole, by its row', () => {
  /** A copy of the mirror with `sql` run on it ($1: a paid billing's transactionHash); that billing's subscription. */
  async function doctored(sql: string): Promise<{ copy: string; f: SubscriptionFacts; hash: string }> {
    const copy = join(tempDir(), 'irregular.duckdb');
    copyFileSync(db, copy);
    const at = s.emu.subscriptions('bsc').now;
    const f = facts.find((x) => oracle(x, at) !== undefined && x.billings.some(paid))!;
    const hash = f.billings.find(paid)!.transactionHash as string;
    const instance = await DuckDBInstance.create(copy);
    const conn = await instance.connect();
    await conn.run(sql, [hash]);
    conn.closeSync();
    instance.closeSync();
    return { copy, f, hash };
  }

  it('one stamped at a fraction of a second stops the figures (exit 6) naming that time alone: its amount was read from its row', async () => {
    const { copy, f, hash } = await doctored(`UPDATE payrec_store.fixed_recurring_billings SET timestamp = timestamp + INTERVAL 250 MILLISECOND WHERE transactionHash = $1`);
    const stamped = f.billings.find((b) => b.transactionHash === hash)!.timestamp as number;
    // Exit 6 from the built binary once (metrics here), the other answers in this process.
    for (const [args, runner] of [[['metrics', '--period', '2025'], payrec], [['subscriptions'], here]] as const) {
      const r = await runner(s.emu, [...args, '--db', copy, '--at', String(s.emu.subscriptions('bsc').now), '-f', 'csv']);
      expect(r.exitCode, `${args[0]}: ${r.stderr}`).toBe(6);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`1 record carry an amount or time that is not exact: billing ${hash} (timestamp ${stamped}.25)\n`);
    }
  });

  it('one with no subscriptionId stops the figures (exit 6) naming its transaction', async () => {
    const { copy, hash } = await doctored(`UPDATE payrec_store.fixed_recurring_billings SET subscriptionId = NULL WHERE transactionHash = $1`);
    for (const args of [['metrics', '--period', '2025'], ['subscriptions']]) {
      const r = await here(s.emu, [...args, '--db', copy, '--at', String(s.emu.subscriptions('bsc').now), '-f', 'csv']);
      expect(r.exitCode, `${args[0]}: ${r.stderr}`).toBe(6);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`a billing has no subscriptionId (transactionHash ${hash}): no subscription figure can be told without it`);
    }
  });
});

describe.concurrent('a billing whose amount cannot be read exactly stops the figures (exit 6), never left out', () => {
  // The mirror keeps such an amount as NULL with its text in inexact_amounts (or NULL
  // alone when the service sent null): written here into a copy of the mirror.
  const cases: [string, string | null][] = [
    ['an exponent', '{"amount":"1e5"}'],
    ['an empty text', '{"amount":""}'],
    ['a number', '{"amount":12.5}'],
    ['null (or missing)', null],
  ];
  for (const [what, inexact] of cases) {
    it(what, async () => {
      const copy = join(tempDir(), 'broken.duckdb');
      copyFileSync(db, copy);
      const instance = await DuckDBInstance.create(copy);
      const conn = await instance.connect();
      const victim = facts.find((f) => f.billings.some(paid))!.billings.find(paid)!.transactionHash as string;
      await conn.run(`UPDATE payrec_store.fixed_recurring_billings SET amount = NULL, inexact_amounts = $1::JSON WHERE transactionHash = $2`, [inexact, victim]);
      conn.closeSync();
      instance.closeSync();
      for (const args of [['metrics', '--period', '2025'], ['subscriptions']]) {
        const r = await here(s.emu, [...args, '--db', copy, '--at', String(s.emu.subscriptions('bsc').now), '-f', 'csv']);
        expect(r.exitCode, `${args[0]}: ${r.stderr}`).toBe(6);
        expect(r.stdout).toBe('');
        expect(r.stderr).toContain(victim);
      }
    });
  }
});

// ---- the definitions of issue 29: movements as events, --at as what is known, outputs that answer ----

/** Whether a subscription is counted (active or past due) as of t, by the oracle. */
const countedAt = (f: SubscriptionFacts, t: number) => counted(oracle(f, t));

/** The instants where a subscription's state can change (a record seen, a paid period or a grace over), ascending. */
function changeInstants(f: SubscriptionFacts): number[] {
  const instants = new Set<number>();
  for (const b of f.billings) [(b.timestamp as number) + 1, (b.cycleEnd as number) + 1, (b.cycleEnd as number) + GRACE + 1].forEach((x) => instants.add(x));
  if (f.cancellation) instants.add((f.cancellation.timestamp as number) + 1);
  return [...instants].sort((a, b) => a - b);
}

/** Its changes of state up to `at`, by the oracle: each instant compared with the second before. */
const stateChanges = (f: SubscriptionFacts, at: number) =>
  changeInstants(f)
    .filter((x) => x <= at && oracle(f, x) !== undefined && oracle(f, x)!.state !== oracle(f, x - 1)?.state)
    .map((x) => ({ time: x, state: oracle(f, x)!.state }));

/**
 * The changes a story shows: past due and then active again without lapsing (a renewal
 * paid within the grace) is one "renewed late" row at the renewal, not two.
 */
const storyChanges = (f: SubscriptionFacts, at: number) => {
  const all = stateChanges(f, at);
  return all.filter((c, i) => !(c.state === 'past_due' && all[i + 1]?.state === 'active'));
};

/** Its changes of counted state, by the oracle: every instant where one can happen, compared with the second before. */
function changes(f: SubscriptionFacts): { time: number; kind: 'new' | 'reactivated' | 'churned' }[] {
  const out: { time: number; kind: 'new' | 'reactivated' | 'churned' }[] = [];
  let ever = false;
  for (const x of changeInstants(f)) {
    const was = countedAt(f, x - 1);
    const is = countedAt(f, x);
    if (was === is) continue;
    out.push({ time: x, kind: is ? (ever ? 'reactivated' : 'new') : 'churned' });
    ever ||= is;
  }
  return out;
}

describe.concurrent('payrec metrics: movements are events, every interval, --at as what is known', () => {
  it('new, reactivated and churned of every month equal the oracle\'s changes in (from, to]; months add up to their quarter; every month has a row per token', async () => {
    const at = String(s.emu.subscriptions('bsc').now);
    const [months, quarter] = await Promise.all([
      here(s.emu, ['metrics', '--db', db, '--period', '2025-Q3', '--at', at, '-f', 'json', '-q']),
      here(s.emu, ['metrics', '--db', db, '--period', '2025-Q3', '--interval', 'quarter', '--at', at, '-f', 'json', '-q']),
    ]);
    expect(months.exitCode, months.stderr).toBe(0);
    const rows = JSON.parse(months.stdout) as Record<string, string & number>[];
    const tokens = [...new Set(rows.map((r) => r.token))].sort();
    expect(tokens.length).toBeGreaterThan(1);
    const starts = [Date.UTC(2025, 6, 1), Date.UTC(2025, 7, 1), Date.UTC(2025, 8, 1)].map((t) => t / 1000);
    expect(rows.map((r) => [r.from, r.token])).toEqual(starts.flatMap((from) => tokens.map((t) => [from, t])));
    let moved = 0;
    for (const row of rows) {
      const events = facts.filter((f) => f.token === row.token).flatMap(changes).filter((e) => row.from < e.time && e.time <= row.to);
      for (const kind of ['new', 'reactivated', 'churned'] as const) expect(row[kind], `${row.token} ${row.from} ${kind}`).toBe(events.filter((e) => e.kind === kind).length);
      moved += row.new + row.churned;
    }
    expect(moved).toBeGreaterThan(0);
    for (const q of JSON.parse(quarter.stdout) as Record<string, string & number>[]) {
      const parts = rows.filter((r) => r.token === q.token);
      for (const c of ['new', 'reactivated', 'churned', 'attempts', 'failed', 'dunning_cases', 'recovered', 'lost', 'open']) expect(parts.reduce((n, p) => n + p[c], 0), c).toBe(q[c]);
      for (const c of ['mrr_new', 'mrr_reactivated', 'mrr_churned', 'mrr_net', 'recovered_amount']) expect(parts.reduce((n, p) => n.plus(p[c]), new Big(0)).eq(q[c]), c).toBe(true);
      expect([parts[0].mrr_start, parts[2].mrr_end]).toEqual([q.mrr_start, q.mrr_end]);
    }
  });

  it('--at with a date alone is the end of that day: the same ledger as at the next midnight, said on stderr; metrics\' default window is the 12 months up to it, the last ending there', async () => {
    const midnight = String(Date.UTC(2025, 10, 1) / 1000);
    const [day, instant, report] = await Promise.all([
      here(s.emu, ['subscriptions', '--db', db, '--at', '2025-10-31', '-f', 'json']),
      here(s.emu, ['subscriptions', '--db', db, '--at', midnight, '-f', 'json', '-q']),
      here(s.emu, ['metrics', '--db', db, '--at', '2025-10-31', '-f', 'json']),
    ]);
    expect(day.exitCode, day.stderr).toBe(0);
    expect(day.stdout).toBe(instant.stdout);
    expect(day.stderr).toContain('as of 2025-11-01 00:00:00 UTC (the end of 2025-10-31): records stamped before it (--at)');
    const expected = facts.map((f) => oracle(f, Number(midnight))).filter((x) => x !== undefined);
    expect((JSON.parse(day.stdout) as OracleRow[]).map((r) => r.subscriptionId).sort()).toEqual(expected.map((r) => r.subscriptionId).sort());
    expect(report.exitCode, report.stderr).toBe(0);
    expect(report.stderr).toContain('the last 12 months up to --at: from 2024-11-01 00:00:00 UTC');
    const bounds = (JSON.parse(report.stdout) as { from: number; to: number }[]).map((r) => [r.from, r.to]);
    expect(bounds[0][0]).toBe(Date.UTC(2024, 10, 1) / 1000);
    expect(bounds.at(-1)![1]).toBe(Number(midnight));
    expect(new Set(bounds.map(([from]) => from)).size).toBe(12);
  });

  it('a window is cut at --at (its last interval ends there) and one that begins after --at is exit 2', async () => {
    const cut = await here(s.emu, ['metrics', '--db', db, '--period', '2025-10', '--at', '2025-10-15T12:00:00Z', '-f', 'json']);
    expect(cut.exitCode, cut.stderr).toBe(0);
    expect(cut.stderr).toContain('the last interval ends at --at (2025-10-15 12:00:00 UTC), not at its calendar end');
    const at = Date.UTC(2025, 9, 15, 12) / 1000;
    const rows = JSON.parse(cut.stdout) as Record<string, string & number>[];
    for (const row of rows) {
      expect(row.to).toBe(at);
      const end = facts.filter((f) => f.token === row.token).map((f) => oracle(f, at)).filter(counted);
      expect(row.subscriptions_end).toBe(end.length);
      expect(row.mrr_end).toBe(end.reduce((sum, x) => sum.plus(x.mrr), new Big(0)).toFixed());
    }
    const after = await here(s.emu, ['metrics', '--db', db, '--period', '2025-11', '--at', '2025-10-31']);
    expect(after.exitCode).toBe(2);
    expect(after.stdout).toBe('');
    expect(after.stderr).toContain('--period "2025-11" begins after --at (2025-11-01 00:00:00 UTC)');
  });
});

describe.concurrent('the ledger: cancellations at period end, --past-due-for, --state canceled', () => {
  it('a subscription its customer cancelled stays active with cancelledAt and endsAt = paidThrough until its paid period ends', async () => {
    const f = facts.find((x) => {
      const c = x.cancellation;
      const paidEnds = x.billings.filter(paid).map((b) => b.cycleEnd as number);
      return c !== null && c.forced === false && c.transactionStatus === 'confirmed' && (c.timestamp as number) < Math.max(...paidEnds);
    })!;
    expect(f).toBeDefined();
    const c = f.cancellation!.timestamp as number;
    const end = Math.max(...f.billings.filter((b) => paid(b) && (b.timestamp as number) <= c).map((b) => b.cycleEnd as number));
    const rowAt = async (t: number) => {
      const r = await here(s.emu, ['subscriptions', '--db', db, '--at', String(t), '--plan-id', f.planId, '-f', 'json', '-q']);
      return (JSON.parse(r.stdout) as Record<string, unknown>[]).find((x) => x.subscriptionId === f.subscriptionId);
    };
    expect(await rowAt(c + 1)).toMatchObject({ state: 'active', cancelledAt: c, forced: false, endsAt: end, daysPastDue: null });
    expect(await rowAt(end)).toMatchObject({ state: 'active' });
    expect(await rowAt(end + 1)).toMatchObject({ state: 'cancelled', endsAt: end });
  });

  it('--past-due-for keeps the past-due ones with that many whole days since paidThrough + 1; --state canceled is cancelled; --jq runs on the JSON', async () => {
    const at = s.emu.subscriptions('bsc').now - 40 * DAY;
    const pastDue = facts.map((f) => oracle(f, at)).filter((x) => x?.state === 'past_due') as OracleRow[];
    const days = (x: OracleRow) => Math.floor((at - x.paidThrough - 1) / DAY);
    const n = days(pastDue[0]);
    const r = await here(s.emu, ['subscriptions', '--db', db, '--at', String(at), '--past-due-for', String(n), '-f', 'json', '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { subscriptionId: string; daysPastDue: number }[];
    expect(rows.map((x) => x.subscriptionId).sort()).toEqual(pastDue.filter((x) => days(x) >= n).map((x) => x.subscriptionId).sort());
    for (const row of rows) expect(row.daysPastDue).toBe(days(pastDue.find((x) => x.subscriptionId === row.subscriptionId)!));
    const [canceled, cancelled, jq] = await Promise.all([
      here(s.emu, ['subscriptions', '--db', db, '--at', String(at), '--state', 'canceled', '--count', '-q']),
      here(s.emu, ['subscriptions', '--db', db, '--at', String(at), '--state', 'cancelled', '-f', 'json', '-q']),
      payrec(s.emu, ['subscriptions', '--db', db, '--at', String(at), '--jq', '[.[] | select(.state == "cancelled") | .subscriptionId] | sort | .[]', '-q']),
    ]);
    const ids = facts.map((f) => oracle(f, at)).filter((x) => x?.state === 'cancelled').map((x) => x!.subscriptionId).sort();
    expect(ids.length).toBeGreaterThan(0);
    expect(canceled.stdout).toBe(`${ids.length}\n`);
    expect((JSON.parse(cancelled.stdout) as OracleRow[]).map((x) => x.subscriptionId).sort()).toEqual(ids);
    // Strings raw, one per line, as gh --jq prints them.
    expect(jq.stdout).toBe(ids.map((id) => `${id}\n`).join(''));
  });

  it('metrics --count, --fail-if-any and --jq answer on the rows -f json prints; a bad --jq is exit 2 before the mirror is read', async () => {
    const args = ['metrics', '--db', db, '--period', '2025-Q3', '-q'];
    const [json, count, gate, jq, bad] = await Promise.all([
      here(s.emu, [...args, '-f', 'json']),
      here(s.emu, [...args, '--count']),
      here(s.emu, [...args, '--fail-if-any', '-f', 'csv']),
      payrec(s.emu, [...args, '--jq', '.[0].mrr_end']),
      payrec(s.quiet, ['metrics', '--db', '/nonexistent-folder/none.duckdb', '--jq', '.[']),
    ]);
    const rows = JSON.parse(json.stdout) as { mrr_end: string }[];
    expect(count.stdout).toBe(`${rows.length}\n`);
    expect(gate.exitCode).toBe(9);
    expect(gate.stderr).toBe(`${rows.length} rows matched (--fail-if-any)\n`);
    expect(jq.stdout).toBe(`${rows[0].mrr_end}\n`);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('invalid --jq expression');
  });
});

describe.concurrent('outputs that answer: workbooks a SUM can total, terminals that keep the columns that answer', () => {
  it('metrics -o x.xlsx: money and ratio columns are number cells with their exact text beside', async () => {
    const file = join(tempDir(), 'books.xlsx');
    const args = ['metrics', '--db', db, '--period', '2025-Q3', '-q'];
    const [book, json] = await Promise.all([payrec(s.emu, [...args, '-o', file]), here(s.emu, [...args, '-f', 'json'])]);
    expect(book.exitCode, book.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as Record<string, string | number | null>[];
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(file);
    const sheet = workbook.worksheets[0];
    const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
    // Money and ratios only: counts are whole numbers, times are date cells.
    expect(header.filter((h) => h.endsWith('_exact'))).toEqual(
      ['mrr_start', 'mrr_end', 'mrr_new', 'mrr_reactivated', 'mrr_churned', 'mrr_net', 'logo_churn', 'revenue_churn', 'failure_rate', 'recovered_amount', 'collected', 'failed_amount'].map((c) => `${c}_exact`),
    );
    rows.forEach((row, i) => {
      const cell = (name: string) => sheet.getRow(i + 2).getCell(header.indexOf(name) + 1).value;
      for (const c of ['mrr_start', 'mrr_end', 'mrr_net', 'mrr_churned', 'recovered_amount', 'logo_churn', 'failure_rate', 'collected', 'failed_amount']) {
        if (row[c] === null) continue;
        expect(typeof cell(c), c).toBe('number');
        expect(cell(c)).toBe(Number(row[c]));
        expect(cell(`${c}_exact`)).toBe(row[c]);
      }
      for (const c of ['from', 'to']) expect(cell(c), c).toEqual(new Date((row[c] as number) * 1000));
      for (const c of ['subscriptions_end', 'new', 'churned', 'attempts']) expect(cell(c), c).toBe(row[c]);
    });
    const ledgerFile = join(tempDir(), 'ledger.xlsx');
    expect((await here(s.emu, ['subscriptions', '--db', db, '-q', '-o', ledgerFile])).exitCode).toBe(0);
    const ledgerBook = new ExcelJS.Workbook();
    await ledgerBook.xlsx.readFile(ledgerFile);
    const ledgerSheet = ledgerBook.worksheets[0];
    const ledgerHeader = (ledgerSheet.getRow(1).values as unknown[]).slice(1) as string[];
    expect(ledgerHeader.filter((h) => h.endsWith('_exact'))).toEqual(['amount_exact', 'mrr_exact']);
    const ledgerRow = (name: string) => ledgerSheet.getRow(2).getCell(ledgerHeader.indexOf(name) + 1).value;
    for (const c of ['amount', 'mrr']) expect(typeof ledgerRow(c), c).toBe('number');
    expect(typeof ledgerRow('mrr_exact')).toBe('string');
    for (const c of ['started', 'paidThrough', 'lastAttempt']) expect(ledgerRow(c), c).toBeInstanceOf(Date);
  });

  it('a piped table puts the columns that answer first, then every other column of the ledger', async () => {
    const r = await here(s.emu, ['subscriptions', '--db', db, '-q', '-f', 'table']);
    expect(r.exitCode, r.stderr).toBe(0);
    const [header, first] = r.stdout.split('\n').map((l) => l.split('\t'));
    expect(header).toEqual(['subscriptionId', 'token', 'mrr', 'state', 'paidThrough', 'planId', 'amount', 'period', 'started', 'lastAttempt', 'failedAttempts', 'cancelledAt', 'forced', 'endsAt', 'daysPastDue']);
    expect(first).toHaveLength(header.length);
  });

  const script = program('script', 'bsdutils');
  const onPty = script.skip ? it.skip : it;
  /** payrec on an 80-column pseudo-terminal: the screen's lines. */
  const onTerminal = async (args: string[], cols = 80) => {
    const quoted = args.map((a) => `'${a}'`).join(' ');
    const r = await execa('script', ['-qec', `stty cols ${cols} rows 50; exec node ${BIN} ${quoted}`, '/dev/null'], {
      reject: false,
      stdin: 'ignore',
      extendEnv: false,
      // payrecEnv: under the e2e mutation run, the binary turns on the active mutant here too.
      env: { ...payrecEnv(), PAYREC_BASE_URL: s.emu.url, PAYREC_API_KEY: s.emu.keyFor('bsc') },
    });
    return r.stdout.split(/\r?\n/);
  };
  const headerOf = (lines: string[]) => lines.find((l) => l.startsWith('│'))!.split('│').map((c) => c.trim()).filter(Boolean);

  onPty(`on 80 columns, subscriptions keep id, token, mrr, state, paidThrough and metrics the interval, token, mrr_end, mrr_net, new, churned, logo_churn (as a percentage): an MRR of 18 decimals shows its first ones, marked …${script.note}`, async () => {
    const answers = ['subscriptionId', 'token', 'mrr', 'state', 'paidThrough'];
    // These plans' MRRs have up to 18 decimals (1234.567890123456789 a week): the widest cell, cut to fewer places.
    const ledger = await onTerminal(['subscriptions', '--db', db, '-q']);
    expect(headerOf(ledger)).toEqual(answers);
    expect(headerOf(await onTerminal(['subscriptions', '--db', db, '-q'], 90)).slice(0, 5)).toEqual(answers);
    // Each cut MRR is the exact one's first digits: the exact value is one -f json away.
    const exact = new Map((JSON.parse((await here(s.emu, ['subscriptions', '--db', db, '-q', '-f', 'json'])).stdout) as { subscriptionId: string; mrr: string }[]).map((r) => [`${r.subscriptionId.slice(0, 6)}…${r.subscriptionId.slice(-4)}`, r.mrr]));
    const cut = ledger.filter((l) => /^│ 0x/.test(l)).map((l) => l.split('│').map((c) => c.trim())).filter((c) => c[3].endsWith('…'));
    expect(cut.length).toBeGreaterThan(0);
    for (const c of cut) expect(exact.get(c[1])!.startsWith(c[3].slice(0, -1))).toBe(true);
    for (const l of ledger.filter((x) => /^[┌│└]/.test(x))) expect(l.length).toBeLessThanOrEqual(80);
    const metricsAnswers = ['interval', 'token', 'mrr_end', 'mrr_net', 'new', 'churned', 'logo_churn'];
    // Totals of such MRRs take 24 characters each: cut, all seven fit.
    expect(headerOf(await onTerminal(['metrics', '--db', db, '--period', '2025-Q3', '-q']))).toEqual(metricsAnswers);
    const report = await onTerminal(['metrics', '--db', db, '--period', '2025-Q3', '-q'], 110);
    expect(headerOf(report).slice(0, 7)).toEqual(metricsAnswers);
    const json = JSON.parse((await here(s.emu, ['metrics', '--db', db, '--period', '2025-Q3', '-q', '-f', 'json'])).stdout) as { token: string; logo_churn: string | null }[];
    const first = report.filter((l) => l.startsWith('│ 2025-07'))[0].split('│').map((c) => c.trim());
    // 0.25000000 → 25%: the same digits, moved two places.
    const expected = json[0].logo_churn === null ? '' : `${new Big(json[0].logo_churn).times(100).toFixed()}%`;
    expect(first.at(-2)).toBe(expected);
    expect(report.join('\n')).toContain('2025-09');
  });
});

describe.concurrent('payrec subscriptions ID: the story, by id, transactionHash or prefix (issue 29)', () => {
  it('a prefix of 10 hex characters or a billing\'s hash finds it in the mirror: planId in the summary, every attempt and every change of state in time order', async () => {
    const at = s.emu.subscriptions('bsc').now;
    const f = facts.find((x) => x.cancellation?.transactionStatus === 'confirmed' && x.billings.some(failed) && x.billings.filter(paid).length > 2)!;
    expect(f).toBeDefined();
    const hash = f.billings[1].transactionHash as string;
    const [byPrefix, byHash] = await Promise.all([
      here(s.emu, ['subscriptions', f.subscriptionId.slice(0, 12), '--db', db, '--at', String(at), '-f', 'json']),
      here(s.emu, ['subscriptions', hash, '--db', db, '--at', String(at), '-f', 'json', '-q']),
    ]);
    expect(byPrefix.exitCode, byPrefix.stderr).toBe(0);
    expect(byPrefix.stderr).toContain(`subscription ${f.subscriptionId}: from the mirror`);
    expect(byHash.stdout).toBe(byPrefix.stdout);
    const shown = JSON.parse(byPrefix.stdout) as { planId: string; state: string; story: { timestamp: number; event: string; state?: string; transactionHash?: string }[] };
    expect(shown.planId).toBe(f.planId);
    expect(shown.state).toBe(oracle(f, at)!.state);
    const times = shown.story.map((r) => r.timestamp);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(shown.story.filter((r) => r.event === 'billing').map((r) => r.transactionHash)).toEqual(f.billings.filter((b) => (b.timestamp as number) < at).map((b) => b.transactionHash));
    expect(shown.story.filter((r) => r.event === 'cancellation').map((r) => r.transactionHash)).toEqual([f.cancellation!.transactionHash]);
    const changes = shown.story.filter((r) => r.state !== undefined && !r.event.endsWith(' on')).map((r) => ({ time: r.timestamp, state: r.state }));
    expect(changes).toEqual(storyChanges(f, at));
    expect(changes.length).toBeGreaterThan(1);
  });

  it('piped, one table: a header and one line per event; an ambiguous prefix is exit 2 naming the candidates; an unknown prefix exit 4', async () => {
    const at = String(s.emu.subscriptions('bsc').now);
    const f = facts.find((x) => x.billings.some(paid))!;
    const piped = await here(s.emu, ['subscriptions', f.subscriptionId, '--db', db, '--at', at, '-q']);
    expect(piped.exitCode).toBe(0);
    const lines = piped.stdout.split('\n').slice(0, -1).map((l) => l.split('\t'));
    expect(lines[0]).toEqual(['timestamp', 'event', 'state', 'outcome', 'cycleStart', 'cycleEnd', 'amount', 'token', 'transactionHash']);
    expect(lines.slice(1).every((l) => l.length === 9)).toBe(true);
    // A second subscription whose id shares the first 12 hex characters of f's, written into a copy of the mirror.
    const twin = join(tempDir(), 'twin.duckdb');
    copyFileSync(db, twin);
    const instance = await DuckDBInstance.create(twin);
    const conn = await instance.connect();
    const other = `${f.subscriptionId.slice(0, 14)}${'f'.repeat(52)}`;
    await conn.run(`INSERT INTO payrec_store.fixed_recurring_billings SELECT * REPLACE ($1 AS subscriptionId, '0x' || repeat('e', 64) AS transactionHash) FROM payrec_store.fixed_recurring_billings WHERE subscriptionId = $2 LIMIT 1`, [other, f.subscriptionId]);
    conn.closeSync();
    instance.closeSync();
    const ambiguous = await here(s.emu, ['subscriptions', f.subscriptionId.slice(0, 14), '--db', twin]);
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr).toContain(`${f.subscriptionId.slice(0, 14)} begins the ids of 2 subscriptions in the mirror: ${[f.subscriptionId, other].sort().join(', ')}`);
    expect((await here(s.emu, ['subscriptions', f.subscriptionId.slice(0, 15), '--db', twin, '-q'])).exitCode).toBe(0);
    const [unknown, bad] = await Promise.all([
      here(s.emu, ['subscriptions', 'fedcba9876543210', '--db', db]),
      here(s.quiet, ['subscriptions', '0x1234', '--db', db]),
    ]);
    expect(unknown.exitCode).toBe(4);
    expect(unknown.stderr).toContain('no subscription in the mirror has an id beginning with 0xfedcba9876543210');
    expect(bad.exitCode).toBe(2);
    expect(s.quiet.requests).toEqual([]);
  });
});

describe.concurrent('docs/subscriptions.md: the figures it shows hold against the emulator\'s facts', () => {
  /** The output lines the doc shows under a command (up to the next command or the block's end). */
  const shownUnder = (doc: string[], command: string) => {
    const start = doc.findIndex((l) => l.startsWith(`$ ${command}`));
    expect(start, command).toBeGreaterThan(-1);
    const end = doc.findIndex((l, i) => i > start && (l.startsWith('$ ') || l.startsWith('```')));
    return doc.slice(start + 1, end);
  };
  /** The CSV part of those lines: from the header that begins with `first`, as objects. */
  const csvRows = (lines: string[], first: string) => {
    const at = lines.findIndex((l) => l.startsWith(`${first},`));
    // Read as CSV (csv-parse): a story's event may hold commas, quoted.
    return parse(lines.slice(at).join('\n'), { columns: true }) as Record<string, string>[];
  };
  const utc = (text: string) => Date.parse(`${text.replace(' ', 'T')}Z`) / 1000;

  it('the month-end recipe: each ledger row as of the end of October, its tie-out to October\'s mrr_end, and one subscription\'s story', async () => {
    // The doc's examples run `--emulator` anchored at 2026-11-22 (docs.test.ts): the same data here.
    const anchored = await emulator({ now: Date.UTC(2026, 10, 22) / 1000 });
    const truth = anchored.subscriptions('bsc').subscriptions;
    await anchored.close();
    const doc = readFileSync(join(import.meta.dirname, '../../docs/subscriptions.md'), 'utf8').split('\n');
    const at = Date.UTC(2026, 10, 1) / 1000; // the end of 2026-10-31
    const ledger = csvRows(shownUnder(doc, 'payrec --emulator subscriptions --at 2026-10-31 --state active,past_due'), 'subscriptionId');
    expect(ledger.length).toBeGreaterThan(2);
    for (const row of ledger) {
      const f = truth.find((x) => x.subscriptionId === row.subscriptionId)!;
      const o = oracle(f, at)!;
      expect([row.token, row.mrr, utc(row.paidThrough), row.state, row.endsAt === '' ? null : utc(row.endsAt)]).toEqual([o.token, o.mrr, o.paidThrough, o.state, o.cancelledAt === null ? null : Math.max(o.paidThrough, o.cancelledAt)]);
    }
    const october = csvRows(shownUnder(doc, 'payrec --emulator metrics --period 2026-10'), 'from');
    for (const row of october) {
      const mine = ledger.filter((r) => r.token === row.token);
      expect(row.mrr_end).toBe(mine.reduce((sum, r) => sum.plus(r.mrr), new Big(0)).toFixed());
      expect(Number(row.subscriptions_end)).toBe(mine.length);
      expect(Number(row.subscriptions_start) + Number(row.new) + Number(row.reactivated) - Number(row.churned)).toBe(Number(row.subscriptions_end));
      expect(new Big(row.mrr_end).minus(row.mrr_start).eq(row.mrr_net)).toBe(true);
    }
    // The sum the prose spells out is the 8PAY row's.
    const eight = ledger.filter((r) => r.token === '8PAY').map((r) => r.mrr);
    expect(doc.join('\n')).toContain(`8PAY ${eight.join(' + ')} = ${october.find((r) => r.token === '8PAY')!.mrr_end}`);
    // The story: its changes of state are the oracle's.
    const story = csvRows(shownUnder(doc, 'payrec --emulator subscriptions 0xf6333dcc'), 'timestamp');
    const f = truth.find((x) => x.subscriptionId.startsWith('0xf6333dcc'))!;
    expect(story.filter((r) => r.state !== '' && !r.event.endsWith(' on')).map((r) => [utc(r.timestamp), r.state])).toEqual(storyChanges(f, at).map((c) => [c.time, c.state]));
    expect(story.filter((r) => r.event === 'billing').map((r) => [utc(r.timestamp), r.outcome])).toEqual(f.billings.filter((b) => (b.timestamp as number) < at).map((b) => [b.timestamp, failed(b) ? 'failed' : paid(b) ? 'paid' : 'pending']));
    // Past due at the end of October: it lapses when its grace runs out.
    expect(story.at(-1)).toMatchObject({ event: 'lapses on', state: 'lapsed', timestamp: new Date((oracle(f, at)!.paidThrough + GRACE + 1) * 1000).toISOString().replace('T', ' ').slice(0, 19) });
  });
});
