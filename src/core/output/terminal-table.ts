import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import { jsonText } from './json-text.js';
import { neutraliseTerminal, shortenMiddle } from './sanitize.js';
import { columnsNamed, column, isTimeColumn, leafPaths, plain, tableColumns, timeStyleOf, timeText, type Column, type Row, type RowEmitter, type TextOut } from './rows.js';
import type { OutputOptions } from './options.js';

// The table a person reads on a terminal (gh keeps its tableprinter apart the same
// way): a box-drawn list fitted to the terminal's width, a single record's fields,
// and the growing table of --follow.
//
// Ids are whole wherever they fit, so a mouse copy gives a working id: a column of
// hashes is shortened in the middle (0x57b2…6bf7) only when the table would not fit
// otherwise, and never with --wide.

const LONG_HEX = /^0x[0-9a-fA-F]{19,}$/; // longer than 20 characters
const LONG_HEX_INSIDE = /0x[0-9a-fA-F]{19,}/g;
const HEX_SHORT = 11; // 0x57b2…6bf7
const JSON_CELL_MAX = 48;
const MIN_COLUMN_WIDTH = 8;
/** How narrow free text (names, links, JSON) gets before whole ids are shortened to make room. */
const FREE_TEXT_ROOM = 24;

const STATUS_COLOURS: Record<string, 'green' | 'red' | 'yellow'> = { confirmed: 'green', failed: 'red', pending: 'yellow' };

/** One cell in its two forms: whole, and shortened for a narrow terminal. */
interface Cell {
  full: string;
  short: string;
}

/** What a person reads in a terminal cell: times in --tz, hashes and JSON whole and shortened, server text made inert. */
function terminalCell(name: string, value: unknown, time: (t: number) => string): Cell {
  const same = (text: string) => ({ full: text, short: text });
  if (typeof value === 'number' && isTimeColumn(name)) return same(time(value));
  if (typeof value === 'string') {
    if (LONG_HEX.test(value)) return { full: value, short: shortenMiddle(value, HEX_SHORT) };
    return same(neutraliseTerminal(value));
  }
  if (value !== null && typeof value === 'object') {
    const json = neutraliseTerminal(jsonText(value));
    return { full: json, short: shortenMiddle(json.replace(LONG_HEX_INSIDE, (hex) => shortenMiddle(hex, HEX_SHORT)), JSON_CELL_MAX) };
  }
  return same(plain(value));
}

/** Terminal tables show local date-times in --tz unless --time-format says otherwise. */
function terminalTime(opts: OutputOptions): (t: number) => string {
  return timeText(timeStyleOf(opts, 'local'), opts.zone) ?? String;
}

/**
 * The cells of a row: a record's status as payrec counts it (a billing whose success
 * is 0 reads "failed (success 0)", whatever its transactionStatus says).
 */
function rowCells(opts: OutputOptions, columns: Column[], time: (t: number) => string): (row: Row) => Cell[] {
  const label = opts.statusLabel;
  return (row) =>
    columns.map((c) => {
      const shown = label && c.name === 'transactionStatus' ? label(row) : undefined;
      return shown !== undefined ? { full: shown, short: shown } : terminalCell(c.name, c.get(row), time);
    });
}

/** Statuses in their colour: the first word says which ("failed (success 0)" is red). */
function paintStatus(paint: ChalkInstance | undefined, name: string, text: string): string {
  const colour = paint && name.endsWith('transactionStatus') ? STATUS_COLOURS[text.split(' ')[0]] : undefined;
  return colour ? paint![colour](text) : text;
}

const DECIMAL_CELL = /^-?\d+(\.\d+)?$/;
/** An amount shown with its decimals cut (cutDecimals): still an amount, never cut further. */
const CUT_DECIMAL_CELL = /^-?\d+\.\d*…$/;
/** Decimal places an answering amount keeps, tried in turn, when its whole digits would push another answer off the table. */
const CUT_PLACES = [8, 6, 4, 2];

