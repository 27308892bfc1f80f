import { execa } from 'execa';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import type { Context } from '../../src/core/runtime/context.js';
import type { Emulator, Fixtures } from '../../src/emulator/index.js';
import { BIN, emulator, parseCsv, payrec, program, tempDir } from './helpers.js';

// The API key never shows: every command runs with a distinctive key under --debug
// and under --dry-run, and nothing it prints or writes holds the key. Then the
// other guards: no key over plain http or through a redirect, no terminal escapes
// from server data, no live spreadsheet formulas, a listener that is careful.

let emu: Emulator;
let fx: Fixtures;
let KEY: string;
const SECRET = 's3cr3tuser';

beforeAll(async () => {
  emu = await emulator();
  fx = emu.fixtures('bsc');
  KEY = emu.keyFor('bsc', SECRET);
});
afterAll(() => emu.close());

/** Every command of the built program that runs (a leaf, or a group with an action of its own: fr plans), as its words ("fixed-recurring short-urls get"). */
async function leafCommands(): Promise<string[]> {
  const ctx = { stdout: process.stdout, stderr: process.stderr, env: {}, signal: new AbortController().signal } as unknown as Context;
  const program: Command = await buildProgram(ctx);
  const leaves: string[] = [];
  const walk = (c: Command, words: string[]) => {
    const runs = (c as unknown as { _actionHandler: unknown })._actionHandler !== null;
    if (c.commands.length === 0 || (words.length > 0 && runs)) leaves.push(words.join(' '));
    for (const sub of c.commands) walk(sub, [...words, sub.name()]);
  };
  walk(program, []);
  return leaves;
}

interface Invocation {
  /** Arguments after the command's words. */
  args: (fx: Fixtures) => string[];
  /** Sends an API request (so --dry-run prints a curl command). */
  sends?: boolean;
  input?: string;
  /** Runs until interrupted: stopped once this appears on stderr/stdout. */
  until?: RegExp;
}

const plan = (f: Fixtures) => f.plans['fixed-recurring'][0];
const sub = (f: Fixtures) => f.subscriptions['fixed-recurring'][0];
const vrSub = (f: Fixtures) => f.subscriptions['variable-recurring'][0];

