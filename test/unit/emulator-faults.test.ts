import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { call, start } from './emulator-helpers.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const PATH = '/v1/bsc/one-time/transfers?limit=5';

/** Outcome of one request: its status, or how the connection failed. */
async function outcome(e: Emulator): Promise<string> {
  try {
    const res = await fetch(`${e.url}${PATH}`, { headers: { authorization: `Bearer ${e.keyFor('bsc')}` } });
    await res.text();
    return String(res.status);
  } catch {
    return 'failed';
  }
}

async function sequence(e: Emulator, n: number): Promise<string[]> {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await outcome(e));
  return out;
}

describe('fault injection', () => {
  it('is deterministic for a seed and spares control routes', async () => {
    const faults = { rate: 0.5, kinds: ['500', '502', '503', '429'] as const, seed: 7 };
    emu = await start();
    const set = await call(emu, '/_emulator/faults', { method: 'POST', key: null, body: faults });
    expect(set.status).toBe(200);
    const first = await sequence(emu, 30);
    expect((await call(emu, '/_emulator/fixtures?chain=bsc')).status).toBe(200);
    await call(emu, '/_emulator/faults', { method: 'POST', body: faults });
    const second = await sequence(emu, 30);
    expect(second).toEqual(first);
    expect(new Set(first)).toEqual(new Set(['200', '500', '502', '503', '429']));
    expect(emu.requests.map((r) => String(r.status))).toEqual([...first, ...second]);

    await call(emu, '/_emulator/faults', { method: 'DELETE' });
    expect(new Set(await sequence(emu, 10))).toEqual(new Set(['200']));
  });

  it('sends the error body and Retry-After on 429', async () => {
    emu = await start({ faults: { rate: 1, kinds: ['429'], retryAfter: 3 } });
    const res = await call(emu, PATH);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(res.body).toEqual({ error: { code: 429, message: expect.any(String) } });
  });

  it('resets the connection', async () => {
    emu = await start({ faults: { rate: 1, kinds: ['reset'] } });
    expect(await outcome(emu)).toBe('failed');
    expect(emu.requests.at(-1)?.status).toBe(0);
  });

  it('truncates the body below its announced length', async () => {
    emu = await start({ faults: { rate: 1, kinds: ['truncate'] } });
    const { announced, got } = await new Promise<{ announced: number; got: number }>((resolve) => {
      const req = request(`${emu!.url}${PATH}`, { headers: { authorization: 'Bearer prk_demo_bsc' } }, (res) => {
        let got = 0;
        res.on('data', (c: Buffer) => (got += c.length));
        res.on('error', () => undefined);
        res.on('close', () => resolve({ announced: Number(res.headers['content-length']), got }));
      });
      req.on('error', () => undefined);
      req.end();
    });
    expect(got).toBeGreaterThan(0);
    expect(got).toBeLessThan(announced);
    expect(await outcome(emu)).toBe('failed');
  });

  it('delays a slow response', async () => {
    emu = await start({ faults: { rate: 1, kinds: ['slow'], slowMs: 150 } });
    const t = performance.now();
    expect(await outcome(emu)).toBe('200');
    expect(performance.now() - t).toBeGreaterThanOrEqual(140);
  });

  it('rejects bad fault settings', async () => {
    emu = await start();
    expect((await call(emu, '/_emulator/faults', { method: 'POST', body: { rate: 2 } })).status).toBe(400);
    expect((await call(emu, '/_emulator/faults', { method: 'POST', body: { rate: 0.5, kinds: ['boom'] } })).status).toBe(400);
  });
});