/** `1234.567890123456789` with 4 places: `1234.5678…` (the `…` says digits were left out); whole numbers and shorter ones as they are. */
function cutDecimals(text: string, places: number): string {
  const m = /^(-?\d+\.)(\d+)$/.exec(text);
  return m && m[2].length > places ? `${m[1]}${m[2].slice(0, places)}…` : text;
}
/**
 * Columns never cut, whatever they hold: a status, and the token, whose escapes tell
 * look-alikes apart (`USDT\u202e` and `USDT\u{e0041}` both read `USDT\…` cut at 80 columns).
 */
const wholeColumn = (name: string) => name.endsWith('transactionStatus') || name === 'token' || name.endsWith('.token');

/** An escape neutraliseTerminal writes (`\x1b`, `\u202e`, `\u{e0041}`, `\n`): cut as one character, never inside. */
const ESCAPE = /\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]+\}|[nrt])/g;

/**
 * Free text cut to `room` characters, its last one `…`: never inside an escape (nor a
 * surrogate pair), which would leave `\u2…` where two values differ only there.
 */
function cutText(text: string, room: number): string {
  if (text.length <= room) return text;
  let end = Math.max(0, room - 1);
  for (const m of text.matchAll(ESCAPE)) {
    if (m.index >= end) break;
    if (m.index + m[0].length > end) end = m.index;
  }
  if (end > 0 && /[\uD800-\uDBFF]/.test(text[end - 1])) end--;
  return text.slice(0, end) + '…';
}

/** Cells that are never cut: hashes, addresses, numbers, date-times. */
const RIGID_CELL = /^(0x[0-9a-fA-F]+|0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}|-?\d+(\.\d+)?|\d{4}-\d{2}-\d{2}[ T][\d:.+Z-]*)$/;
const DATE_TIME_CELL = /^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}(:?\d{2})?|Z)?)?$/;

interface Fit {
  /** Column widths, padding included; undefined: as wide as their content. */
  widths?: number[];
  /** Indices of the columns shown, in order. */
  shown: number[];
}

const tableWidth = (ws: number[]) => ws.reduce((a, b) => a + b, 0) + ws.length + 1;

/**
 * Column widths (padding included) that fit `width`, and the columns shown. Numbers,
 * timestamps, hashes and statuses are what people compare and copy, so they are never
 * cut, nor their headers: only free text and JSON cells give way, down to `freeMin`
 * (cut with `…` by cli-table3). When even that is too wide, columns are left out
 * (free text first, time columns last, the caller's `keep` after all) rather than
 * showing a truncated amount.
 */
function fitColumns(names: string[], rows: string[][], width: number, freeMin: number, keep: ReadonlySet<string>): Fit {
  const content = names.map((_, i) => rows.reduce((w, r) => Math.max(w, r[i].length), 1) + 2);
  // Time fields by name, and columns of date-times by their values (an SQL result's `month`).
  const time = names.map((n, i) => isTimeColumn(n) || (rows.length > 0 && rows.every((r) => DATE_TIME_CELL.test(r[i]))));
  const rigid = names.map(
    (n, i) => time[i] || wholeColumn(n) || rows.every((r) => r[i].length <= HEX_SHORT || DECIMAL_CELL.test(r[i]) || CUT_DECIMAL_CELL.test(r[i]) || LONG_HEX.test(r[i])),
  );
  const full = names.map((h, i) => Math.max(content[i], h.length + 2));
  // A header is cut only where its column's values are cut too.
  // The first column names the row: kept whole while it takes at most half the width.
  const least = full.map((w, i) => (rigid[i] || content[i] <= freeMin || (i === 0 && w <= width / 2) ? w : freeMin));
  // First decide which columns can be shown at all (at their narrowest), leaving out
  // free text before ids and amounts, then time columns, each from the right, and the
  // first column last of all: it names the row (sync's table, the ledger's subscription)…
  const shown = names.map((_, i) => i);
  // Columns the caller keeps (the ones that answer, most important first) go after all others, the last of them first.
  const kept = [...keep];
  const dropOrder = (i: number) => (keep.has(names[i]) ? 10 + kept.length - kept.indexOf(names[i]) : i === 0 ? 3 : time[i] ? 2 : rigid[i] ? 1 : 0);
  while (shown.length > 1 && tableWidth(shown.map((i) => least[i])) > width) {
    const first = Math.min(...shown.map(dropOrder));
    const drop = shown.filter((i) => dropOrder(i) === first).at(-1)!;
    shown.splice(shown.indexOf(drop), 1);
  }
  // …then give them room: free text gives way, widest first.
  const widths = shown.map((i) => full[i]);
  for (let excess = tableWidth(widths) - width; excess > 0; excess--) {
    const k = widths.reduce((best, w, j) => (w > least[shown[j]] && (best === -1 || w > widths[best]) ? j : best), -1);
    if (k === -1) break;
    widths[k]--;
  }
  return { widths, shown };
}

