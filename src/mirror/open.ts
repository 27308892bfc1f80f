import type { Session } from '../core/runtime/session.js';
import type { Access, MirrorStore, OpenOptions } from './engine.js';
import type { MirrorLocation } from './location.js';
import { warnOtherDemoDay } from './service.js';

// The one place that chooses a mirror's engine, from where --db (or PAYREC_DB, or the
// profile) puts it (location.ts). Every location is a DuckDB file today: a postgres://
// --db is taken for a file name, and fails as one. A PostgreSQL engine (issue 47) is
// chosen here, from such a URL, with no change to the commands.

/**
 * Opens the mirror at `location` (`memory`: an empty one in memory, for --dry-run) with
 * the session's PAYREC_MIRROR_MEMORY, Ctrl-C and waits said on stderr (unless --quiet).
 * The engine is loaded only now: DuckDB is a native addon of several megabytes. Under
 * --emulator, a mirror of another day's demo data is warned about (`syncs`: not by a sync).
 */
export async function openMirror(
  session: Session,
  location: MirrorLocation | 'memory',
  access: Access,
  o: Pick<OpenOptions, 'waitForSync' | 'timeZone' | 'now'> & { syncs?: boolean } = {},
): Promise<MirrorStore> {
  const { DuckDbStore, openOptions } = await import('./duckdb/engine.js');
  const { syncs, ...options } = o;
  const db = await DuckDbStore.open(location === 'memory' ? ':memory:' : location.file, access, { ...openOptions(session), ...options });
  // A sync says it itself, as it empties such a mirror (checkService); a reader warns.
  if (!syncs && location !== 'memory') await warnOtherDemoDay(session, db);
  return db;
}
