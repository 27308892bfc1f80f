import { createHash } from 'node:crypto';
import { UsageError } from '../../core/runtime/errors.js';
import { printable } from '../../core/output/sanitize.js';
import { CATALOG, TRANSFER_COLLECTIONS, type MirroredCollection } from '../catalog.js';
import { ident, sqlType, tableColumns } from './schema.js';
import { EXTRA_COLUMN, hasKind, IDENTITY_HASH_COLUMN, INEXACT_COLUMN, LAST_UPDATED_COLUMN, recordFields, type Field } from '../fields.js';
import { clearCursors, EXPORTS_TABLE, META_TABLE, readMeta, SCOPE_TABLE, STATE_DDL, writeMeta } from './state.js';
import type { MirrorDb } from './connection.js';
import { subscriptionsView } from './subscriptions-view.js';
import { RATES_TABLE, RATE_FIELDS } from '../rates.js';
import { OUTCOME_FIELD, outcomeAdder } from '../../registry/outcome.js';

// Creates a mirror's tables and views, and brings an older mirror up to date.
//
// Records are stored in tables of the schema payrec_store; users query views of the
// same names in the main schema (`one_time_transfers`), which show the stored columns
// but the identity hash, and guard every amount: on a row whose amount DECIMAL(38,18)
// cannot hold (amounts.ts), any use of that column raises an error, so no total, sort
// or comparison can quietly leave it out. The guard costs one NULL test a row.
//
// The format version covers what payrec itself decides (bookkeeping columns, the
// amount and time types, the state tables); the tables' API columns follow the
// registry and are compared column by column on every sync: a new collection gets
// its table, a new field its column, and a change payrec cannot make in place is
// refused with the way to rebuild.

/** Version of the mirror's own layout. Raise it with a migration in MIGRATIONS. */
export const MIRROR_FORMAT = 3;

/** Where the records are stored (the views users query are in main). */
export const STORE_SCHEMA = 'payrec_store';

/** What takes a mirror of format N-1 to format N, keyed by N; a message for the user when the step costs them something. */
const MIGRATIONS: Record<number, (db: MirrorDb) => Promise<string | undefined>> = {
  // Format 2 kept amounts as text with exact parts beside them, times as Unix seconds
  // and the tables in main. Its records are read again from the service into the new
  // tables (a sync commits as it goes, so an interrupted rebuild goes on next time);
  // the plan and strategy ids it remembered are kept.
  3: async (db) => {
    await db.run('DROP VIEW IF EXISTS transfers');
    await db.run('DROP VIEW IF EXISTS inexact_amounts');
    for (const { collection } of LAYOUTS) await db.run(`DROP TABLE IF EXISTS main.${ident(collection.table)}`);
    for (const macro of ['exact_sum', 'exact_value', 'payrec_decimal_text']) await db.run(`DROP MACRO IF EXISTS ${macro}`);
    await clearCursors(db);
    await db.run(`DELETE FROM ${EXPORTS_TABLE}`);
    return (
      `the mirror ${printable(db.file)} was made by an older payrec (amounts as text, times as Unix seconds): ` +
      'this sync reads its records again into DECIMAL(38,18) amounts and TIMESTAMP WITH TIME ZONE times (exact_sum(x_exact) is now SUM(x)); the plan and strategy ids it remembered are kept'
    );
  },
};

/** The rates --currency reads from the mirror (../rates.ts declares the table, rates.ts reads and writes it): in main, beside chain_verdicts. */
export const RATES_DDL = `CREATE TABLE IF NOT EXISTS ${ident(RATES_TABLE)} (${RATE_FIELDS.map((f) => `${ident(f.name)} ${sqlType(f.type)}`).join(', ')})`;

export interface TableLayout {
  collection: MirroredCollection;
  fields: Field[];
  /** Columns that name the scope a record was read through, when the record does not carry it (`planId` of a billing). */
  scopes: string[];
  /** The stored table, qualified and quoted. */
  storage: string;
}

export const LAYOUTS: readonly TableLayout[] = CATALOG.map((collection) => {
  const fields = recordFields(collection.endpoint.record);
  const scopes = Object.keys(collection.scoped).filter((param) => !fields.some((f) => f.name === param));
  return { collection, fields, scopes, storage: `${STORE_SCHEMA}.${ident(collection.table)}` };
});

/** Empties the mirror (records, cursors, remembered scopes, Parquet fingerprints) and keeps its layout: the next sync reads everything anew. */
export async function clearRecords(db: MirrorDb): Promise<void> {
  for (const { storage } of LAYOUTS) await db.run(`DELETE FROM ${storage}`);
  await clearCursors(db);
  await db.run(`DELETE FROM ${SCOPE_TABLE}`);
  await db.run(`DELETE FROM ${EXPORTS_TABLE}`);
}

