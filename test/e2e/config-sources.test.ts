import { chmodSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, keyCatcher, payrec, tempDir } from './helpers.js';

// Where each setting comes from (src/core/config/settings.ts), as a user meets it: the
// config file read only when the environment leaves something to it (a CI job with
// PAYREC_CHAIN, PAYREC_BASE_URL and PAYREC_API_KEY needs none), empty variables counted
// as unset, a stored key kept for its own service, and a bad value named where it was
// given. Each case writes the config file itself; another service on 127.0.0.1 records
// the Authorization of whatever reaches it, so "nothing sent" is seen, not assumed.
// (The e2e mutation run of settings.ts reaches these through the built binary.)

let emu: Emulator;
let catcher: Awaited<ReturnType<typeof keyCatcher>>;
beforeAll(async () => {
  [emu, catcher] = await Promise.all([emulator({ records: 5 }), keyCatcher()]);
});
afterAll(async () => {
  catcher.close();
  await emu.close();
});

/** A config folder holding `config`, with the file's mode. */
function configDir(config: object, mode = 0o600): string {
  const dir = tempDir();
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  chmodSync(file, mode);
  return dir;
}

/** payrec with only this config folder and the variables given: no emulator's key, chain or base URL. */
const run = (dir: string, args: string[], env: Record<string, string | undefined> = {}) => payrec(undefined, args, { env: { PAYREC_CONFIG_DIR: dir, ...env } });

/** `config list -f json` as {setting: "value (source)"}. */
async function list(dir: string, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<Record<string, string>> {
  const r = await run(dir, ['config', 'list', '-f', 'json', ...args], env);
  expect(r.exitCode, r.stderr).toBe(0);
  const rows = JSON.parse(r.stdout) as Record<string, { value: string; source?: string }>;
  return Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, v.source === undefined ? v.value : `${v.value} (${v.source})`]));
}

const STORED_KEY = 'prk_stored_in_profile_9f3k';
const RPC_KEY = 'n0deProviderKey77';

