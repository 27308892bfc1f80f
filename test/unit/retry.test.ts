import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { ApiError, MalformedResponseError, NetworkError } from '../../src/core/runtime/errors.js';
import { ApiClient, buildUrl, type ApiRequest } from '../../src/core/http/client.js';
import { backoffDelay, isRetryableStatus, parseRetryAfter, RETRY_BUDGET_MS } from '../../src/core/http/retry.js';

// The retry policy (retry.ts) as numbers, then the client applying it to a real
// HTTP server on loopback that fails on purpose.

describe('isRetryableStatus', () => {
  test.each([429, 500, 502, 503, 504])('%i is worth another try', (s) => expect(isRetryableStatus(s)).toBe(true));
  test.each([400, 401, 403, 404, 409, 422, 501, 505])('%i is not', (s) => expect(isRetryableStatus(s)).toBe(false));
});

describe('backoffDelay: exponential with full jitter', () => {
  test('spans [0, 250·2^attempt]: the random draw picks the point', () => {
    expect(backoffDelay(0, () => 0)).toBe(0);
    expect(backoffDelay(0, () => 0.999999)).toBe(250);
    expect(backoffDelay(1, () => 0.999999)).toBe(500);
    expect(backoffDelay(3, () => 0.5)).toBe(1000);
  });

  test('is capped at 8 s however many attempts came before', () => {
    expect(backoffDelay(5, () => 0.999999)).toBe(8000);
    expect(backoffDelay(30, () => 0.999999)).toBe(8000);
  });

  test('with Math.random every delay lies within its window', () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      for (let i = 0; i < 200; i++) {
        const d = backoffDelay(attempt);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(Math.min(8000, 250 * 2 ** attempt));
      }
    }
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);

  test('seconds become milliseconds', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter(' 3 ', now)).toBe(3000);
  });

  test('an HTTP date becomes the time left until it, never negative', () => {
    expect(parseRetryAfter(new Date(now + 5000).toUTCString(), now)).toBe(5000);
    expect(parseRetryAfter(new Date(now - 60_000).toUTCString(), now)).toBe(0);
  });

  test('is capped by the retry budget', () => {
    expect(parseRetryAfter('86400', now)).toBe(RETRY_BUDGET_MS);
  });

  test('absent or unreadable values give nothing', () => {
    for (const v of [undefined, '', 'soon', '-5', '1.5', 'Mon, 99 Foo 2026']) expect(parseRetryAfter(v, now)).toBeUndefined();
  });
});

/** A loopback server answering each request with the next scripted reply. */
type Script = (req: IncomingMessage, res: ServerResponse, n: number) => void;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

async function serve(script: Script): Promise<{ url: string; hits: { method: string; at: number }[] }> {
  const hits: { method: string; at: number }[] = [];
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits.push({ method: req.method!, at: Date.now() });
      script(req, res, hits.length);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, hits };
}

const ok = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
const fail = (res: ServerResponse, status: number, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ error: { code: status, message: 'nope' } }));

function client(url: string, retries: number, notices: string[] = []): ApiClient {
  return new ApiClient({
    baseUrl: url,
    chain: 'bsc',
    apiKey: 'prk_test',
    timeoutMs: 2000,
    retries,
    signal: new AbortController().signal,
    onRetry: (m) => notices.push(m),
  });
}

const GET: ApiRequest = { method: 'GET', path: '/one-time/transfers' };

