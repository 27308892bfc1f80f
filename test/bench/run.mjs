#!/usr/bin/env node
// `npm run bench`: payrec's speed against baselines measured in the same run, so the
// ratios mean something on any machine (absolute times do not).
//   1. start-up: `payrec --version` and `payrec --help` against `node -e 0`;
//   2. CSV export of 300,000 transfers from the emulator, against a curl+jq loop
//      (what a user would otherwise write) and the same pages fetched in parallel
//      with curl and thrown away (the floor: the network and the server); with the
//      stages of an export alone (test/bench/stages.mjs: read, decode, JSON.parse)
//      and the jsonl export beside it;
//   3. peak RSS of that export at 100,000 and 1,000,000 records;
//   4. the emulator's latency for a 1000-record page of a 1,000,000-record collection;
//   5. what exact paging costs: the paginator over the same 300 pages with and without
//      its ordering (in-process), against the whole export's time; and the export of
//      300,000 transfers while 200 records a second arrive (30 % late, 40 % pending),
//      checked against the emulator's ground truth;
//   6. the emulator's latency for a 1000-record page of a 300,000-record collection while
//      live traffic inserts 2,000 records a second into it, against the same pages at rest;
//   7. `--status failed` on the 300,000-transfer CSV export against the same export
//      unfiltered (the filter runs in payrec: the API has none);
//   8. the xlsx export of 300,000 transfers against the CSV export of the same (time and
//      peak RSS), and the xlsx export's peak RSS at 100,000 records (flat memory).
//   9. `payrec transfers --all -f csv` over five products of 60,000 transfers each, against
//      the five single-product exports run one after another.
// The emulator runs in its own process: it must not share payrec's event loop.
// Not a vitest file (vitest picks up *.test.* only); `npm test` never runs it.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, fmt, interleavedTimes, KEY, median, NODE, ROOT, startEmulator as startProcess, Targets, timed as timedIn } from './common.mjs';

const CHAIN = 'bsc';
const LIST = `/v1/${CHAIN}/one-time/transfers`;
const PAGE = 1000;
const STARTUP_RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 21);
const EXPORT_RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 3);
const EXPORT_RECORDS = 300_000;

const work = mkdtempSync(join(tmpdir(), 'payrec-bench-'));
const env = { ...process.env, PAYREC_CONFIG_DIR: work, PAYREC_API_KEY: KEY, PAYREC_CHAIN: CHAIN, NO_COLOR: '1' };
const targets = new Targets();

function requireTools() {
  const tools = { curl: 'curl', jq: 'jq', xargs: 'findutils', bash: 'bash', '/usr/bin/time': 'time' };
  const missing = Object.entries(tools).filter(([t]) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);
  if (missing.length > 0) {
    console.error(`missing: ${missing.map(([t]) => t).join(', ')}; install with: sudo apt-get install ${missing.map(([, p]) => p).join(' ')}`);
    process.exit(1);
  }
}

/** Wall time of one run in milliseconds; throws when the command fails. */
const timed = (cmd, args, options) => timedIn(env, cmd, args, options);

/** Runs each named command `runs` times, interleaved (so load changes hit all alike); medians. */
function interleaved(commands, runs) {
  return Object.fromEntries(Object.entries(interleavedTimes(commands, runs)).map(([k, v]) => [k, median(v)]));
}

const target = (...args) => targets.add(...args);

/** The emulator in its own process, its transfers generated (the first request builds them; kept out of the timings). */
async function startEmulator(records, extra = []) {
  const emu = await startProcess(env, records, extra);
  curlJson(`${emu.url}${LIST}?limit=1`);
  return emu;
}

function curlText(url, extra = []) {
  const r = spawnSync('curl', ['-sSf', '-H', `Authorization: Bearer ${KEY}`, ...extra, url], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`curl ${url}: ${r.stderr}`);
  return r.stdout;
}

const curlJson = (url, extra) => JSON.parse(curlText(url, extra));

/** CSV records in a file (header included): line feeds outside quoted cells. */
function csvRecords(file) {
  let n = 0;
  let quoted = false;
  for (const b of readFileSync(file)) {
    if (b === 34) quoted = !quoted;
    else if (b === 10 && !quoted) n++;
  }
  return n;
}

