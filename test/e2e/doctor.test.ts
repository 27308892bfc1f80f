import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { home, runDoctor, type DoctorRow } from './doctor-helpers.js';
import { emulator, payrec, tempDir } from './helpers.js';
import { NOBODY, nobody, payrecAsNobody } from './other-user.js';

// payrec doctor: every check runs, the report lists them all, and the exit code is
// that of the first problem. Each case builds the broken thing itself (a config others
// can read, a closed port, a clock ten minutes off, a folder under a file, a mirror
// that is no DuckDB file, a stale completion script) and reads what a user reads.

let emu: Emulator;
beforeAll(async () => (emu = await emulator({ records: 40, now: 1_767_225_600 })));
afterAll(() => emu.close());

const doctor = (env: Record<string, string | undefined>, args: string[] = [], e: Emulator | undefined = emu) => runDoctor(e, env, args);

/** The completion script this payrec prints, installed where bash-completion looks. */
async function installCompletion(env: Record<string, string>, text?: string): Promise<string> {
  const dir = join(env.XDG_DATA_HOME, 'bash-completion', 'completions');
  mkdirSync(dir, { recursive: true });
  const script = text ?? (await payrec(undefined, ['completion', 'bash'])).stdout;
  writeFileSync(join(dir, 'payrec'), script);
  return join(dir, 'payrec');
}

describe('all is well', () => {
  test('every check ok, cursors of a synced mirror listed, exit 0', async () => {
    const env = home();
    const path = await installCompletion(env);
    // Short urls name the plans whose subscriptions payrec can tell (a mirror without any is warned of).
    expect((await payrec(emu, ['sync', 'ot/transfers', 'fr/short-urls', '-q'], { env })).exitCode).toBe(0);
    const r = await doctor(env);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.rows.filter((x) => x.status !== 'ok')).toEqual([]);
    expect(r.rows.map((x) => x.check)).toEqual([
      'config file',
      'setting profile',
      'setting chain',
      'setting base-url',
      'setting api-key',
      'setting rpc',
      'setting tz',
      'setting format',
      'setting db',
      'setting timeout',
      'setting retries',
      'setting currency',
      'setting concurrency',
      'key',
      'service',
      'clock',
      'config folder',
      'data folder',
      'state folder',
      'mirror',
      'cursor ot/transfers',
      'plans',
      'completion bash',
    ]);
    expect(r.by('setting base-url')?.detail).toBe(`${emu.url} (env)`);
    expect(r.by('setting api-key')?.detail).toMatch(/^\*{4}.{4} \(env\)$/);
    expect(r.by('key')?.detail).toBe('works for chain bsc (key from env)');
    expect(r.by('service')?.detail).toMatch(new RegExp(`^${emu.url} answered in \\d+ ms$`));
    expect(r.by('clock')?.detail).toMatch(/^in step with the service \(within \d+ s\)$/);
    expect(r.by('mirror')?.detail).toMatch(new RegExp(`^${join(env.XDG_DATA_HOME, 'payrec', 'default.duckdb')} \\(\\d+\\.\\d (KB|MB)\\)$`));
    expect(r.by('cursor ot/transfers')?.detail).toMatch(/^bsc: synced \d+ s ago, records up to \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(r.by('completion bash')?.detail).toBe(`installed in ${path}`);
    // The key itself never appears.
    expect(r.stdout).not.toContain(emu.keyFor('bsc'));
  });

  test('a terminal-less run prints tab-separated rows, one per check', async () => {
    const r = await payrec(emu, ['doctor'], { env: home() });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('check\tstatus\tdetail');
    expect(lines).toContain('setting tz\tok\tUTC (default)');
    // No mirror, no completion: said, and neither is a problem.
    expect(lines.find((l) => l.startsWith('mirror\t'))).toMatch(/^mirror\tok\tnone yet at .*default\.duckdb \(payrec sync makes it\)$/);
    expect(lines.find((l) => l.startsWith('completion bash\t'))).toBe('completion bash\twarn\tnot installed (payrec completion --help says how)');
  });
});

