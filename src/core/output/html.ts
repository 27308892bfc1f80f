import { formatLocal } from '../runtime/zone.js';
import { jsonText } from './json-text.js';
import type { CellKind, DocumentOptions, SheetColumn, SheetWriter } from './document.js';
import { percentText } from './percent.js';

// -o FILE.html: one self-contained page (formats.ts's html row). It loads nothing (a
// Content-Security-Policy of `default-src 'none'` says so to the browser, and no
// src or href leaves the file), runs no script, and prints on paper as it shows. A
// list is one table; the close report (src/close/page.ts) lays out its cover, its
// waterfalls and its tables with the same pieces. Every value is the exact text the
// JSON holds (amounts never rounded), times local in the document's zone.

/** Text safe inside HTML, attributes included. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const CSS = `
body{font:13px/1.4 system-ui,sans-serif;color:#111;background:#fff;margin:24px}
h1{font-size:20px;margin:0 0 12px}h2{font-size:16px;margin:24px 0 8px}
table{border-collapse:collapse;margin:0 0 16px}
th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top;white-space:nowrap}
th{background:#eee;position:sticky;top:0}
td.n{text-align:right;font-variant-numeric:tabular-nums}
table.cover td{white-space:normal;max-width:900px;word-break:break-all}
svg{display:block;margin:0 0 16px}
@media print{body{margin:0}th{position:static}section{break-inside:avoid-page}thead{display:table-header-group}}
`;

/** The page's head and the body's opening: no request can leave it (CSP), nothing runs. */
export function pageStart(title: string): string {
  return (
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">` +
    `<meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title><style>${CSS}</style></head><body>\n`
  );
}

export const PAGE_END = '</body></html>\n';

/** A cell's text: times local in `zone`, ratios as percentages, the rest as the JSON holds it (amounts' exact digits). */
export function cellText(kind: CellKind, value: unknown, zone: string): string {
  if (value === null || value === undefined) return '';
  if (kind === 'time' && typeof value === 'number') return formatLocal(value, zone);
  if (kind === 'ratio' && typeof value === 'string') return percentText(value);
  return typeof value === 'string' ? value : jsonText(value);
}

/** A table's header row. */
export function tableHead(columns: readonly { name: string }[]): string {
  return `<table><thead><tr>${columns.map((c) => `<th>${escapeHtml(c.name)}</th>`).join('')}</tr></thead><tbody>\n`;
}

/** One row of a table: numbers to the right. */
export function tableRow(columns: readonly SheetColumn[], row: Record<string, unknown>, zone: string): string {
  const cells = columns.map((c) => {
    const value = c.get(row);
    const numeric = c.kind === 'amount' || c.kind === 'ratio' || typeof value === 'number' || typeof value === 'bigint';
    return `<td${numeric && c.kind !== 'time' ? ' class="n"' : ''}>${escapeHtml(cellText(c.kind, value, zone))}</td>`;
  });
  return `<tr>${cells.join('')}</tr>\n`;
}

export const TABLE_END = '</tbody></table>\n';

/** -f html of a list (formats.ts `load`): the rows as one table on a page of their own. */
export function openPage(out: NodeJS.WritableStream, columns: SheetColumn[], _first: Record<string, unknown> | undefined, options: DocumentOptions = {}): SheetWriter {
  const zone = options.timeZone ?? 'UTC';
  let failure: Error | undefined;
  out.once('error', (err: Error) => (failure ??= err));
  const write = (text: string): Promise<void> | void => {
    if (failure) throw failure;
    if (!out.write(text)) return new Promise((resolve) => out.once('drain', resolve));
  };
  void write(pageStart('payrec') + tableHead(columns));
  return {
    row: (row) => write(tableRow(columns, row, zone)),
    async end() {
      await write(TABLE_END + PAGE_END);
      out.end();
    },
  };
}
