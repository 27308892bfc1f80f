import Big from 'big.js';
import { execa } from 'execa';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWriteStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openWorkbook } from '../../src/core/output/xlsx.js';
import type { SheetColumn } from '../../src/core/output/document.js';
import { parseCsv, payrec, program, suiteEmulators, tempDir } from './helpers.js';

// -f xlsx read back by a real spreadsheet engine: LibreOffice (Debian's
// libreoffice-calc-nogui, headless) converts payrec's workbooks, once to CSV as its
// cells are shown and once to flat ODF (.fods), which names each cell's type and value.
// Ground truth is the emulator's own records; expected dates and amounts are worked
// out here (Date, big.js), not by payrec. One soffice run per format for every
// workbook: LibreOffice starts slowly.

const office = program('soffice', 'libreoffice-calc-nogui');
const s = suiteEmulators();
type Rec = Record<string, unknown>;

/** A cell as LibreOffice stored it: its type (float, date, string…) and raw value. */
interface OdsCell {
  type?: string;
  value?: string;
}

/** Tables of a flat ODF document: name → rows of cells (type and raw value only; text comes from the CSV). */
function odsTables(xml: string): Map<string, OdsCell[][]> {
  const tables = new Map<string, OdsCell[][]>();
  for (const [, name, body] of xml.matchAll(/<table:table table:name="([^"]*)"[^>]*>([\s\S]*?)<\/table:table>/g)) {
    const rows: OdsCell[][] = [];
    for (const [, row] of body.matchAll(/<table:table-row[^>]*>([\s\S]*?)<\/table:table-row>/g)) {
      const cells: OdsCell[] = [];
      for (const [, attrs] of row.matchAll(/<table:table-cell([^>]*?)\/?>/g)) {
        const attr = (n: string) => new RegExp(`${n}="([^"]*)"`).exec(attrs)?.[1];
        const date = attr('office:date-value');
        // Midnight is written as the date alone.
        const cell = { type: attr('office:value-type'), value: date ? (date.includes('T') ? date : `${date}T00:00:00`) : attr('office:value') };
        const repeat = Number(attr('table:number-columns-repeated') ?? 1);
        // A run of empty cells to the sheet's edge is not data.
        if (cell.type || repeat < 100) for (let i = 0; i < repeat; i++) cells.push(cell);
      }
      while (cells.length && !cells.at(-1)!.type) cells.pop();
      if (cells.length) rows.push(cells);
    }
    tables.set(name, rows);
  }
  return tables;
}

/** What an xlsx cell can hold of a text: XML 1.0 has no room for most control characters. */
const inCell = (text: string) => text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '');

