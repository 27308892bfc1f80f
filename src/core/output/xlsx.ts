import ExcelJS from 'exceljs';
import { once } from 'node:events';
import { offsetAt } from '../runtime/zone.js';
import { jsonText } from './json-text.js';
import type { CellKind, DocumentOptions, SheetColumn, SheetWriter } from './document.js';
import { grouped } from './grouped.js';
import { DEFLATE_LEVEL, SPLICE_MARK, spliceInto, type DeflatedPart } from './zip-splice.js';

// -f xlsx: a real workbook, streamed row by row so memory stays flat however many
// records. Loaded only when -f xlsx is asked for (writer.ts imports this lazily).
// exceljs's streaming WorkbookWriter makes the package: the zip, the workbook and its
// sheets, the styles, the frozen header row. The data rows' XML is written here,
// straight into the sheet's stream: through exceljs's row and cell objects an export
// took 3.65x the CSV export's time at 300,000 rows, against 2.31x this way
// (docs/performance.md), and a row of typed cells is little XML (ECMA-376 §18.3.1).
//
// Cells, column by column (the columns are the CSV's, from the same column model):
// - times (timestamp, createdAt…) are date cells showing the wall-clock time in the
//   chosen zone, with its UTC offset: `2026-10-31 23:30:00 +01:00`; dates (an SQL
//   DATE) are date cells `2026-10-31`;
// - amounts (amount, fee, serviceFee, inputAmount, outputAmount; an SQL DECIMAL) are
//   written twice: `amount`, a number cell, so that a spreadsheet SUM counts every
//   row; and `amount_exact`, the decimal text exactly as sent, so nothing is lost.
//   A spreadsheet number holds 15 significant digits. An amount with at most 15 is
//   exact in its number cell. One with more (tokens have up to 18 decimals:
//   5852.2108429019927049) gets the nearest number, shown as `≈ 5852.21084290199`: the
//   cell says it is rounded, a SUM still counts it, and payrec says how many on stderr.
//   Exact totals are `--summary`'s (or exact decimal sums of the _exact column).
//   An amount that is not a decimal number (a drifting service's "1e5"), or one beyond
//   any spreadsheet number (1e400), is text in both cells, which a SUM would leave
//   out: payrec names those rows on stderr.
// - values in a currency (value, feeValue: --currency) are amounts too, and so is a
//   rate; an empty value (--rates-missing blank: no usable rate, said on stderr) is an
//   empty cell, and a rate with no finite decimal (`0.9998/1.083`, a cross through USD)
//   is the nearest number of its quotient, shown with ≈, its fraction in `rate_exact`.
// - everything else as in CSV: text as text (never a formula, so no neutralising is
//   needed), numbers and booleans as such, nested values as JSON text. An integer
//   beyond a double's exact range (an SQL HUGEINT) is its nearest number, shown with
//   ≈ and counted on stderr. Control characters other than tab and line breaks cannot
//   be stored in an xlsx cell and are left out; the CSV and JSON formats keep them. A
//   text longer than a cell holds (32,767 characters) is cut, ending in …, and named.

/** Excel's most rows in a sheet, header included. */
const EXCEL_ROWS = 1_048_576;
const SHEET_NAME = 'records';
const DECIMAL = /^-?\d+(\.\d+)?$/;
/** Significant digits a spreadsheet number shows and keeps (IEEE double, as Excel and LibreOffice use). */
const NUMBER_DIGITS = 15;
const TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';
const DATE_FORMAT = 'yyyy-mm-dd';
/** Days from the spreadsheet epoch (1899-12-30, as Excel counts) to 1970-01-01. */
const EXCEL_EPOCH_DAYS = 25569;
/** exceljs's value type for numbers (a style's default number format follows it). */
const NUMBER_TYPE = 2;

/** A column's name in a cell reference: A … Z, AA … */
function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

