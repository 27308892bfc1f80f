import Big from 'big.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator, SubscriptionTruth } from '../../src/emulator/index.js';
import { emulator, payrec, payrecInProcess, tempDir, type RunOptions } from './helpers.js';
import { listOf } from './mirror-helpers.js';

// Plan coverage is never silent (issue 29, item 1). The API lists no plans: payrec knows
// a plan from a short url, a --plan-id once given to sync, or `payrec fr plans add`. The
// emulator, like a real merchant, has plans that no short url names. The yardsticks are
// the emulator's own records over HTTP: its short urls (which plans are seen) and
// GET /_emulator/subscriptions (every plan, every subscription, every billing).

let emu: Emulator;
let truth: SubscriptionTruth;
/** Plans a short url of the demo key names, and those none names. */
let seen: string[];
let unseen: string[];

/** The day docs/emulator.md's examples are anchored at: the figures shown there are the ones checked here. */
const DOCS_NOW = Date.UTC(2026, 10, 22) / 1000;

beforeAll(async () => {
  emu = await emulator({ now: DOCS_NOW });
  truth = (await (await fetch(`${emu.url}/_emulator/subscriptions?chain=bsc`)).json()) as SubscriptionTruth;
  seen = [...new Set((await listOf(emu, '/fixed-recurring/short-urls')).map((u) => String(u.planId).toLowerCase()))].sort();
  unseen = truth.plans.map((p) => p.planId).filter((id) => !seen.includes(id)).sort();
});
afterAll(() => emu.close());

type Runner = (args: string[], o?: RunOptions) => Promise<{ exitCode?: number; stdout: string; stderr: string }>;
/**
 * A user's home: one config folder and one mirror, shared by the commands of a test. `run`
 * runs in this worker (payrecInProcess, issue 48); `binary` runs the built binary, for the
 * file's first sync, its first write of the profile and its first refusal.
 */
function home(): { run: Runner; binary: Runner; db: string; config: string } {
  const config = tempDir();
  const db = join(tempDir(), 'mirror.duckdb');
  const env = (o: RunOptions) => ({ ...o, env: { PAYREC_CONFIG_DIR: config, PAYREC_DB: db, ...o.env } });
  return { config, db, run: (args, o = {}) => payrecInProcess(emu, args, env(o)), binary: (args, o = {}) => payrec(emu, args, env(o)) };
}

const paid = (b: Record<string, unknown>) => b.success === 1 && b.transactionStatus === 'confirmed';
const failed = (b: Record<string, unknown>) => b.success !== 1 || b.transactionStatus === 'failed';
const started = () => truth.subscriptions.filter((s) => s.billings.some(paid));
const tokensOf = (plans: string[]) => [...new Set(truth.plans.filter((p) => plans.includes(p.planId)).map((p) => p.token))].sort();

Big.DP = 60;
/** DESIGN's mrr of a subscription: month bands by whole days, else the mean month; half-even to 18 places. */
function mrrOf(amount: string, period: number): Big {
  const days = Math.round(period / 86_400);
  const band = [[28, 31, 1], [56, 62, 2], [84, 92, 3], [168, 184, 6], [360, 366, 12]].find(([lo, hi]) => days >= lo && days <= hi);
  return (band ? new Big(amount).div(band[2]) : new Big(amount).times(2_629_746).div(period)).round(18, Big.roundHalfEven);
}

describe('the emulator keeps plans that no short url names, as a merchant has', () => {
  test('5 of its 11 fixed-recurring plans are named by a short url of the demo key', () => {
    expect(truth.plans).toHaveLength(11);
    expect(seen).toHaveLength(5);
    // The plans left unseen hold subscriptions in tokens that no seen plan has: a report over the seen ones misses whole tokens.
    expect(tokensOf(unseen).filter((t) => !tokensOf(seen).includes(t))).toEqual(['BNB', 'BUSD']);
  });
});

