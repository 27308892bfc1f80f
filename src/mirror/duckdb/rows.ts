import { decimalSql } from './amounts.js';
import { ident, type Leftovers } from './schema.js';
import { EXTRA_COLUMN, hasKind, INEXACT_COLUMN, type Field, type FieldType } from '../fields.js';

// Records to table rows. Records reach DuckDB as JSON files that its JSON reader takes
// apart on its own threads, while payrec goes on fetching pages; they come in one of
// two ways:
//
//  - page bytes: the records exactly as the service sent them (record-bytes.ts), when
//    every record fits its schema and every amount DECIMAL(38,18). payrec writes
//    nothing out. This is every page of a service that keeps to its schema, except in
//    tables with a JSON column (short urls' params.extra): DuckDB would keep such a
//    value's text in its own spelling (numbers, escapes), not JSON.stringify's.
//  - records written out by payrec: conformed (schema.ts), with what did not fit in
//    `extra_fields` and `inexact_amounts`.
//
// Both are read with the same column types (amounts as text, times as Unix seconds)
// and turned into the stored types by the same SQL: amounts by decimalSql, times by
// to_timestamp, inside nested structs and lists too. Everything else of a row (chain,
// scope, identity hash, bookkeeping) is added by the same SQL (upsert.ts).

/** DuckDB's JSON-reader type of a value of type `t`: amounts as text, times as seconds. */
function readType(t: FieldType): unknown {
  switch (t.kind) {
    case 'list':
      return [readType(t.element)];
    case 'struct':
      return structure(t.fields);
    case 'decimal':
      return 'VARCHAR';
    case 'time':
      return 'BIGINT';
    case 'text':
      return 'VARCHAR';
    case 'integer':
      return 'BIGINT';
    case 'number':
      return 'DOUBLE';
    case 'boolean':
      return 'BOOLEAN';
    case 'json':
      return 'JSON';
  }
}

function structure(fields: Field[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f.name, readType(f.type)]));
}

/** A read type as DuckDB writes it: 'VARCHAR', ['VARCHAR'] → VARCHAR[], {a: …} → STRUCT("a" …). */
function typeName(t: unknown): string {
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return `${typeName(t[0])}[]`;
  return `STRUCT(${Object.entries(t as Record<string, unknown>).map(([k, v]) => `${ident(k)} ${typeName(v)}`).join(', ')})`;
}

/** read_json's `columns` argument: name → type, as SQL. */
function columnsArgument(columns: Record<string, unknown>): string {
  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
  return `{${Object.entries(columns).map(([k, t]) => `${literal(k)}: ${literal(typeName(t))}`).join(', ')}}`;
}

/** Whether a value of type `t` needs converting from its read type. */
const converts = (t: FieldType): boolean => hasKind(t, 'decimal') || hasKind(t, 'time');

/** A value of type `t` (the SQL expression `v`, as read) in its stored type. */
function storedSql(t: FieldType, v: string): string {
  if (!converts(t)) return v;
  switch (t.kind) {
    case 'decimal':
      return decimalSql(v);
    case 'time':
      return `to_timestamp(${v})`;
    case 'list':
      return `list_transform(${v}, lambda e: ${storedSql(t.element, 'e')})`;
    case 'struct': {
      const members = t.fields.map((f) => `${ident(f.name)} := ${storedSql(f.type, `${v}.${ident(f.name)}`)}`);
      return `CASE WHEN ${v} IS NULL THEN NULL ELSE struct_pack(${members.join(', ')}) END`;
    }
    default:
      return v;
  }
}

export class RowSources {
  /** The API's fields of a row, as a SELECT list over read_json's columns. */
  private readonly stored: string;
  private readonly pageRead: string;
  private readonly recordRead: string;
  private readonly hasJson: boolean;

  constructor(fields: Field[]) {
    this.hasJson = fields.some((f) => hasKind(f.type, 'json'));
    const read = structure(fields);
    this.pageRead = columnsArgument(read);
    this.recordRead = columnsArgument({ ...read, [EXTRA_COLUMN]: 'JSON', [INEXACT_COLUMN]: 'JSON' });
    this.stored = fields.map((f) => `${storedSql(f.type, ident(f.name))} AS ${ident(f.name)}`).join(', ');
  }

  /** Whether DuckDB can take the records of a page, each of which fits its schema, from its bytes: the table has no JSON column. */
  get takesPageBytes(): boolean {
    return !this.hasJson;
  }

  /** SELECT of the rows in a file of page bytes (its quoted path). */
  fromPages(file: string): string {
    return `SELECT ${this.stored}, NULL::JSON AS ${ident(EXTRA_COLUMN)}, NULL::JSON AS ${ident(INEXACT_COLUMN)} FROM read_json(${file}, format = 'array', columns = ${this.pageRead})`;
  }

  /** SELECT of the rows in a file of records completed by completeRecord (JSON.stringify of them). */
  fromRecords(file: string): string {
    return `SELECT ${this.stored}, ${ident(EXTRA_COLUMN)}, ${ident(INEXACT_COLUMN)} FROM read_json(${file}, format = 'array', columns = ${this.recordRead})`;
  }

  /** Completes a conformed record in place (give each once) with what did not fit; returns how many of its amounts are inexact. */
  completeRecord(record: Record<string, unknown>, left: Leftovers | undefined): number {
    record[EXTRA_COLUMN] = left?.extra ?? null;
    record[INEXACT_COLUMN] = left?.inexact ?? null;
    return left?.inexact ? Object.keys(left.inexact).length : 0;
  }
}
