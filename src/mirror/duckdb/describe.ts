import { ident } from './ident.js';
import type { MirrorDb } from './connection.js';
import type { TableSummary } from '../engine.js';

// What `payrec sql` shows without a query (DuckDB's `.tables`, with counts): every
// table and view of the mirror, its row count and its columns. The records' tables
// come first, then the views, then payrec's own state (names starting payrec_).

export async function describeMirror(db: MirrorDb): Promise<TableSummary[]> {
  const relations = await db.rows(
    `SELECT table_name AS name, 'table' AS kind FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'
     UNION ALL
     SELECT view_name, 'view' FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal`,
  );
  const columns = await db.rows(
    `SELECT table_name AS name, string_agg(column_name, ', ' ORDER BY column_index) AS columns FROM duckdb_columns()
     WHERE database_name = current_database() AND schema_name = 'main' GROUP BY table_name`,
  );
  const columnsOf = new Map(columns.map((c) => [String(c.name), String(c.columns)]));
  const rank = (r: { name: string; kind: string }) => (r.name.startsWith('payrec_') ? 2 : r.kind === 'view' ? 1 : 0);
  const ordered = relations
    .map((r) => ({ name: String(r.name), kind: String(r.kind) as TableSummary['kind'] }))
    .sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
  const out: TableSummary[] = [];
  for (const r of ordered) {
    const [count] = await db.rows(`SELECT count(*)::BIGINT AS n FROM ${ident(r.name)}`);
    out.push({ table: r.name, kind: r.kind, rows: Number(count.n), columns: columnsOf.get(r.name) ?? '' });
  }
  return out;
}
