#!/usr/bin/env node
// `npm run bench:verify`: `--verify` over BENCH_RECORDS (100,000) one-time transfers of
// the emulator, checked against the emulator's own chain (`<emulator>/rpc/bsc`), as a
// whole process: records per second and JSON-RPC calls per record (counted from
// --debug's "a batch of N calls" lines), against a baseline measured in the same run:
// the same export without --verify. Goals (issue 30): at least 2,000 records/s here and
// at most 1.1 calls per record. Then `payrec verify` of the same records synced into a
// mirror, three times: the second run costs what is new (issue 44: at most 1 % of the
// first run's calls; its receipts are those of records not final yet: missing ones,
// unconfirmed ones, reorged ones until two runs agree), the third only the open ones.
// Not part of `npm test`.

import { spawnSync } from 'node:child_process';
import { Agent } from 'undici';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, fmt, KEY, median, NODE, startEmulator, Targets } from './common.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
// BENCH_VERIFY_PARTS=mirror measures payrec verify on a mirror alone (the list's --verify takes minutes at 100,000).
/** payrec verify runs on the mirror (at least 2: the second is the figure). */
const MIRROR_RUNS = Math.max(2, Number(process.env.BENCH_MIRROR_RUNS ?? 3));
const PARTS = new Set((process.env.BENCH_VERIFY_PARTS ?? 'list,mirror').split(','));
const work = mkdtempSync(join(tmpdir(), 'payrec-bench-verify-'));
const env = { ...process.env, PAYREC_CONFIG_DIR: work, PAYREC_API_KEY: KEY, PAYREC_CHAIN: 'bsc', NO_COLOR: '1' };
const targets = new Targets();

function measure(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(NODE, [BIN, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && r.status !== 9) throw new Error(`payrec ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const calls = [...r.stderr.matchAll(/debug: RPC POST \S+ \((?:a batch of (\d+) calls|1 call)\)/g)].reduce((n, m) => n + Number(m[1] ?? 1), 0);
  return { ms, calls };
}

const emu = await startEmulator(env, RECORDS, ['--now', '2026-01-01']);
try {
  const rpc = `${emu.url}/rpc/bsc`;
  const probe = await fetch(rpc, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' }).catch(() => undefined);
  if (!probe?.ok) {
    console.log(`the emulator serves no chain at ${rpc} (src/emulator/chain/ not built yet): nothing measured`);
    process.exitCode = 2;
  } else {
    // The emulator's own count of the calls of each method (a batch's calls each), of the first --verify.
    // Asked on a new connection each time: a kept-alive one may have closed during a run.
    const calls = `${emu.url}/_emulator/chain/calls`;
    const fetch = (url, init) => globalThis.fetch(url, { ...init, dispatcher: new Agent({ pipelining: 0 }) });
    if (PARTS.has('list')) {
      const list = ['--base-url', emu.url, 'one-time', 'transfers', '--all', '--to', '2026-01-01', '-f', 'jsonl'];
      const commands = {
        baseline: [...list, '-o', join(work, 'plain.jsonl')],
        verify: [...list, '-o', join(work, 'verified.jsonl'), '--verify', '--rpc', rpc, '--debug'],
      };
      const runs = { baseline: [], verify: [] };
      let byMethod;
      for (let i = 0; i < RUNS; i++) {
        for (const [k, args] of Object.entries(commands)) {
          if (k === 'verify' && i === 0) await fetch(calls, { method: 'DELETE' });
          runs[k].push(measure(args));
          if (k === 'verify' && i === 0) byMethod = (await (await fetch(calls)).json()).calls.bsc;
        }
      }
      const baseline = median(runs.baseline.map((r) => r.ms));
      const verify = median(runs.verify.map((r) => r.ms));
      const perSecond = RECORDS / (verify / 1000);
      const perRecord = runs.verify[0].calls / RECORDS;
      console.log(`baseline (the same export without --verify): ${fmt(baseline)}; --verify: ${fmt(verify)} (runs: ${runs.verify.map((r) => fmt(r.ms)).join(', ')})`);
      console.log(`calls by method (the first --verify): ${Object.entries(byMethod ?? {}).map(([m, n]) => `${m} ${n.toLocaleString('en-US')}`).join(', ')}`);
      targets.add('records verified per second', Math.round(perSecond).toLocaleString('en-US'), '≥ 2,000', perSecond >= 2000, `${RECORDS.toLocaleString('en-US')} records in ${fmt(verify)}`);
      targets.add('RPC calls per record', perRecord.toFixed(3), '≤ 1.1', perRecord <= 1.1, `${runs.verify[0].calls.toLocaleString('en-US')} calls`);
    }
    // payrec verify on a mirror of the same records, three runs (BENCH_MIRROR_RUNS).
    const db = join(work, 'mirror.duckdb');
    // The payments too: a transfer whose payment the mirror lacks is judged without its tag, a mismatch kept open (never final), so every run re-read them all.
    const synced = spawnSync(NODE, [BIN, '--base-url', emu.url, 'sync', 'ot/transfers', 'ot/payments', '--db', db, '--timeout', '300'], { env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
    if (synced.status !== 0) throw new Error(`payrec sync failed (${synced.status}): ${synced.stderr.slice(-2000)}`);
    const mirrorRuns = [];
    for (let i = 0; i < MIRROR_RUNS; i++) {
      await fetch(calls, { method: 'DELETE' });
      const run = measure(['--base-url', emu.url, 'verify', 'ot/transfers', '--db', db, '--rpc', rpc, '--debug', '-o', join(work, `verify-${i}.tsv`)]);
      mirrorRuns.push({ ...run, byMethod: (await (await fetch(calls)).json()).calls.bsc });
    }
    mirrorRuns.forEach((r, i) =>
      console.log(`payrec verify, run ${i + 1}: ${fmt(r.ms)}, ${r.calls.toLocaleString('en-US')} calls (${Object.entries(r.byMethod ?? {}).map(([m, n]) => `${m} ${n.toLocaleString('en-US')}`).join(', ')})`),
    );
    // The records still open (missing, unconfirmed: never final) are read again on every run, a receipt and a transaction
    // each; the rest of a second run's calls is what its final records cost.
    const [first, second] = mirrorRuns;
    const open = (second.byMethod?.eth_getTransactionReceipt ?? 0) + (second.byMethod?.eth_getTransactionByHash ?? 0);
    const share = (second.calls - open) / first.calls;
    console.log(`second payrec verify: ${second.calls.toLocaleString('en-US')} calls, ${((second.calls / first.calls) * 100).toFixed(2)} % of the first run's ${first.calls.toLocaleString('en-US')}; ${open.toLocaleString('en-US')} of them re-read records not final`);
    targets.add('second payrec verify: calls for final records against the first run', `${(share * 100).toFixed(2)} %`, '≤ 1 %', share <= 0.01, `${(second.calls - open).toLocaleString('en-US')} of ${first.calls.toLocaleString('en-US')} calls`);
    targets.print();
    if (!targets.passed) process.exitCode = 1;
  }
} finally {
  await emu.stop();
}
