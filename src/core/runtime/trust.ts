import type { Stats } from 'node:fs';
import { lstat, mkdir, realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from './errors.js';
import { printable } from '../output/sanitize.js';

// Whether payrec may trust a file or a folder with what it keeps (the key, payment
// records, the memory of forwarded notifications), as ssh does: nobody but its owner may
// be able to change it. One check for the config, the mirror and the state folder.

/** Why users other than the owner can change an entry: it is theirs, or others may write it. POSIX only. */
export type OthersCanChange = 'not-own' | 'writable';

/**
 * Whether users other than the owner can change a file or a folder: it is theirs, or
 * others may write it, or a group other than the user's own primary group may (with
 * user private groups, umask 002 makes folders writable by that one-person group).
 * A folder with the sticky bit (/tmp) lets nobody replace another's file.
 */
export function othersCanChange(s: Stats, what: 'file' | 'folder'): OthersCanChange | undefined {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return undefined;
  if (s.uid !== process.getuid() && s.uid !== 0) return 'not-own';
  const sticky = what === 'folder' && (s.mode & 0o1000) !== 0;
  const byOthers = (s.mode & 0o002) !== 0 || ((s.mode & 0o020) !== 0 && s.gid !== process.getgid?.());
  return byOthers && !sticky ? 'writable' : undefined;
}

/** A path as one shell word, for a command the user can paste. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./~+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

export interface Keeper {
  /** What is kept there, for messages: "the mirror", "the listener's memory". */
  role: string;
  /** The settings that move it: "--db, PAYREC_DB or XDG_DATA_HOME". */
  moveWith: string;
}

/**
 * Checks a file payrec keeps private data in (it may not exist yet) and its folder:
 * exit 2 naming the fix when another user could change either, or when the file is a
 * link another user made in a folder everyone can write (/tmp).
 */
export async function checkKeptFile(file: string, keeper: Keeper): Promise<void> {
  await checkKeptFolder(dirname(file), keeper);
  const link = await lstat(file).catch(() => undefined);
  if (!link) return;
  if (link.isSymbolicLink()) {
    await refuseForeignLink(file, link, `${keeper.role} is not kept`, `set ${keeper.moveWith} to a file of yours`);
    const target = await realpath(file).catch(() => undefined);
    if (target) await checkKeptFolder(dirname(target), keeper);
  }
  const s = await stat(file).catch(() => undefined);
  if (s) refuseUntrusted(s, file, 'file', keeper);
}

/**
 * The folder check: as for a file, and never a link another user made in /tmp; and, as
 * ssh checks the folders above a key, none of the folders above it may be changed by
 * others (a 0700 folder under a 0777 one can be renamed away and replaced).
 */
export async function checkKeptFolder(dir: string, keeper: Keeper): Promise<void> {
  const link = await lstat(dir).catch(() => undefined);
  if (link?.isSymbolicLink()) await refuseForeignLink(dir, link, `${keeper.role} is not kept`, `set ${keeper.moveWith} to a folder of yours`);
  const s = await stat(dir).catch(() => undefined);
  if (s) refuseUntrusted(s, dir, 'folder', keeper);
  const above = await changeableAbove(dir);
  if (above) refuseUntrusted(above.stats, above.path, 'folder', { ...keeper, role: `${keeper.role} (a folder above it)` });
}

/**
 * The first folder above `dir` (its real path's, up to but not including /) that users
 * other than its owner can change: the rule for the mirror's folder and the config's.
 */
export async function changeableAbove(dir: string): Promise<{ path: string; stats: Stats } | undefined> {
  const real = await realpath(dir).catch(() => undefined);
  for (let above = real && dirname(real); above && dirname(above) !== above; above = dirname(above)) {
    const stats = await stat(above).catch(() => undefined);
    if (stats && othersCanChange(stats, 'folder')) return { path: above, stats };
  }
  return undefined;
}

function refuseUntrusted(s: Stats, path: string, what: 'file' | 'folder', keeper: Keeper): void {
  const why = othersCanChange(s, what);
  if (!why) return;
  const shown = printable(path);
  if (why === 'not-own') {
    throw new UsageError(`the ${what} of ${keeper.role} ${shown} belongs to another user (uid ${s.uid}): payrec keeps nothing where others can change it`, `set ${keeper.moveWith} to a place of yours`);
  }
  const fix = `chmod ${what === 'file' ? '600' : 'go-w'} ${shellWord(path)}`;
  throw new UsageError(`the ${what} of ${keeper.role} ${shown} can be changed by other users: payrec keeps nothing where others can change it`, `fix it with: ${fix} (or set ${keeper.moveWith} to a place of yours)`);
}

