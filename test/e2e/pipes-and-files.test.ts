import { existsSync, readdirSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { apiRecords, emulator, parseCsv, payrec, payrecInProcess, tempDir } from './helpers.js';

// Lists that tie out in a pipe and in a spreadsheet (issue 29, item 4): billing exports
// carry `outcome` by the one meaning, a pipe given a window gets the whole window, -o
// refuses what is no file name, and every -o file gets the same mode. Ground truth: the
// emulator's records over plain HTTP, and sums made here with BigInt.
// What a pipe, a file or a process shows runs the built binary: a piped table, a window in
// a pipe, -o's files and their modes, --jq, exit 9 and the first -o refusal. The other
// answers run payrec inside this process (payrecInProcess, issue 48: a process costs 0.3 s
// of CPU to start), whose stdout is no terminal, as a pipe is not.

const PLAN = '0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7';
let emu: Emulator;
let quiet: Emulator;
beforeAll(async () => {
  [emu, quiet] = await Promise.all([emulator({ records: 1500 }), emulator({ records: 0 })]);
});
afterAll(() => Promise.all([emu.close(), quiet.close()]));

/** Exact decimal text as an integer count of 10^-18. */
function atto(text: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,18}))?$/.exec(text);
  if (!m) throw new Error(`not a decimal: ${text}`);
  const v = BigInt(m[2]) * 10n ** 18n + BigInt((m[3] ?? '').padEnd(18, '0'));
  return m[1] ? -v : v;
}

/** DESIGN's one meaning of a billing, written here from the definition. */
const outcomeOf = (b: Record<string, unknown>) => (b.success !== 1 || b.transactionStatus === 'failed' ? 'failed' : b.transactionStatus === 'confirmed' ? 'paid' : 'pending');

describe('billing exports carry outcome (paid, failed, pending)', () => {
  test('in csv, jsonl, json and piped tables; filtering csv on paid gives the revenue --summary gives', async () => {
    const truth = await apiRecords(emu, `/fixed-recurring/plans/${PLAN}/billings`);
    // The plan has billings of each kind, and success 0 with status confirmed among them (the trap of issue 29).
    expect(new Set(truth.map(outcomeOf))).toEqual(new Set(['paid', 'failed', 'pending']));
    expect(truth.some((b) => b.success === 0 && b.transactionStatus === 'confirmed')).toBe(true);
    const want = truth.map((b) => [b.transactionHash, outcomeOf(b)]);

    const [csv, jsonl, json, tsv, summary] = await Promise.all([
      payrecInProcess(emu, ['fr', 'billings', '--plan-id', PLAN, '--all', '-f', 'csv']),
      payrecInProcess(emu, ['fr', 'billings', '--plan-id', PLAN, '--all', '-f', 'jsonl']),
      payrecInProcess(emu, ['fr', 'billings', '--plan-id', PLAN, '--all', '-f', 'json']),
      // A table into a real pipe: tab-separated.
      payrec(emu, ['fr', 'billings', '--plan-id', PLAN, '--all']),
      payrecInProcess(emu, ['fr', 'billings', '--plan-id', PLAN, '--all', '--summary', '-f', 'json']),
    ]);
    const [header, ...rows] = parseCsv(csv.stdout);
    const col = (name: string) => header.indexOf(name);
    expect(rows.map((r) => [r[col('transactionHash')], r[col('outcome')]])).toEqual(want);
    expect(jsonl.stdout.trim().split('\n').map((l) => JSON.parse(l)).map((r) => [r.transactionHash, r.outcome])).toEqual(want);
    expect((JSON.parse(json.stdout) as Record<string, unknown>[]).map((r) => [r.transactionHash, r.outcome])).toEqual(want);
    const [tsvHeader, ...tsvRows] = tsv.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(tsvRows.map((r) => [r[tsvHeader.indexOf('transactionHash')], r[tsvHeader.indexOf('outcome')]])).toEqual(want);

    const paidInCsv = rows.filter((r) => r[col('outcome')] === 'paid').reduce((sum, r) => sum + atto(r[col('amount')]), 0n);
    const paidInTruth = truth.filter((b) => outcomeOf(b) === 'paid').reduce((sum, b) => sum + atto(b.amount as string), 0n);
    const totals = (JSON.parse(summary.stdout) as { totals: { status: string; amount: string }[] }).totals;
    expect(paidInCsv).toBe(paidInTruth);
    expect(atto(totals.find((t) => t.status === 'confirmed')!.amount)).toBe(paidInTruth);
    // The obvious wrong filter (transactionStatus confirmed) would have counted failed billings as revenue.
    expect(rows.filter((r) => r[col('transactionStatus')] === 'confirmed').reduce((sum, r) => sum + atto(r[col('amount')]), 0n)).toBeGreaterThan(paidInTruth);

    const picked = await payrecInProcess(emu, ['fr', 'billings', '--plan-id', PLAN, '--limit', '3', '-f', 'csv', '--columns', 'transactionHash,outcome']);
    expect(parseCsv(picked.stdout).slice(1)).toEqual(want.slice(0, 3));
  });
});

