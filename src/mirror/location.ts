import { constants, existsSync } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { UsageError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import { checkKeptFile, checkKeptFolder } from '../core/runtime/trust.js';
import type { Session } from '../core/runtime/session.js';
import { isDbUrl, parseServerUrl, type ServerUrl } from './server-url.js';

// Where a mirror lives: --db FILE, else PAYREC_DB, else one file per profile in the
// XDG data directory (DESIGN.md): `<data>/payrec/<profile>.duckdb`, and
// `emulator.duckdb` beside them for the built-in emulator's records. A postgres:// URL
// puts it on a PostgreSQL server instead (server-url.ts).

/** The mirror in the trust check's messages: what it is, and what moves it. */
export const MIRROR_KEEPER = { role: 'the mirror', moveWith: '--db (or PAYREC_DB, XDG_DATA_HOME)' };

/** The flag that names a mirror, on every command that reads or writes one. */
export const MIRROR_DB_FLAG = '--db <file|url>';
const DEFAULT_FILE = '<XDG data dir>/payrec/<profile>.duckdb';

/** --db's help: `what` the command makes of the mirror, and where it is without --db or PAYREC_DB. */
export function mirrorDbHelp(what = 'the mirror', fallback = `${DEFAULT_FILE}, emulator.duckdb with --emulator`): string {
  return `${what}: a file, or a PostgreSQL server (postgres://USER@HOST/DATABASE?schema=NAME, never a password in it) (env PAYREC_DB; default ${fallback})`;
}

/** --db's help on a command that has no mirror of the built-in emulator's. */
export const MIRROR_DB_HELP_NO_EMULATOR = mirrorDbHelp('the mirror', DEFAULT_FILE);

export interface MirrorLocation {
  /** The file, or for a server how messages name it (its URL masked). */
  file: string;
  /** A mirror on a PostgreSQL server: where, and in which schema. */
  server?: ServerUrl;
  /** The default location (its directory may be created); false for --db / PAYREC_DB. */
  isDefault: boolean;
}

/** The XDG data directory of payrec (LOCALAPPDATA on Windows), from the injected environment. */
export function dataDir(env: NodeJS.ProcessEnv, platform = process.platform): string {
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(env.USERPROFILE || homedir(), 'AppData', 'Local'), 'payrec', 'Data');
  return join(env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share'), 'payrec');
}

/**
 * Where the mirror lives, checked as the config is (DESIGN.md "Local state and hostile
 * data"): nobody but its owner may be able to change the file or its folder, and it is
 * no link another user made in /tmp. Whoever can write the folder could read every
 * staged page and slip forged records into a sync.
 */
export async function mirrorLocation(session: Session, dbFlag: string | undefined): Promise<MirrorLocation> {
  const location = await locate(session, dbFlag);
  if (location.server) return location;
  await checkKeptFile(location.file, MIRROR_KEEPER);
  // DuckDB would wait on a named pipe for ever (Ctrl-C too), and cannot use a device or a folder.
  const found = await stat(location.file).catch(() => undefined);
  if (found && !found.isFile()) throw new UsageError(`the mirror ${printable(location.file)} is not a regular file (a pipe, a device or a folder)`, 'give --db the path of a file (a new one is created)');
  return location;
}

/** Whether the mirror is there yet (a sync makes it). */
export function mirrorExists(location: MirrorLocation): boolean {
  // A server's mirror is there once its schema is: the engine tells (MirrorStore.isMirror).
  return location.server !== undefined || existsSync(location.file);
}

/** --parquet DIR in the trust check's messages: it holds every record, as the mirror does. */
const PARQUET_KEEPER = { role: 'the Parquet export', moveWith: '--parquet' };

/**
 * Checks --parquet DIR before anything is fetched: a directory payrec can write (created
 * if missing), that nobody else can change (as the mirror's folder: another user's
 * folder, or one anyone can write, could hold forged partitions).
 */
export async function parquetTarget(dir: string): Promise<string> {
  if (dir === '' || /[\u0000-\u001f\u007f-\u009f]/.test(dir)) {
    throw new UsageError(`invalid --parquet "${printable(dir)}": expected a directory path without control characters`);
  }
  const path = resolve(dir);
  try {
    // 0700 whatever the umask (it is set to 077 only when the mirror opens): the files hold every record.
    await mkdir(path, { recursive: true, mode: 0o700 });
    await access(path, constants.W_OK);
  } catch (err) {
    throw new UsageError(`cannot write --parquet "${printable(dir)}": ${(err as NodeJS.ErrnoException).code ?? String(err)}`, 'give --parquet a folder you can write');
  }
  await checkKeptFolder(path, PARQUET_KEEPER);
  return path;
}

async function locate(session: Session, dbFlag: string | undefined): Promise<MirrorLocation> {
  const { env } = session.ctx;
  // A profile's db is its own mirror: never the demo data's.
  const stored = session.flags.emulator ? undefined : session.stored.defaults.db;
  const given = dbFlag ?? (env.PAYREC_DB || stored);
  if (given !== undefined) {
    const flag = dbFlag !== undefined ? '--db' : env.PAYREC_DB ? 'PAYREC_DB' : `db of profile ${session.stored.profile}`;
    if (isDbUrl(given)) {
      const server = parseServerUrl(given, flag);
      return { file: server.shown, isDefault: false, server };
    }
    if (given === '' || /[\u0000-\u001f\u007f-\u009f]/.test(given)) {
      throw new UsageError(`invalid ${flag} "${printable(given)}": expected a file path without control characters`);
    }
    return { file: resolve(given), isDefault: false };
  }
  // --emulator needs no profile (and asking for the settings would start the emulator).
  const name = session.flags.emulator ? 'emulator' : (await session.settings()).profile;
  return { file: join(dataDir(env), `${name}.duckdb`), isDefault: true };
}
