// What both parts of `npm run bench` share (run.mjs, mirror.mjs): where payrec is, the
// emulator in its own process, medians, and the table of targets each part prints.

import { spawn, spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = join(ROOT, 'bin/payrec.js');
export const NODE = process.execPath;
export const KEY = 'prk_demo_bsc';

/** Wall time of one run of `cmd args` in ms, in `env`; throws when the command fails. */
export function timed(env, cmd, args, options = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26, ...options });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return ms;
}

/** Wall time of one run of payrec (`args`) in ms, and its stdout; throws when it fails. */
export function timedPayrec(env, args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(NODE, [BIN, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`payrec ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

/** Runs each named command `runs` times, interleaved (so load changes hit all alike); every time, by name. */
export function interleavedTimes(commands, runs) {
  const times = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let i = 0; i < runs; i++) for (const [name, run] of Object.entries(commands)) times[name].push(run());
  return times;
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);

/** `payrec emulator start` in its own process (never sharing payrec's event loop); resolves with its URL once it listens. */
export function startEmulator(env, records, extra = []) {
  const child = spawn(NODE, [BIN, 'emulator', 'start', '--records', String(records), '--port', '0', ...extra], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolveStart, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`the emulator exited (${code})`)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /listening on (\S+)/.exec(out);
      if (!m) return;
      resolveStart({
        url: m[1],
        stop: () => new Promise((done) => (child.removeAllListeners('exit'), child.once('exit', done), child.kill('SIGTERM'))),
      });
    });
  });
}

/** The targets a part measures: each PASS or MISS, printed as one table at the end. */
export class Targets {
  rows = [];

  add(what, value, limit, pass, detail) {
    this.rows.push({ what, value, limit, result: pass ? 'PASS' : 'MISS', detail });
  }

  get passed() {
    return this.rows.every((r) => r.result === 'PASS');
  }

  print() {
    const head = { what: 'target', value: 'measured', limit: 'goal', result: 'result', detail: 'detail' };
    const all = [head, ...this.rows];
    const widths = Object.keys(head).map((k) => Math.max(...all.map((r) => String(r[k]).length)));
    const line = (r) => Object.keys(head).map((k, i) => String(r[k]).padEnd(widths[i])).join('  ').trimEnd();
    console.log(['', line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...this.rows.map(line)].join('\n'));
  }
}

/** Wall time (ms) and peak RSS (MB, by /usr/bin/time) of one payrec process; throws when it fails. */
export function measureRun(env, args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', NODE, BIN, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`payrec ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  const kb = Number(r.stderr.trim().split('\n').at(-1));
  return { ms, mb: kb / 1024, stdout: r.stdout };
}
