import { DuckDBInstance } from '@duckdb/node-api';
import Big from 'big.js';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SubscriptionFacts } from '../../src/emulator/index.js';
import { emulator, payrec, suiteEmulators, tempDir } from './helpers.js';

// payrec subscriptions and payrec metrics, run as a user would against a mirror of the
// emulator, held against an oracle written here from DESIGN.md's definitions and the
// emulator's subscription facts (its complete billings and cancellations): the states,
// MRR and counts are computed below by scanning every record, not by payrec's engine.

const s = suiteEmulators();
const DAY = 86_400;
const GRACE = 30 * DAY;
let db: string;
let facts: SubscriptionFacts[];

beforeAll(async () => {
  const truth = s.emu.subscriptions('bsc');
  facts = truth.subscriptions;
  db = join(tempDir(), 'mirror.duckdb');
  const plans = truth.plans.flatMap((p) => ['--plan-id', p.planId]);
  const r = await payrec(s.emu, ['sync', 'fr/billings', 'fr/cancellations', ...plans, '--db', db, '-q']);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
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
  const state = cancelled ? 'cancelled' : t <= paidThrough ? 'active' : t <= paidThrough + grace ? 'past_due' : 'lapsed';
  return { subscriptionId: f.subscriptionId, planId: f.planId, token: f.token, mrr: mrrOf(f.amount, period), started: first.timestamp as number, paidThrough, cancelledAt: cancelled ? (c!.timestamp as number) : null, state };
}

const counted = (r: OracleRow | undefined): r is OracleRow => r !== undefined && (r.state === 'active' || r.state === 'past_due');

describe('payrec subscriptions', () => {
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
      const r = await payrec(s.emu, ['subscriptions', '--db', db, '--at', String(t), '--grace', grace, '--plan-id', f.planId, '-f', 'json']);
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
    const count = await payrec(s.emu, ['subscriptions', '--db', db, '--at', String(at), '--state', 'past_due', '--count', '-q']);
    expect(count.stdout).toBe(`${pastDue}\n`);
    const gate = await payrec(s.emu, ['subscriptions', '--db', db, '--at', String(at), '--state', 'past_due', '--fail-if-any', '-f', 'jsonl', '-q']);
    expect(gate.exitCode).toBe(9);
    expect(gate.stdout.trim().split('\n')).toHaveLength(pastDue);
    expect(gate.stderr).toMatch(new RegExp(`${pastDue} subscriptions? matched \\(--fail-if-any\\)`));
  });
});

describe('payrec subscriptions SUBSCRIPTION_ID', () => {
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
    const refused = await payrec(s.quiet, ['subscriptions', `0x${'ab'.repeat(32)}`, '--state', 'active']);
    expect(refused.exitCode).toBe(2);
    expect(s.quiet.requests).toEqual([]);
  });
});

