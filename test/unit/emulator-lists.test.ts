import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { DOC_PLAN_ID } from '../../src/emulator/doc-examples.js';
import { NOW, call, start } from './emulator-helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await start();
});
afterAll(() => emu.close());

const TRANSFERS = '/v1/bsc/one-time/transfers';
type Rec = { timestamp: number; [k: string]: unknown };

async function all(path: string, query = ''): Promise<Rec[]> {
  const { body } = await call(emu, `${path}?limit=1000${query}`);
  return body.data;
}

describe('list envelope and paging', () => {
  it('answers the envelope with defaults limit 100, offset 0, desc', async () => {
    const { status, headers, body } = await call(emu, TRANSFERS);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(body)).toEqual(['data', 'limit', 'offset', 'total']);
    expect(body).toMatchObject({ limit: 100, offset: 0, total: 250 });
    expect(body.data).toHaveLength(100);
    const ts = body.data.map((r: Rec) => r.timestamp);
    expect(ts).toEqual([...ts].sort((a, b) => b - a));
  });

  it('pages with limit and offset; the last page is short', async () => {
    const full = await all(TRANSFERS);
    const { body } = await call(emu, `${TRANSFERS}?limit=30&offset=240`);
    expect(body).toMatchObject({ limit: 30, offset: 240, total: 250 });
    expect(body.data).toEqual(full.slice(240));
    const past = await call(emu, `${TRANSFERS}?offset=999`);
    expect(past.body).toMatchObject({ data: [], total: 250 });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=x', 'offset'],
    ['from=yesterday', 'from'],
    ['to=1.5', 'to'],
    ['sort=up', 'sort'],
  ])('rejects %s with 400 and the error body', async (query, word) => {
    const { status, body } = await call(emu, `${TRANSFERS}?${query}`);
    expect(status).toBe(400);
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error.code).toBe(400);
    expect(body.error.message).toContain(word);
  });

  it('accepts limit 1000 and ignores unknown parameters', async () => {
    const { status, body } = await call(emu, `${TRANSFERS}?limit=1000&colour=blue`);
    expect(status).toBe(200);
    expect(body.data).toHaveLength(250);
  });
});

describe('time window and sort', () => {
  it('from and to are inclusive', async () => {
    const records = await all(TRANSFERS, '&sort=asc');
    const a = records[10].timestamp;
    const b = records[20].timestamp;
    const inWindow = records.filter((r) => r.timestamp >= a && r.timestamp <= b);
    const got = await all(TRANSFERS, `&sort=asc&from=${a}&to=${b}`);
    expect(got).toEqual(inWindow);
    expect(got[0].timestamp).toBe(a);
    expect(got.at(-1)!.timestamp).toBe(b);
    const exact = await all(TRANSFERS, `&from=${a}&to=${a}`);
    expect(exact.length).toBeGreaterThan(0);
    expect(exact.every((r) => r.timestamp === a)).toBe(true);
  });

  it('data lies in the year before now; to defaults to now', async () => {
    const records = await all(TRANSFERS);
    expect(records.every((r) => r.timestamp < NOW && r.timestamp >= NOW - 365 * 86400)).toBe(true);
    const { body } = await call(emu, `${TRANSFERS}?from=${NOW}`);
    expect(body.total).toBe(0);
  });

  it('has equal timestamps, and desc is the exact reverse of asc', async () => {
    const asc = await all(TRANSFERS, '&sort=asc');
    const desc = await all(TRANSFERS, '&sort=desc');
    expect(desc).toEqual([...asc].reverse());
    const collisions = asc.filter((r, i) => i > 0 && asc[i - 1].timestamp === r.timestamp);
    expect(collisions.length).toBeGreaterThan(0);
  });

  it('pages of a window add up to the whole window, in either order', async () => {
    for (const sort of ['asc', 'desc']) {
      const whole = await all(TRANSFERS, `&sort=${sort}`);
      const pages = [];
      for (let offset = 0; offset < 250; offset += 7) {
        const { body } = await call(emu, `${TRANSFERS}?sort=${sort}&limit=7&offset=${offset}`);
        pages.push(...body.data);
      }
      expect(pages).toEqual(whole);
    }
  });
});