describe('problems: exit code of the first, every check still runs', () => {
  test('no key: exit 3, the service still checked (it answers 401)', async () => {
    const r = await doctor({ ...home(), PAYREC_API_KEY: undefined, PAYREC_BASE_URL: emu.url }, [], undefined);
    expect(r.exitCode).toBe(3);
    expect(r.by('key')).toEqual({ check: 'key', status: 'fail', detail: 'no API key for profile default (chain bsc)' });
    expect(r.by('service')?.status).toBe('ok');
    expect(r.stderr).toBe('error: no API key for profile default (chain bsc)\nhint: run payrec auth login, or set PAYREC_API_KEY\n');
  });

  test('a key of another chain: exit 3 naming the chain', async () => {
    const r = await doctor({ ...home(), PAYREC_API_KEY: emu.keyFor('polygon') });
    expect(r.exitCode).toBe(3);
    expect(r.by('key')?.detail).toBe(`the key (from env) was rejected by ${emu.url} for chain bsc`);
    expect(r.stderr).toBe(`error: the key (from env) was rejected by ${emu.url} for chain bsc\nhint: keys are per chain: check --chain, or run payrec auth login\n`);
  });

  test('no key and nothing listening: one row for the key, the missing key (no "not checked" beside it)', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const r = await doctor({ ...home(), PAYREC_BASE_URL: `http://127.0.0.1:${port}`, PAYREC_API_KEY: undefined }, ['--retries', '0'], undefined);
    expect(r.exitCode).toBe(3);
    expect(r.rows.filter((x) => x.check === 'key')).toEqual([{ check: 'key', status: 'fail', detail: 'no API key for profile default (chain bsc)' }]);
    expect(r.by('service')?.status).toBe('fail');
  });

  test('a config folder of another name: exit 2, naming the setting that moves it', async () => {
    const env = home();
    const file = join(env.HOME, 'a-file');
    writeFileSync(file, '');
    const r = await doctor({ ...env, PAYREC_CONFIG_DIR: file });
    expect(r.exitCode).toBe(2);
    expect(r.by('config folder')).toEqual({ check: 'config folder', status: 'fail', detail: `the config cannot be kept: ${file} is not a folder payrec can write` });
    expect(r.stderr).toBe(`error: the config cannot be kept: ${file} is not a folder payrec can write\nhint: set PAYREC_CONFIG_DIR to a folder you can write\n`);
  });

  test.skipIf(nobody.skip)(`folders another user owns, run as nobody: the config folder not writable, the data folder not to be made under it${nobody.note}`, async () => {
    nobody.need();
    // Root runs the suite, and root may write anywhere: only another user meets a folder it cannot write.
    const shared = tempDir(0o1777);
    const own = join(shared, 'home');
    mkdirSync(own, { mode: 0o700 });
    chownSync(own, NOBODY, NOBODY);
    const roots = join(shared, 'roots');
    mkdirSync(roots);
    // Set whole: mkdir's mode is cut by the worker's umask, 077 once a test opened a mirror in it.
    chmodSync(roots, 0o755);
    const env = { HOME: own, XDG_CONFIG_HOME: join(own, 'config'), XDG_STATE_HOME: join(own, 'state'), XDG_DATA_HOME: join(roots, 'data'), PAYREC_CONFIG_DIR: roots, SHELL: '/bin/bash' };
    const r = await payrecAsNobody(['doctor', '-f', 'json'], { ...env, PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc') });
    const rows = JSON.parse(r.stdout) as DoctorRow[];
    expect(rows.find((x) => x.check === 'config folder')).toEqual({ check: 'config folder', status: 'fail', detail: `the config cannot be kept: ${roots} is not a folder payrec can write` });
    expect(rows.find((x) => x.check === 'data folder')).toEqual({ check: 'data folder', status: 'fail', detail: `the mirror cannot be kept: ${join(roots, 'data', 'payrec')} cannot be made: ${roots} is not writable` });
    expect(rows.find((x) => x.check === 'state folder')?.status).toBe('ok');
    expect(r.stderr).toMatch(/^error: the config cannot be kept: .* \(and \d+ more problems? in the report\)\nhint: set PAYREC_CONFIG_DIR to a folder you can write$/);
    expect(r.exitCode).toBe(2);
  });

  test('nothing listening: exit 7, and the folders and mirror are still reported', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const r = await doctor({ ...home(), PAYREC_BASE_URL: `http://127.0.0.1:${port}`, PAYREC_API_KEY: 'sk_test_abcdefgh1234' }, ['--retries', '0']);
    expect(r.exitCode).toBe(7);
    expect(r.by('service')?.status).toBe('fail');
    expect(r.by('key')).toEqual({ check: 'key', status: 'warn', detail: 'not checked: the service did not answer' });
    expect(r.by('data folder')?.status).toBe('ok');
    expect(r.by('mirror')?.status).toBe('ok');
    expect(r.stderr).toMatch(/^error: .*refused.*\n/);
    expect(r.stdout + r.stderr).not.toContain('sk_test_abcdefgh1234');
  });

  test('a config file others can read comes first: exit 2 with chmod 600', async () => {
    const env = home();
    mkdirSync(env.PAYREC_CONFIG_DIR, { recursive: true, mode: 0o700 });
    const file = join(env.PAYREC_CONFIG_DIR, 'config.json');
    writeFileSync(file, JSON.stringify({ currentProfile: 'default', profiles: { default: { chain: 'bsc' } } }));
    chmodSync(file, 0o644);
    const r = await doctor({ ...env, PAYREC_API_KEY: emu.keyFor('polygon') });
    expect(r.exitCode).toBe(2);
    expect(r.rows[0]).toMatchObject({ check: 'config file', status: 'fail' });
    expect(r.rows[0].detail).toContain('can be read by other users');
    // The wrong key is listed too, but the config is the first problem.
    expect(r.by('key')?.status).toBe('fail');
    expect(r.stderr).toMatch(/^(warning: .*\nhint: .*\n)?error: the config file .* can be read by other users.* \(and 1 more problem in the report\)\nhint: fix it with: chmod 600 /m);
  });

  test('a data folder that cannot be made: exit 2 naming the settings that move it', async () => {
    const env = home();
    const file = join(env.HOME, 'a-file');
    writeFileSync(file, '');
    const r = await doctor({ ...env, XDG_DATA_HOME: join(file, 'data') });
    expect(r.exitCode).toBe(2);
    expect(r.by('data folder')).toMatchObject({ status: 'fail', detail: `the mirror cannot be kept: ${join(file, 'data', 'payrec')} cannot be made: ${file} is not writable` });
    expect(r.stderr).toContain('hint: set --db (or PAYREC_DB, XDG_DATA_HOME) to a folder you can write');
  });

  test('a mirror that is no DuckDB file: exit 2 naming it', async () => {
    const env = home();
    const db = join(env.HOME, 'mirror.duckdb');
    writeFileSync(db, 'not a database\n'.repeat(100), { mode: 0o600 });
    const r = await doctor({ ...env, PAYREC_DB: db });
    expect(r.exitCode).toBe(2);
    expect(r.by('mirror')?.status).toBe('fail');
    expect(r.by('mirror')?.detail).toContain(db);
    // The plans it would name cannot be counted: a warning with the same reason (the mirror's row is the failure).
    expect(r.by('plans')).toEqual({ check: 'plans', status: 'warn', detail: `not counted: ${r.by('mirror')!.detail}` });
  });

  test('a completion script of another version is out of date: a warning, exit 0', async () => {
    const env = home();
    const path = await installCompletion(env, '# payrec completion of an older version\n');
    const r = await doctor(env);
    expect(r.exitCode).toBe(0);
    expect(r.by('completion bash')).toEqual({ check: 'completion bash', status: 'warn', detail: `out of date in ${path} (another payrec version): payrec completion bash > ${path}` });
  });
});

