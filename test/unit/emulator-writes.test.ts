import { createHash } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { DOC_PLAN_ID } from '../../src/emulator/doc-examples.js';
import { call, start } from './emulator-helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await start({ delivery: { baseDelayMs: 20, maxAttempts: 4 } });
});
afterAll(() => emu.close());

const BASE = '/v1/bsc/fixed-recurring/short-urls';
const PLAN = DOC_PLAN_ID;

function query(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

describe('short urls', () => {
  it('creates from query parameters, then gets, updates and deletes', async () => {
    const created = await call(emu, `${BASE}?${query({
      name: 'Spring, "promo"',
      planId: PLAN,
      'params.callbackSuccess': 'https://shop.example.com/ok',
      'params.extra': JSON.stringify({ banner: 'X1' }),
    })}`, { method: 'POST' });
    expect(created.status).toBe(201);
    const path = created.body.path as string;
    expect(path).toMatch(/^[a-z0-9]{5}$/);
    expect(created.body).toEqual({
      path,
      name: 'Spring, "promo"',
      planId: PLAN,
      createdAt: expect.any(Number),
      updatedAt: created.body.createdAt,
      params: { callbackSuccess: 'https://shop.example.com/ok', extra: { banner: 'X1' } },
      link: `https://8pay.me/${path}`,
    });

    expect((await call(emu, `${BASE}/${path}`)).body).toEqual(created.body);
    const list = await call(emu, BASE);
    expect(list.body.data[0]).toEqual(created.body);

    const updated = await call(emu, `${BASE}/${path}?${query({ name: 'Renamed' })}`, { method: 'PUT' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ path, name: 'Renamed', planId: PLAN, params: { extra: { banner: 'X1' } } });

    const deleted = await call(emu, `${BASE}/${path}`, { method: 'DELETE' });
    expect(deleted).toMatchObject({ status: 200, body: { deleted: true, path } });
    expect((await call(emu, `${BASE}/${path}`)).status).toBe(404);
    expect((await call(emu, `${BASE}/${path}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('accepts a JSON body too, on on-demand as well', async () => {
    const created = await call(emu, '/v1/bsc/on-demand/short-urls', {
      method: 'POST',
      body: { name: 'Body', planId: emu.fixtures('bsc').plans['on-demand'][0], params: { extra: { a: 'b' } } },
    });
    expect(created.status).toBe(201);
    expect(created.body.params).toEqual({ extra: { a: 'b' } });
  });

  it.each([
    [{ planId: PLAN }, 'name'],
    [{ name: 'x' }, 'planId'],
    [{ name: 'x', planId: '0x12' }, 'planId'],
    [{ name: 'x', planId: PLAN, 'params.callbackError': 'ftp://x' }, 'callbackError'],
    [{ name: 'x', planId: PLAN, 'params.extra': '{not json' }, 'extra'],
    [{ name: 'x', planId: PLAN, 'params.extra': '["a"]' }, 'extra'],
  ])('rejects %j with 400 naming %s', async (params, word) => {
    const { status, body } = await call(emu, `${BASE}?${query(params as Record<string, string>)}`, { method: 'POST' });
    expect(status).toBe(400);
    expect(body.error.code).toBe(400);
    expect(body.error.message).toContain(word);
  });

  it('belong to the key that created them', async () => {
    const alice = emu.keyFor('bsc', 'alice');
    const created = await call(emu, `${BASE}?${query({ name: 'Alice', planId: PLAN })}`, { method: 'POST', key: alice });
    const path = created.body.path;
    const mine = await call(emu, BASE, { key: alice });
    expect(mine.body.data.map((s: { path: string }) => s.path)).toEqual([path]);
    const theirs = await call(emu, BASE);
    expect(theirs.body.data.map((s: { path: string }) => s.path)).not.toContain(path);
    const byPlan = await call(emu, `/v1/bsc/fixed-recurring/plans/${PLAN}/short-urls`);
    expect(byPlan.body.data.map((s: { path: string }) => s.path)).not.toContain(path);
    expect((await call(emu, `${BASE}/${path}`)).status).toBe(404);
    expect((await call(emu, `${BASE}/${path}?name=x`, { method: 'PUT' })).status).toBe(404);
    expect((await call(emu, `${BASE}/${path}`, { method: 'DELETE' })).status).toBe(404);
    expect((await call(emu, `${BASE}/${path}`, { key: alice })).status).toBe(200);
  });
});

describe('webhooks and notifications', () => {
  let receiver: Server;
  let receiverUrl: string;
  const received: { body: string; contentType: string | undefined }[] = [];
  let failuresLeft = 0;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (failuresLeft > 0) {
          failuresLeft--;
          res.writeHead(503).end();
          return;
        }
        received.push({ body, contentType: req.headers['content-type'] });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  const hook = `/v1/bsc/fixed-recurring/plans/${PLAN}/webhook`;

  it('sets, reads and removes a plan webhook', async () => {
    const other = `/v1/bsc/fixed-recurring/plans/0x${'1'.repeat(64)}/webhook`;
    expect((await call(emu, other)).status).toBe(404);
    expect((await call(emu, other, { method: 'PUT', body: { webhook: 'not a url' } })).status).toBe(400);
    expect((await call(emu, other, { method: 'PUT', body: { webhook: 'https://a.example/x' } })).body).toEqual({ webhook: 'https://a.example/x' });
    expect((await call(emu, other, { method: 'PUT', body: { webhook: 'https://b.example/y' } })).status).toBe(200);
    expect((await call(emu, other)).body).toEqual({ webhook: 'https://b.example/y' });
    expect((await call(emu, other, { method: 'DELETE' })).body).toEqual({ deleted: true });
    expect((await call(emu, other)).status).toBe(404);
    expect((await call(emu, other, { method: 'DELETE' })).status).toBe(404);
  });

  it('checks path ids against the API\'s patterns: a webhook on plans/nonsense is a 400 in the API\'s error body, nothing stored', async () => {
    // Mutant killed: checkPathParams not called (the emulator stored a webhook on "nonsense" and answered 200).
    const before = emu.records('bsc', 'fixed-recurring/webhooks').records.length;
    for (const bad of ['nonsense', `0x${'1'.repeat(63)}`, `0x${'g'.repeat(64)}`]) {
      const put = await call(emu, `/v1/bsc/fixed-recurring/plans/${bad}/webhook`, { method: 'PUT', body: { webhook: 'https://a.example/x' } });
      expect(put).toMatchObject({
        status: 400,
        body: { error: { code: 400, message: `Invalid planId ${JSON.stringify(bad)}: expected 0x followed by 64 hex characters` } },
      });
    }
    expect(emu.records('bsc', 'fixed-recurring/webhooks').records.length).toBe(before);
    expect((await call(emu, '/v1/bsc/fixed-recurring/plans/nonsense/webhook')).status).toBe(400);
    expect((await call(emu, '/v1/bsc/fixed-recurring/plans/nonsense/webhook', { method: 'DELETE' })).status).toBe(400);
    expect((await call(emu, '/v1/bsc/fixed-recurring/subscriptions/0x12/billings')).body.error.message).toMatch(/^Invalid subscriptionId "0x12"/);
    expect((await call(emu, '/v1/bsc/wallet-to-wallet/payments/0x12')).body.error.message).toMatch(/^Invalid id "0x12": expected a UUID/);
    // A well-formed id the emulator does not know stays a 404; a short url code keeps its own pattern.
    expect((await call(emu, `/v1/bsc/fixed-recurring/plans/0x${'1'.repeat(64)}/billings`)).status).toBe(200);
    expect((await call(emu, `/v1/bsc/one-time/0x${'ab'.repeat(32)}`)).status).toBe(404);
    expect((await call(emu, `${BASE}/no.such`)).status).toBe(400);
    expect((await call(emu, `${BASE}/nosuch`)).status).toBe(404);
  });

  it('trigger takes the chain\'s demo key: without it (or with another chain\'s) 401, nothing stored or delivered', async () => {
    // Mutant killed: the trigger route left open (a page in the browser could make the emulator post to the user's webhooks).
    const body = { chain: 'bsc', event: 'Billing', planId: PLAN };
    const before = emu.records('bsc', 'webhook-notifications').records.length;
    for (const key of [null, emu.keyFor('avax'), 'prk_demo_bsc_']) {
      const refused = await call(emu, '/_emulator/trigger', { method: 'POST', key, body });
      expect(refused.status, String(key)).toBe(401);
      expect(refused.body.error.code).toBe(401);
    }
    expect(emu.records('bsc', 'webhook-notifications').records.length).toBe(before);
  });

  it('trigger stores the notification and delivers it, retrying after failures', async () => {
    await call(emu, hook, { method: 'PUT', body: { webhook: receiverUrl } });
    failuresLeft = 2;
    const fired = await call(emu, '/_emulator/trigger', { method: 'POST', body: { chain: 'bsc', event: 'Billing', planId: PLAN } });
    expect(fired.status).toBe(200);
    expect(fired.body.delivered).toBe('pending');
    const n = fired.body.notification;
    // The extra parameters of the plan's latest short url that has some (any owner, any product).
    const urls = ['fixed-recurring/short-urls', 'on-demand/short-urls'].flatMap((c) => emu.records('bsc', c).records) as { planId: string; createdAt: number; params: { extra?: object } }[];
    const withExtra = urls.filter((u) => u.planId === PLAN && Object.keys(u.params.extra ?? {}).length > 0).sort((a, b) => a.createdAt - b.createdAt);
    expect(withExtra.length).toBeGreaterThan(0);
    expect(n).toMatchObject({ type: 'fixed-recurring', event: 'Billing', transactionStatus: 'confirmed', extra: withExtra[withExtra.length - 1].params.extra });
    expect(n.data).toMatchObject({ planId: PLAN, subscriptionId: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const { id, ...rest } = n;
    expect(id).toBe(createHash('sha256').update(JSON.stringify(rest)).digest('hex'));

    const stored = await call(emu, `/v1/bsc/webhook-notifications/${id}`);
    expect(stored.body).toEqual(n);

    await expect.poll(() => received.length, { timeout: 3000 }).toBe(1);
    expect(JSON.parse(received[0].body)).toEqual(n);
    expect(received[0].contentType).toBe('application/json');
    const deliveries = await call(emu, '/_emulator/deliveries', { key: null });
    const attempts = deliveries.body.filter((d: { notificationId: string }) => d.notificationId === id);
    expect(attempts.map((a: { status: number; attempt: number }) => [a.attempt, a.status])).toEqual([[1, 503], [2, 503], [3, 204]]);
  });

  it('gives up after the configured attempts, and does not deliver without a webhook', async () => {
    failuresLeft = 100;
    const fired = await call(emu, '/_emulator/trigger', { method: 'POST', body: { chain: 'bsc', event: 'SubscriptionTerminated', planId: PLAN } });
    const id = fired.body.notification.id;
    expect(fired.body.notification.data.forced).toBe(true);
    await expect
      .poll(async () => (await call(emu, '/_emulator/deliveries')).body.filter((d: { notificationId: string }) => d.notificationId === id).length, { timeout: 3000 })
      .toBe(4);
    failuresLeft = 0;
    await call(emu, hook, { method: 'DELETE' });
    const quiet = await call(emu, '/_emulator/trigger', { method: 'POST', body: { chain: 'bsc', event: 'Payment', planId: PLAN } });
    expect(quiet.body).toMatchObject({ delivered: false, notification: { type: 'one-time', event: 'Payment' } });
  });

  it.each([
    [{ chain: 'bsc', event: 'Explode', planId: PLAN }, 400],
    [{ chain: 'bsc', event: 'Payment', planId: PLAN, type: 'fixed-recurring' }, 400],
    [{ chain: 'bsc', event: 'Billing', planId: '0x1' }, 400],
    [{ chain: 'nope', event: 'Billing', planId: PLAN }, 404],
  ])('rejects trigger %j', async (body, status) => {
    const res = await call(emu, '/_emulator/trigger', { method: 'POST', body });
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(status);
  });
});

describe('control routes', () => {
  it('a Host other than its address or localhost on its port is refused, for control and API routes (DNS rebinding)', async () => {
    // Mutant killed: no Host check (a page whose name was rebound to 127.0.0.1 reads and drives the emulator).
    const withHost = (path: string, host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: emu.port, path, headers: { host, authorization: `Bearer ${emu.keyFor('bsc')}` } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end();
      });
    for (const path of ['/_emulator/fixtures?chain=bsc', '/v1/bsc/one-time/transfers?limit=1']) {
      expect(await withHost(path, `rebind.example:${emu.port}`), path).toBe(403);
      expect(await withHost(path, `127.0.0.1:${emu.port + 1}`), path).toBe(403);
      expect(await withHost(path, `localhost:${emu.port}`), path).toBe(200);
      expect(await withHost(path, `127.0.0.1:${emu.port}`), path).toBe(200);
      expect(await withHost(path, `[::1]:${emu.port}`), path).toBe(200);
    }
  });

  it('serves fixtures that match the data', async () => {
    const { body } = await call(emu, '/_emulator/fixtures?chain=bsc', { key: null });
    expect(body).toEqual(emu.fixtures('bsc'));
    expect(body.plans['fixed-recurring'][0]).toBe(PLAN);
    expect((await call(emu, '/_emulator/fixtures?chain=mars')).status).toBe(404);
  });

  it('appends records at a timestamp, visible to lists at once', async () => {
    const path = '/v1/bsc/scheduled-payments/transfers';
    const before = await call(emu, path);
    const at = 1_800_000_000;
    const added = await call(emu, '/_emulator/records', { method: 'POST', body: { chain: 'bsc', collection: 'scheduled-payments/transfers', count: 3, timestamp: at } });
    expect(added).toMatchObject({ status: 201, body: { appended: 3, total: before.body.total + 3 } });
    const after = await call(emu, `${path}?from=${at}&to=${at}`);
    expect(after.body.total).toBe(3);
    const middle = await call(emu, '/_emulator/records', { method: 'POST', body: { chain: 'bsc', collection: 'scheduled-payments/transfers', timestamp: 1_760_000_000 } });
    expect(middle.status).toBe(201);
    const asc = await call(emu, `${path}?sort=asc&limit=1000`);
    const ts = asc.body.data.map((r: { timestamp: number }) => r.timestamp);
    expect(ts).toEqual([...ts].sort((a: number, b: number) => a - b));
    expect((await call(emu, '/_emulator/records', { method: 'POST', body: { chain: 'bsc', collection: 'nope' } })).status).toBe(400);
    // Adding records takes the chain's demo key, as firing an event does (issue 48, item 6).
    const total = (await call(emu, path)).body.total;
    for (const key of [null, emu.keyFor('polygon'), 'prk_demo_bsc_'])
      expect((await call(emu, '/_emulator/records', { method: 'POST', key, body: { chain: 'bsc', collection: 'scheduled-payments/transfers' } })).status, String(key)).toBe(401);
    expect((await call(emu, path)).body.total).toBe(total);
  });
});
