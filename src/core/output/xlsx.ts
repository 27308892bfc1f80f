import ExcelJS from 'exceljs';
import { once } from 'node:events';
import { offsetAt } from '../runtime/zone.js';

// -f xlsx: a real workbook, streamed row by row (exceljs's streaming WorkbookWriter:
// each row is committed to the zip as it comes, so memory stays flat however many
// records). Loaded only when -f xlsx is asked for (writer.ts imports this lazily).
//
// Cells, column by column (the columns are the CSV's, from the same column model):
// - times (timestamp, createdAt…) are date cells showing the wall-clock time in the
//   chosen zone, with its UTC offset: `2026-10-31 23:30:00 +01:00`;
// - amounts (amount, fee, serviceFee, inputAmount, outputAmount) are written twice:
//   `amount`, a number cell, so that a spreadsheet SUM counts every row; and
//   `amount_exact`, the decimal text exactly as the API sent it, so nothing is lost.
//   A spreadsheet number holds 15 significant digits. An amount with at most 15 is
//   exact in its number cell. One with more (tokens have up to 18 decimals:
//   5852.2108429019927049) gets the nearest number, shown as `≈ 5852.21084290199`: the
//   cell says it is rounded, a SUM still counts it, and payrec says how many on stderr.
//   Exact totals are `--summary`'s (or exact decimal sums of the _exact column).
//   An amount that is not a decimal number (a drifting service's "1e5") is text in
//   both cells, which a SUM would leave out: payrec names those rows on stderr.
// - everything else as in CSV: text as text (never a formula, so no neutralising is
//   needed), numbers and booleans as such, nested values as JSON text. Control
//   characters other than tab and line breaks cannot be stored in an xlsx cell and are
//   left out; the CSV and JSON formats keep them.

export type CellKind = 'time' | 'amount' | 'plain';

export interface SheetColumn {
  name: string;
  get: (row: Record<string, unknown>) => unknown;
  kind: CellKind;
}

export interface WorkbookOptions {
  /** IANA zone in which times are shown (default UTC). */
  timeZone?: string;
  /** Tells the user what the workbook cannot show as sent (stderr; --quiet silences it). */
  warn?: (message: string) => void;
  /** Data rows per sheet before the next sheet begins (Excel's limit; smaller in tests). */
  rowsPerSheet?: number;
}

export interface SheetWriter {
  row(row: Record<string, unknown>): void | Promise<void>;
  end(): Promise<void>;
}

/** Excel's most rows in a sheet, header included. */
const EXCEL_ROWS = 1_048_576;
const SHEET_NAME = 'records';
const DECIMAL = /^-?\d+(\.\d+)?$/;
/** Significant digits a spreadsheet number shows and keeps (IEEE double, as Excel and LibreOffice use). */
const NUMBER_DIGITS = 15;
const TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';

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

// Styles are shared objects: exceljs looks a style up by identity first, and building
// one per cell cost more than the rest of writing the row.
const HEADER = Object.freeze({ font: { bold: true } });
const PLAIN = Object.freeze({});
const EXACT_NUMBER = Object.freeze({ numFmt: 'General' });
const ROUNDED_NUMBER = Object.freeze({ numFmt: '"≈ "General' });

function offsetText(seconds: number): string {
  const sign = seconds < 0 ? '-' : '+';
  const abs = Math.abs(seconds);
  const hh = String(Math.floor(abs / 3600)).padStart(2, '0');
  const mm = String(Math.floor((abs % 3600) / 60)).padStart(2, '0');
  return `${sign}${hh}:${mm}`;
}

/** One sheet column as written: a source column, or the exact text beside an amount. */
interface Slot {
  header: string;
  source: SheetColumn;
  role: 'value' | 'exact';
}

function slotsOf(columns: SheetColumn[]): Slot[] {
  const names = new Set(columns.map((c) => c.name));
  return columns.flatMap((c): Slot[] => {
    const value: Slot = { header: c.name, source: c, role: 'value' };
    // A --columns list (or an SQL result) may already hold the exact column.
    if (c.kind !== 'amount' || names.has(`${c.name}_exact`)) return [value];
    return [value, { header: `${c.name}_exact`, source: c, role: 'exact' }];
  });
}

function widthOf(slot: Slot, first: Record<string, unknown> | undefined): number {
  if (slot.source.kind === 'time' && slot.role === 'value') return 28;
  const sample = first === undefined ? '' : String(slot.source.get(first) ?? '');
  return Math.min(60, Math.max(10, slot.header.length + 2, sample.length + 2));
}

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
 * Starts a workbook streamed to `out` (which exceljs ends when the workbook is
 * complete). `first` is the first record, if any: columns are as wide as its values.
 */