/** One column of a CSV file (RFC 4180: quoted cells may hold commas, quotes and line breaks). */
function csvColumn(file, name) {
  const text = readFileSync(file, 'utf8');
  const values = [];
  let row = [];
  let cell = '';
  let quoted = false;
  let at = -1;
  const endRow = () => {
    row.push(cell);
    if (at === -1) at = row.indexOf(name);
    else values.push(row[at]);
    row = [];
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (c === '\r' && text[i + 1] === '\n') endRow(), i++;
    else cell += c;
  }
  return values;
}

// ---------------------------------------------------------------------------

function benchStartup() {
  const t = interleaved(
    {
      floor: () => timed(NODE, ['-e', '0']),
      version: () => timed(NODE, [BIN, '--version']),
      help: () => timed(NODE, [BIN, '--help']),
    },
    STARTUP_RUNS,
  );
  const v = t.version / t.floor;
  const h = t.help / t.floor;
  console.log(`start-up (median of ${STARTUP_RUNS}): node -e 0 ${fmt(t.floor)}, --version ${fmt(t.version)}, --help ${fmt(t.help)}`);
  target('payrec --version / node -e 0', `${v.toFixed(2)}×`, '≤ 1.25×', v <= 1.25, `${fmt(t.version)} vs ${fmt(t.floor)}`);
  target('payrec --help / node -e 0', `${h.toFixed(2)}×`, '≤ 1.5×', h <= 1.5, `${fmt(t.help)} vs ${fmt(t.floor)}`);
}

/** Median time of the quiet 300k CSV export, for the exact-paging figures. */
let exportMs;

async function benchExport() {
  const emu = await startEmulator(EXPORT_RECORDS);
  try {
    const url = `${emu.url}${LIST}`;
    const to = Math.floor(Date.now() / 1000);
    const first = curlJson(`${url}?limit=1&to=${to}`);
    const total = first.total;
    const fields = Object.keys(first.data[0]);
    const shell = { ...env, URL: url, TO: String(to), TOTAL: String(total), AUTH: `Authorization: Bearer ${KEY}` };
    const payrecOut = join(work, 'payrec.csv');
    const loopOut = join(work, 'loop.csv');

    const payrec = () =>
      timed(NODE, [BIN, '--base-url', emu.url, '--quiet', 'one-time', 'transfers', '--all', '--to', String(to), '--format', 'csv', '--output', payrecOut]);
    // The fetch floor: every page, 4 at a time, bodies thrown away.
    const floor = () =>
      timed('bash', ['-c', 'seq 0 1000 $((TOTAL - 1)) | xargs -P 4 -I{} curl -sSf -o /dev/null -H "$AUTH" "$URL?limit=1000&offset={}&to=$TO"'], { env: shell });
    // What a user would otherwise write: a loop of curl | jq, one page at a time.
    const jqFilter = `.data[] | [${fields.map((f) => `.${f}`).join(', ')}] | @csv`;
    const loop = () =>
      timed(
        'bash',
        [
          '-c',
          `set -eo pipefail; { echo "${fields.join(',')}"; for ((o = 0; o < TOTAL; o += ${PAGE})); do curl -sSf -H "$AUTH" "$URL?limit=${PAGE}&offset=$o&to=$TO" | jq -r '${jqFilter}'; done; } > "${loopOut}"`,
        ],
        { env: shell },
      );

    const stage = (name) => () => timed(NODE, [join(ROOT, 'test/bench/stages.mjs'), name, url, String(to), String(total), KEY]);
    const jsonl = () =>
      timed(NODE, [BIN, '--base-url', emu.url, '--quiet', 'one-time', 'transfers', '--all', '--to', String(to), '--format', 'jsonl', '--output', join(work, 'payrec.jsonl')]);
    const t = interleaved({ payrec, floor, jsonl, bytes: stage('bytes'), text: stage('text'), parse: stage('parse') }, EXPORT_RUNS);
    exportMs = t.payrec;
    // Where the time goes: each stage alone (Node + undici, pages 4 at a time), against the curl floor.
    console.log(
      `export stages (medians of ${EXPORT_RUNS}) against the curl floor ${fmt(t.floor)}: ` +
        ['bytes', 'text', 'parse'].map((k) => `${k} ${fmt(t[k])} (${(t[k] / t.floor).toFixed(2)}×)`).join(', ') +
        `; payrec csv ${fmt(t.payrec)} (${(t.payrec / t.floor).toFixed(2)}×), jsonl ${fmt(t.jsonl)} (${(t.jsonl / t.floor).toFixed(2)}×)`,
    );
    const loopMs = loop();
    const got = { payrec: csvRecords(payrecOut), loop: csvRecords(loopOut) };
    if (got.payrec !== total + 1 || got.loop !== total + 1) throw new Error(`CSV rows: payrec ${got.payrec}, loop ${got.loop}, expected ${total + 1}`);
    console.log(
      `export of ${total.toLocaleString('en-US')} transfers to CSV: payrec ${fmt(t.payrec)} (median of ${EXPORT_RUNS}), ` +
        `parallel curl floor ${fmt(t.floor)} (median of ${EXPORT_RUNS}), curl+jq loop ${fmt(loopMs)}`,
    );
    const speedup = loopMs / t.payrec;
    const overFloor = t.payrec / t.floor;
    target(`CSV export of ${total.toLocaleString('en-US')}: curl+jq loop / payrec`, `${speedup.toFixed(1)}×`, '≥ 3×', speedup >= 3, `${fmt(loopMs)} vs ${fmt(t.payrec)}`);
    target(`CSV export of ${total.toLocaleString('en-US')}: payrec / parallel curl floor`, `${overFloor.toFixed(2)}×`, '≤ 1.5×', overFloor <= 1.5, `${fmt(t.payrec)} vs ${fmt(t.floor)}`);
  } finally {
    await emu.stop();
  }
}

