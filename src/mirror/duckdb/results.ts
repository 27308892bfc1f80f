import { DuckDBTypeId, JsonDuckDBValueConverter, type DuckDBDateValue, type DuckDBResult, type DuckDBTimestampTZValue, type DuckDBType, type DuckDBValue, type DuckDBValueConverter, type Json } from './node-api.js';
import type { CellKind } from '../../core/output/document.js';
import { withoutPaddingZeros, zonedTime } from '../result-text.js';

export { withoutPaddingZeros };

// Query results as records for the output module, never through a lossy JavaScript
// number, and each column with one JSON type in every row (a script reading `-f json`
// can rely on it): integers of every width are numbers, as JavaScript numbers while a
// double holds them exactly and as BigInts beyond (the writer prints every digit);
// DECIMALs are strings of their exact text; JSON columns are their value. Everything
// else follows DuckDB's own JSON conversion; times are shown in --tz.

type Value = ReturnType<DuckDBValueConverter<unknown>>;

const INTEGERS = new Set<number>([DuckDBTypeId.BIGINT, DuckDBTypeId.UBIGINT, DuckDBTypeId.HUGEINT, DuckDBTypeId.UHUGEINT, DuckDBTypeId.BIGNUM]);
const MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** Converts DuckDB values for output; `zone` (--tz) is where TIMESTAMP WITH TIME ZONE values are shown. */
const converterIn =
  (zone: string) =>
  (value: DuckDBValue, type: DuckDBType, converter: DuckDBValueConverter<unknown>): Value => {
    if (value === null) return null;
    if (INTEGERS.has(type.typeId)) {
      const n = BigInt(value as bigint);
      return n >= -MAX && n <= MAX ? Number(n) : n;
    }
    // Amounts print as --summary writes them: no padding zeros ('12.500000000000000000' is '12.5').
    if (type.typeId === DuckDBTypeId.DECIMAL) return withoutPaddingZeros(String(value));
    if (type.typeId === DuckDBTypeId.TIMESTAMP_TZ) return zonedTimestamp(value as DuckDBTimestampTZValue, zone);
    if (type.typeId === DuckDBTypeId.VARCHAR && type.alias === 'JSON') return JSON.parse(String(value));
    // Lists, structs and maps recurse through `converter`, so their members are converted as above.
    return JsonDuckDBValueConverter(value, type, converter as DuckDBValueConverter<Json>);
  };

/** A TIMESTAMP WITH TIME ZONE in --tz, with that instant's own offset (the library uses one fixed offset for every instant). */
function zonedTimestamp(value: DuckDBTimestampTZValue, zone: string): string {
  if (!value.isFinite) return value.toString();
  const seconds = Number(value.micros / 1_000_000n) - (value.micros % 1_000_000n < 0n ? 1 : 0);
  return zonedTime(seconds, Number(value.micros - BigInt(seconds) * 1_000_000n), zone);
}

/**
 * How a workbook holds each column, from its DuckDB type: DECIMALs are amounts (a number
 * cell and its exact text), times and dates are date cells; the rest as they come.
 */
export function cellKinds(result: DuckDBResult, columns: string[]): Map<string, CellKind> {
  const kinds = new Map<string, CellKind>();
  result.columnTypes().forEach((type, i) => {
    const kind = type.typeId === DuckDBTypeId.DECIMAL ? 'amount' : type.typeId === DuckDBTypeId.TIMESTAMP_TZ ? 'time' : type.typeId === DuckDBTypeId.DATE ? 'date' : undefined;
    if (kind) kinds.set(columns[i], kind);
  });
  return kinds;
}

/**
 * For a workbook (`asCells`), top-level TIMESTAMP WITH TIME ZONE values are Unix seconds
 * and DATEs days since 1970-01-01, which become date cells (see cellKinds); nested ones
 * stay text like every nested value. Infinite ones stay text.
 */
const cellConverterIn = (zone: string) => {
  const inner = converterIn(zone);
  return (value: DuckDBValue, type: DuckDBType): Value => {
    if (value !== null && type.typeId === DuckDBTypeId.TIMESTAMP_TZ && (value as DuckDBTimestampTZValue).isFinite) return Number((value as DuckDBTimestampTZValue).micros) / 1e6;
    if (value !== null && type.typeId === DuckDBTypeId.DATE && (value as DuckDBDateValue).isFinite) return (value as DuckDBDateValue).days;
    // Members of lists and structs convert through `inner` alone.
    return inner(value, type, inner as DuckDBValueConverter<unknown>);
  };
};

/** The rows of a streaming result as records, chunk by chunk; `columns` are the record keys. */
export async function* resultRecords(result: DuckDBResult, columns: string[], zone = 'UTC', asCells = false): AsyncGenerator<Record<string, unknown>[]> {
  // The chunks' own column types lose the JSON alias (nested types keep it): take it from the result.
  const json = result.columnTypes().map((t) => t.alias === 'JSON');
  for await (const rows of result.yieldConvertedRows(asCells ? cellConverterIn(zone) : converterIn(zone))) {
    yield rows.map((row) => {
      const record: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) record[columns[i]] = json[i] && typeof row[i] === 'string' ? JSON.parse(row[i] as string) : row[i];
      return record;
    });
  }
}
