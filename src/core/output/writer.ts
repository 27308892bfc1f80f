import leven from 'leven';
import { UsageError } from '../runtime/errors.js';
import { neutraliseFormula, neutraliseTerminal, terminalJson } from './sanitize.js';
import type { CellKind, SheetWriter } from './document.js';
import type { OutputOptions } from './options.js';
import { formatRow, type FormatRow } from './formats.js';
import { withBigInts } from './json-text.js';
import {
  column,
  columnsNamed,
  isTimeColumn,
  leafPaths,
  plain,
  tableColumns,
  timeStyleOf,
  timeText,
  TIMESTAMP_FIELDS,
  API_AMOUNT_FIELDS,
  type Column,
  type Row,
  type RowEmitter,
  type TimeStyle,
} from './rows.js';
import { boxTable, fieldValueTable, followTable } from './terminal-table.js';

// The one output module: every command's records go through createWriter, whatever
// the format. Records stream out as they arrive (except the terminal table, which
// must know every cell to size its columns), so `--all` over millions of records
// runs in constant memory.

export interface RecordWriter {
  write(record: Record<string, unknown>): void | Promise<void>;
  end(): Promise<void>;
  /** Rows written so far (with --flatten, one per array element). */
  readonly count: number;
}

// ---------------------------------------------------------------------------
// Fields: what --columns may name (schema-fields.ts derives them from the registry's record schemas).

/** Throws a UsageError naming the unknown --columns and listing the known fields. */
export function validateColumns(columns: string[], knownFields: string[]): void {
  const known = new Set(knownFields);
  const openPrefixes = knownFields.filter((f) => f.endsWith('.*')).map((f) => f.slice(0, -1));
  const unknown = columns.filter((c) => !known.has(c) && !openPrefixes.some((p) => c.startsWith(p)));
  if (unknown.length === 0) return;
  const names = unknown.map((c) => JSON.stringify(c)).join(', ');
  const close = [...new Set(unknown.flatMap((c) => closeNames(c, knownFields)))];
  throw new UsageError(
    `unknown ${unknown.length === 1 ? 'column' : 'columns'} ${names} in --columns; known: ${knownFields.join(', ')}`,
    close.length > 0 ? `did you mean ${close.join(', ')}?` : undefined,
  );
}

/** Known names a mistyped column may have meant: those holding it (`mrr` → mrr_start, mrr_end…), else those a typo or two away. */
function closeNames(column: string, known: readonly string[]): string[] {
  const word = column.toLowerCase();
  const holding = known.filter((k) => word.length >= 2 && k.toLowerCase().includes(word));
  if (holding.length > 0) return holding.slice(0, 8);
  return known.filter((k) => leven(word, k.toLowerCase()) <= Math.min(2, Math.floor(k.length / 3)));
}

// ---------------------------------------------------------------------------
// Rows.

/**
 * --flatten: one row per element of `field`, the parent's fields repeated. A record
 * whose array is empty or missing still gives one row, with null element cells, so
 * no record silently disappears from an export.
 */
function flattenRecord(record: Row, field: string): Row[] {
  const items = record[field];
  if (items === undefined || items === null || (Array.isArray(items) && items.length === 0)) {
    return [{ ...record, [field]: null }];
  }
  if (!Array.isArray(items)) throw new UsageError(`cannot --flatten "${field}": it is not a list in these records`);
  return items.map((item) => ({ ...record, [field]: item }));
}

/**
 * Columns of an export (CSV and xlsx alike): --columns, or else every leaf path of the
 * first row (nested objects as dotted columns, arrays as JSON cells). Without a row,
 * the columns known beforehand: an SQL result's, a merged list's fields, or the list's
 * record fields (emptyHeader).
 */
