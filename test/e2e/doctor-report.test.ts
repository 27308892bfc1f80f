import { DuckDBInstance } from '@duckdb/node-api';
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { home, runDoctor } from './doctor-helpers.js';
import { ANCHOR, emulator, payrec, payrecInProcess } from './helpers.js';
import { duck } from './mirror-helpers.js';
import { rpcNode } from '../unit/rpc-node.js';

// What each row of `payrec doctor` says (issue 31: doctor.ts's mutants), against what the
// test made itself: a mirror whose cursors the test wrote (their times and ages), a
// config file, folders under a file or open to others, a setting that cannot be used, a
// service that sends no Date header, and the shells whose completion is looked for.

let emu: Emulator;
beforeAll(async () => (emu = await emulator({ records: 5 })));
afterAll(() => emu.close());

// The reports run in this worker (payrecInProcess, issue 48): the rows are answers of files,
// folders and servers the test made. The built binary in a process keeps the first report,
// the first refusal (exit 2), exit 7 with the node's key, a mirror another program holds,
// --dry-run and Ctrl-C.
const doctor = (env: Record<string, string | undefined>, args: string[] = [], e: Emulator | undefined = emu) => runDoctor(e, env, args, true);
const doctorProcess = (env: Record<string, string | undefined>, args: string[] = [], e: Emulator | undefined = emu) => runDoctor(e, env, args);

describe('the mirror', () => {
  test('each cursor: its list, chain and scope, when it was synced, and the time its records reach, as the file holds them', async () => {
    const env = home();
    expect((await payrecInProcess(emu, ['sync', 'ot/transfers', '-q'], { env })).exitCode).toBe(0);
    const file = join(env.XDG_DATA_HOME, 'payrec', 'default.duckdb');
    // The cursors, written here: a whole list, a plan's, a strategy's, and one stamped in the future (a clock set back since);
    // ages on either side of where minutes become hours (90 min) and hours days (48 h).
    await duck(
      file,
      'DELETE FROM payrec_cursors',
      `INSERT INTO payrec_cursors VALUES
        ('bsc', 'one-time/transfers', '', 1767225600, now() - INTERVAL 50 SECOND),
        ('bsc', 'fixed-recurring/billings', 'planId=0xp1', 1767139200, now() - INTERVAL 80 MINUTE),
        ('polygon', 'fixed-recurring/billings', '', 1767225599, now() - INTERVAL 5 HOUR),
        ('bsc', 'fixed-recurring/cancellations', 'planId=0xp1', 1767139200, now() - INTERVAL 100 MINUTE),
        ('polygon', 'one-time/transfers', '', 1767139200, now() - INTERVAL 47 HOUR),
        ('bsc', 'someday/list', '', 1767225600, now() - INTERVAL 3 HOUR),
        ('bsc', 'dollar-cost-average/executions', 'strategyId=0xs9', 1700000000, now() - INTERVAL 50 HOUR),
        ('bsc', 'wallet-to-wallet/transfers', '', 1767225600, now() + INTERVAL 1 HOUR)`,
    );
    const r = await doctorProcess(env);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    // Ordered by list (its full name), then chain, then scope.
    expect(r.rows.filter((x) => x.check.startsWith('cursor '))).toEqual([
      { check: 'cursor dca/executions', status: 'ok', detail: 'bsc strategy 0xs9: synced 2 d ago, records up to 2023-11-14T22:13:20Z' },
      { check: 'cursor fr/billings', status: 'ok', detail: 'bsc plan 0xp1: synced 80 min ago, records up to 2025-12-31T00:00:00Z' },
      { check: 'cursor fr/billings', status: 'ok', detail: 'polygon: synced 5 h ago, records up to 2025-12-31T23:59:59Z' },
      { check: 'cursor fr/cancellations', status: 'ok', detail: 'bsc plan 0xp1: synced 2 h ago, records up to 2025-12-31T00:00:00Z' },
      { check: 'cursor ot/transfers', status: 'ok', detail: expect.stringMatching(/^bsc: synced [5-8]\d s ago, records up to 2026-01-01T00:00:00Z$/) },
      { check: 'cursor ot/transfers', status: 'ok', detail: 'polygon: synced 47 h ago, records up to 2025-12-31T00:00:00Z' },
      // A list this payrec has no short name for (a newer payrec's) is named as the file holds it.
      { check: 'cursor someday/list', status: 'ok', detail: 'bsc: synced 3 h ago, records up to 2026-01-01T00:00:00Z' },
      { check: 'cursor w2w/transfers', status: 'ok', detail: 'bsc: synced 0 s ago, records up to 2026-01-01T00:00:00Z' },
    ]);
    // Its size, in the unit a person reads (ground truth: the file's size as stat tells it).
    const bytes = statSync(file).size;
    expect(bytes).toBeGreaterThan(1024 * 1024);
    expect(r.by('mirror')?.detail).toBe(`${file} (${(bytes / 1024 / 1024).toFixed(1)} MB)`);
  });

  test('a DuckDB file nothing was synced into: warned, exit 0; a small one is sized in KB', async () => {
    const env = home();
    const file = join(env.HOME, 'empty.duckdb');
    await duck(file, 'CREATE TABLE t (x INTEGER)');
    chmodSync(file, 0o600);
    const r = await doctor({ ...env, PAYREC_DB: file });
    expect(r.exitCode).toBe(0);
    expect(r.by('mirror cursors')).toEqual({ check: 'mirror cursors', status: 'warn', detail: 'none: nothing was synced into it yet (payrec sync)' });
    const bytes = statSync(file).size;
    expect(bytes).toBeLessThan(1024 * 1024);
    expect(r.by('mirror')?.detail).toBe(`${file} (${(bytes / 1024).toFixed(1)} KB)`);
  });

  test('a mirror another program is reading (read-only) is read beside it: its cursors and its plans', async () => {
    const env = home();
    expect((await payrecInProcess(emu, ['sync', 'ot/transfers', 'fr/short-urls', '-q'], { env })).exitCode).toBe(0);
    const file = join(env.XDG_DATA_HOME, 'payrec', 'default.duckdb');
    // A BI tool or payrec sql holding the file: doctor only reads, so it opens it beside them.
    const reader = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
    try {
      const r = await doctorProcess(env);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.by('mirror')?.status).toBe('ok');
      expect(r.by('cursor ot/transfers')?.status).toBe('ok');
      expect(r.by('plans')).toEqual({ check: 'plans', status: 'ok', detail: expect.stringMatching(/^\d+ fixed-recurring plans? known on chain bsc \(\d+ named by short urls\)$/) });
    } finally {
      reader.closeSync();
    }
  });
});

