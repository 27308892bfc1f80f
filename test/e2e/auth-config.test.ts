import { execa } from 'execa';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { BIN, emulator, payrec, program, tempDir } from './helpers.js';

// auth login/status/logout and config over an isolated config directory, and the
// precedence of settings: flag > environment > profile > default.

let emu: Emulator;
/** Receives only bad input: its request log must stay empty. */
let quiet: Emulator;

beforeAll(async () => {
  [emu, quiet] = await Promise.all([emulator(), emulator({ records: 0 })]);
});
afterAll(async () => {
  await Promise.all([emu.close(), quiet.close()]);
});

/** payrec with only a config dir: no key, chain or base URL from the environment. */
const run = (dir: string, args: string[], o: { input?: string; env?: Record<string, string> } = {}) =>
  payrec(undefined, args, { input: o.input, env: { PAYREC_CONFIG_DIR: dir, ...o.env } });

const configFile = (dir: string) => join(dir, 'config.json');
const json = (stdout: string) => JSON.parse(stdout) as Record<string, any>;

/** A config dir with profile `work` (polygon key, this emulator) made current by login. */
async function loggedIn(): Promise<string> {
  const dir = tempDir();
  const r = await run(dir, ['auth', 'login', '--profile', 'work', '--chain', 'polygon', '--base-url', emu.url], { input: emu.keyFor('polygon') });
  expect(r.exitCode).toBe(0);
  return dir;
}

