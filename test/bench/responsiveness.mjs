#!/usr/bin/env node
// `npm run bench:responsiveness`: how soon payrec answers where a person waits, figures
// that `npm test` no longer asserts (a timed assertion fails on a busy machine; the tests
// keep the behaviour: Ctrl-C stops a query, a reader answers while a sync runs):
//   1. Ctrl-C on `payrec sql` inside a long aggregate: from the signal to the exit;
//   2. `payrec sql` while a sync of 20,000 records (slowed pages) writes the mirror:
//      the time of each answer.
// Medians of several runs; run it on a quiet machine and several times (the spread says
// how much the machine moved). Not a vitest file; `npm test` never runs it.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, fmt, KEY, median, NODE, startEmulator, Targets } from './common.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const work = mkdtempSync(join(tmpdir(), 'payrec-bench-'));
const env = { ...process.env, PAYREC_CONFIG_DIR: work, PAYREC_API_KEY: KEY, PAYREC_CHAIN: 'bsc', NO_COLOR: '1' };
const targets = new Targets();

/** CPU seconds a process has spent (Linux /proc): how far into its work it is, whatever the load. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function ctrlC(db) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const child = spawn(NODE, [BIN, 'sql', '--db', db, 'SELECT sum(i) FROM range(9000000000000000) t(i)'], { env, stdio: 'ignore' });
    while (cpuSeconds(child.pid) < 2) await sleep(20);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const sent = performance.now();
    child.kill('SIGINT');
    const code = await exited;
    if (code !== 130) throw new Error(`payrec sql exited ${code} after SIGINT`);
    times.push(performance.now() - sent);
  }
  const m = median(times);
  console.log(`Ctrl-C in a running aggregate: ${times.map(fmt).join(', ')}`);
  targets.add(`Ctrl-C stops payrec sql in an aggregate (median of ${RUNS})`, fmt(m), '≤ 1 s', m <= 1000, `max ${fmt(Math.max(...times))}`);
}

async function readersDuringSync(url) {
  const db = join(work, 'shared.duckdb');
  const faults = (body) => fetch(`${url}/_emulator/faults`, { method: body ? 'POST' : 'DELETE', body: body ? JSON.stringify(body) : undefined });
  await faults({ rate: 1, kinds: ['slow'], slowMs: 350 });
  const sync = spawn(NODE, [BIN, 'sync', 'ot/transfers', '--db', db, '--base-url', url, '--concurrency', '1', '-q'], { env, stdio: 'ignore' });
  let running = true;
  const done = new Promise((resolve) => sync.once('exit', (code) => ((running = false), resolve(code))));
  const times = [];
  await sleep(1000);
  while (running && times.length < 40) {
    const t = performance.now();
    const r = spawnSync(NODE, [BIN, 'sql', '--db', db, 'SELECT count(*) FROM one_time_transfers'], { env, encoding: 'utf8' });
    if (r.status === 0) times.push(performance.now() - t);
    await sleep(300);
  }
  const code = await done;
  await faults(undefined);
  if (code !== 0) throw new Error(`the sync exited ${code}`);
  const m = median(times);
  console.log(`payrec sql during a sync (${times.length} answers): median ${fmt(m)}, max ${fmt(Math.max(...times))}`);
  targets.add(`payrec sql while a sync writes the mirror (median of ${times.length})`, fmt(m), '≤ 5 s each', Math.max(...times) <= 5000, `max ${fmt(Math.max(...times))}`);
}

const emu = await startEmulator(env, 20_000);
try {
  const db = join(work, 'm.duckdb');
  const first = spawnSync(NODE, [BIN, 'sync', 'ot/transfers', '--db', db, '--base-url', emu.url, '-q'], { env, encoding: 'utf8' });
  if (first.status !== 0) throw new Error(`sync: ${first.stderr}`);
  await ctrlC(db);
  await readersDuringSync(emu.url);
} finally {
  await emu.stop();
  rmSync(work, { recursive: true, force: true });
}
targets.print();
process.exitCode = targets.passed ? 0 : 1;
