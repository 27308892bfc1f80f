import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { DeliveryAttempt, Emulator, Fixtures } from '../../src/emulator/index.js';
import { emulator, payrec, payrecInProcess, tempDir, watch } from './helpers.js';

// Webhook notifications end to end: the emulator fires an event (payrec emulator
// trigger), stores it and POSTs it to the plan's webhook; `wn listen` receives it,
// verifies it against the service, prints it and forwards it; `wn verify` checks a
// saved one. Everything over real HTTP on loopback.

// Each test runs the binary a few times; on two busy cores that can take seconds. The
// listeners, stdin, exit 5 and 7 and the first refusal are the built binary in a process;
// triggers, gets and webhook settings run in this worker (payrecInProcess, issue 48).

let emu: Emulator;
/** Receives only bad input: its request log must stay empty. */
let quiet: Emulator;
let fx: Fixtures;

beforeAll(async () => {
  [emu, quiet] = await Promise.all([emulator({ delivery: { baseDelayMs: 50 } }), emulator({ records: 0 })]);
  fx = emu.fixtures('bsc');
});
afterAll(async () => {
  await Promise.all([emu.close(), quiet.close()]);
});

type Notification = Record<string, any> & { id: string };

async function trigger(event: string, plan: string): Promise<{ notification: Notification; delivered: boolean | 'pending' }> {
  const r = await payrecInProcess(emu, ['emulator', 'trigger', event, '--plan-id', plan]);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout);
}

/** Starts `payrec wn listen --port 0 …` and waits until it says where it listens. */
async function listen(args: string[], env: Record<string, string> = {}) {
  // XDG_STATE_HOME: the memory of forwarded notifications lives there, never in the real home.
  const proc = payrec(emu, ['webhook-notifications', 'listen', '--port', '0', ...args], { env: { XDG_STATE_HOME: tempDir(), ...env } });
  const stdout = watch(proc.stdout!);
  const stderr = watch(proc.stderr!);
  const [, url] = await stderr.waitFor(/^Listening on (http:\/\/127\.0\.0\.1:\d+\/)/m);
  return { proc, stdout, stderr, url };
}

async function deliveries(): Promise<DeliveryAttempt[]> {
  return (await fetch(`${emu.url}/_emulator/deliveries`)).json();
}

function file(content: string): string {
  const path = join(tempDir(), 'notification.json');
  writeFileSync(path, content);
  return path;
}

describe('trigger and get', () => {
  test.concurrent('trigger stores a notification whose id is the sha256 of the rest; get returns it', async () => {
    const { notification, delivered } = await trigger('Billing', fx.plans['fixed-recurring'][2]);
    expect(delivered).toBe(false); // that plan has no webhook
    expect(notification).toMatchObject({ type: 'fixed-recurring', event: 'Billing', transactionStatus: 'confirmed' });
    expect(notification.data.planId).toBe(fx.plans['fixed-recurring'][2]);
    const { id, ...rest } = notification;
    expect(id).toBe(createHash('sha256').update(JSON.stringify(rest)).digest('hex'));

    const got = await payrecInProcess(emu, ['webhook-notifications', 'get', id, '-f', 'json']);
    expect(got.exitCode).toBe(0);
    expect(JSON.parse(got.stdout)).toEqual(notification);
  });

  test.concurrent('the product of the event follows from the plan or the event', async () => {
    const [payment, cancelled] = await Promise.all([
      trigger('Payment', fx.plans['fixed-recurring'][3]),
      trigger('SubscriptionCancelled', fx.plans['variable-recurring'][0]),
    ]);
    expect(payment.notification).toMatchObject({ type: 'one-time', event: 'Payment' });
    expect(cancelled.notification).toMatchObject({ type: 'variable-recurring', event: 'SubscriptionCancelled' });
  });

  test.concurrent('an event the emulator does not know is refused with its list', async () => {
    const r = await payrec(emu, ['emulator', 'trigger', 'Refund', '--plan-id', fx.plans['fixed-recurring'][3]]);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/Unknown event Refund for fixed-recurring: expected one of Subscription, Billing/);
  });

  test.concurrent('trigger without a running emulator says how to start one', async () => {
    const r = await payrec(undefined, ['emulator', 'trigger', 'Billing', '--plan-id', fx.plans['fixed-recurring'][0]], {
      env: { PAYREC_BASE_URL: 'http://127.0.0.1:1' },
    });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(/cannot reach the emulator at http:\/\/127.0.0.1:1/);
    expect(r.stderr).toMatch(/hint: start one with: payrec emulator start/);
  });
});

