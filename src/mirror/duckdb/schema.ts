import { DECIMAL_TYPE } from './amounts.js';
import { ident } from './ident.js';
import { CHAIN_COLUMN, EXTRA_COLUMN, FIRST_SEEN_COLUMN, IDENTITY_HASH_COLUMN, INEXACT_COLUMN, LAST_UPDATED_COLUMN, type Field, type FieldType } from '../fields.js';

export { contentColumns, recordConformer, type Leftovers } from '../conform.js';

// DuckDB's type mapping of the mirror's fields (fields.ts): strings are VARCHAR, amounts
// (the registry's `decimal`) DECIMAL(38,18) (see amounts.ts), times (its `timestamp`,
// Unix seconds) TIMESTAMP WITH TIME ZONE, other whole numbers BIGINT, other numbers
// DOUBLE, nested objects STRUCT, arrays LIST, open maps and anything else JSON. Fields a
// record has beyond its schema, and values of an unexpected type, are kept in one JSON
// column, `extra_fields`, keyed by their path (`memo`, `receivers[1].note`): DuckDB would
// otherwise convert them quietly (1.5 into a BIGINT is 2). Amounts DECIMAL(38,18) cannot
// hold go to `inexact_amounts` the same way (../conform.ts, with amounts.ts' fitsDecimal).

export { ident };

// ---------------------------------------------------------------------------
// Types and DDL.

/** The SQL type of each field type that holds one value, as stored. */
export const SCALAR_TYPES = { text: 'VARCHAR', decimal: DECIMAL_TYPE, time: 'TIMESTAMPTZ', integer: 'BIGINT', number: 'DOUBLE', boolean: 'BOOLEAN', json: 'JSON' } as const;

export function sqlType(t: FieldType): string {
  switch (t.kind) {
    case 'list':
      return `${sqlType(t.element)}[]`;
    case 'struct':
      return `STRUCT(${t.fields.map((f) => `${ident(f.name)} ${sqlType(f.type)}`).join(', ')})`;
    default:
      return SCALAR_TYPES[t.kind];
  }
}

/**
 * Every stored column of a table, in order: chain, the API's fields, the scope columns
 * (`planId` of a billing read by plan, when the record does not carry it), then
 * bookkeeping. The view users query shows the same but the identity hash (layout.ts).
 */
export function tableColumns(fields: Field[], scopes: readonly string[] = []): [string, string][] {
  return [
    [CHAIN_COLUMN, 'VARCHAR NOT NULL'],
    ...fields.map((f): [string, string] => [f.name, sqlType(f.type)]),
    ...scopes.map((s): [string, string] => [s, 'VARCHAR']),
    [EXTRA_COLUMN, 'JSON'],
    [INEXACT_COLUMN, 'JSON'],
    [FIRST_SEEN_COLUMN, 'TIMESTAMPTZ NOT NULL'],
    [LAST_UPDATED_COLUMN, 'TIMESTAMPTZ NOT NULL'],
    [IDENTITY_HASH_COLUMN, 'BIGINT NOT NULL'],
  ];
}
