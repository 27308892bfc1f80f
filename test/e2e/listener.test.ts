import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync, statSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator, Fixtures } from '../../src/emulator/index.js';
import { emulator, payrec, tempDir, until, watch } from './helpers.js';

// The webhook listener as an attacker and a flaky app would meet it (issue 18): the real
// binary `payrec wn listen` on an ephemeral port, the emulator as the API (its request
// log counts the lookups made with the user's key), and an app server of the test's own
// behind --forward-to.

let emu: Emulator;
let fx: Fixtures;
beforeAll(async () => {
  emu = await emulator({ delivery: { baseDelayMs: 50 } });
  fx = emu.fixtures('bsc');
});
afterAll(() => emu.close());

type Notification = Record<string, any> & { id: string };

/** A real notification, stored by the emulator (its plan has no webhook: nothing delivers it). */
async function real(event = 'Billing', plan = fx.plans['fixed-recurring'][3]): Promise<Notification> {
  const r = await payrec(emu, ['emulator', 'trigger', event, '--plan-id', plan]);
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout).notification;
}

async function listen(args: string[], state = tempDir()) {
  const proc = payrec(emu, ['wn', 'listen', '--port', '0', ...args], { env: { XDG_STATE_HOME: state } });
  const stdout = watch(proc.stdout!);
  const stderr = watch(proc.stderr!);
  const [, url] = await stderr.waitFor(/^Listening on (http:\/\/127\.0\.0\.1:\d+\/)/m);
  const stop = async () => {
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode).toBe(130);
    // No Node warning (MaxListenersExceededWarning and the like), no stack trace.
    expect(r.stderr).not.toMatch(/Warning|\n\s+at /);
    return r;
  };
  return { proc, stdout, stderr, url, state, stop };
}

/** The app behind --forward-to: answers `status` and records each body it got. */
class App {
  bodies: string[] = [];
  status = 200;
  private server?: Server;
  constructor(readonly port: number) {}
  get url() {
    return `http://127.0.0.1:${this.port}/hooks`;
  }
  static async onFreePort(): Promise<App> {
    const app = new App(0);
    await app.up();
    return Object.assign(app, { port: (app.server!.address() as AddressInfo).port });
  }
  /** A port nothing listens on (yet). */
  static async down(): Promise<App> {
    const app = await App.onFreePort();
    await app.stop();
    return app;
  }
  /** Milliseconds the app takes to answer. */
  delayMs = 0;
  up(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        this.bodies.push(body);
        setTimeout(() => res.writeHead(this.status).end(), this.delayMs);
      });
    });
    return new Promise((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }
  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server!.closeAllConnections();
      this.server!.close(() => resolve());
    });
  }
}

function post(url: string, body: unknown) {
  return fetch(url, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
}

/** A raw request, for what fetch will not send (a Host of our choosing, a trickled body). */
function raw(url: string, o: { host?: string; body?: string; trickle?: { length: number; everyMs: number } }): Promise<{ status: number; body: string; ms: number }> {
  const u = new URL(url);
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const length = o.trickle?.length ?? Buffer.byteLength(o.body ?? '');
    const req = request({ host: u.hostname, port: u.port, path: '/', method: 'POST', headers: { host: o.host ?? u.host, 'content-type': 'application/json', 'content-length': length } }, (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        clearInterval(timer);
        resolve({ status: res.statusCode!, body, ms: Date.now() - t0 });
      });
    });
    let timer: NodeJS.Timeout | undefined;
    req.on('error', (err) => {
      clearInterval(timer);
      reject(err);
    });
    if (o.trickle) {
      req.write('{');
      timer = setInterval(() => req.write(' '), o.trickle.everyMs);
    } else req.end(o.body ?? '');
  });
}

/** The emulator's lookups of these ids (GET /v1/bsc/webhook-notifications/<id>). */
function lookups(ids: Iterable<string>): number {
  const wanted = new Set([...ids].map((id) => `/v1/bsc/webhook-notifications/${id}`));
  return emu.requests.filter((r) => r.method === 'GET' && wanted.has(r.path)).length;
}

