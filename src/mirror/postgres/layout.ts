import { createHash } from 'node:crypto';
import { UsageError } from '../../core/runtime/errors.js';
import { CATALOG, TRANSFER_COLLECTIONS, type MirroredCollection } from '../catalog.js';
import { hasKind, INEXACT_COLUMN, LAST_UPDATED_COLUMN, recordFields, type Field } from '../fields.js';
import { OUTCOME_FIELD, outcomeAdder } from '../../registry/outcome.js';
import type { PgConnection } from './connection.js';
import { literal, PG_TYPES, quote, tableColumns } from './types.js';
import { subscriptionsView } from './subscriptions-view.js';
import { RATES_TABLE, RATE_FIELDS } from '../rates.js';

// A mirror's schemas on a PostgreSQL server: the records are stored in tables of
// `NAME_store` (primary keys from the registry's identities), and users (payrec sql, a
// BI tool) query views of the same names in `NAME` (`payrec.one_time_transfers`), which
// guard every amount: on a row whose amount is kept only as text (inexact_amounts),
// reading that column raises an error, so no total, sort or comparison leaves it out
// quietly. `NAME` also holds the `transfers`, `inexact_amounts` and `subscriptions`
// views and payrec's state (meta, cursors, remembered scopes). A reader role needs only
// `NAME` (views read the tables with their owner's rights): payrec db grant-reader.
//
// The whole layout is a list of statements (ddl), so a DBA can run it (payrec db init
// --print-sql) and a syncing role needs no right to create anything: a sync finds the
// layout's key in payrec_meta and changes nothing.

export const META_TABLE = 'payrec_meta';
export const CURSOR_TABLE = 'payrec_cursors';
export const SCOPE_TABLE = 'payrec_scopes';

export const VERDICTS_TABLE = 'chain_verdicts';
export const ACKS_TABLE = 'chain_acks';

/** payrec verify's verdicts and acknowledgements (verdicts.ts), in the schema `view` (quoted): readers and syncing roles reach them as the state. */
const verdictsDdl = (view: string): string[] => [
  `CREATE TABLE IF NOT EXISTS ${view}.${VERDICTS_TABLE} (chain TEXT NOT NULL, collection TEXT NOT NULL, record TEXT NOT NULL, "transactionHash" TEXT, verdict TEXT NOT NULL, "blockNumber" BIGINT, "blockHash" TEXT, confirmations BIGINT, "chainDiff" JSONB, "checkedAt" TIMESTAMPTZ NOT NULL, final BOOLEAN, "verdictSince" TIMESTAMPTZ, PRIMARY KEY (chain, collection, record))`,
  `CREATE TABLE IF NOT EXISTS ${view}.${ACKS_TABLE} (chain TEXT NOT NULL, "transactionHash" TEXT NOT NULL, reason TEXT NOT NULL, "ackedBy" TEXT NOT NULL, "ackedAt" TIMESTAMPTZ NOT NULL, PRIMARY KEY (chain, "transactionHash"))`,
];

/** The rates --currency reads from the mirror (../rates.ts declares the table, rates.ts reads and writes it), in the schema `view` (quoted). */
/** What names a Chainlink round in `rates` (imported rows have no feed, and no key). */
export const ROUND_KEY = 'chain, token, feed, "roundId"';

const ratesDdl = (view: string): string[] => [
  `CREATE TABLE IF NOT EXISTS ${view}.${RATES_TABLE} (${RATE_FIELDS.map((f) => `${quote(f.name)} ${PG_TYPES[f.type.kind]}`).join(', ')})`,
  // A Chainlink round is stored once, whoever stores it: two `rates sync` at once on a
  // team's server would both find it absent (neither sees the other's uncommitted rows)
  // and both insert it; with the key, the second waits for the first and keeps its row.
  `CREATE UNIQUE INDEX IF NOT EXISTS ${RATES_TABLE}_round ON ${view}.${RATES_TABLE} (${ROUND_KEY}) WHERE feed IS NOT NULL`,
];


/** Version of the layout payrec decides (bookkeeping, types, state): raise it with a migration. */
export const PG_FORMAT = 1;