/** `--status failed` costs no more than reading the window: the filtered export against the unfiltered one. */
async function benchStatusFilter() {
  const emu = await startEmulator(EXPORT_RECORDS);
  try {
    const to = String(Math.floor(Date.now() / 1000));
    const out = { all: join(work, 'all.csv'), failed: join(work, 'failed.csv') };
    const run = (file, extra) => () =>
      timed(NODE, [BIN, '--base-url', emu.url, '--quiet', 'one-time', 'transfers', '--all', '--to', to, '--format', 'csv', ...extra, '--output', file]);
    const t = interleaved({ all: run(out.all, []), failed: run(out.failed, ['--status', 'failed']) }, EXPORT_RUNS);
    // The filtered file holds exactly the failed rows of the whole one.
    const statuses = (file) => csvColumn(file, 'transactionStatus');
    const failed = statuses(out.failed);
    const expected = statuses(out.all).filter((v) => v === 'failed').length;
    if (failed.length !== expected || expected === 0 || failed.some((v) => v !== 'failed')) {
      throw new Error(`--status failed wrote ${failed.length} rows, the export holds ${expected} failed`);
    }
    const ratio = t.failed / t.all;
    console.log(`--status failed on ${EXPORT_RECORDS.toLocaleString('en-US')} transfers: ${fmt(t.failed)} (${failed.length.toLocaleString('en-US')} rows) vs unfiltered ${fmt(t.all)} (medians of ${EXPORT_RUNS})`);
    target('--status failed / unfiltered 300k CSV export', `${ratio.toFixed(2)}×`, '≤ 1.05×', ratio <= 1.05, `${fmt(t.failed)} vs ${fmt(t.all)}`);
  } finally {
    await emu.stop();
  }
}

