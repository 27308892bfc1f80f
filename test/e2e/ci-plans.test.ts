import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec, payrecInProcess, tempDir, type RunOptions } from './helpers.js';
import { naiveLedger, recordsOfFacts, type Records } from '../oracle/subscriptions.js';

// The past-due gate as a fresh CI runner runs it (issue 44, item 6): the emulator, like a
// merchant, has plans that no short url names. A job that states its plans in its
// repository (PAYREC_PLANS=@plans.txt) sees every late customer; one that states none is
// refused in CI (exit 2) rather than pass while unseen plans are late. The expected late
// customers come from the brute-force oracle over the emulator's own facts
// (GET /_emulator/subscriptions), never from payrec.

const DAY = 86_400;
const NOW = Date.UTC(2026, 10, 22) / 1000;
let emu: Emulator;
let plans: string[];
let all: Records;

beforeAll(async () => {
  emu = await emulator({ now: NOW });
  const truth = emu.subscriptions('bsc');
  plans = truth.plans.map((p) => p.planId);
  all = recordsOfFacts(truth.subscriptions);
});
afterAll(() => emu?.close());

/**
 * A fresh runner: its own config and mirror, CI set as CI services set it. `run` is the
 * built binary in a process (exit 9, -o's file, the first refusal); `answer` the same
 * command in this worker (payrecInProcess), for the refusals and syncs after those (issue 48).
 */
function runner(env: Record<string, string> = {}) {
  const home = tempDir();
  const o: RunOptions = { env: { CI: 'true', PAYREC_CONFIG_DIR: join(home, 'config'), PAYREC_DB: join(home, 'mirror.duckdb'), PAYREC_EMULATOR_NOW: String(NOW), ...env } };
  return { home, run: (args: string[]) => payrec(emu, args, o), answer: (args: string[]) => payrecInProcess(emu, args, o) };
}

describe('a CI gate on past-due subscriptions', () => {
  it('with the plans stated in a plans file: every late customer of every plan, exit 9', async () => {
    const late = naiveLedger(all.billings, all.cancellations, NOW, 30 * DAY).filter((r) => r.state === 'past_due' && r.daysPastDue! >= 7);
    // The emulator's short urls name only some plans: a late customer sits in a plan none names.
    expect(late.length).toBeGreaterThan(1);
    const { home, answer } = runner();
    const file = join(home, 'plans.txt');
    writeFileSync(file, `# every fixed-recurring plan of the merchant\n${plans.join('\n')}\n`);
    const { run: ci } = { run: (args: string[]) => payrec(emu, args, { env: { CI: 'true', PAYREC_PLANS: `@${file}`, PAYREC_CONFIG_DIR: join(home, 'config'), PAYREC_DB: join(home, 'mirror.duckdb'), PAYREC_EMULATOR_NOW: String(NOW) } }) };
    // --at: the states as of the emulator's anchor (the command's own clock is the machine's).
    const r = await ci(['subscriptions', '--past-due-for', '7', '--sync', '-f', 'json', '--fail-if-any', '--at', String(NOW)]);
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain(`covering ${plans.length} fixed-recurring plans`);
    expect((JSON.parse(r.stdout) as { subscriptionId: string }[]).map((x) => x.subscriptionId).sort()).toEqual(late.map((x) => x.subscriptionId).sort());
    // The same runner without its plans file: the plans its mirror holds are no statement (synced earlier), so refused.
    expect((await answer(['subscriptions', '--past-due-for', '7', '--count', '--fail-if-any', '--sync'])).exitCode).toBe(2);
    // Stated but not synced: a gate that would leave them out is refused too.
    const fresh = runner({ PAYREC_PLANS: `@${file}` });
    expect((await fresh.answer(['sync', 'fr/short-urls', 'fr/billings', 'fr/cancellations', '-q'])).exitCode).toBe(0);
    writeFileSync(file, `${plans.join('\n')}\n0x${'77'.repeat(32)}\n`);
    const left = await fresh.answer(['subscriptions', '--past-due-for', '7', '--count', '--fail-if-any', '--at', String(NOW)]);
    expect(left.exitCode).toBe(2);
    expect(left.stderr).toContain('would leave out 1 fixed-recurring plan known but not synced');
  });

  it('with no plans stated: exit 2 in CI, nothing printed; --short-url-plans accepts the short urls\' plans; outside CI the gate runs as before', async () => {
    const { run, answer } = runner();
    const r = await run(['subscriptions', '--past-due-for', '7', '--count', '--fail-if-any', '--sync']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('in CI, a --fail-if-any gate over plans that only short urls name would pass while a plan no short url names is late');
    expect(r.stderr).toContain('PAYREC_PLANS=@plans.txt');
    expect([0, 9]).toContain((await answer(['subscriptions', '--past-due-for', '7', '--count', '--fail-if-any', '--short-url-plans'])).exitCode);
    expect([0, 9]).toContain((await answer(['metrics', '--count', '--fail-if-any', '--short-url-plans'])).exitCode);
    expect((await answer(['metrics', '--count', '--fail-if-any'])).exitCode).toBe(2);
    const local = runner({ CI: '' });
    expect([0, 9]).toContain((await local.answer(['subscriptions', '--past-due-for', '7', '--count', '--fail-if-any', '--sync'])).exitCode);
  });

  it('a malformed id in the plans file: exit 2 naming its line', async () => {
    const home = tempDir();
    const file = join(home, 'plans.txt');
    writeFileSync(file, `${plans[0]}\n0x12\n`);
    const r = await payrecInProcess(emu, ['subscriptions', '--count', '--sync'], { env: { PAYREC_PLANS: `@${file}`, PAYREC_CONFIG_DIR: join(home, 'c'), PAYREC_DB: join(home, 'm.duckdb'), PAYREC_EMULATOR_NOW: String(NOW) } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('invalid plan id "0x12" in the plans file');
    expect(r.stderr).toContain('line 2');
  });
});

describe('reports a job can parse', () => {
  it('an empty subscriptions -f csv -o file keeps its header, as an empty list export does', async () => {
    const { home, run, answer } = runner({ CI: '' });
    const full = await answer(['subscriptions', '--sync', '-f', 'csv', '--at', String(NOW)]);
    expect(full.exitCode).toBe(0);
    const header = full.stdout.split(/\r?\n/)[0];
    expect(header.split(',').length).toBeGreaterThan(5);
    const file = join(home, 'none.csv');
    const none = await run(['subscriptions', '--past-due-for', '3000', '-f', 'csv', '-o', file, '--at', String(NOW)]);
    expect(none.exitCode).toBe(0);
    expect(readFileSync(file, 'utf8').split(/\r?\n/)[0]).toBe(header);
  });
});