function exportColumns(opts: OutputOptions, firstRow: Row | undefined): Column[] {
  if (opts.columns) return columnsNamed(opts.columns);
  if (!firstRow) {
    if (opts.literalColumns) return opts.defaultColumns.map((n) => column([n]));
    return columnsNamed([...(opts.fields ?? opts.emptyHeader ?? [])]);
  }
  const paths = leafPaths(firstRow);
  if (!opts.fields) return paths.map(column);
  // Records of several kinds (`payrec transfers`): every field they may have first, so the
  // header does not depend on which kind of record came first.
  return [...new Set([...opts.fields, ...paths.map((p) => p.join('.'))])].map((n) => column(n.split('.')));
}

/** A copy of `value` whose time fields (at any depth) are text; other values as they are. */
function retimed(value: unknown, text: (t: number) => string, key = ''): unknown {
  if (typeof value === 'number') return TIMESTAMP_FIELDS.has(key) ? text(value) : value;
  if (Array.isArray(value)) return value.map((v) => retimed(v, text));
  if (value === null || typeof value !== 'object') return value;
  const out: Row = {};
  for (const [k, v] of Object.entries(value)) out[k] = retimed(v, text, k);
  return out;
}

// ---------------------------------------------------------------------------
// Buffered writing to the stream.

// Rows are encoded into chunks of this size before they reach the stream: one write
// per row would cost a syscall per row on files. A megabyte per write (rather than
// 64 KB) cut an export's write, futex and epoll calls by three quarters (strace -c).
// Each row is encoded into the chunk as it comes, rather than joined into one long
// string first: a page's one emoji would make that string two bytes a character,
// slower to build and to encode.
const CHUNK_BYTES = 1024 * 1024;
/** The most UTF-8 bytes a JavaScript string takes per UTF-16 unit. */
const MAX_BYTES_PER_UNIT = 3;

/**
 * Collects text into chunks and writes them to `out`, honouring backpressure. A chunk
 * that is not full is written on the next turn of the event loop, so rows still show
 * up promptly when records trickle in (--follow, slow pages).
 */
class ChunkedSink {
  private chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;
  private timer: NodeJS.Immediate | undefined;
  /** One wait for 'drain' shared by every write made meanwhile (a listener each would pile up). */
  private draining: Promise<void> | undefined;

  constructor(private readonly out: NodeJS.WritableStream) {}

  /** Takes `text` at once (so rows keep their order); a promise means: wait before pushing more. */
  push(text: string): void | Promise<void> {
    const most = text.length * MAX_BYTES_PER_UNIT;
    let draining: void | Promise<void> = undefined;
    if (most > CHUNK_BYTES - this.used) {
      draining = this.flush();
      // Text larger than a chunk (a whole table) goes out as it is.
      if (most > CHUNK_BYTES) return this.write(text) ?? draining;
    }
    this.used += this.chunk.write(text, this.used);
    this.timer ??= setImmediate(() => {
      // A write error is the stream's to report (its 'error' event); nobody awaits this flush.
      const later = this.flush();
      if (later) later.catch(() => {});
    });
    return draining;
  }

  flush(): void | Promise<void> {
    if (this.timer) clearImmediate(this.timer);
    this.timer = undefined;
    if (this.used === 0) return;
    // The stream keeps the bytes it was given until written: the next chunk is a new buffer.
    const bytes = this.chunk.subarray(0, this.used);
    this.chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    this.used = 0;
    return this.write(bytes);
  }

  private write(data: string | Buffer): void | Promise<void> {
    if (!this.out.write(data)) {
      this.draining ??= drained(this.out).finally(() => (this.draining = undefined));
      return this.draining;
    }
  }
}

function drained(out: NodeJS.WritableStream): Promise<void> {
  // A stream that failed already (a full disk under -o) emits nothing more: its error now,
  // or the run would end with this promise unsettled (Node's exit 13, no message).
  const failed = (out as { errored?: Error | null }).errored;
  if (failed) return Promise.reject(failed);
  if ((out as { destroyed?: boolean }).destroyed) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      out.off('drain', done);
      out.off('close', done);
      out.off('error', done);
      if (err) reject(err);
      else resolve();
    };
    out.on('drain', done);
    out.on('close', done);
    out.on('error', done);
  });
}