describe('a pipe or redirect with a window gets the whole window', () => {
  test('--period in a pipe: every record of the period (more than 1,000), none left out; no window: the default 100 and its notice', async () => {
    const truth = await apiRecords(emu, '/one-time/transfers', { from: Date.UTC(2025, 0, 1) / 1000, to: Date.UTC(2026, 0, 1) / 1000 - 1 });
    expect(truth.length).toBeGreaterThan(1000);
    const period = await payrec(emu, ['ot', 'transfers', '--period', '2025', '-f', 'jsonl']);
    expect([period.exitCode, period.stderr]).toEqual([0, '']);
    expect(period.stdout.trim().split('\n').map((l) => JSON.parse(l).transactionHash)).toEqual(truth.map((t) => t.transactionHash));
    const from = await payrecInProcess(emu, ['ot', 'transfers', '--from', '2025-01-01', '--columns', 'transactionHash', '-q']);
    expect(from.stdout.trim().split('\n').length - 1).toBe(truth.length);

    const plain = await payrecInProcess(emu, ['ot', 'transfers', '-f', 'jsonl']);
    expect(plain.stdout.trim().split('\n')).toHaveLength(100);
    expect(plain.stderr).toBe(`showing 100 of ${truth.length.toLocaleString('en-US')}; --all for every record\n`);
    // --limit still cuts a window, and says so.
    const limited = await payrecInProcess(emu, ['ot', 'transfers', '--period', '2025', '--limit', '7', '-f', 'jsonl']);
    expect(limited.stdout.trim().split('\n')).toHaveLength(7);
    expect(limited.stderr).toContain('showing 7 of');
  });
});