describe('verify', () => {
  let n: Notification;
  beforeAll(async () => {
    n = (await trigger('BillingFailed', fx.plans['fixed-recurring'][4])).notification;
  });

  test.concurrent('the notification as received is authentic, from a file or from stdin', async () => {
    const expected = `authentic\nid\t${n.id}\nintegrity\tmatches\n`;
    const [fromFile, fromStdin, fromDash] = await Promise.all([
      payrec(emu, ['webhook-notifications', 'verify', file(JSON.stringify(n))]),
      payrec(emu, ['wn', 'verify'], { input: JSON.stringify(n, null, 2) }),
      payrec(emu, ['wn', 'verify', '-'], { input: JSON.stringify(n) }),
    ]);
    for (const r of [fromFile, fromStdin, fromDash]) {
      expect(r.stdout).toBe(expected);
      expect(r.exitCode).toBe(0);
    }
  });

  test.concurrent('another serialisation is still authentic: integrity "cannot confirm" is not a failure', async () => {
    const { id, ...rest } = n;
    const reordered = { ...rest, data: Object.fromEntries(Object.entries(n.data).reverse()), id };
    const r = await payrec(emu, ['wn', 'verify', '-f', 'json'], { input: JSON.stringify(reordered) });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: n.id, authentic: true, integrity: 'cannot confirm', differences: [] });
  });

  test.concurrent('a tampered notification exits 8 and names each differing field', async () => {
    const tampered = { ...n, data: { ...n.data, amount: '999999' }, transactionStatus: 'confirmed' };
    const r = await payrec(emu, ['wn', 'verify', file(JSON.stringify(tampered))]);
    expect(r.exitCode).toBe(8);
    expect(r.stdout).toBe(
      'not authentic: 2 field(s) differ from the stored notification\n' +
        `  data.amount\treceived "999999"\tstored "${n.data.amount}"\n` +
        '  transactionStatus\treceived "confirmed"\tstored "failed"\n' +
        'integrity\tcannot confirm\n',
    );
    expect(r.stderr).toBe('error: verification failed: data.amount, transactionStatus differ from the notification the service stored\n');

    const asJson = await payrec(emu, ['wn', 'verify', '-f', 'json'], { input: JSON.stringify({ ...n, extra: { ...n.extra, banner: 'forged' } }) });
    expect(asJson.exitCode).toBe(8);
    expect(JSON.parse(asJson.stdout).differences).toEqual([{ field: 'extra.banner', received: 'forged', stored: n.extra.banner }]);
  });

  test.concurrent('an id the service does not know exits 4', async () => {
    const r = await payrec(emu, ['wn', 'verify', '-f', 'json'], { input: JSON.stringify({ ...n, id: 'a'.repeat(64) }) });
    expect(r.exitCode).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'a'.repeat(64), authentic: null });
    expect(r.stderr).toMatch(/unknown notification id a{64}: the service has no such notification/);
  });

  test.concurrent.each([
    ['not JSON', { input: '{"id": ' }, [], /stdin is not JSON/],
    ['an array', { input: '[]' }, [], /stdin is not a JSON object/],
    ['no id', { input: '{"type":"one-time"}' }, [], /stdin has no valid "id" \(expected 64 hex characters\)/],
    ['a short id', { input: '{"id":"abc"}' }, [], /has no valid "id"/],
    ['a missing file', {}, ['/nonexistent/n.json'], /cannot read "\/nonexistent\/n.json": ENOENT/],
  ] as [string, { input?: string }, string[], RegExp][])('bad input exits 2 and sends nothing: %s', async (_name, o, args, message) => {
    const r = await payrec(quiet, ['wn', 'verify', ...args], o);
    expect(r.stderr).toMatch(message);
    expect(r.exitCode).toBe(2);
    expect(quiet.requests).toHaveLength(0);
  });
});

