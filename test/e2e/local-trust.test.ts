import { chmodSync, chownSync, existsSync, lchownSync, lstatSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { BIN, emulator, payrec, tempDir } from './helpers.js';
import { NOBODY, nobody, payrecAsNobody, root } from './other-user.js';

// Where payrec keeps things (the mirror, the listener's memory, the config, -o files)
// when the folder is not the user's alone, or cannot be written (issue 24 item 10,
// issue 23 item 3). Tests run as root here and in CI: a read-only folder does not stop
// root, so "cannot write" is made with a path through a regular file (ENOTDIR) and by
// running payrec as `nobody` with setpriv (EACCES).

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator({ records: 20 });
});
afterAll(() => emu.close());

const sync = (db: string, env: Record<string, string | undefined> = {}) => payrec(emu, ['sync', 'ot/transfers', '--db', db], { env });

describe('the mirror gets the config\'s trust check', () => {
  test.concurrent('a folder others can write: exit 2 naming chmod go-w, nothing sent or written; a sticky one (/tmp) is fine', async () => {
    // Mutant killed: mirrorLocation without checkKeptFile (the sync ran and wrote there).
    const open = tempDir(0o777);
    const db = join(open, 'm.duckdb');
    const r = await sync(db);
    expect(r.stderr).toContain(`error: the folder of the mirror ${open} can be changed by other users: payrec keeps nothing where others can change it`);
    expect(r.stderr).toContain(`hint: fix it with: chmod go-w ${open} (or set --db (or PAYREC_DB, XDG_DATA_HOME) to a place of yours)`);
    expect(r.exitCode).toBe(2);
    expect(readdirSync(open)).toEqual([]);
    const sticky = tempDir(0o1777);
    expect((await sync(join(sticky, 'm.duckdb'))).exitCode).toBe(0);
  });

  test.concurrent('a mirror file others can write: exit 2 (chmod 600; set --db elsewhere); 0600 again: synced', async () => {
    const dir = tempDir();
    const db = join(dir, 'm.duckdb');
    expect((await sync(db)).exitCode).toBe(0);
    chmodSync(db, 0o666);
    const writable = await sync(db);
    expect(writable.exitCode).toBe(2);
    expect(writable.stderr).toContain(`hint: fix it with: chmod 600 ${db}`);
    chmodSync(db, 0o600);
    expect((await sync(db)).exitCode).toBe(0);
  });

  test.skipIf(root.skip).concurrent(`a mirror file of another user's: exit 2, for sync and for sql${root.note}`, async () => {
    root.need();
    const db = join(tempDir(), 'm.duckdb');
    expect((await sync(db)).exitCode).toBe(0);
    chownSync(db, NOBODY, NOBODY);
    const theirs = await sync(db);
    expect(theirs.exitCode).toBe(2);
    expect(theirs.stderr).toContain(`error: the file of the mirror ${db} belongs to another user (uid ${NOBODY})`);
    const read = await payrec(undefined, ['sql', '--db', db, 'SELECT 1']);
    expect(read.exitCode).toBe(2);
  });

  test.skipIf(root.skip).concurrent(`a link another user made in /tmp-like folder is never followed: the file it points to is not created${root.note}`, async () => {
    root.need();
    // Mutant killed: no foreign-link check (DuckDB created the victim's file through the link).
    const sticky = tempDir(0o1777);
    const victim = join(tempDir(), 'victim.duckdb');
    const db = join(sticky, 'm.duckdb');
    symlinkSync(victim, db);
    lchownSync(db, NOBODY, NOBODY);
    const r = await sync(db);
    expect(r.stderr).toContain(`error: ${db} is a link made by another user (uid ${NOBODY}) in a folder everyone can write: the mirror is not kept through it`);
    expect(r.exitCode).toBe(2);
    expect(existsSync(victim)).toBe(false);
  });

  test.concurrent('a staging folder or WAL planted as a link: exit 2, nothing written through it', async () => {
    // Mutant killed: the staging folder removed and made again at a fixed name (the link was
    // followed or replaced by a folder the planter could watch), and a planted WAL link used.
    const dir = tempDir();
    const spy = tempDir();
    const db = join(dir, 'm.duckdb');
    symlinkSync(spy, join(dir, '.m.duckdb.staging'));
    const r = await sync(db);
    expect(r.stderr).toContain(`error: ${join(dir, '.m.duckdb.staging')} is a link: payrec does not use a mirror's file through it`);
    expect(r.exitCode).toBe(2);
    expect(readdirSync(spy)).toEqual([]);
    const other = tempDir();
    symlinkSync(join(spy, 'wal'), join(other, 'm.duckdb.wal'));
    expect((await sync(join(other, 'm.duckdb'))).exitCode).toBe(2);
    expect(readdirSync(spy)).toEqual([]);
    // A reader too: DuckDB would replay a planted WAL into what payrec sql shows.
    const read = await payrec(undefined, ['sql', '--db', join(other, 'm.duckdb'), 'SELECT 1']);
    expect(read.stderr).toContain(`error: ${join(other, 'm.duckdb.wal')} is a link: payrec does not use a mirror's file through it`);
    expect(read.exitCode).toBe(2);
  });

  test.concurrent('under umask 000 the data folders payrec creates are 0700 and the mirror 0600; no staging folder is left', async () => {
    // Mutant killed: mkdir(recursive) without mode 0700 (0777 under umask 000).
    const home = tempDir();
    const data = join(home, 'fresh', 'share');
    const r = await execa('sh', ['-c', `umask 000 && exec node "${BIN}" sync ot/transfers --parquet "${join(home, 'pq', 'out')}"`], {
      reject: false,
      extendEnv: false,
      env: { PATH: process.env.PATH, HOME: home, TZ: 'UTC', XDG_DATA_HOME: data, PAYREC_CONFIG_DIR: tempDir(), PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc'), PAYREC_CHAIN: 'bsc' },
    });
    expect(r.exitCode).toBe(0);
    for (const d of [join(home, 'fresh'), data, join(data, 'payrec'), join(home, 'pq'), join(home, 'pq', 'out')]) expect((statSync(d).mode & 0o777).toString(8), d).toBe('700');
    expect((statSync(join(data, 'payrec', 'default.duckdb')).mode & 0o777).toString(8)).toBe('600');
    expect(readdirSync(join(data, 'payrec')).filter((n) => n.includes('staging'))).toEqual([]);
  });
});

describe('the listener\'s memory gets it too', () => {
  test.skipIf(root.skip).concurrent(`a state folder that is a link another user made in a sticky folder: refused, nothing written where it points${root.note}`, async () => {
    root.need();
    // Mutant killed: the folder check without the link check (the memory went wherever the link pointed).
    const sticky = tempDir(0o1777);
    const target = tempDir();
    symlinkSync(target, join(sticky, 'payrec'));
    lchownSync(join(sticky, 'payrec'), NOBODY, NOBODY);
    const r = await payrec(emu, ['wn', 'listen', '--port', '0', '--forward-to', 'http://127.0.0.1:9/hooks'], { env: { XDG_STATE_HOME: sticky } });
    expect(r.stderr).toContain(`error: ${join(sticky, 'payrec')} is a link made by another user (uid ${NOBODY}) in a folder everyone can write: the listener's memory of forwarded notifications is not kept through it`);
    expect(r.exitCode).toBe(2);
    expect(readdirSync(target)).toEqual([]);
  });

  test.concurrent('a state folder others can write: wn listen --forward-to exits 2 naming chmod go-w', async () => {
    const state = tempDir();
    mkdirSync(join(state, 'payrec'), { mode: 0o777 });
    chmodSync(join(state, 'payrec'), 0o777);
    const r = await payrec(emu, ['wn', 'listen', '--port', '0', '--forward-to', 'http://127.0.0.1:9/hooks'], { env: { XDG_STATE_HOME: state } });
    expect(r.stderr).toContain(`error: the folder of the listener's memory of forwarded notifications ${join(state, 'payrec')} can be changed by other users`);
    expect(r.stderr).toContain(`chmod go-w ${join(state, 'payrec')}`);
    expect(r.exitCode).toBe(2);
  });
});

/** Every place payrec writes, in a home it cannot write; each answer names the setting that moves it. */
function placesUnder(home: string) {
  const env = { HOME: home, XDG_DATA_HOME: undefined, XDG_STATE_HOME: undefined, XDG_CONFIG_HOME: undefined, PAYREC_CONFIG_DIR: undefined };
  return [
    { what: 'sync', args: ['sync', 'ot/transfers'], env, hint: 'set --db (or PAYREC_DB, XDG_DATA_HOME) to a folder you can write' },
    { what: 'auth login', args: ['auth', 'login'], env: { ...env, PAYREC_API_KEY: undefined }, input: `${emu.keyFor('bsc')}\n`, hint: 'set PAYREC_CONFIG_DIR to a folder you can write' },
    { what: 'wn listen', args: ['wn', 'listen', '--port', '0', '--forward-to', 'http://127.0.0.1:9/'], env, hint: 'set XDG_STATE_HOME to a folder you can write' },
    { what: '-o', args: ['ot', 'transfers', '--limit', '1', '-o', join(home, 'out.csv')], env, hint: 'give -o a path in a folder you can write' },
    { what: '--parquet', args: ['sync', 'ot/transfers', '--db', join(tempDir(0o1777), 'm.duckdb'), '--parquet', join(home, 'pq')], env, hint: 'give --parquet a folder you can write' },
  ];
}

/** payrec run as nobody at one of placesUnder's places, against the emulator. */
function asNobody(place: ReturnType<typeof placesUnder>[number]) {
  return payrecAsNobody(place.args, { PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc'), PAYREC_CHAIN: 'bsc', ...place.env }, place.input);
}

describe('exit 2, never 1, where payrec cannot write (issue 23 item 3)', () => {
  test.concurrent('a home under a regular file (ENOTDIR): each place says so with the setting that moves it', async () => {
    // Mutant killed: makeKeptFolder/ConfigStore.write without unwritable() (exit 1, "unexpected internal error").
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, '');
    for (const place of placesUnder(join(file, 'home'))) {
      const r = await payrec(emu, place.args, { env: place.env, input: place.input });
      expect(r.stderr, place.what).not.toContain('internal error');
      expect(r.stderr, place.what).toContain(`hint: ${place.hint}`);
      expect(r.exitCode, place.what).toBe(2);
    }
  });

  test.skipIf(nobody.skip).concurrent(`a read-only home, payrec run as nobody (EACCES)${nobody.note}`, async () => {
    nobody.need();
    const top = tempDir(0o755);
    const home = join(top, 'home');
    mkdirSync(home, { mode: 0o555 });
    chmodSync(home, 0o555);
    for (const place of placesUnder(home)) {
      const r = await asNobody(place);
      expect(r.stderr, place.what).toMatch(/permission denied \(EACCES\)|: EACCES\n/);
      expect(r.stderr, place.what).toContain(`hint: ${place.hint}`);
      expect(r.exitCode, place.what).toBe(2);
    }
    expect(readdirSync(home)).toEqual([]);
  });
});

describe('exit 2, never 1, where payrec cannot even look', () => {
  test.skipIf(nobody.skip).concurrent(`a home inside a folder payrec may not enter, run as nobody (EACCES)${nobody.note}`, async () => {
    nobody.need();
    // Found when the test folders moved below a 0700 folder: the config file's lstat failed
    // with EACCES, which payrec took for an internal error (exit 1, "report it").
    const home = join(tempDir(0o700), 'home');
    mkdirSync(home, { mode: 0o777 });
    for (const place of placesUnder(home)) {
      const r = await asNobody(place);
      expect(r.stderr, place.what).not.toContain('internal error');
      expect(r.stderr, place.what).toMatch(/permission denied \(EACCES\)|: EACCES\n/);
      expect(r.exitCode, place.what).toBe(2);
    }
  });
});

describe('-o onto what is there', () => {
  test.concurrent('an existing file keeps its mode (0600 stays 0600, 0640 stays 0640)', async () => {
    // Mutant killed: the temporary file left at 0644 before the rename.
    const dir = tempDir();
    for (const mode of [0o600, 0o640]) {
      const out = join(dir, `export-${mode.toString(8)}.csv`);
      writeFileSync(out, 'old\n', { mode });
      chmodSync(out, mode);
      const r = await payrec(emu, ['ot', 'transfers', '--limit', '2', '-f', 'csv', '-o', out]);
      expect(r.exitCode).toBe(0);
      expect((statSync(out).mode & 0o777).toString(8)).toBe(mode.toString(8));
      expect(statSync(out).size).toBeGreaterThan(4);
    }
  });

  test.skipIf(root.skip).concurrent(`a link another user made in a sticky folder is refused; the file it points to is unchanged${root.note}`, async () => {
    root.need();
    // Mutant killed: -o following the link with realpath and renaming over its target.
    const sticky = tempDir(0o1777);
    const victim = join(tempDir(), 'precious.txt');
    writeFileSync(victim, 'keep me\n');
    const out = join(sticky, 'report.csv');
    symlinkSync(victim, out);
    lchownSync(out, NOBODY, NOBODY);
    const r = await payrec(emu, ['ot', 'transfers', '--limit', '2', '-f', 'csv', '-o', out]);
    expect(r.stderr).toContain(`error: ${out} is a link made by another user (uid ${NOBODY}) in a folder everyone can write: payrec does not write through it`);
    expect(r.exitCode).toBe(2);
    expect(statSync(victim).size).toBe(8);
    // The user's own link there is followed, and stays a link.
    const mine = join(sticky, 'mine.csv');
    symlinkSync(victim, mine);
    expect((await payrec(emu, ['ot', 'transfers', '--limit', '2', '-f', 'csv', '-o', mine])).exitCode).toBe(0);
    expect(lstatSync(mine).isSymbolicLink()).toBe(true);
    expect(statSync(victim).size).toBeGreaterThan(8);
  });
});
