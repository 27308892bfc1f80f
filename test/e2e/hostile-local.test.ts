import { execa } from 'execa';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { BIN, emulator, EVENT_WAIT_MS, payrec, payrecInProcess, program, tempDir } from './helpers.js';

// What a server, a file on disk, another local process or a careless keystroke can
// send never ends as exit 1, never prints the key, never hangs (issue 18, items 2-5).
// A hostile server of this file's own answers per scenario: its base URL's first path
// segment names what it sends (`http://127.0.0.1:P/deep-array` → /deep-array/v1/bsc/…).
// What the server sends reaches payrec's process (its HTTP client, the built bundle); a
// config file's refusals, the environment's, and help run inside this worker
// (payrecInProcess: the same words and exit codes, no process boundary under test, issue 48).

/** The key of these tests: none of its characters' runs may appear in any output. */
const SECRET = 'Zq8XwT3vK9mN2pL7rB4y';
const KEY = `prk_live_${SECRET}`;

/** The key as payrec may show it (as `auth status` does): its last four characters. */
const MASKED = `****${KEY.slice(-4)}`;

/** True when any 4 consecutive characters of the key's secret part appear in `text` (besides its masked form). */
function showsKey(output: string): boolean {
  const text = output.replaceAll(MASKED, '');
  for (let i = 0; i + 4 <= SECRET.length; i++) if (text.includes(SECRET.slice(i, i + 4))) return true;
  return false;
}

const PLAN = '0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7';
const ESCAPES = 'Shop \x1b]0;PWNED\x07\x1b[2J\x9b31m\u202eexe.txt';

function transfer(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    description: i === 0 ? ESCAPES : `payment ${i}`,
    amount: '1.5',
    fee: '0',
    token: 'USDT',
    category: 'Shop',
    timestamp: 1767225600 - i,
    transactionHash: `0x${String(i).padStart(64, '0')}`,
    transactionStatus: 'confirmed',
    sender: `0x${'2'.repeat(40)}`,
    receiver: `0x${'3'.repeat(40)}`,
    oneTimeId: PLAN,
    ...extra,
  };
}

const page = (records: string[]) => `{"data":[${records.join(',')}],"limit":100,"offset":0,"total":${records.length}}`;
/** A record whose `deep` field holds `inner`, written as raw JSON text. */
const withRaw = (inner: string) => JSON.stringify(transfer(1)).slice(0, -1) + `,"deep":${inner}}`;

const manyKeys = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`odd_${i}`, i]));

