import { existsSync } from 'node:fs';
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

  it('a bad value is refused as its flag would be (exit 2), and xlsx cannot be every run\'s format', async () => {
    const env = { PAYREC_CONFIG_DIR: tempDir() };
    for (const [key, value, message] of [
      ['tz', 'Mars/Olympus', /invalid config set tz "Mars\/Olympus"/],
      ['format', 'yaml', /invalid config set format "yaml"/],
      ['format', 'xlsx', /a workbook needs -o FILE/],
      ['retries', '-1', /invalid config set retries "-1"/],
      ['colour', 'red', /invalid KEY "colour": expected chain, base-url, rpc, tz, format, db, timeout, retries/],
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
