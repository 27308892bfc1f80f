import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { payrec, tempDir } from './helpers.js';

// A server that answers with text meant to act on the user's terminal: a right-to-left
// override (U+202E), ESC sequences (colour, window title), 8-bit CSI (U+009B), NEL
// (U+0085) and a bidi isolate. Whatever payrec shows of it, in an error, a warning, a
// table, a listen line or JSON, holds visible escapes, never the raw characters.

const RLO = '\u202e';
const HOSTILE = `txt.${RLO}exe \x1b[31mred\x1b]0;pwned\x07 \x9b2J \x85 \u2066isolated\u2069`;
/** What may not reach a terminal raw (newlines and tabs separate lines and columns). */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
/** Latin-1 is all a header can carry: 8-bit CSI and NEL. */
const HOSTILE_HEADER = '/next\x9b2J\x85';

const PLAN = '0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7';
const NOTIFICATION_ID = 'ab'.repeat(32);
const LISTENED_ID = 'cd'.repeat(32);
const LISTENED = { id: LISTENED_ID, type: `one-time${RLO}`, event: HOSTILE, timestamp: 1585220116, transactionStatus: '\x9b2J', transactionHash: '0x12' };

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

const routes: Record<string, Handler> = {
  '/v1/bsc/one-time/transfers': (_req, res) => json(res, 400, { error: { code: 400, message: `Invalid token ${HOSTILE}` } }),
  '/v1/bsc/scheduled-payments/transfers': (_req, res) => res.writeHead(503, { 'content-type': 'text/html' }).end(`<h1>${HOSTILE}</h1>`),
  '/v1/bsc/dollar-cost-average/executions': (_req, res) => res.writeHead(302, { location: HOSTILE_HEADER }).end(),
  '/v1/bsc/fixed-recurring/short-urls/f9yth': (_req, res) =>
    json(res, 200, {
      path: 'f9yth',
      name: HOSTILE,
      planId: PLAN,
      createdAt: 1574954504,
      updatedAt: 1574954504,
      link: 'https://8pay.me/f9yth',
      // A number where the schema wants text, under a key the server chose: the warning names the key.
      params: { callbackSuccess: 'https://www.google.com/', callbackError: 'https://www.google.com/', extra: { [`banner${RLO}\x1b[2J`]: 69 } },
    }),
  '/v1/bsc/on-demand/transfers': (_req, res) =>
    json(res, 200, { data: [{ description: HOSTILE, amount: '1', fee: '0', token: 'USDT', category: 'Shop', timestamp: 1767225600, transactionHash: `0x${'1'.repeat(64)}`, transactionStatus: 'confirmed', sender: `0x${'2'.repeat(40)}`, receiver: `0x${'3'.repeat(40)}`, planId: PLAN, subscriptionId: PLAN }], limit: 100, offset: 0, total: 1 }),
  [`/v1/bsc/webhook-notifications/${NOTIFICATION_ID}`]: (_req, res) =>
    json(res, 200, { id: NOTIFICATION_ID, type: 'one-time', event: `Payment${HOSTILE}`, timestamp: 1585220116, data: { description: HOSTILE } }),
  // The notification the listener test posts, as the API returns it: authentic, so it is printed.
  [`/v1/bsc/webhook-notifications/${LISTENED_ID}`]: (_req, res) => json(res, 200, LISTENED),
  '/_emulator/trigger': (_req, res) => json(res, 200, { notification: { event: HOSTILE }, delivered: HOSTILE }),
};

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const route = routes[new URL(req.url!, 'http://x').pathname];
    if (route) return route(req, res);
    if (req.url!.startsWith('/_emulator/trigger-fails')) return json(res, 400, { error: { code: 400, message: HOSTILE } });
    json(res, 404, { error: { code: 404, message: `Not found ${HOSTILE}` } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const run = (args: string[], input?: string) =>
  payrec(undefined, ['--retries', '0', ...args], { env: { PAYREC_BASE_URL: base, PAYREC_API_KEY: 'prk_test_key', PAYREC_CHAIN: 'bsc' }, input });

function expectInert(text: string): void {
  expect(text).not.toMatch(RAW);
}

describe('server text is shown inert', () => {
  test.concurrent('an API error message, with --debug lines around it', async () => {
    const r = await run(['--debug', 'one-time', 'transfers']);
    expect(r.exitCode).toBe(5);
    expectInert(r.stderr);
    expect(r.stderr).toContain('error: GET /v1/bsc/one-time/transfers: 400 Invalid token txt.\\u202eexe \\x1b[31mred\\x1b]0;pwned\\x07 \\x9b2J \\x85 \\u2066isolated\\u2069');
    expect(r.stderr).toMatch(/^debug: > GET /m);
  });

  test.concurrent('a non-JSON error page', async () => {
    const r = await run(['scheduled-payments', 'transfers']);
    expect(r.exitCode).toBe(6);
    expectInert(r.stderr);
    expect(r.stderr).toMatch(/503 text\/html, \d+ bytes: <h1>txt\.\\u202eexe \\x1b\[31m/);
  });

  test.concurrent('the Location of a redirect', async () => {
    const r = await run(['dollar-cost-average', 'executions']);
    expect(r.exitCode).toBe(6);
    expectInert(r.stderr);
    expect(r.stderr).toContain('unexpected redirect (302) to /next\\x9b2J\\x85, not followed');
  });

  test.concurrent('a schema-drift warning naming a field the server chose, and the record itself', async () => {
    const r = await run(['fixed-recurring', 'short-urls', 'get', 'f9yth']);
    expect(r.exitCode).toBe(0);
    expectInert(r.stderr);
    expectInert(r.stdout);
    expect(r.stderr).toMatch(/^warning: GET \/fixed-recurring\/short-urls\/:path: field "params\.extra\.banner\\u202e\\x1b\[2J": /m);
    expect(r.stdout).toContain('txt.\\u202eexe \\x1b[31mred');
  });

  test.concurrent('the JSON answer of an emulator trigger', async () => {
    const ok = await run(['emulator', 'trigger', 'Billing', '--plan-id', PLAN]);
    expect(ok.exitCode).toBe(0);
    expectInert(ok.stdout);
    // Escaped the JSON way: the output still parses to exactly what the server sent.
    expect(JSON.parse(ok.stdout)).toEqual({ notification: { event: HOSTILE }, delivered: HOSTILE });
    expect(ok.stdout).toContain('\\u202e');
  });

  test.concurrent('JSON printed by payrec api', async () => {
    const r = await run(['api', 'on-demand/transfers']);
    expect(r.exitCode).toBe(0);
    expectInert(r.stdout);
    expect(JSON.parse(r.stdout).data[0].description).toBe(HOSTILE);
  });

  test.concurrent('records exported to a pipe keep the exact bytes a JSON parser reads back', async () => {
    const r = await run(['on-demand', 'transfers', '-f', 'jsonl']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).description).toBe(HOSTILE);
    const table = await run(['on-demand', 'transfers', '--columns', 'description']);
    expectInert(table.stdout);
    expect(table.stdout).toContain('txt.\\u202eexe');
  });

  test.concurrent('wn verify: the differing fields and both values', async () => {
    const dir = tempDir();
    const file = join(dir, 'n.json');
    writeFileSync(file, JSON.stringify({ id: NOTIFICATION_ID, type: 'one-time', event: 'Payment', timestamp: 1585220116, data: { description: 'Ebook' } }));
    const r = await run(['webhook-notifications', 'verify', file]);
    expect(r.exitCode).toBe(8);
    expectInert(r.stdout);
    expectInert(r.stderr);
    expect(r.stdout).toMatch(/^ {2}event\treceived "Payment"\tstored "Payment.*\\u202e/m);
  });

  test.concurrent('wn listen: the line printed for a received notification', async () => {
    const proc = run(['webhook-notifications', 'listen', '--port', '0']);
    const [stdout, stderr] = [collect(proc.stdout!), collect(proc.stderr!)];
    const url = (await waitFor(stderr, /Listening on (http:\/\/127\.0\.0\.1:\d+\/)/))[1];
    const delivered = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(LISTENED),
    });
    expect(delivered.status).toBe(200);
    await waitFor(stdout, /verified/);
    proc.kill('SIGINT');
    await proc;
    expectInert(stdout.text);
    expectInert(stderr.text);
    expect(stdout.text).toContain('one-time\\u202e');
    expect(stdout.text).toContain('txt.\\u202eexe \\x1b[31mred');
  });
});

test.concurrent('an error from the emulator trigger route', async () => {
  // The trigger route of this server fails for another base path: the message is the server's.
  const r = await payrec(undefined, ['--retries', '0', 'emulator', 'trigger', 'Billing', '--plan-id', PLAN], {
    env: { PAYREC_BASE_URL: `${base}/_emulator/trigger-fails`, PAYREC_API_KEY: 'prk_test_key', PAYREC_CHAIN: 'bsc' },
  });
  expect(r.exitCode).toBe(5);
  expectInert(r.stderr);
  expect(r.stderr).toContain('error: txt.\\u202eexe \\x1b[31mred');
});

function collect(stream: Readable) {
  const c = { text: '' };
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (c.text += chunk));
  return c;
}

async function waitFor(c: { text: string }, pattern: RegExp, ms = 15_000): Promise<RegExpMatchArray> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    const m = c.text.match(pattern);
    if (m) return m;
  }
  throw new Error(`timed out waiting for ${pattern} in: ${c.text}`);
}
