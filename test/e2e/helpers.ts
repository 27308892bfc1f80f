import { execa, type ResultPromise } from 'execa';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions, type Fixtures } from '../../src/emulator/index.js';
import { processAlive } from '../../src/core/runtime/process-alive.js';
import { forgetSecrets } from '../../src/core/runtime/secrets.js';

// End-to-end helpers: the built binary, run as a user would, against a real emulator
// on an ephemeral loopback port.

export const BIN = resolve(import.meta.dirname, '../../bin/payrec.js');

/** A fixed anchor so generated data (the 365 days before it) is the same every run. */
export const ANCHOR = 1_767_225_600; // 2026-01-01T00:00:00Z

export async function emulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ port: 0, records: 250, seed: 1, now: ANCHOR, ...opts });
}

export interface SuiteEmulators {
  emu: Emulator;
  /** Receives only bad input: its request log must stay empty. */
  quiet: Emulator;
  /** What exists in `emu`'s bsc data. */
  fx: Fixtures;
}

/** Starts, for the whole test file, an emulator with data and an empty one for bad input. */
export function suiteEmulators(): SuiteEmulators {
  const suite = {} as SuiteEmulators;
  beforeAll(async () => {
    [suite.emu, suite.quiet] = await Promise.all([emulator(), emulator({ records: 0 })]);
    suite.fx = suite.emu.fixtures('bsc');
  });
  afterAll(async () => {
    await Promise.all([suite.emu.close(), suite.quiet.close()]);
  });
  return suite;
}

/** CI runs every test: `CI` is set there (and .ci/run installs the programs below). */
const IN_CI = !['', '0', 'false'].includes(process.env.CI ?? '');

export interface Prerequisite {
  present: boolean;
  /** Skip the tests that need it: only off CI, where a developer may lack it. */
  skip: boolean;
  /** Appended to the test name: why it is skipped, or why it fails. */
  note: string;
  /** Fails the test, saying what is missing and how to get it, unless it is present (a test's first line). */
  need(): void;
}

/**
 * Something some tests need that a developer's machine may lack (a program, root, a
 * user to run payrec as). Missing there, those tests are skipped and say so; missing
 * under CI, they run and fail at once, naming it: CI never proves less than the suite
 * holds.
 */
export function prerequisite(what: string, present: boolean, fix: string): Prerequisite {
  const skip = !present && !IN_CI;
  const note = present ? '' : skip ? ` (skipped: needs ${what}; ${fix})` : ` (failing: needs ${what}, and CI runs every test; ${fix})`;
  return {
    present,
    skip,
    note,
    need() {
      if (!present) throw new Error(`this test needs ${what}: ${fix}`);
    },
  };
}

/** A program that some tests drive (zsh, fish, util-linux `script` for a pseudo-terminal). */
export function program(name: string, debianPackage: string): Prerequisite {
  const present = spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
  return prerequisite(name, present, `apt-get install ${debianPackage}`);
}

/**
 * Test folders (mirrors, configs, exports) live under one folder per test process,
 * named by its pid. A run of the suite makes about 4,000 of them, a gigabyte or more;
 * a worker cannot rely on running code as it ends (the pool may stop it with a signal),
 * so each process, as it starts, removes the folders of processes that have ended:
 * after a run, at most that run's folders remain.
 */
const TEST_ROOT = join(tmpdir(), 'payrec-tests');
mkdirSync(TEST_ROOT, { recursive: true });
for (const name of readdirSync(TEST_ROOT)) {
  const pid = Number(name.split('-')[0]);
  if (Number.isInteger(pid) && !processAlive(pid)) {
    try {
      rmSync(join(TEST_ROOT, name), { recursive: true, force: true });
    } catch {
      // Another worker starting at the same moment is removing it too.
    }
  }
}
const OWN = mkdtempSync(join(TEST_ROOT, `${process.pid}-`));
// Traversable, as the system's temporary folder is: tests run payrec as another user in folders of their own below it.
chmodSync(OWN, 0o755);

/** A folder of the test's own: 0700 as mkdtemp makes it, or `mode`. */
export function tempDir(mode?: number): string {
  const dir = mkdtempSync(join(OWN, 'd-'));
  if (mode !== undefined) chmodSync(dir, mode);
  return dir;
}