describe('the mirror\'s subscriptions view', () => {
  it('holds the ledger of payrec subscriptions as of now, row for row, and SUM(mrr) per token is exact', async () => {
    // The view reads the real clock (now()): an emulator whose data end today, so that
    // every day some subscriptions are active and past due.
    const today = await emulator({ now: Math.floor(Date.now() / 1000 / DAY) * DAY });
    const db = join(tempDir(), 'today.duckdb');
    try {
      const plans = today.subscriptions('bsc').plans.flatMap((p) => ['--plan-id', p.planId]);
      expect((await payrec(today, ['sync', 'fr/billings', 'fr/cancellations', ...plans, '--db', db, '-q'])).exitCode).toBe(0);
    } finally {
      await today.close();
    }
    const columns = 'subscriptionId, planId, token, amount, period, mrr, epoch(started)::BIGINT AS started, epoch(paidThrough)::BIGINT AS paidThrough, epoch(lastAttempt)::BIGINT AS lastAttempt, failedAttempts, epoch(cancelledAt)::BIGINT AS cancelledAt, forced, state';
    const [view, sums, cli] = await Promise.all([
      payrec(s.emu, ['sql', '--db', db, '-f', 'json', `SELECT ${columns} FROM subscriptions ORDER BY subscriptionId`]),
      payrec(s.emu, ['sql', '--db', db, '-f', 'json', `SELECT token, SUM(mrr) AS mrr FROM subscriptions WHERE state IN ('active', 'past_due') GROUP BY token ORDER BY token`]),
      payrec(s.emu, ['subscriptions', '--db', db, '-f', 'json', '-q']),
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

describe('payrec fr plans', () => {
  it('lists every plan synced, with the terms of the emulator\'s plans and its subscriptions that ever paid', async () => {
    const truth = s.emu.subscriptions('bsc');
    const r = await payrec(s.emu, ['fr', 'plans', '--db', db, '-f', 'json']);
    expect(r.exitCode).toBe(0);
    const rows = JSON.parse(r.stdout) as { planId: string; token: string | null; amount: string | null; period: number | null; subscriptions: number; seenIn: string }[];
    expect(rows.map((x) => x.planId)).toEqual(truth.plans.map((p) => p.planId).sort());
    for (const plan of truth.plans) {
      const row = rows.find((x) => x.planId === plan.planId)!;
      const started = facts.filter((f) => f.planId === plan.planId && f.billings.some(paid)).length;
      expect(row.subscriptions).toBe(started);
      if (started > 0) expect({ token: row.token, amount: row.amount, period: row.period }).toEqual({ token: plan.token, amount: plan.amount, period: plan.period });
      expect(row.seenIn).toContain('synced');
    }
  });
});

describe('payrec metrics', () => {
  it('MRR and counts of every month of a year equal the oracle at the months\' ends; the identity holds in every row', async () => {
    const r = await payrec(s.emu, ['metrics', '--db', db, '--period', '2025', '-f', 'json', '--at', String(s.emu.subscriptions('bsc').now)]);
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
  });

  it('weeks of a Berlin October with its 25-hour Sunday begin at Berlin midnights on Mondays', async () => {
    const r = await payrec(s.emu, ['metrics', '--db', db, '--period', '2025-10', '--interval', 'week', '--tz', 'Europe/Berlin', '-f', 'json', '--columns', 'from,to']);
    expect(r.exitCode).toBe(0);
    const bounds = [...new Set((JSON.parse(r.stdout) as { from: number; to: number }[]).flatMap((x) => [x.from, x.to]))].sort((a, b) => a - b);
    // 1 October 00:00 CEST (UTC+2), Mondays 6, 13, 20 October (CEST), 27 October (CET,
    // after the 25-hour Sunday the 26th), 1 November 00:00 CET (UTC+1).
    const utc = (d: number, m: number, h: number) => Date.UTC(2025, m - 1, d, h) / 1000;
    const expected = [utc(30, 9, 22), utc(5, 10, 22), utc(12, 10, 22), utc(19, 10, 22), utc(26, 10, 23), utc(31, 10, 23)];
    for (const b of bounds) expect(expected).toContain(b);
    expect(bounds[0]).toBe(expected[0]);
    expect(bounds.at(-1)).toBe(expected.at(-1));
  });

  it('--by plan rows add up to the token rows', async () => {
    const args = ['metrics', '--db', db, '--period', '2025-Q3', '-f', 'json'];
    const [byToken, byPlan] = await Promise.all([payrec(s.emu, args), payrec(s.emu, [...args, '--by', 'plan'])]);
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

describe('a plan synced with sync --from', () => {
  it('a report that starts before the plan\'s synced start is refused (exit 2, naming the plan); one after it runs', async () => {
    const plan = s.emu.subscriptions('bsc').plans[0].planId;
    const bounded = join(tempDir(), 'bounded.duckdb');
    const sync = await payrec(s.emu, ['sync', 'fr/billings', 'fr/cancellations', '--plan-id', plan, '--from', '2025-06-01', '--db', bounded, '-q']);
    expect(sync.exitCode).toBe(0);
    const before = await payrec(s.emu, ['metrics', '--db', bounded, '--period', '2025']);
    expect(before.exitCode).toBe(2);
    expect(before.stdout).toBe('');
    expect(before.stderr).toContain(`the mirror holds plan ${plan} only from 2025-06-01 00:00:00 UTC`);
    // One second later than the bound is not enough for the month of May, exactly the bound is.
    expect((await payrec(s.emu, ['metrics', '--db', bounded, '--from', '2025-05-31T23:59:59Z', '--to', '2025-07-31'])).exitCode).toBe(2);
    const after = await payrec(s.emu, ['metrics', '--db', bounded, '--period', '2025-06', '-f', 'json']);
    expect(after.exitCode).toBe(0);
  });
});

describe('bad input: exit 2 before anything is read or sent', () => {
  const cases: [string, string[], RegExp][] = [
    ['an unknown state', ['subscriptions', '--state', 'overdue'], /invalid --state "overdue": expected active, past_due, lapsed, cancelled/],
    ['a negative grace', ['subscriptions', '--grace', '-1'], /invalid --grace "-1"/],
    ['an unknown interval', ['metrics', '--interval', 'fortnight'], /invalid --interval "fortnight"/],
    ['--period with --from', ['metrics', '--period', '2025', '--from', '2025-01-01'], /either --period or --from\/--to/],
    ['no mirror', ['metrics', '--db', '/nonexistent-folder/none.duckdb'], /no mirror at .*none\.duckdb[\s\S]*payrec sync \(or add --sync\)/],
  ];
  for (const [what, args, message] of cases) {
    it(what, async () => {
      const r = await payrec(s.quiet, args);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
      expect(s.quiet.requests).toEqual([]);
    });
  }
});

describe('a DuckDB file payrec never synced into: exit 2 naming it, never an internal error', () => {
  it('the empty file a refused sync made, and another tool\'s database', async () => {
    const dir = tempDir();
    // A sync refused as bad input (a list kept per plan, no plan known): exit 2, but it made an empty DuckDB file.
    const refused = join(dir, 'refused.duckdb');
    const sync = await payrec(s.quiet, ['sync', 'fr/billings', '--db', refused]);
    expect(sync.exitCode).toBe(2);
    const foreign = join(dir, 'foreign.duckdb');
    const instance = await DuckDBInstance.create(foreign);
    const connection = await instance.connect();
    await connection.run('CREATE TABLE notes (t VARCHAR)');
    connection.closeSync();
    instance.closeSync();
    for (const file of [refused, foreign]) {
      for (const command of ['subscriptions', 'metrics']) {
        const r = await payrec(s.quiet, [command, '--db', file]);
        expect(r.stderr, `${command} ${file}`).toContain(`error: ${file} is not a payrec mirror: it holds none of payrec's tables`);
        expect(r.stderr).not.toContain('internal error');
        expect(r.exitCode).toBe(2);
      }
    }
    expect(s.quiet.requests).toEqual([]);
  });
});

describe('the future is refused as the lists refuse it: exit 2 naming now, nothing read', () => {
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
      const r = await payrec(undefined, ['--emulator', ...args, '--db', join(tempDir(), 'none.duckdb')], { env });
      expect(r.stderr).toContain(`error: ${message}`);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
    });
  }
  it('--at now itself and a period under way are answered (with --sync)', async () => {
    const home = tempDir();
    const at = await payrec(undefined, ['--emulator', 'subscriptions', '--at', '2026-11-22T10:00:00Z', '--count', '--sync', '--db', join(home, 'm.duckdb')], { env });
    expect(at.exitCode).toBe(0);
    expect(Number(at.stdout)).toBeGreaterThan(0);
    const month = await payrec(undefined, ['--emulator', 'metrics', '--period', '2026-11', '--db', join(home, 'm.duckdb'), '-f', 'json'], { env });
    expect(month.exitCode).toBe(0);
    expect(JSON.parse(month.stdout).length).toBeGreaterThan(0);
  });
});

describe('a billing whose amount the mirror could not keep, but sent as a plain decimal', () => {
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
    const r = await payrec(s.emu, ['subscriptions', '--db', copy, '--at', String(at), '-f', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as (OracleRow & { amount: string })[];
    const period = (subscribe.cycleEnd as number) - (subscribe.cycleStart as number) + 1;
    const expected = facts.map((x) => oracle(x, at)).filter((x) => x !== undefined).map((x) => (x.subscriptionId === f.subscriptionId ? { ...x, mrr: mrrOf(wide, period) } : x));
    const pick = ({ subscriptionId, planId, token, mrr, started, paidThrough, cancelledAt, state }: OracleRow) => ({ subscriptionId, planId, token, mrr, started, paidThrough, cancelledAt, state });
    const byId = (a: OracleRow, b: OracleRow) => a.subscriptionId.localeCompare(b.subscriptionId);
    expect(rows.map(pick).sort(byId)).toEqual(expected.sort(byId));
    expect(rows.find((x) => x.subscriptionId === f.subscriptionId)!.amount).toBe(wide);
  });
});

describe('a billing whose amount cannot be read exactly stops the figures (exit 6), never left out', () => {
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
        const r = await payrec(s.emu, [...args, '--db', copy, '--at', String(s.emu.subscriptions('bsc').now), '-f', 'csv']);
        expect(r.exitCode, `${args[0]}: ${r.stderr}`).toBe(6);
        expect(r.stdout).toBe('');
        expect(r.stderr).toContain(victim);
      }
    });
  }
});
