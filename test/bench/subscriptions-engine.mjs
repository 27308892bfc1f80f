#!/usr/bin/env node
// The subscription engine alone (src/subscriptions), in-process: `metrics` over
// 1,000,000 billings of 25,000 subscriptions for the 12 months of 2023 (by token, by
// plan) and `ledger` as of the year's end, with the time of each and the process's peak
// RSS, in two processes: records handed over as arrays of objects, and records streamed
// one at a time into a SubscriptionRecords (as a command reading the mirror a chunk at a
// time would), never all held as objects. The commands (`payrec metrics`, `payrec
// subscriptions`) are measured as whole processes in `npm run bench`; this tells how
// much of their time and memory is the engine's.
//   node test/bench/subscriptions-engine.mjs [billings]
// Not a vitest file; `npm test` never runs it.

import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { NODE, ROOT, fmt } from './common.mjs';

const [, , count = '1000000', mode, bundle] = process.argv;
const BILLINGS = Number(count);

if (!mode) {
  const dir = mkdtempSync(join(tmpdir(), 'payrec-engine-bench-'));
  try {
    const out = join(dir, 'engine.mjs');
    await build({ entryPoints: [join(ROOT, 'src/subscriptions/engine.ts')], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'warning' });
    for (const m of ['arrays', 'streamed']) {
      const run = spawnSync(NODE, [fileURLToPath(import.meta.url), count, m, out], { stdio: 'inherit' });
      if (run.status !== 0) process.exitCode = 1;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  const { SubscriptionRecords, ledger, metrics, movements, rateNeeds } = await import(pathToFileURL(bundle).href);
  const generated = records();
  const input = mode === 'arrays' ? { billings: [...generated.billings], cancellations: [...generated.cancellations] } : undefined;
  const intervals = Array.from({ length: 12 }, (_, i) => ({ from: Date.UTC(2023, i, 1) / 1000, to: Date.UTC(2023, i + 1, 1) / 1000 }));
  const at = Date.UTC(2024, 0, 1) / 1000;
  const o = { intervals, at, graceSeconds: 30 * 86_400 };
  // CPU time (user + system) beside wall time: on a shared machine the wall clock also counts the wait.
  const cpu = [];
  const time = (f) => {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const out = f();
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    return [performance.now() - t0, out];
  };
  const cpuOf = (i) => `, CPU ${fmt(cpu[i])}`;
  let store = input;
  let feedMs = 0;
  if (!input) [feedMs, store] = time(() => {
    const s = new SubscriptionRecords();
    for (const b of generated.billings) s.addBilling(b);
    for (const c of generated.cancellations) s.addCancellation(c);
    return s;
  });
  const [metricsMs, rows] = time(() => metrics(store, { ...o, byPlan: false }));
  const [byPlanMs, planRows] = time(() => metrics(store, { ...o, byPlan: true }));
  const [ledgerMs, ledgerRows] = time(() => ledger(store, o));
  // In one currency (issue 45): a daily rate per token over 2022–2023 (a rates file's rows), looked up by binary search;
  // first the instants the figures ask for (rateNeeds: what a command prepares in one batch), then the figures.
  const rates = dailyRates();
  const valued = { ...o, byPlan: false, acrossTokens: true };
  const [needsMs, needs] = time(() => rateNeeds((rateOf) => metrics(store, { ...valued, rates: rateOf })));
  const [valuedMs, valuedRows] = time(() => metrics(store, { ...valued, rates }));
  const [movesMs, moves] = time(() => movements(store, { ...valued, rates }));
  const k = input ? 0 : 1;
  console.log(`\n${mode}: ${BILLINGS.toLocaleString('en-US')} billings${input ? ' (read into the store by each call)' : `, generated and fed one at a time in ${fmt(feedMs)}${cpuOf(0)}`}`);
  console.log(`  metrics, 12 months by token: ${fmt(metricsMs)}${cpuOf(k)} (${rows.length} rows)`);
  console.log(`  metrics, 12 months by plan:  ${fmt(byPlanMs)}${cpuOf(k + 1)} (${planRows.length} rows)`);
  console.log(`  ledger as of 2024-01-01:     ${fmt(ledgerMs)}${cpuOf(k + 2)} (${ledgerRows.length.toLocaleString('en-US')} rows)`);
  const asked = [...needs.values()].reduce((n, t) => n + t.length, 0);
  console.log(`  rateNeeds of metrics in USD: ${fmt(needsMs)}${cpuOf(k + 3)} (${asked.toLocaleString('en-US')} instants)`);
  console.log(`  metrics in USD across tokens: ${fmt(valuedMs)}${cpuOf(k + 4)} (${valuedRows.length} rows, mrr_fx of the year ${valuedRows.reduce((n, r) => n + Number(r.mrr_fx), 0).toFixed(2)})`);
  console.log(`  movements in USD:            ${fmt(movesMs)}${cpuOf(k + 5)} (${moves.length.toLocaleString('en-US')} rows)`);
  console.log(`  peak RSS of the process:     ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
}

/** A rate per token and UTC day of 2021–2023, as a rates file's daily rows: (token, t) → the day's rate, the same object all day. */
function dailyRates() {
  const DAY = 86_400;
  const START = Date.UTC(2021, 0, 1) / 1000;
  const days = 3 * 366;
  const table = new Map();
  for (const [token, base] of [['EIGHT', 2_000n], ['USDT', 10_000n]]) {
    table.set(token, Array.from({ length: days }, (_, d) => ({ num: base + BigInt((d * 7_919) % 613), den: 10_000n, time: START + d * DAY })));
  }
  return (token, t) => table.get(token)?.[Math.floor((t - START) / DAY)];
}

/**
 * 25,000 subscriptions of 40 billings each (1 in 8 fails and is retried a day later; 1 in
 * 50 pending), started through 2022–2023 on plans of a week to a year; 1 in 5 cancelled
 * after its last billing. Generated lazily, the same every time.
 */
function records() {
  const DAY = 86_400;
  const START = Date.UTC(2022, 0, 1) / 1000;
  const PERIODS = [7 * DAY, 14 * DAY, 28 * DAY, 30 * DAY, 31 * DAY, 91 * DAY, 182 * DAY, 365 * DAY];
  const perSub = 40;
  const subs = Math.ceil(BILLINGS / perSub);
  const ends = [];
  function* billings() {
    let seed = 42;
    const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    let n = 0;
    for (let s = 0; s < subs && n < BILLINGS; s++) {
      const period = PERIODS[s % PERIODS.length];
      let cycleStart = START + Math.floor(rand() * 730 * DAY);
      let t = cycleStart;
      for (let k = 0; k < perSub && n < BILLINGS; k++, n++) {
        const r = rand();
        const failed = k > 0 && r < 0.125;
        const pending = !failed && r > 0.98;
        yield {
          subscriptionId: `sub-${s}`,
          planId: `plan-${s % 40}`,
          token: s % 3 === 0 ? 'EIGHT' : 'USDT',
          amount: '12.5',
          success: failed ? 0 : 1,
          transactionStatus: pending ? 'pending' : 'confirmed',
          timestamp: t,
          cycleStart,
          cycleEnd: cycleStart + period - 1,
          transactionHash: `0x${s.toString(16)}-${k}`,
        };
        if (!failed) cycleStart += period;
        t = failed ? t + DAY : Math.max(t + 1, cycleStart);
      }
      ends[s] = t;
    }
  }
  function* cancellations() {
    for (let s = 0; s < subs; s += 5) yield { subscriptionId: `sub-${s}`, planId: `plan-${s % 40}`, timestamp: ends[s] + DAY, forced: s % 10 === 0, transactionStatus: 'confirmed', transactionHash: `0xc${s}` };
  }
  return { billings: billings(), cancellations: cancellations() };
}
