import {
  BIGINT,
  BOOLEAN,
  DECIMAL,
  DOUBLE,
  LIST,
  STRUCT,
  TIMESTAMPTZ,
  VARCHAR,
  DuckDBDataChunk,
  decimalValue,
  listValue,
  structValue,
  timestampTZValue,
  type DuckDBAppender,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { EXACT_SUFFIX, exactParts } from './amounts.js';
import type { Field, FieldType } from './schema.js';

// Records to table rows, column by column, for DuckDB's appender: a record's fields in
// the table's order (amounts followed by their exact parts, inside nested structs too),
// then the mirror's own columns. Appending typed columns costs DuckDB half of what
// reading the same records from JSON text costs, and no value passes through text.

/** What a row carries besides the record's fields. */
export interface RowExtras {
  chain: string;
  /** Fields beyond the schema and values of another type, by path (schema.ts), or undefined. */
  extra?: Record<string, unknown>;
  /** Microseconds since the epoch. */
  at: bigint;
  identityHash: number;
}

type Convert = (value: unknown) => DuckDBValue;

const EXACT: DuckDBType = STRUCT({ whole: DECIMAL(38, 0), frac: BIGINT });

/** An amount's exact parts, or parts of NULL when the text cannot be held exactly (amounts.ts). */
const exact: Convert = (v) => {
  if (v === null || v === undefined) return null;
  const parts = exactParts(v as string);
  return parts ? structValue({ whole: decimalValue(parts.whole, 38, 0), frac: parts.frac }) : structValue({ whole: null, frac: null });
};

function duckType(t: FieldType): DuckDBType {
  switch (t.kind) {
    case 'text':
    case 'decimal':
    case 'json': // JSON columns take their text
      return VARCHAR;
    case 'integer':
      return BIGINT;
    case 'number':
      return DOUBLE;
    case 'boolean':
      return BOOLEAN;
    case 'list':
      return LIST(duckType(t.element));
    case 'struct':
      return STRUCT(Object.fromEntries(t.fields.flatMap((f) => stored(f).map(([name, , type]) => [name, type]))));
  }
}

function converter(t: FieldType): Convert {
  switch (t.kind) {
    case 'text':
    case 'decimal':
    case 'number':
    case 'boolean':
      return (v) => (v === undefined ? null : (v as DuckDBValue));
    case 'integer':
      return (v) => (v === undefined || v === null ? null : BigInt(v as number));
    case 'json':
      return (v) => (v === undefined || v === null ? null : JSON.stringify(v));
    case 'list': {
      const element = converter(t.element);
      return (v) => (v === undefined || v === null ? null : listValue((v as unknown[]).map(element)));
    }
    case 'struct': {
      const members = t.fields.flatMap(stored);
      return (v) => {
        if (v === undefined || v === null) return null;
        const o = v as Record<string, unknown>;
        return structValue(Object.fromEntries(members.map(([name, source, , convert]) => [name, convert(o[source])])));
      };
    }
  }
}

/** [column or member name, the record field it reads, its type, its conversion]: an amount gives two. */
function stored(f: Field): [string, string, DuckDBType, Convert][] {
  const own: [string, string, DuckDBType, Convert] = [f.name, f.name, duckType(f.type), converter(f.type)];
  return f.type.kind === 'decimal' ? [own, [f.name + EXACT_SUFFIX, f.name, EXACT, exact]] : [own];
}

/** Appends records as rows of a table laid out by tableColumns(fields). */
export class RowAppender {
  private readonly columns: [string, DuckDBType, (record: Record<string, unknown>, extras: RowExtras) => DuckDBValue][];

  constructor(fields: Field[]) {
    this.columns = [
      ['chain', VARCHAR, (_, x) => x.chain],
      ...fields.flatMap(stored).map(([name, source, type, convert]): (typeof this.columns)[number] => [name, type, (r) => convert(r[source])]),
      ['extra_fields', VARCHAR, (_, x) => (x.extra === undefined ? null : JSON.stringify(x.extra))],
      ['first_seen', TIMESTAMPTZ, (_, x) => timestampTZValue(x.at)],
      ['last_updated', TIMESTAMPTZ, (_, x) => timestampTZValue(x.at)],
      ['identity_hash', BIGINT, (_, x) => BigInt(x.identityHash)],
    ];
  }

  /** Appends rows in chunks of DuckDB's vector size. */
  append(appender: DuckDBAppender, records: Record<string, unknown>[], extras: RowExtras[]): void {
    const types = this.columns.map(([, type]) => type);
    for (let start = 0; start < records.length; start += CHUNK) {
      const end = Math.min(records.length, start + CHUNK);
      const chunk = DuckDBDataChunk.create(types, end - start);
      this.columns.forEach(([, , value], c) => {
        const values = new Array<DuckDBValue>(end - start);
        for (let i = start; i < end; i++) values[i - start] = value(records[i], extras[i]);
        chunk.setColumnValues(c, values);
      });
      appender.appendDataChunk(chunk);
    }
  }
}

/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK = 2048;
