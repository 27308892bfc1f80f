import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { payrec, suiteEmulators, tempDir } from './helpers.js';

// Settings that stay (issue 23, item 10): tz, format, db, timeout and retries kept per
// profile by config set, below flags and environment variables, and config list saying
// where each comes from.

const s = suiteEmulators();

const berlin = (t: number) =>
  new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(new Date(t * 1000));
const utc = (t: number) => new Date(t * 1000).toISOString().slice(0, 19).replace('T', ' ');

describe('config set keeps run defaults per profile', () => {
  it('tz and format stored in the profile apply, an environment variable and a flag still win', async () => {
    const env = { PAYREC_CONFIG_DIR: tempDir() };
    expect((await payrec(s.emu, ['config', 'set', 'tz', 'europe/berlin'], { env })).exitCode).toBe(0);
    expect((await payrec(s.emu, ['config', 'set', 'format', 'csv'], { env })).exitCode).toBe(0);
    const newest = s.emu.records('bsc', 'one-time/transfers').records.at(-1)!.timestamp as number;
    const list = ['ot', 'transfers', '--limit', '1', '--columns', 'timestamp', '-q'];
    const stored = await payrec(s.emu, list, { env });
    expect(stored.stdout).toBe(`timestamp\r\n${berlin(newest)}\r\n`);
    const byEnv = await payrec(s.emu, list, { env: { ...env, PAYREC_TZ: 'UTC' } });
    expect(byEnv.stdout).toBe(`timestamp\r\n${utc(newest)}\r\n`);
    const byFlag = await payrec(s.emu, [...list, '--tz', 'UTC', '-f', 'json', '--time-format', 'unix'], { env: { ...env, PAYREC_TZ: 'Asia/Tokyo' } });
    expect(JSON.parse(byFlag.stdout)).toEqual([{ timestamp: newest }]);
    const shown = await payrec(s.emu, ['config', 'list'], { env: { ...env, PAYREC_FORMAT: 'json' } });
    expect(shown.stdout).toMatch(/"tz": \{\s*"value": "Europe\/Berlin",\s*"source": "profile default"/);
    expect(shown.stdout).toMatch(/"format": \{\s*"value": "json",\s*"source": "env PAYREC_FORMAT"/);
  });

  it('db stored in the profile is where sync writes the mirror', async () => {
    const dir = tempDir();
    const env = { PAYREC_CONFIG_DIR: dir };
    const db = join(dir, 'finance.duckdb');
    expect((await payrec(s.emu, ['config', 'set', 'db', db], { env })).exitCode).toBe(0);
    const r = await payrec(s.emu, ['sync', 'ot/transfers', '-q'], { env });
    expect(r.exitCode).toBe(0);
    expect(existsSync(db)).toBe(true);
  });

  it('retries stored in the profile set how often a failing request is sent; the environment and a flag still win', async () => {
    // A server that always answers 503: each run's request count is 1 + the retries in force.
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":503,"message":"down"}}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const env = { PAYREC_CONFIG_DIR: tempDir(), PAYREC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, PAYREC_API_KEY: 'prk_retries_test_1234' };
      expect((await payrec(undefined, ['config', 'set', 'retries', '1'], { env })).exitCode).toBe(0);
      const list = ['ot', 'transfers', '--limit', '1', '--timeout', '30'];
      const sent = async (extra: string[], more: Record<string, string> = {}) => {
        requests = 0;
        const r = await payrec(undefined, [...list, ...extra], { env: { ...env, ...more } });
        expect(r.exitCode).toBe(6);
        return requests;
      };
      expect(await sent([])).toBe(2); // the profile's 1 retry, not the default 3
      expect(await sent([], { PAYREC_RETRIES: '0' })).toBe(1);
      expect(await sent(['--retries', '2'], { PAYREC_RETRIES: '0' })).toBe(3);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('concurrency (the most pages in flight while payrec finds the pace) is 16 by default, the profile\'s once set, and config list says which', async () => {
    const env = { PAYREC_CONFIG_DIR: tempDir() };
    const shown = async () => JSON.parse((await payrec(undefined, ['config', 'list', '-f', 'json'], { env })).stdout).concurrency;
    expect(await shown()).toEqual({ value: '16', source: 'default' });
    expect((await payrec(undefined, ['config', 'set', 'concurrency', '5'], { env })).exitCode).toBe(0);
    expect(await shown()).toEqual({ value: '5', source: 'profile default' });
    expect((await payrec(undefined, ['config', 'get', 'concurrency'], { env })).stdout).toBe('5\n');
    // Its effect on the pages in flight: test/e2e/pace.test.ts.
  });

  it('a bad value is refused as its flag would be (exit 2), and xlsx cannot be every run\'s format', async () => {
    const env = { PAYREC_CONFIG_DIR: tempDir() };
    for (const [key, value, message] of [
      ['tz', 'Mars/Olympus', /invalid config set tz "Mars\/Olympus"/],
      ['format', 'yaml', /invalid config set format "yaml"/],
      ['format', 'xlsx', /a workbook needs -o FILE/],
      ['retries', '-1', /invalid config set retries "-1"/],
      ['concurrency', '17', /invalid config set concurrency "17": expected a whole number from 1 to 16/],
      ['concurrency', '0', /invalid config set concurrency "0"/],
      ['colour', 'red', /invalid KEY "colour": expected chain, base-url, rpc, tz, format, db, timeout, retries, currency, concurrency, feed/],
    ] as const) {
      const r = await payrec(s.quiet, ['config', 'set', key, value], { env });
      expect(r.exitCode, `${key} ${value}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(existsSync(join(env.PAYREC_CONFIG_DIR, 'config.json'))).toBe(false);
  });

  it('auth login --profile says when it makes that profile the current one, and keeps its settings', async () => {
    const env = { PAYREC_CONFIG_DIR: tempDir() };
    expect((await payrec(s.emu, ['config', 'set', 'tz', 'Europe/Berlin', '--profile', 'work'], { env })).exitCode).toBe(0);
    const r = await payrec(undefined, ['auth', 'login', '--profile', 'work', '--base-url', s.emu.url], { env, input: `${s.emu.keyFor('bsc')}\n` });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('work is now the current profile (it was default); payrec config use default goes back');
    const tz = await payrec(undefined, ['config', 'get', 'tz'], { env });
    expect(tz.stdout).toBe('Europe/Berlin\n');
  });
});
