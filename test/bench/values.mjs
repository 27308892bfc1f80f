#!/usr/bin/env node
// `npm run bench:values`: what --currency costs (DESIGN.md "Values in one currency"), against
// baselines measured in the same run:
//   1. the CSV export of 300,000 one-time transfers with --currency USD against the same
//      export without it: once with every rate from a rates file (no node asked: rates
//      that are already at hand, goal ≤ 1.3×), and once with the feeds' rates read from
//      the emulator's chain through JSON-RPC in the same run (8PAY and BUSD, which have
//      no usable feed, from the file);
//   2. the JSON-RPC calls to value a month of records: ≤ 2 per distinct (feed, day);
//   3. the same export with an hourly rates file of two years (87,600 rows, a team's feed
//      dump): its parse and 300,000 lookups, ≤ 1.3× as well (issue 45: this file's parse
//      took 13.5 s and 100k lookups 5.3 s before the split and the per-row rates).
// The emulator runs in its own process. Not a vitest file; `npm test` never runs it.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, fmt, interleavedTimes, KEY, median, NODE, startEmulator, Targets, timed } from './common.mjs';

const RECORDS = Number(process.env.BENCH_VALUE_RECORDS ?? 300_000);
const RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 3);
const work = mkdtempSync(join(tmpdir(), 'payrec-bench-values-'));
const env = { ...process.env, PAYREC_CONFIG_DIR: work, PAYREC_API_KEY: KEY, PAYREC_CHAIN: 'bsc', NO_COLOR: '1' };
const targets = new Targets();

const emu = await startEmulator(env, RECORDS);
try {
  const base = ['--base-url', emu.url, 'ot', 'transfers', '--all', '-f', 'csv'];
  const rpc = { ...env, PAYREC_RPC_URL: `${emu.url}/rpc/bsc` };
  // A row a day for the year of data, for the tokens without a usable feed (partial) or for all (whole).
  const now = Date.now();
  const days = Array.from({ length: 368 }, (_, i) => new Date(now - i * 86_400_000).toISOString().slice(0, 10));
  const rows = (tokens) => ['time,chain,token,currency,rate,source', ...days.flatMap((d) => tokens.map((t) => `${d},bsc,${t},USD,${t === 'BNB' ? '600.5' : t === '8PAY' ? '0.0512' : '1.0001'},bench`))].join('\n') + '\n';
  const partial = join(work, 'partial.csv');
  const whole = join(work, 'whole.csv');
  writeFileSync(partial, rows(['8PAY', 'BUSD']));
  writeFileSync(whole, rows(['8PAY', 'BUSD', 'BNB', 'USDT', 'USDC']));
  const hourly = join(work, 'hourly.csv');
  const hours = Array.from({ length: 2 * 365 * 24 }, (_, i) => new Date(Math.floor(now / 3_600_000) * 3_600_000 - i * 3_600_000).toISOString().replace('.000Z', 'Z'));
  writeFileSync(hourly, ['time,chain,token,currency,rate,source', ...['8PAY', 'BUSD', 'BNB', 'USDT', 'USDC'].flatMap((t, k) => hours.map((h, i) => `${h},bsc,${t},USD,${k + 1}.${String((i * 7_919) % 9_973).padStart(4, '0')},bench`))].join('\n') + '\n');
  // Exports go to files of their own (export-hourly.csv: hourly.csv is the rates file the hourly run reads).
  const out = (name) => ['-o', join(work, `export-${name}.csv`)];
  // The first request generates the records: kept out of the timings.
  timed(env, NODE, [BIN, '--base-url', emu.url, 'ot', 'transfers', '--limit', '1']);

  const t = Object.fromEntries(
    Object.entries(
      interleavedTimes(
        {
          plain: () => timed(env, NODE, [BIN, ...base, ...out('plain')]),
          file: () => timed(env, NODE, [BIN, ...base, ...out('file'), '--currency', 'USD', '--rates', whole]),
          hourly: () => timed(env, NODE, [BIN, ...base, ...out('hourly'), '--currency', 'USD', '--rates', hourly]),
          feeds: () => timed(rpc, NODE, [BIN, ...base, ...out('feeds'), '--currency', 'USD', '--rates', partial]),
        },
        RUNS,
      ),
    ).map(([k, v]) => [k, median(v)]),
  );
  const lines = readFileSync(join(work, 'export-file.csv'), 'utf8').split('\n').length - 2;
  console.log(`export of ${lines.toLocaleString('en-US')} transfers (medians of ${RUNS}): plain ${fmt(t.plain)}, --currency USD from a rates file ${fmt(t.file)}, from an hourly file ${fmt(t.hourly)}, with the feeds read over JSON-RPC ${fmt(t.feeds)}`);
  targets.add('--currency USD, rates at hand (file)', `${(t.file / t.plain).toFixed(2)}×`, '≤ 1.3×', t.file / t.plain <= 1.3, `${fmt(t.file)} vs ${fmt(t.plain)}`);
  targets.add('--currency USD, an hourly file of 87,600 rows', `${(t.hourly / t.plain).toFixed(2)}×`, '≤ 1.3×', t.hourly / t.plain <= 1.3, `${fmt(t.hourly)} vs ${fmt(t.plain)}`);
  targets.add('--currency USD, feeds read in the run', `${(t.feeds / t.plain).toFixed(2)}×`, '(said)', true, `${fmt(t.feeds)} vs ${fmt(t.plain)}`);

  // 2. A month of records valued from the feeds: calls per distinct (feed, day).
  await fetch(`${emu.url}/_emulator/chain/calls`, { method: 'DELETE' });
  const month = join(work, 'month.csv');
  timed(rpc, NODE, [BIN, ...base, '--currency', 'USD', '--rates', partial, '--from', '60d', '--to', '30d', '-o', month]);
  const calls = await (await fetch(`${emu.url}/_emulator/chain/calls`)).json();
  const n = Object.values(calls.calls.bsc ?? {}).reduce((a, b) => a + b, 0);
  const text = readFileSync(month, 'utf8').trim().split('\n');
  const head = text[0].split(',');
  const [ts, src] = [head.indexOf('timestamp'), head.indexOf('rateSource')];
  const pairs = new Set();
  for (const line of text.slice(1)) {
    const cells = line.split(',');
    const source = cells.find((c) => c.startsWith('chainlink:'));
    if (source) pairs.add(`${source.split(':')[2]} ${cells[ts].slice(0, 10)}`);
  }
  void src;
  console.log(`a month of ${(text.length - 1).toLocaleString('en-US')} transfers: ${n} JSON-RPC calls for ${pairs.size} distinct (feed, day)`);
  targets.add('RPC calls to value a month', `${(n / pairs.size).toFixed(2)} per (feed, day)`, '≤ 2', n <= 2 * pairs.size, `${n} calls, ${pairs.size} (feed, day)`);
} finally {
  await emu.stop();
  rmSync(work, { recursive: true, force: true });
}
targets.print();
process.exit(targets.passed ? 0 : 1);