describe('auth', () => {
  test('login reads the key from stdin, checks it with one request and saves it 0600; status; logout', async () => {
    const dir = tempDir();
    const key = emu.keyFor('bsc');
    emu.clearLog();
    const login = await run(dir, ['auth', 'login', '--chain', 'bsc', '--base-url', emu.url], { input: `${key}\n` });
    expect(login.stderr).toBe(`Logged in: profile default, chain bsc, ${emu.url}, key ****${key.slice(-4)}\n`);
    expect(login.exitCode).toBe(0);
    expect(login.stdout).toBe('');
    expect(emu.requests.map((q) => [q.method, q.path, q.query, q.status])).toEqual([['GET', '/v1/bsc/fixed-recurring/short-urls', { limit: '1' }, 200]]);

    expect(statSync(configFile(dir)).mode & 0o777).toBe(0o600);
    expect(json(readFileSync(configFile(dir), 'utf8'))).toEqual({
      currentProfile: 'default',
      profiles: { default: { chain: 'bsc', baseUrl: emu.url, apiKey: key } },
    });

    const status = await run(dir, ['auth', 'status']);
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toBe(
      `profile\tdefault\nchain\tbsc\nbaseUrl\t${emu.url}\nkey\t****${key.slice(-4)}\nkeySource\tprofile\nworks\ttrue\nconfigFile\t${configFile(dir)}\n`,
    );
    const statusJson = await run(dir, ['auth', 'status', '-f', 'json', '--debug']);
    expect(json(statusJson.stdout)).toMatchObject({ profile: 'default', chain: 'bsc', works: true, key: `****${key.slice(-4)}` });
    expect(statusJson.stderr).toContain('authorization: Bearer [redacted]');

    // The key never appears in what payrec prints, with or without --debug.
    for (const r of [login, status, statusJson]) expect(r.stdout + r.stderr).not.toContain(key);

    const logout = await run(dir, ['auth', 'logout']);
    expect(logout.exitCode).toBe(0);
    expect(logout.stderr).toBe('Logged out: the key of profile default was removed\n');
    expect(readFileSync(configFile(dir), 'utf8')).not.toContain(key);
    expect(statSync(configFile(dir)).mode & 0o777).toBe(0o600);

    const after = await run(dir, ['auth', 'status']);
    expect(after.exitCode).toBe(3);
    expect(after.stdout).toContain('works\tfalse\nreason\tno key\n');
    expect(after.stderr).toMatch(/not logged in: no key\nhint: run payrec auth login, or set PAYREC_API_KEY/);
    const twice = await run(dir, ['auth', 'logout']);
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toMatch(/profile "default" has no stored key/);
  });

  test.concurrent('a key the service rejects is not saved (keys are per chain)', async () => {
    const dir = tempDir();
    const r = await run(dir, ['auth', 'login', '--chain', 'polygon', '--base-url', emu.url], { input: emu.keyFor('bsc') });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toBe(`error: not saved: the key was rejected by ${emu.url} for chain polygon\nhint: keys are per chain: check --chain\n`);
    expect(existsSync(configFile(dir)) ? readFileSync(configFile(dir), 'utf8') : '').not.toContain(emu.keyFor('bsc'));
  });

  test.concurrent('status with the service unreachable still prints its table, with the reason, and exits 7', async () => {
    const r = await run(tempDir(), ['auth', 'status', '--retries', '0'], { env: { PAYREC_BASE_URL: 'http://127.0.0.1:9', PAYREC_API_KEY: 'prk_unreachable_1234' } });
    expect(r.exitCode).toBe(7);
    const fields = Object.fromEntries(r.stdout.trimEnd().split('\n').map((l) => l.split('\t')));
    expect(fields).toMatchObject({ baseUrl: 'http://127.0.0.1:9', key: '****1234', works: 'false', reason: 'not checked: GET /v1/bsc/fixed-recurring/short-urls: connection refused by 127.0.0.1:9' });
    expect(r.stderr).toMatch(/^error: GET \/v1\/bsc\/fixed-recurring\/short-urls: connection refused by 127\.0\.0\.1:9\nhint: /);
  });

  test.concurrent.each([
    ['an empty key', '', /the API key is empty/],
    ['a key with a line inside', 'prk_demo\nbsc', /the API key contains whitespace, a newline or a control character/],
  ])('login refuses %s before sending anything', async (_name, input, message) => {
    const dir = tempDir();
    const r = await run(dir, ['auth', 'login', '--base-url', quiet.url], { input });
    expect(r.stderr).toMatch(message);
    expect(r.exitCode).toBe(2);
    expect(quiet.requests).toHaveLength(0);
    expect(existsSync(configFile(dir))).toBe(false);
  });

  const script = program('script', 'bsdutils');
  test.skipIf(script.skip)(`on a terminal, login asks for the chain and reads the key without echoing it${script.note}`, async () => {
    // `script` gives payrec a pseudo-terminal, as a person typing at the prompt would.
    const dir = tempDir();
    const proc = execa('script', ['-qec', `node ${BIN} auth login --base-url ${emu.url}`, '/dev/null'], {
      env: { PAYREC_CONFIG_DIR: dir, NO_COLOR: '1' },
      extendEnv: false,
      reject: false,
    });
    let screen = '';
    proc.stdout!.setEncoding('utf8').on('data', (c: string) => (screen += c));
    const waitFor = async (pattern: RegExp) => {
      for (const end = Date.now() + 15_000; !pattern.test(screen); await new Promise((r) => setTimeout(r, 20))) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${pattern} in: ${screen}`);
      }
    };
    await waitFor(/Chain \(bsc, ethereum, polygon, sandbox\) \[bsc\]: /);
    proc.stdin!.write('polygon\r');
    await waitFor(/API key for polygon: /);
    proc.stdin!.write(`${emu.keyFor('polygon')}\r`);
    await waitFor(/Logged in: /);
    proc.stdin!.end();
    const r = await proc;
    expect(r.exitCode).toBe(0);
    expect(screen.slice(screen.indexOf('[bsc]: '), screen.indexOf('API key for'))).toContain('polygon'); // the chain answer is echoed as typed…
    expect(screen).not.toContain(emu.keyFor('polygon')); // …the key is not
    expect(screen).toMatch(/Logged in: profile default, chain polygon, .*, key \*\*\*\*ygon/);
    expect(json(readFileSync(configFile(dir), 'utf8')).profiles.default).toEqual({ chain: 'polygon', baseUrl: emu.url, apiKey: emu.keyFor('polygon') });
  });
});

describe('config', () => {
  test('set, get, profiles and use', async () => {
    const dir = await loggedIn();
    const set = await run(dir, ['config', 'set', 'chain', 'sandbox', '--profile', 'ci']);
    expect(set.exitCode).toBe(0);
    expect(set.stderr).toBe('Set chain of profile ci to sandbox\n');
    expect((await run(dir, ['config', 'set', 'base-url', 'http://127.0.0.1:8787', '--profile', 'ci'])).exitCode).toBe(0);

    const profiles = await run(dir, ['config', 'profiles']);
    expect(profiles.stdout).toBe(`* work\tpolygon\t${emu.url}\t****ygon\n  ci\tsandbox\thttp://127.0.0.1:8787\t(none)\n`);

    expect((await run(dir, ['config', 'get', 'chain'])).stdout).toBe('polygon\n');
    const use = await run(dir, ['config', 'use', 'ci']);
    expect(use.stderr).toBe('Now using profile ci\n');
    const [chain, baseUrl, list] = await Promise.all([
      run(dir, ['config', 'get', 'chain']),
      run(dir, ['config', 'get', 'base-url']),
      run(dir, ['config', 'list', '-f', 'json']),
    ]);
    expect(chain.stdout).toBe('sandbox\n');
    expect(baseUrl.stdout).toBe('http://127.0.0.1:8787\n');
    expect(json(list.stdout)).toEqual({
      profile: { value: 'ci', source: 'profile' },
      chain: { value: 'sandbox', source: 'profile' },
      'base-url': { value: 'http://127.0.0.1:8787', source: 'profile' },
      'api-key': { value: '(none)', source: 'none' },
      rpc: { value: '(none)', source: 'none' },
      tz: { value: 'UTC', source: 'default' },
      format: { value: 'json', source: 'flag' },
      db: { value: '<XDG data dir>/payrec/<profile>.duckdb', source: 'default' },
      timeout: { value: '30', source: 'default' },
      retries: { value: '3', source: 'default' },
      currency: { value: '(none)', source: 'default' },
      concurrency: { value: '16', source: 'default' },
      'config-file': { value: configFile(dir) },
    });
    expect(statSync(configFile(dir)).mode & 0o777).toBe(0o600);
  });

  test.concurrent.each([
    ['the API key', ['config', 'set', 'api-key', 'prk_x'], /the API key is not set with config: use payrec auth login/],
    ['an unknown setting', ['config', 'set', 'colour', 'red'], /invalid KEY "colour": expected chain, base-url, rpc, tz, format, db, timeout, retries/],
    ['a bad chain', ['config', 'set', 'chain', 'BSC!'], /invalid --chain "BSC!": expected a lower-case chain name/],
    ['plain http to a remote host', ['config', 'set', 'base-url', 'http://api.example.com'], /refusing to send the API key over plain http/],
    ['an unknown profile', ['config', 'use', 'nope'], /no profile named "nope"\nhint: list them with: payrec config profiles/],
    ['get of the key', ['config', 'get', 'api-key'], /the API key is not set with config/],
  ] as [string, string[], RegExp][])('refuses %s with exit 2', async (_name, args, message) => {
    const dir = tempDir();
    const r = await run(dir, args);
    expect(r.stderr).toMatch(message);
    expect(r.exitCode).toBe(2);
    expect(existsSync(configFile(dir)) ? readFileSync(configFile(dir), 'utf8') : '').not.toContain('prk_x');
  });
});

describe('precedence: flag > environment > profile > default', () => {
  const sources = async (dir: string, args: string[], env: Record<string, string> = {}) => {
    const r = await run(dir, ['config', 'list', '-f', 'json', ...args], { env });
    expect(r.exitCode).toBe(0);
    const s = json(r.stdout);
    return { profile: s.profile.value, chain: `${s.chain.value} (${s.chain.source})`, baseUrl: `${s['base-url'].value} (${s['base-url'].source})`, key: s['api-key'].source };
  };

  test.concurrent('it is documented where settings are shown', async () => {
    const r = await run(tempDir(), ['config', '--help']);
    expect(r.stdout).toMatch(/precedence: flag > environment > profile >\s+default/);
  });

  test.concurrent('each setting comes from the first of flag, environment, profile, default that has it', async () => {
    const dir = await loggedIn();
    const [none, profile, env, flag] = await Promise.all([
      sources(tempDir(), []),
      sources(dir, []),
      sources(dir, [], { PAYREC_CHAIN: 'ethereum', PAYREC_BASE_URL: 'http://127.0.0.1:1', PAYREC_API_KEY: 'prk_env' }),
      sources(dir, ['--chain', 'sandbox', '--base-url', 'http://localhost:2'], { PAYREC_CHAIN: 'ethereum', PAYREC_BASE_URL: 'http://127.0.0.1:1' }),
    ]);
    expect(none).toEqual({ profile: 'default', chain: 'bsc (default)', baseUrl: 'https://api.8pay.network (default)', key: 'none' });
    expect(profile).toEqual({ profile: 'work', chain: 'polygon (profile)', baseUrl: `${emu.url} (profile)`, key: 'profile' });
    // (With all three from the environment the stored profile is not even read.)
    expect(env).toMatchObject({ chain: 'ethereum (env)', baseUrl: 'http://127.0.0.1:1 (env)', key: 'env' });
    // The stored key belongs to the profile's service: another base URL does not get it.
    expect(flag).toEqual({ profile: 'work', chain: 'sandbox (flag)', baseUrl: 'http://localhost:2 (flag)', key: 'none' });
  });

  test.concurrent('the profile itself: --profile beats PAYREC_PROFILE beats the current one', async () => {
    const dir = await loggedIn();
    expect((await run(dir, ['config', 'set', 'chain', 'sandbox', '--profile', 'other'])).exitCode).toBe(0);
    const [current, env, flag] = await Promise.all([
      sources(dir, []),
      sources(dir, [], { PAYREC_PROFILE: 'other' }),
      sources(dir, ['--profile', 'work'], { PAYREC_PROFILE: 'other' }),
    ]);
    expect([current.profile, current.chain]).toEqual(['work', 'polygon (profile)']);
    expect([env.profile, env.chain]).toEqual(['other', 'sandbox (profile)']);
    expect([flag.profile, flag.chain]).toEqual(['work', 'polygon (profile)']);
  });

  test.concurrent('requests go where the settings say', async () => {
    const dir = await loggedIn(); // profile: polygon on this emulator
    const list = ['one-time', 'transfers', '--limit', '1', '-f', 'json', '--retries', '0'];
    const [fromProfile, envWins, flagWins] = await Promise.all([
      run(dir, list),
      run(dir, list, { env: { PAYREC_BASE_URL: 'http://127.0.0.1:1' } }),
      run(dir, [...list, '--base-url', emu.url], { env: { PAYREC_BASE_URL: 'http://127.0.0.1:1' } }),
    ]);
    expect(fromProfile.exitCode).toBe(0);
    expect(JSON.parse(fromProfile.stdout)).toHaveLength(1);
    // Another service named by the environment never gets the profile's key (issue 24: a
    // stored key followed any PAYREC_BASE_URL): exit 3 before anything is sent.
    expect(envWins.exitCode).toBe(3);
    expect(envWins.stderr).toContain(`the key of profile "work" is kept for ${emu.url}, not for http://127.0.0.1:1 (PAYREC_BASE_URL)`);
    expect(flagWins.exitCode).toBe(0);
    expect(emu.requests.some((q) => q.path === '/v1/polygon/one-time/transfers')).toBe(true);

    // An environment key beats the stored one: a bsc key on polygon is refused.
    const envKey = await run(dir, list, { env: { PAYREC_API_KEY: emu.keyFor('bsc') } });
    expect(envKey.exitCode).toBe(3);
    expect(envKey.stderr).not.toContain(emu.keyFor('bsc'));
  });
});