/**
 * Another service on 127.0.0.1 that answers every request with an empty list and keeps
 * the Authorization header of each (undefined when none came): what a key sent there shows.
 */
export async function keyCatcher(): Promise<{ url: string; seen: (string | undefined)[]; close: () => void }> {
  const seen: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[],"limit":1,"offset":0,"total":0}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => server.close() };
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
  /** Key of this chain's demo user; `null` for no key at all. */
  chain?: string;
}

/** The environment payrec runs in under test: no colour, UTC, a config folder of its own. */
export function payrecEnv(): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TZ: 'UTC',
    NO_COLOR: '1',
    PAYREC_CONFIG_DIR: tempDir(),
    // Under the e2e mutation run (test/mutation/stryker.e2e.config.mjs): the mutant the binary turns on.
    ...(process.env.__STRYKER_ACTIVE_MUTANT__ ? { __STRYKER_ACTIVE_MUTANT__: process.env.__STRYKER_ACTIVE_MUTANT__ } : {}),
  };
}

/** Runs `payrec args…` against `emu` with its demo key, never throwing on exit codes. */
export function payrec(emu: Emulator | undefined, args: string[], o: RunOptions = {}): ResultPromise<{ reject: false }> {
  const chain = o.chain ?? 'bsc';
  return execa('node', [BIN, ...args], {
    reject: false,
    // Keep stdout byte for byte, as a file would get it.
    stripFinalNewline: false,
    input: o.input,
    cwd: o.cwd,
    extendEnv: false,
    // Under the e2e mutation run a mutant can loop for ever; Stryker ends the test run at its
    // timeout but not the processes it started, which then held a core for the rest of the run.
    ...(process.env.__STRYKER_ACTIVE_MUTANT__ ? { timeout: 300_000 } : {}),
    env: {
      ...payrecEnv(),
      ...(emu ? { PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor(chain), PAYREC_CHAIN: chain } : {}),
      ...o.env,
    },
  }) as ResultPromise<{ reject: false }>;
}

/** What an in-process run printed and returned, as execa's result names them. */
export interface InProcessResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr in the order written, as a terminal shows them both. */
  output: string;
}

export interface InProcessOptions extends Omit<RunOptions, 'input'> {
  /** stdout and stderr a terminal this wide (docs.test.ts's examples), not the default pipes. */
  terminalColumns?: number;
  /**
   * The folder the run works in (where a relative -o lands), as a process started there:
   * the worker's own folder moves for the run, so no other in-process run may be under way.
   */
  cwd?: string;
}

/**
 * Runs `payrec args…` inside this test process (src/program.ts's `run`, as the binary's
 * runProcess does), with the environment `payrec()` gives a process: for answers where no
 * process boundary is under test (a refusal's words and exit code, rows read from a
 * mirror), which then cost no node start-up and no bundle load (issue 48, the suite's
 * time). What only a process shows (signals, stdin, a terminal, files left behind, the
 * built bundle, the HTTP client's work in its own process) stays with `payrec()`. V8's
 * flags stay the worker's: only payrec's own process tunes them (context.ts tuneHeap).
 * stdin is empty and not piped; stdout and stderr are not terminals unless
 * `terminalColumns` says how wide theirs is (no spinner is drawn on it: it has no size).
 */
