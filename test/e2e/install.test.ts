import { execa } from 'execa';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { tempDir } from './helpers.js';

// A clean install, as a newcomer makes it: the packed tarball installed globally (into a
// temporary prefix, from npm's cache where it can: npm ci fills it with the lock file's
// packages, but a global install asks the registry for full package documents that npm
// ci may not have cached, so it may reach the registry as npm ci does) prints no warning and
// gives a working `payrec`; and the clone's own dependencies run no install script that
// package.json has not reviewed (npm 11 warns about each one on npm ci).

const ROOT = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/**
 * npm as a fresh machine runs it: none of this machine's own npm settings (an empty user
 * config, and none of the npm_* variables that `npm test` passes down), but the machine's
 * own environment otherwise (its certificates, for one, when the registry is reached).
 */
function npm(args: string[], cwd: string) {
  const userconfig = join(tempDir(), 'npmrc');
  writeFileSync(userconfig, '');
  const machine = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
  return execa('npm', args, {
    cwd,
    reject: false,
    extendEnv: false,
    env: { ...machine, npm_config_userconfig: userconfig, npm_config_update_notifier: 'false' },
  });
}

describe('install', () => {
  test.concurrent('the packed tarball installs globally without a warning, and payrec runs from it', async () => {
    const dir = tempDir();
    // dist/ is already built (npm test builds first); --ignore-scripts: prepack would empty it under the other tests.
    const packed = await npm(['pack', '--ignore-scripts', '--pack-destination', dir], ROOT);
    expect(packed.exitCode).toBe(0);
    const tarball = join(dir, `${pkg.name}-${pkg.version}.tgz`);
    const prefix = join(dir, 'prefix');
    const installed = await npm(['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], dir);
    expect(installed.stderr).toBe('');
    expect(installed.exitCode).toBe(0);

    // npm links the man page ("man" in package.json) where `man payrec` finds it.
    expect(readFileSync(join(prefix, 'share', 'man', 'man1', 'payrec.1'), 'utf8')).toBe(readFileSync(join(ROOT, 'man', 'payrec.1'), 'utf8'));
    const bin = join(prefix, 'bin', 'payrec');
    const version = await execa(bin, ['--version'], { reject: false });
    expect(version.stdout).toBe(pkg.version);
    const run = await execa(bin, ['--emulator', 'one-time', 'transfers', '--limit', '2', '-q', '-f', 'jsonl'], { reject: false, env: { NO_COLOR: '1' } });
    expect(run.stderr).toBe('');
    expect(run.stdout.split('\n').map((l) => JSON.parse(l).transactionStatus)).toHaveLength(2);
    // --jq: jq compiled to WebAssembly, its .wasm loaded from the installed jq-web package.
    const jq = await execa(bin, ['--emulator', 'one-time', 'transfers', '--limit', '2', '-q', '--jq', 'map(.transactionStatus) | length'], { reject: false });
    expect(jq.stderr).toBe('');
    expect(jq.stdout).toBe('2');

    // The mirror: DuckDB's JavaScript is bundled into dist, its native binding installed as a dependency.
    const db = join(dir, 'mirror.duckdb');
    const synced = await execa(bin, ['--emulator', 'sync', 'ot/transfers', '--db', db, '-f', 'json'], { reject: false });
    expect(synced.stderr).toBe('');
    const [report] = JSON.parse(synced.stdout) as { fetched: number; new: number }[];
    expect(report.fetched).toBeGreaterThan(0);
    const counted = await execa(bin, ['sql', '--db', db, '-f', 'json', 'SELECT count(*) AS n FROM one_time_transfers'], { reject: false });
    expect(counted.stderr).toBe('');
    expect(JSON.parse(counted.stdout)).toEqual([{ n: report.new }]);
  });

  test.concurrent('every dependency install script is reviewed in package.json (allowScripts)', async () => {
    const r = await npm(['install-scripts', 'ls'], ROOT);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('No packages with unreviewed install scripts.');
    expect(r.exitCode).toBe(0);
  });
});
