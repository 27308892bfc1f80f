import { spawn } from 'node:child_process';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { BIN, emulator, payrec, tempDir } from './helpers.js';
import { listOf } from './mirror-helpers.js';

// stdin from any pipe (issue 29, item 5): Node's spawn and execa give a child a socket,
// not a FIFO. payrec sql, auth login and webhook-notifications verify read their input
// from one as from a shell pipe; a socket a runner leaves open with nothing in it is not
// waited on for ever. The sockets here are real: execa's, and a connected pair of Unix
// sockets whose other end this test writes and closes.

let emu: Emulator;
let db: string;
beforeAll(async () => {
  emu = await emulator();
  db = join(tempDir(), 'mirror.duckdb');
  expect((await payrec(emu, ['sync', 'ot/transfers', '--db', db, '-q'])).exitCode).toBe(0);
});
afterAll(() => emu.close());

/** A connected pair of Unix sockets: `theirs` becomes the child's stdin, this test writes to `ours`. */
async function socketPair(): Promise<{ theirs: Socket; ours: Socket }> {
  const server = createServer();
  const path = join(tempDir(), 'stdin.sock');
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const theirs = connect(path);
  await new Promise((resolve) => theirs.once('connect', resolve));
  const ours = await accepted;
  server.close();
  return { theirs, ours };
}

/** Runs payrec with a socket for stdin; the other end sends `input` and closes, or (undefined) stays open and silent. */
async function onSocket(args: string[], input: string | undefined, env: Record<string, string> = {}): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  const { theirs, ours } = await socketPair();
  const child = spawn('node', [BIN, ...args], {
    stdio: [theirs, 'pipe', 'pipe'],
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, NO_COLOR: '1', PAYREC_CONFIG_DIR: tempDir(), PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc'), ...env },
  });
  // The child holds its own copy of the socket now.
  theirs.destroy();
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  if (input !== undefined) ours.end(input);
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
  ours.destroy();
  return { exitCode, stdout, stderr };
}

const COUNT = 'SELECT count(*) AS n FROM one_time_transfers';

describe('payrec sql reads its query from a socket on stdin', () => {
  test('execa input with no argument, and a socket pair with and without -', async () => {
    const n = (await listOf(emu, '/one-time/transfers')).length;
    const viaExeca = await payrec(undefined, ['sql', '--db', db, '-f', 'jsonl'], { input: `${COUNT}\n` });
    expect([viaExeca.exitCode, viaExeca.stderr, viaExeca.stdout]).toEqual([0, '', `{"n":${n}}\n`]);
    for (const args of [['sql', '--db', db, '-f', 'jsonl'], ['sql', '-', '--db', db, '-f', 'jsonl']]) {
      const r = await onSocket(args, COUNT);
      expect([r.exitCode, r.stderr, r.stdout]).toEqual([0, '', `{"n":${n}}\n`]);
    }
  });

  test('a socket left open and silent is not waited on: no query lists the tables, and payrec ends', async () => {
    const r = await onSocket(['sql', '--db', db, '-f', 'jsonl'], undefined);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/"table":"one_time_transfers"/);
  });
});

describe('auth login and wn verify read a socket as a pipe', () => {
  test('auth login stores the key it reads from a socket pair', async () => {
    const config = tempDir();
    const key = emu.keyFor('polygon');
    const r = await onSocket(['auth', 'login', '--chain', 'polygon', '--base-url', emu.url], `${key}\n`, { PAYREC_CONFIG_DIR: config, PAYREC_API_KEY: '', PAYREC_BASE_URL: '' });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(`key ****${key.slice(-4)}`);
    const status = await payrec(undefined, ['auth', 'status', '-f', 'json'], { env: { PAYREC_CONFIG_DIR: config } });
    expect(JSON.parse(status.stdout)).toMatchObject({ chain: 'polygon', works: true, keySource: 'profile' });
  });

  test('wn verify with no file reads the notification from a socket pair', async () => {
    const triggered = await payrec(emu, ['emulator', 'trigger', 'BillingFailed', '--plan-id', emu.fixtures('bsc').plans['fixed-recurring'][0]]);
    expect(triggered.exitCode).toBe(0);
    const { notification } = JSON.parse(triggered.stdout) as { notification: { id: string } };
    const r = await onSocket(['wn', 'verify'], JSON.stringify(notification));
    expect([r.exitCode, r.stdout]).toEqual([0, `authentic\nid\t${notification.id}\nintegrity\tmatches\n`]);
  });
});