/** Peak RSS in MB of an export of every record (GNU time's maximum resident set size); CSV records counted. */
function peakRss(emuUrl, format = 'csv') {
  const out = join(work, `rss.${format}`);
  const r = spawnSync('/usr/bin/time', ['-f', '%M', NODE, BIN, '--base-url', emuUrl, '--quiet', 'one-time', 'transfers', '--all', '--format', format, '--output', out], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (r.status !== 0) throw new Error(`export failed: ${r.stderr}`);
  const kb = Number(r.stderr.trim().split('\n').at(-1));
  const lines = format === 'csv' ? csvRecords(out) : undefined;
  rmSync(out);
  return { mb: kb / 1024, lines };
}

async function benchMemoryAndEmulator() {
  const rss = {};
  for (const records of [100_000, 1_000_000]) {
    const emu = await startEmulator(records);
    try {
      const { mb, lines } = peakRss(emu.url);
      if (lines !== records + 1) throw new Error(`exported ${lines - 1} of ${records} records`);
      rss[records] = mb;
      if (records === 1_000_000) {
        const pageMs = (offset) => {
          const r = spawnSync('curl', ['-sSf', '-o', '/dev/null', '-w', '%{time_total}', '-H', `Authorization: Bearer ${KEY}`, `${emu.url}${LIST}?limit=${PAGE}&offset=${offset}`], { encoding: 'utf8' });
          return Number(r.stdout) * 1000;
        };
        const ms = median(Array.from({ length: 11 }, (_, i) => pageMs((i * 90_001) % 999_000)));
        console.log(`emulator: a ${PAGE}-record page of 1,000,000 records in ${fmt(ms)} (median of 11, curl's total time)`);
        target('emulator: 1000-record page of 1,000,000', fmt(ms), '≤ 10 ms', ms <= 10, 'median of 11 offsets');
      }
    } finally {
      await emu.stop();
    }
  }
  console.log(`peak RSS of the CSV export: ${rss[100_000].toFixed(0)} MB at 100,000 records, ${rss[1_000_000].toFixed(0)} MB at 1,000,000`);
  const growth = rss[1_000_000] / rss[100_000] - 1;
  target('peak RSS, export of 1,000,000', `${rss[1_000_000].toFixed(0)} MB`, '< 150 MB', rss[1_000_000] < 150, '');
  target('peak RSS growth, 100,000 → 1,000,000', `${(growth * 100).toFixed(0)} %`, '≤ 20 %', growth <= 0.2, `${rss[100_000].toFixed(0)} MB → ${rss[1_000_000].toFixed(0)} MB`);
}

/**
 * The paginator alone over the same 300 pages (parsed from memory, no network), with
 * the ordering that makes it exact and without: what exactness costs per export.
 */
async function benchExactPagingCost() {
  const emu = await startEmulator(EXPORT_RECORDS);
  let bodies;
  try {
    const to = Math.floor(Date.now() / 1000);
    const total = curlJson(`${emu.url}${LIST}?limit=1&to=${to}`).total;
    bodies = [];
    for (let o = 0; o < total; o += PAGE) bodies.push(curlText(`${emu.url}${LIST}?limit=${PAGE}&offset=${o}&to=${to}`));
  } finally {
    await emu.stop();
  }
  const { build } = await import('esbuild');
  const bundle = join(work, 'paginate.mjs');
  await build({ entryPoints: [join(ROOT, 'src/core/lists/paginate.ts')], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'warning' });
  const { paginate, identityOf } = await import(bundle);
  const ordering = { sort: 'desc', from: 0, to: Number.MAX_SAFE_INTEGER, identity: identityOf({ identity: ['transactionHash'] }) };
  const walk = async (o) => {
    const t0 = performance.now();
    let n = 0;
    const pages = paginate(async ({ offset }) => JSON.parse(bodies[offset / PAGE]), { limit: Infinity, pageSize: PAGE, offset: 0, concurrency: 4 }, o);
    for await (const page of pages) n += page.records.length;
    if (n !== EXPORT_RECORDS) throw new Error(`paginate yielded ${n} records`);
    return performance.now() - t0;
  };
  const times = { plain: [], exact: [] };
  for (let i = 0; i < 7; i++) {
    times.plain.push(await walk(undefined));
    times.exact.push(await walk(ordering));
  }
  const cost = median(times.exact) - median(times.plain);
  const share = cost / exportMs;
  console.log(`paginator over 300 pages (JSON.parse included): ${fmt(median(times.plain))} plain, ${fmt(median(times.exact))} exact (median of 7)`);
  target('exact paging: added time / quiet 300k export', `${(share * 100).toFixed(1)} %`, '≤ 10 %', share <= 0.1, `+${fmt(Math.max(0, cost))} of ${fmt(exportMs)}`);
}

/** The 300k export while records arrive, checked against the emulator's ground truth. */
async function benchLiveExport() {
  const emu = await startEmulator(EXPORT_RECORDS, ['--now', String(Math.floor(Date.now() / 1000))]);
  try {
    const live = { rate: 200, lateFraction: 0.3, pendingFraction: 0.4, chains: [CHAIN], collections: ['one-time/transfers'] };
    curlJson(`${emu.url}/_emulator/live`, ['-X', 'POST', '--data', JSON.stringify(live)]);
    spawnSync('sleep', ['1']);
    const before = curlJson(`${emu.url}/_emulator/records?chain=${CHAIN}&collection=one-time/transfers`);
    const out = join(work, 'live.csv');
    const started = before.seq;
    spawnSync('curl', ['-sSf', '-X', 'DELETE', `${emu.url}/_emulator/requests`]);
    const ms = timed(NODE, [BIN, '--base-url', emu.url, '--quiet', 'one-time', 'transfers', '--all', '--format', 'jsonl', '--output', out]);
    const after = curlJson(`${emu.url}/_emulator/records?chain=${CHAIN}&collection=one-time/transfers`);
    const requests = curlJson(`${emu.url}/_emulator/requests`).filter((r) => r.path === LIST);
    curlJson(`${emu.url}/_emulator/live`, ['-X', 'DELETE']);
    const hashes = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l).transactionHash);
    const got = new Set(hashes);
    const missing = before.records.filter((r) => !got.has(r.transactionHash)).length;
    const doubled = hashes.length - got.size;
    const arrived = after.arrivals.filter((a) => a > started).length;
    const repairs = requests.filter((r) => r.query.from !== undefined).length;
    console.log(
      `live export: ${hashes.length.toLocaleString('en-US')} transfers in ${fmt(ms)} while ${arrived.toLocaleString('en-US')} arrived; ` +
        `${requests.length} requests (${repairs} re-reads of a join), ${doubled} printed twice, ${missing} of the start's missing`,
    );
    target('live export: printed twice / missing', `${doubled} / ${missing}`, '0 / 0', doubled === 0 && missing === 0, `${hashes.length.toLocaleString('en-US')} printed`);
    target('live export time / quiet export', `${(ms / exportMs).toFixed(2)}×`, 'report', true, `${fmt(ms)} vs ${fmt(exportMs)}`);
  } finally {
    await emu.stop();
  }
}

