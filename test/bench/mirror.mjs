#!/usr/bin/env node
// `npm run bench`, second part: the local mirror (payrec sync, payrec sql), against
// baselines measured in the same run (run.mjs has the first part).
//   1. a first sync of 1,000,000 transfers (BENCH_FIRST_SYNC_RECORDS) against the
//      `--all -f csv` export of the same records (medians of BENCH_EXPORT_RUNS, interleaved);
//   2. a sync of every default collection when nothing changed: wall time and requests
//      per collection (from the emulator's request log);
//   3. an exact total per token over 1,000,000 rows (payrec sql), and the mirror's file
//      size per million transfers;
//   4. queries during a first sync of 300,000 transfers: the longest a reader waits;
//   5. peak RSS of a first sync of 1,000,000 and of 3,000,000 transfers (DuckDB's memory
//      bounded by PAYREC_MIRROR_MEMORY, default 128MB), and their time.
// The emulator runs in its own process, as in run.mjs. Not part of `npm test`.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, fmt, KEY, median, NODE, startEmulator as startProcess, Targets, timedPayrec } from './common.mjs';

const RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 3);
const QUERY_RUNS = 7;
/** Records of part 1 (BENCH_FIRST_SYNC_RECORDS: 300000 to profile; the goal is set at 1,000,000, issue 33). */
const FIRST_SYNC_RECORDS = Number(process.env.BENCH_FIRST_SYNC_RECORDS ?? 1_000_000);

const work = mkdtempSync(join(tmpdir(), 'payrec-bench-mirror-'));
const env = { ...process.env, PAYREC_CONFIG_DIR: work, PAYREC_API_KEY: KEY, PAYREC_CHAIN: 'bsc', NO_COLOR: '1' };
const targets = new Targets();

/** Wall time of one payrec run in milliseconds, and its stdout. */
const run = (args) => timedPayrec(env, args);

const target = (...args) => targets.add(...args);
const startEmulator = (records) => startProcess(env, records);

async function control(url, method, path) {
  return (await fetch(`${url}/_emulator${path}`, { method })).json();
}