// Vitest runs five tests of a file at once, in the order written: the 30 s deadline's
// wait comes first, so the file's other tests run during it.
describe.concurrent('the body deadline', () => {
  test(
    'a body trickled one byte every 5 s is cut at 30 s with 408',
    async () => {
      const l = await listen([]);
      const r = await raw(l.url, { trickle: { length: 1000, everyMs: 5_000 } });
      expect(r.status).toBe(408);
      // Not before 30 s (a bound load cannot break); a cut much later says 408 all the same, and no cut at all runs into the test's timeout.
      expect(r.ms).toBeGreaterThanOrEqual(29_500);
      await l.stderr.waitFor(/refused a request \(408\): body not received within 30 s/);
      await l.stop();
    },
  );
});

describe.concurrent('forwarding', () => {
  test('an authentic notification reaches the app exactly once with its body; replays are acknowledged, also after a restart', async () => {
    const app = await App.onFreePort();
    const l = await listen(['--forward-to', app.url]);
    const plan = fx.plans['fixed-recurring'][0];
    expect((await payrec(emu, ['fr', 'webhook', 'set', '--plan-id', plan, l.url])).exitCode).toBe(0);
    const t = await payrec(emu, ['emulator', 'trigger', 'Billing', '--plan-id', plan]);
    const n: Notification = JSON.parse(t.stdout).notification;
    await l.stdout.waitFor(/verified {2}→ 200\n/);
    expect(app.bodies).toEqual([JSON.stringify(n)]);

    // The sender retries what it thinks failed: four replays, two at once, two after.
    const replays = [...(await Promise.all([post(l.url, n), post(l.url, n)])), await post(l.url, n), await post(l.url, n)];
    expect(replays.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await replays[3].json()).toEqual({ received: true, verified: true, forwarded: false, duplicate: true });
    expect(app.bodies).toHaveLength(1);
    expect(lookups([n.id])).toBe(1); // a replay costs no lookup

    // The memory is a 0600 file in the XDG state directory, and survives a restart.
    await l.stop();
    const dir = join(l.state, 'payrec');
    const [file] = readdirSync(dir);
    expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    const again = await listen(['--forward-to', app.url], l.state);
    expect((await post(again.url, n)).status).toBe(200);
    await again.stderr.waitFor(new RegExp(`acknowledged a replay of ${n.id}: already forwarded`));
    expect(app.bodies).toHaveLength(1);
    const r = await again.stop();
    expect(r.stdout).toBe('');
    await app.stop();
  });

  test('tampered and forged notifications get 403, never reach the app, and are named on stderr', async () => {
    const app = await App.onFreePort();
    const l = await listen(['--forward-to', app.url]);
    const n = await real();
    const tampered = { ...n, data: { ...n.data, amount: '999999' } };
    const forged = { ...n, id: randomBytes(32).toString('hex') };
    const answers = await Promise.all([post(l.url, tampered), post(l.url, forged)]);
    expect(answers.map((a) => a.status)).toEqual([403, 403]);
    await l.stderr.waitFor(new RegExp(`refused a request \\(403\\): notification ${n.id} is not authentic: data.amount differs from the stored notification; not forwarded`));
    await l.stderr.waitFor(new RegExp(`notification ${forged.id} is not authentic: the service has no notification with this id`));
    // A key given twice: verified by its last value, so the app gets the verified JSON, not the bytes.
    const twice = JSON.stringify(n).replace('"data":{', `"data":{"amount":"999999",`);
    expect((await post(l.url, twice)).status).toBe(200);
    expect(app.bodies).toHaveLength(1);
    expect(JSON.parse(app.bodies[0])).toEqual(n);
    expect(app.bodies[0]).not.toContain('999999');
    const r = await l.stop();
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    await app.stop();
  });

  test('app down, then answering 500: the sender gets 502 and retries; once the app is up it is forwarded', async () => {
    const app = await App.down();
    const l = await listen(['--forward-to', app.url]);
    const n = await real('Subscription');
    const down = await post(l.url, n);
    expect(down.status).toBe(502);
    await l.stderr.waitFor(new RegExp(`could not forward notification ${n.id}: ${app.url} could not be reached \\(ECONNREFUSED\\)`));

    app.status = 500;
    await app.up();
    expect((await post(l.url, n)).status).toBe(502);
    await l.stderr.waitFor(/answered 500; answered 502 so the sender retries/);

    app.status = 200;
    expect((await post(l.url, n)).status).toBe(200);
    expect((await post(l.url, n)).status).toBe(200);
    // Twice at the app: the 500 it answered, and the accepted one; then never again.
    expect(app.bodies).toEqual([JSON.stringify(n), JSON.stringify(n)]);
    expect(lookups([n.id])).toBe(1); // the answer cache served the retries
    await l.stop();
    await app.stop();
  });

  test('the app answers 3xx, 4xx, 429 or 5xx: not delivered, the sender gets 502 each time and nothing is remembered; then its 2xx', async () => {
    // Mutant killed: any answer from the app taken as delivered (the sender would get 200, the
    // id would be remembered, and every retry after that acknowledged as a duplicate).
    const app = await App.onFreePort();
    const l = await listen(['--forward-to', app.url]);
    const n = await real('Billing', fx.plans['fixed-recurring'][2]);
    const refusals = [301, 302, 400, 401, 403, 404, 409, 410, 422, 429, 500, 503];
    for (const status of refusals) {
      app.status = status;
      const answer = await post(l.url, n);
      expect(answer.status, `app answered ${status}`).toBe(502);
      expect(await answer.json()).toEqual({ error: 'the app did not accept the notification' });
      await l.stderr.waitFor(new RegExp(`could not forward notification ${n.id}: ${app.url} answered ${status}; answered 502 so the sender retries`));
    }
    expect(app.bodies).toHaveLength(refusals.length); // each retry reached the app: none was remembered as forwarded
    app.status = 202;
    const accepted = await post(l.url, n);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ received: true, verified: true, forwarded: true });
    app.status = 200;
    expect(await (await post(l.url, n)).json()).toMatchObject({ duplicate: true });
    expect(app.bodies).toHaveLength(refusals.length + 1);
    const r = await l.stop();
    expect(r.stdout.trim().split('\n')).toHaveLength(1); // printed once, when delivered
    await app.stop();
  });

  test('"__proto__", "constructor" and "prototype" keys are refused, and an id once forwarded is never forwarded again', async () => {
    // Mutants killed: the key refusal removed (the message names the key); the memory keyed
    // by content instead of id (another content of a forwarded id is then looked up, and a
    // body the lookup cannot tell apart would be forwarded a second time).
    const app = await App.onFreePort();
    const l = await listen(['--forward-to', app.url]);
    const n = await real('Payment', fx.plans['fixed-recurring'][3]);
    const withKey = (json: string) => JSON.stringify(n).replace(/^\{/, `{${json},`);
    expect((await post(l.url, n)).status).toBe(200);
    const lookupsAfterForward = lookups([n.id]);
    const hostile: [string, string][] = [
      [withKey('"__proto__":{}'), '__proto__'],
      [JSON.stringify(n).replace('"data":{', '"data":{"__proto__":{"amount":"1"},'), 'data.__proto__'],
      [withKey('"constructor":{"prototype":{}}'), 'constructor'],
      [JSON.stringify(n).replace('"data":{', '"data":{"x":[{"prototype":1}],'), 'data.x.0.prototype'],
    ];
    for (const [body, key] of hostile) {
      const answer = await post(l.url, body);
      expect(answer.status, key).toBe(403);
      expect((await answer.json()).error).toBe(`notification ${n.id} has a key "${key}", which no notification has; not forwarded`);
      // The replay that follows is still only a replay.
      expect(await (await post(l.url, n)).json()).toMatchObject({ duplicate: true });
    }
    const other = await post(l.url, { ...n, note: 'resent' });
    expect(other.status).toBe(403);
    expect((await other.json()).error).toBe(`notification ${n.id} was already forwarded with other content; not forwarded again`);
    expect(lookups([n.id])).toBe(lookupsAfterForward); // refused from memory, without asking the service
    expect(app.bodies).toEqual([JSON.stringify(n)]);
    await l.stop();
    await app.stop();
  });

  test('the memory written before ids were the key (one line per id and content) still stops every replay', async () => {
    const app = await App.onFreePort();
    const n = await real('Billing', fx.plans['fixed-recurring'][4]);
    const state = tempDir();
    // A memory as an older payrec left it after the attack: the id forwarded again under another digest.
    const first = await listen(['--forward-to', app.url], state);
    expect((await post(first.url, n)).status).toBe(200);
    await first.stop();
    const dir = join(state, 'payrec');
    const [file] = readdirSync(dir);
    const line = JSON.parse(readFileSync(join(dir, file), 'utf8').trim());
    appendFileSync(join(dir, file), JSON.stringify({ ...line, digest: 'f'.repeat(64) }) + '\n');
    const l = await listen(['--forward-to', app.url], state);
    expect(await (await post(l.url, n)).json()).toMatchObject({ duplicate: true }); // the first forward is the one kept
    expect(app.bodies).toEqual([JSON.stringify(n)]);
    expect((await post(l.url, { ...n, note: 'resent' })).status).toBe(403);
    await l.stop();
    await app.stop();
  });

  test('the app took it but the answer to the sender was lost: the retry is acknowledged, not forwarded again', async () => {
    const app = await App.onFreePort();
    app.delayMs = 500;
    const l = await listen(['--forward-to', app.url]);
    const n = await real('Billing', fx.plans['fixed-recurring'][1]);
    // The sender gives up (its connection closes) while the app is still answering.
    const u = new URL(l.url);
    const gone = request({ host: u.hostname, port: u.port, method: 'POST', headers: { 'content-type': 'application/json' } });
    gone.on('error', () => {});
    gone.end(JSON.stringify(n));
    await until('the app has the notification', () => app.bodies.length > 0);
    gone.destroy(); // the app has the notification and has not answered yet
    await l.stdout.waitFor(/verified {2}→ 200\n/);
    const retry = await post(l.url, n);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ duplicate: true });
    expect(app.bodies).toEqual([JSON.stringify(n)]);
    await l.stop();
    await app.stop();
  });

  test('the API unreachable: 502, nothing forwarded', async () => {
    const app = await App.onFreePort();
    const n = await real();
    const proc = payrec(undefined, ['wn', 'listen', '--port', '0', '--retries', '0', '--forward-to', app.url], {
      env: { XDG_STATE_HOME: tempDir(), PAYREC_BASE_URL: 'http://127.0.0.1:1', PAYREC_API_KEY: emu.keyFor('bsc') },
    });
    const stderr = watch(proc.stderr!);
    const [, url] = await stderr.waitFor(/^Listening on (http:\/\/127\.0\.0\.1:\d+\/)/m);
    expect((await post(url, n)).status).toBe(502);
    await stderr.waitFor(/could not handle notification [0-9a-f]{64}: .*connection refused/);
    proc.kill('SIGINT');
    expect((await proc).exitCode).toBe(130);
    expect(app.bodies).toEqual([]);
    await app.stop();
  });
});