/** curl's total time of one page, in ms. */
function pageTimeMs(emuUrl, query) {
  const r = spawnSync('curl', ['-sSf', '-o', '/dev/null', '-w', '%{time_total}', '-H', `Authorization: Bearer ${KEY}`, `${emuUrl}${LIST}?${query}`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`curl ${query}: ${r.stderr}`);
  return Number(r.stdout) * 1000;
}

async function benchEmulatorUnderTraffic() {
  const RATE = 2000;
  const ROUNDS = 3;
  const emu = await startEmulator(EXPORT_RECORDS);
  try {
    const live = (args) => curlJson(`${emu.url}/_emulator/live`, args);
    // 21 pages spread over the collection, newest first and oldest first, then the newest page (where records arrive).
    const queries = [...Array.from({ length: 20 }, (_, i) => `limit=${PAGE}&offset=${(i * 14_983) % (EXPORT_RECORDS - PAGE)}&sort=${i % 2 ? 'asc' : 'desc'}`), `limit=${PAGE}`];
    const sample = () => queries.map((q) => pageTimeMs(emu.url, q));
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    /** Pages read while traffic runs with `options`, and the insert rate it achieved meanwhile. */
    const underTraffic = async (options) => {
      live(['-X', 'POST', '--data', JSON.stringify({ rate: RATE, chains: [CHAIN], collections: ['one-time/transfers'], ...options })]);
      await sleep(500);
      // The rate is counted between two snapshots, each taken by one curl call: the same lag at both ends.
      const before = live();
      const t0 = performance.now();
      const times = sample();
      const after = live();
      const ms = performance.now() - t0;
      live(['-X', 'DELETE']);
      return { times, inserted: after.inserted - before.inserted, ms };
    };
    // Rounds at rest and under traffic alternate, so a change in the machine's load hits both alike.
    const rest = [];
    const busy = { times: [], inserted: 0, ms: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      rest.push(...sample());
      const r = await underTraffic({});
      busy.times.push(...r.times);
      busy.inserted += r.inserted;
      busy.ms += r.ms;
    }
    // Late by up to a year: every insert lands somewhere in the middle and moves the records after it.
    const anywhere = await underTraffic({ lateFraction: 1, lateMaxSeconds: 365 * 86400 });
    const rate = (x) => (x.inserted * 1000) / x.ms;
    const summary = (xs) => `median ${fmt(median(xs))}, max ${fmt(Math.max(...xs))}`;
    console.log(
      `emulator, ${PAGE}-record pages of ${EXPORT_RECORDS.toLocaleString('en-US')} records (${queries.length} pages × ${ROUNDS} rounds, curl's total time): ` +
        `at rest ${summary(rest)}; under ${RATE} inserts/s (${rate(busy).toFixed(0)} achieved; 20 % up to 10m late) ${summary(busy.times)}; ` +
        `all of them late by up to a year (${rate(anywhere).toFixed(0)} inserts/s achieved) ${summary(anywhere.times)}`,
    );
    // Against the same pages at rest in the same run, so the figure holds on a busy machine too.
    const slowdown = median(busy.times) / median(rest);
    target(
      `emulator: 1000-record page of 300,000 under ${RATE} inserts/s / at rest`,
      `${slowdown.toFixed(2)}×`,
      '≤ 1.5×',
      slowdown <= 1.5 && rate(busy) >= RATE * 0.95,
      `${fmt(median(busy.times))} vs ${fmt(median(rest))}; ${rate(busy).toFixed(0)} inserts/s achieved`,
    );
  } finally {
    await emu.stop();
  }
}

/**
 * -f xlsx against -f csv over the same 300,000 transfers: the workbook streams (payrec
 * writes the rows, exceljs the package and the zip, paced by the zip's backlog), so it should take
 * at most 3× the CSV's time and keep its peak RSS flat from 100,000 to 300,000 records.
 * The workbook's content is checked by test/e2e/xlsx.test.ts (LibreOffice reads it back).
 */
async function benchXlsx() {
  const rss = {};
  let t;
  for (const records of [100_000, EXPORT_RECORDS]) {
    const emu = await startEmulator(records);
    try {
      rss[records] = peakRss(emu.url, 'xlsx').mb;
      if (records !== EXPORT_RECORDS) continue;
      const to = String(Math.floor(Date.now() / 1000));
      const exportAs = (format) => () =>
        timed(NODE, [BIN, '--base-url', emu.url, '--quiet', 'one-time', 'transfers', '--all', '--to', to, '--format', format, '--output', join(work, `export.${format}`)]);
      t = interleaved({ csv: exportAs('csv'), xlsx: exportAs('xlsx') }, EXPORT_RUNS);
      const rows = csvRecords(join(work, 'export.csv')) - 1;
      if (rows !== records) throw new Error(`the CSV export holds ${rows} of ${records} records`);
      rss.csv = peakRss(emu.url, 'csv').mb;
    } finally {
      await emu.stop();
    }
  }
  const ratio = t.xlsx / t.csv;
  const growth = rss[EXPORT_RECORDS] / rss[100_000] - 1;
  console.log(
    `xlsx export of 300,000 transfers: ${fmt(t.xlsx)} against the CSV export's ${fmt(t.csv)} (medians of ${EXPORT_RUNS}, interleaved); ` +
      `peak RSS ${rss[EXPORT_RECORDS].toFixed(0)} MB (CSV ${rss.csv.toFixed(0)} MB; xlsx at 100,000 records ${rss[100_000].toFixed(0)} MB)`,
  );
  target('xlsx export of 300,000 / CSV export', `${ratio.toFixed(2)}×`, '≤ 3×', ratio <= 3, `${fmt(t.xlsx)} vs ${fmt(t.csv)}`);
  target('xlsx peak RSS growth, 100,000 → 300,000', `${(growth * 100).toFixed(0)} %`, '≤ 20 %', growth <= 0.2, `${rss[100_000].toFixed(0)} MB → ${rss[EXPORT_RECORDS].toFixed(0)} MB`);
}

const TRANSFER_PRODUCTS = ['variable-recurring', 'on-demand', 'one-time', 'wallet-to-wallet', 'scheduled-payments'];
const TRANSFERS_PER_PRODUCT = 60_000;

/** The merged list of five products against the five exports one after another: no slower. */
async function benchMergedTransfers() {
  const emu = await startEmulator(TRANSFERS_PER_PRODUCT);
  try {
    const to = Math.floor(Date.now() / 1000);
    // Each collection generated before the timings (the first request builds it).
    const totals = TRANSFER_PRODUCTS.map((p) => curlJson(`${emu.url}/v1/${CHAIN}/${p}/transfers?limit=1&to=${to}`).total);
    const total = totals.reduce((a, b) => a + b, 0);
    const exportArgs = ['--base-url', emu.url, '--quiet'];
    const mergedOut = join(work, 'transfers.csv');
    // The five by name: fixed-recurring billings (read per plan) would be a sixth product the separate exports lack.
    const merged = () => timed(NODE, [BIN, ...exportArgs, 'transfers', '--product', TRANSFER_PRODUCTS.join(','), '--all', '--to', String(to), '--format', 'csv', '--output', mergedOut]);
    const separate = () =>
      TRANSFER_PRODUCTS.reduce(
        (ms, p) => ms + timed(NODE, [BIN, ...exportArgs, p, 'transfers', '--all', '--to', String(to), '--format', 'csv', '--output', join(work, `${p}.csv`)]),
        0,
      );
    const t = interleaved({ merged, separate }, EXPORT_RUNS);
    const rows = { merged: csvRecords(mergedOut), separate: TRANSFER_PRODUCTS.reduce((n, p) => n + csvRecords(join(work, `${p}.csv`)) - 1, 0) };
    if (rows.merged !== total + 1 || rows.separate !== total) throw new Error(`CSV rows: merged ${rows.merged - 1}, separate ${rows.separate}, expected ${total}`);
    const ratio = t.merged / t.separate;
    console.log(
      `payrec transfers --all -f csv of ${total.toLocaleString('en-US')} (5 × ${TRANSFERS_PER_PRODUCT.toLocaleString('en-US')}): ${fmt(t.merged)}; ` +
        `the five product exports one after another ${fmt(t.separate)} (medians of ${EXPORT_RUNS})`,
    );
    target(`payrec transfers (5 × ${TRANSFERS_PER_PRODUCT.toLocaleString('en-US')}) / five exports in a row`, `${ratio.toFixed(2)}×`, '≤ 1×', ratio <= 1, `${fmt(t.merged)} vs ${fmt(t.separate)}`);
  } finally {
    await emu.stop();
  }
}

requireTools();
console.log(`node ${process.version}, ${(await import('node:os')).cpus().length} CPUs`);
// BENCH_ONLY=export,live runs only those sections (exact paging needs the export's time);
// the others are startup, exact, memory, traffic, status, xlsx and transfers.
const only = process.env.BENCH_ONLY?.split(',');
const wanted = (name) => !only || only.includes(name);
try {
  if (wanted('startup')) benchStartup();
  if (wanted('export') || wanted('exact') || wanted('live')) await benchExport();
  if (wanted('exact')) await benchExactPagingCost();
  if (wanted('live')) await benchLiveExport();
  if (wanted('memory')) await benchMemoryAndEmulator();
  if (wanted('traffic')) await benchEmulatorUnderTraffic();
  if (wanted('status')) await benchStatusFilter();
  if (wanted('xlsx')) await benchXlsx();
  if (wanted('transfers')) await benchMergedTransfers();
} finally {
  rmSync(work, { recursive: true, force: true });
}
targets.print();
process.exitCode = targets.passed ? 0 : 1;
