import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { ANCHOR, emulator, payrec, tempDir } from './helpers.js';

// Start-up loads only what a command uses (issue 33; the time it saves is in
// test/bench/pace.mjs, never asserted here). An ESM loader hook in the payrec process
// prints every file it loads; a file of dist/ is known by text only its library has.
// No timing: the set of files is the same on any machine.

vi.setConfig({ testTimeout: 120_000 });

const LIBRARIES: Record<string, string> = {
  zod: 'ZodError',
  undici: 'node_modules/undici/',
  duckdb: 'node_modules/@duckdb/node-api',
  'the emulator': '"/_emulator"',
  // Its read of the variable: a warning's text may name the variable without loading the clock.
  "the emulator's clock": 'env.PAYREC_EMULATOR_NOW',
  // -o's writer brings crypto, streams and the trust checks; the exit handlers every run installs need none of it.
  "-o's writer": 'cannot replace --output',
};

let emu: Emulator;
let dir: string;
let db: string;
let hook: string;

beforeAll(async () => {
  emu = await emulator({ records: 50 });
  dir = tempDir();
  db = join(dir, 'm.duckdb');
  expect((await payrec(emu, ['sync', '--db', db, '-q'])).exitCode).toBe(0);
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(hooks, "export async function load(url, context, next) { if (url.startsWith('file:')) process.stderr.write('LOADED ' + url + '\\n'); return next(url, context); }\n");
  hook = join(dir, 'register.mjs');
  // Node's own modules load through require, which the hook does not see: their list is printed at exit.
  writeFileSync(
    hook,
    `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hooks).href)});\n` +
      "process.on('exit', () => process.stderr.write('BUILTINS ' + process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)).join(' ') + '\\n'));\n",
  );
});
afterAll(() => emu.close());

/** What `payrec args…` printed with the hook: its exit code checked. */
async function withHook(args: string[]) {
  const r = await payrec(emu, args, { env: { NODE_OPTIONS: `--import ${hook}`, PAYREC_EMULATOR_NOW: String(ANCHOR) } });
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
}

/** Node's own modules that `payrec args…` loaded. */
async function builtins(args: string[]): Promise<string[]> {
  const line = (await withHook(args)).stderr.split('\n').find((l) => l.startsWith('BUILTINS '));
  expect(line).toBeDefined();
  return line!.slice('BUILTINS '.length).split(' ');
}

/** The libraries of LIBRARIES that `payrec args…` loads. */
async function loaded(args: string[]): Promise<string[]> {
  const r = await withHook(args);
  const files = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('LOADED ') && l.includes('/dist/'))
    .map((l) => readFileSync(fileURLToPath(l.slice('LOADED '.length)), 'utf8'));
  expect(files.length).toBeGreaterThan(0);
  return Object.keys(LIBRARIES).filter((name) => files.some((text) => text.includes(LIBRARIES[name])));
}

describe('what a command loads', () => {
  test('payrec --help: commander and the command names, none of the libraries', async () => {
    expect(await loaded(['--help'])).toEqual([]);
  });

  test('payrec --help: not node:child_process, which commander requires for executable subcommands (it loads dgram and net; net stdout, a pipe here, loads anyway)', async () => {
    const names = await builtins(['--help']);
    // The list is read: what every run loads is in it.
    expect(names).toEqual(expect.arrayContaining(['fs', 'path']));
    expect(names.filter((n) => ['child_process', 'dgram'].includes(n))).toEqual([]);
  });

  test('payrec sql: DuckDB, no zod (flags are parsed without it), no HTTP client, nothing of the emulator', async () => {
    expect(await loaded(['sql', '--db', db, 'SELECT count(*) FROM one_time_transfers'])).toEqual(['duckdb', "-o's writer"]);
  });

  test("payrec metrics: DuckDB and zod (the mirror's layout comes from the registry's schemas), no HTTP client, nothing of the emulator", async () => {
    expect(await loaded(['metrics', '--db', db, '--period', '2025', '-f', 'csv'])).toEqual(['zod', 'duckdb', "-o's writer"]);
  });

  test('a sync that finds nothing new: zod, undici and DuckDB, nothing of the emulator', async () => {
    expect(await loaded(['sync', 'ot/transfers', '--db', db, '-q'])).toEqual(['zod', 'undici', 'duckdb', "-o's writer"]);
  });

  test('the same sync under --emulator loads the emulator and its clock: the markers find them', async () => {
    const own = join(dir, 'emulator.duckdb');
    expect(await loaded(['--emulator', 'sync', 'ot/transfers', '--db', own, '-q'])).toEqual(expect.arrayContaining(['the emulator', "the emulator's clock"]));
  });
});