export async function payrecInProcess(emu: Emulator | undefined, args: string[], o: InProcessOptions = {}): Promise<InProcessResult> {
  const { run } = await import('../../src/program.js');
  if (movedFrom !== undefined || (o.cwd !== undefined && inProcessRuns > 0)) throw new Error('payrecInProcess: a run in a folder of its own (cwd) must be the only in-process run under way');
  if (o.cwd !== undefined) {
    movedFrom = process.cwd();
    process.chdir(o.cwd);
  }
  const chain = o.chain ?? 'bsc';
  const out = { stdout: '', stderr: '', output: '' };
  const sink = (name: 'stdout' | 'stderr') =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        out[name] += String(chunk);
        out.output += String(chunk);
        done();
      },
    });
  const env = {
    ...payrecEnv(),
    ...(emu ? { PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor(chain), PAYREC_CHAIN: chain } : {}),
    ...o.env,
  };
  // A mirror opened in the run makes its process's files private (umask 077, src/core/runtime/umask.ts):
  // the worker's umask is given back once no run is left, as the files of later tests expect it.
  if (inProcessRuns++ === 0) workerUmask = process.umask();
  const mirror = mirrorOf(args, env);
  if (mirror) mirrorsOpened.add(mirror);
  const exitCode = await run(args, {
    stdin: Readable.from([]),
    stdout: sink('stdout'),
    stderr: sink('stderr'),
    stdinIsTTY: false,
    stdinIsPiped: false,
    stdinIsSocket: false,
    stdoutIsTTY: o.terminalColumns !== undefined,
    stderrIsTTY: o.terminalColumns !== undefined,
    columns: o.terminalColumns ?? 80,
    env: Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)),
    now: () => Date.now(),
    signal: new AbortController().signal,
  }).finally(() => {
    if (movedFrom !== undefined) process.chdir(movedFrom);
    movedFrom = undefined;
    if (--inProcessRuns > 0) return;
    process.umask(workerUmask);
    // A process's kept keys end with it; the worker's are forgotten once no run is left.
    forgetSecrets();
  });
  if (inProcessRuns === 0) await letMirrorsGo();
  return { exitCode, ...out };
}

let inProcessRuns = 0;
let workerUmask = 0o022;
/** The worker's folder while a run with `cwd` works in another. */
let movedFrom: string | undefined;

/** The mirror file a run names (--db, or PAYREC_DB), absolute; else the data folder its default mirror is in (src/mirror/location.ts). */
function mirrorOf(args: string[], env: Record<string, string | undefined>): string | undefined {
  const at = args.indexOf('--db');
  const file = at >= 0 ? args[at + 1] : env.PAYREC_DB;
  if (file !== undefined) return resolve(file);
  return env.XDG_DATA_HOME ? join(env.XDG_DATA_HOME, 'payrec') : undefined;
}

/** The mirror files of the in-process runs since the last letMirrorsGo. */
const mirrorsOpened = new Set<string>();

/**
 * DuckDB lets go of a mirror's file (and its lock, which a payrec process started next
 * waits on) only once V8 has collected the query results that hold it, long after the
 * run closed it: payrec's own process exits, this worker goes on. When the last run at
 * once ends and a file the runs named is still open (/proc/self/fd), a full collection
 * runs, whose finalizers close it.
 */
async function letMirrorsGo(): Promise<void> {
  const files = [...mirrorsOpened];
  mirrorsOpened.clear();
  if (!files.some(holdsFile)) return;
  collectGarbage();
  await new Promise((done) => setImmediate(done));
}

function holdsFile(file: string): boolean {
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(file);
    } catch {
      return false;
    }
  });
}

let collect: (() => void) | undefined;
/** V8's full collection, exposed for this worker on first use (as src/mirror/duckdb/chunks.ts does for payrec's minor one). */
function collectGarbage(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

/**
 * Every record of a list as the emulator's API serves it (its default order unless
 * `query` says otherwise), read page by page with plain HTTP: the ground truth a test
 * holds payrec's output against, never computed by payrec.
 */
export async function apiRecords(emu: Emulator, path: string, query: Record<string, string | number> = {}, chain = 'bsc'): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  for (let offset = 0; ; offset += 1000) {
    const q = new URLSearchParams(Object.entries({ ...query, limit: 1000, offset }).map(([k, v]) => [k, String(v)]));
    const body = (await (await fetch(`${emu.url}/v1/${chain}${path}?${q}`, { headers: { authorization: `Bearer ${emu.keyFor(chain)}` } })).json()) as { data: Record<string, any>[] };
    out.push(...body.data);
    if (body.data.length < 1000) return out;
  }
}

/**
 * Runs `check` on every item, `limit` at a time: independent payrec runs of one test
 * (each with its own assertions) overlap, as a file's tests do under test.concurrent,
 * instead of each waiting for the one before. Fails with the first failure.
 */
