import Big from 'big.js';
import fc from 'fast-check';
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { offsetAt } from '../../src/core/runtime/zone.js';

const zoneOffsets = (zone: string) => (seconds: number) => offsetAt(seconds, zone);
import { amountNumber, backlogOf } from '../../src/core/output/xlsx.js';

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