export interface PgTable {
  collection: MirroredCollection;
  fields: Field[];
  /** Columns that name the scope a record was read through, when the record does not carry it. */
  scopes: string[];
}

export const TABLES: readonly PgTable[] = CATALOG.map((collection) => {
  const fields = recordFields(collection.endpoint.record);
  return { collection, fields, scopes: Object.keys(collection.scoped).filter((param) => !fields.some((f) => f.name === param)) };
});

export const tableOf = (collection: MirroredCollection): PgTable => TABLES.find((t) => t.collection === collection)!;

/** The schemas of a mirror whose views live in `schema`. */
export interface Schemas {
  /** The views users query, and payrec's state: quoted. */
  view: string;
  /** The stored tables: quoted. */
  store: string;
}

export const schemasOf = (schema: string): Schemas => ({ view: quote(schema), store: quote(`${schema}_store`) });

/** The stored table of a collection, qualified. */
export const storedTable = (s: Schemas, collection: MirroredCollection): string => `${s.store}.${quote(collection.table)}`;

/** The function a guarded view calls on a row whose amount is kept only as text: raises `message` (SQLSTATE 22P02). */
const INEXACT_FUNCTION = 'payrec_inexact';

/** Every statement that lays out a mirror in `schema` (idempotent: each can run again). */
export function ddl(schema: string): string[] {
  const s = schemasOf(schema);
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s.view}`,
    `CREATE SCHEMA IF NOT EXISTS ${s.store}`,
    `CREATE TABLE IF NOT EXISTS ${s.view}.${META_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    // cursor: every record with a timestamp up to it was committed (as the service showed it then).
    `CREATE TABLE IF NOT EXISTS ${s.view}.${CURSOR_TABLE} (chain TEXT NOT NULL, collection TEXT NOT NULL, scope TEXT NOT NULL, cursor BIGINT NOT NULL, synced_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (chain, collection, scope))`,
    `CREATE TABLE IF NOT EXISTS ${s.view}.${SCOPE_TABLE} (chain TEXT NOT NULL, collection TEXT NOT NULL, param TEXT NOT NULL, id TEXT NOT NULL, added_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (chain, collection, param, id))`,
    `CREATE OR REPLACE FUNCTION ${s.store}.${INEXACT_FUNCTION}(message TEXT, kind ANYELEMENT) RETURNS ANYELEMENT LANGUAGE plpgsql VOLATILE AS $$ BEGIN RAISE EXCEPTION '%', message USING ERRCODE = '22P02'; END $$`,
    ...TABLES.map((t) => createTable(s, t)),
    // The views read the tables: made anew, in an order where each finds what it reads.
    `DROP VIEW IF EXISTS ${s.view}.transfers, ${s.view}.inexact_amounts, ${s.view}.subscriptions`,
    ...TABLES.flatMap((t) => [`DROP VIEW IF EXISTS ${s.view}.${quote(t.collection.table)}`, collectionView(s, t)]),
    transfersView(s),
    inexactAmountsView(s),
    subscriptionsView(s.view, s.store),
    ...verdictsDdl(s.view),
    // The rates --currency reads from the mirror (../rates.ts), payrec's own as the verdicts are.
    ...ratesDdl(s.view),
  ];
}

/** The statements that note the layout in the mirror: last, in the same transaction. */
export function layoutStamp(schema: string): string[] {
  const meta = `${schemasOf(schema).view}.${META_TABLE}`;
  const put = (key: string, value: string) => `INSERT INTO ${meta} VALUES (${literal(key)}, ${literal(value)}) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`;
  return [put('format', String(PG_FORMAT)), put('layout', layoutKey(schema))];
}

/** What this payrec lays out in `schema`, as one key: a mirror holding it needs no DDL. */
export function layoutKey(schema: string): string {
  return createHash('sha256').update(JSON.stringify([PG_FORMAT, ddl(schema)])).digest('hex');
}

function createTable(s: Schemas, { collection, fields, scopes }: PgTable): string {
  const columns = tableColumns(fields, scopes);
  const key = ['chain', ...collection.endpoint.identity].map(quote).join(', ');
  return `CREATE TABLE IF NOT EXISTS ${storedTable(s, collection)} (${columns.map(([name, type]) => `${quote(name)} ${type}`).join(', ')}, PRIMARY KEY (${key}))`;
}