/** `2026-10-31 23:59:59 +00:00`, worked out with Date. */
function wallClock(seconds: number, offsetHours = 0): string {
  const iso = new Date((seconds + offsetHours * 3600) * 1000).toISOString();
  const sign = offsetHours < 0 ? '-' : '+';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} ${sign}${String(Math.abs(offsetHours)).padStart(2, '0')}:00`;
}

/** Whether a spreadsheet number (15 significant digits) holds the decimal exactly. */
const fitsNumber = (text: string) => new Big(Number(text).toPrecision(15)).eq(new Big(text));

/** Whether `text` is within the rounding of 15 significant digits of `exact`. */
const nearly = (text: string, exact: string) => new Big(text).minus(exact).abs().lte(new Big(exact).abs().times(1e-14));

/** An amount's number cell: exact ones read back as the decimal, the others marked ≈ and within rounding. */
function expectAmount(shown: string, cell: OdsCell, exact: string) {
  expect(cell.type, `${exact} must be a number cell, which SUM counts`).toBe('float');
  if (fitsNumber(exact)) {
    expect(new Big(cell.value!).eq(new Big(exact)), `${cell.value} stored for ${exact}`).toBe(true);
    expect(new Big(shown).eq(new Big(exact)), `${shown} shown for ${exact}`).toBe(true);
  } else {
    // LibreOffice keeps (and writes to .fods) 15 significant digits, its own rounding of the last.
    expect(nearly(cell.value!, exact), `${cell.value} stored for ${exact}`).toBe(true);
    expect(shown.startsWith('≈ ') && nearly(shown.slice(2), exact), `${shown} shown for ${exact}`).toBe(true);
  }
}

interface Readback {
  csv: string[][];
  tables: Map<string, OdsCell[][]>;
}

const dir = tempDir();
const books: Record<string, Readback> = {};
const runs: Record<string, Awaited<ReturnType<typeof payrec>>> = {};

let server: Server | undefined;

/** A service of the test's own: on-demand transfers, `total` of them, from `records`, or 500 from `failFrom` on. */
async function service(records: (offset: number, limit: number) => Rec[], total: number, failFrom = Infinity): Promise<string> {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const limit = Number(url.searchParams.get('limit') ?? 100);
    if (offset >= failFrom) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"message":"internal error"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: records(offset, limit), limit, offset, total }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

function transfer(i: number, amount: unknown = '10.5'): Rec {
  const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');
  return {
    description: 'Plan payment',
    amount,
    fee: '0.1',
    token: 'USDT',
    category: 'Subscription',
    timestamp: 1_760_000_000 - i,
    transactionHash: `0x${hex(i, 64)}`,
    transactionStatus: 'confirmed',
    sender: `0x${hex(1, 40)}`,
    receiver: `0x${hex(2, 40)}`,
    planId: `0x${hex(3, 64)}`,
    subscriptionId: `0x${hex(4, 64)}`,
  };
}

const BERLIN = {
  // Daylight saving ends at 01:00 UTC: 02:59:59 +02:00 is followed by 02:00:00 +01:00.
  lastSummer: Date.UTC(2026, 9, 25, 0, 59, 59) / 1000,
  firstWinter: Date.UTC(2026, 9, 25, 1) / 1000,
  // 23:00 UTC on October 31 is November in Berlin.
  novemberInBerlin: Date.UTC(2026, 9, 31, 23) / 1000,
  lastOctoberSecond: Date.UTC(2026, 9, 31, 22, 59, 59) / 1000,
  // Daylight saving begins: 01:00 UTC is 03:00 +02:00.
  spring: Date.UTC(2026, 2, 29, 1) / 1000,
};

/** Descriptions a cell must keep as sent: white space at the edges, XML's own characters, DEL, Excel's escape look-alike. */
const EDGE_TEXTS = ['  two spaces before', 'a space after ', 'line\nbreak ', 'a & <b> "q"', 'del\u007f', '_x0041_', `${'L'.repeat(32_765)}😀 and more`];
/** What a cell shows of them: the long one cut to a cell's 32,767 characters, ending in … (the emoji's pair is not split). */
const EDGE_SHOWN = [...EDGE_TEXTS.slice(0, -1), `${'L'.repeat(32_765)}…`];
/** A decimal beyond any spreadsheet number (1e400). */
const HUGE_AMOUNT = `1${'0'.repeat(400)}`;
/** Totals per token, status and month; a day; integers beyond 15 digits, alone and in a list. */
const SQL_TOTALS =
  "SELECT token, transactionStatus AS status, date_trunc('month', timestamp) AS month, min(timestamp)::DATE AS first_day, " +
  'SUM(amount) AS total, count(*) AS n, 12345678901234567890::HUGEINT AS big, [12345678901234567890::HUGEINT] AS bigs ' +
  'FROM one_time_transfers GROUP BY ALL ORDER BY token, status, month';

describe.skipIf(office.skip)(`-f xlsx read back by LibreOffice${office.note}`, () => {
  beforeAll(async () => {
    const ot = payrec(s.emu, ['one-time', 'transfers', '--all', '-f', 'xlsx', '-o', join(dir, 'ot.xlsx')]);
    const w2w = payrec(s.emu, ['wallet-to-wallet', 'payments', 'list', '--all', '--flatten', 'receivers', '-f', 'xlsx', '-o', join(dir, 'w2w.xlsx')]);
    [runs.ot, runs.w2w] = await Promise.all([ot, w2w]);

    // A drifting service: one amount is not a decimal string.
    const drifting = await service(() => [transfer(0), transfer(1, '1e5'), transfer(2)], 3);
    runs.drift = await payrec(undefined, ['on-demand', 'transfers', '--all', '-f', 'xlsx', '-o', join(dir, 'drift.xlsx')], {
      env: { PAYREC_BASE_URL: drifting, PAYREC_API_KEY: 'prk_demo_bsc' },
    });
    await new Promise((resolve) => server!.close(resolve));

    // Text at the edges of what a cell holds, and an amount too large for any number.
    const edgy = await service(() => EDGE_TEXTS.map((description, i) => ({ ...transfer(i, i === 0 ? HUGE_AMOUNT : '1'), description })), EDGE_TEXTS.length);
    runs.edges = await payrec(undefined, ['on-demand', 'transfers', '--all', '-f', 'xlsx', '-o', join(dir, 'edges.xlsx')], {
      env: { PAYREC_BASE_URL: edgy, PAYREC_API_KEY: 'prk_demo_bsc' },
    });
    await new Promise((resolve) => server!.close(resolve));

    // A summary and a chart are workbooks too (one table each).
    runs.summary = await payrec(s.emu, ['one-time', 'transfers', '--summary', '-f', 'xlsx', '-o', join(dir, 'summary.xlsx')]);
    runs.chart = await payrec(s.emu, ['one-time', 'transfers', '--chart', 'month', '-f', 'xlsx', '-o', join(dir, 'chart.xlsx')]);

    // --currency: values and rates beside their exact text. EUR on ethereum goes through USD (a fraction
    // of two rounds); 8PAY has no feed, so --rates-missing blank leaves its values empty.
    const valued = ['--chain', 'ethereum', 'one-time', 'transfers', '--period', '2025-12', '--currency', 'EUR', '--rates-missing', 'blank'];
    const rpc = { chain: 'ethereum', env: { PAYREC_RPC_URL: s.emu.rpcUrl('ethereum') } };
    [runs.values, runs.valuesJson] = await Promise.all([payrec(s.emu, [...valued, '-f', 'xlsx', '-o', join(dir, 'values.xlsx')], rpc), payrec(s.emu, [...valued, '-f', 'json'], rpc)]);

    // payrec sql: cells typed from the result's DuckDB types.
    const db = join(dir, 'mirror.duckdb');
    const synced = await payrec(s.emu, ['sync', 'ot/transfers', '--db', db, '-q']);
    expect(synced.exitCode, synced.stderr).toBe(0);
    runs.sql = await payrec(undefined, ['sql', '--db', db, '-f', 'xlsx', '-o', join(dir, 'sql.xlsx'), SQL_TOTALS]);

    // Until --tz reaches it, the zone is the writer's option: times around Berlin's
    // daylight-saving and month changes, three rows a sheet so that a second sheet begins.
    const columns: SheetColumn[] = [
      { name: 'timestamp', get: (r) => r.timestamp, kind: 'time' },
      { name: 'amount', get: (r) => r.amount, kind: 'amount' },
    ];
    const berlinRows = Object.values(BERLIN).map((timestamp) => ({ timestamp, amount: '1' }));
    const file = createWriteStream(join(dir, 'berlin.xlsx'));
    const sheet = openWorkbook(file, columns, berlinRows[0], { timeZone: 'Europe/Berlin', rowsPerSheet: 3 });
    for (const r of berlinRows) await sheet.row(r);
    await sheet.end();

    const profile = `file://${join(dir, 'office-profile')}`;
    const names = ['ot', 'w2w', 'drift', 'edges', 'sql', 'summary', 'chart', 'berlin', 'values'];
    const files = names.map((n) => join(dir, `${n}.xlsx`));
    // UTF-8 (76), cells as shown (the last true): what a person sees in each cell.
    for (const to of ['csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true', 'fods']) {
      const r = await execa('soffice', [`-env:UserInstallation=${profile}`, '--headless', '--convert-to', to, '--outdir', join(dir, 'read'), ...files], { reject: false });
      expect(r.exitCode, r.stderr).toBe(0);
    }
    for (const name of names) {
      books[name] = {
        csv: parseCsv(readFileSync(join(dir, 'read', `${name}.csv`), 'utf8')),
        tables: odsTables(readFileSync(join(dir, 'read', `${name}.fods`), 'utf8')),
      };
    }
  });

  afterAll(() => server?.close());

  test('one sheet, a header row of the CSV columns with an exact-text column after each amount, and every record once', () => {
    expect(runs.ot.exitCode).toBe(0);
    expect(runs.ot.stdout).toBe('');
    const truth = s.emu.records('bsc', 'one-time/transfers').records;
    const { csv, tables } = books.ot;
    expect([...tables.keys()]).toEqual(['records']);
    const fields = Object.keys(truth[0]);
    const header = fields.flatMap((f) => (f === 'amount' || f === 'fee' ? [f, `${f}_exact`] : [f]));
    expect(csv[0]).toEqual(header);
    expect(csv.length - 1).toBe(truth.length);
    const hashes = csv.slice(1).map((row) => row[header.indexOf('transactionHash')]);
    expect(new Set(hashes).size).toBe(truth.length);
    expect(new Set(hashes)).toEqual(new Set(truth.map((r) => r.transactionHash)));
  });

  test('every cell as the emulator sent it: text intact (Café ☕ too), times as date cells, amounts as numbers with their exact text', () => {
    const truth = new Map(s.emu.records('bsc', 'one-time/transfers').records.map((r) => [r.transactionHash as string, r]));
    const { csv, tables } = books.ot;
    const header = csv[0];
    const cells = tables.get('records')!;
    const col = (name: string) => header.indexOf(name);
    let rounded = 0;
    let cafe = 0;
    for (let i = 1; i < csv.length; i++) {
      const shown = csv[i];
      const stored = cells[i];
      const record = truth.get(shown[col('transactionHash')])!;
      for (const [field, value] of Object.entries(record)) {
        const c = col(field);
        if (field === 'timestamp') {
          expect(stored[c]).toEqual({ type: 'date', value: new Date((value as number) * 1000).toISOString().slice(0, 19) });
          expect(shown[c]).toBe(wallClock(value as number));
        } else if (field === 'amount' || field === 'fee') {
          expectAmount(shown[c], stored[c], value as string);
          expect(stored[c + 1].type).toBe('string');
          expect(shown[c + 1]).toBe(value);
          if (!fitsNumber(value as string)) rounded++;
        } else {
          expect(stored[c].type).toBe('string');
          expect(shown[c]).toBe(inCell(value as string));
        }
      }
      if (record.description === 'Café ☕ & croissant 🥐') cafe++;
    }
    // The data meets what the test is about.
    expect(cafe).toBeGreaterThan(0);
    expect(rounded).toBeGreaterThan(0);
    expect(runs.ot.stderr).toContain(`warning: ${rounded} of ${(csv.length - 1) * 2} amounts have more than the 15 significant digits a spreadsheet number holds`);
  });

  test('--flatten receivers: one row per receiver, nested amounts and times typed as at the top', () => {
    expect(runs.w2w.exitCode).toBe(0);
    const truth = s.emu.records('bsc', 'wallet-to-wallet/payments').records;
    const { csv, tables } = books.w2w;
    const header = csv[0];
    expect(header).toContain('receivers.amount_exact');
    const expected: Rec[] = truth.flatMap((p) => (p.receivers as Rec[]).map((rc) => ({ id: p.id, ...rc })));
    expect(csv.length - 1).toBe(expected.length);
    const byKey = new Map(expected.map((e) => [`${e.id} ${e.transactionHash}`, e]));
    const cells = tables.get('records')!;
    for (let i = 1; i < csv.length; i++) {
      const at = (name: string) => header.indexOf(name);
      const e = byKey.get(`${csv[i][at('id')]} ${csv[i][at('receivers.transactionHash')]}`)!;
      expect(csv[i][at('receivers.amount_exact')]).toBe(e.amount);
      expectAmount(csv[i][at('receivers.amount')], cells[i][at('receivers.amount')], e.amount as string);
      expect(cells[i][at('receivers.timestamp')].type).toBe('date');
      expect(csv[i][at('receivers.timestamp')]).toBe(wallClock(e.timestamp as number));
    }
  });

  test('an amount that is not a decimal number: a text cell, named on stderr, never silently outside a SUM', () => {
    expect(runs.drift.exitCode).toBe(0);
    expect(runs.drift.stderr).toContain('warning: 1 amount is not a decimal number a spreadsheet can hold and is a text cell, which a spreadsheet SUM leaves out: amount in row 3\n');
    const { csv, tables } = books.drift;
    const amount = csv[0].indexOf('amount');
    expect(csv.slice(1).map((r) => [r[amount], r[amount + 1]])).toEqual([['10.5', '10.5'], ['1e5', '1e5'], ['10.5', '10.5']]);
    expect(tables.get('records')!.slice(1).map((r) => r[amount].type)).toEqual(['float', 'string', 'float']);
  });

  test('text at the edges of what a cell holds is kept as sent, a text longer than a cell is cut visibly; an amount beyond any number is a text cell; each named on stderr', () => {
    expect(runs.edges.exitCode, runs.edges.stderr).toBe(0);
    const { csv, tables } = books.edges;
    const at = (name: string) => csv[0].indexOf(name);
    const cells = tables.get('records')!.slice(1);
    expect(csv.slice(1).map((r) => r[at('description')])).toEqual(EDGE_SHOWN);
    expect(cells.map((r) => r[at('description')].type)).toEqual(EDGE_TEXTS.map(() => 'string'));
    expect([csv[1][at('amount_exact')], cells[0][at('amount')].type]).toEqual([HUGE_AMOUNT, 'string']);
    expect(cells.slice(1).map((r) => r[at('amount')])).toEqual(EDGE_TEXTS.slice(1).map(() => ({ type: 'float', value: '1' })));
    expect(runs.edges.stderr).toContain('warning: 1 amount is not a decimal number a spreadsheet can hold and is a text cell, which a spreadsheet SUM leaves out: amount in row 2\n');
    expect(runs.edges.stderr).toContain('warning: 1 text is longer than the 32,767 characters a spreadsheet cell holds and was cut, ending in …: description in row 8; -f csv and -f json keep them whole\n');
  });

  test('--summary and --chart: their rows as a workbook, totals per token and status as amounts', () => {
    expect([runs.summary.exitCode, runs.chart.exitCode], runs.summary.stderr + runs.chart.stderr).toEqual([0, 0]);
    const truth = s.emu.records('bsc', 'one-time/transfers').records;
    const totals = new Map<string, { amount: Big; fee: Big; n: number }>();
    for (const r of truth) {
      const key = `${r.token} ${r.transactionStatus}`;
      const t = totals.get(key) ?? { amount: new Big(0), fee: new Big(0), n: 0 };
      totals.set(key, { amount: t.amount.plus(r.amount as string), fee: t.fee.plus(r.fee as string), n: t.n + 1 });
    }
    const { csv, tables } = books.summary;
    expect(csv[0]).toEqual(['token', 'status', 'count', 'amount', 'amount_exact', 'fee', 'fee_exact']);
    expect(csv.length - 1).toBe(totals.size);
    const cells = tables.get('records')!;
    for (let i = 1; i < csv.length; i++) {
      const [token, status, count, amount, amountExact, fee, feeExact] = csv[i];
      const t = totals.get(`${token} ${status}`)!;
      expect([count, amountExact, feeExact]).toEqual([String(t.n), t.amount.toString(), t.fee.toString()]);
      expectAmount(amount, cells[i][3], t.amount.toString());
      expectAmount(fee, cells[i][5], t.fee.toString());
    }
    const months = new Map<string, number>();
    for (const r of truth) {
      const month = new Date((r.timestamp as number) * 1000).toISOString().slice(0, 7);
      months.set(month, (months.get(month) ?? 0) + 1);
    }
    const chart = books.chart.csv;
    expect(chart[0]).toEqual(['period', 'records']);
    expect(new Map(chart.slice(1).filter(([, n]) => n !== '0').map(([p, n]) => [p, Number(n)]))).toEqual(months);
  });

  test('payrec sql: DECIMAL totals are amounts (a number and its exact text), times and dates are date cells, integers beyond 15 digits are marked', () => {
    expect(runs.sql.exitCode, runs.sql.stderr).toBe(0);
    // Ground truth with big.js: totals per token, status and UTC month of the emulator's records.
    const groups = new Map<string, { total: Big; n: number; first: number }>();
    for (const r of s.emu.records('bsc', 'one-time/transfers').records) {
      const key = `${r.token} ${r.transactionStatus} ${new Date((r.timestamp as number) * 1000).toISOString().slice(0, 7)}`;
      const g = groups.get(key) ?? { total: new Big(0), n: 0, first: Infinity };
      groups.set(key, { total: g.total.plus(r.amount as string), n: g.n + 1, first: Math.min(g.first, r.timestamp as number) });
    }
    const { csv, tables } = books.sql;
    expect(csv[0]).toEqual(['token', 'status', 'month', 'first_day', 'total', 'total_exact', 'n', 'big', 'bigs']);
    const cells = tables.get('records')!;
    const keys = csv.slice(1).map(([token, status, month]) => `${token} ${status} ${month.slice(0, 7)}`);
    expect(new Set(keys)).toEqual(new Set(groups.keys()));
    expect(keys.length).toBe(groups.size);
    let rounded = 0;
    for (let i = 1; i < csv.length; i++) {
      const [, , month, firstDay, total, totalExact, n, big, bigs] = csv[i];
      const g = groups.get(keys[i - 1])!;
      expect([month, cells[i][2]]).toEqual([`${month.slice(0, 7)}-01 00:00:00 +00:00`, { type: 'date', value: `${month.slice(0, 7)}-01T00:00:00` }]);
      const day = new Date(g.first * 1000).toISOString().slice(0, 10);
      expect([firstDay, cells[i][3]]).toEqual([day, { type: 'date', value: `${day}T00:00:00` }]);
      expect(totalExact).toBe(g.total.toString());
      expectAmount(total, cells[i][4], g.total.toString());
      if (!fitsNumber(g.total.toString())) rounded++;
      expect([n, cells[i][6]]).toEqual([String(g.n), { type: 'float', value: String(g.n) }]);
      expect([big.startsWith('≈ 1.2345678901234'), cells[i][7].type]).toEqual([true, 'float']);
      expect(bigs).toBe('[12345678901234567890]');
    }
    expect(rounded).toBeGreaterThan(0);
    expect(runs.sql.stderr).toContain(`warning: ${rounded} of ${groups.size} amounts have more than the 15 significant digits a spreadsheet number holds`);
    expect(runs.sql.stderr).toContain('the exact digits are in total_exact (SUM in payrec sql totals them exactly)');
    expect(runs.sql.stderr).toContain(`warning: ${groups.size} integers have more than the 15 digits a spreadsheet number holds (big)`);
  });

  test('--currency: value, feeValue and rate as numbers beside their exact text, a fraction rate as its quotient marked ≈, a missing value empty', () => {
    expect([runs.values.exitCode, runs.valuesJson.exitCode], runs.values.stderr).toEqual([0, 0]);
    const records = JSON.parse(runs.valuesJson.stdout) as Rec[];
    const { csv, tables } = books.values;
    const header = csv[0];
    const at = (name: string) => header.indexOf(name);
    for (const name of ['value', 'feeValue', 'rate']) expect(header[at(name) + 1]).toBe(`${name}_exact`);
    expect(csv.length - 1).toBe(records.length);
    const cells = tables.get('records')!;
    let fractions = 0;
    let blanks = 0;
    for (let i = 1; i < csv.length; i++) {
      const record = records.find((r) => r.transactionHash === csv[i][at('transactionHash')])!;
      if (record.rateSource === 'missing') {
        // Nothing to write: empty cells, not a text a SUM would skip.
        blanks++;
        for (const name of ['value', 'value_exact', 'feeValue', 'feeValue_exact', 'rate', 'rate_exact']) expect([csv[i][at(name)], cells[i][at(name)]?.type]).toEqual(['', undefined]);
        continue;
      }
      for (const name of ['value', 'feeValue']) {
        expect(csv[i][at(`${name}_exact`)]).toBe(record[name]);
        expectAmount(csv[i][at(name)], cells[i][at(name)], record[name] as string);
      }
      const rate = record.rate as string;
      expect(csv[i][at('rate_exact')]).toBe(rate);
      const [n, d] = rate.split('/');
      if (d === undefined) expectAmount(csv[i][at('rate')], cells[i][at('rate')], rate);
      else {
        // The quotient, worked out with big.js to 30 places: the cell holds it to a spreadsheet's 15 digits.
        fractions++;
        const quotient = new Big(n).div(d).toFixed(30);
        expect(cells[i][at('rate')].type).toBe('float');
        expect(nearly(cells[i][at('rate')].value!, quotient)).toBe(true);
        expect(csv[i][at('rate')].startsWith('≈ ')).toBe(true);
      }
      expect(cells[i][at('rateTime')]).toEqual({ type: 'date', value: new Date((record.rateTime as number) * 1000).toISOString().slice(0, 19) });
    }
    // The data meets what the test is about.
    expect([fractions > 0, blanks > 0]).toEqual([true, true]);
    // Number cells: amount and fee of every row, value, feeValue and rate of each valued one; rounded: those past 15 digits, and every fraction.
    const numbers = records.flatMap((r) => [r.amount, r.fee, ...(r.rateSource === 'missing' ? [] : [r.value, r.feeValue, r.rate])] as string[]);
    const rounded = numbers.filter((t) => t.includes('/') || !fitsNumber(t)).length;
    expect(runs.values.stderr).toContain(`warning: ${rounded} of ${numbers.length} amounts have more than the 15 significant digits a spreadsheet number holds`);
    // An empty value is no amount a SUM would miss: never named as one.
    expect(runs.values.stderr).not.toContain('not a decimal number');
  });

  test('a zone: wall-clock date cells with their offset, across daylight saving and a month change; a full sheet continues in the next', () => {
    const { tables } = books.berlin;
    expect([...tables.keys()]).toEqual(['records', 'records 2']);
    const dates = [...tables.values()].flatMap((rows) => rows.slice(1).map((r) => r[0]));
    expect(dates.every((c) => c.type === 'date')).toBe(true);
    expect(dates.map((c) => c.value)).toEqual(['2026-10-25T02:59:59', '2026-10-25T02:00:00', '2026-11-01T00:00:00', '2026-10-31T23:59:59', '2026-03-29T03:00:00']);
    // The CSV conversion shows the first sheet: the offset tells the two 02:xx hours apart.
    expect(books.berlin.csv.slice(1).map((r) => r[0])).toEqual([wallClock(BERLIN.lastSummer, 2), wallClock(BERLIN.firstWinter, 1), wallClock(BERLIN.novemberInBerlin, 1)]);
    expect(tables.get('records 2')![0].map((c) => c.type)).toEqual(['string', 'string', 'string']);
  });
});

