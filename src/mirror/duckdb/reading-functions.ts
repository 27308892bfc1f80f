// The table functions `payrec sql` runs: those that only read. A SELECT can call a table
// function that changes state (enable_profiling with a save_location onto the mirror
// itself, enable_logging, truncate_duckdb_logs, checkpoint, query() running a string of
// SQL), and DuckDB lets a read-only open write the mirror's own path: so a table
// function runs only when it is listed here, and one DuckDB adds in a later version is
// refused until someone has read what it does. The statement is looked at as DuckDB
// parsed it (json_serialize_sql), before it is bound: a call in a subquery, a CTE, a
// LATERAL join or a table function's argument is found as one in FROM is.

const READING_TABLE_FUNCTIONS = new Set([
  // Rows made from values.
  'range', 'generate_series', 'unnest', 'repeat', 'repeat_row', 'json_each', 'json_tree',
  // The catalog and the session, read.
  'duckdb_columns', 'duckdb_constraints', 'duckdb_databases', 'duckdb_dependencies', 'duckdb_functions', 'duckdb_indexes',
  'duckdb_keywords', 'duckdb_schemas', 'duckdb_sequences', 'duckdb_settings', 'duckdb_tables', 'duckdb_types', 'duckdb_views',
  'duckdb_memory', 'duckdb_temporary_files', 'duckdb_optimizers', 'duckdb_variables', 'duckdb_extensions',
  'duckdb_approx_database_count', 'duckdb_connection_count', 'duckdb_prepared_statements',
  'pragma_table_info', 'pragma_storage_info', 'pragma_database_size', 'pragma_metadata_info', 'pragma_show',
  'pragma_collations', 'pragma_version', 'pragma_platform', 'pragma_user_agent', 'pg_timezone_names', 'icu_calendar_names',
  // Statistics of a table's column.
  'summary', 'histogram', 'histogram_values',
]);

/**
 * The first table function `tree` (json_serialize_sql's answer, parsed) calls that is
 * not one that only reads; undefined when it calls none.
 */
export function refusedTableFunction(tree: unknown): string | undefined {
  // A loop, not recursion: a deeply nested query is a deep tree.
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (!Array.isArray(node) && (node as { type?: unknown }).type === 'TABLE_FUNCTION') {
      const name = (node as { function?: { function_name?: unknown } }).function?.function_name;
      if (typeof name !== 'string' || !READING_TABLE_FUNCTIONS.has(name.toLowerCase())) return typeof name === 'string' ? name : 'a table function';
    }
    for (const child of Object.values(node)) stack.push(child);
  }
  return undefined;
}
