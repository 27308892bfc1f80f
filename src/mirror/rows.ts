import { EXACT_SUFFIX, exactDigits, FRACTION_DIGITS, isHoldable } from './amounts.js';
import { EXTRA_COLUMN, ident, SCALAR_TYPES, type Field, type FieldType } from './schema.js';

// Records to table rows. Records reach DuckDB as JSON files that its JSON reader takes
// apart on its own threads, while payrec goes on fetching pages; they come in one of
// two ways:
//
//  - page bytes: the records exactly as the service sent them (record-bytes.ts), when
//    they fit their schema and every amount has an exact form. DuckDB computes the
//    exact parts (exactSql); payrec writes nothing out. This is every page of a
//    service that keeps to its schema, except in tables with a JSON column (short
//    urls' params.extra): DuckDB would keep such a value's text in its own spelling
//    (numbers, escapes), not JSON.stringify's.
//  - records written out by payrec: each completed in place with the exact parts
//    next to each amount (inside nested structs too) and its extra fields, under the
//    table's column names. This is the way for a record with fields beyond its schema,
//    values of another type, or an amount the exact form cannot hold.
//
// Both give the same row for the same record; everything else of a row (chain,
// identity hash, bookkeeping) is added by the same SQL (upsert.ts).

/** Calls `visit(object, name)` for every amount field of a record, at any depth. */
type AmountVisit = (o: Record<string, unknown>, name: string) => void;

function amountVisitor(fields: Field[], visit: AmountVisit): (o: Record<string, unknown>) => void {
  const steps: ((o: Record<string, unknown>) => void)[] = [];
  for (const f of fields) {
    if (f.type.kind === 'decimal') steps.push((o) => visit(o, f.name));
    else {
      const inner = valueVisitor(f.type, visit);
      if (inner) steps.push((o) => inner(o[f.name]));
    }
  }
  return (o) => {
    for (const step of steps) step(o);
  };
}

/** Visits the amounts inside a value of type `t`; undefined when it holds none. */
function valueVisitor(t: FieldType, visit: AmountVisit): ((v: unknown) => void) | undefined {
  if (!hasDecimal(t)) return undefined;
  if (t.kind === 'struct') {
    const object = amountVisitor(t.fields, visit);
    return (v) => {
      if (v !== null && typeof v === 'object') object(v as Record<string, unknown>);
    };
  }
  const element = valueVisitor((t as { element: FieldType }).element, visit);
  return (v) => {
    if (Array.isArray(v)) for (const e of v) element!(e);
  };
}

/** Whether a value of type `t` holds a value of kind `kind`, at any depth. */
const hasKind = (t: FieldType, kind: FieldType['kind']): boolean =>
  t.kind === kind || (t.kind === 'struct' && t.fields.some((f) => hasKind(f.type, kind))) || (t.kind === 'list' && hasKind(t.element, kind));

const hasDecimal = (t: FieldType): boolean => hasKind(t, 'decimal');

/** The exact parts as the JSON reader takes them: HUGEINT from digits (a cast of text to DECIMAL is fifty times slower). */
const EXACT_READ = { whole: 'HUGEINT', frac: 'BIGINT' };

/** DuckDB's type for the JSON reader of a value of type `t`, with or without the exact companions. */
function readType(t: FieldType, exact: boolean): unknown {
  switch (t.kind) {
    case 'list':
      return [readType(t.element, exact)];
    case 'struct':
      return structure(t.fields, exact);
    default:
      return SCALAR_TYPES[t.kind];
  }
}

