import { UsageError } from '../core/runtime/errors.js';
import { DuckDBTypeId, JsonDuckDBValueConverter, type DuckDBResult, type DuckDBType, type DuckDBValue, type DuckDBValueConverter, type Json } from './duckdb.js';

// Query results as records for the output module, never through a lossy JavaScript
// number, and each column with one JSON type in every row (a script reading
// `-f json` can rely on it):
// - integers up to 32 bits and floating point: numbers;
// - BIGINT and UBIGINT (counts, epoch times): numbers; a value a double cannot hold
//   exactly (beyond 2^53) fails the query in json and jsonl, with the cast that keeps
//   it (as text, in table and csv, where the digits are all there is);
// - HUGEINT, UHUGEINT, BIGNUM (SUM of integers) and DECIMAL: strings of their exact digits;
// - JSON columns as their value. Everything else follows DuckDB's own JSON conversion.

type Value = ReturnType<DuckDBValueConverter<unknown>>;

const NUMBER_64 = new Set<number>([DuckDBTypeId.BIGINT, DuckDBTypeId.UBIGINT]);
const TEXT_128 = new Set<number>([DuckDBTypeId.HUGEINT, DuckDBTypeId.UHUGEINT, DuckDBTypeId.BIGNUM]);
const MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** A converter for output; `jsonNumbers`: the format is json or jsonl, where a number's type shows. */
function converter(jsonNumbers: boolean): DuckDBValueConverter<unknown> {
  const convert = (value: DuckDBValue, type: DuckDBType, inner: DuckDBValueConverter<unknown>): Value => {
    if (value === null) return null;
    if (NUMBER_64.has(type.typeId)) {
      const n = BigInt(value as bigint);
      if (n >= -MAX && n <= MAX) return Number(n);
      if (!jsonNumbers) return n.toString();
      throw new UsageError(
        `the result holds ${n} in a ${type.toString()} column, beyond what a JSON number holds exactly (2^53); nothing was printed`,
        'cast that column to text, such as count(*)::VARCHAR, or use -f csv',
      );
    }
    if (TEXT_128.has(type.typeId)) return BigInt(value as bigint).toString();
    if (type.typeId === DuckDBTypeId.VARCHAR && type.alias === 'JSON') return JSON.parse(String(value));
    // Lists, structs and maps recurse through `inner`, so their members are converted as above.
    return JsonDuckDBValueConverter(value, type, inner as DuckDBValueConverter<Json>);
  };
  return convert as DuckDBValueConverter<unknown>;
}

/** The rows of a streaming result as records, chunk by chunk; `columns` are the record keys. */
export async function* resultRecords(result: DuckDBResult, columns: string[], jsonNumbers: boolean): AsyncGenerator<Record<string, unknown>[]> {
  // The chunks' own column types lose the JSON alias (nested types keep it): take it from the result.
  const json = result.columnTypes().map((t) => t.alias === 'JSON');
  for await (const rows of result.yieldConvertedRows(converter(jsonNumbers))) {
    yield rows.map((row) => {
      const record: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) record[columns[i]] = json[i] && typeof row[i] === 'string' ? JSON.parse(row[i] as string) : row[i];
      return record;
    });
  }
}
