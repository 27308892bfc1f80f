import { createRequire } from 'node:module';
import type * as DuckDB from '@duckdb/node-api';

// @duckdb/node-api, required rather than imported: it is CommonJS, and an ESM import
// makes Node scan its 120 files for their exports first (about 90 ms of every sync and sql).
const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as typeof DuckDB;

export const { DuckDBInstance, DuckDBTypeId, JsonDuckDBValueConverter } = duckdb;
/** The instance type, beside the class value above. */
export type DuckDBInstance = DuckDB.DuckDBInstance;
export type { DuckDBConnection, DuckDBResult, DuckDBType, DuckDBValue, DuckDBValueConverter, Json } from '@duckdb/node-api';
