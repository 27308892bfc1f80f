import JSZip from 'jszip';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../src/core/output/rows.js';
import { kindOf, type CloseReport, type CloseSheet } from '../../src/close/compose.js';
import { JSON_LINES, RowSpool, spoolFolder, type SpoolFormat } from '../../src/close/spool.js';
import { renderAhead, writeWorkbook } from '../../src/close/workbook.js';

// The close's workbook renders its transfers and billings as their sheets' XML while the
// API is walked (close/workbook.ts renderAhead), rather than reading them back from JSON
// lines and rendering them once the walk has ended. Both ways must make the same
// workbook: here the same rows go both ways, through rows that bring new columns late
// (nested ones among them), sheets that overflow into "name 2", times on both sides of
// a change of UTC offset, amounts a spreadsheet rounds and text to escape; every part
// of the two workbooks is compared (docProps/core.xml holds the time it was made), read
// with their CRC-32s checked (the rendered sheets are deflated as they are spooled, and
// spliced into their zip entries: zip-splice.ts).

const ZONE = 'Europe/Berlin';
const ROWS_PER_SHEET = 40;
/** 2026-10-25 01:00 UTC: Berlin goes from +02:00 to +01:00. */
const CHANGE = 1_792_890_000;

function transfers(): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < 130; i++) {
    const row: Row = {
      product: i % 3 === 0 ? 'one-time' : 'fixed-recurring',
      amount: i % 5 === 0 ? `5852.2108429019927${String(i).padStart(3, '0')}` : `${i}.5`,
      token: 'USDT',
      timestamp: CHANGE + 3_600 * 24 - i * 1_800,
      transactionHash: `0x${i.toString(16).padStart(64, '0')}`,
    };
    if (i >= 50) row.route = { from: 'BNB', to: { token: 'USDT', hops: i % 4 } };
    if (i >= 90 && i % 2 === 0) row.memo = ` <a & b> ${i}`;
    rows.push(row);
  }
  return rows;
}

/** The close's report of `rows` as transfers and its fixed-recurring ones as billings, spooled in `format` into `folder`. */
async function reportOf(rows: Row[], folder: string, formatOf: (name: string) => SpoolFormat, before: CloseSheet[]): Promise<CloseReport> {
  const spools = { billings: new RowSpool(join(folder, 'billings'), ['product', 'amount'], formatOf('billings')), transfers: new RowSpool(join(folder, 'transfers'), ['product', 'amount'], formatOf('transfers')) };
  for (const row of rows) {
    await spools.transfers.add(row);
    if (row.product === 'fixed-recurring') await spools.billings.add(row);
  }
  await Promise.all([spools.billings.end(), spools.transfers.end()]);
  const spooled = (name: 'billings' | 'transfers'): CloseSheet => {
    const spool = spools[name];
    return { name, title: name, command: name, columns: [...spool.names].map((n) => ({ name: n, kind: kindOf(n) })), count: spool.count, first: spool.first, rows: spool.batches(), spool };
  };
  return { cover: [{ item: 'period', value: '2026-10' }], incomplete: [], sheets: [...before, spooled('billings'), spooled('transfers')], waterfalls: [], zone: ZONE, discard: () => {} };
}

async function workbookOf(report: CloseReport, ahead?: Awaited<ReturnType<typeof renderAhead>>): Promise<{ parts: Map<string, string>; warnings: string[] }> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve) => out.on('end', resolve));
  const warnings: string[] = [];
  await writeWorkbook(out, report, { rowsPerSheet: ROWS_PER_SHEET, warn: (m) => warnings.push(m) }, ahead);
  await done;
  const zip = await JSZip.loadAsync(Buffer.concat(chunks), { checkCRC32: true });
  const parts = new Map<string, string>();
  for (const name of Object.keys(zip.files).sort()) if (name !== 'docProps/core.xml' && !zip.files[name].dir) parts.set(name, await zip.files[name].async('string'));
  return { parts, warnings };
}

