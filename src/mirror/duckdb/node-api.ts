import * as duckdb from '@duckdb/node-api';

// @duckdb/node-api's JavaScript is bundled into the chunk that sync and sql load (only
// its native binding, @duckdb/node-bindings, is loaded as a package): Node compiled its
// 124 CommonJS files at every start, about 90 ms of each sync and query. Both stay
// dependencies, installed beside payrec with their licences like every bundled package.
export const { DuckDBInstance, DuckDBTypeId, JsonDuckDBValueConverter, StatementType, listValue } = duckdb;
/** The instance type, beside the class value above. */
export type DuckDBInstance = duckdb.DuckDBInstance;
export type StatementType = duckdb.StatementType;
export type { DuckDBConnection, DuckDBDataChunk, DuckDBDateValue, DuckDBResult, DuckDBTimestampTZValue, DuckDBType, DuckDBValue, DuckDBValueConverter, Json } from '@duckdb/node-api';