describe('filters and path parameters', () => {
  it('filters by the record field, addresses case-insensitively', async () => {
    const sender = emu.fixtures('bsc').addresses.senders[0];
    const upper = `0x${sender.slice(2).toUpperCase()}`;
    const records = await all(TRANSFERS, `&sender=${upper}`);
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => String(r.sender).toLowerCase() === sender.toLowerCase())).toBe(true);
    const token = await all(TRANSFERS, '&token=USDT');
    expect(token.length).toBeGreaterThan(0);
    expect(token.every((r) => r.token === 'USDT')).toBe(true);
    const { body } = await call(emu, `${TRANSFERS}?token=NOPE`);
    expect(body).toMatchObject({ data: [], total: 0 });
  });

  it('receiver of a payment matches any of its receivers', async () => {
    const receiver = emu.fixtures('bsc').addresses.receivers[1];
    const records = await all('/v1/bsc/one-time', `&receiver=${receiver}`);
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) expect((r.receivers as { user: string }[]).some((x) => x.user === receiver)).toBe(true);
  });

  it('billings of the documented plan exist, without the internal planId', async () => {
    const records = await all(`/v1/bsc/fixed-recurring/plans/${DOC_PLAN_ID}/billings`);
    expect(records.length).toBeGreaterThan(10);
    expect(records.every((r) => !('planId' in r))).toBe(true);
    const subs = new Set(records.map((r) => r.subscriptionId));
    const sub = [...subs][0] as string;
    const bySub = await all(`/v1/bsc/fixed-recurring/subscriptions/${sub}/billings`);
    expect(bySub.length).toBeGreaterThan(0);
    expect(bySub.every((r) => r.subscriptionId === sub)).toBe(true);
    const none = await call(emu, `/v1/bsc/fixed-recurring/plans/0x${'0'.repeat(64)}/billings`);
    expect(none.body).toMatchObject({ data: [], total: 0 });
  });

  it('wallet-to-wallet emails are hidden but filterable by the real address', async () => {
    const records = await all('/v1/bsc/wallet-to-wallet/payments', '&email=ana@example.com');
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => r.email === '********')).toBe(true);
    const transfers = await all('/v1/bsc/wallet-to-wallet/transfers', '&email=ana@example.com');
    expect(transfers.length).toBeGreaterThan(0);
    const unfiltered = await call(emu, '/v1/bsc/wallet-to-wallet/transfers?limit=1000');
    expect(transfers.length).toBeLessThan(unfiltered.body.total);
  });

  it('literal segments win: /one-time/transfers is the list, /one-time/:id one payment', async () => {
    const list = await call(emu, TRANSFERS);
    expect(list.body.total).toBe(250);
    const id = emu.fixtures('bsc').oneTimePayments[3];
    const one = await call(emu, `/v1/bsc/one-time/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(id);
    const missing = await call(emu, `/v1/bsc/one-time/0x${'a'.repeat(64)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe(404);
  });

  it('single records by subscription, strategy executions, and the documented notification', async () => {
    const fx = emu.fixtures('bsc');
    const cancellations = await all(`/v1/bsc/fixed-recurring/plans/${fx.plans['fixed-recurring'][1]}/cancellations`);
    const sub = cancellations[0].subscriptionId as string;
    const single = await call(emu, `/v1/bsc/fixed-recurring/subscriptions/${sub}/cancellation`);
    expect(single.body).toEqual(cancellations[0]);
    const executions = await all(`/v1/bsc/dollar-cost-average/strategies/${fx.strategies[0]}/executions`);
    expect(executions.length).toBeGreaterThan(0);
    const w2w = await call(emu, `/v1/bsc/wallet-to-wallet/payments/${fx.walletToWalletPayments[0]}`);
    expect(w2w.body.id).toBe(fx.walletToWalletPayments[0]);
    const n = await call(emu, `/v1/polygon/webhook-notifications/${fx.notifications[0]}`, { chain: 'polygon' });
    expect(n.body).toMatchObject({ type: 'one-time', event: 'Payment', timestamp: 1585220116, extra: { banner: 'BR69', traffic: 'facebook' } });
  });

  it('short url lists show the caller’s own, newest first, and include the documented f9yth', async () => {
    const { body } = await call(emu, '/v1/ethereum/fixed-recurring/short-urls', { chain: 'ethereum' });
    expect(body.data.map((s: { path: string }) => s.path).sort()).toEqual([...emu.fixtures('ethereum').shortUrls['fixed-recurring']].sort());
    const created = body.data.map((s: { createdAt: number }) => s.createdAt);
    expect(created).toEqual([...created].sort((a: number, b: number) => b - a));
    const f9 = await call(emu, '/v1/ethereum/fixed-recurring/short-urls/f9yth', { chain: 'ethereum' });
    expect(f9.body).toMatchObject({ name: 'Facebook banner', planId: DOC_PLAN_ID, link: 'https://8pay.me/f9yth' });
    const byPlan = await call(emu, `/v1/ethereum/fixed-recurring/plans/${DOC_PLAN_ID}/short-urls`, { chain: 'ethereum' });
    expect(byPlan.body.data.map((s: { path: string }) => s.path)).toContain('f9yth');
  });
});

