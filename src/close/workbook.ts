import type { DocumentOptions } from '../core/output/document.js';
import { column, type Row } from '../core/output/rows.js';
import type { RowsContext, SheetRows, Workbook } from '../core/output/xlsx.js';
import { kindOf, type CloseColumn, type CloseReport, type CloseSheet } from './compose.js';
import type { SpoolFormat } from './spool.js';

// The close as a workbook: the cover first, then one sheet per part (compose.ts), each
// with frozen headers, money as numbers beside its exact text, ratios as percentages
// beside theirs, times as date cells in the report's zone (xlsx.ts openSheets). The
// transfers and billings are rendered as their sheets' XML while the API is walked
// (renderAhead), deflated as they are spooled, and spliced into the workbook's zip as
// they are (core/output/zip-splice.ts).

const sheetColumn = (c: CloseColumn) => ({ ...column(c.name.split('.')), kind: c.kind });

/** A spool's rows rendered as their sheet's XML (spool.ts), columns added as rows bring them. */
class RenderedRows implements SpoolFormat {
  readonly partRows: number;
  readonly deflate = true;

  constructor(readonly rows: SheetRows) {
    this.partRows = rows.context.rowsPerSheet;
  }

  line(row: Row, names: ReadonlySet<string>): string {
    this.sync(names);
    return this.rows.row(row);
  }

  /** Adds the columns of `names` the sheet lacks (new ones come last: see SheetRows). */
  sync(names: ReadonlySet<string>): void {
    if (names.size > this.rows.columns) this.rows.add([...names].slice(this.rows.columns).map((name) => sheetColumn({ name, kind: kindOf(name) })));
  }
}

/** What the workbook's rows rendered ahead share: the zone, and the style ids, of the workbook to come. */
export interface Ahead {
  context: RowsContext;
  /** How many style ids the sheets before them took. */
  kept: number;
  /** The spool format of the sheet `name`, given the sheets before it (their number formats come first, as they will in the workbook). */
  spoolAs(before: readonly CloseSheet[]): (name: string) => SpoolFormat;
}

/** Starts the rows of a workbook to come: `options.timeZone` is the report's zone. */
export async function renderAhead(options: DocumentOptions): Promise<Ahead> {
  const { rowsContext, SheetRows } = await import('../core/output/xlsx.js');
  const context = rowsContext(options);
  const ahead: Ahead = {
    context,
    kept: 0,
    spoolAs(before) {
      // Style ids go by first use: the sheets before take theirs first, as when written.
      for (const sheet of before) {
        const rows = new SheetRows(sheet.name, sheet.columns.map(sheetColumn), context, true);
        for (const batch of sheet.rows as Iterable<readonly Row[]>) for (const row of batch) rows.row(row);
      }
      ahead.kept = context.styles.formats.length;
      return (name) => new RenderedRows(new SheetRows(name, [], context, true));
    },
  };
  return ahead;
}

/**
 * The rows rendered ahead, as their sheets: billings and transfers took their style ids
 * as the walk met them, mixed; they are given again in the order of the sheets (as rows
 * written one sheet after another take them), their XML changed to match when any moves.
 */
async function writeRendered(book: Workbook, sheets: readonly CloseSheet[], ahead: Ahead): Promise<void> {
  const rendered = sheets.map((s) => s.spool!.format as RenderedRows);
  const moved = ahead.context.styles.inOrderOfUse(ahead.kept, rendered.map((f) => f.rows.styleOrder));
  for (const [i, sheet] of sheets.entries()) {
    const spool = sheet.spool!;
    rendered[i].sync(spool.names);
    // Deflated as the walk went, unless its style ids move: then inflated, changed and deflated again.
    await book.rendered(rendered[i].rows, sheet.first, (p) => (moved ? restyledPart(spool.part(p), moved) : spool.deflated(p)));
  }
}

/** A part's bytes with their style ids moved, whole rows at a time (a row's text cut by a chunk waits for the next). */
async function* restyledPart(bytes: AsyncIterable<Buffer>, moved: ReadonlyMap<number, number>): AsyncGenerator<Buffer> {
  const { restyled } = await import('../core/output/xlsx.js');
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of bytes) {
    const text = rest + decoder.decode(chunk, { stream: true });
    const end = text.lastIndexOf('</row>');
    if (end < 0) {
      rest = text;
      continue;
    }
    rest = text.slice(end + '</row>'.length);
    yield Buffer.from(restyled(text.slice(0, end + '</row>'.length), moved));
  }
  yield Buffer.from(restyled(rest + decoder.decode(), moved));
}

export async function writeWorkbook(out: NodeJS.WritableStream, report: CloseReport, options: DocumentOptions, ahead?: Ahead): Promise<void> {
  // exceljs loads only here: the page never needs it.
  const { openSheets } = await import('../core/output/xlsx.js');
  const book = openSheets(out, { ...options, timeZone: report.zone }, ahead?.context);
  const cover = book.sheet('cover', [column(['item']), column(['value'])].map((c) => ({ ...c, kind: 'plain' as const })), report.cover[0] as never);
  for (const line of report.cover) await cover.row(line as never);
  await cover.end();
  const rendered = ahead ? report.sheets.filter((s) => s.spool?.format instanceof RenderedRows) : [];
  for (const part of report.sheets) {
    if (rendered.includes(part)) {
      if (part === rendered[0]) await writeRendered(book, rendered, ahead!);
      continue;
    }
    const sheet = book.sheet(part.name, part.columns.map(sheetColumn), part.first);
    for await (const batch of part.rows) {
      for (const row of batch) {
        // A sheet's row waits only now and then (its pace): no turn of the event loop a row.
        const wait = sheet.row(row);
        if (wait) await wait;
      }
    }
    await sheet.end();
  }
  await book.end();
}
