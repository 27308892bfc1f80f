import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lchownSync, mkdirSync, readdirSync, rmSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec, tempDir } from './helpers.js';
import { NOBODY, nobody, payrecAsNobody, root } from './other-user.js';

// What another user of the machine can plant beside what payrec keeps (issue 32): each
// test builds the hostile thing itself (a folder, a link, a pipe) and checks that payrec
// neither writes into it nor waits on it.

vi.setConfig({ testTimeout: 120_000 });

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator({ records: 20 });
});
afterAll(() => emu.close());

async function synced(dir: string): Promise<string> {
  const db = join(dir, 'm.duckdb');
  const r = await payrec(emu, ['sync', 'ot/transfers', '--db', db, '-q']);
  expect(r.exitCode, r.stderr).toBe(0);
  return db;
}

async function until(done: () => boolean): Promise<void> {
  for (const end = Date.now() + 30_000; !done(); await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() > end) throw new Error('timed out waiting');
  }
}

/**
 * The names created, changed or removed in `dir` from now until seen() is asked. The
 * kernel keeps a folder's events in order: once a marker written last is seen, every
 * earlier event is in.
 */
function watchFolder(dir: string) {
  const names: string[] = [];
  const watcher = watch(dir, (_, name) => name && names.push(name));
  return {
    async seen(): Promise<string[]> {
      const marker = `.marker-${randomUUID()}`;
      writeFileSync(join(dir, marker), '');
      await until(() => names.includes(marker));
      watcher.close();
      rmSync(join(dir, marker));
      return [...new Set(names.filter((n) => n !== marker))];
    },
  };
}

describe('DuckDB spills into a private folder of payrec\'s own (item 2)', () => {
  test('a <mirror>.tmp folder another user made in a shared folder receives nothing of a large result', async () => {
    // Mutant killed: no temp_directory (DuckDB spilled into <mirror>.tmp, the planted folder).
    const shared = tempDir(0o1777);
    const db = await synced(shared);
    const planted = join(shared, 'm.duckdb.tmp');
    mkdirSync(planted);
    chmodSync(planted, 0o777);
    if (root.present) chownSync(planted, NOBODY, NOBODY);
    const [inPlanted, inShared] = [watchFolder(planted), watchFolder(shared)];
    // About 100 MB of rows against a 64 MB memory limit: DuckDB must spill to finish.
    const r = await payrec(undefined, ['sql', '--db', db, "SELECT i, repeat('x', 100) AS s FROM range(1000000) t(i)", '--count'], { env: { PAYREC_MIRROR_MEMORY: '64MB' } });
    expect([r.exitCode, r.stderr, r.stdout]).toEqual([0, '', '1000000\n']);
    expect(await inPlanted.seen()).toEqual([]);
    const own = (await inShared.seen()).filter((n) => n.startsWith('.m.duckdb.tmp-'));
    expect(own).toHaveLength(1);
    expect(own[0]).toMatch(/^\.m\.duckdb\.tmp-\d+-\w{6}$/);
    // Removed on close.
    expect(readdirSync(shared).filter((n) => n.startsWith('.m.duckdb.tmp-'))).toEqual([]);
  });

  test('what a killed process spilled goes at the next open; a live process\'s folder stays', async () => {
    // Mutant killed: removeStaleSpills not called (the killed reader's folder stayed).
    const dir = tempDir();
    const db = await synced(dir);
    const ended = spawnSync('true').pid;
    const stale = join(dir, `.m.duckdb.tmp-${ended}-abcdef`);
    const live = `.m.duckdb.tmp-${process.pid}-abcdef`;
    mkdirSync(stale);
    writeFileSync(join(stale, 'duckdb_temp_storage_DEFAULT-0.tmp'), 'spilled rows');
    mkdirSync(join(dir, live));
    const r = await payrec(undefined, ['sql', '--db', db, 'SELECT 1 AS one', '-f', 'jsonl']);
    expect([r.exitCode, r.stdout]).toEqual([0, '{"one":1}\n']);
    expect(readdirSync(dir).filter((n) => n.startsWith('.m.duckdb.tmp-'))).toEqual([live]);
  });
});

