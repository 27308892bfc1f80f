import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { ANCHOR, emulator, payrec, prerequisite, tempDir } from './helpers.js';
import { listOf, sql } from './mirror-helpers.js';
import { root } from './other-user.js';

// A full disk (issue 48, item 2): a small tmpfs that a sync, a verify or an -o export
// fills. Each is exit 2 naming the folder and the setting that moves what was written
// (never "unexpected internal error", exit 1), leaves nothing half-written, and the
// mirror stays whole: given room, the next run finishes it to the emulator's records.

/** Whether this machine lets the suite mount a tmpfs (root, and a kernel and container that allow it), tried once. */
function canMount(): boolean {
  if (!root.present) return false;
  const probe = tempDir();
  const ok = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]).status === 0;
  if (ok) spawnSync('umount', [probe]);
  return ok;
}
const tmpfs = prerequisite('a small tmpfs (root, where mount -t tmpfs is allowed)', canMount(), 'run the suite as root on a machine or container that allows mount');

const SIZE = '4m';
let disk: string;
let emu: Emulator;

/** The tmpfs at `size` (a remount keeps its files). */
function mount(size: string, again = false): void {
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `${again ? 'remount,' : ''}size=${size},mode=0700`, 'tmpfs', disk], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}

/** Fills the disk but `leave` bytes with one file (all of it: written until the disk refuses). */
function fill(leave = 0): void {
  const fd = openSync(join(disk, 'filler'), 'w');
  const block = Buffer.alloc(16 * 1024);
  try {
    if (leave > 0) {
      const { bavail, bsize } = statfsSync(disk);
      for (let left = bavail * bsize - leave; left > 0; left -= block.length) writeSync(fd, block, 0, Math.min(left, block.length));
      return;
    }
    for (;;) writeSync(fd, block);
  } catch (err) {
    expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
  } finally {
    closeSync(fd);
  }
}

const NO_SPACE = (what: string, hint: string) =>
  `error: cannot write ${what}: no space is left on the disk of ${disk} (ENOSPC); nothing half-written was kept\nhint: free some space there, or ${hint}\n`;
const MOVE_MIRROR = 'move the mirror to another disk: --db FILE (or PAYREC_DB, XDG_DATA_HOME)';

describe.skipIf(tmpfs.skip)(`a full disk${tmpfs.note}`, () => {
  beforeAll(async () => {
    tmpfs.need();
    disk = tempDir();
    mount(SIZE);
    // 10,000 records: a first sync's batch of one-time transfers (several MB of JSON) does not fit in 2 MB.
    emu = await emulator({ records: 10_000 });
  });
  afterAll(async () => {
    await emu?.close();
    if (disk) spawnSync('umount', [disk]);
  });
  afterEach(() => {
    for (const name of readdirSync(disk)) rmSync(join(disk, name), { recursive: true, force: true });
    mount(SIZE, true);
  });

  test('sync: exit 2 naming the folder and --db, no staging file left; with room, the next sync makes the mirror the emulator\'s records', async () => {
    // Mutant killed: writevSync's count ignored (the cut staging file reached DuckDB: "Malformed JSON", exit 1).
    const db = join(disk, 'm.duckdb');
    // Room for a new mirror (1.5 MB) and part of a batch.
    fill(2 * 1024 * 1024);
    const r = await payrec(emu, ['sync', 'ot/transfers', '--db', db, '-q']);
    expect(r.stderr).toMatch(new RegExp(`^error: cannot write the mirror(?:'s staging file in ${disk}| ${db}): `));
    expect(r.stderr).toContain(NO_SPACE('', MOVE_MIRROR).slice(`error: cannot write : `.length));
    expect(r.exitCode).toBe(2);
    // The account of what was done (issue 44 item 7): the list it stopped in, and why.
    expect(r.stdout).toMatch(/^table\tfetched\tnew\tupdated\tunchanged\tdeleted\trequests\tseconds\tnote\none_time_transfers\t\d+\t\d+\t0\t0\t0\t\d+\t[\d.]+\tstopped: cannot write the mirror.*(ENOSPC|EDQUOT)/);
    // Nothing of payrec's own beside the mirror: no staging or spill folder.
    expect(readdirSync(disk).filter((n) => /staging|\.tmp-/.test(n))).toEqual([]);
    rmSync(join(disk, 'filler'));
    mount('64m', true);
    const again = await payrec(emu, ['sync', 'ot/transfers', '--db', db, '-q']);
    expect(again.exitCode, again.stderr).toBe(0);
    const truth = await listOf(emu, '/one-time/transfers');
    expect(await sql(db, 'SELECT count(*) AS n, count(DISTINCT transactionHash) AS hashes FROM one_time_transfers')).toEqual([{ n: truth.length, hashes: truth.length }]);
  });

  test('verify: exit 2 naming the folder and --db; with room, every record gets its verdict', async () => {
    const db = join(disk, 'v.duckdb');
    // The last week's transfers: a mirror that fits.
    const from = String(ANCHOR - 7 * 86_400);
    expect((await payrec(emu, ['sync', 'ot/transfers', '--db', db, '--from', from, '-q'])).exitCode).toBe(0);
    const [{ n }] = await sql(db, 'SELECT count(*) AS n FROM one_time_transfers');
    expect(n).toBeGreaterThan(0);
    fill();
    const env = { PAYREC_RPC_URL: `${emu.url}/rpc/bsc` };
    const r = await payrec(emu, ['verify', 'ot/transfers', '--db', db, '-q'], { env });
    expect(r.stderr).toMatch(new RegExp(`^error: cannot write the mirror(?:'s staging file in ${disk}| ${db}): `));
    expect(r.stderr).toContain(NO_SPACE('', MOVE_MIRROR).slice(`error: cannot write : `.length));
    expect(r.exitCode).toBe(2);
    expect(readdirSync(disk).filter((n) => /staging|\.tmp-/.test(n))).toEqual([]);
    rmSync(join(disk, 'filler'));
    const again = await payrec(emu, ['verify', 'ot/transfers', '--db', db, '-q'], { env });
    expect([0, 9], again.stderr).toContain(again.exitCode);
    expect(await sql(db, 'SELECT count(DISTINCT transactionHash) AS n FROM chain_verdicts')).toEqual([{ n }]);
  });

  test.each(['csv', 'json', 'xlsx'])('-o FILE.%s: exit 2 naming the folder and -o; no file and no temporary file left', async (ext) => {
    // Mutants killed: the action's conversion dropped (exit 1, "unexpected internal error").
    fill();
    const out = join(disk, `out.${ext}`);
    const r = await payrec(emu, ['ot', 'transfers', '--all', '-o', out]);
    expect(r.stderr).toBe(NO_SPACE(`--output "${out}"`, 'give -o a path on another disk'));
    expect(r.exitCode).toBe(2);
    expect(readdirSync(disk)).toEqual(['filler']);
  });
});
