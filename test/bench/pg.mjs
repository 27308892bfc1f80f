#!/usr/bin/env node
// `npm run bench:pg`: a team's mirror on PostgreSQL against DuckDB's file, measured in
// the same run (DESIGN.md "A team's mirror on PostgreSQL"):
//   1. a first sync of 1,000,000 transfers (BENCH_PG_RECORDS) into a local PostgreSQL
//      against the same sync into a DuckDB file (medians of BENCH_PG_RUNS, interleaved);
//   2. a sync of every default collection when nothing changed, on PostgreSQL: wall time
//      and requests per list (from the emulator's request log).
// The server is PAYREC_TEST_PG, or a private cluster this bench starts and stops
// (test/pg-cluster.sh). The emulator runs in its own process. Not part of `npm test`.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, KEY, median, ROOT, startEmulator as startProcess, Targets, timedPayrec } from './common.mjs';

const RECORDS = Number(process.env.BENCH_PG_RECORDS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_PG_RUNS ?? 3);

const work = mkdtempSync(join(tmpdir(), 'payrec-bench-pg-'));
const env = { ...process.env, PAYREC_CONFIG_DIR: work, PAYREC_API_KEY: KEY, PAYREC_CHAIN: 'bsc', NO_COLOR: '1' };
const targets = new Targets();

function cluster(command, dir) {
  const r = spawnSync('bash', [join(ROOT, 'test/pg-cluster.sh'), command, dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`test/pg-cluster.sh ${command}: ${r.stderr}`);
  return r.stdout.trim();
}

const own = process.env.PAYREC_TEST_PG ? undefined : mkdtempSync(join(tmpdir(), 'payrec-bench-cluster-'));
const server = process.env.PAYREC_TEST_PG || cluster('start', own);
let schemas = 0;
/** The server's URL with a new schema. */
function fresh() {
  const u = new URL(server);
  u.searchParams.set('schema', `bench_${process.pid}_${++schemas}`);
  return u.toString();
}

/** Wall time of one payrec run in milliseconds, and its stdout. */
const run = (args) => timedPayrec(env, args);

/** A control request to the emulator; once more when the kept-alive socket it took had just been closed by the emulator (idle while a sync ran). */
async function control(url, method, path) {
  try {
    return await (await fetch(`${url}/_emulator${path}`, { method })).json();
  } catch (e) {
    if (e?.cause?.code !== 'UND_ERR_SOCKET') throw e;
    return (await fetch(`${url}/_emulator${path}`, { method })).json();
  }
}

async function benchFirstSync() {
  const emu = await startProcess(env, RECORDS);
  try {
    await fetch(`${emu.url}/v1/bsc/one-time/transfers?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
    const times = { duckdb: [], postgres: [] };
    for (let i = 0; i < RUNS; i++) {
      const file = join(work, `first-${i}.duckdb`);
      for (const [engine, db] of [['duckdb', file], ['postgres', fresh()]]) {
        const s = run(['--base-url', emu.url, '-q', 'sync', 'ot/transfers', '--db', db, '-f', 'json']);
        const [report] = JSON.parse(s.stdout);
        if (report.fetched !== RECORDS || report.new !== RECORDS) throw new Error(`${engine}: the sync fetched ${report.fetched} and wrote ${report.new} of ${RECORDS}`);
        times[engine].push(s.ms);
      }
      rmSync(file, { force: true });
    }
    const [duck, pg] = [median(times.duckdb), median(times.postgres)];
    const ratio = pg / duck;
    console.log(`first sync of ${RECORDS.toLocaleString('en-US')} transfers: PostgreSQL ${fmt(pg)}, DuckDB ${fmt(duck)} (medians of ${RUNS}, interleaved)`);
    target(`first sync of ${RECORDS.toLocaleString('en-US')} transfers, PostgreSQL / DuckDB`, `${ratio.toFixed(2)}×`, '≤ 1.5×', ratio <= 1.5, `${fmt(pg)} vs ${fmt(duck)}`);
  } finally {
    await emu.stop();
  }
}

async function benchNoChangeSync() {
  const emu = await startProcess(env, 20_000);
  const db = fresh();
  const file = join(work, 'nochange.duckdb');
  try {
    run(['--base-url', emu.url, '-q', 'sync', '--db', db, '-f', 'json']);
    run(['--base-url', emu.url, '-q', 'sync', '--db', file, '-f', 'json']);
    const times = [];
    const duck = [];
    let report;
    let requests;
    for (let i = 0; i < 5; i++) {
      duck.push(run(['--base-url', emu.url, '-q', 'sync', '--db', file, '-f', 'json']).ms);
      await control(emu.url, 'DELETE', '/requests');
      const r = run(['--base-url', emu.url, '-q', 'sync', '--db', db, '-f', 'json']);
      times.push(r.ms);
      report = JSON.parse(r.stdout);
      requests = await control(emu.url, 'GET', '/requests');
    }
    target('the same on a DuckDB file (baseline)', fmt(median(duck)), '(reported)', true, 'median of 5, interleaved');
    if (report.some((c) => c.new + c.updated + c.deleted > 0)) throw new Error('records changed between syncs');
    const ms = median(times);
    const perList = new Map();
    for (const r of requests) perList.set(r.path, (perList.get(r.path) ?? 0) + 1);
    const most = Math.max(...perList.values());
    console.log(`no-change sync of ${report.length} collections on PostgreSQL: ${fmt(ms)} (median of 5), ${requests.length} requests`);
    target(`no-change sync of all ${report.length} default collections, PostgreSQL`, fmt(ms), '≤ 2 s', ms <= 2000, 'median of 5, whole command');
    target('requests per list of that sync (most)', String(most), '1', most === 1, `${requests.length} requests for ${perList.size} lists`);
  } finally {
    await emu.stop();
  }
}

const target = (...args) => targets.add(...args);
const PARTS = { first: benchFirstSync, nochange: benchNoChangeSync };
const parts = (process.env.BENCH_PG_PARTS ?? Object.keys(PARTS).join(',')).split(',');

console.log(`\na team's mirror on PostgreSQL — node ${process.version}, ${(await import('node:os')).cpus().length} CPUs`);
try {
  for (const part of parts) await PARTS[part]();
} finally {
  rmSync(work, { recursive: true, force: true });
  if (own) {
    cluster('stop', own);
    rmSync(own, { recursive: true, force: true });
  }
}
targets.print();
process.exitCode = targets.passed ? 0 : 1;
