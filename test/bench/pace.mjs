#!/usr/bin/env node
// `npm run bench:pace` (issue 33): payrec at the network's pace, each figure a ratio
// against a baseline taken in the same run, so it holds on a busy machine too.
//   startup: `payrec --version` and `--help` against `node -e 0` (interleaved), and the
//            libraries `sql`, `metrics` and a no-change `sync` load (zod, undici, the
//            emulator): each should load only what it uses;
//   export:  `payrec od transfers --all -f csv -o x.csv` of 300,000 records against the
//            fetch floor (Node's fetch of the same 300 pages over 8 kept-alive
//            connections, bodies read and thrown away), against fetching and parsing
//            them alone (stages.mjs parse), against the least any exporter does
//            (stages.mjs rows: parsed and written as naive CSV), and against the build of
//            BENCH_BASELINE_REF (default main), whose file must be byte-identical;
//   memory:  peak RSS of that export at 1,000,000 records;
//   latency: the same export with the emulator 0, 20 and 150 ms away (its --latency):
//            payrec finding the pace (no --concurrency) against --concurrency 4, 8 and
//            16 and the fetch floor over 16 connections, interleaved, with the peak RSS
//            of each export; every file byte-identical.
// BENCH_ONLY=startup,export,memory,latency picks sections; BENCH_RUNS the runs of each
// (default 5, 21 for start-up, 3 for latency: BENCH_LATENCY_RUNS), BENCH_LATENCIES the
// latencies (default 0,20,150), BENCH_LATENCY_RECORDS the records of each latency's export
// (default 300,000; fewer for a quick run: `BENCH_ONLY=latency` takes a few minutes). The baseline build is made from `git archive` of the ref into a
// temporary folder, with this clone's node_modules. Not part of `npm test`.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, fmt, interleavedTimes, KEY, median, NODE, ROOT, startEmulator as startProcess, Targets, timed as timedIn } from './common.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const STARTUP_RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 21);
const BASELINE_REF = process.env.BENCH_BASELINE_REF ?? 'main';
const LIST = '/v1/bsc/on-demand/transfers';
const PAGE = 1000;

const work = mkdtempSync(join(tmpdir(), 'payrec-bench-pace-'));
const env = { ...process.env, PAYREC_CONFIG_DIR: work, PAYREC_API_KEY: KEY, PAYREC_CHAIN: 'bsc', NO_COLOR: '1' };
const targets = new Targets();
const target = (...args) => targets.add(...args);

/** Wall time of one run in ms; throws when the command fails. */
const timed = (cmd, args, options) => timedIn(env, cmd, args, options);
const interleaved = interleavedTimes;

const spread = (xs) => `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`;

/** payrec as built from BENCH_BASELINE_REF: its bin/payrec.js. */
function baselineBuild() {
  const dir = join(work, 'baseline');
  mkdirSync(dir);
  execFileSync('sh', ['-c', `git -C "${ROOT}" archive "${BASELINE_REF}" | tar -x -C "${dir}"`]);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const build = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts.build.split(' && ')[0];
  execFileSync('sh', ['-c', `PATH="${join(ROOT, 'node_modules/.bin')}:$PATH" ${build}`], { cwd: dir, stdio: 'inherit' });
  const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', BASELINE_REF], { encoding: 'utf8' }).trim();
  return { bin: join(dir, 'bin/payrec.js'), name: `${BASELINE_REF} (${commit})` };
}

// ---------------------------------------------------------------------------

/** Which sources each file of dist/ holds: the same build again, with esbuild's metafile (its chunk names are content hashes, so they match). */
function distInputs() {
  const build = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.build.split(' && ')[0];
  const out = join(work, 'meta');
  execFileSync('sh', ['-c', `PATH="${join(ROOT, 'node_modules/.bin')}:$PATH" ${build} --outdir="${out}" --metafile="${out}.json"`], { cwd: ROOT, stdio: 'inherit' });
  const meta = JSON.parse(readFileSync(`${out}.json`, 'utf8'));
  return new Map(Object.entries(meta.outputs).map(([file, o]) => [file.slice(file.lastIndexOf('/') + 1), Object.keys(o.inputs)]));
}