describe.concurrent('bounds', () => {
  test('a burst of 30 authentic notifications to a slow app: each forwarded once, no Node warning', async () => {
    const app = await App.onFreePort();
    app.delayMs = 300;
    const l = await listen(['--forward-to', app.url]);
    // Straight from the emulator's control route: 30 runs of `emulator trigger` would take long on two cores.
    const burst: Notification[] = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const planId = fx.plans['fixed-recurring'][1 + (i % 4)]; // not plan 0: its webhook points at another test's listener
        const r = await fetch(`${emu.url}/_emulator/trigger`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${emu.keyFor('bsc')}` }, body: JSON.stringify({ chain: 'bsc', event: 'Billing', planId }) });
        return ((await r.json()) as { notification: Notification }).notification;
      }),
    );
    // Under the bucket's burst of 20 lookups a few get 503; the sender retries them a second later.
    let pending = burst;
    for (let round = 0; pending.length > 0 && round < 10; round++) {
      const answers = await Promise.all(pending.map((n) => post(l.url, n)));
      expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true);
      pending = pending.filter((_, i) => answers[i].status === 503);
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 1_000));
    }
    expect(pending).toEqual([]);
    expect(app.bodies.map((b) => JSON.parse(b).id).sort()).toEqual(burst.map((n) => n.id).sort());
    await l.stop(); // asserts no Warning (MaxListenersExceededWarning) on stderr
    await app.stop();
  });

  test('a flood of 300 forged posts costs a bounded number of lookups and no warning', async () => {
    const app = await App.onFreePort();
    const l = await listen(['--forward-to', app.url]);
    const n = await real('Payment');

    // 150 tampered copies of one real notification at once: one lookup (shared while in flight, then cached).
    const tampered = await Promise.all(Array.from({ length: 150 }, (_, i) => post(l.url, { ...n, data: { ...n.data, tag: `forged_${i}` } })));
    expect(tampered.map((a) => a.status)).toEqual(Array(150).fill(403));
    expect(lookups([n.id])).toBe(1);

    // 150 distinct forged ids at once: at most the bucket's burst (20) plus 10 a second; the rest 503.
    const forgedIds = Array.from({ length: 150 }, () => randomBytes(32).toString('hex'));
    const t0 = Date.now();
    const forged = await Promise.all(forgedIds.map((id) => post(l.url, { ...n, id })));
    const seconds = (Date.now() - t0) / 1000;
    const statuses = forged.map((a) => a.status);
    expect(statuses.every((s) => s === 403 || s === 503)).toBe(true);
    for (const a of forged.filter((x) => x.status === 503)) expect(a.headers.get('retry-after')).toMatch(/^\d+$/);
    const forgedLookups = lookups(forgedIds);
    expect(forgedLookups).toBeGreaterThan(0);
    expect(forgedLookups).toBeLessThanOrEqual(20 + Math.ceil(10 * seconds));
    expect(statuses.filter((s) => s === 403)).toHaveLength(forgedLookups);
    await l.stderr.waitFor(/warning: too many notifications to verify at once: answering 503 so the sender retries later/);
    expect(app.bodies).toEqual([]);
    await l.stop(); // asserts no Warning on stderr
    await app.stop();
  });

  test('a Host other than the listening address or localhost is refused (DNS rebinding)', async () => {
    const l = await listen([]);
    const port = new URL(l.url).port;
    const n = await real();
    const body = JSON.stringify(n);
    const rebound = await raw(l.url, { host: `attacker.example:${port}`, body });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error).toMatch(/Host "attacker.example:\d+" is not this listener's address/);
    expect((await raw(l.url, { host: `127.0.0.1:${Number(port) + 1}`, body })).status).toBe(403);
    expect(lookups([n.id])).toBe(0);
    expect((await raw(l.url, { host: `localhost:${port}`, body })).status).toBe(200);
    expect((await raw(l.url, { body })).status).toBe(200);
    await l.stop();
  });
});

test.concurrent('wn verify: a body with "__proto__": {} added is not authentic (own properties compared), exit 8 naming it', async () => {
  // Mutant killed: differences() reading stored[k] plainly (Object.prototype "matches" {}).
  const n = await real('Billing', fx.plans['fixed-recurring'][1]);
  const dir = tempDir();
  const file = join(dir, 'n.json');
  writeFileSync(file, JSON.stringify(n).replace('"data":{', '"data":{"__proto__":{},'));
  const r = await payrec(emu, ['wn', 'verify', file]);
  expect(r.stderr).toContain('verification failed: data.__proto__ differs from the notification the service stored');
  expect(r.exitCode).toBe(8);
  writeFileSync(file, JSON.stringify(n));
  expect((await payrec(emu, ['wn', 'verify', file])).exitCode).toBe(0);
});