// ---------------------------------------------------------------------------
// The writers.

export function createWriter(out: NodeJS.WritableStream, opts: OutputOptions): RecordWriter {
  if (opts.flatten?.includes('.')) {
    throw new UsageError(`cannot --flatten "${opts.flatten}": expected a top-level list field such as receivers or swaps`);
  }
  // A flattened record is several rows, so it prints as a list even from a single endpoint.
  const kind = opts.flatten ? 'list' : opts.kind;
  const sink = new ChunkedSink(out);
  const rowsOf = opts.flatten ? (r: Row) => flattenRecord(r, opts.flatten!) : (r: Row) => [r];
  const emit = rowEmitter(opts, kind, sink, out);
  let count = 0;
  return {
    get count() {
      return count;
    },
    write(record) {
      let draining: Promise<void> | undefined;
      for (const row of rowsOf(record)) {
        draining = emit.row(row, count) ?? draining;
        count++;
      }
      return draining;
    },
    async end() {
      await emit.end(count);
      await sink.flush();
    },
  };
}

function rowEmitter(opts: OutputOptions, kind: 'list' | 'single', sink: ChunkedSink, out: NodeJS.WritableStream): RowEmitter {
  switch (opts.format) {
    case 'json':
      return kind === 'single' ? jsonSingle(opts, sink) : jsonList(opts, sink);
    case 'jsonl':
      return jsonLines(opts, sink);
    case 'csv':
      return csv(opts, sink);
    case 'table':
      if (kind === 'single') return opts.tty && !opts.dumb ? fieldValueTable(opts, sink) : fieldValueText(opts, sink);
      if (!opts.tty || opts.dumb) return tabSeparated(opts, sink);
      return opts.growing ? followTable(opts, sink) : boxTable(opts, sink);
    default:
      // Every other format is written by a module of its own (formats.ts `load`): xlsx.
      return fileDocument(formatRow(opts.format), opts, out);
  }
}

/**
 * json/jsonl: each record as JSON, just the --columns fields (flat dotted keys, in that
 * order) when given. On a terminal, characters that could act on it are \u escapes (the
 * same JSON); files and pipes get JSON.stringify's bytes, at no cost per record.
 */
function jsonOf(opts: OutputOptions): (row: Row, indent?: number) => string {
  const project = projector(opts);
  const stringify = opts.tty ? terminalJson : (v: unknown, indent?: number) => JSON.stringify(v, null, indent);
  const text = timeText(timeStyleOf(opts, 'unix'), opts.zone);
  // Unix seconds (the default) cost nothing per record: the record is printed as it came.
  const timed = text ? (row: Row) => retimed(row, text) as Row : (row: Row) => row;
  if (opts.bigInts) return (row, indent) => withBigInts(project(timed(row)), (v) => stringify(v, indent));
  return (row, indent) => stringify(project(timed(row)), indent);
}

function projector(opts: OutputOptions): (row: Row) => unknown {
  if (!opts.columns) return (row) => row;
  const columns = columnsNamed(opts.columns);
  return (row) => {
    const picked: Row = {};
    for (const c of columns) picked[c.name] = c.get(row) ?? null;
    return picked;
  };
}

// One JSON document however many pages arrive: `[`, one record per line, `]`.
function jsonList(opts: OutputOptions, sink: ChunkedSink): RowEmitter {
  const json = jsonOf(opts);
  return {
    row: (row, index) => sink.push((index === 0 ? '[\n' : ',\n') + json(row)),
    end: (count) => sink.push(count === 0 ? '[]\n' : '\n]\n'),
  };
}

