#!/usr/bin/env node
// `npm run bench`, third part: payrec subscriptions and payrec metrics over a mirror of
// 1,000,000 fixed-recurring billings (about 28,000 subscriptions of the emulator's
// lifecycles, over 2023), as whole processes: wall time (median of BENCH_RUNS) and
// peak RSS, against a baseline measured in the same run: `payrec sql` counting the same
// billings (a process that starts, opens the mirror and reads it).
// Goals (issue 22): each ≤ 2 s, peak RSS < 300 MB; `metrics --currency USD` with a rates
// file of a row per token and day (issue 45): ≤ 3 s, < 400 MB. Not part of `npm test`.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, fmt, KEY, median, NODE, startEmulator, Targets } from './common.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const BILLINGS = Number(process.env.BENCH_BILLINGS ?? 1_000_000);
// BENCH_SUBS_DIR keeps the mirror in that folder and reuses it on the next run (to measure one change after another).
const kept = process.env.BENCH_SUBS_DIR;
const work = kept ?? mkdtempSync(join(tmpdir(), 'payrec-bench-subs-'));
// The mirror of a million billings is about 100 MB: gone when the bench ends, however it ends.
if (kept) mkdirSync(kept, { recursive: true });
else process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const env = { ...process.env, PAYREC_CONFIG_DIR: work, PAYREC_API_KEY: KEY, PAYREC_CHAIN: 'bsc', NO_COLOR: '1' };
const db = join(work, 'billings.duckdb');
const targets = new Targets();

/** Wall time (ms), CPU time (user + system, ms: what a busy machine inflates least) and peak RSS (MB) of one run; throws when the command fails. */
function measure(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', NODE, BIN, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`payrec ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  const [kb, user, system] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { ms, cpu: (user + system) * 1000, mb: kb / 1024, stdout: r.stdout };
}

// Data: a year of lifecycles ending 2024-01-01, synced once into the mirror.
if (!(kept && existsSync(db))) await syncMirror();
async function syncMirror() {
  const emu = await startEmulator(env, BILLINGS, ['--now', '2024-01-01']);
  let plans;
  try {
    const fixtures = await (await fetch(`${emu.url}/_emulator/fixtures?chain=bsc`)).json();
    plans = fixtures.plans['fixed-recurring'];
    const t0 = process.hrtime.bigint();
    const sync = spawnSync(NODE, [BIN, '--base-url', emu.url, '-q', '--timeout', '300', 'sync', 'fr/billings', 'fr/cancellations', ...plans.flatMap((p) => ['--plan-id', p]), '--db', db, '-f', 'json'], { env, encoding: 'utf8' });
    if (sync.status !== 0) throw new Error(`sync failed: ${sync.stderr}`);
    const synced = JSON.parse(sync.stdout).reduce((n, r) => n + r.fetched, 0);
    console.log(`mirror: ${synced.toLocaleString('en-US')} records of ${plans.length} plans synced in ${fmt(Number(process.hrtime.bigint() - t0) / 1e6)}`);
  } finally {
    await emu.stop();
  }
}

// A rate per token and day of 2022–2023, as a team's rates file holds them (the lifecycles' cycles start in 2022): 8PAY has
// no feed, and the bench reads no chain. (An hourly file of 87,600 rows took values' parser 13 s at a load of 40.)
const rates = join(work, 'rates.csv');
const lines = ['time,chain,token,currency,rate,source'];
for (const [k, token] of ['8PAY', 'BNB', 'BUSD', 'USDC', 'USDT'].entries()) {
  for (let t = Date.UTC(2022, 0, 1) / 1000, i = 0; t < Date.UTC(2024, 0, 1) / 1000; t += 86_400, i++) {
    lines.push(`${new Date(t * 1000).toISOString().replace('.000Z', 'Z')},bsc,${token},USD,${k + 1}.${String((i * 7_919) % 9_973).padStart(4, '0')},bench`);
  }
}
writeFileSync(rates, `${lines.join('\n')}\n`);

const at = ['--at', '2024-01-01'];
const commands = {
  baseline: ['sql', '--db', db, '-f', 'csv', 'SELECT count(*) AS n, count(DISTINCT subscriptionId) AS subscriptions FROM fixed_recurring_billings'],
  metrics: ['metrics', '--db', db, '--period', '2023', '--interval', 'month', ...at, '-f', 'csv', '-q'],
  subscriptions: ['subscriptions', '--db', db, ...at, '-f', 'csv', '-q'],
  'metrics --currency': ['metrics', '--db', db, '--period', '2023', '--interval', 'month', ...at, '--currency', 'USD', '--rates', rates, '-f', 'csv', '-q'],
};
const runs = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
// Interleaved, so a busy moment of the machine falls on every command alike.
for (let i = 0; i < RUNS; i++) for (const [k, args] of Object.entries(commands)) runs[k].push(measure(args));

const baseline = median(runs.baseline.map((r) => r.ms));
console.log(`baseline (payrec sql counting the billings): ${fmt(baseline)}, CPU ${fmt(median(runs.baseline.map((r) => r.cpu)))}; ${runs.baseline[0].stdout.trim().split('\n')[1]} (billings, subscriptions)`);
const GOALS = { metrics: [2000, 300], subscriptions: [2000, 300], 'metrics --currency': [3000, 400] };
for (const [k, [goalMs, goalMb]] of Object.entries(GOALS)) {
  const ms = median(runs[k].map((r) => r.ms));
  const mb = Math.max(...runs[k].map((r) => r.mb));
  const cpu = median(runs[k].map((r) => r.cpu));
  const rows = runs[k][0].stdout.trim().split('\n').length - 1;
  console.log(`payrec ${k}: ${fmt(ms)} (${(ms / baseline).toFixed(2)}× the baseline), CPU ${fmt(cpu)}, peak RSS ${mb.toFixed(0)} MB, ${rows.toLocaleString('en-US')} rows`);
  targets.add(`payrec ${k} over ${BILLINGS.toLocaleString('en-US')} billings`, fmt(ms), `≤ ${goalMs / 1000} s`, ms <= goalMs, `${(ms / baseline).toFixed(2)}× the baseline; medians of ${RUNS}`);
  targets.add(`payrec ${k}: peak RSS`, `${mb.toFixed(0)} MB`, `< ${goalMb} MB`, mb < goalMb, `largest of ${RUNS}`);
}
// What the currency adds, as a ratio of the same run (the load of the machine falls on both alike).
const ratio = (f) => median(runs['metrics --currency'].map(f)) / median(runs.metrics.map(f));
console.log(`metrics --currency / metrics: ${ratio((r) => r.ms).toFixed(2)}× the wall time, ${ratio((r) => r.cpu).toFixed(2)}× the CPU time`);
targets.print();
process.exitCode = targets.passed ? 0 : 1;
