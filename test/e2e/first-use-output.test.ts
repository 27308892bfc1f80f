import ExcelJS from 'exceljs';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { parseCsv, payrec, suiteEmulators, tempDir } from './helpers.js';

// What a newcomer's first commands print (issue 23): formats from -o's file name, ids
// whole where they fit, a failed billing shown as failed, an empty result said on
// stderr. Ground truth is the emulator's API, read directly here.

vi.setConfig({ testTimeout: 30_000 });

const s = suiteEmulators();
type Rec = Record<string, any>;

/** The API's own answer (not payrec's), for comparison. */
async function api(path: string): Promise<{ data: Rec[]; total: number }> {
  const res = await fetch(`${s.emu.url}/v1/bsc/${path}`, { headers: { authorization: `Bearer ${s.emu.keyFor('bsc')}` } });
  return (await res.json()) as { data: Rec[]; total: number };
}

describe('-o picks the format from its extension', () => {
  test.concurrent('report.xlsx without -f is a workbook with the records (not tab-separated text)', async () => {
    const file = join(tempDir(), 'report.xlsx');
    const r = await payrec(s.emu, ['ot', 'transfers', '--limit', '5', '-o', file]);
    expect(r.exitCode).toBe(0);
    const truth = (await api('one-time/transfers?limit=5')).data;
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(file);
    const sheet = book.worksheets[0];
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    const hashAt = header.indexOf('transactionHash') + 1;
    expect(hashAt).toBeGreaterThan(0);
    const hashes = [];
    for (let i = 2; i <= sheet.rowCount; i++) hashes.push(sheet.getRow(i).getCell(hashAt).value);
    expect(hashes).toEqual(truth.map((t) => t.transactionHash));
  });

  test.concurrent.each([
    ['x.CSV', (text: string, truth: Rec[]) => expect(parseCsv(text).slice(1).map((row) => row[parseCsv(text)[0].indexOf('transactionHash')])).toEqual(truth.map((t) => t.transactionHash))],
    ['x.json', (text: string, truth: Rec[]) => expect(JSON.parse(text)).toEqual(truth)],
    ['x.jsonl', (text: string, truth: Rec[]) => expect(text.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(truth)],
    ['x.NDJSON', (text: string, truth: Rec[]) => expect(text.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(truth)],
    [
      'x.tsv',
      (text: string, truth: Rec[]) => {
        const [head, ...lines] = text.trimEnd().split('\n').map((l) => l.split('\t'));
        expect(head).toContain('transactionHash');
        expect(lines.map((l) => l[head.indexOf('transactionHash')])).toEqual(truth.map((t) => t.transactionHash));
        expect(lines.map((l) => Number(l[head.indexOf('timestamp')]))).toEqual(truth.map((t) => t.timestamp));
      },
    ],
  ])('%s (any case) holds the records in its format', async (name, check) => {
    const file = join(tempDir(), name);
    const r = await payrec(s.emu, ['ot', 'transfers', '--limit', '3', '-o', file]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    check(readFileSync(file, 'utf8'), (await api('one-time/transfers?limit=3')).data);
  });

  test.concurrent('an unknown extension keeps the default: tab-separated text with a header, as a pipe gets it', async () => {
    const file = join(tempDir(), 'x.txt');
    const r = await payrec(s.emu, ['ot', 'transfers', '--limit', '2', '--columns', 'transactionHash,timestamp', '-o', file]);
    expect(r.exitCode).toBe(0);
    const truth = (await api('one-time/transfers?limit=2')).data;
    expect(readFileSync(file, 'utf8')).toBe(`transactionHash\ttimestamp\n${truth.map((t) => `${t.transactionHash}\t${t.timestamp}\n`).join('')}`);
  });

  test.concurrent('-f that agrees with the extension, and -f for a name without one, are fine', async () => {
    const dir = tempDir();
    const agree = await payrec(s.emu, ['ot', 'transfers', '--limit', '1', '-f', 'jsonl', '-o', join(dir, 'a.ndjson')]);
    expect(agree.exitCode).toBe(0);
    const plain = await payrec(s.emu, ['ot', 'transfers', '--limit', '1', '-f', 'csv', '-o', join(dir, 'export')]);
    expect(plain.exitCode).toBe(0);
    expect(readFileSync(join(dir, 'export'), 'utf8')).toMatch(/^transactionHash,|,transactionHash,/);
  });

  test.concurrent.each([
    [['-f', 'csv'], 'report.xlsx', {}, /-f csv contradicts -o ".*report\.xlsx", whose extension means xlsx\nhint: give a file name that ends in \.csv, or leave -f out/],
    [['-f', 'json'], 'r.jsonl', {}, /-f json contradicts -o ".*r\.jsonl", whose extension means jsonl/],
    [['-f', 'table'], 'r.csv', {}, /-f table contradicts -o ".*r\.csv", whose extension means csv\nhint: give a file name that ends in \.tsv/],
    [[], 'r.json', { PAYREC_FORMAT: 'csv' }, /PAYREC_FORMAT=csv contradicts -o ".*r\.json", whose extension means json\nhint: .*or leave PAYREC_FORMAT out/],
  ])('%j with -o %s (env %j) is exit 2 and nothing is sent or written', async (flags, name, env, message) => {
    const file = join(tempDir(), name);
    const r = await payrec(s.quiet, ['ot', 'transfers', ...flags, '-o', file], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(file)).toBe(false);
    // The quiet emulator receives only refused runs: nothing was sent.
    expect(s.quiet.requests).toEqual([]);
  });
});
