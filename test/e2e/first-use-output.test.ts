import ExcelJS from 'exceljs';
import { execa } from 'execa';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { BIN, parseCsv, payrec, program, suiteEmulators, tempDir } from './helpers.js';

// What a newcomer's first commands print (issue 23): formats from -o's file name, ids
// whole where they fit, a failed billing shown as failed, an empty result said on
// stderr. Ground truth is the emulator's API, read directly here.

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

  test.concurrent('payrec api -o x.csv is refused naming the file, not a -f never typed', async () => {
    const r = await payrec(s.quiet, ['api', 'one-time/transfers', '-o', join(tempDir(), 'x.csv')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/payrec api prints the API's JSON: -o ".*x\.csv" \(csv\) does not apply/);
    expect(s.quiet.requests).toEqual([]);
  });
});

const script = program('script', 'bsdutils');
const onPty = script.skip ? test.concurrent.skip : test.concurrent;

/** Runs payrec on a pseudo-terminal (util-linux `script`) `cols` wide; returns the screen's lines (and stderr apart with `stderr`). */
async function onTerminal(args: string[], cols: number, o: { emu?: Emulator; stderr?: boolean } = {}): Promise<{ lines: string[]; exitCode?: number; stderr?: string }> {
  const target = o.emu ?? s.emu;
  const quoted = args.map((a) => `'${a}'`).join(' ');
  const errFile = o.stderr ? join(tempDir(), 'stderr') : undefined;
  const r = await execa('script', ['-qec', `stty cols ${cols} rows 50; exec node ${BIN} ${quoted}${errFile ? ` 2>${errFile}` : ''}`, '/dev/null'], {
    reject: false,
    stdin: 'ignore',
    extendEnv: false,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', NO_COLOR: '1', PAYREC_CONFIG_DIR: tempDir(), PAYREC_BASE_URL: target.url, PAYREC_API_KEY: target.keyFor('bsc') },
  });
  return { lines: r.stdout.split(/\r?\n/), exitCode: r.exitCode, stderr: errFile ? readFileSync(errFile, 'utf8') : undefined };
}

/** The emulator's complete records of a collection (its ground truth). */
async function truthOf(collection: string): Promise<Rec[]> {
  const res = await fetch(`${s.emu.url}/_emulator/records?chain=bsc&collection=${collection}`);
  return ((await res.json()) as { records: Rec[] }).records;
}

describe('ids you can copy', () => {
  onPty(`--columns at 160 columns: every id whole; at 100 shortened in the middle; --wide whole again${script.note}`, async () => {
    const truth = (await api('one-time/transfers?limit=4')).data;
    const args = ['ot', 'transfers', '--limit', '4', '--columns', 'timestamp,sender,transactionHash'];
    const wide = await onTerminal(args, 160);
    expect(wide.exitCode).toBe(0);
    for (const t of truth) expect(wide.lines.some((l) => l.includes(t.transactionHash) && l.includes(t.sender))).toBe(true);
    expect(wide.lines.join('\n')).not.toContain('…');
    const narrow = await onTerminal(args, 100);
    for (const t of truth) {
      expect(narrow.lines.join('\n')).not.toContain(t.transactionHash);
      expect(narrow.lines.some((l) => l.includes(`${t.transactionHash.slice(0, 6)}…${t.transactionHash.slice(-4)}`))).toBe(true);
    }
    const forced = await onTerminal([...args, '--wide'], 100);
    for (const t of truth) expect(forced.lines.some((l) => l.includes(t.transactionHash))).toBe(true);
  });

  onPty(`a single record: each id on one unbroken line, also at 80 columns${script.note}`, async () => {
    const payment = (await api('one-time?limit=1')).data[0];
    for (const cols of [80, 200]) {
      const { lines, exitCode } = await onTerminal(['ot', 'payments', 'get', payment.id], cols);
      expect(exitCode).toBe(0);
      for (const field of ['id', 'transactionHash', 'sender']) {
        const line = lines.find((l) => l.includes(payment[field]));
        expect(line, `${field} at ${cols} columns`).toBeDefined();
        expect(line!.replace(/[│ ]/g, '')).toBe(`${field}${payment[field]}`);
      }
    }
  });

  onPty(`headers are whole where their values fit: a column is left out rather than its header cut${script.note}`, async () => {
    const args = ['ot', 'transfers', '--limit', '3', '--columns', 'timestamp,transactionStatus'];
    // Whole, the two columns need 43 columns: at 42 the old table cut "transactionStatus" to fit its values.
    const narrow = await onTerminal(args, 42);
    const header = narrow.lines.find((l) => l.includes('timestamp'))!;
    expect(header).not.toContain('…');
    expect(header.split('│').map((h) => h.trim()).filter(Boolean)).toEqual(['timestamp']);
    expect(narrow.lines.join('\n')).toMatch(/\(transactionStatus not shown: too wide; pick fields with --columns, or --wide\)/);
    const room = await onTerminal(args, 43);
    expect(room.lines.find((l) => l.includes('timestamp'))!.split('│').map((h) => h.trim()).filter(Boolean)).toEqual(['timestamp', 'transactionStatus']);
  });
});