describe('listen', () => {
  let target: Server;
  const forwarded: { body: string; type?: string }[] = [];
  beforeAll(async () => {
    target = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        forwarded.push({ body, type: req.headers['content-type'] });
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => target.close(() => resolve())));

  test('trigger → listen receives, verifies, prints and forwards each event; Ctrl-C exits 130', async () => {
    const [planA, planB] = fx.plans['fixed-recurring'];
    const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hooks`;
    const [a, b] = await Promise.all([listen(['--forward-to', targetUrl, '--format', 'jsonl']), listen([])]);
    expect(a.stderr.text).toContain(`forwarding to ${targetUrl}`);
    const set = await Promise.all([
      payrecInProcess(emu, ['fr', 'webhook', 'set', '--plan-id', planA, a.url]),
      payrecInProcess(emu, ['fr', 'webhook', 'set', '--plan-id', planB, b.url]),
    ]);
    expect(set.map((r) => r.exitCode)).toEqual([0, 0]);

    const [first, second] = await Promise.all([trigger('Billing', planA), trigger('SubscriptionCancelled', planB)]);
    expect(first.delivered).toBe('pending');

    // jsonl: one object per event, with the verdict and the forwarding status.
    const [line] = await a.stdout.waitFor(/^.+\n/);
    const event = JSON.parse(line);
    expect(event).toMatchObject({ notification: first.notification, verified: true, forwarded: '202' });
    expect(event.verdict).toEqual({ id: first.notification.id, authentic: true, integrity: 'matches', differences: [] });
    expect(forwarded).toContainEqual({ body: JSON.stringify(first.notification), type: 'application/json' });

    // Plain text: one line per event, in columns.
    const [text] = await b.stdout.waitFor(/^.+\n/);
    const when = new Date(second.notification.timestamp * 1000).toISOString().slice(0, 19).replace('T', ' ');
    const hash = second.notification.transactionHash;
    expect(text).toBe(`${when}  fixed-recurring     SubscriptionCancelled   confirmed  ${hash.slice(0, 7)}…${hash.slice(-5)}  verified\n`);

    // The sender got a 2xx: the emulator delivered each at the first attempt.
    const attempts = await deliveries();
    for (const n of [first.notification, second.notification]) {
      expect(attempts.filter((d) => d.notificationId === n.id)).toMatchObject([{ attempt: 1, ok: true, status: 200 }]);
    }

    a.proc.kill('SIGINT');
    b.proc.kill('SIGINT');
    const [ra, rb] = await Promise.all([a.proc, b.proc]);
    expect([ra.exitCode, rb.exitCode]).toEqual([130, 130]);
    expect(ra.stdout.trim().split('\n')).toHaveLength(1);
    expect(rb.stderr).not.toMatch(/\n\s+at /);
  });

  test('answers 2xx only once a notification is handled, and refuses what is not one', async () => {
    // The service is unreachable: the notification cannot be verified now, so 502 makes the sender retry.
    const l = await listen(['--retries', '0'], { PAYREC_BASE_URL: 'http://127.0.0.1:1' });
    const post = (body: string, type = 'application/json') => fetch(l.url, { method: 'POST', body, headers: { 'content-type': type } });

    const n = (await trigger('Subscription', fx.plans['fixed-recurring'][3])).notification;
    const unverifiable = await post(JSON.stringify(n));
    expect(unverifiable.status).toBe(502);
    expect((await post('hello', 'text/plain')).status).toBe(415);
    expect((await post('{"id":')).status).toBe(400);
    expect((await post(' '.repeat(300 * 1024))).status).toBe(413);
    expect((await fetch(l.url)).status).toBe(405);
    await l.stderr.waitFor(/could not handle notification [0-9a-f]{64}/);
    await l.stderr.waitFor(/refused a request \(413\): body larger than 262144 bytes/);

    l.proc.kill('SIGINT');
    const r = await l.proc;
    expect(r.exitCode).toBe(130);
    expect(r.stdout).toBe(''); // nothing was handled
  });

  test.concurrent.each([
    ['port out of range', ['--port', '70000'], /invalid --port "70000": expected a port from 0 to 65535/],
    ['host with a space', ['--host', 'a b'], /invalid --host "a b": expected a host name or IP address/],
    ['forward to ftp', ['--forward-to', 'ftp://x.example/'], /invalid --forward-to "ftp:\/\/x.example\/"/],
  ] as [string, string[], RegExp][])('bad flags exit 2: %s', async (name, args, message) => {
    // The first refusal by the built binary in a process, the others in this worker (issue 48).
    const r = await (name === 'port out of range' ? payrec : payrecInProcess)(quiet, ['wn', 'listen', ...args]);
    expect(r.stderr).toMatch(message);
    expect(r.exitCode).toBe(2);
  });
});