/** How to run each leaf command. A new command must be added here: the first test checks. */
const INVOCATIONS: Record<string, Invocation> = {
  'fixed-recurring short-urls list': { args: () => ['--limit', '2'], sends: true },
  'fixed-recurring short-urls get': { args: (f) => [f.shortUrls['fixed-recurring'][0]], sends: true },
  'fixed-recurring short-urls delete': { args: () => ['nosuchcode', '--yes'], sends: true },
  'fixed-recurring short-urls create': { args: (f) => ['--name', 'Banner', '--plan-id', plan(f), '--success-url', 'https://shop.example/ok', '--extra', 'k=v'], sends: true },
  'fixed-recurring short-urls update': { args: () => ['nosuchcode', '--name', 'Renamed'], sends: true },
  'fixed-recurring billings': { args: (f) => ['--plan-id', plan(f), '--limit', '2'], sends: true },
  'fixed-recurring cancellations': { args: (f) => ['--plan-id', plan(f), '--limit', '2'], sends: true },
  'fixed-recurring cancellation': { args: (f) => [sub(f)], sends: true },
  'fixed-recurring webhook get': { args: (f) => ['--plan-id', plan(f)], sends: true },
  'fixed-recurring webhook delete': { args: (f) => ['--plan-id', plan(f), '--yes'], sends: true },
  'fixed-recurring webhook set': { args: (f) => ['--plan-id', plan(f), 'https://shop.example/hook'], sends: true },
  'variable-recurring cancellations': { args: (f) => ['--plan-id', f.plans['variable-recurring'][0], '--limit', '2'], sends: true },
  'variable-recurring cancellation': { args: (f) => [vrSub(f)], sends: true },
  'variable-recurring cancellation-requests': { args: (f) => ['--plan-id', f.plans['variable-recurring'][0], '--limit', '2'], sends: true },
  'variable-recurring cancellation-request': { args: (f) => [vrSub(f)], sends: true },
  'variable-recurring transfers': { args: () => ['--limit', '2'], sends: true },
  'on-demand short-urls list': { args: () => ['--limit', '2'], sends: true },
  'on-demand short-urls get': { args: (f) => [f.shortUrls['on-demand'][0]], sends: true },
  'on-demand short-urls delete': { args: () => ['nosuchcode', '--yes'], sends: true },
  'on-demand short-urls create': { args: (f) => ['--name', 'Banner', '--plan-id', f.plans['on-demand'][0]], sends: true },
  'on-demand short-urls update': { args: () => ['nosuchcode', '--name', 'Renamed'], sends: true },
  'on-demand transfers': { args: () => ['--limit', '2'], sends: true },
  'one-time payments list': { args: () => ['--limit', '2'], sends: true },
  'one-time payments get': { args: (f) => [f.oneTimePayments[0]], sends: true },
  'one-time transfers': { args: () => ['--all', '--page-size', '100', '-f', 'csv', '-o', 'out.csv'], sends: true },
  transfers: { args: () => ['--limit', '5', '-f', 'jsonl'], sends: true },
  'wallet-to-wallet payments list': { args: () => ['--limit', '2', '--summary'], sends: true },
  'wallet-to-wallet payments get': { args: (f) => [f.walletToWalletPayments[0]], sends: true },
  'wallet-to-wallet transfers': { args: () => ['--limit', '2', '--chart', 'month'], sends: true },
  'scheduled-payments transfers': { args: () => ['--limit', '2'], sends: true },
  'dollar-cost-average executions': { args: () => ['--limit', '2', '-f', 'json'], sends: true },
  'webhook-notifications get': { args: (f) => [f.notifications[0]], sends: true },
  'webhook-notifications verify': { args: () => ['notification.json'], sends: true },
  'webhook-notifications listen': { args: () => ['--port', '0'], until: /Listening on/ },
  'emulator start': { args: () => ['--port', '0'], until: /listening on/ },
  'emulator trigger': { args: (f) => ['Billing', '--plan-id', plan(f)] },
  'auth login': { args: () => [], input: 'KEY\n' },
  'auth status': { args: () => [] },
  'auth logout': { args: () => [] },
  'config list': { args: () => [] },
  'config get': { args: () => ['chain'] },
  'config set': { args: () => ['chain', 'bsc'] },
  'config profiles': { args: () => [] },
  'config use': { args: () => ['default'] },
  api: { args: () => ['one-time/transfers', '--query', 'limit=2'], sends: true },
  // The mirror file is among the files checked: it must not hold the key either.
  sync: { args: () => ['ot/transfers', '--db', 'mirror.duckdb'], sends: true },
  sql: { args: () => ['--db', 'mirror.duckdb'] },
  // No node is set: it says so (exit 2) without the key.
  verify: { args: () => ['--db', 'mirror.duckdb'] },
  // Acknowledging writes who acked into the mirror: the key must not be taken for a name.
  'verify ack': { args: () => [`0x${'ab'.repeat(32)}`, '--reason', 'reviewed by hand', '--db', 'mirror.duckdb'] },
  'verify acks': { args: () => ['--db', 'mirror.duckdb'] },
  // A team's mirror: the DDL is printed with no server; grant-reader meets none (the URL is a secret too).
  'db init': { args: () => ['--print-sql', '--db', 'postgres://payrec@127.0.0.1:1/team'] },
  'db grant-reader': { args: () => ['bi', '--db', 'postgres://payrec@127.0.0.1:1/team'] },
  // No node is set: it says so without the key; a rates file that is not there is exit 2.
  'rates feeds': { args: () => [] },
  'rates check': { args: () => ['rates.csv'] },
  // The mirror's rates: no mirror here (exit 2 naming it), a rates file that is not there (exit 2).
  rates: { args: () => ['--db', 'mirror.duckdb'] },
  'rates sync': { args: () => ['--db', 'mirror.duckdb'] },
  'rates import': { args: () => ['rates.csv', '--db', 'mirror.duckdb'] },
  // The close reads the mirror (none here: exit 2 naming it) and writes nothing but its file.
  close: { args: () => ['2025-12', '-o', 'close.xlsx', '--db', 'mirror.duckdb'] },
  subscriptions: { args: (f) => ['--sync', '--plan-id', plan(f), '--db', 'mirror.duckdb'], sends: true },
  metrics: { args: (f) => ['--sync', '--plan-id', plan(f), '--db', 'mirror.duckdb', '--period', '2025'], sends: true },
  'fixed-recurring plans': { args: () => ['--db', 'mirror.duckdb'] },
  // Plan ids go into the config file beside the key: the key must stay where it is, once.
  'fixed-recurring plans add': { args: (f) => [plan(f)] },
  'fixed-recurring plans remove': { args: (f) => [plan(f)] },
  doctor: { args: () => [], sends: true },
  completion: { args: () => ['bash'] },
  reference: { args: () => [] },
};