describe('a default sync covers the plans seen, and says where they come from and how to add one', () => {
  test('sync, fr plans, subscriptions and metrics', async () => {
    const { run, binary } = home();
    expect((await binary(['sync', '-q'])).exitCode).toBe(0);

    const plans = await run(['fr', 'plans', '-f', 'json']);
    expect(plans.exitCode).toBe(0);
    const rows = JSON.parse(plans.stdout) as { planId: string; seenIn: string }[];
    expect(rows.map((r) => r.planId)).toEqual(seen);
    for (const r of rows) expect(r.seenIn).toBe('short url, synced');
    expect(plans.stderr).toBe('5 fixed-recurring plans known on chain bsc (5 named by short urls); a plan that no short url names is unseen until added: payrec fr plans add PLAN_ID\n');

    const ledger = await run(['subscriptions', '-f', 'json', '--columns', 'subscriptionId,token']);
    expect(ledger.exitCode).toBe(0);
    expect(ledger.stderr).toContain('covering 5 fixed-recurring plans (5 named by short urls); a plan that no short url names is unseen until added: payrec fr plans add PLAN_ID\n');
    const tokens = [...new Set((JSON.parse(ledger.stdout) as { token: string }[]).map((r) => r.token))].sort();
    expect(tokens).toEqual(tokensOf(seen));

    const metrics = await run(['metrics', '--period', '2026', '--at', String(truth.now), '-f', 'json', '--columns', 'token']);
    expect(metrics.exitCode).toBe(0);
    expect(metrics.stderr).toContain('covering 5 fixed-recurring plans (5 named by short urls)');
    expect([...new Set((JSON.parse(metrics.stdout) as { token: string }[]).map((r) => r.token))].sort()).toEqual(tokensOf(seen));
  });
});

