import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyCatcher, payrec, suiteEmulators, tempDir } from './helpers.js';

// The key's file (issue 24, item 10): a config that others can read is refused like
// ssh refuses a readable private key, and profile names that would save nothing or
// share the demo mirror are refused. A quiet emulator shows that nothing was sent.

const s = suiteEmulators();

function configWith(key: string, mode: number): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ currentProfile: 'default', profiles: { default: { chain: 'bsc', baseUrl: s.quiet.url, apiKey: key } } }), { mode });
  chmodSync(join(dir, 'config.json'), mode);
  return dir;
}

describe('a config readable by others', () => {
  it('is refused (exit 2, chmod 600 named) and its key is never sent; readable by the user alone, it works', async () => {
    const key = s.quiet.keyFor('bsc');
    const dir = configWith(key, 0o644);
    const env = { PAYREC_CONFIG_DIR: dir };
    const r = await payrec(undefined, ['ot', 'transfers', '--limit', '1'], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`the config file ${join(dir, 'config.json')} can be read by other users`);
    expect(r.stderr).toContain(`hint: fix it with: chmod 600 ${join(dir, 'config.json')}`);
    expect(r.stderr).not.toContain(key.slice(4));
    expect(s.quiet.requests).toEqual([]);
    // Group-readable by another group (0640 with root's group here is the user's own: allowed); world-readable is what leaks.
    chmodSync(join(dir, 'config.json'), 0o600);
    const ok = await payrec(undefined, ['ot', 'transfers', '--limit', '1', '-f', 'json'], { env });
    expect(ok.exitCode).toBe(0);
    // auth logout still repairs a readable one.
    const again = configWith(key, 0o644);
    const out = await payrec(undefined, ['auth', 'logout'], { env: { PAYREC_CONFIG_DIR: again } });
    expect(out.exitCode).toBe(0);
  });
});

describe('reserved profile names', () => {
  for (const name of ['__proto__', 'emulator', 'constructor']) {
    it(`auth login --profile ${name} is refused (exit 2) and writes nothing`, async () => {
      const dir = tempDir();
      const r = await payrec(undefined, ['auth', 'login', '--profile', name], { env: { PAYREC_CONFIG_DIR: dir }, input: 'prk_demo_bsc\n' });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`invalid --profile "${name}": "${name}" is reserved`);
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
    });
  }
});

describe('a stored key goes only to its own service', () => {
  it('--base-url to another host does not carry the profile\'s key there (exit 3, nothing sent); PAYREC_API_KEY does', async () => {
    const other = await keyCatcher();
    const { url, seen } = other;
    try {
      const dir = tempDir();
      const login = await payrec(undefined, ['auth', 'login', '--base-url', s.emu.url], { env: { PAYREC_CONFIG_DIR: dir }, input: `${s.emu.keyFor('bsc')}\n` });
      expect(login.exitCode).toBe(0);
      const own = await payrec(undefined, ['ot', 'transfers', '--limit', '1', '-f', 'json'], { env: { PAYREC_CONFIG_DIR: dir } });
      expect(own.exitCode).toBe(0);
      const elsewhere = await payrec(undefined, ['ot', 'transfers', '--limit', '1', '--base-url', url], { env: { PAYREC_CONFIG_DIR: dir } });
      expect(elsewhere.exitCode).toBe(3);
      expect(elsewhere.stderr).toContain(`the key of profile "default" is kept for ${s.emu.url}, not for ${url} (--base-url)`);
      expect(seen).toEqual([]);
      // A key given for this run goes where the run says.
      const given = await payrec(undefined, ['ot', 'transfers', '--limit', '1', '--base-url', url, '-f', 'json'], { env: { PAYREC_CONFIG_DIR: dir, PAYREC_API_KEY: 'prk_other_service' } });
      expect(given.exitCode).toBe(0);
      expect(seen).toEqual(['Bearer prk_other_service']);
    } finally {
      other.close();
    }
  });
});
