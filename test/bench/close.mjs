#!/usr/bin/env node
// `npm run bench:close`: payrec close of one month (-o FILE.xlsx) over a mirror of the
// emulator's fixed-recurring billings and its transfers of every product, as a whole
// process: wall time (median of BENCH_RUNS) and peak RSS, against a baseline measured in
// the same run: the commands the close replaces, `payrec metrics --period P` and
// `payrec transfers --period P --all --summary`, their times added.
// Goal (issue 46): ≤ 10 s and < 500 MB with 1,000,000 billings in the mirror and
// 300,000 transfers in the month. The emulator spreads the same number of records over
// every collection, so one emulator cannot give that shape (a million billings come with
// 580,000 transfers in a month): the mirror is synced from an emulator of BENCH_RECORDS
// records per collection (default 1,000,000 billings), then stopped, and the close reads
// the transfers from a second one of the same seed and plans, sized to give about
// BENCH_TRANSFERS transfers in the month (default 300,000); the count is printed.
// Not part of `npm test`.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, fmt, KEY, measureRun, median, NODE, startEmulator, Targets } from './common.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 300_000);
/** Transfers in December per record per collection (measured: 515,464 records per collection gave 288,021). */
const TRANSFERS_PER_RECORD = 0.5588;
const work = mkdtempSync(join(tmpdir(), 'payrec-bench-close-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const env = { ...process.env, PAYREC_CONFIG_DIR: work, PAYREC_API_KEY: KEY, PAYREC_CHAIN: 'bsc', NO_COLOR: '1' };
const db = join(work, 'billings.duckdb');
const targets = new Targets();

const measure = (args) => measureRun(env, args);
/** The machine's load (1, 5 and 15 minutes) beside each figure: a shared machine's figures say how busy it was. */
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

// A year of data ending 2024-01-01; the close is of its last month, December 2023.
const NOW = ['--now', '2024-01-01'];
const mirrored = await startEmulator(env, RECORDS, NOW);
let plans;
let synced;
try {
  plans = (await (await fetch(`${mirrored.url}/_emulator/fixtures?chain=bsc`)).json()).plans['fixed-recurring'];
  const t0 = process.hrtime.bigint();
  const sync = spawnSync(NODE, [BIN, '--base-url', mirrored.url, '-q', '--timeout', '300', 'sync', 'fr/billings', 'fr/cancellations', ...plans.flatMap((p) => ['--plan-id', p]), '--db', db, '-f', 'json'], { env, encoding: 'utf8' });
  if (sync.status !== 0) throw new Error(`sync failed: ${sync.stderr}`);
  synced = JSON.parse(sync.stdout).reduce((n, r) => n + r.fetched, 0);
  console.log(`mirror: ${synced.toLocaleString('en-US')} records of ${plans.length} plans synced in ${fmt(Number(process.hrtime.bigint() - t0) / 1e6)}`);
} finally {
  await mirrored.stop();
}

const emu = await startEmulator(env, Math.round(TRANSFERS / TRANSFERS_PER_RECORD), NOW);
try {
  const same = (await (await fetch(`${emu.url}/_emulator/fixtures?chain=bsc`)).json()).plans['fixed-recurring'];
  if (JSON.stringify(same) !== JSON.stringify(plans)) throw new Error('the two emulators have different plans: the close would bill none of the mirror\'s');
  const api = ['--base-url', emu.url, '-q', '--timeout', '300'];

  const period = ['--period', '2023-12', '--at', '2024-01-01'];
  const commands = {
    metrics: [...api, 'metrics', '--db', db, ...period, '-f', 'csv'],
    'transfers --summary': [...api, 'transfers', '--db', db, ...period.slice(0, 2), '--all', '--summary', '-f', 'json'],
    close: [...api, 'close', '2023-12', '--db', db, '--at', '2024-01-01', '-o', join(work, 'close.xlsx')],
  };
  // The emulator builds a collection's records when first asked: once, before anything is timed.
  measure(commands['transfers --summary']);
  const runs = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  // Interleaved, so a busy moment of the machine falls on every command alike.
  for (let i = 0; i < RUNS; i++) for (const [k, args] of Object.entries(commands)) runs[k].push(measure(args));

  const ms = (k) => median(runs[k].map((r) => r.ms));
  const mb = (k) => Math.max(...runs[k].map((r) => r.mb));
  const transfers = JSON.parse(runs['transfers --summary'][0].stdout).count;
  const baseline = ms('metrics') + ms('transfers --summary');
  console.log(`baseline: payrec metrics ${fmt(ms('metrics'))} (${mb('metrics').toFixed(0)} MB) + payrec transfers --summary ${fmt(ms('transfers --summary'))} (${mb('transfers --summary').toFixed(0)} MB) of ${transfers.toLocaleString('en-US')} transfers = ${fmt(baseline)}`);
  console.log(`payrec close: ${fmt(ms('close'))} (goal ≤ 10 s; ${(ms('close') / baseline).toFixed(2)}× the baseline), peak RSS ${mb('close').toFixed(0)} MB (goal < 500 MB); load average ${load()}`);
  const what = `payrec close of a month (${synced.toLocaleString('en-US')} billings and cancellations in the mirror, ${transfers.toLocaleString('en-US')} transfers in the month)`;
  targets.add(what, fmt(ms('close')), '≤ 10 s', ms('close') <= 10_000, `${(ms('close') / baseline).toFixed(2)}× the baseline; medians of ${RUNS}; load ${load()}`);
  targets.add('payrec close: peak RSS', `${mb('close').toFixed(0)} MB`, '< 500 MB', mb('close') < 500, `largest of ${RUNS}; load ${load()}`);
} finally {
  await emu.stop();
}
targets.print();
process.exitCode = targets.passed ? 0 : 1;