/** Every hostile answer of issue 18, by scenario. */
const scenarios: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  'deep-array': (_q, res) => json(res, 200, page([withRaw('['.repeat(100_000) + ']'.repeat(100_000))])),
  'deep-object': (_q, res) => json(res, 200, page([withRaw('{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000))])),
  // Over the 32 MB a response may hold: one record with a 40 MB description.
  huge: (_q, res) => json(res, 200, page([JSON.stringify(transfer(1, { description: 'x'.repeat(40 * 1024 * 1024) }))])),
  proto: (_q, res) => json(res, 200, page([JSON.stringify(transfer(1)).slice(0, -1) + ',"__proto__":{"polluted":"yes"}}'])),
  'many-keys': (_q, res) => json(res, 200, page([JSON.stringify(transfer(1, manyKeys))])),
  // Newest first, or oldest first when asked (as a sync does).
  escapes: (req, res) => {
    const records = [0, 1, 2].map((i) => JSON.stringify(transfer(i)));
    json(res, 200, page(req.url!.includes('sort=asc') ? records.reverse() : records));
  },
  'echo-key': (req, res) => json(res, 401, JSON.stringify({ error: { code: 401, message: `bad key: Authorization: ${req.headers.authorization}` } })),
  'echo-key-html': (req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end(`<pre>${req.headers.authorization} ${'x'.repeat(400)}</pre>`),
  'not-json': (_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'),
  'cut-json': (_q, res) => json(res, 200, page([JSON.stringify(transfer(1))]).slice(0, 50)),
  empty: (_q, res) => res.writeHead(200).end(),
  'wrong-shape': (_q, res) => json(res, 200, '{"data":{"not":"a list"},"total":"x"}'),
  'null-records': (_q, res) => json(res, 200, '{"data":[null,1,"x",[]],"limit":100,"offset":0,"total":4}'),
  redirect: (_q, res) => res.writeHead(302, { location: 'http://evil.example/' }).end(),
  // Headers at once, then a body that never ends.
  endless: (_q, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"data":[');
  },
  unavailable: (_q, res) => json(res, 503, '{"error":{"code":503,"message":"down for maintenance"}}'),
  // Answers after 3 s: past a 1 s timeout.
  slow: (_q, res) => void setTimeout(() => json(res, 200, page([JSON.stringify(transfer(1))])), 3000),
};

function json(res: ServerResponse, status: number, body: string): void {
  if (!res.headersSent) res.writeHead(status, { 'content-type': 'application/json' }).end(body);
}

let server: Server;
let origin: string;
const hits: Record<string, number> = {};
let emu: Emulator;
let quiet: Emulator;

beforeAll(async () => {
  server = createServer((req, res) => {
    const scenario = req.url!.split('/')[1];
    hits[scenario] = (hits[scenario] ?? 0) + 1;
    const answer = scenarios[scenario];
    if (answer) answer(req, res);
    else json(res, 404, '{"error":{"code":404,"message":"no such scenario"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  [emu, quiet] = await Promise.all([emulator(), emulator({ records: 0 })]);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.all([emu.close(), quiet.close()]);
});

/** payrec against one scenario of the hostile server, with KEY. */
const against = (scenario: string, args: string[], env: Record<string, string> = {}) =>
  payrec(undefined, ['--retries', '0', ...args], { env: { PAYREC_BASE_URL: `${origin}/${scenario}`, PAYREC_API_KEY: KEY, PAYREC_CHAIN: 'bsc', ...env } });

const script = program('script', 'bsdutils');
const onPty = script.skip ? test.skip : test;

/** Runs payrec on a pseudo-terminal (util-linux `script`) sized 100×30; returns what the terminal showed. */
async function onTerminal(args: string[], env: Record<string, string>, timeout = EVENT_WAIT_MS) {
  const words = args.map((a) => `'${a}'`).join(' ');
  const r = await execa('script', ['-qec', `stty cols 100 rows 30; exec node ${BIN} ${words}`, '/dev/null'], {
    reject: false,
    stdin: 'ignore',
    timeout,
    extendEnv: false,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', TERM: 'xterm', PAYREC_CONFIG_DIR: tempDir(), ...env },
  });
  return { screen: r.stdout, exitCode: r.exitCode, timedOut: r.timedOut };
}

/** A config folder holding `text` as its config.json (0600 in a 0700 folder unless said). */
function configHolding(text: string): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'config.json'), text, { mode: 0o600 });
  return dir;
}

describe('local state', () => {
  // A key pasted without quotes: the file is not JSON, and the key is right where a parser's message would quote.
  const broken = `{"currentProfile":"default","profiles":{"default":{"chain":"bsc","apiKey":${KEY}}}}`;

  test.concurrent('a config that is not JSON: exit 2 naming the file, line and column, never its content', async () => {
    const dir = configHolding(broken);
    const r = await payrecInProcess(undefined, ['ot', 'transfers'], { env: { PAYREC_CONFIG_DIR: dir } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`error: the config file ${join(dir, 'config.json')} is not valid JSON (line 1, column 75: invalid symbol)`);
    expect(r.stderr).toContain('hint: fix it, or remove it with: payrec auth logout (then payrec auth login)');
    expect(showsKey(r.stdout + r.stderr)).toBe(false);
    expect(r.stderr).not.toContain('internal error');
  });

  test.concurrent('line and column count lines of a file written by hand', async () => {
    const dir = configHolding(`{\n  "profiles": {\n    "default": {\n      "apiKey": ${KEY}\n    }\n  }\n}\n`);
    const r = await payrecInProcess(undefined, ['ot', 'transfers'], { env: { PAYREC_CONFIG_DIR: dir } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('is not valid JSON (line 4, column 17');
    expect(showsKey(r.stderr)).toBe(false);
  });

  test.concurrent('config list, config profiles and --emulator still work; config set refuses to overwrite; auth logout removes the file', async () => {
    const dir = configHolding(broken);
    const env = { PAYREC_CONFIG_DIR: dir };
    const [list, profiles, emulated, set] = await Promise.all([
      payrecInProcess(undefined, ['config', 'list'], { env }),
      payrecInProcess(undefined, ['config', 'profiles'], { env }),
      payrec(undefined, ['--emulator', 'ot', 'transfers', '--limit', '2', '-f', 'jsonl'], { env }),
      payrecInProcess(undefined, ['config', 'set', 'chain', 'polygon'], { env }),
    ]);
    for (const r of [list, profiles, emulated]) {
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toMatch(/warning: the config file .* is not valid JSON \(line 1, column 75: invalid symbol\); it is left out of this run/);
    }
    expect(list.stdout).toMatch(/^api-key\t\(none\)/m);
    expect(emulated.stdout.trim().split('\n')).toHaveLength(2);
    expect(set.exitCode).toBe(2);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(broken);

    const logout = await payrecInProcess(undefined, ['auth', 'logout'], { env });
    expect(logout.exitCode).toBe(0);
    expect(logout.stderr).toMatch(/^Logged out: the config file .* is not valid JSON .*, so it was removed, with every profile it held/);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    for (const r of [list, profiles, emulated, set, logout]) expect(showsKey(r.stdout + r.stderr)).toBe(false);
  });

  test.concurrent('a config that is a link to another file: exit 2, the file it points to is not quoted, and logout removes only the link', async () => {
    const dir = tempDir();
    const other = join(tempDir(), 'passwd');
    writeFileSync(other, `root:x:0:0:root:/root:/bin/bash ${KEY}\n`);
    symlinkSync(other, join(dir, 'config.json'));
    const r = await payrecInProcess(undefined, ['ot', 'transfers'], { env: { PAYREC_CONFIG_DIR: dir } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`the config file ${join(dir, 'config.json')} (a link to ${other}) is not valid JSON (line 1, column 1`);
    expect(r.stderr).not.toContain('root:x');
    expect(showsKey(r.stderr)).toBe(false);
    const logout = await payrecInProcess(undefined, ['auth', 'logout'], { env: { PAYREC_CONFIG_DIR: dir } });
    expect(logout.exitCode).toBe(0);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    expect(readFileSync(other, 'utf8')).toContain('root:x');
  });

  test.concurrent('a link to JSON that is not a payrec config, and a link to a device: exit 2 without reading them out', async () => {
    const dir = tempDir();
    const pkg = join(tempDir(), 'package.json');
    writeFileSync(pkg, JSON.stringify({ name: 'app', token: KEY }));
    symlinkSync(pkg, join(dir, 'config.json'));
    const r = await payrecInProcess(undefined, ['ot', 'transfers'], { env: { PAYREC_CONFIG_DIR: dir } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('is not a payrec config');
    expect(showsKey(r.stderr)).toBe(false);

    const devDir = tempDir();
    symlinkSync('/dev/zero', join(devDir, 'config.json'));
    const z = await payrecInProcess(undefined, ['ot', 'transfers'], { env: { PAYREC_CONFIG_DIR: devDir } });
    expect(z.exitCode).toBe(2);
    expect(z.stderr).toContain('(a link to /dev/zero) is not a regular file');
  });

  test.concurrent('a config others can change: its key is not used, the fix is printed; logout still removes the key', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o777);
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ profiles: { default: { chain: 'bsc', baseUrl: quiet.url, apiKey: KEY } } }));
    chmodSync(file, 0o666);
    quiet.clearLog();
    const r = await payrecInProcess(undefined, ['ot', 'transfers'], { env: { PAYREC_CONFIG_DIR: dir } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`error: the config file ${file} and its folder can be changed by other users: payrec does not use the key it holds`);
    expect(r.stderr).toContain(`hint: fix it with: chmod 600 ${file}; chmod go-w ${dir}`);
    expect(showsKey(r.stdout + r.stderr)).toBe(false);
    expect(quiet.requests).toHaveLength(0);

    chmodSync(file, 0o600);
    const folderOnly = await payrecInProcess(undefined, ['auth', 'status'], { env: { PAYREC_CONFIG_DIR: dir } });
    expect(folderOnly.exitCode).toBe(2);
    expect(folderOnly.stderr).toContain(`hint: fix it with: chmod go-w ${dir}`);
    expect(quiet.requests).toHaveLength(0);

    const logout = await payrecInProcess(undefined, ['auth', 'logout'], { env: { PAYREC_CONFIG_DIR: dir } });
    expect(logout.exitCode).toBe(0);
    expect(readFileSync(file, 'utf8')).not.toContain(SECRET);
    expect(logout.stderr).toContain(`chmod go-w ${dir}`);

    chmodSync(dir, 0o700);
    const fixed = await payrecInProcess(undefined, ['config', 'list'], { env: { PAYREC_CONFIG_DIR: dir } });
    expect(fixed.exitCode).toBe(0);
    expect(fixed.stderr).toBe('');
  });

  test.concurrent('a link to a payrec config (a dotfiles manager\'s) is used, and stays a link when payrec writes', async () => {
    const dir = tempDir();
    const real = join(tempDir(), 'payrec.json');
    writeFileSync(real, JSON.stringify({ profiles: { default: { chain: 'bsc' } } }), { mode: 0o600 });
    symlinkSync(real, join(dir, 'config.json'));
    const r = await payrecInProcess(undefined, ['config', 'set', 'chain', 'polygon'], { env: { PAYREC_CONFIG_DIR: dir } });
    expect(r.exitCode).toBe(0);
    expect(lstatSync(join(dir, 'config.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, 'utf8')).profiles.default.chain).toBe('polygon');
  });

  test.concurrent('payrec creates its config folder for its owner only', async () => {
    const dir = join(tempDir(), 'new', 'payrec');
    const r = await payrec(emu, ['auth', 'login'], { input: emu.keyFor('bsc'), env: { PAYREC_CONFIG_DIR: dir, PAYREC_API_KEY: undefined } });
    expect(r.exitCode).toBe(0);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  test.concurrent('a key echoed by a server is masked in the error, its hint, and --debug', async () => {
    for (const scenario of ['echo-key', 'echo-key-html']) {
      const r = await against(scenario, ['--debug', 'ot', 'transfers']);
      expect([3, 6]).toContain(r.exitCode);
      expect(r.stderr).toContain(`Bearer ${MASKED}`);
      expect(showsKey(r.stderr)).toBe(false);
    }
  });

  test.concurrent('auth status with a key echoed back: masked', async () => {
    const r = await against('echo-key', ['auth', 'status']);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toContain(MASKED);
    expect(showsKey(r.stdout + r.stderr)).toBe(false);
  });
});

describe('output stays in its lane', () => {
  const RAW = /\x1b\]0;PWNED|\x1b\[2J|\x9b31m|\u202e/;

  onPty(`CSV on a terminal is made inert like the table${script.note}`, async () => {
    const { screen, exitCode } = await onTerminal(['ot', 'transfers', '-f', 'csv', '--retries', '0'], { PAYREC_BASE_URL: `${origin}/escapes`, PAYREC_API_KEY: KEY, NO_COLOR: '1' });
    expect(exitCode).toBe(0);
    expect(screen).not.toMatch(RAW);
    expect(screen).toContain('Shop \\x1b]0;PWNED\\x07\\x1b[2J\\x9b31m\\u202eexe.txt');
  });

  onPty(`CSV of payrec sql on a terminal too${script.note}`, async () => {
    const db = join(tempDir(), 'm.duckdb');
    expect((await against('escapes', ['sync', 'ot/transfers', '--db', db])).exitCode).toBe(0);
    const sql = ['sql', '--db', db, 'SELECT description FROM one_time_transfers ORDER BY timestamp DESC', '-f', 'csv'];
    const { screen, exitCode } = await onTerminal(sql, { NO_COLOR: '1' });
    expect(exitCode).toBe(0);
    expect(screen).not.toMatch(RAW);
    expect(screen).toContain('Shop \\x1b]0;PWNED\\x07');
    const piped = await payrec(undefined, sql);
    expect(piped.stdout).toContain(ESCAPES);
  });

  test.concurrent('CSV into a pipe keeps the exact bytes', async () => {
    const r = await against('escapes', ['ot', 'transfers', '-f', 'csv']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(ESCAPES);
  });

  test.concurrent('-o onto a named pipe writes into it: its reader gets the data and the pipe stays a pipe', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'pipe');
    await execa('mkfifo', [fifo]);
    const reader = execa('cat', [fifo]);
    const r = await payrec(emu, ['ot', 'transfers', '--limit', '5', '-f', 'jsonl', '-o', fifo]);
    const read = await reader;
    expect(r.exitCode).toBe(0);
    expect(read.stdout.split('\n')).toHaveLength(5);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  test.concurrent('-o onto a link to a named pipe writes into the pipe; the link stays a link', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'pipe');
    const link = join(dir, 'out.csv');
    await execa('mkfifo', [fifo]);
    symlinkSync(fifo, link);
    const reader = execa('cat', [fifo]);
    const r = await payrec(emu, ['ot', 'transfers', '--limit', '5', '-f', 'csv', '-o', link]);
    const read = await reader;
    expect(r.exitCode).toBe(0);
    expect(read.stdout.trim().split('\r\n')).toHaveLength(6);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  test.concurrent('-o onto a link to a regular file replaces the file atomically and keeps the link', async () => {
    const dir = tempDir();
    const real = join(dir, 'real.csv');
    const link = join(dir, 'link.csv');
    writeFileSync(real, 'old\n');
    symlinkSync(real, link);
    const r = await payrec(emu, ['ot', 'transfers', '--limit', '5', '-f', 'csv', '-o', link]);
    expect(r.exitCode).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8').trim().split('\r\n')).toHaveLength(6);
  });

  test.concurrent('-o onto a folder: exit 2 before any request', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'exports'));
    quiet.clearLog();
    const r = await payrec(quiet, ['ot', 'transfers', '-o', join(dir, 'exports')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`error: --output "${join(dir, 'exports')}" is a folder`);
    expect(quiet.requests).toHaveLength(0);
  });

  test.concurrent('an unknown field named __proto__ is printed, and kept in the mirror\'s extra_fields', async () => {
    const list = await against('proto', ['ot', 'transfers', '-f', 'jsonl']);
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toContain('"__proto__":{"polluted":"yes"}');
    const db = join(tempDir(), 'm.duckdb');
    const sync = await against('proto', ['sync', 'ot/transfers', '--db', db]);
    expect(sync.exitCode).toBe(0);
    const sql = await payrec(undefined, ['sql', '--db', db, 'SELECT extra_fields FROM one_time_transfers', '-f', 'jsonl']);
    expect(sql.exitCode).toBe(0);
    expect(sql.stdout).toContain('"__proto__":{"polluted":"yes"}');
  });

  test.concurrent('a schema-drift warning about 10,000 unknown fields names ten and counts the rest', async () => {
    const r = await against('many-keys', ['sync', 'ot/transfers', '--db', join(tempDir(), 'm.duckdb')]);
    expect(r.exitCode).toBe(0);
    const warning = r.stderr.split('\n').find((l) => l.includes('fields the documented schema does not have'))!;
    expect(warning).toContain('… and 9,990 more');
    expect(warning.length).toBeLessThan(400);
  });
});

describe('exit 1 only for bugs', () => {
  test.concurrent.each([
    ['a 100,000-deep array', 'deep-array', /nested more than 512 levels deep/],
    ['a 10,000-deep object', 'deep-object', /nested more than 512 levels deep/],
    ['a record over 32 MB', 'huge', /larger than 32 MB/],
  ])('%s: exit 6 with a message, in lists of every format and in sync', async (_name, scenario, message) => {
    const runs = await Promise.all([
      ...['json', 'jsonl', 'csv', 'table'].map((f) => against(scenario, ['ot', 'transfers', '-f', f])),
      against(scenario, ['sync', 'ot/transfers', '--db', join(tempDir(), 'm.duckdb')]),
    ]);
    for (const r of runs) {
      expect(r.exitCode).toBe(6);
      expect(r.stderr).toMatch(message);
    }
  });

  onPty(`on a terminal, a first request that fails at once ends --all and sync promptly${script.note}`, async () => {
    const env = { PAYREC_BASE_URL: 'http://127.0.0.1:1', PAYREC_API_KEY: KEY };
    const [all, sync] = await Promise.all([
      onTerminal(['ot', 'transfers', '--all', '--retries', '0'], env),
      onTerminal(['sync', 'ot/transfers', '--db', join(tempDir(), 'm.duckdb'), '--retries', '0'], env),
    ]);
    for (const r of [all, sync]) {
      expect(r.timedOut).toBe(false);
      expect(r.exitCode).toBe(7);
      expect(r.screen).toContain('connection refused');
    }
  });

  test.concurrent('a taken port: exit 2 "port N is in use; choose another --port" (emulator start, webhook listen)', async () => {
    const taken = createNetServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const [start, listen] = await Promise.all([
        payrec(undefined, ['emulator', 'start', '--port', String(port)]),
        payrec(emu, ['webhook-notifications', 'listen', '--port', String(port)]),
      ]);
      for (const r of [start, listen]) {
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toContain(`error: port ${port} is in use; choose another --port`);
      }
    } finally {
      taken.close();
    }
  });

  test.concurrent('deep JSON a user gives (api --body, a notification file): exit 2 before any request', async () => {
    const file = join(tempDir(), 'notification.json');
    writeFileSync(file, `{"id":"${'ab'.repeat(32)}","data":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    quiet.clearLog();
    const [body, verify] = await Promise.all([
      payrec(quiet, ['api', '/one-time/transfers', '--method', 'POST', '--body', '['.repeat(10_000) + ']'.repeat(10_000)]),
      payrec(quiet, ['webhook-notifications', 'verify', file]),
    ]);
    expect(body.exitCode).toBe(2);
    expect(body.stderr).toContain('invalid --body: nested more than 512 levels deep');
    expect(verify.exitCode).toBe(2);
    expect(verify.stderr).toContain('is nested more than 512 levels deep');
    expect(quiet.requests).toHaveLength(0);
  });

  // One test a scenario (five payrec processes each): a failure names it, and each has a timeout of its own.
  // Scenarios run at once (the describe's other tests too): most of a scenario's time is waiting on a
  // 1 s timeout or a server that answers late, not CPU (issue 48, the suite's time).
  test.concurrent.each(Object.keys(scenarios))('every hostile answer of the issue: %s: never exit 1, never an internal error, never the key', async (scenario) => {
    const commands = (db: string) => [
      ['ot', 'transfers', '-f', 'json'],
      ['ot', 'transfers', '-f', 'csv', '--columns', 'description,amount'],
      ['ot', 'transfers', '--all', '--summary'],
      ['api', '/one-time/transfers'],
      ['sync', 'ot/transfers', '--db', db],
    ];
    const failures: string[] = [];
    const runs = await Promise.all(commands(join(tempDir(), 'm.duckdb')).map((args) => against(scenario, ['--timeout', '1', ...args]).then((r) => ({ args, r }))));
    for (const { args, r } of runs) {
      const out = r.stdout.length > 100_000 ? '' : r.stdout;
      if (r.exitCode === 1 || /internal error/.test(r.stderr) || showsKey(r.stderr + out)) {
        failures.push(`${scenario}: payrec ${args.join(' ')} → ${r.exitCode}: ${r.stderr.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('conventions', () => {
  test.concurrent('PAYREC_TIMEOUT sets the per-request timeout; a bad one is named', async () => {
    const [timed, bad] = await Promise.all([
      against('slow', ['ot', 'transfers'], { PAYREC_TIMEOUT: '1' }),
      against('slow', ['ot', 'transfers'], { PAYREC_TIMEOUT: 'soon' }),
    ]);
    expect(timed.exitCode).toBe(7);
    expect(timed.stderr).toContain('timed out after 1 s');
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('invalid PAYREC_TIMEOUT "soon"');
  });

  test('PAYREC_RETRIES sets the retries of a failed safe request; --retries wins; a bad one is named', async () => {
    const run = (env: Record<string, string>, args: string[] = []) =>
      payrec(undefined, [...args, 'ot', 'transfers'], { env: { PAYREC_BASE_URL: `${origin}/unavailable`, PAYREC_API_KEY: KEY, PAYREC_CHAIN: 'bsc', ...env } });
    const before = hits.unavailable ?? 0;
    const two = await run({ PAYREC_RETRIES: '2' });
    expect(two.exitCode).toBe(6);
    expect(hits.unavailable - before).toBe(3);
    const flag = await run({ PAYREC_RETRIES: '2' }, ['--retries', '0']);
    expect(flag.exitCode).toBe(6);
    expect(hits.unavailable - before).toBe(4);
    const bad = await run({ PAYREC_RETRIES: 'many' });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('invalid PAYREC_RETRIES "many"');
    expect(hits.unavailable - before).toBe(4);
  });

  test.concurrent('auth status and auth login honour --timeout and --retries', async () => {
    const status = await against('slow', ['auth', 'status', '--timeout', '1']);
    expect(status.exitCode).toBe(7);
    expect(status.stderr).toContain('timed out after 1 s');
    const login = await payrec(undefined, ['auth', 'login', '--timeout', '1', '--retries', '0'], {
      input: KEY,
      env: { PAYREC_BASE_URL: `${origin}/slow`, PAYREC_CHAIN: 'bsc' },
    });
    expect(login.exitCode).toBe(7);
    expect(login.stderr).toContain('timed out after 1 s');
  });

  test.concurrent('environment variables are named in their errors', async () => {
    const runs = await Promise.all([
      payrecInProcess(quiet, ['ot', 'transfers'], { env: { PAYREC_FORMAT: 'yaml' } }),
      payrecInProcess(quiet, ['ot', 'transfers'], { env: { PAYREC_CHAIN: 'BSC' } }),
      payrecInProcess(quiet, ['ot', 'transfers'], { env: { PAYREC_BASE_URL: 'ftp://x' } }),
      payrecInProcess(quiet, ['ot', 'transfers'], { env: { PAYREC_PROFILE: 'a b' } }),
    ]);
    expect(runs.map((r) => r.exitCode)).toEqual([2, 2, 2, 2]);
    expect(runs[0].stderr).toContain('invalid PAYREC_FORMAT "yaml"');
    expect(runs[1].stderr).toContain('invalid PAYREC_CHAIN "BSC"');
    expect(runs[2].stderr).toContain('invalid PAYREC_BASE_URL "ftp://x"');
    expect(runs[3].stderr).toContain('invalid PAYREC_PROFILE "a b"');
  });

  onPty(`NO_COLOR counts only when not empty; TERM=dumb gets no colour and no box drawing${script.note}`, async () => {
    const base = { PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc') };
    const args = ['ot', 'transfers', '--limit', '3', '--columns', 'amount,transactionStatus'];
    const [emptyNoColor, noColor, dumb] = await Promise.all([
      onTerminal(args, { ...base, NO_COLOR: '' }),
      onTerminal(args, { ...base, NO_COLOR: '1' }),
      onTerminal(args, { ...base, TERM: 'dumb' }),
    ]);
    expect(emptyNoColor.screen).toMatch(/\x1b\[3\dm/);
    expect(emptyNoColor.screen).toMatch(/[─│┌└]/);
    expect(noColor.screen).not.toMatch(/\x1b\[3\dm/);
    expect(dumb.screen).not.toMatch(/\x1b\[3\dm/);
    expect(dumb.screen).not.toMatch(/[─│┌└]/);
    expect(dumb.screen).toMatch(/^amount\ttransactionStatus/m);
  });

  test.concurrent('a group without its subcommand prints its help on stderr and exits 2', async () => {
    const [root, ot, help] = await Promise.all([payrecInProcess(undefined, []), payrecInProcess(undefined, ['ot']), payrecInProcess(undefined, ['help'])]);
    expect([root.exitCode, ot.exitCode]).toEqual([2, 2]);
    expect([root.stdout, ot.stdout]).toEqual(['', '']);
    expect(root.stderr).toContain('Usage: payrec [options] [command]');
    expect(ot.stderr).toContain('Usage: payrec one-time|ot [options] [command]');
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('Usage: payrec [options] [command]');
  });

  test.concurrent('groups have real descriptions, derived from their subcommands', async () => {
    const runs = await Promise.all([['ot'], ['w2w'], ['fr'], ['od'], ['fr', 'short-urls']].map((g) => payrecInProcess(undefined, [...g, '--help'])));
    const [ot, , fr] = runs.map((r) => r.stdout.replace(/\s+/g, ' '));
    expect(runs.map((r) => r.stdout).join('\n')).not.toMatch(/\b[\w-]+ commands\b/);
    expect(ot).toContain('payments One-time payments: list, get');
    expect(fr).toContain('short-urls Fixed-recurring short urls: list, get, delete, create, update');
    expect(fr).toContain('webhook Fixed-recurring webhook: get, delete, set');
  });

  test.concurrent('an option given to a group hints at its list subcommand', async () => {
    const r = await payrecInProcess(quiet, ['ot', 'payments', '--limit', '1']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("error: unknown option '--limit'");
    expect(r.stderr).toContain('hint: payrec one-time payments takes a subcommand; did you mean payrec one-time payments list?');
  });

  test.concurrent('payrec help A B is payrec A B --help', async () => {
    const [viaHelp, viaFlag, typo] = await Promise.all([
      payrecInProcess(undefined, ['help', 'fr', 'billings']),
      payrecInProcess(undefined, ['fr', 'billings', '--help']),
      payrecInProcess(undefined, ['help', 'fr', 'bilings']),
    ]);
    expect(viaHelp.exitCode).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toContain('Usage: payrec fixed-recurring billings');
    expect(typo.exitCode).toBe(2);
  });
});
