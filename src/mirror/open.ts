import type { Session } from '../core/runtime/session.js';
import type { Access, MirrorStore, OpenOptions } from './engine.js';
import type { MirrorLocation } from './location.js';

// The one place that chooses a mirror's engine, from where --db (or PAYREC_DB, or the
// profile) puts it (location.ts): a postgres:// URL is a PostgreSQL server's
// (postgres/), anything else a DuckDB file (duckdb/). Commands never know which.

/**
 * Opens the mirror at `location` (`memory`: an empty one in memory, for --dry-run) with
 * the session's PAYREC_MIRROR_MEMORY, Ctrl-C and waits said on stderr (unless --quiet).
 * The engine is loaded only now: DuckDB is a native addon of several megabytes, and
 * PostgreSQL's client is needed only by a team's mirror.
 */
export async function openMirror(session: Session, location: MirrorLocation | 'memory', access: Access, o: Pick<OpenOptions, 'waitForSync' | 'timeZone' | 'now'> = {}): Promise<MirrorStore> {
  if (location !== 'memory' && location.server) {
    const { PostgresStore } = await import('./postgres/engine.js');
    const { env, stderr, signal } = session.ctx;
    return PostgresStore.open(location.server, access, { memoryLimit: '', signal, env, waiting: (message) => !session.quiet && stderr.write(`${message}\n`), ...o });
  }
  const { DuckDbStore, openOptions } = await import('./duckdb/engine.js');
  return DuckDbStore.open(location === 'memory' ? ':memory:' : location.file, access, { ...openOptions(session), ...o });
}

/** What a DBA runs on a team's mirror (postgres/admin.ts): the layout and a writer's rights, or a reader's rights. */
export type AdminScript = { init: { writer?: string } } | { grantReader: string };

/** The statements of `script` for the mirror on the server `location` names (no connection needed). */
export async function adminSql(location: MirrorLocation, script: AdminScript): Promise<string[]> {
  const admin = await import('./postgres/admin.js');
  const { schema } = location.server!;
  return 'init' in script ? admin.initSql(schema, script.init.writer) : admin.grantReaderSql(schema, script.grantReader);
}

/** Runs statements on the server `location` names, in one transaction, as the URL's user. */
export async function runAdminSql(session: Session, location: MirrorLocation, statements: readonly string[]): Promise<void> {
  const { PgConnection } = await import('./postgres/connection.js');
  const db = await PgConnection.connect(location.server!, session.ctx.env);
  try {
    await db.run('BEGIN');
    for (const s of statements) await db.run(s);
    await db.run('COMMIT');
  } finally {
    db.close();
  }
}
