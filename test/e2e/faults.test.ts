import { execa } from 'execa';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { Emulator, FaultOptions } from '../../src/emulator/index.js';
import { BIN, emulator, payrec, program, tempDir, until } from './helpers.js';

// The client against a misbehaving service: injected server errors, rate limits,
// resets, cut bodies, slow answers and bodies that are not what the API sends.
// Faults are seeded, so every run sees the same sequence.

const NO_STACK = /\n\s+at /;

async function setFaults(emu: Emulator, faults: FaultOptions | undefined): Promise<void> {
  const res = await fetch(`${emu.url}/_emulator/faults`, {
    method: faults ? 'POST' : 'DELETE',
    body: faults ? JSON.stringify(faults) : undefined,
  });
  expect(res.status).toBe(200);
}

/** Counts of each status in the request log (0 = connection reset). */
function statusCounts(emu: Emulator): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of emu.requests) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

/** util-linux `script`, for a pseudo-terminal: under CI its tests fail when it is missing, never skip (it was looked for only at /usr/bin/script). */
const script = program('script', 'bsdutils');

describe('a 20,000-record export through 10% faults', () => {
  let emu: Emulator;
  let clean: string;
  const args = ['one-time', 'transfers', '--all', '-f', 'csv', '--page-size', '200', '--retries', '10'];
  const faults: FaultOptions = { rate: 0.1, kinds: ['500', '502', '503', '429', 'reset', 'truncate'], seed: 7, retryAfter: 0 };

  beforeAll(async () => {
    emu = await emulator({ records: 20_000 });
    const r = await payrec(emu, args);
    expect(r.exitCode).toBe(0);
    clean = r.stdout;
  });
  afterAll(() => emu.close());
  beforeEach(() => emu.clearLog());

  test('the fault-free export has every record', async () => {
    // Some cells hold quoted line breaks, so count the rows' transaction hashes instead of lines.
    expect(clean.split('\n')[0]).toMatch(/(^|,)transactionHash(,|$)/);
    expect(new Set(clean.match(/\b0x[0-9a-f]{64}\b/g)).size).toBeGreaterThanOrEqual(20_000);
  });

  test('is byte-identical to the fault-free export, and the faults did happen', async () => {
    await setFaults(emu, faults);
    const r = await payrec(emu, args);
    await setFaults(emu, undefined);
    expect(r.stderr).toBe(''); // not a terminal: retries are silent
    expect(r.exitCode).toBe(0);
    expect(r.stdout === clean).toBe(true);
    // 100 pages of 200, plus the failed tries (a cut body logs 200 too).
    const counts = statusCounts(emu);
    expect(emu.requests.length).toBeGreaterThan(103);
    expect(Object.keys(counts).length).toBeGreaterThan(3); // several kinds of fault
  });

  test('the same seed gives the same faults: two runs log the same statuses', async () => {
    const runs: Record<number, number>[] = [];
    for (let i = 0; i < 2; i++) {
      emu.clearLog();
      await setFaults(emu, faults);
      const r = await payrec(emu, [...args, '--page-size', '1000']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout === clean).toBe(true);
      runs.push(statusCounts(emu));
    }
    await setFaults(emu, undefined);
    expect(runs[1]).toEqual(runs[0]);
  });

  /** An export to -o whose pages come slowly, once it has asked for three (the log is written before the slow answer). */
  async function slowExport() {
    await setFaults(emu, { rate: 1, kinds: ['slow'], slowMs: 400 });
    const dir = tempDir();
    const file = join(dir, 'transfers.csv');
    const child = payrec(emu, ['one-time', 'transfers', '--all', '-f', 'csv', '--page-size', '100', '-o', file]);
    await until('three pages asked', () => emu.requests.length >= 3);
    return { dir, file, child };
  }

  test('SIGINT during a slow export leaves no file and exits 130', async () => {
    const { dir, file, child } = await slowExport();
    child.kill('SIGINT');
    const r = await child;
    await setFaults(emu, undefined);
    expect(r.exitCode).toBe(130);
    expect(r.stderr).toMatch(/^interrupted$/m);
    expect(r.stderr).not.toMatch(NO_STACK);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
    expect(emu.requests.length).toBeLessThan(200); // it stopped well before the end
  });

  test('a second signal stops at once, and the unfinished -o file still goes', async () => {
    const { dir, child } = await slowExport();
    // The temporary file beside the target exists while pages are slow.
    expect(readdirSync(dir)).toHaveLength(1);
    // Two signals in one go (sent while the process is stopped, so both are pending when
    // it resumes): the second is handled before the first's orderly stop can remove
    // anything, so only the exit listener can (process.exit).
    child.kill('SIGSTOP');
    child.kill('SIGINT');
    child.kill('SIGTERM');
    child.kill('SIGCONT');
    const r = await child;
    await setFaults(emu, undefined);
    expect(r.exitCode).toBe(130);
    expect(r.stderr).not.toMatch(NO_STACK);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('when retries run out', () => {
  let emu: Emulator;
  beforeAll(async () => (emu = await emulator()));
  afterAll(() => emu.close());
  beforeEach(() => emu.clearLog());

  const cases: [string, FaultOptions, string[], number, RegExp][] = [
    ['server errors exit 6', { rate: 1, kinds: ['503'] }, [], 6, /^error: GET \/v1\/bsc\/one-time\/transfers: 503 Injected fault$/m],
    ['500 exits 6', { rate: 1, kinds: ['500'] }, [], 6, /: 500 Injected fault$/m],
    ['connection resets exit 7', { rate: 1, kinds: ['reset'] }, [], 7, /^error: GET \/v1\/bsc\/one-time\/transfers: connection reset$/m],
    ['bodies cut short exit 7', { rate: 1, kinds: ['truncate'] }, [], 7, /connection reset/],
    ['timeouts exit 7', { rate: 1, kinds: ['slow'], slowMs: 1500 }, ['--timeout', '0.3'], 7, /timed out after 0.3 s/],
  ];
  test.each(cases)('%s, with no --output file left behind', async (_name, faults, extra, code, message) => {
    await setFaults(emu, faults);
    const dir = tempDir();
    const file = join(dir, 'out.csv');
    const r = await payrec(emu, ['one-time', 'transfers', '--all', '-f', 'csv', '--retries', '2', '-o', file, ...extra]);
    await setFaults(emu, undefined);
    expect(r.exitCode).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/^hint: /m);
    expect(r.stderr).not.toMatch(NO_STACK);
    expect(r.stdout).toBe('');
    expect(readdirSync(dir)).toEqual([]);
    expect(emu.requests).toHaveLength(3); // the first try and 2 retries
  });

  test('a POST is not retried once it may have reached the server', async () => {
    const fx = emu.fixtures('bsc');
    await setFaults(emu, { rate: 1, kinds: ['503'] });
    const r = await payrec(emu, ['fixed-recurring', 'short-urls', 'create', '--name', 'x', '--plan-id', fx.plans['fixed-recurring'][0], '--retries', '5']);
    await setFaults(emu, undefined);
    expect(r.exitCode).toBe(6);
    expect(emu.requests.map((q) => q.method)).toEqual(['POST']);
  });

  test('a PUT is retried: it is idempotent', async () => {
    const fx = emu.fixtures('bsc');
    await setFaults(emu, { rate: 1, kinds: ['502'] });
    const r = await payrec(emu, ['fixed-recurring', 'webhook', 'set', '--plan-id', fx.plans['fixed-recurring'][0], 'https://shop.example/hook', '--retries', '2']);
    await setFaults(emu, undefined);
    expect(r.exitCode).toBe(6);
    expect(emu.requests.map((q) => q.method)).toEqual(['PUT', 'PUT', 'PUT']);
  });

  test.skipIf(script.skip)(`on a terminal stderr says what it retries and why${script.note}`, async () => {
    await setFaults(emu, { rate: 1, kinds: ['429'], retryAfter: 1 });
    const cmd = `node ${BIN} one-time transfers --limit 1 --retries 1`;
    const r = await execa('script', ['-qec', cmd, '/dev/null'], {
      reject: false,
      extendEnv: false,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'dumb', NO_COLOR: '1', PAYREC_CONFIG_DIR: tempDir(), PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc') },
    });
    await setFaults(emu, undefined);
    expect(r.stdout).toMatch(/^retrying GET \/v1\/bsc\/one-time\/transfers in 1 s after 429\r?$/m);
    expect(r.exitCode).toBe(5);
  });
});

describe('malformed bodies give one clear line, never a stack trace', () => {
  let emu: Emulator;
  beforeAll(async () => (emu = await emulator()));
  afterAll(() => emu.close());
  beforeEach(() => emu.clearLog());

  /** Runs `args` with every API response faulted by `kind`; returns the result. */
  async function withFault(kind: FaultOptions['kinds'][number], args: string[]) {
    await setFaults(emu, { rate: 1, kinds: [kind] });
    try {
      return await payrec(emu, args);
    } finally {
      await setFaults(emu, undefined);
    }
  }

  function expectOneLineError(stderr: string): void {
    expect(stderr).not.toMatch(NO_STACK);
    expect(stderr.split('\n').filter((l) => l.startsWith('error: '))).toHaveLength(1);
    expect(stderr.split('\n').filter((l) => l && !/^(error|hint): /.test(l))).toEqual([]);
  }

  test('an HTML error page instead of JSON exits 6 and says what came', async () => {
    const r = await withFault('html', ['one-time', 'transfers', '--limit', '5', '--retries', '1']);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/^error: GET \/v1\/bsc\/one-time\/transfers: the response is not valid JSON \(text\/html, \d+ bytes: <!DOCTYPE html>/m);
    expectOneLineError(r.stderr);
    expect(r.stdout).toBe('');
  });

  test('truncated JSON exits 6', async () => {
    const r = await withFault('partial', ['one-time', 'transfers', '--limit', '5', '--retries', '1']);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/^error: GET \/v1\/bsc\/one-time\/transfers: the response is not valid JSON \(application\/json, \d+ bytes: \{"data":\[/m);
    expectOneLineError(r.stderr);
  });

  test('truncated JSON of a single record exits 6 too', async () => {
    const fx = emu.fixtures('bsc');
    const r = await withFault('partial', ['one-time', 'payments', 'get', fx.oneTimePayments[0], '--retries', '0']);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/^error: GET \/v1\/bsc\/one-time\/0x[0-9a-f]{64}: the response is not valid JSON/m);
    expectOneLineError(r.stderr);
  });

  test('schema drift warns once and still prints the data', async () => {
    const r = await withFault('drift', ['one-time', 'transfers', '--limit', '5', '-f', 'jsonl']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/^warning: GET \/one-time\/transfers: field "timestamp": .*expected number, received string \(printed as received; --strict makes this an error\)\nshowing 5 of [\d,]+; --all for every record\n$/);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { timestamp: unknown });
    expect(rows).toHaveLength(5);
    expect(typeof rows[0].timestamp).toBe('string');
  });

  test('schema drift with --strict exits 6 and prints nothing', async () => {
    const r = await withFault('drift', ['one-time', 'transfers', '--limit', '5', '--strict']);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/^error: GET \/one-time\/transfers: field "timestamp": .*expected number, received string$/m);
    expectOneLineError(r.stderr);
    expect(r.stdout).toBe('');
  });

  test('a 50 MB body is refused, not retried, and exits 6', async () => {
    const r = await withFault('huge', ['one-time', 'transfers', '--limit', '5']);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/^error: GET \/v1\/bsc\/one-time\/transfers: the response is larger than 32 MB/m);
    expectOneLineError(r.stderr);
    expect(emu.requests).toHaveLength(1);
  });
});