describe('-o takes a file name', () => {
  test.each([
    ['json', /"json" is a format's name[\s\S]*-f json/],
    ['wide', /"wide" is a format's name[\s\S]*--wide/],
    ['CSV', /"CSV" is a format's name[\s\S]*-f csv/],
    ['report.xls', /cannot write \.xls files[\s\S]*-o FILE\.xlsx/],
    ['report.ods', /cannot write \.ods files[\s\S]*-o FILE\.xlsx/],
    ['transfers.parquet', /cannot write \.parquet files[\s\S]*payrec sync --parquet DIR/],
  ])('-o %s: exit 2 naming the flag that does it, nothing sent or written', async (name, message) => {
    const dir = tempDir();
    quiet.clearLog();
    for (const args of [['ot', 'transfers'], ['sql', 'SELECT 1']]) {
      // The first case a process; the others in this one, moved into the folder (as docs.test.ts's
      // examples are: this file's tests run one after another, so nothing else runs here meanwhile).
      const r = name === 'json' ? await payrec(quiet, [...args, '-o', name], { cwd: dir }) : await payrecInProcess(quiet, [...args, '-o', name], { cwd: dir });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(readdirSync(dir)).toEqual([]);
    expect(quiet.requests).toEqual([]);
  });
});

describe('files written with -o get the same mode whatever the command', () => {
  test('a list, payrec sql and fr plans (which open the mirror first, making its files private) write new files alike; an existing file keeps its mode', async () => {
    // payrec inherits this process's umask; a test that opened a mirror in this worker
    // (no isolation between files) may have left 077, so set the usual 022 for these runs.
    const umask = process.umask(0o022);
    try {
      await filesAlike();
    } finally {
      process.umask(umask);
    }
  });
});

/** New -o files of a list, payrec sql and fr plans share one mode; an existing file keeps its own. */
async function filesAlike(): Promise<void> {
  const dir = tempDir();
  const db = join(dir, 'mirror.duckdb');
  expect((await payrec(emu, ['sync', 'ot/transfers', 'fr/short-urls', '--db', db, '-q'])).exitCode).toBe(0);
  expect((await payrec(emu, ['ot', 'transfers', '-o', join(dir, 'list.csv')])).exitCode).toBe(0);
  expect((await payrec(undefined, ['sql', 'SELECT count(*) AS n FROM one_time_transfers', '--db', db, '-o', join(dir, 'sql.csv')])).exitCode).toBe(0);
  expect((await payrec(emu, ['fr', 'plans', '--db', db, '-o', join(dir, 'plans.csv'), '-q'])).exitCode).toBe(0);
  const mode = (f: string) => statSync(join(dir, f)).mode & 0o777;
  // The umask payrec starts with decides them all (022: 0644); the mirror's 077 must not leak into an export.
  expect(mode('sql.csv')).toBe(mode('list.csv'));
  expect(mode('plans.csv')).toBe(mode('list.csv'));
  expect(mode('list.csv') & 0o044).not.toBe(0);
  expect(mode('mirror.duckdb')).toBe(0o600);
  writeFileSync(join(dir, 'kept.csv'), 'old');
  chmodSync(join(dir, 'kept.csv'), 0o640);
  expect((await payrec(undefined, ['sql', 'SELECT 1 AS one', '--db', db, '-o', join(dir, 'kept.csv')])).exitCode).toBe(0);
  expect(mode('kept.csv')).toBe(0o640);
  expect(existsSync(join(dir, 'kept.csv'))).toBe(true);
}

describe('--count, --fail-if-any and --jq on payrec sql and fr plans', () => {
  test('their answers equal the emulator\'s records', async () => {
    const db = join(tempDir(), 'mirror.duckdb');
    // The file's second sync (filesAlike's is a process): in this process.
    expect((await payrecInProcess(emu, ['sync', 'ot/transfers', 'fr/short-urls', '--db', db, '-q'])).exitCode).toBe(0);
    const transfers = await apiRecords(emu, '/one-time/transfers');
    const usdt = transfers.filter((t) => t.token === 'USDT');
    const jq = await payrec(undefined, ['sql', "SELECT transactionHash FROM one_time_transfers WHERE token = 'USDT' ORDER BY transactionHash", '--db', db, '--jq', 'map(.transactionHash) | length']);
    expect([jq.exitCode, jq.stdout]).toEqual([0, `${usdt.length}\n`]);
    const raw = await payrec(undefined, ['sql', 'SELECT count(*) AS n FROM one_time_transfers', '--db', db, '--jq', '.[0].n']);
    expect(raw.stdout).toBe(`${transfers.length}\n`);
    const bad = await payrec(undefined, ['sql', 'SELECT 1', '--db', db, '--jq', '.[']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/invalid --jq expression/);

    const plans = [...new Set((await apiRecords(emu, '/fixed-recurring/short-urls')).map((u) => String(u.planId).toLowerCase()))].sort();
    const count = await payrecInProcess(emu, ['fr', 'plans', '--db', db, '--count', '-q']);
    expect([count.exitCode, count.stdout]).toEqual([0, `${plans.length}\n`]);
    const ids = await payrec(emu, ['fr', 'plans', '--db', db, '--jq', '.[].planId', '-q']);
    expect(ids.stdout).toBe(plans.map((p) => `${p}\n`).join(''));
    const gate = await payrec(emu, ['fr', 'plans', '--db', db, '--fail-if-any', '-q']);
    expect(gate.exitCode).toBe(9);
    expect(gate.stderr).toBe(`${plans.length} plans matched (--fail-if-any)\n`);
  });
});
