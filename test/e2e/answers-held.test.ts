import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { naiveLedger, recordsOfFacts } from '../oracle/subscriptions.js';
import { emulator, parseCsv, payrec, payrecInProcess, suiteEmulators, tempDir } from './helpers.js';
import { listOf } from './mirror-helpers.js';

// Figures and exit codes computed but never compared (issue 48, "Tests that would catch
// the next wrong answer"): each test below fails on a mutant that survived the suite,
// named beside it. Expected values come from the emulator's records, the subscription
// oracle (test/oracle/subscriptions.ts), or a server written here.
//
// The built binary runs the first sync, files written with -o, the first refusal of an
// extension and --jq (jq-web does not load inside vitest); the other answers and syncs run
// in this worker (payrecInProcess, issue 48), where no process boundary is under test.

const s = suiteEmulators();
const DAY = 86_400;
let db: string;
let plans: string[];

beforeAll(async () => {
  plans = s.emu.subscriptions('bsc').plans.map((p) => p.planId);
  db = join(tempDir(), 'mirror.duckdb');
  const r = await payrec(s.emu, ['sync', 'fr/short-urls', 'fr/billings', 'fr/cancellations', ...plans.flatMap((p) => ['--plan-id', p]), '--db', db, '-q']);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
});

describe('exit-9 gates at exactly one match', () => {
  test('payrec sql --fail-if-any: one row is exit 9, none is 0', async () => {
    // Mutant killed: `rows > 1` (the gate passed a result of one row).
    const one = await payrecInProcess(undefined, ['sql', '--db', db, 'SELECT 1 AS one', '--fail-if-any', '-f', 'json']);
    expect(one).toMatchObject({ exitCode: 9, stdout: '[\n{"one":1}\n]\n', stderr: '1 row matched (--fail-if-any)\n' });
    const none = await payrecInProcess(undefined, ['sql', '--db', db, 'SELECT 1 AS one WHERE false', '--fail-if-any', '-f', 'json']);
    expect(none).toMatchObject({ exitCode: 0, stdout: '[]\n' });
  });

  test('the gate of subscriptions, metrics and fr plans (printRows): one plan known is exit 9', async () => {
    // Mutant killed: `n > 1` in printRows (held before only by the emulator's data having one past-due row).
    const env = { PAYREC_CONFIG_DIR: tempDir(), XDG_DATA_HOME: tempDir() };
    expect((await payrecInProcess(s.emu, ['fr', 'plans', 'add', plans[0]], { env })).exitCode).toBe(0);
    const one = await payrec(s.emu, ['fr', 'plans', '--fail-if-any', '--jq', '.[].planId'], { env });
    expect(one.exitCode).toBe(9);
    expect(one.stdout).toBe(`${plans[0]}\n`);
    expect(one.stderr.split('\n')[0]).toBe('1 plan matched (--fail-if-any)');
  });
});

describe('-o FILE', () => {
  test('with no window and no --limit, a file takes the whole list, not the default 100', async () => {
    // Mutant killed: takesWholeWindow without `-o` (the file held the first 100 records, with a note).
    const truth = await listOf(s.emu, '/one-time/transfers');
    expect(truth.length).toBeGreaterThan(100);
    const file = join(tempDir(), 'all.jsonl');
    const r = await payrec(s.emu, ['ot', 'transfers', '-o', file]);
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    const hashes = readFileSync(file, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { transactionHash: string }).transactionHash);
    expect(hashes.sort()).toEqual(truth.map((t) => t.transactionHash as string).sort());
  });

  test.each([
    ['subscriptions', ['subscriptions', '--at', '2026-01-01'], 'subscription'],
    ['metrics', ['metrics', '--at', '2026-01-01'], 'row'],
    ['fr plans', ['fr', 'plans'], 'plan'],
  ])('%s --fail-if-any -o FILE: exit 9, and the file holds every row the gate counted', async (_, args, what) => {
    // Mutant killed: printRows committing the file only when the gate passes (exit 9 left no file).
    const dir = tempDir();
    const file = join(dir, 'rows.csv');
    const reference = await payrecInProcess(s.emu, [...args, '--db', db, '-f', 'json', '-q']);
    const rows = (JSON.parse(reference.stdout) as unknown[]).length;
    expect(rows).toBeGreaterThan(0);
    const r = await payrec(s.emu, [...args, '--db', db, '--fail-if-any', '-o', file, '-q']);
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toBe(`${rows.toLocaleString('en-US')} ${what}${rows === 1 ? '' : 's'} matched (--fail-if-any)\n`);
    expect(parseCsv(readFileSync(file, 'utf8'))).toHaveLength(rows + 1);
    expect(readdirSync(dir)).toEqual(['rows.csv']);
  });

  test('-o FILE.csv writes CSV, and FILE.json JSON, whatever format the profile stores', async () => {
    // Mutant killed: the profile's format before -o's extension (a .csv file held JSON).
    const env = { PAYREC_CONFIG_DIR: tempDir() };
    const dir = tempDir();
    for (const [stored, file] of [['json', 'out.csv'], ['csv', 'out.json']]) {
      expect((await payrecInProcess(s.emu, ['config', 'set', 'format', stored], { env })).exitCode).toBe(0);
      expect((await payrec(s.emu, ['ot', 'transfers', '--limit', '2', '-o', join(dir, file)], { env })).exitCode).toBe(0);
    }
    const csv = parseCsv(readFileSync(join(dir, 'out.csv'), 'utf8'));
    expect(csv[0]).toContain('transactionHash');
    expect(csv).toHaveLength(3);
    expect(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'))).toHaveLength(2);
  });

  test('an extension payrec cannot write is refused in any case (REPORT.XLS, Data.Parquet), nothing sent or written; OUT.CSV is CSV', async () => {
    // Mutant killed: the extension compared as typed (REPORT.XLS got tab-separated text).
    const dir = tempDir();
    // The first refusal by the built binary, the second in this worker.
    for (const [name, ext, instead, runner] of [
      ['REPORT.XLS', '.xls', '-o FILE.xlsx (a workbook every spreadsheet opens)', payrec],
      ['Data.Parquet', '.parquet', 'payrec sync --parquet DIR (Parquet of the mirror)', payrecInProcess],
    ] as const) {
      const r = await runner(s.quiet, ['ot', 'transfers', '-o', join(dir, name)]);
      expect(r.stderr).toBe(`error: payrec cannot write ${ext} files (-o "${join(dir, name)}"): nothing was written\nhint: use ${instead}\n`);
      expect(r.exitCode).toBe(2);
    }
    expect(s.quiet.requests).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
    expect((await payrec(s.emu, ['ot', 'transfers', '--limit', '1', '-o', join(dir, 'OUT.CSV')])).exitCode).toBe(0);
    expect(parseCsv(readFileSync(join(dir, 'OUT.CSV'), 'utf8'))[0]).toContain('transactionHash');
  });
});