interface Layout {
  /** The cells' text, row by row, in the form chosen for each column. */
  texts: string[][];
  fit: Fit;
  /** The columns shown shortened (hashes in the middle). */
  short: boolean[];
  /** The decimal places the answering amounts keep (cutDecimals), when their whole digits left an answer out. */
  places?: number;
}

/** A cell's text in the form the layout chose for its column. */
function formOf(cell: Cell, short: boolean, places: number | undefined): string {
  const text = short ? cell.short : cell.full;
  return places === undefined ? text : cutDecimals(text, places);
}

/**
 * Which form each column shows, and how wide: every value whole when the table fits;
 * else free text gives way a little, then columns of ids are shortened (the one that
 * saves most first), then free text gives way to its least; --wide shortens nothing.
 * Last, when the columns that answer (keepColumns) still do not all fit, their amounts
 * keep fewer decimal places, marked `…` (the exact digits are in every other format).
 */
function layout(opts: OutputOptions, names: string[], cells: Cell[][]): Layout {
  const keep = new Set(opts.keepColumns);
  const texts = (short: boolean[], places?: number) => cells.map((r) => r.map((c, i) => formOf(c, short[i], places !== undefined && keep.has(names[i]) ? places : undefined)));
  const short = names.map(() => false);
  const width = opts.width;
  if (opts.wide || !width) return { texts: texts(short), fit: { shown: names.map((_, i) => i) }, short };
  const attempt = (freeMin: number, places?: number): Layout => {
    const t = texts(short, places);
    return { texts: t, fit: fitColumns(names, t, width, freeMin, keep), short, places };
  };
  const whole = (a: { fit: Fit }) => a.fit.shown.length === names.length;
  const longest = (i: number, form: keyof Cell) => cells.reduce((w, r) => Math.max(w, r[i][form].length), 0);
  const saving = names.map((_, i) => longest(i, 'full') - longest(i, 'short'));
  /** A whole value that is cut with `…` where its shortened form would be read whole (JSON with hashes inside). */
  const cutWhole = (a: { fit: Fit }) => a.fit.shown.find((i, k) => !short[i] && saving[i] > 0 && a.fit.widths![k] < longest(i, 'full') + 2);
  let tried = attempt(FREE_TEXT_ROOM);
  for (;;) {
    const left = names.map((_, i) => i).filter((i) => !short[i] && saving[i] > 0);
    const next = !whole(tried) ? left.sort((a, b) => saving[b] - saving[a])[0] : cutWhole(tried);
    if (next === undefined) break;
    short[next] = true;
    tried = attempt(FREE_TEXT_ROOM);
  }
  if (whole(tried)) return tried;
  const answers = names.map((_, i) => i).filter((i) => keep.has(names[i]));
  const answering = (a: Layout) => answers.filter((i) => a.fit.shown.includes(i)).length;
  const least = attempt(MIN_COLUMN_WIDTH);
  for (const places of answering(least) < answers.length ? CUT_PLACES : []) {
    const cut = attempt(MIN_COLUMN_WIDTH, places);
    if (answering(cut) === answers.length) return cut;
  }
  return least;
}

