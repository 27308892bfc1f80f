import type { OpenDocument } from './document.js';

// The formats payrec writes, one row each. Everything that asks what a format is reads
// this table: -f's values and help, the names -o's extensions stand for, which formats
// need a file, what a summary prints in each, and how the writer loads the module of a
// format written by one (writer.ts). A new format (the close report's html page, issue
// 46) is one row here and its module.

export interface FormatRow {
  readonly name: string;
  /** -o's extensions that pick it, lower case; the first is the one messages suggest. */
  readonly extensions: readonly string[];
  /** What it makes, in messages: `a workbook`. */
  readonly noun: string;
  /** Written to a file only (-o FILE): binary, which a terminal or a pipe has no use for; it holds rows, never a number or jq's answer. */
  readonly needsFile: boolean;
  /**
   * What a summary (and any command's own rows) looks like in it: `view`, for a person
   * (the table); `document`, one JSON document of everything; `rows`, one table of rows
   * (csv, xlsx: a summary's totals).
   */
  readonly shape: 'view' | 'document' | 'rows';
  /** Its module makes garbage for every cell: V8's heap is left to grow as it likes (heap.ts tuneHeap). */
  readonly growsHeap?: boolean;
  /** Loads the module that writes it, when the first row comes (writer.ts writes the others itself). Its rows are typed cells. */
  readonly load?: () => Promise<OpenDocument>;
}

export const FORMAT_TABLE = [
  { name: 'table', extensions: ['.tsv'], noun: 'a table', needsFile: false, shape: 'view' },
  { name: 'json', extensions: ['.json'], noun: 'a JSON document', needsFile: false, shape: 'document' },
  { name: 'jsonl', extensions: ['.jsonl', '.ndjson'], noun: 'JSON lines', needsFile: false, shape: 'document' },
  { name: 'csv', extensions: ['.csv'], noun: 'a CSV file', needsFile: false, shape: 'rows' },
  { name: 'xlsx', extensions: ['.xlsx'], noun: 'a workbook', needsFile: true, shape: 'rows', growsHeap: true, load: async () => (await import('./xlsx.js')).openWorkbook },
  { name: 'html', extensions: ['.html', '.htm'], noun: 'a page', needsFile: true, shape: 'rows', load: async () => (await import('./html.js')).openPage },
] as const satisfies readonly FormatRow[];

export type Format = (typeof FORMAT_TABLE)[number]['name'];

/** Every -f value, in the table's order. */
export const FORMATS: readonly Format[] = FORMAT_TABLE.map((f) => f.name);

/** The row of a format. */
export function formatRow(format: Format): FormatRow {
  return FORMAT_TABLE.find((f) => f.name === format)!;
}

/** The row of a name as typed (`-f xlsx` before it is checked), or undefined. */
export function formatNamed(name: string | undefined): FormatRow | undefined {
  return FORMAT_TABLE.find((f) => f.name === name);
}

/** `a, b, c or d`. */
export const namesOr = (names: readonly string[]): string => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);