describe('the close workbook with its transfers rendered ahead', () => {
  it('is the workbook of the same rows read back from JSON lines, part for part, warnings included', async () => {
    const rows = transfers();
    // A sheet before them whose cells take number formats first (a percentage, a time), as metrics and movements do.
    const metrics: Row[] = [{ month: '2026-10', mrr: '10.5', logo_churn: '0.25', instant: CHANGE - 60 }];
    const before = (): CloseSheet[] => [{ name: 'metrics', title: 'metrics', command: 'metrics', columns: Object.keys(metrics[0]).map((n) => ({ name: n, kind: kindOf(n) })), count: 1, first: metrics[0], rows: [metrics] }];
    const folder = spoolFolder();
    try {
      const json = await workbookOf(await reportOf(rows, folder.path, () => JSON_LINES, before()));
      const ahead = await renderAhead({ timeZone: ZONE, rowsPerSheet: ROWS_PER_SHEET });
      const sheets = before();
      const rendered = await workbookOf(await reportOf(rows, folder.path, ahead.spoolAs(sheets), sheets), ahead);
      // The cover, metrics, then billings (86 rows) overflow into three sheets and transfers (130) into four: every one compared.
      expect([...json.parts.keys()].filter((p) => p.startsWith('xl/worksheets/sheet'))).toHaveLength(1 + 1 + 3 + 4);
      expect(json.parts.get('xl/styles.xml')).toContain('+02:00');
      expect(json.parts.get('xl/styles.xml')).toContain('+01:00');
      expect([...rendered.parts.keys()]).toEqual([...json.parts.keys()]);
      for (const [name, text] of json.parts) expect(rendered.parts.get(name), name).toBe(text);
      expect(rendered.warnings).toEqual(json.warnings);
      expect(json.warnings).toContainEqual(expect.stringMatching(/^sheet "transfers": 130 rows are in 4 sheets/));
    } finally {
      folder.remove();
    }
  });

  it('with every transfer a billing, so that no style id moves: sheets deflated during the walk, spliced into the zip as they are', async () => {
    // Billings and transfers then meet their formats in the same order: their parts go to the zip as the spool deflated them (zip-splice.ts).
    const rows = transfers().map((r) => ({ ...r, product: 'fixed-recurring' }));
    const folder = spoolFolder();
    try {
      const json = await workbookOf(await reportOf(rows, folder.path, () => JSON_LINES, []));
      const ahead = await renderAhead({ timeZone: ZONE, rowsPerSheet: ROWS_PER_SHEET });
      const rendered = await workbookOf(await reportOf(rows, folder.path, ahead.spoolAs([]), []), ahead);
      // The cover, then billings and transfers (130 rows each) in four sheets each.
      expect([...json.parts.keys()].filter((p) => p.startsWith('xl/worksheets/sheet'))).toHaveLength(1 + 4 + 4);
      expect([...rendered.parts.keys()]).toEqual([...json.parts.keys()]);
      for (const [name, text] of json.parts) expect(rendered.parts.get(name), name).toBe(text);
      expect(rendered.warnings).toEqual(json.warnings);
    } finally {
      folder.remove();
    }
  });

  it('with no transfers: sheets of their header alone, the columns given first', async () => {
    const folder = spoolFolder();
    try {
      const json = await workbookOf(await reportOf([], folder.path, () => JSON_LINES, []));
      const ahead = await renderAhead({ timeZone: ZONE, rowsPerSheet: ROWS_PER_SHEET });
      const rendered = await workbookOf(await reportOf([], folder.path, ahead.spoolAs([]), []), ahead);
      expect(json.parts.get('xl/worksheets/sheet3.xml')).toContain('amount_exact');
      expect([...rendered.parts.keys()]).toEqual([...json.parts.keys()]);
      for (const [name, text] of json.parts) expect(rendered.parts.get(name), name).toBe(text);
    } finally {
      folder.remove();
    }
  });
});