function structure(fields: Field[], exact: boolean): Record<string, unknown> {
  return Object.fromEntries(
    fields.flatMap((f) => (f.type.kind === 'decimal' && exact ? [[f.name, 'VARCHAR'], [f.name + EXACT_SUFFIX, EXACT_READ]] : [[f.name, readType(f.type, exact)]])),
  );
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

// ---------------------------------------------------------------------------
// Page bytes: the exact parts computed by DuckDB.

/**
 * The exact parts of an amount's text `a` in SQL, for text the exact form holds (the
 * caller checked it with isHoldable): the same values as exactDigits. The sign of the
 * value goes into both parts ('-0.5': whole 0, frac -500000000000000000).
 */
function exactSql(a: string): string {
  return (
    `CASE WHEN ${a} IS NULL THEN NULL ELSE struct_pack(whole := split_part(${a}, '.', 1)::HUGEINT, ` +
    `frac := (CASE WHEN starts_with(${a}, '-') THEN -1 ELSE 1 END) * rpad(split_part(${a}, '.', 2), ${FRACTION_DIGITS}, '0')::BIGINT) END`
  );
}

/** A value of type `t` (the SQL expression `v`) with the exact companion beside each amount inside it. */
function completedSql(t: FieldType, v: string): string {
  if (!hasDecimal(t)) return v;
  if (t.kind === 'list') return `list_transform(${v}, lambda e: ${completedSql(t.element, 'e')})`;
  if (t.kind === 'struct') {
    const members = membersSql(t.fields, (name) => `${v}.${ident(name)}`).map(([name, sql]) => `${ident(name)} := ${sql}`);
    return `CASE WHEN ${v} IS NULL THEN NULL ELSE struct_pack(${members.join(', ')}) END`;
  }
  return v;
}

/** [name, SQL] of each stored member of an object whose fields are `member(name)`. */
function membersSql(fields: Field[], member: (name: string) => string): [string, string][] {
  return fields.flatMap((f): [string, string][] => {
    const v = member(f.name);
    const own: [string, string] = [f.name, completedSql(f.type, v)];
    return f.type.kind === 'decimal' ? [own, [f.name + EXACT_SUFFIX, exactSql(v)]] : [own];
  });
}

// ---------------------------------------------------------------------------

export class RowSources {
  /** The fields of a row from page bytes, as a SELECT list over read_json's columns. */
  private readonly pageColumns: string;
  private readonly pageRead: string;
  private readonly recordRead: string;
  private readonly complete: (o: Record<string, unknown>) => void;
  private readonly allHoldable: (o: Record<string, unknown>) => void;
  /** Amounts of the record being completed that the exact form cannot hold. */
  private inexact = 0;
  private holdable = true;
  private readonly hasJson: boolean;

  constructor(fields: Field[]) {
    this.hasJson = fields.some((f) => hasKind(f.type, 'json'));
    this.pageRead = columnsArgument(structure(fields, false));
    this.recordRead = columnsArgument({ ...structure(fields, true), [EXTRA_COLUMN]: 'JSON' });
    this.pageColumns = [...membersSql(fields, ident).map(([name, sql]) => `${sql} AS ${ident(name)}`), `NULL::JSON AS ${ident(EXTRA_COLUMN)}`].join(', ');
    this.complete = amountVisitor(fields, (o, name) => {
      const v = o[name];
      const exactName = name + EXACT_SUFFIX;
      if (v === null || v === undefined) return void (o[exactName] = null);
      const parts = exactDigits(v as string);
      if (parts === undefined) this.inexact++;
      o[exactName] = parts ?? { whole: null, frac: null };
    });
    this.allHoldable = amountVisitor(fields, (o, name) => {
      const v = o[name];
      if (v !== null && v !== undefined && !isHoldable(v as string)) this.holdable = false;
    });
  }

  /** Whether DuckDB can take records that fit their schema from page bytes: the table has no JSON column and every amount an exact form. */
  takeAsSent(records: Record<string, unknown>[]): boolean {
    if (this.hasJson) return false;
    this.holdable = true;
    for (let i = 0; i < records.length && this.holdable; i++) this.allHoldable(records[i]);
    return this.holdable;
  }

  /** SELECT of the rows in a file of page bytes (its quoted path). */
  fromPages(file: string): string {
    return `SELECT ${this.pageColumns} FROM read_json(${file}, format = 'array', columns = ${this.pageRead})`;
  }

  /** SELECT of the rows in a file of records completed by completeRecord (JSON.stringify of them). */
  fromRecords(file: string): string {
    return `SELECT * FROM read_json(${file}, format = 'array', columns = ${this.recordRead})`;
  }

  /** Completes a record in place (give each once) with its amounts' exact parts and its extra fields; returns how many amounts have no exact form. */
  completeRecord(record: Record<string, unknown>, extra: Record<string, unknown> | undefined): number {
    this.inexact = 0;
    this.complete(record);
    record[EXTRA_COLUMN] = extra ?? null;
    return this.inexact;
  }
}
