import { DuckDBInstance } from '@duckdb/node-api';
import Big from 'big.js';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { SubscriptionFacts } from '../../src/emulator/index.js';
import type { BillingInput, MetricsRow, SubscriptionRow } from '../../src/subscriptions/engine.js';
import { cutAt, failed, naiveLedger, naiveMetrics, paid, recordsOfFacts, type Records } from '../oracle/subscriptions.js';
import { execa } from 'execa';
import { BIN, emulator, payrec, payrecEnv, payrecInProcess, program, tempDir, type RunOptions } from './helpers.js';

// Three tests at a time: enough to overlap the processes of one file, few enough that a
// loaded machine does not push a test past its timeout.
vi.setConfig({ maxConcurrency: 3 });

// What each flag of payrec subscriptions and payrec metrics changes in the answer
// (issue 31, survivors 1–7 and 9): each test runs payrec on a mirror of the built-in
// emulator, with the command's clock pinned (PAYREC_EMULATOR_NOW), and holds
// the rows to the brute-force oracle (test/oracle/subscriptions.ts, none of the engine's
// code) over the emulator's complete records, with windows and instants written here.
// Each test also checks that the wrong answer it guards against differs from the right
// one on these data (a flag ignored, an instant off by one, another window), so that it
// cannot pass by accident.
// Every test only reads the mirror synced once below (or a copy of it, or a file of its
// own), so the tests of each describe run at once (describe.concurrent): the file's
// payrec processes overlap instead of waiting on one another (issue 48, the suite's time).
// Answers read from the mirror and refusals in words run payrec inside this process
// (`here`, payrecInProcess): no process boundary is under test there, and a process costs
// 0.4 s (a refusal) to 0.9 s (a mirror read) of CPU; so do the syncs of a plan or two
// after the first (issue 48). What only a process shows stays one (`run`): the first sync
// and the binary's whole ledger in beforeAll, exit 4, -o's file, a reader beside another
// program, a terminal, --jq, no mirror made (once), the hints without --emulator (once).

const DAY = 86_400;
const GRACE = 30 * DAY;
/** Now, for the emulator's data and the command: mid-day, mid-month, so that "cut at now" shows. */
const NOW = Date.UTC(2026, 10, 22, 10) / 1000;
const pinned: RunOptions = { env: { PAYREC_EMULATOR_NOW: String(NOW) } };
const utc = (y: number, m: number, d = 1) => Date.UTC(y, m - 1, d) / 1000;
/** Calendar months in UTC from (y, m), n of them. */
const months = (y: number, m: number, n: number) => Array.from({ length: n }, (_, i) => ({ from: utc(y, m + i), to: utc(y, m + i + 1) }));

let db: string;
let facts: SubscriptionFacts[];
let all: Records;
let plans: string[];