describe('ApiClient retries', () => {
  test.each([429, 500, 502, 503, 504])('a GET answered %i is retried until it succeeds', async (status) => {
    const { url, hits } = await serve((_q, res, n) => (n < 3 ? fail(res, status, { 'retry-after': '0' }) : ok(res)));
    const notices: string[] = [];
    const c = client(url, 3, notices);
    await expect(c.json(GET)).resolves.toEqual({ ok: true });
    await c.close();
    expect(hits).toHaveLength(3);
    expect(notices).toHaveLength(2);
    expect(notices[0]).toMatch(new RegExp(`^retrying GET /v1/bsc/one-time/transfers in \\d+ (ms|s) after ${status}$`));
  });

  test('gives up after --retries more attempts with the last error', async () => {
    const { url, hits } = await serve((_q, res) => fail(res, 503));
    const c = client(url, 2);
    const err = await c.json(GET).catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).exitCode).toBe(6);
    expect(hits).toHaveLength(3);
  });

  test('--retries 0 sends once', async () => {
    const { url, hits } = await serve((_q, res) => fail(res, 500));
    const c = client(url, 0);
    await expect(c.json(GET)).rejects.toBeInstanceOf(ApiError);
    await c.close();
    expect(hits).toHaveLength(1);
  });

  test('Retry-After sets the least wait, and the notice says it in seconds', async () => {
    const { url, hits } = await serve((_q, res, n) => (n === 1 ? fail(res, 429, { 'retry-after': '1' }) : ok(res)));
    const notices: string[] = [];
    const c = client(url, 3, notices);
    await c.json(GET);
    await c.close();
    expect(hits[1].at - hits[0].at).toBeGreaterThanOrEqual(950);
    expect(notices).toEqual(['retrying GET /v1/bsc/one-time/transfers in 1 s after 429']);
  });

  test('a Retry-After beyond the budget is not waited for: the error comes at once', async () => {
    const { url, hits } = await serve((_q, res) => fail(res, 503, { 'retry-after': '3600' }));
    const notices: string[] = [];
    const c = client(url, 5, notices);
    await expect(c.json(GET)).rejects.toBeInstanceOf(ApiError);
    await c.close();
    // No wait announced, none made: a client that waited the hour would run into the test's timeout.
    expect(notices).toEqual([]);
    expect(hits).toHaveLength(1);
  });

  test('client errors are never retried', async () => {
    for (const status of [400, 401, 404]) {
      const { url, hits } = await serve((_q, res) => fail(res, status));
      const c = client(url, 3);
      await expect(c.json(GET)).rejects.toBeInstanceOf(ApiError);
      await c.close();
      expect(hits).toHaveLength(1);
      server!.closeAllConnections();
      await new Promise((r) => server!.close(r));
      server = undefined;
    }
  });

  test('a connection reset and a truncated body are retried for PUT and DELETE too', async () => {
    for (const method of ['PUT', 'DELETE'] as const) {
      const { url, hits } = await serve((req, res, n) => {
        if (n === 1) return req.socket.destroy();
        if (n === 2) return void res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' }).write('{"ok":', () => res.destroy());
        ok(res);
      });
      const c = client(url, 3);
      await expect(c.json({ method, path: '/fixed-recurring/short-urls/abc', body: {} })).resolves.toEqual({ ok: true });
      await c.close();
      expect(hits.map((h) => h.method)).toEqual([method, method, method]);
      server!.closeAllConnections();
      await new Promise((r) => server!.close(r));
      server = undefined;
    }
  });

  test('a timeout is retried, then reported as a network error (exit 7)', async () => {
    const { url, hits } = await serve(() => {}); // never answers
    const c = new ApiClient({ baseUrl: url, chain: 'bsc', apiKey: 'k', timeoutMs: 150, retries: 1, signal: new AbortController().signal });
    const err = await c.json(GET).catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).message).toMatch(/timed out after 0.15 s/);
    expect((err as NetworkError).exitCode).toBe(7);
    expect(hits).toHaveLength(2);
  });

  test('a POST that reached the server is not retried, whatever happened', async () => {
    for (const script of [(_q: IncomingMessage, res: ServerResponse) => fail(res, 503), (q: IncomingMessage) => q.socket.destroy()]) {
      const { url, hits } = await serve(script);
      const c = client(url, 5);
      await expect(c.json({ method: 'POST', path: '/fixed-recurring/short-urls', body: {} })).rejects.toThrow();
      await c.close();
      expect(hits).toHaveLength(1);
      server!.closeAllConnections();
      await new Promise((r) => server!.close(r));
      server = undefined;
    }
  });

  test('a POST refused before connecting is retried: it never reached anyone', async () => {
    // Take a free port, then close it so connections are refused.
    const { url } = await serve(() => {});
    server!.close();
    server = undefined;
    const notices: string[] = [];
    const c = client(url, 2, notices);
    const err = await c.json({ method: 'POST', path: '/fixed-recurring/short-urls', body: {} }).catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect(notices).toHaveLength(2);
    expect(notices[0]).toMatch(/after connection refused/);
  });

  test('a body that is not JSON is retried, then reported as exit 6', async () => {
    const { url, hits } = await serve((_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>'));
    const c = client(url, 1);
    const err = await c.json(GET).catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect((err as Error).message).toMatch(/not valid JSON \(text\/html, 24 bytes: <html>Bad Gateway<\/html>…\)/);
    expect(hits).toHaveLength(2);
  });
});

describe('buildUrl', () => {
  test('a path the URL parser would take outside /v1/<chain>/ is refused before any request', () => {
    // Mutant killed: no check of the parsed path (a backslash is read as /, and .. climbs to /admin).
    for (const path of ['/one-time\\..\\..\\..\\admin', '/x/../../../admin', '/..%5c..%5cadmin/../../..']) {
      expect(() => buildUrl('https://api.example/base', 'bsc', { method: 'GET', path }), path).toThrow(/outside \/base\/v1\/bsc\//);
    }
    expect(buildUrl('https://api.example/base/', 'bsc', { method: 'GET', path: '/one-time/transfers', query: { limit: 5 } }).href).toBe('https://api.example/base/v1/bsc/one-time/transfers?limit=5');
  });
});
