#!/usr/bin/env node
// `npm run bench:close`: payrec close of one month (-o FILE.xlsx) over a mirror of the
// emulator's fixed-recurring billings and its transfers of every product, as a whole
// process: wall time (median of BENCH_RUNS) and peak RSS, against a baseline measured in
// the same run: the commands the close replaces, `payrec metrics --period P` and
// `payrec transfers --period P --all --summary`, their times added.
// Goal (issue 46): ≤ 10 s and < 500 MB with 1,000,000 billings in the mirror and
// 300,000 transfers in the month. BENCH_RECORDS sets the emulator's records per
// collection over its year (default 1,000,000: about a million billings, and about
// 7 × 1,000,000 / 12 transfers in a month, more than the goal's). Not part of `npm test`.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, fmt, KEY, measureRun, median, NODE, startEmulator, Targets } from './common.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const work = mkdtempSync(join(tmpdir(), 'payrec-bench-close-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const env = { ...process.env, PAYREC_CONFIG_DIR: work, PAYREC_API_KEY: KEY, PAYREC_CHAIN: 'bsc', NO_COLOR: '1' };
const db = join(work, 'billings.duckdb');
const targets = new Targets();

const measure = (args) => measureRun(env, args);

// A year of data ending 2024-01-01; the close is of its last month, December 2023.
const emu = await startEmulator(env, RECORDS, ['--now', '2024-01-01']);
try {
  const fixtures = await (await fetch(`${emu.url}/_emulator/fixtures?chain=bsc`)).json();
  const plans = fixtures.plans['fixed-recurring'];
  const api = ['--base-url', emu.url, '-q', '--timeout', '300'];
  const t0 = process.hrtime.bigint();
  const sync = spawnSync(NODE, [BIN, ...api, 'sync', 'fr/billings', 'fr/cancellations', ...plans.flatMap((p) => ['--plan-id', p]), '--db', db, '-f', 'json'], { env, encoding: 'utf8' });
  if (sync.status !== 0) throw new Error(`sync failed: ${sync.stderr}`);
  const synced = JSON.parse(sync.stdout).reduce((n, r) => n + r.fetched, 0);
  console.log(`mirror: ${synced.toLocaleString('en-US')} records of ${plans.length} plans synced in ${fmt(Number(process.hrtime.bigint() - t0) / 1e6)}`);

  const period = ['--period', '2023-12', '--at', '2024-01-01'];
  const commands = {
    metrics: [...api, 'metrics', '--db', db, ...period, '-f', 'csv'],
    'transfers --summary': [...api, 'transfers', '--db', db, ...period.slice(0, 2), '--all', '--summary', '-f', 'json'],
    close: [...api, 'close', '2023-12', '--db', db, '--at', '2024-01-01', '-o', join(work, 'close.xlsx')],
  };
  const runs = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  // Interleaved, so a busy moment of the machine falls on every command alike.
  for (let i = 0; i < RUNS; i++) for (const [k, args] of Object.entries(commands)) runs[k].push(measure(args));

  const ms = (k) => median(runs[k].map((r) => r.ms));
  const mb = (k) => Math.max(...runs[k].map((r) => r.mb));
  const transfers = JSON.parse(runs['transfers --summary'][0].stdout).count;
  const baseline = ms('metrics') + ms('transfers --summary');
  console.log(`baseline: payrec metrics ${fmt(ms('metrics'))} (${mb('metrics').toFixed(0)} MB) + payrec transfers --summary ${fmt(ms('transfers --summary'))} (${mb('transfers --summary').toFixed(0)} MB) of ${transfers.toLocaleString('en-US')} transfers = ${fmt(baseline)}`);
  console.log(`payrec close: ${fmt(ms('close'))} (${(ms('close') / baseline).toFixed(2)}× the baseline), peak RSS ${mb('close').toFixed(0)} MB`);
  const what = `payrec close of a month (${synced.toLocaleString('en-US')} billings and cancellations in the mirror, ${transfers.toLocaleString('en-US')} transfers in the month)`;
  targets.add(what, fmt(ms('close')), '≤ 10 s', ms('close') <= 10_000, `${(ms('close') / baseline).toFixed(2)}× the baseline; medians of ${RUNS}`);
  targets.add('payrec close: peak RSS', `${mb('close').toFixed(0)} MB`, '< 500 MB', mb('close') < 500, `largest of ${RUNS}`);
} finally {
  await emu.stop();
}
targets.print();
process.exitCode = targets.passed ? 0 : 1;