describe('keys, chains and routes', () => {
  it.each([
    ['no header', null],
    ['another chain’s key', 'prk_demo_ethereum'],
    ['a malformed key', 'prk_demo_bsc_UPPER'],
    ['a random key', 'sk_live_123'],
  ])('answers 401 for %s', async (_, key) => {
    const { status, body } = await call(emu, TRANSFERS, { key });
    expect(status).toBe(401);
    expect(body).toEqual({ error: { code: 401, message: expect.any(String) } });
  });

  it('accepts another user of the chain', async () => {
    expect((await call(emu, TRANSFERS, { key: 'prk_demo_bsc_alice' })).status).toBe(200);
  });

  it('answers 404 for an unknown chain or route', async () => {
    expect((await call(emu, '/v1/solana/one-time/transfers', { key: 'prk_demo_solana' })).status).toBe(404);
    const unknown = await call(emu, '/v1/bsc/nothing-here');
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 404, message: 'Page not found' } } });
    expect((await call(emu, TRANSFERS, { method: 'POST' })).status).toBe(404);
  });

  it('logs API requests without the key, and not control routes', async () => {
    emu.clearLog();
    const before = Date.now();
    await call(emu, `${TRANSFERS}?limit=5&token=USDT`);
    const after = Date.now();
    await call(emu, '/_emulator/fixtures?chain=bsc');
    expect(emu.requests).toEqual([
      { method: 'GET', path: TRANSFERS, query: { limit: '5', token: 'USDT' }, status: 200, connection: expect.any(Number), seq: 0, at: expect.any(Number), received: expect.any(Number), answered: expect.any(Number) },
    ]);
    expect(emu.requests[0].at).toBeGreaterThanOrEqual(before);
    expect(emu.requests[0].at).toBeLessThanOrEqual(after);
    const log = await call(emu, '/_emulator/requests');
    expect(log.body).toEqual(emu.requests);
    expect(JSON.stringify(log.body)).not.toContain('prk_demo');
  });
});

describe('data', () => {
  it('is deterministic for a seed and differs between seeds', async () => {
    const twin = await start();
    const other = await start({ seed: 2 });
    try {
      const a = await call(emu, `${TRANSFERS}?limit=50`);
      const b = await call(twin, `${TRANSFERS}?limit=50`);
      const c = await call(other, `${TRANSFERS}?limit=50`);
      expect(b.body).toEqual(a.body);
      expect(c.body).not.toEqual(a.body);
    } finally {
      await Promise.all([twin.close(), other.close()]);
    }
  });

  it('holds realistic and hostile values', async () => {
    const payments = await all('/v1/bsc/one-time');
    const transfers = await all(TRANSFERS);
    const text = JSON.stringify([payments, transfers]);
    // Large amounts, with more significant digits than a double holds, that still fit DECIMAL(38,18).
    expect(text).toMatch(/"amount":"[1-9]\d{8,13}\.\d{4,}"/);
    expect(text).not.toMatch(/"amount":"\d{21,}/);
    expect(text).toContain('\\u001b[31m');
    expect(text).toContain('"transactionStatus":"pending"');
    expect(payments.every((p) => /^0x[0-9a-f]{64}$/.test(p.id as string))).toBe(true);
    expect(transfers.every((t) => /^0x[0-9a-fA-F]{40}$/.test(t.sender as string))).toBe(true);
    const w2w = await all('/v1/bsc/wallet-to-wallet/payments');
    expect(w2w.every((p) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(p.id as string))).toBe(true);
  });
});

describe('every registry read endpoint', () => {
  it('answers records that its record schema accepts', async () => {
    const { endpoints } = await import('../../src/registry/endpoints.js');
    const { envelope } = await import('../../src/registry/schemas.js');
    const fx = emu.fixtures('sandbox');
    const values: Record<string, string> = {
      planId: DOC_PLAN_ID,
      subscriptionId: fx.subscriptions['fixed-recurring'][0],
      strategyId: fx.strategies[0],
      id: fx.oneTimePayments[0],
      path: 'f9yth',
      notificationId: fx.notifications[0],
    };
    for (const e of endpoints.filter((x) => x.method === 'GET' && !x.id.includes('webhook.get'))) {
      let path = `/v1/sandbox${e.path}`;
      for (const p of e.params) {
        let value = values[p.name];
        if (e.product === 'variable-recurring' && p.name === 'subscriptionId') value = fx.subscriptions['variable-recurring'][0];
        // A fixed-recurring subscription that has a cancellation, from the emulator's facts.
        if (e.id === 'fixed-recurring.cancellation') value = emu.subscriptions('sandbox').subscriptions.find((s) => s.cancelledAt !== null)!.subscriptionId;
        if (e.product === 'variable-recurring' && p.name === 'planId') value = fx.plans['variable-recurring'][0];
        if (e.product === 'on-demand' && p.name === 'planId') value = fx.plans['on-demand'][0];
        if (e.product === 'wallet-to-wallet' && p.name === 'id') value = fx.walletToWalletPayments[0];
        if (e.product === 'on-demand' && p.name === 'path') value = fx.shortUrls['on-demand'][0];
        path = path.replace(`:${p.name}`, value);
      }
      const { status, body } = await call(emu, path, { chain: 'sandbox' });
      const records = e.kind === 'list' ? envelope.parse(body).data : [body];
      expect(status, `${e.id} ${path}`).toBe(200);
      if (e.kind === 'list' && !e.id.includes('short-urls') && !e.id.includes('.cancellation')) expect(records.length, e.id).toBeGreaterThan(0);
      for (const r of records) expect(e.record.safeParse(r).success, `${e.id}: ${JSON.stringify(r)}`).toBe(true);
    }
  });
});