describe('the clock, against a service whose Date header is off', () => {
  let server: Server;
  let offsetS = 0;
  let url: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.setHeader('date', new Date(Date.now() + offsetS * 1000).toUTCString());
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: [], total: 0, limit: 1, offset: 0 }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const run = () => doctor({ ...home(), PAYREC_BASE_URL: url, PAYREC_API_KEY: 'sk_test_abcdefgh1234' }, [], undefined);

  test('ten minutes behind: exit 2, saying by how much and how to fix it', async () => {
    offsetS = 600;
    const r = await run();
    expect(r.exitCode).toBe(2);
    expect(r.by('clock')?.status).toBe('fail');
    expect(r.by('clock')?.detail).toMatch(/^this machine's clock is (599|600|601) s behind the service \(± 1 s\)/);
    expect(r.stderr).toContain('hint: set the clock (timedatectl set-ntp true)');
  });

  test('ten minutes ahead: exit 2 as well (a clock ahead skews --at and periods as much as one behind)', async () => {
    offsetS = -600;
    const r = await run();
    expect(r.exitCode).toBe(2);
    expect(r.by('clock')?.status).toBe('fail');
    expect(r.by('clock')?.detail).toMatch(/^this machine's clock is (599|600|601) s ahead of the service \(± 1 s\)/);
    expect(r.stderr).toContain('hint: set the clock (timedatectl set-ntp true)');
  });

  test('twenty seconds ahead: a warning, exit 0', async () => {
    offsetS = -20;
    const r = await run();
    expect(r.exitCode).toBe(0);
    expect(r.by('clock')).toMatchObject({ status: 'warn' });
    expect(r.by('clock')?.detail).toMatch(/^(19|20|21) s ahead of the service \(± 1 s\)$/);
  });

  test('in step: ok', async () => {
    offsetS = 0;
    const r = await run();
    expect(r.by('clock')).toMatchObject({ status: 'ok' });
  });
});