/**
 * The shown columns where some value is not whole: wider than its cell (cli-table3 cuts it
 * with `…`: a detail of doctor's, a description), an amount with fewer decimals
 * (cutDecimals), or JSON shortened to JSON_CELL_MAX. A hash
 * shortened in the middle is not counted: both ends stay, as the guides show it.
 */
function cutColumns(fit: Fit, texts: string[][], cells: Cell[][], short: boolean[]): number[] {
  if (!fit.widths) return [];
  const shortened = (c: Cell) => c.short !== c.full && !LONG_HEX.test(c.full);
  return fit.shown.filter((i, k) => texts.some((r) => r[i].length > fit.widths![k] - 2 || CUT_DECIMAL_CELL.test(r[i])) || (short[i] && cells.some((r) => shortened(r[i]))));
}

function newTable(head: string[], colWidths: number[] | undefined, paint: ChalkInstance | undefined) {
  return new Table({
    head: head.map((h) => (paint ? paint.bold(h) : h)),
    // Colour is applied by us (or not at all), never by cli-table3's own detection.
    style: { head: [], border: [] },
    // No rule between rows: denser, and one record per line is easier to scan.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    ...(colWidths ? { colWidths, wordWrap: false } : {}),
  });
}

/** A list on a terminal. Rows are collected and drawn at the end: a box table needs every cell to size itself. */
export function boxTable(opts: OutputOptions, out: TextOut): RowEmitter {
  const rows: Row[] = [];
  const time = terminalTime(opts);
  const paint = opts.color ? new Chalk({ level: 1 }) : undefined;
  return {
    row: (row) => void rows.push(row),
    end() {
      // Nothing to draw: the caller says so on stderr ("no records match"), as gh does.
      if (rows.length === 0) return;
      const columns = tableColumns(opts, rows[0]);
      const names = columns.map((c) => neutraliseTerminal(c.name));
      const cellsOf = rowCells(opts, columns, time);
      const cells = rows.map(cellsOf);
      const { texts, fit, short } = layout(opts, names, cells);
      const table = newTable(
        fit.shown.map((i) => names[i]),
        fit.widths,
        paint,
      );
      // Cut here rather than by cli-table3, which would cut inside an escape.
      const cut = (i: number, k: number, t: string) => (fit.widths && !RIGID_CELL.test(t) && !wholeColumn(columns[i].name) ? cutText(t, fit.widths[k] - 2) : t);
      for (const r of texts) table.push(fit.shown.map((i, k) => paintStatus(paint, columns[i].name, cut(i, k, r[i]))));
      const hidden = names.filter((_, i) => !fit.shown.includes(i));
      const cutNames = cutColumns(fit, texts, cells, short).map((i) => names[i]);
      const note =
        (hidden.length ? `(${hidden.join(', ')} not shown: too wide; pick fields with --columns, or --wide)\n` : '') +
        (cutNames.length ? `(${cutNames.join(', ')} cut to fit ${opts.width} columns, marked …; -f json shows every value whole)\n` : '');
      return out.push(table.toString() + '\n' + note);
    },
  };
}

/**
 * --follow on a terminal: one table that grows as records come (as `kubectl get -w` and
 * `stripe logs tail`): one header, then each record's line as it arrives, in columns
 * sized by the first record, without box lines, which would need the last row to be
 * drawn. A record stamped before one already printed (a late arrival) is marked `late`.
 */
