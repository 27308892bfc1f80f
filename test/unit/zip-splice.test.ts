import { execa } from 'execa';
import JSZip from 'jszip';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { column, type Row } from '../../src/core/output/rows.js';
import { openSheets, rowsContext, SheetRows } from '../../src/core/output/xlsx.js';
import { crc32Combine, type DeflatedPart } from '../../src/core/output/zip-splice.js';

// The close's sheets of transfers and billings are deflated while the API is walked and
// spliced into their zip entries between exceljs's head and tail of the sheet
// (zip-splice.ts): the entry's CRC-32 is combined from its pieces', its sizes added. The
// workbook so made is read by Info-ZIP's `unzip -t`, a reader payrec does not use, which
// checks every entry's deflate stream, CRC-32 and length; and every part is compared with
// the workbook of the same rows written the ordinary way.

const dir = mkdtempSync(join(tmpdir(), 'payrec-zip-splice-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('crc32Combine', () => {
  it("is zlib's CRC-32 of the two texts one after the other, whatever their lengths", () => {
    // Lengths with every low bit pattern, past a byte, a word and a megabyte: a turn of the squaring too many or too few shows.
    const bytes = Buffer.alloc(4 << 20);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
    for (const [a, b] of [[0, 5], [5, 0], [1, 1], [3, 7], [100, 255], [1000, 4096], [12345, 65537], [1 << 20, (2 << 20) + 3]]) {
      const first = bytes.subarray(0, a);
      const second = bytes.subarray(a, a + b);
      expect(crc32Combine(crc32(first), crc32(second), b), `${a} + ${b}`).toBe(crc32(bytes.subarray(0, a + b)));
    }
  });
});

const ROWS_PER_SHEET = 50;

function records(): Row[] {
  return Array.from({ length: 120 }, (_, i) => ({ id: `t${i}`, amount: `${i}.25`, timestamp: 1_792_890_000 + i * 60, memo: i % 7 === 0 ? ` <a & b> ${'x'.repeat(i)}` : 'plain' }));
}

/** A workbook of the rows as a rendered sheet: each part's XML handed over as bytes, or deflated ahead (`deflate`). */
async function workbook(file: string, deflate: boolean): Promise<void> {
  const context = rowsContext({ timeZone: 'Europe/Berlin', rowsPerSheet: ROWS_PER_SHEET });
  const rows = new SheetRows('transfers', ['id', 'amount', 'timestamp', 'memo'].map((n) => ({ ...column([n]), kind: n === 'amount' ? ('amount' as const) : n === 'timestamp' ? ('time' as const) : ('plain' as const) })), context, true);
  const all = records();
  const parts = [0, 1, 2].map((p) => Buffer.from(all.slice(p * ROWS_PER_SHEET, (p + 1) * ROWS_PER_SHEET).map((r) => rows.row(r)).join('')));
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve) => out.on('end', resolve));
  const book = openSheets(out, { timeZone: 'Europe/Berlin', rowsPerSheet: ROWS_PER_SHEET }, context);
  const cover = book.sheet('cover', [{ ...column(['item']), kind: 'plain' }], { item: 'period' });
  await cover.row({ item: 'period' });
  await cover.end();
  await book.rendered(rows, all[0], (p): AsyncIterable<Buffer> | DeflatedPart => {
    const text = parts[p];
    // Deflated as the spool deflates: level 1, ended by a sync flush, in two streams' worth of chunks.
    if (deflate) return { crc: crc32(text), size: text.length, bytes: (async function* () { yield deflateRawSync(text, { level: 1, finishFlush: constants.Z_SYNC_FLUSH }); })() };
    return (async function* () { yield text; })();
  });
  await book.end();
  await done;
  writeFileSync(file, Buffer.concat(chunks));
}

/** Every part's text but docProps/core.xml (the time it was made), read by JSZip, CRC-32s checked. */
const partsOf = async (file: string) => {
  const zip = await JSZip.loadAsync(readFileSync(file), { checkCRC32: true });
  const names = Object.keys(zip.files).filter((n) => n !== 'docProps/core.xml' && !zip.files[n].dir);
  return new Map(await Promise.all(names.map(async (n) => [n, await zip.files[n].async('string')] as const)));
};

describe('a sheet deflated ahead, spliced into its zip entry', () => {
  it('is a zip entry unzip -t finds sound, its text the sheet written the ordinary way', async () => {
    const plain = join(dir, 'plain.xlsx');
    const spliced = join(dir, 'spliced.xlsx');
    await workbook(plain, false);
    await workbook(spliced, true);
    // unzip -t inflates every entry and checks its CRC-32 and length against the headers.
    const test = await execa('unzip', ['-t', spliced], { reject: false });
    expect(test.stdout + test.stderr).toContain('No errors detected');
    expect(test.exitCode).toBe(0);
    const a = await partsOf(plain);
    const b = await partsOf(spliced);
    // The cover, then transfers in three sheets.
    expect([...a.keys()].filter((n) => n.startsWith('xl/worksheets/sheet'))).toHaveLength(4);
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [name, text] of a) expect(b.get(name), name).toBe(text);
    expect(a.get('xl/worksheets/sheet4.xml')).toContain('t119');
  });
});