describe('a value cut to fit is said', () => {
  onPty(`doctor at 80 columns says which column it cut; at 300 nothing is cut and nothing said${script.note}`, async () => {
    const note = '(detail cut to fit 80 columns, marked …; -f json shows every value whole)';
    const narrow = await onTerminal(['doctor'], 80);
    const rows = narrow.lines.filter((l) => l.includes('│'));
    // The config folder's row names a temporary folder longer than the 48 columns left for details.
    expect(rows.some((l) => /… *│$/.test(l.trimEnd()))).toBe(true);
    expect(narrow.lines).toContain(note);
    const wide = await onTerminal(['doctor'], 300);
    expect(wide.lines.filter((l) => l.includes('│')).join('\n')).not.toContain('…');
    expect(wide.lines.join('\n')).not.toContain('cut to fit');
  });
});

describe('the first column names the row', () => {
  onPty(`sync's report at 70 columns keeps each table's name whole and leaves numbers out instead${script.note}`, async () => {
    const { lines, exitCode } = await onTerminal(['sync', 'ot/transfers', 'w2w/payments', '--db', join(tempDir(), 'm.duckdb')], 70);
    expect(exitCode).toBe(0);
    const cells = (l: string) => l.split('│').map((c) => c.trim()).filter(Boolean);
    const header = cells(lines.find((l) => l.includes('fetched'))!);
    expect(header[0]).toBe('table');
    for (const table of ['one_time_transfers', 'wallet_to_wallet_payments']) expect(lines.some((l) => cells(l)[0] === table), table).toBe(true);
    // What did not fit is said, not cut.
    expect(lines.join('\n')).toMatch(/\(.*note not shown: too wide; pick fields with --columns, or --wide\)/);
    expect(lines.filter((l) => l.includes('│')).join('\n')).not.toContain('…');
  });
});

describe('a billing that failed looks failed', () => {
  onPty(`success 0 with status confirmed reads "failed (success 0)"; csv keeps the API's fields${script.note}`, async () => {
    const billings = await truthOf('fixed-recurring/billings');
    const odd = billings.find((b) => b.success === 0 && b.transactionStatus === 'confirmed')!;
    expect(odd).toBeDefined();
    const args = ['fr', 'billings', '--subscription-id', odd.subscriptionId, '--all', '--columns', 'transactionHash,success,transactionStatus'];
    const { lines } = await onTerminal([...args, '--wide'], 200);
    const line = lines.find((l) => l.includes(odd.transactionHash))!;
    expect(line.split('│').map((c) => c.trim()).filter(Boolean)).toEqual([odd.transactionHash, '0', 'failed (success 0)']);
    // A confirmed one with success 1 still reads confirmed.
    const fine = billings.find((b) => b.subscriptionId === odd.subscriptionId && b.success === 1 && b.transactionStatus === 'confirmed');
    if (fine) expect(lines.find((l) => l.includes(fine.transactionHash))).toMatch(/│ confirmed +│$/);
    const csv = await payrec(s.emu, [...args, '-f', 'csv']);
    expect(parseCsv(csv.stdout).find((r) => r[0] === odd.transactionHash)).toEqual([odd.transactionHash, '0', 'confirmed']);
  });
});

describe('an empty result', () => {
  test.concurrent('piped: stdout keeps its empty document (a CSV header, []) and stderr stays quiet, as gh', async () => {
    const window = ['ot', 'transfers', '--from', '2020-01-01', '--to', '2020-01-02']; // before the emulator's first record
    const csv = await payrec(s.emu, [...window, '-f', 'csv']);
    expect(csv.exitCode).toBe(0);
    expect(csv.stdout).toMatch(/^description,amount,.*\r\n$/);
    expect(csv.stderr).toBe('');
    const json = await payrec(s.emu, [...window, '-f', 'json']);
    expect([json.stdout, json.stderr]).toEqual(['[]\n', '']);
  });

  onPty(`on a terminal: no empty table, "no records match" on stderr; -q silences it${script.note}`, async () => {
    const window = ['ot', 'transfers', '--from', '2020-01-01', '--to', '2020-01-02']; // before the emulator's first record
    const { lines, exitCode, stderr } = await onTerminal(window, 100, { stderr: true });
    expect(exitCode).toBe(0);
    expect(lines.filter(Boolean)).toEqual([]);
    expect(stderr).toBe('no records match\n');
    const quiet = await onTerminal([...window, '-q'], 100, { stderr: true });
    expect([quiet.lines.filter(Boolean), quiet.stderr]).toEqual([[], '']);
  });
});
