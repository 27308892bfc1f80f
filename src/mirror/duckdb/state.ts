import type { MirrorDb } from './connection.js';

// What the mirror knows about itself, kept in the same DuckDB file as the records and
// written in the same transactions, so records and cursors can never disagree:
// the format version, the service the records came from, a cursor per (chain,
// collection, scope), the plan and strategy ids given to earlier syncs, and what the
// Parquet partitions held when they were last written.

export const META_TABLE = 'payrec_meta';
export const CURSOR_TABLE = 'payrec_cursors';

/** Whether payrec ever synced into this DuckDB file (not an empty file a refused sync left, nor another tool's database). */
export async function isMirror(db: MirrorDb): Promise<boolean> {
  const own = await db.rows(`SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = '${CURSOR_TABLE}'`);
  return Number(own[0].n) > 0;
}
export const SCOPE_TABLE = 'payrec_scopes';
/** What each Parquet partition held when it was last written, per --parquet directory. */
export const EXPORTS_TABLE = 'payrec_parquet_exports';

export const STATE_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS ${META_TABLE} (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)`,
  // cursor: every record with a timestamp up to it was committed (as the service showed it then).
  `CREATE TABLE IF NOT EXISTS ${CURSOR_TABLE} (
    chain VARCHAR NOT NULL, collection VARCHAR NOT NULL, scope VARCHAR NOT NULL,
    cursor BIGINT NOT NULL, synced_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (chain, collection, scope))`,
  `CREATE TABLE IF NOT EXISTS ${SCOPE_TABLE} (
    chain VARCHAR NOT NULL, collection VARCHAR NOT NULL, param VARCHAR NOT NULL, id VARCHAR NOT NULL, added_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (chain, collection, param, id))`,
  `CREATE TABLE IF NOT EXISTS ${EXPORTS_TABLE} (
    dir VARCHAR NOT NULL, "table" VARCHAR NOT NULL, chain VARCHAR NOT NULL, month VARCHAR NOT NULL, fingerprint VARCHAR NOT NULL,
    PRIMARY KEY (dir, "table", chain, month))`,
];

export async function readMeta(db: MirrorDb, key: string): Promise<string | undefined> {
  const rows = await db.rows(`SELECT value FROM ${META_TABLE} WHERE key = $1`, [key]);
  return rows.length ? String(rows[0].value) : undefined;
}

export async function writeMeta(db: MirrorDb, key: string, value: string): Promise<void> {
  await db.run(`INSERT OR REPLACE INTO ${META_TABLE} VALUES ($1, $2)`, [key, value]);
}

export async function readCursor(db: MirrorDb, chain: string, collection: string, scope: string): Promise<number | undefined> {
  const rows = await db.rows(`SELECT cursor FROM ${CURSOR_TABLE} WHERE chain = $1 AND collection = $2 AND scope = $3`, [chain, collection, scope]);
  return rows.length ? Number(rows[0].cursor) : undefined;
}

export async function writeCursor(db: MirrorDb, chain: string, collection: string, scope: string, cursor: number): Promise<void> {
  await db.run(`INSERT OR REPLACE INTO ${CURSOR_TABLE} VALUES ($1, $2, $3, $4, now())`, [chain, collection, scope, cursor]);
}

/**
 * Where a list's records begin in the mirror: the `from` of the sync that first read it
 * (0, its first record, unless `sync --from` bounded it). Figures over an earlier
 * window would miss records the mirror never read.
 */
export async function writeSince(db: MirrorDb, chain: string, collection: string, scope: string, since: number): Promise<void> {
  await writeMeta(db, sinceKey(chain, collection, scope), String(since));
}

export async function readSince(db: MirrorDb, chain: string, collection: string, scope: string): Promise<number> {
  return Number((await readMeta(db, sinceKey(chain, collection, scope))) ?? 0);
}

const sinceKey = (chain: string, collection: string, scope: string) => `since ${chain} ${collection} ${scope}`;

/** Forgets a collection's cursors (its table changed layout), or every cursor: the next sync reads it from the start. */
export async function clearCursors(db: MirrorDb, collection?: string): Promise<void> {
  if (collection === undefined) await db.run(`DELETE FROM ${CURSOR_TABLE}`);
  else await db.run(`DELETE FROM ${CURSOR_TABLE} WHERE collection = $1`, [collection]);
}

/** Notes the ids a collection was synced for, so later syncs keep them without being told. */
export async function rememberScopes(db: MirrorDb, chain: string, collection: string, param: string, ids: readonly string[]): Promise<void> {
  for (const id of ids) await db.run(`INSERT OR IGNORE INTO ${SCOPE_TABLE} VALUES ($1, $2, $3, $4, now())`, [chain, collection, param, id]);
}

export async function rememberedScopes(db: MirrorDb, chain: string, collection: string, param: string): Promise<string[]> {
  const rows = await db.rows(`SELECT id FROM ${SCOPE_TABLE} WHERE chain = $1 AND collection = $2 AND param = $3 ORDER BY added_at, id`, [chain, collection, param]);
  return rows.map((r) => String(r.id));
}