describe('config and settings', () => {
  test('a config file: its path and mode; none: the path where it would be', async () => {
    const env = home();
    const none = await doctor(env);
    expect(none.by('config file')).toEqual({ check: 'config file', status: 'ok', detail: `none at ${join(env.PAYREC_CONFIG_DIR, 'config.json')} (flags, environment and defaults apply)` });
    mkdirSync(env.PAYREC_CONFIG_DIR, { mode: 0o700 });
    writeFileSync(join(env.PAYREC_CONFIG_DIR, 'config.json'), JSON.stringify({ currentProfile: 'default', profiles: { default: { chain: 'polygon' } } }), { mode: 0o600 });
    const r = await doctor({ ...env, PAYREC_CHAIN: undefined, PAYREC_API_KEY: undefined, PAYREC_BASE_URL: emu.url }, [], undefined);
    expect(r.by('config file')).toEqual({ check: 'config file', status: 'ok', detail: `${join(env.PAYREC_CONFIG_DIR, 'config.json')} (parsed, mode 0600)` });
    // Each setting with where it comes from; one that nothing gives is shown bare.
    expect(r.by('setting chain')?.detail).toBe('polygon (profile)');
    expect(r.by('setting base-url')?.detail).toBe(`${emu.url} (env)`);
    expect(r.by('setting api-key')).toEqual({ check: 'setting api-key', status: 'ok', detail: '(none)' });
    expect(r.by('setting rpc')).toEqual({ check: 'setting rpc', status: 'ok', detail: '(none)' });
    expect(r.by('config folder')).toEqual({ check: 'config folder', status: 'ok', detail: `${env.PAYREC_CONFIG_DIR} (writable)` });
  });

  test('a setting that cannot be used: that row fails, nothing is sent, every folder is still checked, and the count of the other problems is said', async () => {
    const env = home();
    const file = join(env.HOME, 'a-file');
    writeFileSync(file, '');
    const r = await doctorProcess({ ...env, PAYREC_CHAIN: 'BSC!', PAYREC_CONFIG_DIR: file, XDG_STATE_HOME: join(file, 'state') });
    expect(r.rows.map((x) => [x.check, x.status])).toEqual([
      ['config file', 'ok'],
      ['settings', 'fail'],
      ['config folder', 'fail'],
      ['data folder', 'ok'],
      ['state folder', 'fail'],
      ['mirror', 'fail'],
      ['completion bash', 'warn'],
    ]);
    const why = 'invalid PAYREC_CHAIN "BSC!": expected a lower-case chain name such as bsc, ethereum, polygon or sandbox';
    expect(r.by('settings')?.detail).toBe(why);
    expect(r.by('config folder')?.detail).toBe(`the config cannot be kept: ${file} is not a folder payrec can write`);
    expect(r.by('data folder')?.detail).toBe(`${join(env.XDG_DATA_HOME, 'payrec')} (to be made; its parent is writable)`);
    expect(r.by('state folder')?.detail).toBe(`the listener's memory of forwarded notifications cannot be kept: ${join(file, 'state', 'payrec')} cannot be made: ${file} is not writable`);
    expect(r.stderr).toBe(`error: ${why} (and 3 more problems in the report)\n`);
    expect(r.exitCode).toBe(2);
  });

  test('a folder others can change: exit 2, its fix named', async () => {
    const env = home();
    const state = join(env.XDG_STATE_HOME, 'payrec');
    mkdirSync(state, { recursive: true });
    chmodSync(state, 0o777);
    const r = await doctor(env);
    expect(r.by('state folder')).toEqual({ check: 'state folder', status: 'fail', detail: `the folder of the listener's memory of forwarded notifications ${state} can be changed by other users: payrec keeps nothing where others can change it` });
    expect(r.stderr).toBe(`error: ${r.by('state folder')?.detail}\nhint: fix it with: chmod go-w ${state} (or set XDG_STATE_HOME to a place of yours)\n`);
    expect(r.exitCode).toBe(2);
  });
});