// What XML 1.0 cannot hold (most control characters, U+FFFE, U+FFFF) is left out;
// what it reserves in text is escaped.
const XML_UNSAFE = /[&<>\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
function xmlText(text: string): string {
  XML_UNSAFE.lastIndex = 0;
  return XML_UNSAFE.test(text) ? text.replace(XML_UNSAFE, (c) => XML_ESCAPES[c] ?? '') : text;
}

/**
 * A text cell (`open` is `<c r="B7`). Text that begins or ends with white space is an
 * inline string marked to keep it (a plain value loses it in LibreOffice); the rest is
 * the shorter plain form.
 */
function textCell(open: string, text: string): string {
  const xml = xmlText(text);
  if (EDGE_SPACE.test(xml)) return `${open}" t="inlineStr"><is><t xml:space="preserve">${xml}</t></is></c>`;
  return `${open}" t="str"><v>${xml}</v></c>`;
}
const EDGE_SPACE = /^\s|\s$/;
/** The most characters a cell holds (Excel's limit; a longer text makes Excel repair the file). */
const CELL_CHARS = 32_767;

/** Text cut to what a cell holds, ending in … so the cell itself shows it was cut (never half a surrogate pair). */
function cutToCell(text: string): string {
  let end = CELL_CHARS - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + '…';
}

/**
 * The number cell of an exact decimal string, and whether it is exact. A decimal with
 * at most 15 significant digits is d × 10^k with d < 10^15: the nearest double prints
 * back to the same 15 digits, so the spreadsheet shows and sums exactly that value.
 */
export function amountNumber(text: string): { value: number; exact: boolean } {
  // Significant digits run from the first non-zero digit to the last (a scan: four
  // regular-expression replacements cost more than the rest of the cell).
  let first = -1;
  let last = -1;
  let point = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) point = i;
    else if (c > 48 && c <= 57) {
      if (first < 0) first = i;
      last = i;
    }
  }
  const digits = first < 0 ? 0 : last - first + 1 - (point > first && point < last ? 1 : 0);
  return { value: Number(text), exact: digits <= NUMBER_DIGITS };
}

const HEADER = { font: { bold: true } };
const ROUNDED_FORMAT = '"≈ "General';
/** A ratio (a fraction of 8 places) as a percentage with every digit it has: 0.66666667 shows 66.666667%. */
const PERCENT_FORMAT = '0.00####%';

function offsetText(seconds: number): string {
  const sign = seconds < 0 ? '-' : '+';
  const abs = Math.abs(seconds);
  const hh = String(Math.floor(abs / 3600)).padStart(2, '0');
  const mm = String(Math.floor((abs % 3600) / 60)).padStart(2, '0');
  return `${sign}${hh}:${mm}`;
}