describe('the config file is read only when the environment leaves something to it', () => {
  test('chain, base URL and key all given: a config others can read (naming no such profile) is not even opened; any one missing, it is refused', async () => {
    // Ground truth: the quiet emulator answers, or the run ends at the config file (exit 2) with nothing sent.
    const dir = configDir({ currentProfile: 'work', profiles: { work: { chain: 'polygon', baseUrl: catcher.url, apiKey: STORED_KEY } } }, 0o644);
    const all = { PAYREC_CHAIN: 'bsc', PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc') };
    const get = ['ot', 'transfers', '--limit', '1', '-f', 'json', '-q'];
    const [byEnv, byFlags, ci, noChain, noUrl, noKey] = await Promise.all([
      run(dir, get, all),
      run(dir, [...get, '--chain', 'bsc', '--base-url', emu.url], { PAYREC_API_KEY: all.PAYREC_API_KEY }),
      // A CI job that sets PAYREC_PROFILE everywhere has no config file to find it in.
      run(tempDir(), get, { ...all, PAYREC_PROFILE: 'ci' }),
      run(dir, get, { ...all, PAYREC_CHAIN: undefined }),
      run(dir, get, { ...all, PAYREC_BASE_URL: undefined }),
      run(dir, get, { ...all, PAYREC_API_KEY: undefined }),
    ]);
    for (const r of [byEnv, byFlags, ci]) {
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout)).toHaveLength(1);
    }
    for (const r of [noChain, noUrl, noKey]) {
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/^error: the config file .* can be read by other users \(mode 0644\)/);
    }
    expect(catcher.seen).toEqual([]);
  });

  test('config list beside a config others can read: warned, and neither its profile, its key nor its node is used', async () => {
    const dir = configDir({ currentProfile: 'work', profiles: { work: { chain: 'polygon', baseUrl: catcher.url, apiKey: STORED_KEY, rpc: { bsc: `https://node.example/v3/${RPC_KEY}` } } } }, 0o644);
    const r = await run(dir, ['config', 'list', '-f', 'json'], { PAYREC_CHAIN: 'bsc', PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc') });
    const [alone, withEnv] = await Promise.all([list(dir), list(dir, [], { PAYREC_CHAIN: 'bsc', PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc') })]);
    expect(alone).toMatchObject({ profile: 'default (default)', chain: 'bsc (default)', 'base-url': 'https://api.8pay.network (default)', 'api-key': '(none) (none)', rpc: '(none) (none)' });
    // With everything else from the environment the node is still the file's to give, and it gives none.
    expect(withEnv).toMatchObject({ chain: 'bsc (env)', 'api-key': `****${emu.keyFor('bsc').slice(-4)} (env)`, rpc: '(none) (none)' });
    expect(r.stdout + r.stderr).not.toContain(RPC_KEY);
    expect(r.stdout + r.stderr).not.toContain(STORED_KEY);
  });

  test('the node stored for the chain is in effect when the environment gives everything else; --rpc and PAYREC_RPC_URL win', async () => {
    const dir = configDir({ currentProfile: 'default', profiles: { default: { rpc: { bsc: `https://node.example/v3/${RPC_KEY}`, polygon: 'https://polygon.example/' } } } });
    const all = { PAYREC_CHAIN: 'bsc', PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc') };
    const [stored, polygon, byEnv, byFlag] = await Promise.all([
      list(dir, [], all),
      list(dir, [], { ...all, PAYREC_CHAIN: 'polygon', PAYREC_API_KEY: undefined }),
      list(dir, [], { ...all, PAYREC_RPC_URL: 'https://env.example/' }),
      list(dir, ['--rpc', 'http://127.0.0.1:1/'], { ...all, PAYREC_RPC_URL: 'https://env.example/' }),
    ]);
    expect(stored.rpc).toBe('https://node.example/**** (profile)');
    expect(polygon.rpc).toBe('https://polygon.example (profile)');
    expect(byEnv.rpc).toBe('https://env.example (env)');
    expect(byFlag.rpc).toBe('http://127.0.0.1:1 (flag)');
  });

  test('an empty variable is unset: the profile gives the setting (a CI job exports PAYREC_CHAIN="" when its variable is missing)', async () => {
    const dir = configDir({ currentProfile: 'work', profiles: { work: { chain: 'polygon', baseUrl: emu.url, apiKey: emu.keyFor('polygon'), rpc: { polygon: 'https://polygon.example/' } } } });
    const empty = { PAYREC_CHAIN: '', PAYREC_BASE_URL: '', PAYREC_API_KEY: '', PAYREC_RPC_URL: '', PAYREC_PROFILE: '' };
    expect(await list(dir, [], empty)).toMatchObject({
      profile: 'work (profile)',
      chain: 'polygon (profile)',
      'base-url': `${emu.url} (profile)`,
      'api-key': `****${emu.keyFor('polygon').slice(-4)} (profile)`,
      rpc: 'https://polygon.example (profile)',
    });
  });
});

describe('profiles', () => {
  test('--profile or PAYREC_PROFILE naming no stored profile: exit 2 before anything is sent; a current profile that is gone is the defaults', async () => {
    const dir = configDir({ currentProfile: 'work', profiles: { work: { baseUrl: catcher.url, apiKey: STORED_KEY } } });
    const gone = configDir({ currentProfile: 'gone', profiles: {} });
    const get = ['ot', 'transfers', '--limit', '1'];
    const [flag, variable, current] = await Promise.all([run(dir, [...get, '--profile', 'wrok']), run(dir, get, { PAYREC_PROFILE: 'wrok' }), list(gone)]);
    for (const r of [flag, variable]) {
      expect(r.stderr).toBe('error: no profile named "wrok"\nhint: list them with: payrec config profiles\n');
      expect(r.exitCode).toBe(2);
    }
    expect(catcher.seen).toEqual([]);
    expect(current).toMatchObject({ profile: 'gone (profile)', chain: 'bsc (default)', 'base-url': 'https://api.8pay.network (default)', 'api-key': '(none) (none)' });
  });
});

describe('a stored key goes to its own service only', () => {
  test('a key logged in at the default service stays in use there; one logged in under a path, there with a trailing slash or not; elsewhere it is withheld', async () => {
    const atDefault = configDir({ currentProfile: 'default', profiles: { default: { apiKey: STORED_KEY } } });
    const underPath = configDir({ currentProfile: 'default', profiles: { default: { baseUrl: 'https://pay.example/api', apiKey: STORED_KEY } } });
    const [own, slash, other] = await Promise.all([list(atDefault), list(underPath, ['--base-url', 'https://pay.example/api/']), list(underPath, ['--base-url', 'https://pay.example/api/v2'])]);
    expect(own['api-key']).toBe(`****${STORED_KEY.slice(-4)} (profile)`);
    expect(slash['api-key']).toBe(`****${STORED_KEY.slice(-4)} (profile)`);
    expect(other['api-key']).toBe('(none) (none)');
  });

  test('withheld from a service named by a flag or a variable: exit 3 saying which, and how to give that service a key; no key at all: exit 3', async () => {
    const dir = configDir({ currentProfile: 'default', profiles: { default: { baseUrl: emu.url, apiKey: emu.keyFor('bsc') } } });
    const get = ['ot', 'transfers', '--limit', '1'];
    const [flag, variable, none] = await Promise.all([
      run(dir, [...get, '--base-url', catcher.url]),
      run(dir, get, { PAYREC_BASE_URL: catcher.url }),
      run(tempDir(), get, { PAYREC_BASE_URL: catcher.url, PAYREC_CHAIN: 'polygon' }),
    ]);
    const hint = `hint: set PAYREC_API_KEY for that service, or keep its key in a profile of its own: payrec auth login --profile NAME --base-url ${catcher.url}\n`;
    expect(flag.stderr).toBe(`error: the key of profile "default" is kept for ${emu.url}, not for ${catcher.url} (--base-url): a stored key goes only to its own service\n${hint}`);
    expect(variable.stderr).toBe(`error: the key of profile "default" is kept for ${emu.url}, not for ${catcher.url} (PAYREC_BASE_URL): a stored key goes only to its own service\n${hint}`);
    expect(none.stderr).toBe('error: no API key for profile "default" (chain polygon)\nhint: set PAYREC_API_KEY, run payrec auth login, or try payrec --emulator …\n');
    for (const r of [flag, variable, none]) expect(r.exitCode).toBe(3);
    expect(catcher.seen).toEqual([]);
  });

  test('a key a service echoes back in its error is shown masked, whether it came from PAYREC_API_KEY or the profile', async () => {
    // A gateway that repeats the request's Authorization in its 400 body.
    const echo: Server = createServer((req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 400, message: `bad request with ${req.headers.authorization}` } })));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
      const dir = configDir({ currentProfile: 'default', profiles: { default: { baseUrl: url, apiKey: STORED_KEY } } });
      const envKey = 'prk_from_environment_7c2q';
      const [fromEnv, fromProfile] = await Promise.all([
        run(tempDir(), ['ot', 'transfers', '--limit', '1'], { PAYREC_BASE_URL: url, PAYREC_API_KEY: envKey }),
        run(dir, ['ot', 'transfers', '--limit', '1']),
      ]);
      expect(fromEnv.stderr).toContain('bad request with Bearer ****7c2q');
      expect(fromProfile.stderr).toContain('bad request with Bearer ****9f3k');
      expect(fromEnv.stderr).not.toContain(envKey);
      expect(fromProfile.stderr).not.toContain(STORED_KEY);
      expect([fromEnv.exitCode, fromProfile.exitCode]).toEqual([5, 5]);
    } finally {
      await new Promise((r) => echo.close(r));
    }
  });
});

describe('a bad setting: exit 2 naming it as it was given, nothing sent', () => {
  const CHAIN_WHY = 'expected a lower-case chain name such as bsc, ethereum, polygon or sandbox';
  const RPC_WHY = 'expected an http:// or https:// URL of a JSON-RPC node';
  const cases: [string, object | undefined, string[], Record<string, string>, string][] = [
    ['PAYREC_CHAIN', undefined, [], { PAYREC_CHAIN: 'BSC!' }, `error: invalid PAYREC_CHAIN "BSC!": ${CHAIN_WHY}\n`],
    ['--chain', undefined, ['--chain', 'BSC!'], {}, `error: invalid --chain "BSC!": ${CHAIN_WHY}\n`],
    ['the profile\'s chain', { currentProfile: 'work', profiles: { work: { chain: 'BSC!' } } }, [], {}, `error: invalid chain "BSC!" in profile "work": ${CHAIN_WHY}\nhint: payrec config set chain VALUE\n`],
    ['the current profile', { currentProfile: 'bad name', profiles: {} }, [], {}, 'error: invalid current profile "bad name": expected a name of at most 64 letters, digits, _ . -\nhint: payrec config use NAME\n'],
    ['--profile', { profiles: { 'bad name': {} } }, ['--profile', 'bad name'], {}, 'error: invalid --profile "bad name": expected a name of at most 64 letters, digits, _ . -\n'],
    ['PAYREC_PROFILE', { profiles: { 'bad name': {} } }, [], { PAYREC_PROFILE: 'bad name' }, 'error: invalid PAYREC_PROFILE "bad name": expected a name of at most 64 letters, digits, _ . -\n'],
    ['a profile name of 65 characters', { profiles: { ['p'.repeat(65)]: {} } }, ['--profile', 'p'.repeat(65)], {}, `error: invalid --profile "${'p'.repeat(65)}": expected a name of at most 64 letters, digits, _ . -\n`],
    ['a reserved name', { profiles: { Emulator: {} } }, ['--profile', 'Emulator'], {}, 'error: invalid --profile "Emulator": "Emulator" is reserved (--emulator\'s demo mirror is emulator.duckdb); choose another\n'],
    ['a name objects have', { profiles: { constructor: {} } }, ['--profile', 'constructor'], {}, 'error: invalid --profile "constructor": "constructor" is reserved (a name JavaScript objects already use); choose another\n'],
    ['a name every function has', { profiles: { prototype: {} } }, ['--profile', 'prototype'], {}, 'error: invalid --profile "prototype": "prototype" is reserved (a name JavaScript objects already use); choose another\n'],
    ['PAYREC_BASE_URL', undefined, [], { PAYREC_BASE_URL: 'ftp://api.example' }, 'error: invalid PAYREC_BASE_URL "ftp://api.example": expected an https:// URL\n'],
    ['the profile\'s base-url', { currentProfile: 'work', profiles: { work: { baseUrl: 'ftp://api.example' } } }, [], { PAYREC_BASE_URL: '' }, 'error: invalid base-url "ftp://api.example" in profile "work": expected an https:// URL\nhint: payrec config set base-url VALUE\n'],
    ['PAYREC_API_KEY with a space', undefined, [], { PAYREC_API_KEY: 'prk_two words' }, 'error: PAYREC_API_KEY contains whitespace, a newline or a control character\nhint: copy the key again without line breaks\n'],
    ['PAYREC_API_KEY with a control character', undefined, [], { PAYREC_API_KEY: 'prk_bell\x07key' }, 'error: PAYREC_API_KEY contains whitespace, a newline or a control character\nhint: copy the key again without line breaks\n'],
    ['PAYREC_BASE_URL of plain http to another host', undefined, [], { PAYREC_BASE_URL: 'http://api.example.com' }, 'error: refusing to send the API key over plain http to api.example.com\nhint: use https://, or http:// only for a loopback address such as the emulator\n'],
    ['PAYREC_API_KEY of 513 characters', undefined, [], { PAYREC_API_KEY: 'k'.repeat(513) }, 'error: PAYREC_API_KEY is longer than 512 characters\n'],
    ['the profile\'s empty key', { currentProfile: 'work', profiles: { work: { baseUrl: 'CATCHER', apiKey: '' } } }, [], { PAYREC_BASE_URL: '', PAYREC_API_KEY: '' }, 'error: the key of profile "work" is empty\n'],
    ['PAYREC_RPC_URL', undefined, [], { PAYREC_RPC_URL: `ftp://node.example/${RPC_KEY}` }, `error: invalid PAYREC_RPC_URL "ftp://node.example/****": ${RPC_WHY}\n`],
    ['PAYREC_RPC_URL that is no URL', undefined, [], { PAYREC_RPC_URL: `node.example/${RPC_KEY}` }, `error: invalid PAYREC_RPC_URL "****": ${RPC_WHY}\n`],
    ['--rpc with a tab (which the URL parser would drop)', undefined, ['--rpc', `https://node.example/${RPC_KEY}\tx`], {}, `error: invalid --rpc "https://node.example/****": ${RPC_WHY}\n`],
    ['the profile\'s rpc', { currentProfile: 'work', profiles: { work: { rpc: { bsc: `ftp://node.example/${RPC_KEY}` } } } }, [], {}, `error: invalid rpc of profile "work" for bsc "ftp://node.example/****": ${RPC_WHY}\n`],
  ];
  test.concurrent.each(cases)('%s', async (_, config, args, env, stderr) => {
    const dir = config ? configDir(JSON.parse(JSON.stringify(config).replace('CATCHER', catcher.url)) as object) : tempDir();
    const r = await run(dir, ['ot', 'transfers', '--limit', '1', ...args], { PAYREC_BASE_URL: catcher.url, PAYREC_API_KEY: 'prk_valid_key_1234', ...env });
    expect(r.stderr).toBe(stderr);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).not.toContain(RPC_KEY);
    expect(catcher.seen).toEqual([]);
  });

  test('the longest that is allowed: a key of 512 characters, a profile name of 64', async () => {
    const key = `prk_${'k'.repeat(508)}`;
    expect(key).toHaveLength(512);
    const name = 'p'.repeat(64);
    const r = await list(configDir({ profiles: { [name]: { chain: 'polygon' } } }), ['--profile', name], { PAYREC_API_KEY: key });
    expect(r).toMatchObject({ profile: `${name} (flag)`, chain: 'polygon (profile)', 'api-key': '****kkkk (env)' });
  });
});