describe('-f xlsx needs a file', () => {
  test.concurrent.each([
    ['-f xlsx', ['-f', 'xlsx'], {}, 'use -f csv, json or jsonl'],
    ['PAYREC_FORMAT=xlsx', [], { PAYREC_FORMAT: 'xlsx' }, 'set PAYREC_FORMAT to csv, json or jsonl (or unset it)'],
  ])('%s without -o: exit 2 before any request, nothing on stdout, naming where xlsx came from', async (given, flags, env, fix) => {
    const r = await payrec(s.quiet, ['one-time', 'transfers', ...flags], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: ${given} writes a workbook to a file: give -o FILE.xlsx\nhint: for a terminal or a pipe, ${fix}\n`);
    expect(s.quiet.requests).toEqual([]);
  });

  test.concurrent('--bom with a format other than csv: exit 2, nothing sent', async () => {
    const r = await payrec(s.quiet, ['one-time', 'transfers', '-f', 'xlsx', '-o', join(tempDir(), 'x.xlsx'), '--bom']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('error: --bom is for -f csv (the format is xlsx)\nhint: a workbook needs no byte-order mark\n');
    expect(s.quiet.requests).toEqual([]);
  });
});

describe('--bom', () => {
  test.concurrent('-f csv --bom: the file begins with EF BB BF, then the same bytes as without it', async () => {
    const d = tempDir();
    const [plain, marked] = await Promise.all([
      payrec(s.emu, ['one-time', 'transfers', '--all', '-f', 'csv', '-o', join(d, 'plain.csv')]),
      payrec(s.emu, ['one-time', 'transfers', '--all', '-f', 'csv', '--bom', '-o', join(d, 'bom.csv')]),
    ]);
    expect([plain.exitCode, marked.exitCode]).toEqual([0, 0]);
    const bytes = readFileSync(join(d, 'bom.csv'));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).equals(readFileSync(join(d, 'plain.csv')))).toBe(true);
  });
});

describe('-f xlsx -o is atomic', () => {
  test('a service that fails in the middle of the walk: exit 6, no workbook, no temporary file', async () => {
    const url = await service((offset, limit) => Array.from({ length: limit }, (_, i) => transfer(offset + i)), 20_000, 5000);
    const d = tempDir();
    const r = await payrec(undefined, ['on-demand', 'transfers', '--all', '--retries', '0', '-f', 'xlsx', '-o', join(d, 'transfers.xlsx')], {
      env: { PAYREC_BASE_URL: url, PAYREC_API_KEY: 'prk_demo_bsc' },
    });
    await new Promise((resolve) => server!.close(resolve));
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/^error: .*500/m);
    expect(existsSync(join(d, 'transfers.xlsx'))).toBe(false);
    expect(readdirSync(d)).toEqual([]);
  });
});
