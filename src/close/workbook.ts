import type { DocumentOptions } from '../core/output/document.js';
import { column } from '../core/output/rows.js';
import type { CloseReport } from './compose.js';

// The close as a workbook: the cover first, then one sheet per part (compose.ts), each
// with frozen headers, money as numbers beside its exact text, ratios as percentages
// beside theirs, times as date cells in the report's zone (xlsx.ts openSheets).

export async function writeWorkbook(out: NodeJS.WritableStream, report: CloseReport, options: DocumentOptions): Promise<void> {
  // exceljs loads only here: the page never needs it.
  const { openSheets } = await import('../core/output/xlsx.js');
  const book = openSheets(out, { ...options, timeZone: report.zone });
  const cover = book.sheet('cover', [column(['item']), column(['value'])].map((c) => ({ ...c, kind: 'plain' as const })), report.cover[0] as never);
  for (const line of report.cover) await cover.row(line as never);
  await cover.end();
  for (const part of report.sheets) {
    const sheet = book.sheet(part.name, part.columns.map((c) => ({ ...column(c.name.split('.')), kind: c.kind })), part.first);
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
