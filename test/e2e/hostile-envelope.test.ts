import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { payrec, tempDir } from './helpers.js';
import { CEILING } from '../../src/core/http/request-window.js';

// A service whose list envelope lies, written here rather than in the emulator: the
// client must not trust `total`, `limit` or the paging blindly. Each lie ends in one
// clear line, exit 6 and no --output file, never in a silently cut or endless export.

type Answer = (offset: number, limit: number) => { data: unknown[]; total: number };

let server: Server | undefined;
let requests = 0;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** Serves on-demand transfers through `answer` on an ephemeral loopback port. */
async function hostile(answer: Answer): Promise<string> {
  requests = 0;
  server = createServer((req, res) => {
    requests++;
    const url = new URL(req.url ?? '/', 'http://x');
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const { data, total } = answer(offset, limit);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data, limit, offset, total }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

/** The i-th transfer, newest first (the API's default order). */
function transfer(i: number) {
  const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');
  return {
    description: 'Plan payment',
    amount: '10.5',
    fee: '0.1',
    token: 'USDT',
    category: 'Subscription',
    timestamp: 1_760_000_000 - i,
    transactionHash: `0x${hex(i, 64)}`,
    transactionStatus: 'confirmed',
    sender: `0x${hex(1, 40)}`,
    receiver: `0x${hex(2, 40)}`,
    planId: `0x${hex(3, 64)}`,
    subscriptionId: `0x${hex(4, 64)}`,
  };
}

const range = (from: number, n: number) => Array.from({ length: Math.max(0, n) }, (_, i) => transfer(from + i));

async function exportFrom(url: string) {
  const dir = tempDir();
  const out = join(dir, 'transfers.csv');
  const r = await payrec(undefined, ['on-demand', 'transfers', '--all', '-f', 'csv', '-o', out], {
    env: { PAYREC_BASE_URL: url, PAYREC_API_KEY: 'prk_demo_bsc' },
  });
  return { ...r, written: existsSync(out), leftovers: readdirSync(dir) };
}

describe('an envelope that lies', () => {
  test('pages that end before the announced total: exit 6 naming the shortfall, no file', async () => {
    const url = await hostile((offset, limit) => ({ data: offset < 500 ? range(offset, Math.min(limit, 500 - offset)) : [], total: 5000 }));
    const r = await exportFrom(url);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/^error: the service announced 5,000 records but sent only 500: the list is incomplete\nhint: /);
    expect(r.written).toBe(false);
    expect(r.leftovers).toEqual([]);
  });

  test('pages longer than the limit asked: exit 6, not 3,100 rows for a total of 3,000', async () => {
    const url = await hostile((offset, limit) => ({ data: range(offset, limit + 100), total: 3000 }));
    const r = await exportFrom(url);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/^error: the service sent 1,100 records for a page of 1,000 at offset 0\n/);
    expect(r.written).toBe(false);
    expect(r.leftovers).toEqual([]);
  });

  test('the same page forever with a huge total: exit 6 after a few requests, not an endless run', async () => {
    const url = await hostile((_offset, limit) => ({ data: range(0, limit), total: 1_000_000_000 }));
    const r = await exportFrom(url);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/^error: the service returned the same records again at offset 1000: paging does not advance/);
    // The first page, then as many as the request window holds (it may have grown to its
    // ceiling by then) and the one launched as the repeated page was taken: never more.
    expect(requests).toBeLessThanOrEqual(1 + CEILING + 1);
    expect(r.written).toBe(false);
    expect(r.leftovers).toEqual([]);
  });

  test('an honest service of 2,500 records exports all of them (the checks cost nothing)', async () => {
    const url = await hostile((offset, limit) => ({ data: range(offset, Math.min(limit, 2500 - offset)), total: 2500 }));
    const r = await exportFrom(url);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(requests).toBe(3);
  });
});