export async function eachAtOnce<T>(items: readonly T[], limit: number, check: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await check(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** Parses CSV the way a spreadsheet would (RFC 4180), for assertions. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (c === '\n' || (c === '\r' && text[i + 1] === '\n')) {
      if (c === '\r') i++;
      row.push(cell), rows.push(row), (row = []), (cell = '');
    } else cell += c;
  }
  if (cell !== '' || row.length) row.push(cell), rows.push(row);
  return rows;
}

/**
 * How long a test waits for an event (a line printed, a request logged, a commit seen)
 * before it fails naming it: far beyond what any takes on a quiet machine, so that one
 * running at a fraction of its speed still sees it. A passing test never waits this long:
 * waits end at the event.
 */
export const EVENT_WAIT_MS = 60_000;

/** Waits until `ok()` holds (asked every 20 ms); fails naming `what` after `ms`. */
export async function until(what: string, ok: () => boolean | Promise<boolean>, ms = EVENT_WAIT_MS): Promise<void> {
  for (const end = Date.now() + ms; !(await ok()); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
  }
}

/**
 * Ctrl-C (SIGINT) to a running payrec once `ready` holds, and how it must end: exit 130
 * with "interrupted" alone on stderr (nothing else said, no stack).
 */
export async function interruptWhen(run: ResultPromise, what: string, ready: () => boolean | Promise<boolean>): Promise<void> {
  await until(what, ready);
  run.kill('SIGINT');
  const stopped = await run;
  expect(stopped.exitCode).toBe(130);
  expect(stopped.stderr).toBe('interrupted\n');
}

/**
 * The CPU time a running process has spent, all its threads (Linux /proc): a measure of
 * how far it got that does not depend on how loaded the machine is, as wall time does.
 */
export function cpuSeconds(pid: number): number {
  // Fields 14 and 15 of /proc/PID/stat (after the name in parentheses): user and system time in clock ticks (100 a second).
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Collects a stream's text and waits for a pattern in it. */
export function watch(stream: Readable) {
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (text += chunk));
  return {
    get text() {
      return text;
    },
    async waitFor(pattern: RegExp, ms = EVENT_WAIT_MS): Promise<RegExpMatchArray> {
      let m = null as RegExpMatchArray | null;
      try {
        await until(String(pattern), () => (m = text.match(pattern)) !== null, ms);
      } catch {
        throw new Error(`timed out waiting for ${pattern} in: ${text}`);
      }
      return m!;
    },
  };
}

/** A JSON-RPC node in front of `upstream` that changes each answer (a node that lies): `change(call, answer)`. */
export async function inFrontOf(upstream: string, change: (call: { method: string; params: any[] }, answer: any) => any): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const answer = await (await fetch(upstream, { method: 'POST', body, headers: { 'content-type': 'application/json' } })).json();
    const calls = JSON.parse(body);
    const changed = Array.isArray(calls) ? (answer as any[]).map((a) => change(calls.find((c: any) => c.id === a.id), a)) : change(calls, answer);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(changed));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/**
 * The lines a person sees once the command ended: a carriage return or "cursor to column 1"
 * goes back to the line's start, "erase to end of line" erases (a spinner drawn, then
 * cleared, leaves nothing), and other control sequences (cursor shown or hidden) show nothing.
 */
export function screen(output: string): string[] {
  const lines: string[] = [''];
  let column = 0;
  const put = (text: string) => {
    const line = lines[lines.length - 1];
    lines[lines.length - 1] = line.slice(0, column).padEnd(column) + text + line.slice(column + text.length);
    column += text.length;
  };
  for (const m of output.matchAll(/\x1b\[([?\d;]*)([A-Za-z])|\r|\n|[^\x1b\r\n]+/g)) {
    const token = m[0];
    if (token === '\n') {
      lines.push('');
      column = 0;
    } else if (token === '\r' || (m[2] === 'G' && (m[1] === '' || m[1] === '1'))) column = 0;
    else if (m[2] === 'K') lines[lines.length - 1] = lines[lines.length - 1].slice(0, column);
    else if (m[2] === undefined) put(token);
  }
  const shown = lines.map((l) => l.trimEnd());
  while (shown.length > 0 && shown[shown.length - 1] === '') shown.pop();
  return shown;
}