/** The records of these plans only. */
const only = (ids: string[]): Records => ({ billings: all.billings.filter((b) => ids.includes(b.planId)), cancellations: all.cancellations.filter((c) => ids.includes(c.planId)) });
const run = (args: string[], o: RunOptions = pinned) => payrec(undefined, ['--emulator', ...args], o);
/** The same run inside this process: for the answers below, where no process boundary is under test. */
const here = (args: string[], o: RunOptions = pinned) => payrecInProcess(undefined, ['--emulator', ...args], o);
async function json<T>(args: string[]): Promise<T> {
  const r = await here([...args, '--db', db, '-f', 'json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}
const ledgerAt = (args: string[]) => json<SubscriptionRow[]>(['subscriptions', ...args]);
const metricsOf = (args: string[]) => json<MetricsRow[]>(['metrics', ...args]);

beforeAll(async () => {
  // The same data as --emulator's under the same anchor (records and seed by default).
  const emu = await emulator({ now: NOW });
  const truth = emu.subscriptions('bsc');
  await emu.close();
  facts = truth.subscriptions;
  plans = truth.plans.map((p) => p.planId);
  all = recordsOfFacts(facts);
  db = join(tempDir(), 'mirror.duckdb');
  const r = await run(['sync', 'fr/billings', 'fr/cancellations', ...plans.flatMap((p) => ['--plan-id', p]), '--db', db, '-q']);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  // The mirror holds what the oracle reads: the same data, as the built binary reads it
  // (the tests below read it in this process).
  const every = await run(['subscriptions', '--db', db, '-f', 'json']);
  expect(every.exitCode, every.stderr).toBe(0);
  expect(JSON.parse(every.stdout)).toEqual(naiveLedger(all.billings, all.cancellations, NOW, GRACE));
});

describe.concurrent('--plan-id: only that plan, its rows and its totals (survivor 1)', () => {
  it('subscriptions --plan-id leaves the other plans out', async () => {
    // Two plans of one token, so that the token's totals below are not the plan's by chance.
    const eight = plans.filter((p) => facts.find((f) => f.planId === p)?.token === '8PAY');
    expect(eight.length).toBeGreaterThan(1);
    const [one, two] = [eight[0], eight[1]];
    const rows = await ledgerAt(['--plan-id', one]);
    expect(rows).toEqual(naiveLedger(only([one]).billings, only([one]).cancellations, NOW, GRACE));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(naiveLedger(all.billings, all.cancellations, NOW, GRACE).length);
    // Repeated, or comma-separated: those plans.
    const both = naiveLedger(only([one, two]).billings, only([one, two]).cancellations, NOW, GRACE);
    expect(await ledgerAt(['--plan-id', one, '--plan-id', two])).toEqual(both);
    expect(await ledgerAt(['--plan-id', `${one},${two}`])).toEqual(both);
  });

  it('metrics --plan-id totals that plan only, though its token has other plans', async () => {
    const one = plans.find((p) => facts.find((f) => f.planId === p)?.token === '8PAY')!;
    const intervals = cutAt(months(2026, 1, 12), NOW);
    const rows = await metricsOf(['--period', '2026', '--plan-id', one]);
    const expected = naiveMetrics(only([one]), intervals, NOW, GRACE, false);
    expect(rows).toEqual(expected);
    // The whole chain's 8PAY figures differ: a --plan-id ignored would show.
    const chain = naiveMetrics(all, intervals, NOW, GRACE, false).filter((r) => r.token === '8PAY');
    expect(chain.map((r) => r.mrr_end)).not.toEqual(expected.map((r) => r.mrr_end));
    expect(new Set(rows.map((r) => r.token))).toEqual(new Set(['8PAY']));
  });
});

describe.concurrent('--grace (survivor 2; survivor 7 for one subscription)', () => {
  it('metrics --grace 3: subscriptions lapse 3 days after their paid time, in every column', async () => {
    const intervals = cutAt(months(2026, 1, 12), NOW);
    const expected = naiveMetrics(all, intervals, NOW, 3 * DAY, false);
    expect(expected).not.toEqual(naiveMetrics(all, intervals, NOW, GRACE, false));
    expect(await metricsOf(['--period', '2026', '--grace', '3'])).toEqual(expected);
    expect(await metricsOf(['--period', '2026', '--grace', '0'])).toEqual(naiveMetrics(all, intervals, NOW, 0, false));
  });

  it('subscriptions ID --grace: the summary is the oracle\'s row under that grace', async () => {
    // A subscription past due now under 30 days of grace, lapsed under 0.
    const row = naiveLedger(all.billings, all.cancellations, NOW, GRACE).find((r) => r.state === 'past_due')!;
    expect(row).toBeDefined();
    const lapsed = naiveLedger(all.billings, all.cancellations, NOW, 0).find((r) => r.subscriptionId === row.subscriptionId)!;
    expect(lapsed.state).toBe('lapsed');
    for (const [grace, expected] of [['30', row], ['0', lapsed]] as const) {
      const shown = await json<Record<string, unknown>>(['subscriptions', row.subscriptionId, '--grace', grace]);
      expect(pick(shown, Object.keys(expected))).toEqual(expected);
    }
  });
});

const isPaid = (b: Record<string, unknown>) => paid(b as unknown as BillingInput);
/** These keys of a record, in their order. */
const pick = (record: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, record[k]]));

describe.concurrent('payrec subscriptions ID (survivor 7)', () => {
  interface Shown {
    story: { timestamp: number; event: string; state?: string; outcome?: string; transactionHash?: string }[];
    attempts: { transactionHash: string }[];
    [k: string]: unknown;
  }

  it('a billing stamped exactly at --at is not yet seen; one second later it is', async () => {
    // A subscription's second paid billing: seen or not changes its paidThrough.
    const f = facts.find((x) => x.billings.filter(isPaid).length > 2)!;
    const b = f.billings.filter(isPaid)[1];
    const t = b.timestamp as number;
    const mine = only([f.planId]);
    const ledgerOf = (at: number) => naiveLedger(mine.billings.filter((x) => x.subscriptionId === f.subscriptionId), mine.cancellations.filter((x) => x.subscriptionId === f.subscriptionId), at, GRACE)[0];
    expect(ledgerOf(t).paidThrough).not.toBe(ledgerOf(t + 1).paidThrough);
    for (const at of [t, t + 1]) {
      const shown = await json<Shown>(['subscriptions', f.subscriptionId, '--at', String(at)]);
      expect(pick(shown, Object.keys(ledgerOf(at)))).toEqual(ledgerOf(at));
      const hashes = f.billings.filter((x) => (x.timestamp as number) < at).map((x) => x.transactionHash);
      expect(shown.attempts.map((x) => x.transactionHash)).toEqual(hashes);
      expect(shown.story.filter((x) => x.event === 'billing').map((x) => x.transactionHash)).toEqual(hashes);
    }
  });

  it('a forced cancellation is "forced by the plan" and ends it at once ("cancelled"); a voluntary one is "by the customer" and ends with its paid period ("ended")', async () => {
    const confirmed = facts.filter((x) => x.cancellation?.transactionStatus === 'confirmed' && x.start !== null && (x.start as number) < (x.cancellation.timestamp as number));
    const forced = confirmed.find((x) => x.cancellation!.forced === true)!;
    const voluntary = confirmed.find((x) => x.cancellation!.forced === false)!;
    expect(forced).toBeDefined();
    expect(voluntary).toBeDefined();
    for (const [f, outcome, event] of [[forced, 'forced by the plan', 'cancelled'], [voluntary, 'by the customer', 'ended']] as const) {
      const shown = await json<Shown>(['subscriptions', f.subscriptionId]);
      const c = f.cancellation!;
      expect(shown.story.filter((x) => x.event === 'cancellation')).toEqual([{ timestamp: c.timestamp, event: 'cancellation', outcome, transactionHash: c.transactionHash }]);
      const row = naiveLedger(all.billings.filter((x) => x.subscriptionId === f.subscriptionId), all.cancellations.filter((x) => x.subscriptionId === f.subscriptionId), NOW, GRACE)[0];
      expect(row.state).toBe('cancelled');
      // The change to cancelled, at the instant the oracle's state turns: forced, a second after the record; voluntary, a second after its paid period.
      const when = f.cancellation!.forced ? (c.timestamp as number) + 1 : Math.max(row.paidThrough, c.timestamp as number) + 1;
      expect(shown.story.filter((x) => x.state === 'cancelled')).toEqual([{ timestamp: when, event, state: 'cancelled' }]);
    }
  });
});

describe.concurrent('the window: its default, a date-only --to, the last interval cut at now (survivors 4, 5, 9)', () => {
  it('without --period or --from: the last 12 months up to now, the last one cut at now', async () => {
    const intervals = cutAt(months(2025, 12, 12), NOW);
    expect(intervals.at(-1)).toEqual({ from: utc(2026, 11), to: NOW });
    const rows = await metricsOf([]);
    expect(rows).toEqual(naiveMetrics(all, intervals, NOW, GRACE, false));
    expect(new Set(rows.map((r) => r.from)).size).toBe(12);
  });

  it('without --period or --from, with --at and --interval week: the 12 weeks up to --at', async () => {
    const at = utc(2026, 6, 17) + 12 * 3600; // Wednesday 2026-06-17 12:00 UTC
    // ISO weeks begin on Monday: the week holding --at began on Monday 2026-06-15.
    const weeks = Array.from({ length: 12 }, (_, i) => ({ from: utc(2026, 6, 15) - (11 - i) * 7 * DAY, to: utc(2026, 6, 15) - (10 - i) * 7 * DAY }));
    const rows = await metricsOf(['--at', String(at), '--interval', 'week']);
    expect(rows).toEqual(naiveMetrics(all, cutAt(weeks, at), at, GRACE, false));
    expect(new Set(rows.map((r) => r.from)).size).toBe(12);
  });

  it('a period under way ends at now: its subscriptions_end and movements are those of now, not of the month\'s end', async () => {
    const november = [{ from: utc(2026, 11), to: NOW }];
    const expected = naiveMetrics(all, november, NOW, GRACE, false);
    // At the month's calendar end the figures differ: paid periods end, graces run out, by then.
    expect(naiveMetrics(all, [{ from: utc(2026, 11), to: utc(2026, 12) }], NOW, GRACE, false).map((r) => r.subscriptions_end)).not.toEqual(expected.map((r) => r.subscriptions_end));
    expect(await metricsOf(['--period', '2026-11'])).toEqual(expected);
  });

  it('a date-only --to includes that whole day: the report ends at the next midnight, in --tz', async () => {
    const october = [{ from: utc(2026, 10), to: utc(2026, 11) }];
    expect(await metricsOf(['--from', '2026-10-01', '--to', '2026-10-31'])).toEqual(naiveMetrics(all, october, NOW, GRACE, false));
    // In Berlin, October 31 ends at 23:00 UTC (winter time since October 25); the month began at 22:00 UTC on September 30.
    const berlin = [{ from: utc(2026, 9, 30) + 22 * 3600, to: utc(2026, 10, 31) + 23 * 3600 }];
    expect(await metricsOf(['--from', '2026-10-01', '--to', '2026-10-31', '--tz', 'Europe/Berlin'])).toEqual(naiveMetrics(all, berlin, NOW, GRACE, false));
  });

  it('recovered and lost are judged at --at (now), not at the end of the window', async () => {
    const dunning = (rows: MetricsRow[]) => rows.map((r) => [r.token, r.dunning_cases, r.recovered, r.recovered_amount, r.lost, r.open]);
    // September: cases whose subscriptions had not lapsed by October 1 but have by now (lost, not open).
    const september = months(2026, 9, 1);
    const expected = naiveMetrics(all, september, NOW, GRACE, false);
    expect(dunning(expected)).not.toEqual(dunning(naiveMetrics(all, september, utc(2026, 10), GRACE, false)));
    expect(await metricsOf(['--period', '2026-09'])).toEqual(expected);
    // A day whose first failed billing of a cycle was paid on a later day: recovered now, open at the day's end.
    const day = (t: number) => Math.floor(t / DAY) * DAY;
    const first = new Map<string, BillingInput>();
    for (const b of [...all.billings].sort((x, y) => x.timestamp - y.timestamp)) if (failed(b) && !first.has(`${b.subscriptionId} ${b.cycleStart}`)) first.set(`${b.subscriptionId} ${b.cycleStart}`, b);
    const late = [...first.values()].find((b) => all.billings.some((o) => paid(o) && o.subscriptionId === b.subscriptionId && o.cycleStart === b.cycleStart && day(o.timestamp) > day(b.timestamp)))!;
    expect(late).toBeDefined();
    const oneDay = [{ from: day(late.timestamp), to: day(late.timestamp) + DAY }];
    const recovered = naiveMetrics(all, oneDay, NOW, GRACE, false);
    expect(dunning(recovered)).not.toEqual(dunning(naiveMetrics(all, oneDay, oneDay[0].to, GRACE, false)));
    const date = new Date(oneDay[0].from * 1000).toISOString().slice(0, 10);
    expect(await metricsOf(['--from', date, '--to', date, '--interval', 'day'])).toEqual(recovered);
  });

  it('--chart plots each month\'s mrr_end', async () => {
    const rows = naiveMetrics(all, cutAt(months(2026, 1, 12), NOW), NOW, GRACE, false).filter((r) => r.token === 'USDC');
    // Its MRRs are short (4.125, 8.25, 12.5): the bars are labelled with the exact figures.
    expect(rows.some((r) => r.mrr_start !== r.mrr_end)).toBe(true);
    const r = await here(['metrics', '--period', '2026', '--chart', '--db', db]);
    expect(r.exitCode, r.stderr).toBe(0);
    const chart = r.stdout.split('\n');
    const start = chart.indexOf('USDC MRR at the end of each month (UTC)');
    expect(start).toBeGreaterThan(-1);
    const bars = chart.slice(start + 1, start + 1 + rows.length).map((l) => [l.split(' ')[0], l.trim().split(/\s+/).at(-1)]);
    expect(bars).toEqual(rows.map((x) => [new Date(x.from * 1000).toISOString().slice(0, 7), x.mrr_end]));
    // One chart per token, by name, the first at the top and each other after a blank line; tokens are never added together.
    const tokens = [...new Set(naiveMetrics(all, cutAt(months(2026, 1, 12), NOW), NOW, GRACE, false).map((x) => x.token))].sort();
    expect(tokens.length).toBeGreaterThan(1);
    const titles = chart.flatMap((l, i) => (l.endsWith(' MRR at the end of each month (UTC)') ? [[l.split(' ')[0], chart[i - 1] ?? '']] : []));
    expect(chart[0]).toBe(`${tokens[0]} MRR at the end of each month (UTC)`);
    expect(titles).toEqual(tokens.map((t) => [t, '']));
  });
});

describe.concurrent('what the mirror holds, said and checked (survivor 6)', () => {
  it('"synced up to" names the oldest cursor of the plans\' lists', async () => {
    // Cursors written into a copy of the mirror: one plan's cancellations synced long before the rest.
    const copy = join(tempDir(), 'stale.duckdb');
    copyFileSync(db, copy);
    const [older, newer] = [utc(2026, 11, 20) + 3600, utc(2026, 11, 21) + 7200];
    const instance = await DuckDBInstance.create(copy);
    const conn = await instance.connect();
    await conn.run("UPDATE payrec_cursors SET cursor = $1 WHERE collection = 'fixed-recurring/billings'", [newer]);
    await conn.run("UPDATE payrec_cursors SET cursor = $1 WHERE collection = 'fixed-recurring/cancellations' AND scope = $2", [older, `planId=${plans[3]}`]);
    await conn.run("UPDATE payrec_cursors SET cursor = $1 WHERE collection = 'fixed-recurring/cancellations' AND scope <> $2", [newer, `planId=${plans[3]}`]);
    conn.closeSync();
    instance.closeSync();
    for (const command of ['subscriptions', 'metrics']) {
      const r = await here([command, '--db', copy, '--count']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain(`billings and cancellations synced up to 2026-11-20 01:00:00 UTC; as of 2026-11-22 10:00:00, so records since then are not counted`);
    }
  });

  it('--at the second after the cursors counts every record synced: no "not counted"; a second later, said', async () => {
    // The cursors' second is synced whole: --at that second + 1 (records stamped before it) reads nothing past it.
    const copy = join(tempDir(), 'upto.duckdb');
    copyFileSync(db, copy);
    const upTo = utc(2026, 11, 20) + 3600;
    const instance = await DuckDBInstance.create(copy);
    const conn = await instance.connect();
    await conn.run("UPDATE payrec_cursors SET cursor = $1 WHERE collection IN ('fixed-recurring/billings', 'fixed-recurring/cancellations')", [upTo]);
    conn.closeSync();
    instance.closeSync();
    const synced = `billings and cancellations synced up to 2026-11-20 01:00:00 UTC`;
    const whole = await here(['subscriptions', '--db', copy, '--count', '--at', String(upTo + 1)]);
    expect(whole.exitCode, whole.stderr).toBe(0);
    expect(whole.stderr).toContain(`${synced}\n`);
    const past = await here(['subscriptions', '--db', copy, '--count', '--at', String(upTo + 2)]);
    expect(past.stderr).toContain(`${synced}; as of 2026-11-20 01:00:02, so records since then are not counted`);
  });

  // Either list may be the one synced later: April begins after one list's start but
  // before the other's, whose records of April were never read.
  for (const [later, earlier] of [['fr/cancellations', 'fr/billings'], ['fr/billings', 'fr/cancellations']]) {
    it(`a report that starts before a plan's synced start is refused, by the later of its two lists' sync --from (${later})`, async () => {
      const plan = plans[0];
      const file = join(tempDir(), 'from.duckdb');
      for (const [list, from] of [[earlier, '2026-03-01'], [later, '2026-05-01']]) {
        const r = await here(['sync', list, '--plan-id', plan, '--from', from, '--db', file, '-q']);
        expect(r.exitCode, r.stderr).toBe(0);
      }
      const april = await here(['metrics', '--period', '2026-04', '--db', file]);
      expect(april.exitCode).toBe(2);
      expect(april.stderr).toContain(
        `the mirror holds plan ${plan} only from 2026-05-01 00:00:00 UTC (sync --from), after the report's start 2026-04-01 00:00:00: its figures would leave records out\n` +
          `hint: start the report later (--from, --period), or read the plan whole: payrec --emulator sync fr/billings fr/cancellations --plan-id ${plan} --full\n`,
      );
      expect(april.stdout).toBe('');
      // A report that starts at the synced start or later is whole: no refusal, and no warning either.
      const may = await here(['metrics', '--period', '2026-05', '--db', file, '-f', 'json']);
      expect(may.exitCode, may.stderr).toBe(0);
      expect(may.stderr).not.toContain('warning');
    });
  }

  it('a plan synced halfway (its billings without its cancellations) or not at all is refused, exit 2, naming what is missing', async () => {
    const [half, never] = plans;
    const file = join(tempDir(), 'half.duckdb');
    const sync = await here(['sync', 'fr/billings', '--plan-id', half, '--db', file, '-q']);
    expect(sync.exitCode, sync.stderr).toBe(0);
    const cases: [string[], string][] = [
      // Without --plan-id every plan the mirror has a list of is read: the half one too.
      [[], `the mirror has not synced the cancellations of plan ${half} (chain bsc): its subscriptions cannot be told`],
      [['--plan-id', never], `the mirror has not synced the billings and cancellations of plan ${never} (chain bsc): its subscriptions cannot be told`],
    ];
    for (const [flags, message] of cases) {
      for (const command of [['subscriptions'], ['metrics', '--period', '2026-05']]) {
        const r = await here([...command, ...flags, '--db', file]);
        expect(r.exitCode, r.stderr).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toContain(`error: ${message}`);
        expect(r.stderr).toContain(`hint: sync them first: payrec --emulator sync fr/billings fr/cancellations --plan-id ${flags.length ? never : half} (or add --sync)`);
      }
    }
  });
});

// Every refusal and note below is what a user reads instead of a figure; each case names
// the words, so that a check dropped, a bound moved by one or a message garbled fails.
// The mirror is the full one: where a check were skipped, the command would answer (exit 0).
describe.concurrent('refusals and notes in words (issue 31: the mutants of commands/subscriptions.ts)', () => {
  const id = () => facts[0].subscriptionId;
  const refusals: [string, () => string[], string][] = [
    ['a grace over ten years', () => ['subscriptions', '--grace', '3661'], 'invalid --grace "3661": expected a whole number of days from 0 to 3660'],
    ['a --past-due-for over ten years', () => ['subscriptions', '--past-due-for', '3661'], 'invalid --past-due-for "3661": expected a whole number of days from 0 to 3660'],
    ['--to without --from', () => ['metrics', '--to', '2025-01-31'], '--to needs --from (or give --period)'],
    ['--from at the end of a date-only --to', () => ['metrics', '--from', '2025-02-01', '--to', '2025-01-31'], '--from is after --to: the report would be empty'],
    ['--by anything but token or plan', () => ['metrics', '--by', 'coin'], 'invalid --by "coin": expected token or plan'],
    ['--chart with --count', () => ['metrics', '--period', '2026', '--chart', '--count'], '--chart draws in the terminal: it does not go with --count or --jq'],
    ['--chart with --jq', () => ['metrics', '--period', '2026', '--chart', '--jq', '.'], '--chart draws in the terminal: it does not go with --count or --jq'],
    ['a --period that begins at --at', () => ['metrics', '--period', '2026-11', '--at', '2026-10-31'], '--period "2026-11" begins after --at (2026-11-01 00:00:00 UTC): nothing of it is known then'],
    ['--from after --at', () => ['metrics', '--from', '2026-11-01', '--at', '2026-10-31'], '--from "2026-11-01" is after --at (2026-11-01 00:00:00 UTC): nothing of it is known then\nhint: a report ends at --at: give a window that begins before it, or a later --at'],
    ['a ledger flag with one subscription', () => ['subscriptions', id(), '--state', 'active'], "one subscription's story: --state is for the ledger"],
    ['two ledger flags with one subscription', () => ['subscriptions', id(), '--plan-id', plans[0], '--count'], "one subscription's story: --plan-id, --count are for the ledger"],
    ['a subcommand that does not exist', () => ['subscriptions', 'show'], 'payrec subscriptions takes no subcommand "show": without an argument it lists every subscription (the ledger), with an id it shows that one\nhint: narrow the list with --state, --plan-id, --at'],
    ['a word with digits, read as an id', () => ['subscriptions', 'show2'], 'invalid SUBSCRIPTION_ID "show2": expected a subscription id'],
    ['a --plan-id that is no id', () => ['subscriptions', '--plan-id', '0x12'], 'invalid --plan-id "0x12": expected 0x followed by 64 hex characters'],
    ['an --at that is no time', () => ['metrics', '--at', 'soon'], 'invalid --at "soon": expected Unix seconds'],
    ['a grace with letters after its digits', () => ['subscriptions', '--grace', '5x'], 'invalid --grace "5x": expected a whole number of days from 0 to 3660'],
    ['an --at a second after now', () => ['subscriptions', '--at', String(NOW + 1)], `--at "${NOW + 1}" is after now (2026-11-22 10:00:00 UTC): states are known up to now\nhint: leave --at out for the states as of now`],
    ['a --past-due-for with letters after its digits', () => ['subscriptions', '--past-due-for', '5x'], 'invalid --past-due-for "5x": expected a whole number of days from 0 to 3660'],
    ['a --past-due-for with letters before its digits', () => ['subscriptions', '--past-due-for', 'x5'], 'invalid --past-due-for "x5": expected a whole number of days from 0 to 3660'],
    ['a grace with letters before its digits', () => ['subscriptions', '--grace', 'x5'], 'invalid --grace "x5": expected a whole number of days from 0 to 3660'],
    ['a --period that is no period', () => ['metrics', '--period', '2026-13'], 'invalid --period "2026-13": expected 2026, 2026-Q4, 2026-10, 2026-10-31, today, yesterday, this-month, last-month, last-quarter, last-year'],
    ['a --from that is no time', () => ['metrics', '--from', 'soon'], 'invalid --from "soon": expected Unix seconds'],
    ['a --to that is no time', () => ['metrics', '--from', '2026-01-01', '--to', 'soon'], 'invalid --to "soon": expected Unix seconds'],
    ['--period with --to', () => ['metrics', '--period', '2026', '--to', '2026-02-01'], 'give either --period or --from/--to, not both'],
    ['an id that is no hex nor word', () => ['subscriptions', '0xgg'], 'invalid SUBSCRIPTION_ID "0xgg": expected a subscription id'],
    // Every flag of the ledger alone, named as typed.
    ...(
      [
        [['--state', 'active'], '--state'],
        [['--past-due-for', '3'], '--past-due-for'],
        [['--plan-id', '0x' + 'ab'.repeat(32)], '--plan-id'],
        [['--sync'], '--sync'],
        [['--count'], '--count'],
        [['--fail-if-any'], '--fail-if-any'],
        [['--jq', '.'], '--jq'],
      ] as const
    ).map(([flag, named]): [string, () => string[], string] => [`${named} with one subscription`, () => ['subscriptions', id(), ...flag], `one subscription's story: ${named} is for the ledger`]),
  ];
  for (const [what, args, message] of refusals) {
    it(`${what}: exit 2, in words`, async () => {
      // jq-web's module does not load inside vitest: a run that loads it is a process.
      const r = await (args().includes('--jq') ? run : here)([...args(), '--db', db]);
      expect(r.stderr).toContain(`error: ${message}`);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
    });
  }

  it('an id of hex letters alone is an id (deadbeef), not a subcommand: looked for, and not found', async () => {
    const r = await run(['subscriptions', 'deadbeef', '--db', db]);
    expect(r.stderr).toContain('error: no subscription in the mirror has an id beginning with 0xdeadbeef');
    expect(r.exitCode).toBe(4);
  });

  it('--chart with -o: exit 2 and no file', async () => {
    const file = join(tempDir(), 'mrr.csv');
    const r = await run(['metrics', '--period', '2026', '--chart', '-o', file, '--db', db]);
    expect(r.stderr).toContain('error: --chart draws in the terminal: leave out -o (or drop --chart to export the rows)');
    expect(r.exitCode).toBe(2);
    expect(existsSync(file)).toBe(false);
  });

  it('the bounds themselves are accepted: 3,660 days, and a report of the last second of a date-only --to', async () => {
    const ledger = naiveLedger(all.billings, all.cancellations, NOW, 3660 * DAY);
    expect(await ledgerAt(['--grace', '3660'])).toEqual(ledger);
    // No subscription is 3,660 days past due: none listed, and said so.
    const none = await here(['subscriptions', '--past-due-for', '3660', '--db', db, '-f', 'json']);
    expect(none.exitCode, none.stderr).toBe(0);
    expect(JSON.parse(none.stdout)).toEqual([]);
    expect(none.stderr).toContain('no subscriptions match');
    const count = await here(['subscriptions', '--past-due-for', '3660', '--count', '--db', db]);
    expect(count.stdout).toBe('0\n');
    expect(count.stderr).not.toContain('no subscriptions match');
    const second = await metricsOf(['--from', '2026-10-31T23:59:59Z', '--to', '2026-10-31']);
    expect(second.some((row) => row.subscriptions_end > 0)).toBe(true);
    for (const row of second) expect([row.from, row.to]).toEqual([utc(2026, 11) - 1, utc(2026, 11)]);
  });

  it('--state takes past-due and canceled for past_due and cancelled, in any case; --interval any case', async () => {
    const want = naiveLedger(all.billings, all.cancellations, NOW, GRACE).filter((r) => r.state === 'past_due' || r.state === 'cancelled');
    expect(new Set(want.map((r) => r.state))).toEqual(new Set(['past_due', 'cancelled']));
    expect(await ledgerAt(['--state', 'Past-Due, CANCELED'])).toEqual(want);
    const weeks = await metricsOf(['--period', '2026-10', '--interval', 'WEEK']);
    expect(weeks).toEqual(await metricsOf(['--period', '2026-10', '--interval', 'week']));
    expect(weeks.some((w) => w.to - w.from === 7 * DAY)).toBe(true);
  });

  it('the instant the figures are as of is said: now, a date-time, or the end of a date', async () => {
    const said = async (args: string[]) => (await here(['subscriptions', '--count', ...args, '--db', db])).stderr;
    expect(await said([])).toContain('as of now, 2026-11-22 10:00:00 UTC: records stamped before it\n');
    expect(await said(['--at', '2026-10-31T12:00:00Z'])).toContain('as of 2026-10-31 12:00:00 UTC: records stamped before it (--at)\n');
    expect(await said(['--at', '2026-10-31'])).toContain('as of 2026-11-01 00:00:00 UTC (the end of 2026-10-31): records stamped before it (--at)\n');
    // --at now itself is known: accepted, as now is.
    const atNow = await here(['subscriptions', '--count', '--at', String(NOW), '--db', db]);
    expect(atNow.exitCode, atNow.stderr).toBe(0);
    expect(atNow.stderr).toContain('as of 2026-11-22 10:00:00 UTC: records stamped before it (--at)\n');
  });

  it('a plan id given twice, in either case, is one plan', async () => {
    const r = await here(['subscriptions', '--count', '--plan-id', plans[0], '--plan-id', '0x' + plans[0].slice(2).toUpperCase(), '--db', db]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('from the mirror: 1 plan, billings and cancellations synced up to');
    expect(Number(r.stdout)).toBe(naiveLedger(only([plans[0]]).billings, only([plans[0]]).cancellations, NOW, GRACE).length);
  });

  it('without --emulator the hints name plain payrec sync: no mirror, a file that is no mirror', async () => {
    // Nothing is sent before the mirror is found: the service named is never asked.
    const env = { PAYREC_BASE_URL: 'http://127.0.0.1:9', PAYREC_API_KEY: 'prk_never_used_1234' };
    const file = join(tempDir(), 'none.duckdb');
    const none = await payrec(undefined, ['subscriptions', '--db', file], { env });
    expect(none.stderr).toBe(`error: there is no mirror at ${file} yet\nhint: create it with: payrec sync (or add --sync)\n`);
    const foreign = join(tempDir(), 'foreign.duckdb');
    const instance = await DuckDBInstance.create(foreign);
    (await instance.connect()).closeSync();
    instance.closeSync();
    const other = await payrecInProcess(undefined, ['subscriptions', '--db', foreign], { env });
    expect(other.stderr).toBe(`error: ${foreign} is not a payrec mirror: it holds none of payrec's tables\nhint: fill it with: payrec sync (or add --sync), or give another --db\n`);
    expect([none.exitCode, other.exitCode]).toEqual([2, 2]);
  });

  it('a mirror another program is reading (read-only) is read beside it', async () => {
    // A BI tool or payrec sql holding the file: subscriptions only reads, so it does not wait for them.
    const reader = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
    try {
      const r = await run(['subscriptions', '--count', '--db', db]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(Number(r.stdout)).toBe(naiveLedger(all.billings, all.cancellations, NOW, GRACE).length);
    } finally {
      reader.closeSync();
    }
  });

  it('a mirror synced whole is read without a warning', async () => {
    // Rows listed: nothing else said ("no subscriptions match" is for an empty list).
    const listed = await here(['subscriptions', '-f', 'json', '--db', db]);
    expect(JSON.parse(listed.stdout)).toHaveLength(naiveLedger(all.billings, all.cancellations, NOW, GRACE).length);
    expect(listed.stderr.split('\n').filter(Boolean)).toHaveLength(3);
    const r = await here(['subscriptions', '--count', '--db', db]);
    expect(r.stderr).toBe(listed.stderr);
    expect(r.stderr).not.toContain('warning');
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([
      `covering ${plans.length} fixed-recurring plans (${plans.length} remembered from sync --plan-id); a plan that no short url names is unseen until added: payrec --emulator fr plans add PLAN_ID`,
      `from the mirror: ${plans.length} plans, billings and cancellations synced up to 2026-11-22 10:00:00 UTC`,
      'as of now, 2026-11-22 10:00:00 UTC: records stamped before it',
    ]);
  });

  const script = program('script', 'bsdutils');
  (script.skip ? it.skip : it)(`--sync on a terminal says what it fetched: every record of the plan, then nothing new${script.note}`, async () => {
    // The counts are said on a terminal only (stderr a pseudo-terminal here, stdout and stderr one screen).
    const file = join(tempDir(), 'synced.duckdb');
    const onScreen = async () => {
      const command = `exec node ${BIN} --emulator subscriptions --sync --plan-id ${plans[0]} --db ${file} --count`;
      const r = await execa('script', ['-qec', command, '/dev/null'], { reject: false, stdin: 'ignore', extendEnv: false, env: { ...payrecEnv(), ...pinned.env } });
      expect(r.exitCode, r.stdout).toBe(0);
      return r.stdout.split(/\r?\n/);
    };
    const records = only([plans[0]]);
    expect(await onScreen()).toContain(`synced: ${records.billings.length + records.cancellations.length} records fetched, ${records.billings.length + records.cancellations.length} new, 0 updated`);
    expect((await onScreen()).find((l) => l.startsWith('synced: '))).toMatch(/^synced: \d+ records fetched, 0 new, 0 updated$/);
  });

  (script.skip ? it.skip : it)(`a narrow terminal gives up other columns before the interval, and with --by plan before the plan${script.note}`, async () => {
    const header = async (cols: number, args: string[]) => {
      const command = `stty cols ${cols} rows 50; exec node ${BIN} --emulator metrics --period 2026-Q3 --db ${db} -q ${args.join(' ')}`;
      const r = await execa('script', ['-qec', command, '/dev/null'], { reject: false, stdin: 'ignore', extendEnv: false, env: { ...payrecEnv(), ...pinned.env, NO_COLOR: '1' } });
      expect(r.exitCode, r.stdout).toBe(0);
      return r.stdout.split(/\r?\n/).find((l) => l.startsWith('│'))!.split('│').map((c) => c.trim()).filter(Boolean);
    };
    // 30 columns hold two: the interval and the token, which say what a row is.
    expect(await header(30, [])).toEqual(['interval', 'token']);
    // 60 hold some of the answers: the plan stays, the answers that fit after it, in order.
    const byPlan = await header(60, ['--by', 'plan']);
    expect(byPlan.slice(0, 3)).toEqual(['interval', 'token', 'planId']);
    expect(byPlan.length).toBeGreaterThan(3);
    expect(byPlan.slice(3)).toEqual(['mrr_end', 'mrr_net', 'new', 'churned'].slice(0, byPlan.length - 3));
  });

  it('no mirror file at --db: exit 2, with the way to make one, and no file made', async () => {
    const file = join(tempDir(), 'none.duckdb');
    // The first a process (its exit leaves no file behind), the second in this worker.
    for (const [command, runner] of [['subscriptions', run], ['metrics', here]] as const) {
      const r = await runner([command, '--db', file]);
      expect(r.stderr).toContain(`error: there is no mirror at ${file} yet\nhint: create it with: payrec --emulator sync (or add --sync)\n`);
      expect(r.exitCode).toBe(2);
      expect(existsSync(file)).toBe(false);
    }
  });

  it('a window with nothing in it: no rows, said; --chart says there is nothing to chart', async () => {
    const r = await here(['metrics', '--period', '2020', '--db', db, '-f', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(r.stderr).toContain('no subscription was counted, billed or in dunning in this window');
    const chart = await here(['metrics', '--period', '2020', '--chart', '--db', db]);
    expect(chart.stdout).toBe('no subscriptions to chart\n');
    expect(chart.exitCode).toBe(0);
  });

  it('"nothing was counted" is said of an empty window only, and not under --count, whose 0 says it', async () => {
    const full = await here(['metrics', '--period', '2026', '--db', db, '-f', 'json']);
    expect(full.exitCode, full.stderr).toBe(0);
    expect((JSON.parse(full.stdout) as unknown[]).length).toBeGreaterThan(0);
    expect(full.stderr).not.toContain('no subscription was counted');
    const none = await here(['metrics', '--period', '2020', '--count', '--db', db]);
    expect(none.stdout).toBe('0\n');
    expect(none.stderr).not.toContain('no subscription was counted');
    expect(none.exitCode).toBe(0);
  });

  it('an unknown --interval is refused with every interval named', async () => {
    const r = await here(['metrics', '--interval', 'fortnight', '--db', join(tempDir(), 'none.duckdb')]);
    expect(r.stderr).toBe('error: invalid --interval "fortnight": expected day, week, month, quarter, year\n');
    expect(r.exitCode).toBe(2);
  });

  it('ratios on a table are percentages with the fraction\'s digits', async () => {
    const args = ['metrics', '--period', '2026', '--db', db];
    const rows = JSON.parse((await here([...args, '-f', 'json'])).stdout) as Record<string, string | null>[];
    const [head, ...lines] = (await here([...args, '-f', 'table', '-q'])).stdout.trimEnd().split('\n').map((l) => l.split('\t'));
    expect(lines).toHaveLength(rows.length);
    let shown = 0;
    for (const [i, row] of rows.entries()) {
      for (const column of ['logo_churn', 'revenue_churn', 'failure_rate']) {
        const fraction = row[column];
        const cell = lines[i][head.indexOf(column)];
        expect(cell, `${column} of row ${i}`).toBe(fraction === null ? '' : `${new Big(fraction).times(100).toFixed()}%`);
        if (fraction !== null && !/^0(\.0+)?$/.test(fraction)) shown++;
      }
    }
    expect(shown).toBeGreaterThan(3);
  });

  it('the window is said: the default twelve up to now or --at, a period cut at now', async () => {
    const said = async (args: string[]) => (await here(['metrics', '--count', ...args, '--db', db])).stderr;
    expect(await said([])).toContain('the last 12 months up to now: from 2025-12-01 00:00:00 UTC (--period, or --from and --to, for another window)\n');
    expect(await said(['--at', '2026-06-17', '--interval', 'quarter'])).toContain('the last 12 quarters up to --at: from 2023-07-01 00:00:00 UTC');
    expect(await said(['--period', '2026-11'])).toContain('the last interval ends now (2026-11-22 10:00:00 UTC), not at its calendar end\n');
    expect(await said(['--period', '2026-10'])).not.toContain('the last interval ends');
    // A period that ends at --at itself is whole: nothing to cut.
    const whole = await said(['--period', '2026-10', '--at', '2026-10-31']);
    expect(whole).toContain('as of 2026-11-01 00:00:00 UTC (the end of 2026-10-31)');
    expect(whole).not.toContain('the last interval ends');
  });

  it('--columns interval names each interval as people do, in every --interval', async () => {
    const cases: [string, string, string, string][] = [
      ['year', '2026', '2026-01-01T00:00:00Z', '2026'],
      ['quarter', '2026', '2026-04-01T00:00:00Z', '2026-Q2'],
      ['quarter', '2026', '2026-10-01T00:00:00Z', '2026-Q4'],
      ['month', '2026', '2026-03-01T00:00:00Z', '2026-03'],
      ['week', '2026-10', '2026-10-05T00:00:00Z', '2026-10-05'],
      ['day', '2026-10', '2026-10-09T00:00:00Z', '2026-10-09'],
    ];
    // A window that starts within a quarter (its first interval starts there): March is Q1, June Q2, December Q4.
    cases.push(['quarter', '2026-03-15..2026-06-30', '2026-03-15T00:00:00Z', '2026-Q1'], ['quarter', '2026-06-30..2026-07-31', '2026-06-30T00:00:00Z', '2026-Q2'], ['quarter', '2025-12-31..2026-01-31', '2025-12-31T00:00:00Z', '2025-Q4']);
    for (const [interval, period, from, name] of cases) {
      const [start, end] = period.split('..');
      const window = end ? ['--from', start, '--to', end] : ['--period', period];
      const rows = await json<{ interval: string; from: number }[]>(['metrics', ...window, '--interval', interval, '--columns', 'interval,from']);
      const row = rows.find((r) => r.from === Date.parse(from) / 1000);
      expect(row, `${interval} from ${from}`).toEqual({ interval: name, from: Date.parse(from) / 1000 });
    }
  });

  it('--by plan puts planId after the token, in files and in tables', async () => {
    const csv = await here(['metrics', '--period', '2026-Q3', '--by', 'plan', '-f', 'csv', '-q', '--db', db]);
    expect(csv.stdout.split(/\r?\n/)[0].split(',')).toEqual([
      'from', 'to', 'token', 'planId', 'subscriptions_start', 'subscriptions_end', 'new', 'reactivated', 'churned', 'mrr_start', 'mrr_end', 'mrr_new', 'mrr_reactivated', 'mrr_churned', 'mrr_net',
      'logo_churn', 'revenue_churn', 'attempts', 'failed', 'failure_rate', 'dunning_cases', 'recovered', 'recovered_amount', 'lost', 'open', 'collected', 'failed_amount',
    ]);
    const table = await here(['metrics', '--period', '2026-Q3', '--by', 'plan', '-f', 'table', '-q', '--db', db]);
    // A table leads with the columns that answer, then every other column once.
    const rest = ['from', 'to', 'subscriptions_start', 'subscriptions_end', 'reactivated', 'mrr_start', 'mrr_new', 'mrr_reactivated', 'mrr_churned', 'revenue_churn', 'attempts', 'failed', 'failure_rate', 'dunning_cases', 'recovered', 'recovered_amount', 'lost', 'open', 'collected', 'failed_amount'];
    expect(table.stdout.slice(0, table.stdout.indexOf('\n')).split('\t')).toEqual(['interval', 'token', 'planId', 'mrr_end', 'mrr_net', 'new', 'churned', 'logo_churn', ...rest]);
    const byToken = await here(['metrics', '--period', '2026-Q3', '-f', 'table', '-q', '--db', db]);
    expect(byToken.stdout.slice(0, byToken.stdout.indexOf('\n')).split('\t')).toEqual(['interval', 'token', 'mrr_end', 'mrr_net', 'new', 'churned', 'logo_churn', ...rest]);
    // --columns may name planId with --by plan, and only then.
    const picked = await here(['metrics', '--period', '2026-Q3', '--by', 'plan', '--columns', 'planId,mrr_end', '-f', 'csv', '-q', '--db', db]);
    expect(picked.exitCode, picked.stderr).toBe(0);
    expect(picked.stdout.split(/\r?\n/)[0]).toBe('planId,mrr_end');
    const unplanned = await here(['metrics', '--period', '2026-Q3', '--columns', 'planId,mrr_end', '-f', 'csv', '-q', '--db', db]);
    expect(unplanned.stderr).toContain('error: unknown column "planId" in --columns');
    expect(unplanned.exitCode).toBe(2);
  });

  it('--columns naming no column of the ledger: exit 2 before the mirror is read', async () => {
    const r = await here(['subscriptions', '--columns', 'subscriptionId,mrr_end', '--db', join(tempDir(), 'none.duckdb')]);
    expect(r.stderr).toContain('error: unknown column "mrr_end" in --columns');
    expect(r.exitCode).toBe(2);
  });

  it('a mirror with no plan of the chain asked: exit 2, with the way to sync one', async () => {
    const r = await here(['--chain', 'eth', 'subscriptions', '--db', db]);
    expect(r.stderr).toContain('error: the mirror holds no fixed-recurring plan of chain eth\nhint: payrec --emulator sync --plan-id ID (or add --sync)');
    expect(r.exitCode).toBe(2);
  });

  it('plans synced with sync --from are named with their starts, one or several', async () => {
    const file = join(tempDir(), 'from.duckdb');
    const sync = await here(['sync', 'fr/billings', 'fr/cancellations', '--plan-id', plans[0], '--from', '2026-05-01', '--db', file, '-q']);
    expect(sync.exitCode, sync.stderr).toBe(0);
    const one = await here(['subscriptions', '--count', '--db', file]);
    expect(one.stderr).toContain(`warning: a plan was synced with sync --from (${plans[0]} from 2026-05-01 00:00:00): subscriptions that began earlier show only what followed`);
    const more = await here(['sync', 'fr/billings', 'fr/cancellations', '--plan-id', plans[1], '--from', '2026-06-01', '--db', file, '-q']);
    expect(more.exitCode, more.stderr).toBe(0);
    const two = await here(['subscriptions', '--count', '--db', file]);
    expect(two.stderr).toMatch(/warning: 2 plans were synced with sync --from \((0x[0-9a-f]{64}) from 2026-0[56]-01 00:00:00, (0x[0-9a-f]{64}) from 2026-0[56]-01 00:00:00\)/);
    for (const [plan, month] of [[plans[0], '05'], [plans[1], '06']]) expect(two.stderr).toContain(`${plan} from 2026-${month}-01 00:00:00`);
  });
});