/**
 * The columns a table an older payrec made lacks (fields the registry gained since),
 * added empty; the next sync of its collection fills them as it upserts. `have`: the
 * stored columns of each table that exists.
 */
export function addedColumns(schema: string, have: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const s = schemasOf(schema);
  return TABLES.flatMap(({ collection, fields, scopes }) => {
    const stored = have.get(collection.table);
    if (!stored) return [];
    const missing = tableColumns(fields, scopes).filter(([name]) => !stored.has(name));
    return missing.length === 0 ? [] : [`ALTER TABLE ${storedTable(s, collection)} ${missing.map(([name, type]) => `ADD COLUMN ${quote(name)} ${type.replace(' NOT NULL', '')}`).join(', ')}`];
  });
}

/** Whether `inexact_amounts` of a row names an amount of field `name` (itself, or inside it). */
const namesAmountOf = (name: string) =>
  `EXISTS (SELECT 1 FROM jsonb_object_keys(${quote(INEXACT_COLUMN)}) AS k WHERE k = ${literal(name)} OR starts_with(k, ${literal(`${name}[`)}) OR starts_with(k, ${literal(`${name}.`)}))`;

/**
 * The view users query for a collection: the stored columns, each column that holds
 * amounts guarded. On a row whose inexact_amounts names an amount of the column,
 * reading the column raises an error that names the record and what to do.
 */
function collectionView(s: Schemas, { collection, fields, scopes }: PgTable): string {
  const inexact = quote(INEXACT_COLUMN);
  const id = collection.endpoint.identity.map((f) => `coalesce(${quote(f)}, '?')`).join(` || ' ' || `);
  const message =
    `${literal(`${collection.table} `)} || ${id} || ': amounts that are not decimals cannot be counted exactly: ' || ${inexact}::TEXT || ` +
    `' (a total, sort or comparison over them cannot be exact; list them: SELECT * FROM inexact_amounts; leave such rows out: WHERE inexact_amounts IS NULL)'`;
  const columns = tableColumns(fields, scopes).map(([name]) => {
    const f = fields.find((x) => x.name === name);
    if (!f || !hasKind(f.type, 'decimal')) return quote(name);
    return `CASE WHEN ${inexact} IS NULL OR NOT ${namesAmountOf(name)} THEN ${quote(name)} ELSE ${s.store}.${INEXACT_FUNCTION}(${message}, ${quote(name)}) END AS ${quote(name)}`;
  });
  return `CREATE VIEW ${s.view}.${quote(collection.table)} AS SELECT ${columns.join(', ')} FROM ${storedTable(s, collection)}`;
}

/**
 * Every transfer view, with its product, in `payrec transfers`' order and shape: the
 * union of their columns by name (DuckDB's UNION ALL BY NAME), in order of first
 * appearance, NULL where a product has no such column; billings with their outcome by
 * the one meaning of a billing's status (registry/outcome.ts).
 */
function transfersView(s: Schemas): string {
  const parts = TRANSFER_COLLECTIONS.map((c) => {
    const t = tableOf(c);
    const columns = new Map(tableColumns(t.fields, t.scopes).map(([name, type]) => [name, type.replace(' NOT NULL', '')]));
    if (outcomeAdder(c.endpoint)) columns.set(OUTCOME_FIELD, 'TEXT');
    return { c, columns };
  });
  const all = new Map<string, string>();
  for (const { columns } of parts) for (const [name, type] of columns) if (!all.has(name)) all.set(name, type);
  const outcome = `CASE WHEN (success IS NOT NULL AND success <> 1) OR "transactionStatus" = 'failed' THEN 'failed' WHEN success = 1 AND "transactionStatus" = 'confirmed' THEN 'paid' ELSE 'pending' END`;
  const selects = parts.map(({ c, columns }) => {
    const list = [...all].map(([name, type]) => (name === OUTCOME_FIELD && columns.has(name) ? `${outcome} AS ${quote(name)}` : columns.has(name) ? quote(name) : `NULL::${type} AS ${quote(name)}`));
    return `SELECT ${literal(c.product)} AS product, ${list.join(', ')} FROM ${s.view}.${quote(c.table)}`;
  });
  return `CREATE VIEW ${s.view}.transfers AS ${selects.join(' UNION ALL ')}`;
}

/** Every amount kept only as text, with where it is and its text. */
function inexactAmountsView(s: Schemas): string {
  const inexact = quote(INEXACT_COLUMN);
  const rows = TABLES.filter(({ fields }) => fields.some((f) => hasKind(f.type, 'decimal'))).map(({ collection }) => {
    const id = collection.endpoint.identity.map((f) => `t.${quote(f)}`).join(` || ' ' || `);
    return (
      `SELECT ${literal(collection.table)} AS "table", t.chain, ${id} AS id, u.field, t.${inexact} ->> u.field AS text, t.${quote(LAST_UPDATED_COLUMN)} ` +
      `FROM ${storedTable(s, collection)} AS t, jsonb_object_keys(t.${inexact}) AS u(field) WHERE t.${inexact} IS NOT NULL`
    );
  });
  return `CREATE VIEW ${s.view}.inexact_amounts AS ${rows.join(' UNION ALL ')}`;
}

/**
 * Makes the server's `schema` a mirror of this payrec's layout (in the caller's
 * transaction). A mirror laid out by this payrec (its key in payrec_meta) is left alone:
 * a syncing role needs no DDL right. Otherwise runs the DDL, one runner at a time.
 */
export async function ensureLayout(db: PgConnection, schema: string): Promise<string | undefined> {
  const key = layoutKey(schema);
  if ((await storedLayout(db, schema)) === key) return undefined;
  // Several runners may find it missing at once: one lays it out, the others find it done.
  await db.run(`SELECT pg_advisory_xact_lock(hashtextextended(${literal(`payrec layout ${schema}`)}, 0))`);
  const stored = await storedLayout(db, schema);
  if (stored === key) return undefined;
  await refuseForeign(db, schema, stored);
  const columns = await db.rows('SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1', [`${schema}_store`]);
  const have = new Map<string, Set<string>>();
  for (const c of columns) have.set(c.table_name!, (have.get(c.table_name!) ?? new Set()).add(c.column_name!));
  // Columns first: the views made anew read them.
  for (const statement of [...ddl(schema).slice(0, STATEMENTS_BEFORE_VIEWS), ...addedColumns(schema, have), ...ddl(schema).slice(STATEMENTS_BEFORE_VIEWS), ...layoutStamp(schema)]) await db.run(statement);
  return undefined;
}

/** The statements of ddl() that come before the views: schemas, state, function, tables. */
const STATEMENTS_BEFORE_VIEWS = 6 + CATALOG.length;

/** The layout key stored in the mirror, if it has one. */
async function storedLayout(db: PgConnection, schema: string): Promise<string | undefined> {
  const [found] = await db.rows(`SELECT to_regclass($1) IS NOT NULL AS present`, [`${schemasOf(schema).view}.${META_TABLE}`]);
  if (found.present !== 't') return undefined;
  const [row] = await db.rows(`SELECT value FROM ${schemasOf(schema).view}.${META_TABLE} WHERE key = 'layout'`);
  return row?.value ?? undefined;
}

/** A schema with tables but no payrec_meta is someone else's; one of a newer payrec is refused too. */
async function refuseForeign(db: PgConnection, schema: string, stored: string | undefined): Promise<void> {
  const s = schemasOf(schema);
  if (stored === undefined) {
    const [row] = await db.rows(`SELECT count(*) AS n FROM pg_tables WHERE schemaname = $1`, [schema]);
    if (Number(row.n) > 0) throw new UsageError(`the schema ${schema} of ${db.shown} holds tables but is not a payrec mirror; nothing was changed`, 'give another ?schema= in --db');
    return;
  }
  const [format] = await db.rows(`SELECT value FROM ${s.view}.${META_TABLE} WHERE key = 'format'`);
  if (format && Number(format.value) > PG_FORMAT) {
    throw new UsageError(`the mirror ${db.shown} (schema ${schema}) was made by a newer payrec (mirror format ${format.value}; this payrec knows up to ${PG_FORMAT}); nothing was changed`, 'upgrade payrec');
  }
}