export function layoutOf(collection: MirroredCollection): TableLayout {
  return LAYOUTS.find((l) => l.collection === collection)!;
}

const rebuildHint = (file: string) =>
  `rebuild it: payrec sync --full --db NEW_FILE (then use NEW_FILE), or move ${printable(file)} away and run payrec sync`;

/** Makes `db` a mirror of this payrec's layout (inside the caller's transaction); returns what the user should know about it, if anything. */
export async function ensureLayout(db: MirrorDb): Promise<string | undefined> {
  await refuseForeign(db);
  for (const ddl of STATE_DDL) await db.run(ddl);
  // The rates table (rates.ts) is payrec's own, as the state is: every mirror has it, from its next write on.
  await db.run(RATES_DDL);
  const stored = await readMeta(db, 'format');
  const format = stored === undefined ? MIRROR_FORMAT : Number(stored);
  if (!Number.isInteger(format) || format > MIRROR_FORMAT) {
    throw new UsageError(
      `the mirror ${printable(db.file)} was made by a newer payrec (mirror format ${printable(stored ?? '?')}; this payrec knows up to ${MIRROR_FORMAT}); nothing was changed`,
      'upgrade payrec, or give another --db',
    );
  }
  // The usual case, a mirror this payrec made: one look at the column names suffices.
  if ((await readMeta(db, 'layout')) === LAYOUT_KEY && (await columnsAsLaidOut(db))) return undefined;
  let notice: string | undefined;
  for (let v = format + 1; v <= MIRROR_FORMAT; v++) notice = (await MIGRATIONS[v]?.(db)) ?? notice;
  await writeMeta(db, 'format', String(MIRROR_FORMAT));

  await db.run(`CREATE SCHEMA IF NOT EXISTS ${STORE_SCHEMA}`);
  // The views read the tables: out of the way while a table is rebuilt, then made anew.
  await db.run('DROP VIEW IF EXISTS transfers');
  await db.run('DROP VIEW IF EXISTS inexact_amounts');
  await db.run('DROP VIEW IF EXISTS subscriptions');
  for (const layout of LAYOUTS) {
    await db.run(`DROP VIEW IF EXISTS main.${ident(layout.collection.table)}`);
    await ensureTable(db, layout);
    await db.run(collectionView(layout));
  }
  await db.run(transfersView());
  await db.run(inexactAmountsView());
  await db.run(subscriptionsView(STORE_SCHEMA));
  await writeMeta(db, 'layout', LAYOUT_KEY);
  return notice;
}