describe('payrec fr plans add covers the unseen plans: metrics then agree with the ground truth in every token', () => {
  test('add, metrics --sync, subscriptions', async () => {
    const { run, db } = home();
    expect((await run(['sync', '-q'])).exitCode).toBe(0);
    const add = await run(['fr', 'plans', 'add', ...unseen.map((id) => id.toUpperCase().replace('0X', '0x'))]);
    expect(add.exitCode).toBe(0);
    expect(add.stderr).toMatch(/^Added 6 plans to profile default, chain bsc: 6 added in all\n/);

    // Known, not synced yet: left out, and said so.
    const before = await run(['subscriptions', '--count', '--at', String(truth.now)]);
    expect(before.stdout).toBe(`${started().filter((s) => seen.includes(s.planId)).length}\n`);
    // docs/emulator.md shows these counts on the same anchor: 19 subscriptions before, 40 after.
    expect([started().filter((s) => seen.includes(s.planId)).length, started().length]).toEqual([19, 40]);
    expect(before.stderr).toContain('covering 5 fixed-recurring plans (5 named by short urls); 6 fixed-recurring plans known but not synced yet, so left out');

    emu.clearLog();
    const year = await run(['metrics', '--sync', '--period', '2026', '-f', 'json', '--at', String(truth.now)]);
    expect(year.exitCode).toBe(0);
    expect(year.stderr).toContain('covering 11 fixed-recurring plans (5 named by short urls, 6 added with fr plans add); a plan that no short url names is unseen until added: payrec fr plans add PLAN_ID\n');
    // --sync read the fixed-recurring short urls, billings and cancellations, and nothing else.
    const paths = new Set(emu.requests.map((r) => r.path.replace(/0x[0-9a-f]{64}/, 'ID')));
    expect([...paths].sort()).toEqual(['/v1/bsc/fixed-recurring/plans/ID/billings', '/v1/bsc/fixed-recurring/plans/ID/cancellations', '/v1/bsc/fixed-recurring/short-urls']);

    // Attempts and failures of the year, per token, as the emulator's billings hold them.
    const rows = JSON.parse(year.stdout) as { token: string; attempts: number; failed: number }[];
    const tokens = tokensOf(truth.plans.map((p) => p.planId));
    expect([...new Set(rows.map((r) => r.token))].sort()).toEqual(tokens);
    const from = Date.UTC(2026, 0, 1) / 1000;
    const to = truth.now;
    for (const token of tokens) {
      const billings = truth.subscriptions.filter((s) => s.token === token).flatMap((s) => s.billings).filter((b) => (b.timestamp as number) >= from && (b.timestamp as number) < to);
      const got = rows.filter((r) => r.token === token);
      expect([token, got.reduce((n, r) => n + r.attempts, 0), got.reduce((n, r) => n + r.failed, 0)]).toEqual([token, billings.filter((b) => paid(b) || failed(b)).length, billings.filter(failed).length]);
    }

    // Every subscription that ever paid, and each one's MRR, exactly; per token, the sums.
    const ledger = await run(['subscriptions', '-f', 'json', '--at', String(truth.now), '--columns', 'subscriptionId,token,mrr']);
    expect(ledger.exitCode).toBe(0);
    const got = JSON.parse(ledger.stdout) as { subscriptionId: string; token: string; mrr: string }[];
    expect(got.map((r) => r.subscriptionId).sort()).toEqual(started().map((s) => s.subscriptionId).sort());
    const sum = (items: { token: string; mrr: Big }[]) => tokens.map((t) => [t, items.filter((x) => x.token === t).reduce((a, x) => a.plus(x.mrr), new Big(0)).toFixed()]);
    expect(sum(got.map((r) => ({ token: r.token, mrr: new Big(r.mrr) })))).toEqual(sum(started().map((s) => ({ token: s.token, mrr: mrrOf(s.amount, s.period) }))));

    // The mirror does not remember added plans: removed, they are neither synced nor known.
    const remove = await run(['fr', 'plans', 'remove', unseen[0], unseen[1]]);
    expect(remove.exitCode).toBe(0);
    expect(remove.stderr).toMatch(/^Removed 2 plans from profile default, chain bsc: 4 added in all\n/);
    emu.clearLog();
    expect((await run(['sync', 'fr/billings', '-q'])).exitCode).toBe(0);
    const walked = new Set(emu.requests.map((r) => /plans\/(0x[0-9a-f]{64})\//.exec(r.path)?.[1]));
    expect(walked.has(unseen[0]) || walked.has(unseen[1])).toBe(false);
    expect(walked.has(unseen[2])).toBe(true);
    const list = JSON.parse((await run(['fr', 'plans', '-f', 'json', '--db', db])).stdout) as { planId: string; seenIn: string }[];
    expect(list.filter((r) => unseen.slice(0, 2).includes(r.planId)).map((r) => r.seenIn)).toEqual(['earlier', 'earlier']);
    expect(list.filter((r) => unseen.slice(2).includes(r.planId)).map((r) => r.seenIn)).toEqual(['added', 'added', 'added', 'added']);
  });
});

describe('fr plans add and remove: the profile, per chain, and bad input', () => {
  test('ids are stored lower case under their chain; --emulator keeps its own; a bad id changes nothing (exit 2)', async () => {
    const { run, binary, config } = home();
    const [a, b] = unseen;
    expect((await binary(['fr', 'plans', 'add', a, b])).exitCode).toBe(0);
    expect((await run(['fr', 'plans', 'add', a], { env: { PAYREC_CHAIN: 'polygon' }, chain: 'polygon' })).exitCode).toBe(0);
    expect((await run(['--emulator', 'fr', 'plans', 'add', b])).exitCode).toBe(0);
    const file = join(config, 'config.json');
    const stored = readFileSync(file, 'utf8');
    expect(JSON.parse(stored)).toEqual({ profiles: { default: { plans: { bsc: [a, b].sort(), polygon: [a], 'emulator:bsc': [b] } } } });

    emu.clearLog();
    for (const [i, args] of [['add', a, '0x12'], ['remove', 'plan'], ['add']].entries()) {
      const r = await (i === 0 ? binary : run)(['fr', 'plans', ...args]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/invalid PLAN_ID "(0x12|plan)": expected 0x followed by 64 hex characters|missing required argument 'planId'/);
    }
    expect(readFileSync(file, 'utf8')).toBe(stored);
    expect(emu.requests).toEqual([]);

    const again = await run(['fr', 'plans', 'add', a]);
    expect([again.exitCode, again.stderr]).toEqual([0, `${a} was added already\n`]);
    const absent = await run(['fr', 'plans', 'remove', unseen[2]]);
    expect(absent.exitCode).toBe(0);
    expect(absent.stderr).toContain(`${unseen[2]} was not added`);
    expect(readFileSync(file, 'utf8')).toBe(stored);
  });
});

describe('payrec doctor', () => {
  test('warns while no plan is known, and counts them once some are', async () => {
    const { run } = home();
    const none = await run(['doctor', '-f', 'json']);
    const row = (r: { stdout: string }) => (JSON.parse(r.stdout) as { check: string; status: string; detail: string }[]).find((x) => x.check === 'plans');
    expect(row(none)).toEqual({ check: 'plans', status: 'warn', detail: expect.stringContaining('no fixed-recurring plan is known on chain bsc') });
    expect(row(none)!.detail).toContain('payrec fr plans add PLAN_ID');
    expect((await run(['fr', 'plans', 'add', unseen[0]])).exitCode).toBe(0);
    expect(row(await run(['doctor', '-f', 'json']))).toEqual({ check: 'plans', status: 'ok', detail: '1 fixed-recurring plan known on chain bsc (1 added with fr plans add)' });
    expect((await run(['sync', '-q'])).exitCode).toBe(0);
    expect(row(await run(['doctor', '-f', 'json']))!.detail).toBe('6 fixed-recurring plans known on chain bsc (5 named by short urls, 1 added with fr plans add)');
  });
});
