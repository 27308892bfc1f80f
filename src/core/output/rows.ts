import { jsonText } from './json-text.js';
import { formatIso, formatLocal } from '../runtime/zone.js';
import type { OutputOptions } from './options.js';

// What every format shares: the columns of a record, the plain text of a value, how
// times are shown, and the shape of a format's emitter (writer.ts drives them).

export type Row = Record<string, unknown>;

export interface Column {
  name: string;
  get: (row: Row) => unknown;
}

/** A column reads its value through a precomputed accessor: no path parsing per row. */
export function column(parts: string[]): Column {
  const name = parts.join('.');
  if (parts.length === 1) {
    const [key] = parts;
    return { name, get: (row) => row[key] };
  }
  return {
    name,
    get: (row) => {
      let value: unknown = row;
      for (const part of parts) {
        if (value === null || typeof value !== 'object') return undefined;
        value = (value as Row)[part];
      }
      return value;
    },
  };
}

export const columnsNamed = (names: string[]) => names.map((n) => column(n.split('.')));

export const isPlainObject = (v: unknown): v is Row => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Leaf paths of a record: nested objects become dotted paths, arrays (and empty
 * objects) stay one field. Kept as parts so keys that contain dots still resolve.
 */
export function leafPaths(row: Row, prefix: string[] = [], out: string[][] = []): string[][] {
  for (const [key, value] of Object.entries(row)) {
    const path = [...prefix, key];
    if (isPlainObject(value) && Object.keys(value).length > 0) leafPaths(value, path, out);
    else out.push(path);
  }
  return out;
}

/**
 * Columns for the table and TSV when --columns is not given: the registry defaults,
 * where a --flatten field is replaced by its element's fields (from the first row).
 */
export function tableColumns(opts: OutputOptions, firstRow: Row | undefined): Column[] {
  if (opts.columns) return columnsNamed(opts.columns);
  const named = (names: string[]) => (opts.literalColumns ? names.map((n) => column([n])) : columnsNamed(names));
  const field = opts.flatten;
  const element = field !== undefined && firstRow ? firstRow[field] : undefined;
  if (field === undefined || !isPlainObject(element)) return named(opts.defaultColumns);
  const elementColumns = leafPaths(element, [field]).map(column);
  const at = opts.defaultColumns.indexOf(field);
  const defaults = named(opts.defaultColumns.filter((c) => c !== field));
  defaults.splice(at === -1 ? defaults.length : at, 0, ...elementColumns);
  return defaults;
}

/** Plain text of a value: objects and arrays as compact JSON, missing as empty. */
export function plain(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return jsonText(value);
  return String(value);
}

// ---------------------------------------------------------------------------
// Times: the API's Unix seconds, shown as the format and --time-format ask.

// The API's times and amounts are the registry's `timestamp` and `decimal` fields
// (registry/field-kinds.ts derives them from the schemas). The writer names them here:
// reading the schemas loads zod, which `payrec sql` never does; test/unit/field-kinds.test.ts
// holds these names to the schemas, so a new field of either kind fails it until named.

/** The API's time fields (registry/field-kinds.ts TIME_FIELDS). */
export const API_TIME_FIELDS: readonly string[] = ['timestamp', 'createdAt', 'updatedAt', 'cycleStart', 'cycleEnd'];
/** The API's amount fields (registry/field-kinds.ts AMOUNT_FIELDS). */
export const API_AMOUNT_FIELDS: readonly string[] = ['amount', 'fee', 'serviceFee', 'inputAmount', 'outputAmount'];

// The API's times, and the times payrec derives (subscriptions' ledger, metrics' intervals).
export const TIMESTAMP_FIELDS = new Set([...API_TIME_FIELDS, 'started', 'paidThrough', 'lastAttempt', 'cancelledAt', 'endsAt', 'from', 'to', 'instant', 'rateTime']);

export const isTimeColumn = (name: string) => TIMESTAMP_FIELDS.has(name.slice(name.lastIndexOf('.') + 1));

/**
 * How a format shows times unless --time-format says: json, jsonl and the piped
 * table keep the API's Unix seconds (scripts compute with them); CSV and the
 * terminal table show a local date-time in --tz (`2026-10-31 14:05:09`, which
 * spreadsheets read as a date-time cell and people read at a glance).
 */
export type TimeStyle = 'unix' | 'iso' | 'local';

export function timeStyleOf(opts: OutputOptions, fallback: TimeStyle): TimeStyle {
  return opts.timeFormat ?? fallback;
}

/** Text of a time in a style, or undefined for Unix seconds (the value as it came). */
export function timeText(style: TimeStyle, zone: string): ((t: number) => string) | undefined {
  if (style === 'unix') return undefined;
  return style === 'iso' ? (t) => formatIso(t, zone) : (t) => formatLocal(t, zone);
}

// ---------------------------------------------------------------------------
// Emitters: one per format.

/** One format's writing of rows, in order; `end` gets the number of rows. */
export interface RowEmitter {
  row(row: Row, index: number): void | Promise<void>;
  end(count: number): void | Promise<void>;
}

/** Where an emitter's text goes (writer.ts's chunked sink); a promise means: wait before pushing more. */
export interface TextOut {
  push(text: string): void | Promise<void>;
}