/** Whether every table has exactly its layout's columns, in order (names only: the key vouches for the types). */
async function columnsAsLaidOut(db: MirrorDb): Promise<boolean> {
  const rows = await db.rows(
    `SELECT table_name AS t, string_agg(column_name, ',' ORDER BY column_index) AS c FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = $1 AND NOT internal GROUP BY table_name`,
    [STORE_SCHEMA],
  );
  const have = new Map(rows.map((r) => [String(r.t), String(r.c)]));
  return LAYOUTS.every(({ collection, fields, scopes }) => have.get(collection.table) === tableColumns(fields, scopes).map(([name]) => name).join(','));
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
async function ensureTable(db: MirrorDb, { collection, fields, scopes, storage }: TableLayout): Promise<void> {
  const columns = tableColumns(fields, scopes);
  // No primary-key index: it would triple the cost of every insert; identity_hash finds rows instead (upsert.ts).
  const definition = `(${columns.map(([name, type]) => `${ident(name)} ${type}`).join(', ')})`;
  const existing = await columnTypes(db, STORE_SCHEMA, collection.table);
  if (existing.size === 0) {
    await db.run(`CREATE TABLE ${storage} ${definition}`);
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
  const rebuilt = `${STORE_SCHEMA}.${ident(`payrec_rebuilt_${collection.table}`)}`;
  await db.run(`CREATE TABLE ${rebuilt} ${definition}`);
  await db.run(`INSERT INTO ${rebuilt} SELECT ${select.join(', ')} FROM ${storage}`);
  await db.run(`DROP TABLE ${storage}`);
  await db.run(`ALTER TABLE ${rebuilt} RENAME TO ${ident(collection.table)}`);
  // New columns are filled by reading the collection again from the start.
  if ([...wanted.keys()].some((n) => !existing.has(n))) await clearCursors(db, collection.name);
}

/** Column names and DuckDB's types of a table of the mirror's schema `schema` ('temp': of the temporary database). */
async function columnTypes(db: MirrorDb, schema: string, table: string): Promise<Map<string, string>> {
  const rows = await db.rows(
    `SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = (CASE WHEN $1 = 'temp' THEN 'temp' ELSE current_database() END) AND schema_name = (CASE WHEN $1 = 'temp' THEN 'main' ELSE $1 END) AND table_name = $2 ORDER BY column_index`,
    [schema, table],
  );
  return new Map(rows.map((r) => [String(r.column_name), String(r.data_type)]));
}

/**
 * The view users query for a collection: the stored columns but the identity hash,
 * each column that holds amounts guarded. On a row whose inexact_amounts names an
 * amount of the column, reading the column raises an error that says which amount and
 * what to do; other rows, and queries that leave such rows out first (WHERE
 * inexact_amounts IS NULL), read the column as stored.
 */
function collectionView({ collection, fields, scopes, storage }: TableLayout): string {
  const inexact = ident(INEXACT_COLUMN);
  const id = collection.endpoint.identity.map((f) => `coalesce(${ident(f)}::VARCHAR, '?')`).join(` || ' ' || `);
  const message =
    `'${collection.table} ' || ${id} || ': amounts DECIMAL(38,18) cannot hold exactly: ' || ${inexact}::VARCHAR || ` +
    `' (a total, sort or comparison over them cannot be exact; list them: SELECT * FROM inexact_amounts; leave such rows out: WHERE inexact_amounts IS NULL)'`;
  const guarded = (f: Field) => {
    const c = ident(f.name);
    const name = f.name.replaceAll("'", "''");
    const here = `len(list_filter(json_keys(${inexact}), lambda k: k = '${name}' OR starts_with(k, '${name}[') OR starts_with(k, '${name}.'))) = 0`;
    return `CASE WHEN ${inexact} IS NULL THEN ${c} WHEN ${here} THEN ${c} ELSE error(${message}) END AS ${c}`;
  };
  const columns = tableColumns(fields, scopes)
    .map(([name]) => name)
    .filter((name) => name !== IDENTITY_HASH_COLUMN)
    .map((name) => {
      const f = fields.find((x) => x.name === name);
      return f && hasKind(f.type, 'decimal') ? guarded(f) : ident(name);
    });
  return `CREATE OR REPLACE VIEW main.${ident(collection.table)} AS SELECT ${columns.join(', ')} FROM ${storage}`;
}

/**
 * Every transfer view, with its product, in `payrec transfers`' order and shape
 * (TRANSFER_FIELDS); billings with their outcome by the one meaning of status.ts
 * (failed: success not 1, or status failed; paid: success 1 and confirmed; else pending),
 * so that `WHERE outcome = 'paid'` is the revenue that --summary and exports give.
 */
function transfersView(): string {
  const outcome = `CASE WHEN (success IS NOT NULL AND success <> 1) OR transactionStatus = 'failed' THEN 'failed' WHEN success = 1 AND transactionStatus = 'confirmed' THEN 'paid' ELSE 'pending' END AS ${OUTCOME_FIELD}`;
  const transfers = TRANSFER_COLLECTIONS.map((c) => `SELECT '${c.product}' AS product, *${outcomeAdder(c.endpoint) ? `, ${outcome}` : ''} FROM main.${ident(c.table)}`);
  return `CREATE OR REPLACE VIEW transfers AS ${transfers.join(' UNION ALL BY NAME ')}`;
}

/** Every amount DECIMAL(38,18) cannot hold, with where it is and its text. */
function inexactAmountsView(): string {
  const inexact = ident(INEXACT_COLUMN);
  const rows = LAYOUTS.filter(({ fields }) => fields.some((f) => hasKind(f.type, 'decimal'))).map(({ collection, storage }) => {
    const id = collection.endpoint.identity.map((f) => `t.${ident(f)}::VARCHAR`).join(` || ' ' || `);
    return (
      `SELECT '${collection.table}' AS "table", t.chain, ${id} AS id, u.field, t.${inexact} ->> u.field AS text, t.${ident(LAST_UPDATED_COLUMN)} ` +
      `FROM ${storage} AS t, unnest(json_keys(t.${inexact})) AS u(field) WHERE t.${inexact} IS NOT NULL`
    );
  });
  return `CREATE OR REPLACE VIEW inexact_amounts AS ${rows.join(' UNION ALL ')}`;
}

/**
 * What this payrec lays out, as one key: a mirror whose stored key is the same was
 * laid out by a payrec with the same tables and views.
 */
const LAYOUT_KEY = createHash('sha256')
  .update(JSON.stringify([MIRROR_FORMAT, LAYOUTS.map((l) => [l.collection.table, tableColumns(l.fields, l.scopes), collectionView(l)]), transfersView(), inexactAmountsView(), subscriptionsView(STORE_SCHEMA)]))
  .digest('hex');