describe('fr plans: the counted column', () => {
  // Two instants, each with a subscription within a day of its grace's end (found by
  // scanning the emulator's data with the oracle): 29 days 12 h past due at the first,
  // 30 days 12 h at the second, so a grace of 29 or 31 days counts them otherwise.
  test.each([1_769_472_000, 1_772_409_600])('at %i, each plan counts its active and past-due subscriptions (30 days of grace), as the oracle does', async (at) => {
    // Mutants killed: counted including lapsed ones, leaving out past-due ones, a grace of 29 or 31 days.
    // --emulator with its clock pinned: the same data as an emulator of this anchor here (records 250, seed 1).
    const own = await emulator({ now: at });
    try {
      const truth = own.subscriptions('bsc');
      const records = recordsOfFacts(truth.subscriptions);
      const ledger = naiveLedger(records.billings, records.cancellations, at, 30 * DAY);
      const nearGraceEnd = ledger.filter((row) => at - row.paidThrough > 29 * DAY && at - row.paidThrough <= 31 * DAY);
      expect(nearGraceEnd).toHaveLength(1);
      for (const state of ['active', 'past_due', 'lapsed']) expect(ledger.map((row) => row.state), state).toContain(state);

      const env = { PAYREC_EMULATOR_NOW: String(at) };
      const file = join(tempDir(), 'emulator.duckdb');
      const ids = truth.plans.map((p) => p.planId);
      const synced = await payrecInProcess(undefined, ['--emulator', 'sync', 'fr/short-urls', 'fr/billings', 'fr/cancellations', ...ids.flatMap((p) => ['--plan-id', p]), '--db', file, '-q'], { env });
      expect(synced.exitCode, synced.stderr).toBe(0);
      const r = await payrecInProcess(undefined, ['--emulator', 'fr', 'plans', '--db', file, '-f', 'json', '-q'], { env });
      expect(r.exitCode, r.stderr).toBe(0);
      const shown = new Map((JSON.parse(r.stdout) as { planId: string; counted: number; subscriptions: number }[]).map((p) => [p.planId, p]));
      for (const plan of ids) {
        const mine = ledger.filter((row) => row.planId === plan);
        expect(shown.get(plan), plan).toMatchObject({ subscriptions: mine.length, counted: mine.filter((row) => row.state === 'active' || row.state === 'past_due').length });
      }
    } finally {
      await own.close();
    }
  });
});

describe('every fixed-recurring short url is read, past the first 1,000', () => {
  const A = `0x${'a1'.repeat(32)}`;
  const B = `0x${'b2'.repeat(32)}`;
  let server: Server;
  let base: string;
  const asked: string[] = [];
  beforeAll(async () => {
    // 1,001 short urls: the first 1,000 name plan A, the last names plan B. Every other list is empty.
    const urls = Array.from({ length: 1001 }, (_, i) => ({
      path: `su${i}`, name: `url ${i}`, planId: i === 1000 ? B : A, createdAt: 1_760_000_000 + i, updatedAt: 1_760_000_000 + i,
      link: `https://8pay.me/su${i}`, params: { callbackSuccess: 'https://shop.example/ok', callbackError: 'https://shop.example/ko', extra: {} },
    }));
    server = createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      asked.push(url.pathname);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 100);
      const all = url.pathname === '/v1/bsc/fixed-recurring/short-urls' ? urls : [];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: all.slice(offset, offset + limit), limit, offset, total: all.length }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('payrec transfers reads the billings of both plans, and sync mirrors both', async () => {
    // Mutant killed: the short urls' walk limited to 1,000 records (plan B's billings never read).
    const env = { PAYREC_BASE_URL: base, PAYREC_API_KEY: 'prk_test_key', PAYREC_CHAIN: 'bsc', PAYREC_CONFIG_DIR: tempDir(), XDG_DATA_HOME: tempDir() };
    const r = await payrecInProcess(undefined, ['transfers', '--period', '2026-10', '--count'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toMatch(/^including the billings of 2 fixed-recurring plans \(2 named by short urls\)/);
    for (const plan of [A, B]) expect(asked, plan).toContain(`/v1/bsc/fixed-recurring/plans/${plan}/billings`);
    const file = join(tempDir(), 'm.duckdb');
    expect((await payrecInProcess(undefined, ['sync', 'fr/short-urls', '--db', file, '-q'], { env })).exitCode).toBe(0);
    const known = await payrec(undefined, ['fr', 'plans', '--db', file, '--jq', '.[].planId', '-q'], { env });
    expect(known.stdout).toBe(`${A}\n${B}\n`);
  });
});
