import type { DuckDBValue } from '@duckdb/node-api';
import { RATES_TABLE, tokenColumnOf, WRITTEN_RATE_FIELDS, type RateFilter, type StoredRate, type TokenSpan } from '../rates.js';
import type { MirrorDb } from './connection.js';
import { ident } from './schema.js';
import type { TableLayout } from './layout.js';

// The `rates` table in DuckDB (../rates.ts declares it): in the main schema, beside
// chain_verdicts, so `payrec sql` joins it as it is. Times are TIMESTAMP WITH TIME ZONE,
// rates, round ids and answers exact text. Its DDL is layout.ts' RATES_DDL.

const TABLE = ident(RATES_TABLE);

/** Rows per INSERT statement (each value a parameter). */
const CHUNK = 500;

/** Whether the table is there: a mirror no payrec of this kind wrote since it was read only has none. */
async function hasTable(db: MirrorDb): Promise<boolean> {
  const [{ n }] = await db.rows(`SELECT count(*)::BIGINT AS n FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $1`, [RATES_TABLE]);
  return Number(n) > 0;
}

/** Inserts `rows` (in the caller's transaction); a Chainlink round already stored (chain, token, feed, roundId) is left as it is. Returns how many were inserted. */
export async function storeRates(db: MirrorDb, rows: readonly StoredRate[]): Promise<number> {
  const names = WRITTEN_RATE_FIELDS.map((f) => ident(f.name)).join(', ');
  let inserted = 0;
  for (let i = 0; i < rows.length; i += CHUNK) {
    const params: DuckDBValue[] = [];
    const tuples = rows.slice(i, i + CHUNK).map((r) => {
      const cells = WRITTEN_RATE_FIELDS.map(({ name, type }) => {
        params.push((r[name as keyof StoredRate] ?? null) as DuckDBValue);
        const p = `$${params.length}`;
        return type.kind === 'time' ? `to_timestamp(${p}::BIGINT)` : type.kind === 'integer' ? `${p}::BIGINT` : `${p}::VARCHAR`;
      });
      return `(${cells.join(', ')})`;
    });
    const fresh = `v.feed IS NULL OR NOT EXISTS (SELECT 1 FROM ${TABLE} AS r WHERE r.chain = v.chain AND r.token = v.token AND r.feed = v.feed AND r."roundId" = v."roundId")`;
    const done = await db.rows(`INSERT INTO ${TABLE} (${names}, "storedAt") SELECT *, now() FROM (VALUES ${tuples.join(', ')}) AS v(${names}) WHERE ${fresh} RETURNING 1 AS one`, params);
    inserted += done.length;
  }
  return inserted;
}

/** Removes the rows an import of a file named `file` stored; returns how many. */
export async function dropImport(db: MirrorDb, file: string): Promise<number> {
  const done = await db.rows(`DELETE FROM ${TABLE} WHERE file = $1 RETURNING 1 AS one`, [file]);
  return done.length;
}

export async function readRates(db: MirrorDb, f: RateFilter): Promise<StoredRate[]> {
  if (!(await hasTable(db))) return [];
  const where: string[] = [];
  const params: DuckDBValue[] = [];
  const param = (v: DuckDBValue) => (params.push(v), `$${params.length}`);
  if (f.chain !== undefined) where.push(`chain IN (${param(f.chain)}, '*', 'fiat')`);
  if (f.token !== undefined) where.push(`token = ${param(f.token)}`);
  if (f.from !== undefined) where.push(`(time IS NULL OR time >= to_timestamp(${param(f.from)}::BIGINT))`);
  if (f.to !== undefined) where.push(`(time IS NULL OR time <= to_timestamp(${param(f.to)}::BIGINT))`);
  const select = WRITTEN_RATE_FIELDS.map(({ name, type }) => (type.kind === 'time' ? `epoch(${ident(name)})::BIGINT AS ${ident(name)}` : type.kind === 'integer' ? `${ident(name)}::BIGINT AS ${ident(name)}` : ident(name)));
  const rows = await db.rows(
    `SELECT ${select.join(', ')} FROM ${TABLE}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY chain, token, currency, time NULLS FIRST, file, line, feed, length("roundId"), "roundId"`,
    params,
  );
  return rows.map((r) => storedRateOf(r));
}

/** A row read back as payrec writes it: whole numbers as numbers, the rest text or null. */
export function storedRateOf(r: Record<string, unknown>): StoredRate {
  const out: Record<string, unknown> = {};
  for (const { name, type } of WRITTEN_RATE_FIELDS) {
    const v = r[name];
    out[name] = v === null || v === undefined ? null : type.kind === 'text' ? String(v) : Number(v);
  }
  return out as unknown as StoredRate;
}

/** Tokens of the records of `chain`: every stored table with a token (or an execution's input token) and a timestamp. */
export async function tokenSpans(db: MirrorDb, layouts: readonly TableLayout[], chain: string): Promise<TokenSpan[]> {
  const parts = layouts.flatMap(({ fields, storage }) => {
    const token = tokenColumnOf(fields);
    return token ? [`SELECT ${ident(token)} AS token, timestamp FROM ${storage} WHERE chain = $1 AND ${ident(token)} IS NOT NULL AND timestamp IS NOT NULL`] : [];
  });
  const rows = await db.rows(`SELECT token, epoch(min(timestamp))::BIGINT AS first, epoch(max(timestamp))::BIGINT AS last FROM (${parts.join(' UNION ALL ')}) GROUP BY token ORDER BY token`, [chain]);
  return rows.map((r) => ({ token: String(r.token), first: Number(r.first), last: Number(r.last) }));
}