describe('the clock', () => {
  test('--emulator: not compared (the emulator runs on this machine\'s clock)', async () => {
    const r = await doctor(home(), ['--emulator'], undefined);
    expect(r.by('clock')).toEqual({ check: 'clock', status: 'ok', detail: "not compared: the built-in emulator runs on this machine's clock" });
    expect(r.by('key')?.detail).toBe('works for chain bsc (key from --emulator)');
  });

  test('--emulator with no anchor pinned: its chain\'s head is now, not the midnight its data end at (no "stuck" node)', async () => {
    // Mutant killed: the chain's clock started at the data's anchor (today's midnight): the
    // head was as old as the day, and a warning from five past midnight on.
    const r = await doctor({ ...home(), PAYREC_EMULATOR_NOW: undefined }, ['--emulator'], undefined);
    const node = r.by('chain node');
    expect(node?.status).toBe('ok');
    const age = Number(/, (\d+) s old$/.exec(node?.detail ?? '')?.[1]);
    // Blocks come every 3 s on bsc; a minute leaves room for a slow machine.
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(60);
  });

  test('a service that sends no Date header: a warning, exit 0', async () => {
    const server: Server = createServer((_req, res) => {
      res.sendDate = false;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [], total: 0, limit: 1, offset: 0 }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await doctor({ ...home(), PAYREC_BASE_URL: url, PAYREC_API_KEY: 'prk_no_date_header_1234' }, [], undefined);
      expect(r.by('clock')).toEqual({ check: 'clock', status: 'warn', detail: 'not compared: the service sent no Date header' });
      expect(r.by('service')?.detail).toMatch(new RegExp(`^${url} answered in \\d+ ms$`));
      expect(r.exitCode).toBe(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('the chain\'s node', () => {
  test('a node whose head is 20 minutes old: a warning (stuck or still syncing); the 5-minute limit\'s boundary', async () => {
    // The node's head block is stamped 1,200 s before the run's pinned now (the emulator's anchor).
    const now = ANCHOR;
    const node = await rpcNode({ chainId: 56, head: 100, blocks: new Map([[100, { number: '0x64', hash: `0x${'ab'.repeat(32)}`, timestamp: `0x${(now - 1200).toString(16)}` }]]) });
    try {
      const r = await doctor({ ...home(), PAYREC_EMULATOR_NOW: String(now) }, ['--emulator', '--rpc', node.url], emu);
      expect(r.by('chain node')).toEqual({ check: 'chain node', status: 'warn', detail: expect.stringMatching(/; head 100, 1200 s old \(stuck or still syncing\?\)$/) });
      // The limit's boundary: a head exactly 5 minutes (300 s) old is within it, one second more is not.
      const stampedAt = async (age: number) => {
        node.tables.blocks!.set(100, { number: '0x64', hash: `0x${'ab'.repeat(32)}`, timestamp: `0x${(now - age).toString(16)}` });
        return (await doctor({ ...home(), PAYREC_EMULATOR_NOW: String(now) }, ['--emulator', '--rpc', node.url], emu)).by('chain node');
      };
      expect(await stampedAt(300)).toMatchObject({ status: 'ok', detail: expect.stringMatching(/, 300 s old$/) });
      expect(await stampedAt(301)).toMatchObject({ status: 'warn', detail: expect.stringMatching(/, 301 s old \(stuck or still syncing\?\)$/) });
      // A head stamped after the run's clock (PAYREC_EMULATOR_NOW stops it; the emulator's chain runs on): said so, not as "-2 s old".
      expect(await stampedAt(-2)).toMatchObject({ status: 'ok', detail: expect.stringMatching(/; head 100, stamped 2 s after this run's clock$/) });
    } finally {
      await node.close();
    }
  });

  test('a node that cannot be reached: its row fails with exit 7, the rest still checked, its key never shown', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const rpc = `http://127.0.0.1:${port}/v3/n0deProviderKey77`;
    const r = await doctorProcess(home(), ['--emulator', '--rpc', rpc, '--retries', '0'], undefined);
    const why = `the chain's node (http://127.0.0.1:${port}/****) cannot be reached for eth_chainId`;
    expect(r.by('chain node')).toEqual({ check: 'chain node', status: 'fail', detail: expect.stringContaining(why) });
    expect(r.by('setting rpc')?.detail).toBe(`http://127.0.0.1:${port}/**** (flag)`);
    expect(r.by('key')?.status).toBe('ok');
    expect(r.by('completion bash')).toBeDefined();
    expect(r.stderr).toMatch(new RegExp(`^error: ${why.replace(/[.*()]/g, '\\$&')}`));
    expect(r.exitCode).toBe(7);
    expect(r.stdout + r.stderr).not.toContain('n0deProviderKey77');
  });
});

describe('completion', () => {
  test('the shell of SHELL alone; a shell payrec does not complete for: all three; a start-up line that sources it', async () => {
    const env = home();
    const [zsh, sh] = await Promise.all([doctor({ ...env, SHELL: '/usr/bin/zsh' }), doctor({ ...env, SHELL: '/bin/sh' })]);
    expect(zsh.rows.filter((x) => x.check.startsWith('completion')).map((x) => x.check)).toEqual(['completion zsh']);
    expect(sh.rows.filter((x) => x.check.startsWith('completion')).map((x) => x.check)).toEqual(['completion bash', 'completion zsh', 'completion fish']);
    writeFileSync(join(env.HOME, '.bashrc'), 'source <(payrec completion bash)\n');
    const bash = await doctor(env);
    expect(bash.by('completion bash')).toEqual({ check: 'completion bash', status: 'ok', detail: `sourced by ${join(env.HOME, '.bashrc')}` });
  });
});

describe('a run that ends before the report', () => {
  // doctor reports the problems it finds in rows; --dry-run's stop and Ctrl-C are not
  // problems of the set-up, and end the run as they end any command: no report.
  test('--dry-run: the request doctor would send, printed as curl, and no report, exit 0', async () => {
    const r = await payrec(emu, ['--dry-run', 'doctor'], { env: home() });
    expect(r.stdout).toBe(`curl -sS '${emu.url}/v1/bsc/fixed-recurring/short-urls?limit=1' -H "Authorization: Bearer $PAYREC_API_KEY"\n`);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
  });

  test('Ctrl-C while the service is asked: exit 130, "interrupted", no report', async () => {
    let arrived!: () => void;
    const asked = new Promise<void>((r) => (arrived = r));
    // A service that never answers: doctor waits on it until interrupted.
    const server = createServer(() => arrived());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const child = payrec(undefined, ['doctor'], { env: { ...home(), PAYREC_BASE_URL: url, PAYREC_API_KEY: 'prk_never_answered_1234' } });
      await asked;
      child.kill('SIGINT');
      const r = await child;
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('interrupted\n');
      expect(r.exitCode).toBe(130);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