/** A source's part: its package, the emulator, or the emulator's clock (src/core/runtime/emulator-clock.ts). */
function partOf(input) {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (pkg) return pkg[1];
  if (input.startsWith('src/emulator/')) return 'the emulator';
  if (input.endsWith('emulator-clock.ts')) return 'the emulator clock';
  return undefined;
}

/** The packages and parts a command loads (an ESM loader hook prints each file it loads). */
function loadedParts(inputs, args) {
  const hooks = join(work, 'hooks.mjs');
  const register = join(work, 'register.mjs');
  writeFileSync(hooks, `export async function load(url, context, next) { if (url.startsWith('file:')) process.stderr.write('LOADED ' + url + '\\n'); return next(url, context); }\n`);
  writeFileSync(register, `import { register } from 'node:module'; register(${JSON.stringify('file://' + hooks)});\n`);
  const r = spawnSync(NODE, ['--import', register, BIN, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`payrec ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  const parts = new Set();
  for (const line of r.stderr.split('\n')) {
    if (!line.startsWith('LOADED ')) continue;
    const url = line.slice(7);
    const sources = url.includes('/dist/') ? inputs.get(url.slice(url.lastIndexOf('/') + 1)) ?? [] : [url];
    for (const s of sources) if (partOf(s)) parts.add(partOf(s));
  }
  return [...parts].sort();
}

/** Medians of each node command's own CPU time (process.cpuUsage() at exit, in ms), interleaved. */
function cpuTimes(commands) {
  const hook = join(work, 'exit-cpu.mjs');
  writeFileSync(hook, "process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write(`CPU ${(u.user + u.system) / 1000}\\n`); });\n");
  const cpuOf = (args) => () => {
    const r = spawnSync(NODE, ['--import', hook, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return Number(/^CPU ([\d.]+)$/m.exec(r.stderr)[1]);
  };
  const times = interleaved(Object.fromEntries(Object.entries(commands).map(([k, args]) => [k, cpuOf(args)])), STARTUP_RUNS);
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

function benchStartup(baseline) {
  const commands = {
    floor: () => timed(NODE, ['-e', '0']),
    version: () => timed(NODE, [BIN, '--version']),
    help: () => timed(NODE, [BIN, '--help']),
  };
  if (baseline) {
    commands.baseVersion = () => timed(NODE, [baseline.bin, '--version']);
    commands.baseHelp = () => timed(NODE, [baseline.bin, '--help']);
  }
  const t = interleaved(commands, STARTUP_RUNS);
  const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]));
  const v = m.version / m.floor;
  const h = m.help / m.floor;
  console.log(`start-up (medians of ${STARTUP_RUNS}, interleaved): node -e 0 ${fmt(m.floor)}, --version ${fmt(m.version)}, --help ${fmt(m.help)}`);
  target('payrec --version / node -e 0', `${v.toFixed(2)}×`, '≤ 1.2×', v <= 1.2, `${fmt(m.version)} vs ${fmt(m.floor)}`);
  target('payrec --help / node -e 0', `${h.toFixed(2)}×`, '≤ 1.4×', h <= 1.4, `${fmt(m.help)} vs ${fmt(m.floor)}`);
  // The same in CPU time, which the process reads itself at exit (user + system, every thread):
  // other work on the machine stretches wall times far more than it does this.
  const cpu = cpuTimes({ floor: ['-e', '0'], help: [BIN, '--help'], ...(baseline ? { baseHelp: [baseline.bin, '--help'] } : {}) });
  console.log(`start-up CPU time (medians of ${STARTUP_RUNS}): node -e 0 ${fmt(cpu.floor)}, --help ${fmt(cpu.help)}${baseline ? `, ${baseline.name}'s --help ${fmt(cpu.baseHelp)}` : ''}`);
  target('CPU time of payrec --help / node -e 0', `${(cpu.help / cpu.floor).toFixed(2)}×`, 'report', true, `${fmt(cpu.help)} vs ${fmt(cpu.floor)}`);
  if (baseline) {
    target(`CPU time of ${baseline.name}'s --help / node -e 0`, `${(cpu.baseHelp / cpu.floor).toFixed(2)}×`, 'report', true, `${fmt(cpu.baseHelp)} vs ${fmt(cpu.floor)}`);
    target(`${baseline.name}: --version / node -e 0`, `${(m.baseVersion / m.floor).toFixed(2)}×`, 'report', true, `${fmt(m.baseVersion)} vs ${fmt(m.floor)}`);
    target(`${baseline.name}: --help / node -e 0`, `${(m.baseHelp / m.floor).toFixed(2)}×`, 'report', true, `${fmt(m.baseHelp)} vs ${fmt(m.floor)}`);
  }
}

// Loaded only where a command uses them: zod checks records and typed ids (not flags), undici
// sends requests, the emulator answers --emulator.
const HEAVY = ['zod', 'undici', 'the emulator', 'the emulator clock'];
// What each command uses of them: metrics finds its plans in the mirror's tables, whose
// layout is derived from the registry's zod schemas (mirror/layout.ts); a no-change sync
// asks the server once per list and checks what comes back against those schemas.
const USES = { sql: [], metrics: ['zod'], 'no-change sync': ['undici', 'zod'] };

async function benchModules(baseline) {
  const inputs = distInputs();
  const emu = await startProcess(env, 2000);
  try {
    const db = join(work, 'modules.duckdb');
    const sync = ['--base-url', emu.url, '-q', 'sync', '--db', db];
    timed(NODE, [BIN, ...sync]);
    const commands = {
      'sql': ['sql', '--db', db, 'SELECT 1'],
      'metrics': ['metrics', '--db', db, '--period', '2026', '-f', 'csv'],
      'no-change sync': sync,
    };
    for (const [name, args] of Object.entries(commands)) {
      const parts = loadedParts(inputs, args);
      const extra = parts.filter((p) => HEAVY.includes(p) && !USES[name].includes(p));
      console.log(`payrec ${name} loads: ${parts.join(', ')}`);
      target(`payrec ${name}: loads of ${HEAVY.join(', ')}`, extra.length ? `${extra.join(', ')} unused` : `only ${USES[name].join(', ') || 'none'}`, `only ${USES[name].join(', ') || 'none'}`, extra.length === 0, '');
    }
    if (baseline) {
      // What start-up saves: the same query through this build and the baseline's, interleaved.
      const query = (bin) => () => timed(NODE, [bin, ...commands.sql]);
      const t = interleaved({ floor: () => timed(NODE, ['-e', '0']), payrec: query(BIN), baseline: query(baseline.bin) }, STARTUP_RUNS);
      const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]));
      console.log(`payrec sql "SELECT 1" (medians of ${STARTUP_RUNS}): ${fmt(m.payrec)} against ${baseline.name}'s ${fmt(m.baseline)}; node -e 0 ${fmt(m.floor)}`);
      target(`payrec sql "SELECT 1": beyond node -e 0, against ${baseline.name}`, `${((m.payrec - m.floor) / (m.baseline - m.floor)).toFixed(2)}×`, 'report', true, `${fmt(m.payrec - m.floor)} vs ${fmt(m.baseline - m.floor)}`);
    }
  } finally {
    await emu.stop();
  }
}

