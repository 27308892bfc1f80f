#!/usr/bin/env node
// The subscription engine alone (src/subscriptions), in-process: `metrics` over
// 1,000,000 billings of 25,000 subscriptions for the 12 months of 2023, and `ledger`
// as of the year's end, with the time of each and the process's peak RSS. The commands
// (`payrec metrics`, `payrec subscriptions`) are measured as whole processes in
// `npm run bench`; this tells how much of their time is the engine's.
//   node test/bench/subscriptions-engine.mjs [billings]
// Not a vitest file; `npm test` never runs it.

import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, fmt } from './common.mjs';

const BILLINGS = Number(process.argv[2] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'payrec-engine-bench-'));
try {
  await build({ entryPoints: [join(ROOT, 'src/subscriptions/engine.ts')], bundle: true, platform: 'node', format: 'esm', outfile: join(dir, 'engine.mjs'), logLevel: 'warning' });
  const { ledger, metrics } = await import(pathToFileURL(join(dir, 'engine.mjs')).href);

  // 25,000 subscriptions of 40 billings each (1 in 8 fails once and is retried; 1 in 50 pending),
  // started through 2022–2023 on plans of a week to a year; 1 in 5 cancelled after its last billing.
  const DAY = 86_400;
  const START = Date.UTC(2022, 0, 1) / 1000;
  const PERIODS = [7 * DAY, 14 * DAY, 28 * DAY, 30 * DAY, 31 * DAY, 91 * DAY, 182 * DAY, 365 * DAY];
  const perSub = 40;
  const subs = Math.ceil(BILLINGS / perSub);
  const billings = [];
  const cancellations = [];
  let seed = 42;
  const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  for (let s = 0; s < subs && billings.length < BILLINGS; s++) {
    const period = PERIODS[s % PERIODS.length];
    const token = s % 3 === 0 ? 'EIGHT' : 'USDT';
    const planId = `plan-${s % 40}`;
    let cycleStart = START + Math.floor(rand() * 730 * DAY);
    let t = cycleStart;
    for (let k = 0; k < perSub && billings.length < BILLINGS; k++) {
      const r = rand();
      const failed = k > 0 && r < 0.125;
      const pending = !failed && r > 0.98;
      billings.push({
        subscriptionId: `sub-${s}`,
        planId,
        token,
        amount: '12.5',
        success: failed ? 0 : 1,
        transactionStatus: pending ? 'pending' : 'confirmed',
        timestamp: t,
        cycleStart,
        cycleEnd: cycleStart + period - 1,
        transactionHash: `0x${s.toString(16)}-${k}`,
      });
      if (!failed) cycleStart += period;
      t = failed ? t + DAY : Math.max(t + 1, cycleStart);
    }
    if (s % 5 === 0) cancellations.push({ subscriptionId: `sub-${s}`, planId, timestamp: t + DAY, forced: s % 10 === 0, transactionStatus: 'confirmed', transactionHash: `0xc${s}` });
  }
  const intervals = Array.from({ length: 12 }, (_, i) => ({ from: Date.UTC(2023, i, 1) / 1000, to: Date.UTC(2023, i + 1, 1) / 1000 }));
  const at = Date.UTC(2024, 0, 1) / 1000;
  const input = { billings, cancellations };

  global.gc?.();
  console.log(`RSS with the input built: ${Math.round(process.memoryUsage().rss / 1048576)} MB, heap ${Math.round(process.memoryUsage().heapUsed / 1048576)} MB`);
  const time = (f) => {
    const t0 = performance.now();
    const out = f();
    return [performance.now() - t0, out];
  };
  const [metricsMs, rows] = time(() => metrics(input, { intervals, at, graceSeconds: 30 * DAY, byPlan: false }));
  const [againMs] = time(() => metrics(input, { intervals, at, graceSeconds: 30 * DAY, byPlan: false }));
  console.log(`metrics again (warm): ${fmt(againMs)}`);
  const [byPlanMs, planRows] = time(() => metrics(input, { intervals, at, graceSeconds: 30 * DAY, byPlan: true }));
  const [ledgerMs, ledgerRows] = time(() => ledger(input, { at, graceSeconds: 30 * DAY }));
  console.log(`${billings.length.toLocaleString('en-US')} billings, ${subs.toLocaleString('en-US')} subscriptions, ${cancellations.length.toLocaleString('en-US')} cancellations`);
  console.log(`metrics, 12 months by token: ${fmt(metricsMs)} (${rows.length} rows)`);
  console.log(`metrics, 12 months by plan:  ${fmt(byPlanMs)} (${planRows.length} rows)`);
  console.log(`ledger as of 2024-01-01:     ${fmt(ledgerMs)} (${ledgerRows.length.toLocaleString('en-US')} rows)`);
  console.log(`peak RSS (inputs included):  ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
