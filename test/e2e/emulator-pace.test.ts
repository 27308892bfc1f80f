import { describe, expect, test } from 'vitest';
import type { RequestLogEntry } from '../../src/emulator/index.js';
import { emulator, payrec, until } from './helpers.js';

// The emulator far away and strict: its latency setting (every API request waits before
// it is handled) and its rate limit (a token bucket, 429 with Retry-After beyond), and the
// request log's arrival and answer times on its own clock, which tell what was in flight.

describe('payrec emulator start --latency --rate-limit', () => {
  test('says how far and how strict its API is, and answers 429 with Retry-After beyond the limit', async () => {
    const child = payrec(undefined, ['emulator', 'start', '--port', '0', '--records', '10', '--latency', '100', '--rate-limit', '2']);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    try {
      await until('the emulator to start', () => out.includes('Press Ctrl-C') || child.exitCode !== null);
      expect(out).toContain('The API answers 100 ms away, at most 2 requests/s (429 with Retry-After beyond).');
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
      // Three at once: the bucket holds two.
      const answers = await Promise.all([0, 1, 2].map(() => fetch(`${url}/v1/bsc/one-time/transfers?limit=1`, { headers: { authorization: 'Bearer prk_demo_bsc' } })));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 429]);
      expect(answers.find((a) => a.status === 429)!.headers.get('retry-after')).toBe('1');
      // Control routes are neither slowed nor counted.
      const log = (await (await fetch(`${url}/_emulator/requests`)).json()) as RequestLogEntry[];
      expect(log.map((q) => q.status).sort()).toEqual([200, 200, 429]);
      for (const q of log) expect(q.answered).toBeGreaterThan(q.received);
    } finally {
      child.kill('SIGINT');
      await child;
    }
  });
});

describe('the request log', () => {
  test('each API request has its arrival and its answer on the emulator\'s clock', async () => {
    const emu = await emulator({ records: 10, latencyMs: 30 });
    try {
      const ask = () => fetch(`${emu.url}/v1/bsc/one-time/transfers?limit=1`, { headers: { authorization: `Bearer ${emu.keyFor('bsc')}` } });
      await ask();
      await ask();
      const [a, b] = emu.requests;
      expect(a.answered).toBeGreaterThan(a.received);
      // One after the other: the second arrived after the first was answered.
      expect(b.received).toBeGreaterThan(a.answered);
    } finally {
      await emu.close();
    }
  });
});