describe('sync --parquet DIR gets the mirror folder\'s trust check (item 4)', () => {
  test.concurrent('a DIR others can write: exit 2 before anything is fetched, nothing written there', async () => {
    // Mutant killed: parquetTarget without checkKeptFolder (the export went into the planted folder).
    const db = join(tempDir(), 'm.duckdb');
    const open = tempDir(0o777);
    const r = await payrec(emu, ['sync', 'ot/transfers', '--db', db, '--parquet', open]);
    expect(r.stderr).toBe(`error: the folder of the Parquet export ${open} can be changed by other users: payrec keeps nothing where others can change it\nhint: fix it with: chmod go-w ${open} (or set --parquet to a place of yours)\n`);
    expect(r.exitCode).toBe(2);
    expect(readdirSync(open)).toEqual([]);
    expect(existsSync(db)).toBe(false);
  });

  test.skipIf(root.skip).concurrent(`a DIR of another user's: exit 2 before anything is fetched, nothing written there${root.note}`, async () => {
    // Mutant killed: parquetTarget without checkKeptFolder (the export went into their folder).
    root.need();
    const db = join(tempDir(), 'm.duckdb');
    const theirs = tempDir(0o755);
    chownSync(theirs, NOBODY, NOBODY);
    const t = await payrec(emu, ['sync', 'ot/transfers', '--db', db, '--parquet', theirs]);
    expect(t.stderr).toContain(`error: the folder of the Parquet export ${theirs} belongs to another user (uid ${NOBODY})`);
    expect(t.exitCode).toBe(2);
    expect(readdirSync(theirs)).toEqual([]);
  });

  test.skipIf(nobody.skip).concurrent(`a partition folder payrec cannot write or create, run as nobody: exit 2 naming it, not an internal error${nobody.note}`, async () => {
    nobody.need();
    // Mutants killed: the partition's mkdir, and DuckDB's COPY into it, without unwritable() (exit 1, EACCES as an internal error).
    const shared = tempDir(0o1777);
    const env = { PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc'), PAYREC_CHAIN: 'bsc', PAYREC_CONFIG_DIR: join(shared, 'config') };
    // What another user left inside before the folder was handed over: root's, 0755. The
    // table's folder (no partition can be made), or every month's (no file can be written).
    const planted = [['one_time_transfers'], Array.from({ length: 13 }, (_, i) => `one_time_transfers/chain=bsc/month=${i < 12 ? `2025-${String(i + 1).padStart(2, '0')}` : '2026-01'}`)];
    for (const [n, folders] of planted.entries()) {
      const dir = join(shared, `pq${n}`);
      // mkdir's mode is cut by the worker's umask (077 once a test opened a mirror in it): 022 while they are made.
      const umask = process.umask(0o022);
      try {
        for (const f of folders) mkdirSync(join(dir, f), { recursive: true, mode: 0o755 });
      } finally {
        process.umask(umask);
      }
      chownSync(dir, NOBODY, NOBODY);
      chmodSync(dir, 0o700);
      const r = await payrecAsNobody(['sync', 'ot/transfers', '--db', join(shared, `m${n}.duckdb`), '--parquet', dir], env);
      // The path is cut in the message (printable: 80 characters at most).
      expect(r.stderr).toMatch(/^error: cannot write the Parquet partition \/.*: permission denied \(EACCES\)\nhint: give --parquet a folder you can write$/);
      expect(r.stderr).toContain(dir);
      expect(r.exitCode).toBe(2);
    }
  });
});

describe('a sync lock file that is not DuckDB\'s (item 15)', () => {
  test.concurrent.each([
    ['empty', ''],
    ['damaged', 'not a database'],
  ])('%s: exit 2 naming the lock file as what can be removed; the mirror unchanged, and a sync after removing it works', async (_, content) => {
    // Mutant killed: takeSyncLock reporting openError of the mirror ("move that file away": the mirror blamed).
    const dir = tempDir();
    const db = await synced(dir);
    const lock = join(dir, '.m.duckdb.sync-lock');
    writeFileSync(lock, content);
    const r = await payrec(emu, ['sync', 'ot/transfers', '--db', db]);
    expect(r.stderr).toBe(`error: the sync lock ${lock} is not a DuckDB file (empty or damaged); the mirror ${db} was not changed\nhint: remove it (it holds nothing; payrec sync makes it again): rm ${lock}\n`);
    expect(r.exitCode).toBe(2);
    rmSync(lock);
    expect((await payrec(emu, ['sync', 'ot/transfers', '--db', db, '-q'])).exitCode).toBe(0);
  });
});

describe('a named pipe where a file is expected (item 14)', () => {
  test.concurrent('as --db of sql and sync, and as sql --file: exit 2 at once, nothing waits on it', async () => {
    // Mutants killed: mirrorLocation and queryText without the regular-file check (payrec
    // waited on the pipe for ever, past Ctrl-C: the test timed out).
    const dir = tempDir();
    const fifo = join(dir, 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const db = await synced(tempDir());
    for (const args of [['sql', '--db', fifo, 'SELECT 1'], ['sync', 'ot/transfers', '--db', fifo]]) {
      const r = await payrec(emu, args);
      expect(r.stderr, args.join(' ')).toBe(`error: the mirror ${fifo} is not a regular file (a pipe, a device or a folder)\nhint: give --db the path of a file (a new one is created)\n`);
      expect(r.exitCode).toBe(2);
    }
    const q = await payrec(undefined, ['sql', '--db', db, '--file', fifo]);
    expect(q.stderr).toBe(`error: --file "${fifo}" is not a regular file (a pipe, a device or a folder)\nhint: give a file, or pipe the query in: payrec sql - < query.sql\n`);
    expect(q.exitCode).toBe(2);
  });
});

describe('a named pipe beside the mirror, where DuckDB opens its WAL or payrec its sync lock (issue 48, item 4)', () => {
  test.concurrent.each(['m.duckdb.wal', '.m.duckdb.sync-lock'])('at %s: sql, sync and verify exit 2 at once, naming it', async (name) => {
    // Mutant killed: refusePlanted without the regular-file check (DuckDB's open of the
    // pipe blocked the thread that hears Ctrl-C: sql, sync and verify hung for ever).
    const db = await synced(tempDir());
    // In place of the lock the sync made.
    const fifo = join(db, '..', name);
    rmSync(fifo, { force: true });
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const env = { PAYREC_RPC_URL: `${emu.url}/rpc/bsc` };
    for (const args of [['sql', '--db', db, 'SELECT 1'], ['sync', 'ot/transfers', '--db', db], ['verify', '--db', db]]) {
      const r = await payrec(emu, args, { env });
      expect(r.stderr, args.join(' ')).toBe(`error: ${fifo} is not a regular file (a pipe, a device or a folder): payrec does not use a mirror's file through it\nhint: remove it (payrec makes its own), or give --db FILE in a folder of yours\n`);
      expect(r.exitCode).toBe(2);
    }
  });
});

describe('-o never goes through a link another user could have made or replaced, anywhere on its path (item 8)', () => {
  test.skipIf(root.skip).concurrent(`another user's link to a folder in a sticky folder, as a middle component: exit 2, the folder it points to unchanged${root.note}`, async () => {
    root.need();
    // Mutant killed: the link check on the last component only (the export landed in the victim's folder).
    const sticky = tempDir(0o1777);
    const victim = tempDir();
    symlinkSync(victim, join(sticky, 'reports'));
    lchownSync(join(sticky, 'reports'), NOBODY, NOBODY);
    const out = join(sticky, 'reports', 'out.csv');
    const r = await payrec(emu, ['ot', 'transfers', '--limit', '1', '-f', 'csv', '-o', out]);
    expect(r.stderr).toBe(`error: ${join(sticky, 'reports')} is a link made by another user (uid ${NOBODY}) in a folder everyone can write: payrec does not write through it\nhint: remove the link, or give -o another path\n`);
    expect(r.exitCode).toBe(2);
    expect(readdirSync(victim)).toEqual([]);
  });

  test.concurrent('any link in a folder everyone can write without the sticky bit, last or middle: exit 2', async () => {
    // Mutant killed: refuseForeignLink passing links in 0777 non-sticky folders (anyone could have swapped them).
    const open = tempDir(0o777);
    const mine = tempDir();
    symlinkSync(mine, join(open, 'dir'));
    symlinkSync(join(mine, 'file.csv'), join(open, 'file.csv'));
    for (const [out, link] of [[join(open, 'dir', 'out.csv'), join(open, 'dir')], [join(open, 'file.csv'), join(open, 'file.csv')]]) {
      const r = await payrec(emu, ['ot', 'transfers', '--limit', '1', '-f', 'csv', '-o', out]);
      expect(r.stderr).toBe(`error: ${link} is a link in a folder everyone can write, where anyone can replace it: payrec does not write through it\nhint: remove the link, or give -o another path\n`);
      expect(r.exitCode).toBe(2);
    }
    expect(readdirSync(mine)).toEqual([]);
  });
});

describe('the folders above the mirror are checked, as ssh checks those above a key (item 9)', () => {
  test.concurrent('a private folder under one everyone can write (no sticky bit): exit 2 naming that folder, nothing written', async () => {
    // Mutant killed: checkKeptFolder without the walk up (the 0700 folder could be renamed away and replaced).
    const open = tempDir(0o777);
    const inner = join(open, 'inner');
    mkdirSync(inner, { mode: 0o700 });
    const r = await payrec(emu, ['sync', 'ot/transfers', '--db', join(inner, 'm.duckdb')]);
    expect(r.stderr).toBe(
      `error: the folder of the mirror (a folder above it) ${open} can be changed by other users: payrec keeps nothing where others can change it\nhint: fix it with: chmod go-w ${open} (or set --db (or PAYREC_DB, XDG_DATA_HOME) to a place of yours)\n`,
    );
    expect(r.exitCode).toBe(2);
    expect(readdirSync(inner)).toEqual([]);
    // Under a sticky one (/tmp), it is fine.
    const sticky = tempDir(0o1777);
    mkdirSync(join(sticky, 'inner'), { mode: 0o700 });
    expect((await payrec(emu, ['sync', 'ot/transfers', '--db', join(sticky, 'inner', 'm.duckdb'), '-q'])).exitCode).toBe(0);
  });
});