export function openWorkbook(out: NodeJS.WritableStream, columns: SheetColumn[], first: Record<string, unknown> | undefined, options: WorkbookOptions = {}): SheetWriter {
  const rowsPerSheet = options.rowsPerSheet ?? EXCEL_ROWS - 1;
  const zone = options.timeZone ?? 'UTC';
  const offsetOf = (seconds: number) => offsetAt(seconds, zone);
  const workbook = new WorkbookWriter({
    stream: out as unknown as import('node:stream').Stream,
    useStyles: true,
    useSharedStrings: false,
    // The fastest deflate: compressing at zlib's default level cost a fifth of the
    // export's time for a file a little smaller (workbooks are mostly repeated XML).
    zip: { zlib: { level: 1 } },
  });
  workbook.creator = workbook.lastModifiedBy = 'payrec';
  const slots = slotsOf(columns);
  const widths = slots.map((s) => widthOf(s, first));

  // A write error (the disk is full) fails the export rather than leaving it waiting.
  let failure: Error | undefined;
  const failed = new Promise<never>((_, reject) => {
    const fail = (err: Error) => reject((failure ??= err));
    out.once('error', fail);
    (workbook as unknown as { zip: NodeJS.EventEmitter }).zip.once('error', fail);
  });
  failed.catch(() => {});

  /** One style per UTC offset the times meet (a zone has one or two). */
  const timeStyles = new Map<number, object>();
  const timeStyle = (offset: number) => {
    let style = timeStyles.get(offset);
    if (!style) timeStyles.set(offset, (style = Object.freeze({ numFmt: `${TIME_FORMAT} "${offsetText(offset)}"` })));
    return style;
  };

  let sheets = 0;
  let sheet: ExcelJS.Worksheet;
  let sheetRows = 0;
  let rows = 0;
  const startSheet = () => {
    if (sheets > 0) sheet.commit();
    sheets++;
    sheet = workbook.addWorksheet(sheets === 1 ? SHEET_NAME : `${SHEET_NAME} ${sheets}`, { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = widths.map((width) => ({ width }));
    const header = sheet.addRow(slots.map((s) => s.header));
    header.eachCell((cell) => (cell.style = HEADER));
    header.commit();
    sheetRows = 0;
  };
  startSheet();

  let amounts = 0;
  let rounded = 0;
  const roundedColumns = new Set<string>();
  const textAmounts: string[] = [];
  let textAmountCount = 0;
  const where = (slot: Slot) => `${slot.header} in ${sheets > 1 ? `sheet "${sheet.name}" ` : ''}row ${sheetRows + 2}`;

  const values: unknown[] = new Array(slots.length);
  const styles: object[] = new Array(slots.length);
  const fill = (record: Record<string, unknown>) => {
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i];
      const raw = slot.source.get(record);
      let value: unknown = raw;
      let style: object = PLAIN;
      if (raw === undefined || raw === null) value = null;
      else if (slot.source.kind === 'time' && slot.role === 'value' && typeof raw === 'number') {
        const offset = offsetOf(raw);
        value = new Date((raw + offset) * 1000);
        style = timeStyle(offset);
      } else if (slot.source.kind === 'amount') {
        if (slot.role === 'exact') value = typeof raw === 'string' ? raw : JSON.stringify(raw);
        else if (typeof raw === 'string' && DECIMAL.test(raw)) {
          const n = amountNumber(raw);
          amounts++;
          value = n.value;
          style = n.exact ? EXACT_NUMBER : ROUNDED_NUMBER;
          if (!n.exact) rounded++, roundedColumns.add(slot.header);
        } else if (typeof raw === 'number') {
          // Sent as a JSON number (schema drift, already warned about): the number it is.
          amounts++;
          style = EXACT_NUMBER;
        } else {
          value = typeof raw === 'string' ? raw : JSON.stringify(raw);
          if (textAmountCount++ < 10) textAmounts.push(where(slot));
        }
      } else if (typeof raw === 'object') value = JSON.stringify(raw);
      values[i] = value;
      styles[i] = style;
    }
  };

  return {
    row(record) {
      if (sheetRows === rowsPerSheet) startSheet();
      fill(record);
      const row = sheet.addRow(values);
      // Every cell gets a shared style, the plain ones too: exceljs gives each cell a new
      // empty style object otherwise, and looking that up cost a tenth of the export.
      for (let i = 0; i < slots.length; i++) if (values[i] !== null) row.getCell(i + 1).style = styles[i] as ExcelJS.Style;
      row.commit();
      sheetRows++;
      rows++;
      if (rows % CHECK_EVERY === 0) return pace();
    },
    async end() {
      sheet.commit();
      await Promise.race([workbook.commit(), failed]);
      if (rounded > 0) {
        const exact = [...roundedColumns].map((c) => `${c}_exact`).join(', ');
        options.warn?.(
          `${rounded.toLocaleString('en-US')} of ${amounts.toLocaleString('en-US')} amounts have more than the ${NUMBER_DIGITS} significant digits a spreadsheet number holds: ` +
            `their cells show ≈ and the nearest number (a SUM counts them, close but not exact); the exact digits are in ${exact} (--summary totals them exactly)`,
        );
      }
      if (textAmountCount > 0) {
        const more = textAmountCount > textAmounts.length ? ` and ${textAmountCount - textAmounts.length} more` : '';
        options.warn?.(
          `${textAmountCount.toLocaleString('en-US')} ${textAmountCount === 1 ? 'amount is' : 'amounts are'} not a decimal number and ${textAmountCount === 1 ? 'is a text cell' : 'are text cells'}, which a spreadsheet SUM leaves out: ${textAmounts.join(', ')}${more}`,
        );
      }
      if (sheets > 1) {
        options.warn?.(`${rows.toLocaleString('en-US')} rows are in ${sheets} sheets ("${SHEET_NAME}" to "${SHEET_NAME} ${sheets}"): a sheet holds at most ${rowsPerSheet.toLocaleString('en-US')} rows below its header`);
      }
    },
  };

  /** Lets the zip catch up (see backlogOf); a turn of the event loop at least, so it can start. */
  async function pace(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    const backlog = backlogOf(sheet);
    while (backlog && backlog.bytes() > BACKLOG_BYTES && !failure) await Promise.race([backlog.drained(), failed]);
    if (failure) throw failure;
  }
}