/** Runs one invocation in a fresh directory; returns everything it printed and wrote. */
async function runLeaf(words: string, mode: '--debug' | '--dry-run'): Promise<{ text: string; stdout: string; configFiles: string[] }> {
  const inv = INVOCATIONS[words];
  const cwd = tempDir();
  const configDir = tempDir();
  const notification = await (await fetch(`${emu.url}/v1/bsc/webhook-notifications/${fx.notifications[0]}`, { headers: { authorization: `Bearer ${emu.keyFor('bsc')}` } })).text();
  writeFileSync(join(cwd, 'notification.json'), notification);
  const args = [mode, ...words.split(' '), ...inv.args(fx)];
  const env = { PAYREC_API_KEY: KEY, PAYREC_CONFIG_DIR: configDir };
  let stdout: string;
  let stderr: string;
  if (inv.until) {
    const child = payrec(emu, args, { env, cwd });
    let seen = '';
    const deadline = Date.now() + 10_000;
    child.stderr!.on('data', (d: Buffer) => (seen += d));
    child.stdout!.on('data', (d: Buffer) => (seen += d));
    while (!inv.until.test(seen) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(seen).toMatch(inv.until);
    child.kill('SIGINT');
    const r = await child;
    ({ stdout, stderr } = r);
  } else {
    const r = await payrec(emu, args, { env, cwd, input: inv.input?.replace('KEY', KEY) ?? '' });
    ({ stdout, stderr } = r);
    expect(r.exitCode, `${args.join(' ')}\n${stderr}`).not.toBe(1); // never an internal error
  }
  const files = readdirSync(cwd).map((f) => readFileSync(join(cwd, f), 'utf8'));
  // The config file may hold the key (auth login stores it there, 0600); nothing else may.
  const configFiles = readdirSync(configDir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
  return { text: [stdout, stderr, ...files].join('\n'), stdout, configFiles };
}

/** util-linux `script`, for a pseudo-terminal: under CI its tests fail when it is missing, never skip (it was looked for only at /usr/bin/script). */
const script = program('script', 'bsdutils');

describe('the API key never appears', () => {
  test('every leaf command of the program has an invocation here', async () => {
    const leaves = await leafCommands();
    expect(leaves.length).toBeGreaterThan(40);
    expect(leaves.filter((l) => !(l in INVOCATIONS))).toEqual([]);
    expect(Object.keys(INVOCATIONS).filter((k) => !leaves.includes(k))).toEqual([]);
  });

  describe.each(['--debug', '--dry-run'] as const)('with %s', (mode) => {
    test.concurrent.each(Object.keys(INVOCATIONS))('%s', async (words) => {
      const { text, stdout, configFiles } = await runLeaf(words, mode);
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(SECRET);
      for (const file of configFiles) {
        expect(statSync(file).mode & 0o777).toBe(0o600);
      }
      if (mode === '--dry-run' && INVOCATIONS[words].sends) {
        expect(stdout).toMatch(/^curl -sS .*'https?:\/\/[^']+\/v1\/bsc\/[^']*' -H "Authorization: Bearer \$PAYREC_API_KEY"/m);
      }
      if (mode === '--debug' && INVOCATIONS[words].sends) {
        expect(text).toMatch(/^debug: > authorization: Bearer \[redacted\]$/m);
      }
    });
  });

  test('auth login stores the key only in the 0600 config file', async () => {
    const configDir = tempDir();
    const r = await payrec(emu, ['auth', 'login', '--debug'], { env: { PAYREC_API_KEY: undefined, PAYREC_CONFIG_DIR: configDir }, input: `${KEY}\n` });
    expect(r.exitCode).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    const files = readdirSync(configDir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
    expect(files.length).toBeGreaterThan(0);
    const holders = files.filter((d) => readFileSync(join(d.parentPath, d.name), 'utf8').includes(KEY));
    expect(holders).toHaveLength(1);
    expect(statSync(join(holders[0].parentPath, holders[0].name)).mode & 0o777).toBe(0o600);
  });

  test('a wrong key in a 401 answer is not echoed', async () => {
    const r = await payrec(emu, ['ot', 'transfers', '--debug'], { env: { PAYREC_API_KEY: `prk_demo_polygon_${SECRET}` } });
    expect(r.exitCode).toBe(3);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });
});

describe('the key does not travel where it should not', () => {
  test('plain http to a host that is not loopback is refused before sending', async () => {
    const r = await payrec(emu, ['ot', 'transfers'], { env: { PAYREC_API_KEY: KEY, PAYREC_BASE_URL: 'http://api.example.com' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: refusing to send the API key over plain http to api.example.com$/m);
    expect(r.stderr).not.toContain(SECRET);
  });

  test('a redirect to another origin is not followed: the other server sees nothing', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const target = await listen(createServer((req, res) => (seen.push(req.headers), res.end('{}'))));
    const targetUrl = `http://127.0.0.1:${port(target)}/v1/bsc/one-time/transfers`;
    const redirector = await listen(createServer((_req, res) => res.writeHead(302, { location: targetUrl }).end()));
    try {
      const r = await payrec(undefined, ['ot', 'transfers', '--retries', '3'], {
        env: { PAYREC_API_KEY: KEY, PAYREC_BASE_URL: `http://127.0.0.1:${port(redirector)}` },
      });
      expect(r.stderr).toMatch(/^error: GET \/v1\/bsc\/one-time\/transfers: unexpected redirect \(302\) to http:\/\/127\.0\.0\.1:\d+\/v1\/bsc\/one-time\/transfers, not followed/m);
      expect(r.stderr).toMatch(/^hint: check --base-url$/m);
      expect(r.exitCode).toBe(6);
      expect(seen).toEqual([]);
      expect(r.stderr).not.toContain(SECRET);
    } finally {
      target.close();
      redirector.close();
    }
  });
});

describe('server text cannot act on the terminal or the spreadsheet', () => {
  const RAW_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

  test('piped table output (TSV) carries no raw control characters, and shows them escaped', async () => {
    const r = await payrec(emu, ['ot', 'transfers', '--limit', '250', '--columns', 'description,amount']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
    expect(r.stdout).toContain('\\x1b[31mRED ALERT\\x1b[0m');
    // Each record stays on one line: 250 rows and the header.
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(251);
  });

  test.skipIf(script.skip)(`the terminal table shows escapes as text${script.note}`, async () => {
    const r = await execa('script', ['-qec', `stty cols 200; node ${BIN} ot transfers --limit 250 --columns description,amount`, '/dev/null'], {
      reject: false,
      extendEnv: false,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm', NO_COLOR: '1', TZ: 'UTC', PAYREC_CONFIG_DIR: tempDir(), PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc') },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/[─│┌└]|\+-|\| /); // a drawn table, not TSV
    expect(r.stdout.replace(/\r/g, '')).not.toMatch(RAW_CONTROL);
    expect(r.stdout).toContain('RED ALERT');
    expect(r.stdout).toMatch(/\\x1b\[31mRED/);
  });

  test('CSV neutralises formula cells; --csv-raw keeps them as sent', async () => {
    const args = ['ot', 'transfers', '--limit', '250', '-f', 'csv', '--columns', 'description,category,amount'];
    const [safeRun, rawRun] = await Promise.all([payrec(emu, args), payrec(emu, [...args, '--csv-raw'])]);
    expect([safeRun.exitCode, rawRun.exitCode]).toEqual([0, 0]);
    const safe = parseCsv(safeRun.stdout);
    const raw = parseCsv(rawRun.stdout);
    expect(raw.length).toBeGreaterThan(250); // header + 250 records
    expect(safe.length).toBe(raw.length);
    let formulas = 0;
    for (let i = 1; i < raw.length; i++) {
      for (let c = 0; c < 2; c++) {
        if (/^[=+\-@\t\r]/.test(raw[i][c])) {
          formulas++;
          expect(safe[i][c]).toBe(`'${raw[i][c]}`);
        } else expect(safe[i][c]).toBe(raw[i][c]);
      }
      expect(safe[i][2]).toBe(raw[i][2]); // amounts are never touched
    }
    expect(formulas).toBeGreaterThan(0);
  });
});

describe('the webhook listener', () => {
  /** Starts `payrec wn listen …`, waits for its address, and returns it with a stop function. */
  async function startListener(extra: string[] = []) {
    const child = payrec(emu, ['webhook-notifications', 'listen', '--port', '0', '-f', 'jsonl', ...extra]);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    const deadline = Date.now() + 10_000;
    while (!/Listening on (http:\/\/\S+?\/)/.test(stderr) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const url = /Listening on (http:\/\/\S+?\/)/.exec(stderr)![1];
    return {
      url,
      stop: async () => {
        child.kill('SIGINT');
        return child;
      },
    };
  }

  const post = (url: string, body: string, type = 'application/json') => fetch(url, { method: 'POST', body, headers: { 'content-type': type } });

  test('binds loopback by default', async () => {
    const l = await startListener();
    try {
      expect(l.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const lanAddress = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
      if (lanAddress) {
        const viaLan = await fetch(l.url.replace('127.0.0.1', lanAddress), { method: 'POST' }).catch((e: Error) => e);
        expect(viaLan).toBeInstanceOf(Error);
      }
    } finally {
      const r = await l.stop();
      expect(r.exitCode).toBe(130);
    }
  });

  test('rejects non-JSON (415) and oversize bodies (413), and forwards only to --forward-to', async () => {
    const forwarded: { headers: IncomingHttpHeaders; body: string }[] = [];
    const sink = await listen(
      createServer((req, res) => {
        let body = '';
        req.on('data', (d: Buffer) => (body += d)).on('end', () => {
          forwarded.push({ headers: req.headers, body });
          res.end('ok');
        });
      }),
    );
    const l = await startListener(['--forward-to', `http://127.0.0.1:${port(sink)}/hooks`]);
    try {
      expect((await post(l.url, 'hello', 'text/plain')).status).toBe(415);
      expect((await post(l.url, JSON.stringify({ pad: 'x'.repeat(300 * 1024) }))).status).toBe(413);
      expect(forwarded).toEqual([]);
      const notification = await (await fetch(`${emu.url}/v1/bsc/webhook-notifications/${fx.notifications[0]}`, { headers: { authorization: `Bearer ${emu.keyFor('bsc')}` } })).text();
      const res = await post(l.url, notification);
      expect(res.status).toBe(200);
      expect(forwarded).toHaveLength(1);
      expect(forwarded[0].body).toBe(notification);
      expect(forwarded[0].headers.authorization).toBeUndefined();
    } finally {
      await l.stop();
      sink.close();
    }
  });
});

function listen(server: Server): Promise<Server> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function port(server: Server): number {
  return (server.address() as AddressInfo).port;
}