/** The fetch floor: Node's fetch of every page over N (default 8) kept-alive connections, bodies read and dropped. */
const FLOOR = `
const [url, to, total, key, connections = '8'] = process.argv.slice(1);
let next = 0;
async function worker() {
  while (next < Number(total)) {
    const offset = next;
    next += ${PAGE};
    const res = await fetch(url + '?limit=${PAGE}&offset=' + offset + '&to=' + to, { headers: { authorization: 'Bearer ' + key } });
    if (res.status !== 200) throw new Error('status ' + res.status);
    for await (const chunk of res.body) void chunk;
  }
}
await Promise.all(Array.from({ length: Number(connections) }, worker));
`;

async function benchExport(baseline) {
  const records = 300_000;
  const emu = await startProcess(env, records);
  try {
    const url = `${emu.url}${LIST}`;
    const to = String(Math.floor(Date.now() / 1000));
    const first = await (await fetch(`${url}?limit=1&to=${to}`, { headers: { authorization: `Bearer ${KEY}` } })).json();
    const out = { payrec: join(work, 'x.csv'), baseline: join(work, 'baseline.csv') };
    const exportWith = (bin, file) => () => timed(NODE, [bin, '--base-url', emu.url, '-q', 'od', 'transfers', '--all', '--to', to, '-f', 'csv', '-o', file]);
    const floor = () => timed(NODE, ['--input-type=module', '-e', FLOOR, url, to, String(first.total), KEY]);
    // What fetching and parsing alone cost (undici as payrec uses it, 4 pages at a time, every body JSON.parse'd, nothing else):
    // the part of the export payrec cannot do without, against which its own work is measured.
    const parse = () => timed(NODE, [join(ROOT, 'test/bench/stages.mjs'), 'parse', url, to, String(first.total), KEY]);
    // The least any exporter in Node does: fetch, parse and write naive CSV lines (no checks, no time formats).
    const rows = () => timed(NODE, [join(ROOT, 'test/bench/stages.mjs'), 'rows', url, to, String(first.total), KEY, join(work, 'naive.csv')]);
    const commands = { floor, parse, rows, payrec: exportWith(BIN, out.payrec) };
    if (baseline) commands.baseline = exportWith(baseline.bin, out.baseline);
    const t = interleaved(commands, RUNS);
    const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]));
    const ratio = m.payrec / m.floor;
    console.log(
      `export of ${first.total.toLocaleString('en-US')} on-demand transfers to CSV (medians of ${RUNS}, interleaved; spread): ` +
        Object.keys(t).map((k) => `${k} ${fmt(m[k])} (${spread(t[k])}; ${(m[k] / m.floor).toFixed(2)}×)`).join(', '),
    );
    target(`CSV export of ${first.total.toLocaleString('en-US')} / fetch floor`, `${ratio.toFixed(2)}×`, '≤ 1.3×', ratio <= 1.3, `${fmt(m.payrec)} vs ${fmt(m.floor)}`);
    target('fetch and JSON.parse alone (stages.mjs parse) / fetch floor', `${(m.parse / m.floor).toFixed(2)}×`, 'report', true, `${fmt(m.parse)} vs ${fmt(m.floor)}`);
    target('CSV export / fetch and JSON.parse alone', `${(m.payrec / m.parse).toFixed(2)}×`, 'report', true, `${fmt(m.payrec)} vs ${fmt(m.parse)}`);
    target('fetch, parse and naive CSV rows alone (stages.mjs rows) / fetch floor', `${(m.rows / m.floor).toFixed(2)}×`, 'report', true, `${fmt(m.rows)} vs ${fmt(m.floor)}`);
    target('CSV export / naive CSV rows alone', `${(m.payrec / m.rows).toFixed(2)}×`, 'report', true, `${fmt(m.payrec)} vs ${fmt(m.rows)}`);
    if (baseline) {
      const same = readFileSync(out.payrec).equals(readFileSync(out.baseline));
      target(`CSV export: bytes against ${baseline.name}'s file`, same ? 'identical' : 'DIFFERENT', 'identical', same, `${readFileSync(out.payrec).length.toLocaleString('en-US')} bytes`);
      const gain = m.payrec / m.baseline;
      target(`CSV export / ${baseline.name}'s export`, `${gain.toFixed(2)}×`, 'report', true, `${fmt(m.payrec)} vs ${fmt(m.baseline)}`);
    }
  } finally {
    await emu.stop();
  }
}

