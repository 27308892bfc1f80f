import { createHash } from 'node:crypto';
import { UsageError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import { AMOUNT_MACROS, EXACT_SUFFIX } from './amounts.js';
import { CATALOG, TRANSFER_COLLECTIONS, type MirroredCollection } from './catalog.js';
import { identityHashSql } from './identity-hash.js';
import { amountPaths, CHAIN_COLUMN, EXTRA_COLUMN, ident, IDENTITY_HASH_COLUMN, LAST_UPDATED_COLUMN, recordFields, tableColumns, type Field } from './schema.js';
import { clearCursors, META_TABLE, readMeta, STATE_DDL, writeMeta } from './state.js';
import type { MirrorDb } from './store.js';

// Creates a mirror's tables, macros and views, and brings an older mirror up to date.
// The format version covers what payrec itself decides (bookkeeping columns, the
// exact-amount representation, the state tables); the tables' API columns follow the
// registry and are compared column by column on every sync: a new collection gets
// its table, a new field its column, and a change payrec cannot make in place is
// refused with the way to rebuild.

/** Version of the mirror's own layout. Raise it with a migration in MIGRATIONS. */
export const MIRROR_FORMAT = 2;

/** What takes a mirror of format N-1 to format N, keyed by N. */
const MIGRATIONS: Record<number, (db: MirrorDb) => Promise<void>> = {
  // Identity hashes are computed by DuckDB (identity-hash.ts), for rows taken from page
  // bytes too; format 1 stored hashes payrec computed otherwise, which no lookup would find.
  2: async (db) => {
    for (const { collection } of LAYOUTS) {
      if ((await columnTypes(db, 'main', collection.table)).size === 0) continue;
      const hash = identityHashSql(ident(CHAIN_COLUMN), collection.endpoint.identity.map(ident));
      await db.run(`UPDATE ${ident(collection.table)} SET ${ident(IDENTITY_HASH_COLUMN)} = ${hash}`);
    }
  },
};

export interface TableLayout {
  collection: MirroredCollection;
  fields: Field[];
}

export const LAYOUTS: readonly TableLayout[] = CATALOG.map((collection) => ({ collection, fields: recordFields(collection.endpoint.record) }));

export function layoutOf(collection: MirroredCollection): TableLayout {
  return LAYOUTS.find((l) => l.collection === collection)!;
}

const rebuildHint = (file: string) =>
  `rebuild it: payrec sync --full --db NEW_FILE (then use NEW_FILE), or move ${printable(file)} away and run payrec sync`;

/** Makes `db` a mirror of this payrec's layout (inside the caller's transaction). */
export async function ensureLayout(db: MirrorDb): Promise<void> {
  await refuseForeign(db);
  for (const ddl of STATE_DDL) await db.run(ddl);
  const stored = await readMeta(db, 'format');
  const format = stored === undefined ? MIRROR_FORMAT : Number(stored);
  if (!Number.isInteger(format) || format > MIRROR_FORMAT) {
    throw new UsageError(
      `the mirror ${printable(db.file)} was made by a newer payrec (mirror format ${printable(stored ?? '?')}; this payrec knows up to ${MIRROR_FORMAT}); nothing was changed`,
      'upgrade payrec, or give another --db',
    );
  }
  // The usual case, a mirror this payrec made: one look at the column names suffices.
  if ((await readMeta(db, 'layout')) === LAYOUT_KEY && (await columnsAsLaidOut(db))) return;
  for (let v = format + 1; v <= MIRROR_FORMAT; v++) await MIGRATIONS[v]?.(db);
  await writeMeta(db, 'format', String(MIRROR_FORMAT));

  for (const sql of AMOUNT_MACROS) await db.run(sql);
  // The views read the tables: out of the way while a table is rebuilt, then made anew.
  await db.run('DROP VIEW IF EXISTS transfers');
  await db.run('DROP VIEW IF EXISTS inexact_amounts');
  for (const layout of LAYOUTS) await ensureTable(db, layout);
  await db.run(transfersView());
  await db.run(inexactAmountsView());
  await writeMeta(db, 'layout', LAYOUT_KEY);
}

/** Whether every table has exactly its layout's columns, in order (names only: the key vouches for the types). */
async function columnsAsLaidOut(db: MirrorDb): Promise<boolean> {
  const rows = await db.rows(
    `SELECT table_name AS t, string_agg(column_name, ',' ORDER BY column_index) AS c FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' GROUP BY table_name`,
  );
  const have = new Map(rows.map((r) => [String(r.t), String(r.c)]));
  return LAYOUTS.every(({ collection, fields }) => have.get(collection.table) === tableColumns(fields).map(([name]) => name).join(','));
}

/** A DuckDB file with tables but without payrec's state is someone else's database: leave it alone. */
async function refuseForeign(db: MirrorDb): Promise<void> {
  const [row] = await db.rows(
    `SELECT count(*) FILTER (WHERE table_name = $1)::INTEGER AS ours, count(*)::INTEGER AS tables FROM duckdb_tables() WHERE database_name = current_database()`,
    [META_TABLE],
  );
  if (Number(row.tables) > 0 && Number(row.ours) === 0) {
    throw new UsageError(`${printable(db.file)} is a DuckDB database but not a payrec mirror; nothing was changed`, 'give another --db');
  }
}

/**
 * Creates the table, or brings an older one to the current layout: a table whose
 * columns differ is rebuilt in the layout's order, new columns empty.
 */
async function ensureTable(db: MirrorDb, { collection, fields }: TableLayout): Promise<void> {
  const columns = tableColumns(fields);
  // No primary-key index: it would triple the cost of every insert; identity_hash finds rows instead (upsert.ts).
  const definition = `(${columns.map(([name, type]) => `${ident(name)} ${type}`).join(', ')})`;
  const table = ident(collection.table);
  const existing = await columnTypes(db, 'main', collection.table);
  if (existing.size === 0) {
    await db.run(`CREATE TABLE ${table} ${definition}`);
    return;
  }
  // DuckDB's own spelling of each type, to compare with what is stored.
  const probe = ident(`payrec_expected_${collection.table}`);
  await db.run(`CREATE OR REPLACE TEMP TABLE ${probe} ${definition}`);
  const wanted = await columnTypes(db, 'temp', `payrec_expected_${collection.table}`);
  await db.run(`DROP TABLE temp.${probe}`);
  for (const [name, type] of wanted) {
    const have = existing.get(name);
    if (have !== undefined && have !== type) {
      throw new UsageError(
        `the mirror ${printable(db.file)} keeps ${collection.table}.${name} as ${have}, and this payrec as ${type}: it cannot convert it in place; nothing was changed`,
        rebuildHint(db.file),
      );
    }
  }
  if ([...wanted.keys()].join(',') === [...existing.keys()].join(',')) return;
  // Columns this payrec no longer has (a field the registry dropped) keep their values in extra_fields.
  const dropped = [...existing.keys()].filter((n) => !wanted.has(n));
  const kept = dropped.length === 0 ? ident(EXTRA_COLUMN) : `json_merge_patch(coalesce(${ident(EXTRA_COLUMN)}, '{}'::JSON), json_object(${dropped.map((n) => `'${n.replaceAll("'", "''")}', ${ident(n)}`).join(', ')}))`;
  const select = [...wanted].map(([name, type]) =>
    name === EXTRA_COLUMN ? `${kept} AS ${ident(name)}` : existing.has(name) ? ident(name) : `NULL::${type} AS ${ident(name)}`,
  );
  const rebuilt = ident(`payrec_rebuilt_${collection.table}`);
  await db.run(`CREATE TABLE ${rebuilt} ${definition}`);
  await db.run(`INSERT INTO ${rebuilt} SELECT ${select.join(', ')} FROM ${table}`);
  await db.run(`DROP TABLE ${table}`);
  await db.run(`ALTER TABLE ${rebuilt} RENAME TO ${table}`);
  // New columns are filled by reading the collection again from the start.
  if ([...wanted.keys()].some((n) => !existing.has(n))) await clearCursors(db, collection.name);
}

async function columnTypes(db: MirrorDb, schema: string, table: string): Promise<Map<string, string>> {
  const rows = await db.rows(
    `SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = (CASE WHEN $1 = 'temp' THEN 'temp' ELSE current_database() END) AND schema_name = 'main' AND table_name = $2 ORDER BY column_index`,
    [schema, table],
  );
  return new Map(rows.map((r) => [String(r.column_name), String(r.data_type)]));
}

/** Every transfer table, with its product. */
function transfersView(): string {
  const transfers = TRANSFER_COLLECTIONS.map((c) => `SELECT '${c.product}' AS product, * FROM ${ident(c.table)}`);
  return `CREATE OR REPLACE VIEW transfers AS ${transfers.join(' UNION ALL BY NAME ')}`;
}

/** Every amount whose text the exact form cannot hold, with where it is. */
function inexactAmountsView(): string {
  const inexact: string[] = [];
  for (const { collection, fields } of LAYOUTS) {
    const t = ident(collection.table);
    const id = collection.endpoint.identity.map((f) => `${t}.${ident(f)}::VARCHAR`).join(` || ' ' || `);
    for (const p of amountPaths(fields)) {
      const head = `SELECT '${collection.table}' AS "table", ${t}.chain, ${id} AS id, '${p.label}' AS field`;
      const tail = `${t}.${ident(LAST_UPDATED_COLUMN)}`;
      if (p.member === undefined) {
        const exact = `${t}.${ident(p.column + EXACT_SUFFIX)}`;
        inexact.push(`${head}, ${t}.${ident(p.column)} AS text, ${tail} FROM ${t} WHERE ${exact} IS NOT NULL AND ${exact}.whole IS NULL`);
      } else {
        const exact = `u.e.${ident(p.member + EXACT_SUFFIX)}`;
        inexact.push(`${head}, u.e.${ident(p.member)} AS text, ${tail} FROM ${t}, UNNEST(${t}.${ident(p.column)}) AS u(e) WHERE ${exact} IS NOT NULL AND ${exact}.whole IS NULL`);
      }
    }
  }
  return `CREATE OR REPLACE VIEW inexact_amounts AS ${inexact.join(' UNION ALL ')}`;
}

/**
 * What this payrec lays out, as one key: a mirror whose stored key is the same was
 * laid out by a payrec with the same tables, macros and views.
 */
const LAYOUT_KEY = createHash('sha256')
  .update(JSON.stringify([MIRROR_FORMAT, AMOUNT_MACROS, LAYOUTS.map(({ collection, fields }) => [collection.table, tableColumns(fields)]), transfersView(), inexactAmountsView()]))
  .digest('hex');
