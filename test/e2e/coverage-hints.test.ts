import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { BIN, emulator, payrec, tempDir, watch } from './helpers.js';

// Hints that lead somewhere (issue 29, item 6): other CLIs' flags point to payrec's,
// an unknown column names the real ones, a word where an id goes says what the command
// takes, hints under --emulator keep --emulator, and following the in-process emulator
// says it has no live traffic. Bad input sends nothing.

let quiet: Emulator;
beforeAll(async () => (quiet = await emulator({ records: 0 })));
afterAll(() => quiet.close());

describe('bad input gets a hint that leads somewhere, and sends nothing', () => {
  test.each([
    [['ot', 'transfers', '--watch'], /unknown option '--watch'\nhint: to keep printing new records as they come, use --follow/],
    [['ot', 'transfers', '-w'], /unknown option '-w'\nhint: to keep printing new records as they come, use --follow/],
    [['metrics', '--columns', 'mrr', '--db', 'nowhere.duckdb'], /unknown column "mrr" in --columns; known: [^\n]*\nhint: did you mean mrr_start, mrr_end, mrr_new, mrr_reactivated, mrr_churned, mrr_net\?/],
    [['fr', 'billings', '--plan-id', `0x${'1'.repeat(64)}`, '--columns', 'amont'], /unknown column "amont"[^\n]*\nhint: did you mean amount\?/],
    [['subscriptions', 'list'], /payrec subscriptions takes no subcommand "list": without an argument it lists every subscription \(the ledger\), with an id it shows that one/],
  ])('%j', async (args, message) => {
    quiet.clearLog();
    const r = await payrec(quiet, args, { cwd: tempDir() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(quiet.requests).toEqual([]);
  });
});

describe('under --emulator', () => {
  const env = () => ({ PAYREC_CONFIG_DIR: tempDir(), XDG_DATA_HOME: tempDir(), PAYREC_EMULATOR_NOW: '2026-11-22' });

  test('hints name commands with --emulator, which reach the same demo data', async () => {
    const r = await payrec(undefined, ['--emulator', 'fr', 'billings'], { env: env() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('hint: find plan ids with: payrec --emulator fr short-urls list --columns planId');
    expect(r.stderr).not.toMatch(/payrec (?!--emulator)[a-z]/);
  });

  test('settings name --emulator as the source of the base URL and key', async () => {
    const r = await payrec(undefined, ['--emulator', 'config', 'list'], { env: env() });
    expect(r.stdout).toMatch(/^base-url\thttp:\/\/127\.0\.0\.1:\d+\t\(--emulator\)$/m);
    expect(r.stdout).toMatch(/^api-key\t\*{4}_bsc\t\(--emulator\)$/m);
  });

  test('--follow says the in-process emulator has no live traffic, and names emulator start --live', async () => {
    const child = execa('node', [BIN, '--emulator', 'ot', 'transfers', '--follow', '-f', 'jsonl'], { reject: false, env: { ...env(), NO_COLOR: '1' } });
    const stderr = watch(child.stderr!);
    await stderr.waitFor(/without live traffic[^\n]*payrec emulator start --live/, 30_000);
    child.kill('SIGINT');
    expect((await child).exitCode).toBe(130);
  });
});

test('the global -o help names every command that writes to it', async () => {
  const r = await payrec(undefined, ['--help']);
  expect(r.stdout.replace(/\s+/g, ' ')).toContain('lists, get, sql, sync, subscriptions, metrics, close, fr plans, api, short-urls create/update');
});