/** Generates a collection in the emulator before timing anything (the first request builds it). */
async function warm(url, path) {
  await fetch(`${url}/v1/bsc${path}?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
}

const removeDb = (db) => ['', '.wal'].forEach((s) => rmSync(db + s, { force: true }));

// ---------------------------------------------------------------------------

async function benchFirstSync() {
  const records = FIRST_SYNC_RECORDS;
  const emu = await startEmulator(records);
  try {
    await warm(emu.url, '/one-time/transfers');
    const to = Math.floor(Date.now() / 1000);
    const csv = join(work, 'export.csv');
    const db = join(work, 'first.duckdb');
    const times = { export: [], sync: [] };
    for (let i = 0; i < RUNS; i++) {
      times.export.push(run(['--base-url', emu.url, '-q', 'one-time', 'transfers', '--all', '--to', String(to), '-f', 'csv', '-o', csv]).ms);
      removeDb(db);
      const s = run(['--base-url', emu.url, '-q', 'sync', 'ot/transfers', '--db', db, '-f', 'json']);
      const [report] = JSON.parse(s.stdout);
      if (report.fetched !== records) throw new Error(`the sync fetched ${report.fetched} of ${records}`);
      times.sync.push(s.ms);
    }
    const exportMs = median(times.export);
    const syncMs = median(times.sync);
    const ratio = syncMs / exportMs;
    console.log(`first sync of ${records.toLocaleString('en-US')} transfers ${fmt(syncMs)}, --all -f csv export ${fmt(exportMs)} (medians of ${RUNS}, interleaved)`);
    target(`first sync of ${records.toLocaleString('en-US')} transfers / --all -f csv export`, `${ratio.toFixed(2)}×`, '≤ 1.2×', ratio <= 1.2, `${fmt(syncMs)} vs ${fmt(exportMs)}`);
  } finally {
    await emu.stop();
  }
}

async function benchNoChangeSync() {
  const emu = await startEmulator(20_000);
  const db = join(work, 'incremental.duckdb');
  try {
    const first = JSON.parse(run(['--base-url', emu.url, '-q', 'sync', '--db', db, '-f', 'json']).stdout);
    const times = [];
    let report;
    let requests;
    for (let i = 0; i < 5; i++) {
      await control(emu.url, 'DELETE', '/requests');
      const r = run(['--base-url', emu.url, '-q', 'sync', '--db', db, '-f', 'json']);
      times.push(r.ms);
      report = JSON.parse(r.stdout);
      requests = await control(emu.url, 'GET', '/requests');
    }
    if (report.some((c) => c.new + c.updated + c.deleted > 0)) throw new Error('records changed between syncs');
    const ms = median(times);
    // Per list read (a collection kept per plan is one list per plan): how often its URL was asked.
    const perList = new Map();
    for (const r of requests) perList.set(r.path, (perList.get(r.path) ?? 0) + 1);
    const most = Math.max(...perList.values());
    console.log(
      `no-change sync of ${report.length} collections (${first.reduce((n, c) => n + c.fetched, 0).toLocaleString('en-US')} records mirrored): ` +
        `${fmt(ms)} (median of 5), ${requests.length} requests`,
    );
    target(`no-change sync of all ${report.length} default collections`, fmt(ms), '≤ 1 s', ms <= 1000, 'median of 5, whole command');
    target('requests per list of a no-change sync (most)', String(most), '≤ 2', most <= 2, `${requests.length} requests for ${perList.size} lists in ${report.length} collections`);
  } finally {
    await emu.stop();
  }
}

async function benchMillion() {
  const records = 1_000_000;
  const emu = await startEmulator(records);
  const db = join(work, 'million.duckdb');
  try {
    await warm(emu.url, '/one-time/transfers');
    const sync = run(['--base-url', emu.url, '-q', 'sync', 'ot/transfers', '--db', db, '-f', 'json']);
    const size = statSync(db).size + (existsSync(`${db}.wal`) ? statSync(`${db}.wal`).size : 0); // checkpointed on close: no log left
    console.log(`sync of ${records.toLocaleString('en-US')} transfers: ${fmt(sync.ms)}; mirror file ${(size / 1e6).toFixed(0)} MB`);
    target('mirror file size per 1,000,000 transfers', `${(size / 1e6).toFixed(0)} MB`, '(reported)', true, `sync took ${fmt(sync.ms)}`);

    // Every row of the mirror takes part in the total.
    const [{ held }] = JSON.parse(run(["sql", "--db", db, "-f", "json", "SELECT count(*) AS held FROM one_time_transfers"]).stdout);
    const sum = 'SELECT token, count(*) AS n, SUM(amount) AS total FROM one_time_transfers GROUP BY token ORDER BY token';
    const times = { sum: [], floor: [] };
    for (let i = 0; i < QUERY_RUNS; i++) {
      times.floor.push(run(['sql', '--db', db, 'SELECT 1']).ms);
      const r = run(['sql', '--db', db, '-f', 'json', sum]);
      const counted = JSON.parse(r.stdout).reduce((n, t) => n + t.n, 0);
      if (counted !== held) throw new Error(`the total covered ${counted} of ${held} rows`);
      times.sum.push(r.ms);
    }
    const whole = median(times.sum);
    const floor = median(times.floor);
    const query = whole - floor;
    console.log(`SUM(amount) per token over ${records.toLocaleString('en-US')} rows: ${fmt(whole)} for the command, ${fmt(floor)} for payrec sql "SELECT 1" (medians of ${QUERY_RUNS})`);
    target(`SUM(amount) per token over ${records.toLocaleString('en-US')} rows (the query's own time)`, fmt(query), '≤ 200 ms', query <= 200, `${fmt(whole)} the whole command, ${fmt(floor)} of it start-up and open`);
  } finally {
    await emu.stop();
  }
}

/** A command running on its own, for work done alongside it: resolves with its exit code. */
function start(args) {
  const child = spawn(NODE, [BIN, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const done = new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
  return { child, done };
}

async function benchReaders() {
  const records = 300_000;
  const emu = await startEmulator(records);
  const db = join(work, 'readers.duckdb');
  try {
    await warm(emu.url, '/one-time/transfers');
    const t0 = performance.now();
    const sync = start(['--base-url', emu.url, '-q', 'sync', 'ot/transfers', '--db', db]);
    let exited = false;
    sync.done.then(() => (exited = true));
    // Once the mirror exists, a query after another (each a whole `payrec sql` process) until the sync ends.
    while (!existsSync(db) && !exited) await new Promise((r) => setTimeout(r, 50));
    const waits = [];
    let last = 0;
    while (!exited) {
      const t = performance.now();
      const r = spawnSync(NODE, [BIN, 'sql', '--db', db, '-f', 'json', 'SELECT count(*) AS n FROM one_time_transfers'], { env, encoding: 'utf8' });
      const ms = performance.now() - t;
      if (exited) break;
      if (r.status !== 0) throw new Error(`a query during the sync failed (${r.status}): ${r.stderr}`);
      const [{ n }] = JSON.parse(r.stdout);
      if (n < last) throw new Error(`a count went down: ${last} then ${n}`);
      last = n;
      waits.push(ms);
      await new Promise((res) => setTimeout(res, 200));
    }
    const { code, stderr } = await sync.done;
    if (code !== 0) throw new Error(`the sync failed (${code}): ${stderr}`);
    const syncMs = performance.now() - t0;
    const floor = median(Array.from({ length: 5 }, () => run(['sql', '--db', db, 'SELECT count(*) FROM one_time_transfers']).ms));
    const longest = Math.max(...waits);
    console.log(`${waits.length} queries during a first sync of ${records.toLocaleString('en-US')} transfers (${fmt(syncMs)}): longest ${fmt(longest)}, median ${fmt(median(waits))}; the same query with no sync: ${fmt(floor)}`);
    target(`longest query during a first sync of ${records.toLocaleString('en-US')} transfers`, fmt(longest), '≤ 5 s', longest <= 5000 && waits.length > 0, `${waits.length} queries, whole commands; ${fmt(floor)} with no sync`);
  } finally {
    await emu.stop();
  }
}

/** Peak RSS in MB of a first sync (GNU time's maximum resident set size), and its time. */
function syncPeakRss(emuUrl, db) {
  removeDb(db);
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', NODE, BIN, '--base-url', emuUrl, '-q', 'sync', 'ot/transfers', '--db', db, '-f', 'json'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`sync failed: ${r.stderr}`);
  return { mb: Number(r.stderr.trim().split('\n').at(-1)) / 1024, ms, fetched: JSON.parse(r.stdout)[0].fetched };
}

async function benchSyncMemory() {
  const rss = {};
  for (const records of [1_000_000, 3_000_000]) {
    const emu = await startEmulator(records);
    try {
      await warm(emu.url, '/one-time/transfers');
      const m = syncPeakRss(emu.url, join(work, 'memory.duckdb'));
      if (m.fetched !== records) throw new Error(`the sync fetched ${m.fetched} of ${records}`);
      rss[records] = m;
      console.log(`first sync of ${records.toLocaleString('en-US')} transfers: peak RSS ${m.mb.toFixed(0)} MB, ${fmt(m.ms)}`);
    } finally {
      await emu.stop();
    }
  }
  const growth = rss[3_000_000].mb / rss[1_000_000].mb - 1;
  target('peak RSS growth of a first sync, 1,000,000 → 3,000,000', `${(growth * 100).toFixed(0)} %`, '≤ 15 %', growth <= 0.15, `${rss[1_000_000].mb.toFixed(0)} MB → ${rss[3_000_000].mb.toFixed(0)} MB; ${fmt(rss[1_000_000].ms)} and ${fmt(rss[3_000_000].ms)}`);
}

const PARTS = { first: benchFirstSync, nochange: benchNoChangeSync, million: benchMillion, readers: benchReaders, memory: benchSyncMemory };
/** BENCH_MIRROR_PARTS=readers,memory runs only those parts. */
const parts = (process.env.BENCH_MIRROR_PARTS ?? Object.keys(PARTS).join(',')).split(',');

console.log(`\nthe local mirror — node ${process.version}, ${(await import('node:os')).cpus().length} CPUs`);
try {
  for (const part of parts) await PARTS[part]();
} finally {
  rmSync(work, { recursive: true, force: true });
}
targets.print();
process.exitCode = targets.passed ? 0 : 1;
