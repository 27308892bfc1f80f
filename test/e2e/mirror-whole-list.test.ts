import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { payrec, tempDir } from './helpers.js';
import { sql } from './mirror-helpers.js';

// A list without a time window (short urls) is synced whole, and what it no longer
// lists is removed from the mirror. Such a list can lose a record while it is read:
// offsets shift, and a record that moves across a page boundary is not read. The
// mirror must not take it for deleted. A server of the test's own deletes a short url
// right after the first page is served, so the shift happens on every such sync.

const COUNT = 2500;
const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');

function shortUrl(i: number) {
  return {
    path: `u${hex(i, 5)}`,
    name: `Link ${i}`,
    planId: `0x${hex(7, 64)}`,
    createdAt: 1_760_000_000 + i,
    updatedAt: 1_760_000_000 + i,
    params: {},
    link: `https://pay.example/u${hex(i, 5)}`,
  };
}

let server: Server;
let url: string;
let list = Array.from({ length: COUNT }, (_, i) => shortUrl(i));
/** Deleted right after the next first page is served, when set. */
let deleteAfterFirstPage: string | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname !== '/v1/bsc/fixed-recurring/short-urls') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 404, message: 'Page not found' } }));
      return;
    }
    const offset = Number(u.searchParams.get('offset') ?? 0);
    const limit = Number(u.searchParams.get('limit') ?? 100);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: list.slice(offset, offset + limit), limit, offset, total: list.length }));
    if (offset === 0 && deleteAfterFirstPage) {
      list = list.filter((s) => s.path !== deleteAfterFirstPage);
      deleteAfterFirstPage = undefined;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('a whole list that changes while it is synced', () => {
  test('a record that moved across a page boundary is kept; the one really deleted goes at the next sync', async () => {
    const db = join(tempDir(), 'mirror.duckdb');
    const env = { PAYREC_BASE_URL: url, PAYREC_API_KEY: 'prk_demo_bsc' };
    const sync = async () => {
      const r = await payrec(undefined, ['sync', 'fr/short-urls', '--db', db, '-f', 'json'], { env });
      expect(r.exitCode).toBe(0);
      return { report: (JSON.parse(r.stdout) as { fetched: number; new: number; deleted: number }[])[0], stderr: r.stderr };
    };
    const paths = async () => (await sql(db, 'SELECT path FROM fixed_recurring_short_urls ORDER BY path')).map((r) => r.path as string);
    const everyPath = (ids: number[]) => ids.map((i) => shortUrl(i).path);
    const all = Array.from({ length: COUNT }, (_, i) => i);

    const first = await sync();
    expect(first.stderr).toBe('');
    expect(first.report).toMatchObject({ fetched: COUNT, new: COUNT, deleted: 0 });
    expect(await paths()).toEqual(everyPath(all));

    // u0000a goes after the first page: u003e8 (index 1000) slides onto that page and is not read.
    deleteAfterFirstPage = shortUrl(10).path;
    const during = await sync();
    expect(during.report).toMatchObject({ fetched: COUNT - 1, deleted: 0 });
    expect(during.stderr).toBe('warning: fixed_recurring_short_urls: the list changed while it was read; records it no longer lists are removed at the next sync\n');
    expect(await paths()).toEqual(everyPath(all));

    const after = await sync();
    expect(after.stderr).toBe('');
    expect(after.report).toMatchObject({ fetched: COUNT - 1, new: 0, deleted: 1 });
    expect(await paths()).toEqual(everyPath(all.filter((i) => i !== 10)));
  });
});