function jsonSingle(opts: OutputOptions, sink: ChunkedSink): RowEmitter {
  const json = jsonOf(opts);
  return { row: (row) => sink.push(json(row, 2) + '\n'), end: () => {} };
}

function jsonLines(opts: OutputOptions, sink: ChunkedSink): RowEmitter {
  const json = jsonOf(opts);
  return { row: (row) => sink.push(json(row) + '\n'), end: () => {} };
}

// RFC 4180: a field holding a comma, a double quote, CR or LF is quoted, with inner
// quotes doubled. Written by hand rather than through csv-stringify, which took
// 0.7–1 s of CPU to quote 300,000 nine-column rows against 0.15 s here; the property
// tests check that both produce the same bytes. A field holding `;` is quoted too:
// Excel in locales whose list separator is `;` splits an unquoted one into cells, and
// `x;=2+2;y` would put a formula in the second.
const NEEDS_QUOTES = /[",;\r\n]/;

function csvField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

// Records end in CRLF, as RFC 4180 specifies, so spreadsheets on every platform
// and strict parsers read the file the same way.
const CSV_EOL = '\r\n';

/** The UTF-8 byte-order mark: Excel opens a CSV as UTF-8 only when it begins with one. */
const BOM = '\uFEFF';

/**
 * CSV: a header row, then one row per record, in the export columns (exportColumns);
 * fields that only later records have are not printed. Without records the header
 * is the columns known beforehand: --columns, an SQL result's or a summary's, or the
 * list's record fields.
 */
function csv(opts: OutputOptions, sink: ChunkedSink): RowEmitter {
  const fileText = opts.csvRaw ? plain : (v: unknown) => (typeof v === 'string' ? neutraliseFormula(v) : plain(v));
  // On a terminal, server text is made inert as in the table; files and pipes get its exact bytes.
  const cellText = opts.tty ? (v: unknown) => neutraliseTerminal(fileText(v)) : fileText;
  const time = timeText(timeStyleOf(opts, 'local'), opts.zone);
  let columns = opts.columns ? exportColumns(opts, undefined) : undefined;
  let timeColumns: boolean[] = [];
  // Each time column's last time and its field: consecutive rows often share one (a rate's rateTime), made once.
  const lastTime: number[] = [];
  const lastField: string[] = [];
  const timeField = (i: number, t: number) => (lastTime[i] === t ? lastField[i] : ((lastTime[i] = t), (lastField[i] = csvField(time!(t)))));
  // Derived column names are the server's keys, so they are neutralised like cells.
  const header = (cols: Column[]) => (opts.bom ? BOM : '') + cols.map((c) => csvField(cellText(c.name))).join(',') + CSV_EOL;
  return {
    row(row, index) {
      let text = '';
      if (index === 0) {
        columns ??= exportColumns(opts, row);
        timeColumns = columns.map((c) => time !== undefined && isTimeColumn(c.name));
        text = header(columns);
      }
      const cols = columns!;
      if (cols.length === 0) return sink.push(text + CSV_EOL);
      // The line made at once by join, its end joined to its last cell: appended cell by
      // cell, it was two strings per cell and a copy of the whole line when written, a
      // fifth of a 300,000-row export's young collections (--trace-gc).
      const cells = new Array<string>(cols.length);
      for (let i = 0; i < cols.length; i++) {
        const value = cols[i].get(row);
        cells[i] = timeColumns[i] && typeof value === 'number' ? timeField(i, value) : csvField(cellText(value));
      }
      cells[cols.length - 1] += CSV_EOL;
      return sink.push(text + cells.join(','));
    },
    end: (count) => {
      if (count === 0) columns ??= exportColumns(opts, undefined);
      if (count === 0 && columns!.length > 0) return sink.push(header(columns!));
    },
  };
}

const AMOUNT_FIELDS: ReadonlySet<string> = new Set(API_AMOUNT_FIELDS);

/** How a column's cells are held in a format of typed cells (see document.ts), by its field's name. */
function cellKind(name: string): CellKind {
  const field = name.slice(name.lastIndexOf('.') + 1);
  if (TIMESTAMP_FIELDS.has(field)) return 'time';
  if (AMOUNT_FIELDS.has(field)) return 'amount';
  return field === 'value' || field === 'feeValue' ? 'value' : field === 'rate' ? 'rate' : 'plain';
}

/**
 * A format written by a module of its own (a workbook: xlsx.ts), in the export columns:
 * the module is loaded (with exceljs) on the first row or at the end, so the other
 * formats never pay for it. Rows that come while it loads (a flattened record's others)
 * wait in order behind it; once loaded, rows go straight through. The module writes
 * its document (the zip) to `out` itself.
 */
function fileDocument(format: FormatRow, opts: OutputOptions, out: NodeJS.WritableStream): RowEmitter {
  if (!format.load) throw new Error(`no writer for -f ${format.name}`);
  const load = format.load;
  let sheet: SheetWriter | undefined;
  let loading: Promise<void> | undefined;
  const open = async (first: Row | undefined) => {
    const openDocument = await load();
    const kinds = opts.cellKinds;
    const columns = exportColumns(opts, first).map((c) => ({ ...c, kind: kinds ? (kinds.get(c.name) ?? 'plain') : cellKind(c.name) }));
    const exactTotals = kinds ? 'SUM in payrec sql totals them exactly' : '--summary totals them exactly';
    sheet = openDocument(out, columns, first, { timeZone: opts.zone, warn: opts.warn, exactTotals });
  };
  return {
    row(row) {
      if (sheet) return sheet.row(row);
      loading = (loading ?? open(row)).then(() => sheet!.row(row));
      return loading;
    },
    async end() {
      await loading;
      if (!sheet) await open(undefined);
      await sheet!.end();
    },
  };
}

/**
 * Table when stdout is not a terminal (like gh): a header line, then one line per
 * row, tab-separated, no colour. Values are full and raw (Unix seconds, whole hashes)
 * so scripts can cut and sort them; only control characters are escaped, which keeps
 * every record on one line and every column in place.
 */
function tabSeparated(opts: OutputOptions, sink: ChunkedSink): RowEmitter {
  let columns: Column[] | undefined;
  const line = (cells: string[]) => cells.join('\t') + '\n';
  const cell = cellWithTimes(opts, 'unix');
  return {
    row(row, index) {
      let text = '';
      if (index === 0) {
        columns = tableColumns(opts, row);
        text = line(columns.map((c) => neutraliseTerminal(c.name)));
      }
      return sink.push(text + line(columns!.map((c) => neutraliseTerminal(cell(c.name, c.get(row))))));
    },
    end: (count) => {
      if (count === 0) return sink.push(line(tableColumns(opts, undefined).map((c) => c.name)));
    },
  };
}

/** Plain text of a cell, times in the format's style (`fallback` unless --time-format). */
function cellWithTimes(opts: OutputOptions, fallback: TimeStyle): (name: string, value: unknown) => string {
  const time = timeText(timeStyleOf(opts, fallback), opts.zone);
  if (!time) return (_name, value) => plain(value);
  return (name, value) => (typeof value === 'number' && isTimeColumn(name) ? time(value) : plain(value));
}

/** Single record, not on a terminal: `field<TAB>value` lines, like `gh pr view` piped. */
function fieldValueText(opts: OutputOptions, sink: ChunkedSink): RowEmitter {
  const cell = cellWithTimes(opts, 'unix');
  return {
    row(row) {
      const columns = opts.columns ? columnsNamed(opts.columns) : leafPaths(row).map(column);
      return sink.push(columns.map((c) => `${neutraliseTerminal(c.name)}\t${neutraliseTerminal(cell(c.name, c.get(row)))}\n`).join(''));
    },
    end: () => {},
  };
}