/** Peak RSS in MB (GNU time) of the CSV export of every record. */
async function benchMemory() {
  const records = 1_000_000;
  const emu = await startProcess(env, records);
  try {
    const file = join(work, 'rss.csv');
    const mbs = [];
    for (let i = 0; i < Math.min(RUNS, 3); i++) {
      const r = spawnSync('/usr/bin/time', ['-f', '%M', NODE, BIN, '--base-url', emu.url, '-q', 'od', 'transfers', '--all', '-f', 'csv', '-o', file], { env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
      if (r.status !== 0) throw new Error(`export failed: ${r.stderr}`);
      mbs.push(Number(r.stderr.trim().split('\n').at(-1)) / 1024);
    }
    const mb = Math.max(...mbs);
    console.log(`peak RSS of the CSV export of ${records.toLocaleString('en-US')}: ${mbs.map((x) => x.toFixed(0)).join(', ')} MB`);
    target(`peak RSS, CSV export of ${records.toLocaleString('en-US')}`, `${mb.toFixed(0)} MB`, '< 150 MB', mb < 150, `largest of ${mbs.length}`);
  } finally {
    await emu.stop();
  }
}

/** Wall time (ms) and peak RSS (MB, GNU time) of one run of node with `args`; throws when it fails. */
function timedWithRss(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', NODE, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return { ms, mb: Number(r.stderr.trim().split('\n').at(-1)) / 1024 };
}

const LATENCIES = (process.env.BENCH_LATENCIES ?? '0,20,150').split(',').map(Number);
const LATENCY_RUNS = Number(process.env.BENCH_LATENCY_RUNS ?? 3);
const LATENCY_RECORDS = Number(process.env.BENCH_LATENCY_RECORDS ?? 300_000);

/**
 * The export of 300,000 (BENCH_LATENCY_RECORDS) at each latency: payrec finding the pace
 * against fixed windows and the fetch floor over 16 connections, interleaved. Goals
 * (issue 49): the adaptive export within 1.1x the best fixed window of the same run at
 * every latency, within 1.15x the floor at 150 ms, and under 150 MB of peak RSS (each
 * export's is printed).
 */
async function benchLatency() {
  const records = LATENCY_RECORDS;
  const windows = { adaptive: [], 'fixed 4': ['--concurrency', '4'], 'fixed 8': ['--concurrency', '8'], 'fixed 16': ['--concurrency', '16'] };
  const rows = [];
  for (const latency of LATENCIES) {
    const emu = await startProcess(env, records, ['--latency', String(latency)]);
    try {
      const url = `${emu.url}${LIST}`;
      const to = String(Math.floor(Date.now() / 1000));
      const first = await (await fetch(`${url}?limit=1&to=${to}`, { headers: { authorization: `Bearer ${KEY}` } })).json();
      const files = {};
      const commands = { floor: () => timedWithRss(['--input-type=module', '-e', FLOOR, url, to, String(first.total), KEY, '16']) };
      for (const [name, flags] of Object.entries(windows)) {
        files[name] = join(work, `latency-${latency}-${name.replace(' ', '')}.csv`);
        commands[name] = () => timedWithRss([BIN, '--base-url', emu.url, '-q', 'od', 'transfers', '--all', '--to', to, '-f', 'csv', '-o', files[name], ...flags]);
      }
      const runs = interleaved(commands, LATENCY_RUNS);
      const m = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, median(v.map((r) => r.ms))]));
      const rssOf = Object.fromEntries(Object.keys(windows).map((k) => [k, Math.max(...runs[k].map((r) => r.mb))]));
      const rss = rssOf.adaptive;
      const same = Object.values(files).every((f) => readFileSync(f).equals(readFileSync(files.adaptive)));
      const fixed = Object.keys(windows).filter((k) => k !== 'adaptive');
      const best = fixed.reduce((b, k) => (m[k] < m[b] ? k : b));
      rows.push({ latency, m, best, rssOf });
      console.log(
        `export of ${first.total.toLocaleString('en-US')} at ${latency} ms (medians of ${LATENCY_RUNS}, interleaved; spread): ` +
          Object.keys(runs).map((k) => `${k} ${fmt(m[k])} (${spread(runs[k].map((r) => r.ms))}; ${(m[k] / m[best]).toFixed(2)}x the best fixed, ${(m[k] / m.floor).toFixed(2)}x the floor)`).join(', ') +
          `; peak RSS ${Object.keys(windows).map((k) => `${k} ${runs[k].map((r) => r.mb.toFixed(0)).join(', ')} MB`).join('; ')}`,
      );
      target(`${latency} ms: finding the pace / the best fixed window (${best})`, `${(m.adaptive / m[best]).toFixed(2)}×`, '≤ 1.1×', m.adaptive <= 1.1 * m[best], `${fmt(m.adaptive)} vs ${fmt(m[best])}`);
      if (latency >= 150) target(`${latency} ms: finding the pace / the fetch floor at 16 connections`, `${(m.adaptive / m.floor).toFixed(2)}×`, '≤ 1.15×', m.adaptive <= 1.15 * m.floor, `${fmt(m.adaptive)} vs ${fmt(m.floor)}`);
      target(`${latency} ms: peak RSS of the adaptive export`, `${rss.toFixed(0)} MB`, '< 150 MB', rss < 150, `largest of ${LATENCY_RUNS}; fixed 4, 8, 16: ${fixed.map((k) => rssOf[k].toFixed(0)).join(', ')} MB`);
      target(`${latency} ms: every export's file`, same ? 'identical' : 'DIFFERENT', 'identical', same, `${readFileSync(files.adaptive).length.toLocaleString('en-US')} bytes`);
    } finally {
      await emu.stop();
    }
  }
  // The table of docs/performance.md.
  // Each export: its median, its ratio to the best fixed window of the same latency, and its peak RSS.
  const cell = (m, best, rssOf, k) => `${fmt(m[k])} (${(m[k] / m[best]).toFixed(2)}×; ${rssOf[k].toFixed(0)} MB)`;
  console.log(`\nmedians of ${LATENCY_RUNS}, ${records.toLocaleString('en-US')} records; each export: its time (/ the best fixed window; peak RSS)`);
  console.log('\n| API latency | finding the pace | fixed 4 | fixed 8 | fixed 16 | fetch floor, 16 connections | pace / best fixed | pace / floor |\n|---|---|---|---|---|---|---|---|');
  for (const { latency, m, best, rssOf } of rows) {
    console.log(`| ${latency} ms | ${Object.keys(rssOf).map((k) => cell(m, best, rssOf, k)).join(' | ')} | ${fmt(m.floor)} | ${(m.adaptive / m[best]).toFixed(2)}× | ${(m.adaptive / m.floor).toFixed(2)}× |`);
  }
}

let built;
/** The baseline's build, made once when a section first asks (none with BENCH_BASELINE_REF=''). */
const baseline = () => (BASELINE_REF === '' ? undefined : (built ??= baselineBuild()));

const only = process.env.BENCH_ONLY?.split(',');
const wanted = (name) => !only || only.includes(name);
console.log(`node ${process.version}, ${(await import('node:os')).cpus().length} CPUs, load ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
try {
  if (wanted('startup')) benchStartup(baseline());
  if (wanted('modules')) await benchModules(baseline());
  if (wanted('export')) await benchExport(baseline());
  if (wanted('memory')) await benchMemory();
  if (wanted('latency')) await benchLatency();
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`load at the end ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
targets.print();
process.exitCode = targets.passed ? 0 : 1;
