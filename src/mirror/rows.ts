import { EXACT_SUFFIX, exactDigits } from './amounts.js';
import { EXTRA_COLUMN, IDENTITY_HASH_COLUMN, SCALAR_TYPES, type Field, type FieldType } from './schema.js';

// Records to table rows. The records travel to DuckDB as one JSON file per batch and
// are taken apart by DuckDB's JSON reader, on DuckDB's own threads, while payrec goes
// on fetching pages: so the costly part of a write overlaps the network. Each record
// is completed in place first: the exact parts next to each amount (inside nested
// structs too), its identity hash and its extra fields, under the table's column
// names; everything else is the record as the API sent it.

/** What a row carries besides the record's fields. */
export interface RowExtras {
  /** Fields beyond the schema and values of another type, by path (schema.ts), or undefined. */
  extra?: Record<string, unknown>;
  identityHash: number;
}

type Complete = (value: unknown) => void;

/** DuckDB's type for the JSON reader: integer parts arrive as text and are cast exactly. */
function readType(t: FieldType): unknown {
  switch (t.kind) {
    case 'list':
      return [readType(t.element)];
    case 'struct':
      return structure(t.fields);
    default:
      return SCALAR_TYPES[t.kind];
  }
}

/** The exact parts as the JSON reader takes them: HUGEINT from digits (a cast of text to DECIMAL is fifty times slower). */
const EXACT_READ = { whole: 'HUGEINT', frac: 'BIGINT' };

function structure(fields: Field[]): Record<string, unknown> {
  return Object.fromEntries(fields.flatMap((f) => (f.type.kind === 'decimal' ? [[f.name, 'VARCHAR'], [f.name + EXACT_SUFFIX, EXACT_READ]] : [[f.name, readType(f.type)]])));
}

export class RowJson {
  /** read_json's columns for a row: name → DuckDB type. */
  readonly columns: Record<string, string>;
  private readonly complete: (record: Record<string, unknown>) => void;
  /** Amounts seen whose text the exact form could not hold. */
  inexact = 0;

  constructor(fields: Field[]) {
    this.columns = Object.fromEntries(Object.entries({ ...structure(fields), [EXTRA_COLUMN]: 'JSON', [IDENTITY_HASH_COLUMN]: 'BIGINT' }).map(([k, t]) => [k, typeName(t)]));
    this.complete = this.objectCompleter(fields);
  }

  /** The JSON text of the rows of `records` (completed in place: give each record once). */
  text(records: Record<string, unknown>[], extras: RowExtras[]): string {
    for (let i = 0; i < records.length; i++) {
      const r = records[i];
      this.complete(r);
      r[EXTRA_COLUMN] = extras[i].extra ?? null;
      r[IDENTITY_HASH_COLUMN] = extras[i].identityHash;
    }
    return JSON.stringify(records);
  }

  /** Adds `<amount>_exact` beside every amount of an object, at any depth. */
  private objectCompleter(fields: Field[]): (o: Record<string, unknown>) => void {
    const steps: ((o: Record<string, unknown>) => void)[] = [];
    for (const f of fields) {
      if (f.type.kind === 'decimal') {
        const name = f.name;
        const exactName = name + EXACT_SUFFIX;
        steps.push((o) => {
          const v = o[name];
          if (v === null || v === undefined) return void (o[exactName] = null);
          const parts = exactDigits(v as string);
          if (parts === undefined) this.inexact++;
          o[exactName] = parts ?? { whole: null, frac: null };
        });
      } else {
        const inner = this.completer(f.type);
        if (inner) steps.push((o) => inner(o[f.name]));
      }
    }
    return (o) => {
      for (const step of steps) step(o);
    };
  }

  /** Completes the amounts inside a value of type `t`; undefined when it holds none. */
  private completer(t: FieldType): Complete | undefined {
    if (t.kind === 'struct') {
      if (!hasDecimal(t)) return undefined;
      const object = this.objectCompleter(t.fields);
      return (v) => {
        if (v !== null && typeof v === 'object') object(v as Record<string, unknown>);
      };
    }
    if (t.kind === 'list') {
      const element = this.completer(t.element);
      if (!element) return undefined;
      return (v) => {
        if (Array.isArray(v)) for (const e of v) element(e);
      };
    }
    return undefined;
  }
}

/** A read type as DuckDB writes it: 'VARCHAR', ['VARCHAR'] → VARCHAR[], {a: …} → STRUCT("a" …). */
function typeName(t: unknown): string {
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return `${typeName(t[0])}[]`;
  return `STRUCT(${Object.entries(t as Record<string, unknown>).map(([k, v]) => `"${k.replaceAll('"', '""')}" ${typeName(v)}`).join(', ')})`;
}

const hasDecimal = (t: FieldType): boolean =>
  t.kind === 'decimal' || (t.kind === 'struct' && t.fields.some((f) => hasDecimal(f.type))) || (t.kind === 'list' && hasDecimal(t.element));
