import { describe, expect, test } from 'vitest';
import { payrec, until } from './helpers.js';

// `payrec emulator start --live RATE` through the built binary: the banner says what the
// traffic does, records arrive over HTTP, and a list read at a quiet moment equals the
// ground truth the emulator reports. Bad values are in bad-input.test.ts.

type Rec = Record<string, any>;

/**
 * Starts `payrec emulator start …` and resolves with its URL and banner once it is ready.
 * Its generated data lies in 2025, so whatever is stamped near now came live.
 */
async function startServer(args: string[]) {
  const child = payrec(undefined, ['emulator', 'start', '--port', '0', '--records', '50', '--now', '2026-01-01', ...args]);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  await until('the emulator to start', () => {
    if (child.exitCode !== null) throw new Error(`the emulator did not start: ${out}`);
    return out.includes('Press Ctrl-C');
  });
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
  const control = async (method: string, path: string) => (await fetch(`${url}/_emulator${path}`, { method })).json() as Promise<Rec>;
  return { child, url, banner: out, control };
}

describe('emulator start --live', () => {
  test('prints the live settings; records arrive over HTTP, and a list read once they settle equals the ground truth', async () => {
    const started = Math.floor(Date.now() / 1000);
    const { child, url, banner, control } = await startServer(['--live', '200']);
    try {
      expect(banner).toContain('Live traffic: 200 records/s, 20 % late (up to 10m), 30 % pending\n');
      expect(banner).toContain(`  status, start, stop: GET|POST|DELETE ${url}/_emulator/live\n`);
      expect(banner).toContain(`  ground truth:        GET ${url}/_emulator/records?chain=bsc&collection=one-time/transfers\n`);

      const status = await control('GET', '/live');
      expect(status).toMatchObject({ running: true, rate: 200, lateFraction: 0.2, lateMaxSeconds: 600, pendingFraction: 0.3, chains: ['bsc', 'ethereum', 'polygon', 'sandbox'] });
      expect(status.collections).toContain('one-time/transfers');
      await until('600 records', async () => (await control('GET', '/live')).inserted >= 600);

      expect((await control('DELETE', '/live')).running).toBe(false);
      await until('no record pending', async () => (await control('GET', '/live')).pending === 0);

      // Everything since start, late ones included (at most 10 minutes late).
      const from = started - 600;
      const listed = await payrec(undefined, ['one-time', 'transfers', '--from', String(from), '--all', '-f', 'jsonl'], {
        env: { PAYREC_BASE_URL: url, PAYREC_API_KEY: 'prk_demo_bsc' },
      });
      expect(listed.stderr).toBe('');
      expect(listed.exitCode).toBe(0);
      const truth = (await control('GET', '/records?chain=bsc&collection=one-time/transfers')) as { records: Rec[]; arrivals: number[] };
      const expected = truth.records.filter((r) => r.timestamp >= from).reverse();
      expect(truth.arrivals.filter((a) => a > 0).length).toBe(expected.length);
      expect(expected.length).toBeGreaterThan(0);
      expect(listed.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l))).toEqual(expected);
      for (const r of expected) expect(['confirmed', 'failed']).toContain(r.transactionStatus);
    } finally {
      child.kill('SIGINT');
      expect((await child).exitCode).toBe(130);
    }
  });

  test('takes its own lateness, maximum and pending share, and says so', async () => {
    const { child, banner, control } = await startServer(['--live', '0.5', '--late-fraction', '0', '--late-max', '90s', '--pending-fraction', '1']);
    try {
      expect(banner).toContain('Live traffic: 0.5 records/s, 0 % late (up to 90s), 100 % pending\n');
      expect(await control('GET', '/live')).toMatchObject({ running: true, rate: 0.5, lateFraction: 0, lateMaxSeconds: 90, pendingFraction: 1 });
    } finally {
      child.kill('SIGINT');
      await child;
    }
  });

  test('without --live there is no traffic and no live line', async () => {
    const { child, banner, control } = await startServer([]);
    try {
      expect(banner).not.toContain('Live traffic');
      expect(await control('GET', '/live')).toMatchObject({ running: false, inserted: 0, seq: 0 });
    } finally {
      child.kill('SIGINT');
      await child;
    }
  });
});