export function followTable(opts: OutputOptions, out: TextOut): RowEmitter {
  const time = terminalTime(opts);
  const paint = opts.color ? new Chalk({ level: 1 }) : undefined;
  let plan: { columns: Column[]; cellsOf: (row: Row) => Cell[]; shown: number[]; short: boolean[]; widths: number[] } | undefined;
  let newest = -Infinity;
  /** Cells padded to their columns (by the length of their plain text: colour adds none on screen). */
  const line = (cells: string[], widths: number[], plain = cells) => cells.map((t, k) => t + ' '.repeat(Math.max(0, widths[k] - 2 - plain[k].length))).join('  ');
  return {
    row(row) {
      let text = '';
      if (!plan) {
        const columns = tableColumns(opts, row);
        const names = columns.map((c) => neutraliseTerminal(c.name));
        const cellsOf = rowCells(opts, columns, time);
        const { fit, short, texts } = layout(opts, names, [cellsOf(row)]);
        const widths = fit.widths ?? fit.shown.map((i) => Math.max(names[i].length, texts[0][i].length) + 2);
        plan = { columns, cellsOf, shown: fit.shown, short, widths };
        const hidden = names.filter((_, i) => !fit.shown.includes(i));
        if (hidden.length) text += `(${hidden.join(', ')} not shown: too wide; pick fields with --columns, or --wide)\n`;
        const head = line(fit.shown.map((i) => names[i]), widths).trimEnd();
        text += (paint ? paint.bold(head) : head) + '\n';
      }
      const { columns, shown, short, widths } = plan;
      const cells = plan.cellsOf(row);
      const texts = shown.map((i, k) => {
        const t = short[i] ? cells[i].short : cells[i].full;
        // Free text longer than its column is cut; ids, amounts and times never are (they push the line).
        const room = widths[k] - 2;
        return !wholeColumn(columns[i].name) && !RIGID_CELL.test(t) ? cutText(t, Math.max(2, room)) : t;
      });
      const stamp = row.timestamp;
      const late = typeof stamp === 'number' && stamp < newest;
      if (typeof stamp === 'number') newest = Math.max(newest, stamp);
      let cellsText = line(texts.map((t, k) => paintStatus(paint, columns[shown[k]].name, t)), widths, texts);
      if (late) cellsText += `  ${paint ? paint.yellow('late') : 'late'}`;
      return out.push(text + cellsText.trimEnd() + '\n');
    },
    end: () => {},
  };
}

/**
 * A single record on a terminal: one line per field, every value whole. In a box when
 * every value fits on its line; else as plain `field  value` lines, so that no id is
 * ever wrapped across lines between box characters (a mouse copy would break it).
 */
export function fieldValueTable(opts: OutputOptions, out: TextOut): RowEmitter {
  const time = terminalTime(opts);
  const paint = opts.color ? new Chalk({ level: 1 }) : undefined;
  return {
    row(row) {
      const columns = opts.columns ? columnsNamed(opts.columns) : leafPaths(row).map(column);
      const names = columns.map((c) => neutraliseTerminal(c.name));
      const values = rowCells(opts, columns, time)(row).map((c) => c.full);
      const nameWidth = names.reduce((w, n) => Math.max(w, n.length), 5);
      const valueWidth = values.reduce((w, v) => Math.max(w, v.length), 5);
      // │ name │ value │: two borders and a padding of one on each side of both cells, plus the middle border.
      if (!opts.width || nameWidth + valueWidth + 7 <= opts.width) {
        const table = newTable(['field', 'value'], undefined, paint);
        names.forEach((name, i) => table.push([name, paintStatus(paint, columns[i].name, values[i])]));
        return out.push(table.toString() + '\n');
      }
      const line = (name: string, i: number) => `${paint ? paint.bold(name.padEnd(nameWidth)) : name.padEnd(nameWidth)}  ${paintStatus(paint, columns[i].name, values[i])}\n`;
      return out.push(names.map(line).join(''));
    },
    end: () => {},
  };
}