/**
 * A link another user made in a sticky folder everyone can write (/tmp), or any link in
 * a folder everyone can write without the sticky bit (anyone can replace it): following
 * it would let them point payrec at any file of the user's (the kernel's
 * protected_symlinks guards only opens that follow it, not a rename over its target).
 */
export async function refuseForeignLink(path: string, link: Stats, what: string, hint: string): Promise<void> {
  if (typeof process.getuid !== 'function') return;
  const folder = await stat(dirname(path)).catch(() => undefined);
  if (!folder || (folder.mode & 0o002) === 0) return;
  if ((folder.mode & 0o1000) === 0) throw new UsageError(`${printable(path)} is a link in a folder everyone can write, where anyone can replace it: ${what} through it`, hint);
  if (link.uid === process.getuid() || link.uid === 0) return;
  throw new UsageError(`${printable(path)} is a link made by another user (uid ${link.uid}) in a folder everyone can write: ${what} through it`, hint);
}

/** refuseForeignLink for every link on the way to `path`, its folders' included (`/tmp/theirs/out.csv`). */
export async function refuseForeignLinks(path: string, what: string, hint: string): Promise<void> {
  let at = resolve(path);
  const chain: string[] = [];
  for (; dirname(at) !== at; at = dirname(at)) chain.unshift(at);
  for (const p of chain) {
    const s = await lstat(p).catch(() => undefined);
    if (!s) return;
    if (s.isSymbolicLink()) await refuseForeignLink(p, s, what, hint);
  }
}

/**
 * Creates a folder payrec keeps private data in: each missing level 0700 whatever the
 * umask (a umask of 000 would make them 0777), then the trust check. A folder that cannot
 * be created is exit 2 naming the settings that move it.
 */
export async function makeKeptFolder(dir: string, keeper: Keeper): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
    throw unwritable(err, `cannot create the folder of ${keeper.role} ${printable(dir)}`, `set ${keeper.moveWith} to a folder you can write`);
  });
  await checkKeptFolder(dir, keeper);
}

/** Errors of a place that cannot be written, as exit 2 with a hint; anything else is left as it is. */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOENT', 'EEXIST', 'ENOSPC', 'EDQUOT', 'ELOOP', 'EISDIR']);

export function unwritable(err: NodeJS.ErrnoException, message: string, hint: string): Error {
  if (!err.code || !UNWRITABLE.has(err.code)) return err;
  return new UsageError(`${message}: ${describeCode(err.code)} (${err.code})`, hint);
}

/** A write the disk refused: full, over quota, or read-only. From Node's code, or DuckDB's message (which has none). */
export function diskRefusal(err: unknown): 'ENOSPC' | 'EDQUOT' | 'EROFS' | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EROFS') return code;
  const message = err instanceof Error ? err.message : String(err);
  return /No space left on device/i.test(message) ? 'ENOSPC' : /Disk quota exceeded/i.test(message) ? 'EDQUOT' : /Read-only file system/i.test(message) ? 'EROFS' : undefined;
}

/**
 * A write the disk refused, as exit 2 naming the folder and the setting that moves
 * what was written there (the caller removes what it had begun); any other error as it is.
 */
export function refusedByDisk(err: unknown, what: string, folder: string, moveWith: string): unknown {
  const code = diskRefusal(err);
  if (!code) return err;
  const where = code === 'EROFS' ? `${printable(folder)} is on a read-only file system` : `${code === 'EDQUOT' ? 'the disk quota is used up' : 'no space is left on the disk'} of ${printable(folder)}`;
  return new UsageError(`cannot write ${what}: ${where} (${code}); nothing half-written was kept`, `${code === 'EROFS' ? '' : 'free some space there, or '}${moveWith}`);
}

function describeCode(code: string): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder';
    case 'ENOENT':
      return 'a folder on the way does not exist';
    case 'EEXIST':
      return 'something else is already there';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'no space left';
    case 'ELOOP':
      return 'a link where a folder was expected';
    default:
      return 'it is a folder';
  }
}
