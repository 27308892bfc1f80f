import Big from 'big.js';
import fc from 'fast-check';
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { offsetAt } from '../../src/core/runtime/zone.js';

const zoneOffsets = (zone: string) => (seconds: number) => offsetAt(seconds, zone);
import { amountNumber, backlogOf, openSheets } from '../../src/core/output/xlsx.js';
import type { SheetColumn } from '../../src/core/output/document.js';

// The pure parts of -f xlsx; the workbook itself is read back by LibreOffice in
// test/e2e/xlsx.test.ts.

const decimal = fc
  .tuple(fc.boolean(), fc.stringMatching(/^(0|[1-9]\d{0,29})$/), fc.option(fc.stringMatching(/^\d{1,20}$/), { nil: undefined }))
  .map(([negative, whole, frac]) => `${negative ? '-' : ''}${whole}${frac === undefined ? '' : `.${frac}`}`);

describe('amountNumber', () => {
  it('is exact exactly when the 15 digits a spreadsheet shows give back the decimal (checked with big.js)', () => {
    fc.assert(
      fc.property(decimal, (text) => {
        const { value, exact } = amountNumber(text);
        expect(value).toBe(Number(text));
        // What a spreadsheet keeps and shows of the number: 15 significant digits.
        expect(exact).toBe(new Big(value.toPrecision(15)).eq(new Big(text)));
      }),
      { numRuns: 2000 },
    );
  });

  it('counts significant digits, not characters', () => {
    expect(amountNumber('5852.2108429019927049')).toEqual({ value: 5852.2108429019927049, exact: false });
    expect(amountNumber('0.000000000000000001').exact).toBe(true);
    expect(amountNumber('1.500000000000000000').exact).toBe(true);
    expect(amountNumber('100000000000000000000000000000').exact).toBe(true);
    expect(amountNumber('123456789012345').exact).toBe(true);
    expect(amountNumber('1234567890123456').exact).toBe(false);
    expect(amountNumber('-0.1234567890123456').exact).toBe(false);
  });
});

/** The offset read from a formatted wall clock (sv-SE prints `2026-10-25 02:30:00`). */
function offsetByLocaleString(seconds: number, timeZone: string): number {
  const wall = new Date(seconds * 1000).toLocaleString('sv-SE', { timeZone }).replace(' ', 'T') + 'Z';
  return Date.parse(wall) / 1000 - seconds;
}

describe('offsetAt, as the xlsx date cells use it', () => {
  const berlin = zoneOffsets('Europe/Berlin');
  const spring = Date.UTC(2026, 2, 29, 1) / 1000; // 02:00 CET becomes 03:00 CEST
  const autumn = Date.UTC(2026, 9, 25, 1) / 1000; // 03:00 CEST becomes 02:00 CET

  it('changes at the exact second daylight saving begins and ends', () => {
    expect([berlin(spring - 1), berlin(spring)]).toEqual([3600, 7200]);
    expect([berlin(autumn - 1), berlin(autumn)]).toEqual([7200, 3600]);
    expect(zoneOffsets('UTC')(spring)).toBe(0);
    expect(zoneOffsets('Asia/Kathmandu')(spring)).toBe(5 * 3600 + 45 * 60);
  });

  it('agrees with the wall clock Intl prints, second by second around the changes and anywhere', () => {
    const zones = ['Europe/Berlin', 'America/St_Johns', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/New_York'];
    const instants = fc.oneof(
      fc.integer({ min: 0, max: 4_102_444_800 }),
      fc.integer({ min: -7200, max: 7200 }).map((d) => spring + d),
      fc.integer({ min: -7200, max: 7200 }).map((d) => autumn + d),
    );
    const offsets = new Map(zones.map((z) => [z, zoneOffsets(z)]));
    fc.assert(
      fc.property(fc.constantFrom(...zones), instants, (zone, seconds) => {
        expect(offsets.get(zone)!(seconds)).toBe(offsetByLocaleString(seconds, zone));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('backlogOf', () => {
  it("finds the zip compressor's input behind an exceljs sheet (the internals flat memory relies on)", async () => {
    const out = new PassThrough();
    out.resume();
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
    const sheet = workbook.addWorksheet('records');
    sheet.addRow(['a', 1]).commit();
    await new Promise((resolve) => setImmediate(resolve));
    const backlog = backlogOf(sheet);
    expect(backlog).toBeDefined();
    expect(typeof backlog!.bytes()).toBe('number');
    sheet.commit();
    await workbook.commit();
  });
});

describe('a workbook of several sheets (openSheets: the close report)', () => {
  it('writes each sheet under its name, in order, its rows as given; one that overflows goes on in "name 2"; what a sheet cannot show is said with its name', async () => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    const done = new Promise((resolve) => out.on('end', resolve));
    const warnings: string[] = [];
    const book = openSheets(out, { rowsPerSheet: 2, warn: (m) => warnings.push(m) });
    const col = (name: string, kind: SheetColumn['kind']): SheetColumn => ({ name, get: (r) => r[name], kind });
    const metrics = [{ month: '2026-01', mrr: '10.5' }, { month: '2026-02', mrr: '12' }];
    const ledger = [{ id: 'a', mrr: '1' }, { id: 'b', mrr: '5852.2108429019927049' }, { id: 'c', mrr: '3' }];
    const first = book.sheet('metrics', [col('month', 'plain'), col('mrr', 'amount')], metrics[0]);
    for (const r of metrics) await first.row(r);
    await first.end();
    const second = book.sheet('ledger', [col('id', 'plain'), col('mrr', 'amount')], ledger[0]);
    for (const r of ledger) await second.row(r);
    await second.end();
    await book.end();
    await done;

    const read = new ExcelJS.Workbook();
    await read.xlsx.load(Buffer.concat(chunks) as unknown as ArrayBuffer);
    const rowsOf = (name: string) => {
      const sheet = read.getWorksheet(name)!;
      const rows: unknown[][] = [];
      sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
      return rows;
    };
    expect(read.worksheets.map((w) => w.name)).toEqual(['metrics', 'ledger', 'ledger 2']);
    expect(rowsOf('metrics')).toEqual([['month', 'mrr', 'mrr_exact'], ['2026-01', 10.5, '10.5'], ['2026-02', 12, '12']]);
    expect(rowsOf('ledger')).toEqual([['id', 'mrr', 'mrr_exact'], ['a', 1, '1'], ['b', 5852.2108429019927049, '5852.2108429019927049']]);
    expect(rowsOf('ledger 2')).toEqual([['id', 'mrr', 'mrr_exact'], ['c', 3, '3']]);
    expect(warnings).toEqual([
      expect.stringMatching(/^sheet "ledger": 1 of 3 amounts have more than the 15 significant digits/),
      'sheet "ledger": 3 rows are in 2 sheets ("ledger" to "ledger 2"): a sheet holds at most 2 rows below its header',
    ]);
  });
});