/** The kinds written as a number with their exact text beside it. */
const EXACT_BESIDE = new Set<CellKind>(['amount', 'value', 'rate', 'ratio']);
/** A rate that is a quotient with no finite decimal: `numerator/denominator`. */
const FRACTION = /^(\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/;

/** One sheet column as written: a source column, or the exact text beside an amount. */
interface Slot {
  header: string;
  source: SheetColumn;
  role: 'value' | 'exact';
}

/** The slots of `columns`; `names`: every column's name the sheet has (a column whose `_exact` twin is among them has none beside it). */
function slotsOf(columns: readonly SheetColumn[], names: ReadonlySet<string>): Slot[] {
  return columns.flatMap((c): Slot[] => {
    const value: Slot = { header: c.name, source: c, role: 'value' };
    // A --columns list (or an SQL result) may already hold the exact column.
    if (!EXACT_BESIDE.has(c.kind) || names.has(`${c.name}_exact`)) return [value];
    return [value, { header: `${c.name}_exact`, source: c, role: 'exact' }];
  });
}

function widthOf(slot: Slot, first: Record<string, unknown> | undefined): number {
  if (slot.source.kind === 'time' && slot.role === 'value') return 28;
  if (slot.source.kind === 'date' && slot.role === 'value') return 12;
  const sample = first === undefined ? '' : String(slot.source.get(first) ?? '');
  return Math.min(60, Math.max(10, slot.header.length + 2, sample.length + 2));
}

/** A sheet of exceljs's streaming writer: its XML stream, which rows are written to. */
type StreamedSheet = ExcelJS.Worksheet & { stream: { write(xml: string | Buffer): unknown } };

/** The exceljs internals that hold what the zip has not compressed yet (see backlogOf). */
interface PipedSheet {
  stream?: { pipes?: { _writableState?: { length: number } }[] };
}

/**
 * exceljs offers no backpressure (its issue #734): a row's XML goes to an in-memory
 * stream that feeds the zip's compressor whatever its pace, so an export that outruns
 * compression (or a slow disk) grows without bound (300 MB at 300,000 rows). The
 * compressor's input is the one place the backlog shows: the first pipe of the
 * sheet's stream. Rows wait while it holds more than BACKLOG_BYTES. If a later
 * exceljs changes these internals the workbook is still right, only not flat in
 * memory; test/unit/xlsx.test.ts fails then.
 */
export function backlogOf(sheet: unknown): { bytes(): number; drained(): Promise<unknown> } | undefined {
  const pipe = (sheet as PipedSheet).stream?.pipes?.[0];
  const state = pipe?._writableState;
  if (!pipe || !state) return undefined;
  return { bytes: () => state.length, drained: () => once(pipe as unknown as NodeJS.EventEmitter, 'drain') };
}

/**
 * exceljs hands the zip (archiver 5) its small parts as strings, which archiver turns
 * into bytes with the deprecated `new Buffer(string)`. Bundled into payrec, that call
 * is no longer inside node_modules, so Node would print a DeprecationWarning to the
 * user. Given bytes, archiver takes them as they are: the zip's append gets them here,
 * from the first part on (the themes, which exceljs adds from its constructor).
 */
class WorkbookWriter extends ExcelJS.stream.xlsx.WorkbookWriter {
  /** The rows of the next sheet added, deflated already (Workbook.rendered): its zip entry is told before it is appended. */
  deflatedNext: DeflatedPart | undefined;
  private splice: ReturnType<typeof spliceInto> | undefined;

  /** exceljs opens a sheet's zip entry here (its `/xl/worksheets/sheetN.xml`), from addWorksheet. */
  _openStream(path: string): unknown {
    if (this.deflatedNext) (this.splice ??= spliceInto((this as unknown as { zip: unknown }).zip, DEFLATE_LEVEL))(path, this.deflatedNext);
    this.deflatedNext = undefined;
    return (ExcelJS.stream.xlsx.WorkbookWriter.prototype as unknown as { _openStream(path: string): unknown })._openStream.call(this, path);
  }

  override addThemes(): Promise<void> {
    const zip = (this as unknown as { zip: { append(source: unknown, data: unknown): unknown } }).zip;
    const append = zip.append.bind(zip);
    zip.append = (source, data) => append(typeof source === 'string' ? Buffer.from(source) : source, data);
    return super.addThemes();
  }
}

const BACKLOG_BYTES = 1 << 20;
/** Rows between looks at the backlog (and turns of the event loop, which let the zip start). */
const CHECK_EVERY = 128;
/**
 * The style id of the first number format: exceljs's style table holds its default (0)
 * and the headers' bold (1, added with the first sheet's header) before any.
 */
const FIRST_STYLE = 2;

/**
 * The number formats a workbook's cells use, each a style id in the order of first use.
 * Rows rendered ahead of their workbook (the close's transfers, while the API is walked)
 * take their ids from the one their workbook is given; the workbook adds them to
 * exceljs's style table in that order when it is complete.
 */
export class StyleIds {
  /** The formats in order: the i-th one's id is FIRST_STYLE + i. */
  readonly formats: string[] = [];
  private readonly ids = new Map<string, number>();

  id(numFmt: string): number {
    let id = this.ids.get(numFmt);
    if (id === undefined) {
      id = FIRST_STYLE + this.formats.length;
      this.formats.push(numFmt);
      this.ids.set(numFmt, id);
    }
    return id;
  }

  /**
   * Ids go by first use, sheet after sheet; rows rendered ahead of their workbook take
   * theirs as they come, several sheets' rows mixed. This puts the ids after the first
   * `kept` (those of the sheets before them) in the order `uses` says (each sheet's ids
   * in the order of their first use, sheet after sheet), and gives each id that moves
   * its new one; undefined when none moves.
   */
  inOrderOfUse(kept: number, uses: readonly (readonly number[])[]): Map<number, number> | undefined {
    const order = new Set<number>();
    for (let i = 0; i < kept; i++) order.add(FIRST_STYLE + i);
    for (const ids of uses) for (const id of ids) order.add(id);
    for (let i = 0; i < this.formats.length; i++) order.add(FIRST_STYLE + i);
    const ids = [...order];
    if (ids.every((id, i) => id === FIRST_STYLE + i)) return undefined;
    const formats = ids.map((id) => this.formats[id - FIRST_STYLE]);
    this.formats.splice(0, this.formats.length, ...formats);
    this.ids.clear();
    formats.forEach((numFmt, i) => this.ids.set(numFmt, FIRST_STYLE + i));
    return new Map(ids.map((id, i) => [id, FIRST_STYLE + i]));
  }
}

/** A cell's style id in a row's XML (text holds no `<`: xmlText escapes it). */
const CELL_STYLE = /(<c r="[A-Z]+\d+" s=")(\d+)"/g;

/** Rows' XML (whole rows, as SheetRows renders them) with each style id changed as `moved` says. */
export function restyled(xml: string, moved: ReadonlyMap<number, number>): string {
  return xml.replace(CELL_STYLE, (_, open: string, id: string) => `${open}${moved.get(Number(id)) ?? id}"`);
}

/** What rows are rendered with: the zone of their times, the style ids, and how many rows a sheet holds. */
export interface RowsContext {
  zone: string;
  styles: StyleIds;
  rowsPerSheet: number;
}

/** Starts the context of a workbook's rows (openSheets takes it, or makes one). */
export function rowsContext(options: DocumentOptions = {}, styles = new StyleIds()): RowsContext {
  return { zone: options.timeZone ?? 'UTC', styles, rowsPerSheet: options.rowsPerSheet ?? EXCEL_ROWS - 1 };
}

/**
 * The rows of one sheet as XML, and what their cells could not show (said once the
 * workbook is complete). Its columns can grow as rows come (rows rendered ahead of their
 * sheet, whose later rows can have fields the first lacked): a new column is added after
 * the others, so a row's cells keep their place; an earlier row lacks its cells.
 * Rows beyond what a sheet holds go on in `name 2`, `name 3`…
 */
export class SheetRows {
  readonly slots: Slot[] = [];
  private readonly refs: string[] = [];
  private readonly names = new Set<string>();
  /** Rows rendered, over every part. */
  rows = 0;
  private amounts = 0;
  private rounded = 0;
  private readonly roundedColumns = new Set<string>();
  private readonly textAmounts: string[] = [];
  private textAmountCount = 0;
  private readonly roundedIntegerColumns = new Set<string>();
  private roundedIntegers = 0;
  private cut = 0;
  private readonly cutCells: string[] = [];
  private readonly offsetOf: (seconds: number) => number;
  /** Time formats, by UTC offset: times show theirs, so each offset the zone has (one or two) is a format. */
  private readonly timeStyles = new Map<number, number>();
  /** The style ids its cells use, in the order of their first use. */
  readonly styleOrder: number[] = [];
  private readonly styleIds = new Map<string, number>();

  /** `named`: its cells are named with their sheet's name (a workbook of several sheets). */
  constructor(
    readonly name: string,
    columns: SheetColumn[],
    readonly context: RowsContext,
    private readonly named: boolean,
  ) {
    this.offsetOf = (seconds) => offsetAt(seconds, context.zone);
    this.add(columns);
  }

  /** Adds columns after the others (a column whose `_exact` twin is known already has none beside it). */
  add(columns: readonly SheetColumn[]): void {
    for (const c of columns) this.names.add(c.name);
    for (const slot of slotsOf(columns, this.names)) {
      this.refs.push(`<c r="${columnName(this.slots.length)}`);
      this.slots.push(slot);
    }
  }

  /** How many columns it has (those its slots come from). */
  get columns(): number {
    return this.names.size;
  }

  /** The name of the sheet that holds its part `part` (0: the first). */
  partName(part: number): string {
    return part === 0 ? this.name : `${this.name} ${part + 1}`;
  }

  /** How many sheets its rows take (one at least: a sheet of no row has its header). */
  get parts(): number {
    return Math.max(1, Math.ceil(this.rows / this.context.rowsPerSheet));
  }

  /** The XML of the next row. */
  row(record: Record<string, unknown>): string {
    const part = Math.floor(this.rows / this.context.rowsPerSheet);
    const r = (this.rows % this.context.rowsPerSheet) + 2;
    this.rows++;
    let xml = `<row r="${r}">`;
    for (let i = 0; i < this.slots.length; i++) {
      const raw = this.slots[i].source.get(record);
      if (raw !== undefined && raw !== null) xml += this.cell(this.slots[i], raw, this.refs[i] + r, r, part);
    }
    return xml + '</row>';
  }

  private where(slot: Slot, r: number, part: number): string {
    return `${slot.header} in ${part > 0 || this.named ? `sheet "${this.partName(part)}" ` : ''}row ${r}`;
  }

  /** A text cell of any value (nested ones as JSON); one longer than a cell holds is cut, and counted. */
  private text(slot: Slot, raw: unknown, open: string, r: number, part: number): string {
    let value = typeof raw === 'string' ? raw : jsonText(raw);
    if (value.length > CELL_CHARS) {
      if (this.cut++ < 10) this.cutCells.push(this.where(slot, r, part));
      value = cutToCell(value);
    }
    return textCell(open, value);
  }

  private style(numFmt: string): number {
    let id = this.styleIds.get(numFmt);
    if (id === undefined) {
      this.styleIds.set(numFmt, (id = this.context.styles.id(numFmt)));
      this.styleOrder.push(id);
    }
    return id;
  }

  private timeStyle(offset: number): number {
    let id = this.timeStyles.get(offset);
    if (id === undefined) this.timeStyles.set(offset, (id = this.style(`${TIME_FORMAT} "${offsetText(offset)}"`)));
    return id;
  }

  /** A cell's XML: `open` is `<c r="B7`, the rest of the cell follows. */
  private cell(slot: Slot, raw: unknown, open: string, r: number, part: number): string {
    const kind = slot.source.kind;
    // No value (--rates-missing blank): nothing to write in either cell.
    if (raw === '' && (kind === 'value' || kind === 'rate')) return '';
    if (slot.role === 'exact') return this.text(slot, raw, open, r, part);
    const fraction = kind === 'rate' && typeof raw === 'string' ? FRACTION.exec(raw) : null;
    if (fraction) {
      this.amounts++;
      this.rounded++;
      this.roundedColumns.add(slot.header);
      return `${open}" s="${this.style(ROUNDED_FORMAT)}"><v>${Number(fraction[1]) / Number(fraction[2])}</v></c>`;
    }
    if (kind === 'time' && typeof raw === 'number') {
      const offset = this.offsetOf(Math.floor(raw));
      return `${open}" s="${this.timeStyle(offset)}"><v>${(raw + offset) / 86400 + EXCEL_EPOCH_DAYS}</v></c>`;
    }
    if (kind === 'date' && typeof raw === 'number') return `${open}" s="${this.style(DATE_FORMAT)}"><v>${raw + EXCEL_EPOCH_DAYS}</v></c>`;
    if (EXACT_BESIDE.has(kind)) {
      // A JSON number (schema drift, warned about already) is the number it is.
      const decimal = (typeof raw === 'string' && DECIMAL.test(raw)) || typeof raw === 'bigint';
      const n = decimal ? amountNumber(String(raw)) : typeof raw === 'number' ? { value: raw, exact: true } : undefined;
      // Beyond a double's range ("1" and 400 zeros) there is no nearest number: text, as below.
      if (n && Number.isFinite(n.value)) {
        this.amounts++;
        if (n.exact) return kind === 'ratio' ? `${open}" s="${this.style(PERCENT_FORMAT)}"><v>${n.value}</v></c>` : `${open}"><v>${n.value}</v></c>`;
        this.rounded++;
        this.roundedColumns.add(slot.header);
        return `${open}" s="${this.style(ROUNDED_FORMAT)}"><v>${n.value}</v></c>`;
      }
      if (this.textAmountCount++ < 10) this.textAmounts.push(this.where(slot, r, part));
    }
    if (typeof raw === 'number') return `${open}"><v>${raw}</v></c>`;
    if (typeof raw === 'boolean') return `${open}" t="b"><v>${raw ? 1 : 0}</v></c>`;
    if (typeof raw === 'bigint') {
      const n = amountNumber(String(raw));
      if (!Number.isFinite(n.value)) return this.text(slot, String(raw), open, r, part);
      if (n.exact) return `${open}"><v>${n.value}</v></c>`;
      this.roundedIntegers++;
      this.roundedIntegerColumns.add(slot.header);
      return `${open}" s="${this.style(ROUNDED_FORMAT)}"><v>${n.value}</v></c>`;
    }
    return this.text(slot, raw, open, r, part);
  }

  /** Says what its cells could not show as sent, each line through `warn`. */
  notices(warn: (message: string) => void, exactTotals: string | undefined): void {
    if (this.rounded > 0) {
      const exact = [...this.roundedColumns].map((c) => `${c}_exact`).join(', ');
      warn(
        `${grouped(this.rounded)} of ${grouped(this.amounts)} amounts have more than the ${NUMBER_DIGITS} significant digits a spreadsheet number holds: ` +
          `their cells show ≈ and the nearest number (a SUM counts them, close but not exact); the exact digits are in ${exact}${exactTotals ? ` (${exactTotals})` : ''}`,
      );
    }
    const integers = this.roundedIntegers;
    if (integers > 0) {
      warn(
        `${grouped(integers)} ${integers === 1 ? 'integer has' : 'integers have'} more than the ${NUMBER_DIGITS} digits a spreadsheet number holds (${[...this.roundedIntegerColumns].join(', ')}): ` +
          `${integers === 1 ? 'its cell shows' : 'their cells show'} ≈ and the nearest number; -f csv and -f json keep every digit`,
      );
    }
    const texts = this.textAmountCount;
    if (texts > 0) {
      const more = texts > this.textAmounts.length ? ` and ${texts - this.textAmounts.length} more` : '';
      warn(
        `${grouped(texts)} ${texts === 1 ? 'amount is' : 'amounts are'} not a decimal number a spreadsheet can hold and ${texts === 1 ? 'is a text cell' : 'are text cells'}, which a spreadsheet SUM leaves out: ${this.textAmounts.join(', ')}${more}`,
      );
    }
    if (this.cut > 0) {
      const more = this.cut > this.cutCells.length ? ` and ${this.cut - this.cutCells.length} more` : '';
      warn(
        `${grouped(this.cut)} ${this.cut === 1 ? 'text is' : 'texts are'} longer than the ${grouped(CELL_CHARS)} characters a spreadsheet cell holds and ${this.cut === 1 ? 'was' : 'were'} cut, ending in …: ${this.cutCells.join(', ')}${more}; -f csv and -f json keep them whole`,
      );
    }
    if (this.parts > 1) {
      warn(`${grouped(this.rows)} rows are in ${this.parts} sheets ("${this.name}" to "${this.partName(this.parts - 1)}"): a sheet holds at most ${grouped(this.context.rowsPerSheet)} rows below its header`);
    }
  }
}

/** A workbook of several sheets, written one after another (the close report's); openWorkbook is one sheet of records. */
export interface Workbook {
  /**
   * Begins a sheet named `name` (the one before it must be ended): `first` is its first
   * row, if any (columns are as wide as its values). Rows beyond what a sheet holds go
   * on in `name 2`, `name 3`… Its writer's end() closes the sheet.
   */
  sheet(name: string, columns: SheetColumn[], first: Record<string, unknown> | undefined): SheetWriter;
  /**
   * Writes a sheet whose rows were rendered ahead (`rows`, made with this workbook's
   * context): `parts` gives each of its sheets' rows' XML, as bytes, or deflated already
   * (zip-splice.ts).
   */
  rendered(rows: SheetRows, first: Record<string, unknown> | undefined, parts: (part: number) => AsyncIterable<Buffer> | DeflatedPart): Promise<void>;
  /** Completes the workbook, then says what its cells could not show as sent. */
  end(): Promise<void>;
}

/**
 * Starts a workbook of one sheet, `records`, streamed to `out` (which exceljs ends when
 * the workbook is complete): every export's workbook (-f xlsx). `first` is the first
 * record, if any: columns are as wide as its values.
 */
export function openWorkbook(out: NodeJS.WritableStream, columns: SheetColumn[], first: Record<string, unknown> | undefined, options: DocumentOptions = {}): SheetWriter {
  const book = openSheets(out, options);
  const sheet = book.sheet(SHEET_NAME, columns, first);
  return {
    row: (record) => sheet.row(record),
    async end() {
      await sheet.end();
      await book.end();
    },
  };
}

/** Starts a workbook of several sheets streamed to `out` (see Workbook); `context`: the one its rows rendered ahead were made with. */
export function openSheets(out: NodeJS.WritableStream, options: DocumentOptions = {}, context = rowsContext(options)): Workbook {
  const workbook = new WorkbookWriter({
    stream: out as unknown as import('node:stream').Stream,
    useStyles: true,
    useSharedStrings: false,
    zip: { zlib: { level: DEFLATE_LEVEL } },
  });
  workbook.creator = workbook.lastModifiedBy = 'payrec';

  // A write error (the disk is full) fails the export rather than leaving it waiting.
  let failure: Error | undefined;
  const failed = new Promise<never>((_, reject) => {
    const fail = (err: Error) => reject((failure ??= err));
    out.once('error', fail);
    (workbook as unknown as { zip: NodeJS.EventEmitter }).zip.once('error', fail);
  });
  failed.catch(() => {});

  /** Lets the zip catch up with `sheet` (see backlogOf); a turn of the event loop at least, so it can start. */
  const pace = async (sheet: StreamedSheet): Promise<void> => {
    await new Promise((resolve) => setImmediate(resolve));
    const backlog = backlogOf(sheet);
    while (backlog && backlog.bytes() > BACKLOG_BYTES && !failure) await Promise.race([backlog.drained(), failed]);
    if (failure) throw failure;
  };

  /** What each sheet could not show, said once the workbook is complete, in the order of the sheets. */
  const sheetRows: SheetRows[] = [];
  /** The sheet `part` of `rows`: frozen header, columns as wide as `first`'s values. */
  const startSheet = (rows: SheetRows, part: number, first: Record<string, unknown> | undefined): StreamedSheet => {
    const sheet = <StreamedSheet>workbook.addWorksheet(rows.partName(part), { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = rows.slots.map((s) => ({ width: widthOf(s, first) }));
    const header = sheet.addRow(rows.slots.map((s) => s.header));
    header.eachCell((cell) => (cell.style = HEADER));
    header.commit();
    return sheet;
  };

  return {
    sheet(name, columns, first) {
      const rows = new SheetRows(name, columns, context, sheetRows.length > 0);
      sheetRows.push(rows);
      let part = 0;
      let sheet = startSheet(rows, part, first);
      /** Rows' XML not yet handed to the sheet's stream: written CHECK_EVERY rows at a time (each write costs exceljs a buffer and a trip down the zip's pipes). */
      let pending = '';
      const flush = () => {
        if (pending !== '') sheet.stream.write(pending);
        pending = '';
      };
      return {
        row(record) {
          if (rows.rows > 0 && rows.rows % context.rowsPerSheet === 0) {
            flush();
            sheet.commit();
            sheet = startSheet(rows, ++part, first);
          }
          pending += rows.row(record);
          if (rows.rows % CHECK_EVERY === 0) {
            flush();
            return pace(sheet);
          }
        },
        async end() {
          flush();
          sheet.commit();
        },
      };
    },
    async rendered(rows, first, parts) {
      sheetRows.push(rows);
      for (let part = 0; part < rows.parts; part++) {
        const text = parts(part);
        // Deflated already: the zip copies it where the mark is.
        const deflated = Symbol.asyncIterator in text ? undefined : text;
        workbook.deflatedNext = deflated;
        const sheet = startSheet(rows, part, first);
        if (deflated) sheet.stream.write(SPLICE_MARK);
        else {
          for await (const bytes of text as AsyncIterable<Buffer>) {
            sheet.stream.write(bytes);
            await pace(sheet);
          }
        }
        sheet.commit();
      }
    },
    async end() {
      // The number formats the cells use, as styles in exceljs's table: each must have the id its cells were given.
      const styleTable = (workbook as unknown as { styles: { addStyleModel(style: object, type: number): number } }).styles;
      context.styles.formats.forEach((numFmt, i) => {
        const id = styleTable.addStyleModel({ numFmt }, NUMBER_TYPE);
        if (id !== FIRST_STYLE + i) throw new Error(`exceljs gave the number format ${numFmt} the style ${id}, not ${FIRST_STYLE + i}`);
      });
      await Promise.race([workbook.commit(), failed]);
      // A sheet among others says which it is; a workbook of one sheet says it as ever.
      for (const rows of sheetRows) rows.notices((message) => options.warn?.(sheetRows.length > 1 ? `sheet "${rows.name}": ${message}` : message), options.exactTotals);
    },
  };
}
