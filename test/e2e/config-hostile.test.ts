import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { keyCatcher, payrec, suiteEmulators, tempDir } from './helpers.js';

// The config that holds the key (issue 32 items 6, 7, 16, 18): the key stays with the
// service it was stored for, the file is used only when nobody else has any permission on
// it, a base URL cannot carry terminal escapes, and reserved profile names are reserved
// in any case. The quiet emulator shows that nothing was sent.

const s = suiteEmulators();

describe('a stored key stays bound to its service (item 6)', () => {
  test('config set base-url moves the profile, not its key: exit 3 and nothing sent until one logs in again; back at its service, it works', async () => {
    // Mutant killed: keyServiceOf reading only baseUrl (the key went to the new address).
    const other = await keyCatcher();
    const { url, seen } = other;
    try {
      const env = { PAYREC_CONFIG_DIR: tempDir(), PAYREC_API_KEY: undefined, PAYREC_BASE_URL: undefined, PAYREC_CHAIN: undefined };
      expect((await payrec(undefined, ['auth', 'login', '--base-url', s.emu.url], { env, input: `${s.emu.keyFor('bsc')}\n` })).exitCode).toBe(0);
      const moved = await payrec(undefined, ['config', 'set', 'base-url', url], { env });
      expect(moved.exitCode).toBe(0);
      expect(moved.stderr).toBe(
        `Set base-url of profile default to ${url}\nwarning: the key of profile default stays with ${s.emu.url}; log in again for ${url}: payrec auth login --profile default --base-url ${url}\n`,
      );
      const r = await payrec(undefined, ['ot', 'transfers', '--limit', '1'], { env });
      expect(r.stderr).toBe(
        `error: the key of profile "default" is kept for ${s.emu.url}, not for ${url} (base-url of profile "default"): a stored key goes only to its own service\nhint: log in again for that service: payrec auth login --profile default --base-url ${url}\n`,
      );
      expect(r.exitCode).toBe(3);
      expect(seen).toEqual([]);
      // Moved back to where it was stored, the key goes there again.
      expect((await payrec(undefined, ['config', 'set', 'base-url', s.emu.url], { env })).stderr).toBe(`Set base-url of profile default to ${s.emu.url}\n`);
      const back = await payrec(undefined, ['ot', 'transfers', '--limit', '1', '-f', 'json'], { env });
      expect(back.exitCode, back.stderr).toBe(0);
      expect(back.stderr).not.toContain('error');
      expect(seen).toEqual([]);
    } finally {
      other.close();
    }
  });
});

describe('a config file with any group or other bit is refused (item 7)', () => {
  test.each(['0640', '0604', '0620', '0610'])('mode %s: exit 2, chmod 600 named, the key never sent', async (mode) => {
    // Mutant killed: the old check (world-readable, or readable by another group: 0640 of the user's own group passed).
    const dir = tempDir();
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ currentProfile: 'default', profiles: { default: { chain: 'bsc', baseUrl: s.quiet.url, apiKey: s.quiet.keyFor('bsc') } } }));
    chmodSync(file, parseInt(mode, 8));
    const r = await payrec(undefined, ['ot', 'transfers', '--limit', '1'], { env: { PAYREC_CONFIG_DIR: dir } });
    expect(r.stderr).toMatch(new RegExp(`^error: the config file ${file} (can be read by other users|is open to other users) \\(mode ${mode}\\): payrec does not use the key it holds until only you can read it\\nhint: fix it with: chmod 600 ${file}`));
    expect(r.exitCode).toBe(2);
    expect(s.quiet.requests).toEqual([]);
  });
});

describe('the folders above the config are checked as those above --db are (issue 48, item 5)', () => {
  test('a private config folder under one everyone can write (no sticky bit): exit 2 naming that folder, the key never sent; under a sticky one it is used', async () => {
    // Mutant killed: the config's folder check without the walk up (the key was used and sent).
    const open = tempDir(0o777);
    const dir = join(open, 'payrec');
    mkdirSync(dir, { mode: 0o700 });
    const config = { currentProfile: 'default', profiles: { default: { chain: 'bsc', baseUrl: s.quiet.url, apiKey: s.quiet.keyFor('bsc') } } };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
    const r = await payrec(undefined, ['ot', 'transfers', '--limit', '1'], { env: { PAYREC_CONFIG_DIR: dir } });
    expect(r.stderr).toBe(
      `error: the config folder (a folder above it) ${open} can be changed by other users: payrec does not use the key it holds (anyone who can change it could send the key elsewhere)\nhint: fix it with: chmod go-w ${open}\n`,
    );
    expect(r.exitCode).toBe(2);
    expect(s.quiet.requests).toEqual([]);
    // The same rule as --db's, in the same place: exit 2 too.
    const db = await payrec(s.emu, ['sync', 'ot/transfers', '--db', join(dir, 'm.duckdb')]);
    expect(db.exitCode).toBe(2);
    // Under a sticky folder (/tmp), the config is used.
    const sticky = tempDir(0o1777);
    mkdirSync(join(sticky, 'payrec'), { mode: 0o700 });
    writeFileSync(join(sticky, 'payrec', 'config.json'), JSON.stringify({ ...config, profiles: { default: { ...config.profiles.default, baseUrl: s.emu.url, apiKey: s.emu.keyFor('bsc') } } }), { mode: 0o600 });
    const used = await payrec(undefined, ['ot', 'transfers', '--limit', '1', '-f', 'json'], { env: { PAYREC_CONFIG_DIR: join(sticky, 'payrec') } });
    expect(used.exitCode, used.stderr).toBe(0);
  });
});

describe('config set base-url refuses control and bidi characters (item 16)', () => {
  test.each([
    ['an escape sequence', 'https://api.example\x1b]0;pwned\x07', 'https://api.example\\u001b]0;pwned\\u0007'],
    ['a right-to-left override', 'https://api.\u202eelpmaxe', 'https://api.\\u202eelpmaxe'],
  ])('%s: exit 2, shown escaped, nothing stored', async (_, url, shown) => {
    // Mutant killed: checkBaseUrl without hasControlCharacters (the URL parser took both, and the value was stored).
    const dir = tempDir();
    const r = await payrec(undefined, ['config', 'set', 'base-url', url], { env: { PAYREC_CONFIG_DIR: dir } });
    expect(r.stderr).toBe(`error: invalid --base-url "${shown}": expected an https:// URL without control characters (escapes, bidi overrides)\n`);
    expect(r.exitCode).toBe(2);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });
});

describe('reserved profile names, in any case (item 18)', () => {
  test.each(['Emulator', 'EMULATOR', '__PROTO__', 'Constructor'])('%s: auth login refuses it (exit 2), nothing written', async (name) => {
    // Mutant killed: RESERVED_PROFILES.has(s.profile) (Emulator.duckdb is emulator.duckdb on a case-insensitive file system).
    const dir = tempDir();
    const r = await payrec(undefined, ['auth', 'login', '--profile', name], { env: { PAYREC_CONFIG_DIR: dir }, input: 'prk_demo_bsc\n' });
    expect(r.stderr).toMatch(new RegExp(`^error: invalid --profile "${name}": "${name}" is reserved \\(`));
    expect(r.exitCode).toBe(2);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });
});
