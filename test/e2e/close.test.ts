import Big from 'big.js';
import { execa } from 'execa';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { ANCHOR, apiRecords, emulator, payrec, payrecInProcess, program, suiteEmulators, tempDir, until } from './helpers.js';

// payrec close: the month-end close as one workbook, read back by a real spreadsheet
// engine (LibreOffice headless, to flat ODF: each cell's type, value and text) and held,
// sheet by sheet, cell by cell, against the -f json of the command each sheet names
// (metrics, metrics --by plan, subscriptions --at, transfers), run separately against
// the same emulator and mirror with the same pinned instants. Nothing expected here is
// computed by the close: dates are worked out with Date, numbers with big.js.

const office = program('soffice', 'libreoffice-calc-nogui');
const browser = program('chromium', 'chromium');
const s = suiteEmulators();
type Row = Record<string, unknown>;

// The closes run the built binary in processes (files with -o, exit 9 and 11, signals, the
// file's one full sync and the workbook's close --sync); the other closes read copies of that
// one sync (syncedCopy); the commands whose rows a close is held to (metrics, subscriptions,
// transfers -f json of the same mirror), the later syncs and the closes held to their words and exit code alone
// (the as-of one, --rates-missing blank) run in this worker (payrecInProcess, issue 48).

/**
 * The setups of the describes that make a close and read it back (payrec, LibreOffice,
 * chromium: most of this file's time) start together once the emulators are up, and each
 * describe's beforeAll awaits its own: they overlap instead of running one after another
 * (issue 48, the suite's time). A setup that fails fails its describe's beforeAll as before.
 */
const setups: (() => Promise<void>)[] = [];
function setup(run: () => Promise<void>, skip = false): () => Promise<void> {
  let started: Promise<void> | undefined;
  const ready = () => (started ??= run());
  if (!skip) setups.push(ready);
  return ready;
}
// Started here, awaited (and failed) by each describe's own beforeAll; the catch only keeps an early failure from being unhandled.
beforeAll(() => setups.forEach((ready) => void ready().catch(() => {})));

/** One full sync of the emulator for the tests that only read a mirror (each close reads a copy of its own). */
let fullSync: Promise<string> | undefined;
async function syncedCopy(dir: string): Promise<string> {
  fullSync ??= (async () => {
    const db = join(tempDir(), 'mirror.duckdb');
    const sync = await payrec(s.emu, ['sync', '--db', db]);
    expect(sync.exitCode, sync.stderr).toBe(0);
    return db;
  })();
  const db = join(dir, 'mirror.duckdb');
  copyFileSync(await fullSync, db);
  return db;
}

/**
 * The workbooks the setups write, read back by one LibreOffice start (issue 48: a start
 * costs about a second of CPU, each more workbook it reads a tenth of that). A setup hands
 * in, before its first await (the file's beforeAll starts every setup at once), the promise
 * of its workbook; once every workbook handed in together is written (or its setup failed),
 * one soffice converts them all, each to a flat ODF file of its own.
 */
const toRead: { made: Promise<string>; done: (read: Promise<{ exitCode?: number; stderr: string; fods: string }>) => void }[] = [];
function readBack(made: Promise<string>): Promise<{ exitCode?: number; stderr: string; fods: string }> {
  return new Promise((done) => {
    if (toRead.push({ made, done }) === 1) queueMicrotask(() => void readTogether(toRead.splice(0)));
  });
}
async function readTogether(batch: typeof toRead): Promise<void> {
  const dir = tempDir();
  // Copies named by their place: the workbooks all have the same name, and soffice names its output after its input.
  const copies = await Promise.allSettled(
    batch.map(async (b, i) => {
      const file = join(dir, `${i}.xlsx`);
      copyFileSync(await b.made, file);
      return file;
    }),
  );
  const written = copies.flatMap((c) => (c.status === 'fulfilled' ? [c.value] : []));
  const read = written.length ? execa('soffice', [`-env:UserInstallation=file://${join(dir, 'office-profile')}`, '--headless', '--convert-to', 'fods', '--outdir', join(dir, 'read'), ...written], { reject: false }) : undefined;
  batch.forEach((b, i) => b.done(copies[i].status === 'rejected' ? Promise.reject(copies[i].reason) : read!.then((r) => ({ exitCode: r.exitCode, stderr: r.stderr, fods: join(dir, 'read', `${i}.fods`) }))));
}

/** December 2025, the last month before the emulator's now (ANCHOR, 2026-01-01). */
const PERIOD = '2025-12';
const START = ANCHOR - 31 * 86_400;
const END = ANCHOR;

/** A cell as LibreOffice holds it: its type (float, percentage, date, string…), raw value and the text shown. */
interface Cell {
  type?: string;
  value?: string;
  text: string;
}

const unescape = (x: string) => x.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

/** Each table of a flat ODF document: name → rows of cells. */
function tablesOf(xml: string): Map<string, Cell[][]> {
  const tables = new Map<string, Cell[][]>();
  for (const [, name, body] of xml.matchAll(/<table:table table:name="([^"]*)"[^>]*>([\s\S]*?)<\/table:table>/g)) {
    const rows: Cell[][] = [];
    for (const [, row] of body.matchAll(/<table:table-row[^>]*>([\s\S]*?)<\/table:table-row>/g)) {
      const cells: Cell[] = [];
      for (const [, attrs, inner = ''] of row.matchAll(/<table:table-cell([^>]*?)(?:\/>|>([\s\S]*?)<\/table:table-cell>)/g)) {
        const attr = (n: string) => new RegExp(`${n}="([^"]*)"`).exec(attrs)?.[1];
        const date = attr('office:date-value');
        const text = unescape([...inner.matchAll(/<text:p>([\s\S]*?)<\/text:p>/g)].map((m) => m[1]
          .replace(/<text:tab\/>/g, '\t')
          .replace(/<text:line-break\/>/g, '\n')
          .replace(/<text:s(?: text:c="(\d+)")?\/>/g, (_, n) => ' '.repeat(Number(n ?? 1)))
          .replace(/<[^>]+>/g, '')).join('\n'));
        const cell = { type: attr('office:value-type'), value: date ? (date.includes('T') ? date : `${date}T00:00:00`) : attr('office:value'), text };
        const repeat = Number(attr('table:number-columns-repeated') ?? 1);
        if (cell.type || repeat < 100) for (let i = 0; i < repeat; i++) cells.push(cell);
      }
      while (cells.length && !cells.at(-1)!.type) cells.pop();
      if (cells.length) rows.push(cells);
    }
    tables.set(unescape(name), rows);
  }
  return tables;
}

/** `2025-12-01T00:00:00`: the wall clock in UTC that a date cell holds, worked out with Date. */
const wall = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 19);

const RATIOS = ['logo_churn', 'revenue_churn', 'failure_rate'];

/**
 * A sheet against the JSON rows of the command that makes it: the header is the JSON's
 * fields (an `_exact` text column after each money or ratio column), and every cell is
 * the JSON's value: money and ratios as numbers (ratios percent-formatted) beside their
 * exact digits, times as date cells of the same instant, the rest as the same text.
 */
function expectSheet(sheet: Cell[][] | undefined, json: Row[], money: (name: string) => boolean, times: readonly string[]): void {
  expect(sheet, 'the sheet exists').toBeDefined();
  const [header, ...rows] = sheet!;
  const names = header.map((c) => c.text);
  const fields = [...new Set(json.flatMap((r) => Object.keys(r)))];
  expect(names.filter((n) => !n.endsWith('_exact'))).toEqual(expect.arrayContaining(fields));
  expect(rows).toHaveLength(json.length);
  json.forEach((record, i) => {
    const row = rows[i];
    const cell = (name: string): Cell => row[names.indexOf(name)] ?? { text: '' };
    for (const [name, v] of Object.entries(record)) {
      const where = `row ${i + 1} ${name}`;
      if (v === null || v === undefined) {
        expect(cell(name).type, where).toBeUndefined();
        continue;
      }
      if (RATIOS.includes(name)) {
        expect(cell(name).type, where).toBe('percentage');
        expect(new Big(cell(name).value!).eq(new Big(v as string)), where).toBe(true);
        expect(cell(`${name}_exact`).text, where).toBe(v);
      } else if (money(name)) {
        expect(cell(`${name}_exact`).text, where).toBe(v);
        expect(cell(name).type, where).toBe('float');
        // 15 significant digits: what a spreadsheet number holds.
        expect(new Big(cell(name).value!).minus(new Big(v as string)).abs().lte(new Big(v as string).abs().times('1e-14')), where).toBe(true);
      } else if (times.includes(name)) {
        expect(cell(name).type, where).toBe('date');
        expect(cell(name).value, where).toBe(wall(v as number));
      } else if (typeof v === 'number') {
        expect(cell(name).type, where).toBe('float');
        expect(Number(cell(name).value), where).toBe(v);
      } else if (typeof v === 'boolean') {
        // A boolean cell, which LibreOffice shows as TRUE or FALSE.
        expect(cell(name).text.toLowerCase(), where).toBe(String(v));
      } else {
        // XML 1.0 cannot hold most control characters (a hostile record's ESC): a cell holds the rest.
        expect(cell(name).text, where).toBe(String(v).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ''));
      }
    }
  });
}

const METRICS_MONEY = (n: string) => n.startsWith('mrr_') || n === 'recovered_amount' || n === 'collected' || n === 'failed_amount';
const TIME_FIELDS = ['from', 'to', 'started', 'paidThrough', 'lastAttempt', 'cancelledAt', 'endsAt', 'timestamp', 'createdAt', 'updatedAt', 'cycleStart', 'cycleEnd', 'firstFailure'];

describe.skipIf(office.skip)(`payrec close -o FILE.xlsx read back by LibreOffice${office.note}`, () => {
  let dir: string;
  let db: string;
  let close: Awaited<ReturnType<typeof payrec>>;
  let book: Map<string, Cell[][]>;
  let named: Row[];
  const json = async (args: string[]): Promise<Row[]> => {
    const r = await payrecInProcess(s.emu, [...args, '--db', db, '-f', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };

  const ready = setup(async () => {
    office.need();
    dir = tempDir();
    db = join(dir, 'mirror.duckdb');
    const r = await readBack(
      (async () => {
        close = await payrec(s.emu, ['close', PERIOD, '--sync', '--db', db, '--at', String(ANCHOR), '-o', join(dir, 'close.xlsx')]);
        expect(close.exitCode, close.stderr).toBe(0);
        return join(dir, 'close.xlsx');
      })(),
    );
    expect(r.exitCode, r.stderr).toBe(0);
    book = tablesOf(readFileSync(r.fods, 'utf8'));
    named = await apiRecords(s.emu, '/fixed-recurring/short-urls');
  }, office.skip);
  beforeAll(ready, 240_000);

  test('the cover first, then one sheet per part, each with its header frozen', async () => {
    expect(close.stdout).toBe('');
    expect([...book.keys()]).toEqual(['cover', 'metrics', 'metrics by plan', 'movements', 'ledger', 'billings', 'transfers', 'dunning']);
    // Frozen panes: exceljs writes each sheet's pane below row 1.
    const unzipped = await execa('unzip', ['-p', join(dir, 'close.xlsx'), 'xl/worksheets/sheet*.xml'], { reject: false });
    expect(unzipped.stdout.match(/<pane [^>]*ySplit="1"[^>]*state="frozen"/g)).toHaveLength(8);
  });

  test("the cover: the period's instants, as of, synced up to, every plan covered and where it was found, payrec's version", () => {
    const cover = new Map(book.get('cover')!.slice(1).map((r) => [r[0].text, r[1].text]));
    expect(cover.get('period')).toBe(PERIOD);
    expect(cover.get('from')).toBe('2025-12-01 00:00:00 UTC');
    expect(cover.get('to (excluded)')).toBe('2026-01-01 00:00:00 UTC');
    expect(cover.get('as of')).toBe('2026-01-01 00:00:00 UTC');
    // The sync's own instant (the command's clock is not the emulator's): as payrec subscriptions says it of the same mirror.
    expect(close.stderr).toContain(`billings and cancellations synced up to ${cover.get('synced up to')}`);
    expect(cover.get('payrec version')).toBe(pkg.version);
    // The plans the emulator's short urls name (read here with plain HTTP), found by the sync and remembered.
    const plans = [...new Set(named.map((u) => String(u.planId).toLowerCase()))].sort();
    expect(plans.length).toBeLessThan(s.emu.subscriptions('bsc').plans.length);
    expect(cover.get('plans covered')).toBe(`${plans.length}: ${plans.map((p) => `${p} (short url, sync --plan-id)`).join('; ')}`);
    // So the close is incomplete, and says so: on the cover, on stderr, and as a gate with --fail-if-any.
    expect(cover.get('complete')).toMatch(/^no: the 5 plans covered are known from short urls alone: a plan no short url names is left out unseen/);
    expect(close.stderr).toMatch(/^warning: incomplete: the 5 plans covered are known from short urls alone/m);
  });

  test('metrics and metrics by plan: the rows of payrec metrics --period, digit for digit', async () => {
    const at = ['--period', PERIOD, '--at', String(ANCHOR)];
    const [byToken, byPlan] = await Promise.all([json(['metrics', ...at]), json(['metrics', ...at, '--by', 'plan'])]);
    expect(byToken.length).toBeGreaterThan(0);
    expectSheet(book.get('metrics'), byToken, METRICS_MONEY, TIME_FIELDS);
    expectSheet(book.get('metrics by plan'), byPlan, METRICS_MONEY, TIME_FIELDS);
  });

  test('movements: payrec metrics --movements, who moved and by how much', async () => {
    const moves = await json(['metrics', '--period', PERIOD, '--at', String(ANCHOR), '--movements']);
    expect(moves.map((m) => m.kind)).toEqual(expect.arrayContaining(['new', 'churned']));
    expectSheet(book.get('movements'), moves, (n) => n === 'mrr_change', [...TIME_FIELDS, 'instant']);
  });

  test("the ledger: payrec subscriptions --at the period's end", async () => {
    const ledger = await json(['subscriptions', '--at', String(END)]);
    expect(ledger.length).toBeGreaterThan(0);
    expectSheet(book.get('ledger'), ledger, (n) => n === 'amount' || n === 'mrr', TIME_FIELDS);
  });

  test('billings and transfers: payrec transfers --period (and --product fr), outcome included', async () => {
    const [transfers, billings] = await Promise.all([json(['transfers', '--period', PERIOD]), json(['transfers', '--period', PERIOD, '--product', 'fr'])]);
    expect(billings.length).toBeGreaterThan(0);
    expect(billings.every((b) => ['paid', 'failed', 'pending'].includes(b.outcome as string))).toBe(true);
    // Every record stamped in the period and none other: the API's records, read here with plain HTTP.
    expect(transfers.every((t) => (t.timestamp as number) >= START && (t.timestamp as number) < END)).toBe(true);
    const money = (n: string) => ['amount', 'fee', 'serviceFee', 'inputAmount', 'outputAmount'].includes(n);
    expectSheet(book.get('billings'), billings, money, TIME_FIELDS);
    expectSheet(book.get('transfers'), transfers, money, TIME_FIELDS);
  });

  test('dunning: one row per case metrics counts, recovered, lost and open as metrics counts them', async () => {
    const byToken = await json(['metrics', '--period', PERIOD, '--at', String(ANCHOR)]);
    const [header, ...rows] = book.get('dunning')!;
    const col = (name: string) => header.findIndex((c) => c.text === name);
    for (const m of byToken) {
      const mine = rows.filter((r) => r[col('token')].text === m.token);
      const outcome = (o: string) => mine.filter((r) => r[col('outcome')].text === o).length;
      expect([mine.length, outcome('recovered'), outcome('lost'), outcome('open')], String(m.token)).toEqual([m.dunning_cases, m.recovered, m.lost, m.open]);
      const recovered = mine.filter((r) => r[col('outcome')].text === 'recovered').reduce((sum, r) => sum.plus(r[col('amount_exact')].text), new Big(0));
      expect(recovered.eq(new Big(m.recovered_amount as string)), String(m.token)).toBe(true);
    }
    // Each case dated in the period, by its first failure.
    for (const r of rows) expect(r[col('firstFailure')].value! >= wall(START) && r[col('firstFailure')].value! < wall(END)).toBe(true);
  });
});

/** Distinct colours of a PNG (8-bit RGB or RGBA, not interlaced: what chromium writes), decoded here with zlib. */
function pngColours(png: Buffer): number {
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  let width = 0;
  let channels = 0;
  const data: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString();
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      expect(body[8]).toBe(8);
      channels = ({ 2: 3, 6: 4 } as Record<number, number>)[body[9]];
      expect(body[12]).toBe(0);
    }
    if (type === 'IDAT') data.push(body);
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const colours = new Set<number>();
  let previous = Buffer.alloc(stride);
  for (let y = 0; y * (stride + 1) < raw.length; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? line[i - channels] : 0;
      const b = previous[i];
      const c = i >= channels ? previous[i - channels] : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      line[i] = (line[i] + [0, a, b, (a + b) >> 1, paeth][filter]) & 0xff;
    }
    for (let i = 0; i < stride; i += channels) colours.add(line.readUIntBE(i, 3));
    previous = line;
  }
  return colours.size;
}

/** A section's table as the browser holds it: header texts, then each row's cell texts. */
function tableIn(dom: string, sheet: string): string[][] {
  const section = new RegExp(`<section data-sheet="${sheet}">([\\s\\S]*?)</section>`).exec(dom);
  expect(section, `section ${sheet}`).not.toBeNull();
  return [...section![1].matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, tr]) => [...tr.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map(([, td]) => unescape(td)));
}

/** A table's rows against JSON: amounts' exact digits, ratios as percentages of the same digits, times local (UTC), the rest as text. */
function expectTable(table: string[][], json: Row[]): void {
  const [header, ...rows] = table;
  expect(rows).toHaveLength(json.length);
  json.forEach((record, i) => {
    for (const [name, v] of Object.entries(record)) {
      const shown = rows[i][header.indexOf(name)];
      const where = `row ${i + 1} ${name}`;
      if (v === null) expect(shown, where).toBe('');
      else if (RATIOS.includes(name)) expect(shown, where).toBe(`${new Big(v as string).times(100).toFixed()}%`);
      else if (TIME_FIELDS.includes(name) || name === 'instant' || name === 'rateTime') expect(shown, where).toBe(wall(v as number).replace('T', ' '));
      else expect(shown, where).toBe(typeof v === 'string' ? v : JSON.stringify(v));
    }
  });
}

describe.skipIf(browser.skip)(`payrec close -o FILE.html opened in headless chromium${browser.note}`, () => {
  const CHROMIUM = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
  let dir: string;
  let page: string;
  let source: string;
  let dom: string;
  let run: Awaited<ReturnType<typeof payrec>>;
  const json = async (args: string[]): Promise<Row[]> => {
    const r = await payrecInProcess(s.emu, [...args, '--db', join(dir, 'mirror.duckdb'), '-f', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };

  const ready = setup(async () => {
    browser.need();
    dir = tempDir();
    page = join(dir, 'close.html');
    // Over a copy of the file's one full sync (the workbook's close syncs itself).
    run = await payrec(s.emu, ['close', PERIOD, '--db', await syncedCopy(dir), '--at', String(ANCHOR), '-o', page]);
    expect(run.exitCode, run.stderr).toBe(0);
    source = readFileSync(page, 'utf8');
    const r = await execa('chromium', [...CHROMIUM, `--user-data-dir=${join(dir, 'chromium')}`, '--dump-dom', `file://${page}`], { reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    dom = r.stdout;
  }, browser.skip);
  beforeAll(ready, 240_000);

  test('one file that asks for nothing outside it and runs no script: a CSP of default-src none, no src or href, no <script>', () => {
    expect(run.stdout).toBe('');
    expect(source).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`);
    expect(source).not.toMatch(/\s(src|href|action|srcset|xlink:href)=/i);
    expect(source).not.toMatch(/<script|url\(|@import|=\s*["']?\s*(https?:|\/\/)/i);
    // Printable: the page says how it prints.
    expect(source).toContain('@media print');
  });

  test('a waterfall per token, each bar labelled with the exact figure of payrec metrics over the period', async () => {
    const rows = await json(['metrics', '--period', PERIOD, '--at', String(ANCHOR)]);
    const svgs = [...dom.matchAll(/<svg [^>]*data-token="([^"]*)"[^>]*>([\s\S]*?)<\/svg>/g)];
    expect(svgs.map(([, token]) => token)).toEqual(rows.map((r) => r.token));
    for (const [, token, svg] of svgs) {
      const m = rows.find((r) => r.token === token)!;
      const figures = Object.fromEntries([...svg.matchAll(/<g class="step" data-kind="(\w+)">[\s\S]*?<text class="figure"[^>]*>([^<]*)<\/text>/g)].map(([, kind, figure]) => [kind, figure]));
      const churned = new Big(m.mrr_churned as string).eq(0) ? m.mrr_churned : `-${m.mrr_churned}`;
      expect(figures, token).toEqual({ start: m.mrr_start, new: m.mrr_new, reactivated: m.mrr_reactivated, churned, end: m.mrr_end });
      // The waterfall adds up: start + new + reactivated - churned = end, exactly.
      expect(new Big(figures.start).plus(figures.new).plus(figures.reactivated).plus(figures.churned).eq(figures.end), token).toBe(true);
    }
  });

  test("the tables: payrec metrics, metrics --by plan, subscriptions --at the end and transfers, as the browser shows them", async () => {
    const at = ['--period', PERIOD, '--at', String(ANCHOR)];
    const [byToken, byPlan, moves, ledger, transfers] = await Promise.all([
      json(['metrics', ...at]),
      json(['metrics', ...at, '--by', 'plan']),
      json(['metrics', ...at, '--movements']),
      json(['subscriptions', '--at', String(END)]),
      json(['transfers', '--period', PERIOD]),
    ]);
    expectTable(tableIn(dom, 'metrics'), byToken);
    expectTable(tableIn(dom, 'metrics by plan'), byPlan);
    expectTable(tableIn(dom, 'movements'), moves);
    expectTable(tableIn(dom, 'ledger'), ledger);
    expectTable(tableIn(dom, 'transfers'), transfers);
  });

  test('-o FILE.html of any list: one table of the records, the same figures as -f json, and no request outside the file', async () => {
    const list = join(dir, 'ot.html');
    const [r, listed] = await Promise.all([payrec(s.emu, ['ot', 'transfers', '--all', '-o', list]), payrecInProcess(s.emu, ['ot', 'transfers', '--all', '-f', 'json'])]);
    const records = JSON.parse(listed.stdout) as Row[];
    expect(records.length).toBeGreaterThan(0);
    expect(r.exitCode, r.stderr).toBe(0);
    const shown = await execa('chromium', [...CHROMIUM, `--user-data-dir=${join(dir, 'chromium')}`, '--dump-dom', `file://${list}`], { reject: false });
    const rows = [...shown.stdout.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, tr]) => [...tr.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map(([, td]) => unescape(td)));
    expectTable(rows, records);
    expect(readFileSync(list, 'utf8')).toContain(`default-src 'none'`);
  });

  test('a screenshot is not blank: the page draws', async () => {
    const shot = join(dir, 'shot.png');
    const r = await execa('chromium', [...CHROMIUM, `--user-data-dir=${join(dir, 'chromium')}`, `--screenshot=${shot}`, '--window-size=900,900', `file://${page}`], { reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    // White, text, borders, the header's grey and the bars' colours: far more than one.
    expect(pngColours(readFileSync(shot))).toBeGreaterThan(5);
  });
});

describe('payrec close: bad input is exit 2 before anything is read or written', () => {
  test.each([
    [['close', '2025-13', '-o', 'x.xlsx'], /invalid period "2025-13"/],
    [['close', '2025-12', '-o', 'x.csv'], /payrec close writes \.xlsx/],
    [['close', '2025-12'], /give -o FILE\.xlsx/],
    [['close', '2025-12', '-o', 'x.xlsx', '-f', 'xlsx'], /leave out -f/],
  ])('%j', async (args, message) => {
    const dir = tempDir();
    const r = await payrec(s.quiet, [...args, '--db', join(dir, 'none.duckdb')], { cwd: dir });
    expect(r.stderr).toMatch(message);
    expect(r.exitCode).toBe(2);
    expect(s.quiet.requests).toHaveLength(0);
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(join(dir, 'x.xlsx'))).toBe(false);
  });
});

describe('payrec close: incomplete is said, and nothing is half-written', () => {
  test('a period not over and plans known from short urls alone: said on stderr, exit 9 with --fail-if-any, the file written whole', async () => {
    const dir = tempDir();
    const file = join(dir, 'january.xlsx');
    // January 2026 as of its fifth day: the emulator's records end at its now (January 1st).
    const r = await payrec(s.emu, ['close', '2026-01', '--db', await syncedCopy(dir), '--at', String(ANCHOR + 5 * 86_400), '-o', file, '--fail-if-any']);
    expect(r.stderr).toMatch(/^warning: incomplete: the period is not over: its figures are as of 2026-01-06 00:00:00 UTC$/m);
    expect(r.stderr).toMatch(/^warning: incomplete: the 5 plans covered are known from short urls alone/m);
    expect(r.stderr).toMatch(/the close of 2026-01 is incomplete in 2 ways \(--fail-if-any\); the file was written/);
    expect(r.exitCode).toBe(9);
    expect(readFileSync(file).subarray(0, 2).toString()).toBe('PK');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  test('records stamped after the as-of instant: how many, and that they are left out, on the cover and on stderr', async () => {
    const dir = tempDir();
    const file = join(dir, 'december.xlsx');
    // As of December 20th, over a mirror synced to the emulator's now (January 1st).
    const at = ANCHOR - 12 * 86_400;
    // Its words and exit code alone are held: in this worker (January's close above is the process of exit 9 and -o's file).
    const r = await payrecInProcess(s.emu, ['close', PERIOD, '--db', await syncedCopy(dir), '--at', String(at), '-o', file, '--fail-if-any']);
    // The ground truth: the emulator's records of the plans covered (those its short urls name), counted here.
    const plans = [...new Set((await apiRecords(s.emu, '/fixed-recurring/short-urls')).map((u) => String(u.planId)))];
    const ofPlans = async (list: string) => (await Promise.all(plans.map((p) => apiRecords(s.emu, `/fixed-recurring/plans/${p}/${list}`)))).flat() as Row[];
    const billings = (await ofPlans('billings')).filter((b) => (b.timestamp as number) >= at).length;
    const firstCancel = new Map<string, number>();
    for (const c of (await ofPlans('cancellations')).filter((x) => x.transactionStatus === 'confirmed')) {
      firstCancel.set(String(c.subscriptionId), Math.min(firstCancel.get(String(c.subscriptionId)) ?? Infinity, c.timestamp as number));
    }
    const cancellations = [...firstCancel.values()].filter((t) => t >= at).length;
    expect(billings).toBeGreaterThan(0);
    const line = `the mirror holds ${billings} billings and ${cancellations} cancellations stamped at or after the as-of instant 2025-12-20 00:00:00 UTC: left out, as every figure is as of then`;
    expect(r.stderr).toContain(`warning: incomplete: ${line}`);
    expect(r.exitCode).toBe(9);
  });

  // These two wait most of their time on an emulator of their own that answers slowly: they wait at once (issue 48).
  test.concurrent('Ctrl-C while the close reads the transfers: exit 130, and neither the file nor a temporary one is left', async () => {
    const dir = tempDir();
    const db = await syncedCopy(dir);
    const before = readdirSync(dir).sort();
    // The same data served slowly: the close is still walking the transfers when the signal comes.
    const slow = await emulator({ latencyMs: 1500 });
    try {
      const child = payrec(slow, ['close', PERIOD, '--db', db, '--at', String(ANCHOR), '-o', join(dir, 'close.xlsx')]);
      await until('the close asks the API for transfers', () => slow.requests.some((r) => r.path.includes('/transfers') || r.path.includes('/billings')), 60_000);
      // -o is open by then, under a temporary name beside it: what the signal must not leave behind.
      expect(readdirSync(dir).filter((f) => !before.includes(f))).toHaveLength(1);
      child.kill('SIGINT');
      const r = await child;
      expect(r.exitCode, r.stderr).toBe(130);
      expect(readdirSync(dir).sort()).toEqual(before);
    } finally {
      await slow.close();
    }
  });

  test.concurrent('a close killed outright (SIGKILL) leaves its spool folder, which it cannot remove; the next close removes it', async () => {
    const dir = tempDir();
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const db = await syncedCopy(dir);
    // The transfers are walked from the API, served slowly: the close is still reading them when it is killed.
    const spools = () => readdirSync(tmp).filter((f) => f.startsWith('payrec-close-'));
    const slow = await emulator({ latencyMs: 1500 });
    try {
      const child = payrec(slow, ['close', PERIOD, '--db', db, '--at', String(ANCHOR), '-o', join(dir, 'killed.xlsx')], { env: { TMPDIR: tmp } });
      await until('the close asks the API for transfers', () => slow.requests.some((r) => r.path.includes('/transfers') || r.path.includes('/billings')), 60_000);
      child.kill('SIGKILL');
      await child;
      expect(spools()).toHaveLength(1);
      const r = await payrec(s.emu, ['close', PERIOD, '--db', db, '--at', String(ANCHOR), '-o', join(dir, 'next.xlsx')], { env: { TMPDIR: tmp } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(spools()).toEqual([]);
    } finally {
      await slow.close();
    }
  });

  test('a close that fails after -o was opened (no mirror) leaves neither the file nor a temporary one', async () => {
    const dir = tempDir();
    const r = await payrec(s.emu, ['close', '2025-12', '--db', join(dir, 'none.duckdb'), '-o', join(dir, 'close.html')]);
    expect(r.stderr).toMatch(/there is no mirror at/);
    expect(r.exitCode).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });
});

/** Verdicts that are bad (DESIGN.md "On-chain verification"): what the close lists and counts. */
const BAD = ['mismatch', 'missing', 'reverted', 'spoofed', 'reorged'];

describe('payrec close --currency USD --verify: values beside amounts, verdicts on the transfers, the bad ones listed', () => {
  let dir: string;
  let db: string;
  let rates: string;
  let env: Record<string, string>;
  let book: Map<string, Cell[][]>;
  let dom: string;
  let runs: Awaited<ReturnType<typeof payrec>>[];
  // 8PAY has no Chainlink feed and BUSD's is retired (stale): declared pegs in the team's rates file; the other tokens' rates are the emulator chain's feeds.
  const usd = () => ['--currency', 'USD', '--rates', rates];
  const json = async (args: string[]): Promise<Row[]> => {
    const r = await payrecInProcess(s.emu, [...args, '--db', db, '-f', 'json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };
  // The last quarter before the emulator's now: its chain seeded bad transfers of every kind in it, forged ones (spoofed) too.
  const QUARTER = '2025-Q4';
  const at = () => ['--period', QUARTER, '--at', String(ANCHOR)];
  // The chain's head moves while the tests run: one confirmation, so a verdict is the same in the close and in the separate run.
  const ONE = ['--confirmations', '1'];

  const ready = setup(async () => {
    dir = tempDir();
    rates = join(dir, 'rates.csv');
    env = { PAYREC_RPC_URL: s.emu.rpcUrl('bsc') };
    writeFileSync(rates, 'time,chain,token,currency,rate,source\n*,bsc,8PAY,USD,0.0512,peg declared by the test\n*,bsc,BUSD,USD,1.0003,peg declared by the test\n');
    const made = (async () => {
      db = await syncedCopy(dir);
      runs = await Promise.all(['close.xlsx', 'close.html'].map((f) => payrec(s.emu, ['close', QUARTER, '--db', db, '--at', String(ANCHOR), ...usd(), '--verify', ...ONE, '-o', join(dir, f)], { env })));
      for (const r of runs) expect(r.exitCode, r.stderr).toBe(0);
      return join(dir, 'close.xlsx');
    })();
    const [read] = await Promise.all([office.skip ? undefined : readBack(made), made]);
    if (read) {
      expect(read.exitCode, read.stderr).toBe(0);
      book = tablesOf(readFileSync(read.fods, 'utf8'));
    }
    if (!browser.skip) {
      const r = await execa('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', `--user-data-dir=${join(dir, 'chromium')}`, '--dump-dom', `file://${join(dir, 'close.html')}`], { reject: false });
      expect(r.exitCode, r.stderr).toBe(0);
      dom = r.stdout;
    }
  });
  beforeAll(ready, 300_000);

  const VALUE_MONEY = (n: string) => METRICS_MONEY(n) || ['value', 'feeValue', 'rate'].includes(n);

  test.skipIf(office.skip)(`the workbook: metrics, by plan, movements and the ledger in USD are those of metrics and subscriptions --currency USD${office.note}`, async () => {
    const [byToken, byPlan, moves, ledger] = await Promise.all([
      json(['metrics', ...at(), ...usd()]),
      json(['metrics', ...at(), ...usd(), '--by', 'plan']),
      json(['metrics', ...at(), ...usd(), '--movements']),
      json(['subscriptions', '--at', String(END), ...usd()]),
    ]);
    // Across tokens, in the currency: one row a month, token *, with mrr_fx.
    expect(byToken.map((r) => [r.token, r.currency])).toEqual([['*', 'USD'], ['*', 'USD'], ['*', 'USD']]);
    expect(byToken[0]).toHaveProperty('mrr_fx');
    expectSheet(book.get('metrics'), byToken, VALUE_MONEY, TIME_FIELDS);
    expectSheet(book.get('metrics by plan'), byPlan, VALUE_MONEY, TIME_FIELDS);
    expectSheet(book.get('movements'), moves, (n) => n === 'mrr_change' || n === 'value' || n === 'rate', [...TIME_FIELDS, 'instant', 'rateTime']);
    expect(moves.every((m) => m.value !== '' && m.rateSource !== 'missing')).toBe(true);
    expectSheet(book.get('ledger'), ledger, (n) => ['amount', 'mrr', 'value', 'rate'].includes(n), [...TIME_FIELDS, 'rateTime']);
  });

  test.skipIf(office.skip)(`the workbook: transfers carry the values of transfers --currency USD and the verdicts of transfers --verify; the bad ones have a sheet${office.note}`, async () => {
    const transfers = await json(['transfers', '--period', QUARTER, '--verify', ...ONE, ...usd()]);
    // chainDiff is text in a sheet (as transfers --verify -f xlsx writes it) and the head moves between runs (confirmations): held apart below.
    const held = transfers.map(({ chainDiff: _d, confirmations: _c, explorer: _e, ...r }) => r);
    const money = (n: string) => ['amount', 'fee', 'serviceFee', 'inputAmount', 'outputAmount', 'value', 'feeValue', 'rate'].includes(n);
    expectSheet(book.get('transfers'), held, money, [...TIME_FIELDS, 'rateTime']);
    expect(transfers.filter((t) => t.value !== '').length).toBeGreaterThan(0);
    // The bad verdicts: exactly the period's transfers the emulator's chain seeded a bad discrepancy for (its ground truth, read over HTTP).
    const seeded = ((await (await fetch(`${s.emu.url}/_emulator/chain/discrepancies?chain=bsc`)).json()) as { discrepancies: { transactionHash: string; kind: string }[] }).discrepancies;
    const kinds = new Map(seeded.map((d) => [d.transactionHash.toLowerCase(), d.kind]));
    const bad = transfers.filter((t) => BAD.includes(t.verdict as string));
    expect(bad.map((t) => kinds.get(String(t.transactionHash).toLowerCase()))).toEqual(bad.map((t) => t.verdict));
    const expectedBad = transfers.filter((t) => BAD.includes(kinds.get(String(t.transactionHash).toLowerCase()) ?? '') && t.transactionStatus !== 'pending');
    expect(bad.map((t) => t.transactionHash)).toEqual(expectedBad.map((t) => t.transactionHash));
    // A forged record (a look-alike contract's event) is among them.
    expect(bad.map((t) => t.verdict)).toContain('spoofed');
    const [header, ...rows] = book.get('bad verdicts')!;
    expect(rows.map((r) => [r[header.findIndex((c) => c.text === 'transactionHash')].text, r[header.findIndex((c) => c.text === 'verdict')].text])).toEqual(bad.map((t) => [t.transactionHash, t.verdict]));
    // Each says why, in the text transfers --verify -f csv writes.
    expect(rows.every((r) => r[header.findIndex((c) => c.text === 'chainDiff')].text !== '')).toBe(true);
    // On the cover and on stderr: counted, and the close incomplete (a gate with --fail-if-any).
    const cover = new Map(book.get('cover')!.slice(1).map((r) => [r[0].text, r[1].text]));
    const counts = BAD.map((v) => [v, bad.filter((t) => t.verdict === v).length] as const).filter(([, n]) => n > 0);
    expect(cover.get('verified against')).toBe(`the node of bsc (chain id 56): ${bad.length} bad (${[...new Map(bad.map((t) => [t.verdict, 0]))].map(([v]) => `${v} ${counts.find(([k]) => k === v)![1]}`).join(', ')})`);
    expect(cover.get('currency')).toBe("USD: rates from the rates file rates.csv, then Chainlink's feeds of bsc (each value's rate and source beside it)");
    expect(runs[0].stderr).toMatch(new RegExp(`^warning: incomplete: ${bad.length} transfers have bad verdicts`, 'm'));
  });

  test.skipIf(browser.skip)(`the page: one waterfall in USD (start, new, reactivated, churned, fx, end) labelled with metrics --currency USD's exact figures${browser.note}`, async () => {
    // The quarter as one interval: its months' movements added up, by metrics itself.
    const [row] = await json(['metrics', ...at(), '--interval', 'quarter', ...usd()]);
    const svgs = [...dom.matchAll(/<svg [^>]*data-token="([^"]*)" data-currency="USD"[^>]*>([\s\S]*?)<\/svg>/g)];
    expect(svgs.map(([, token]) => token)).toEqual(['*']);
    const figures = Object.fromEntries([...svgs[0][2].matchAll(/<g class="step" data-kind="(\w+)">[\s\S]*?<text class="figure"[^>]*>([^<]*)<\/text>/g)].map(([, kind, figure]) => [kind, figure]));
    const churned = new Big(row.mrr_churned as string).eq(0) ? row.mrr_churned : `-${row.mrr_churned}`;
    expect(figures).toEqual({ start: row.mrr_start, new: row.mrr_new, reactivated: row.mrr_reactivated, churned, fx: row.mrr_fx, end: row.mrr_end });
    expect(new Big(figures.start).plus(figures.new).plus(figures.reactivated).plus(figures.churned).plus(figures.fx).eq(figures.end)).toBe(true);
    const [metricsRows, moves] = await Promise.all([json(['metrics', ...at(), ...usd()]), json(['metrics', ...at(), ...usd(), '--movements'])]);
    expectTable(tableIn(dom, 'metrics'), metricsRows);
    expectTable(tableIn(dom, 'movements'), moves);
  });
});

describe('payrec close --currency: the fx bar, when a rate changes between two cycles of a subscription', () => {
  // The team's rates file, written here: every fixed-recurring token at a constant rate, but
  // BNB at 600 USD until day D and 650 from then, D the day one of its subscriptions renews in
  // the quarter. Only that renewal moves a value without a new, reactivated or churned
  // subscription: mrr_fx is its MRR × 50, and 0 everywhere else.
  const QUARTER = '2025-Q4';
  const MONTHS = [Date.UTC(2025, 9, 1) / 1000, Date.UTC(2025, 10, 1) / 1000, Date.UTC(2025, 11, 1) / 1000, ANCHOR];
  const [BEFORE, AFTER] = [600n, 650n];

  /** Exact decimal text as units of 10^-18 (an amount of at most 18 places, as the API sends). */
  const atto = (d: string): bigint => {
    const [whole, part = ''] = d.split('.');
    expect(part.length, d).toBeLessThanOrEqual(18);
    return BigInt(whole + part.padEnd(18, '0'));
  };
  /** n ÷ d rounded half-even, as the engine rounds an MRR once (DESIGN.md). */
  const halfEven = (n: bigint, d: bigint): bigint => {
    const q = n / d;
    const r = (n % d) * 2n;
    return r > d || (r === d && q % 2n === 1n) ? q + 1n : q;
  };
  /** MRR of `amount` every `seconds`, in 10^-18: ÷ months when the period is a calendar month band, else × the mean month ÷ the period (DESIGN.md). */
  const mrr = (amount: string, seconds: number): bigint => {
    const days = Math.floor((seconds + 43_200) / 86_400);
    const band = [[28, 31, 1n], [56, 62, 2n], [84, 92, 3n], [168, 184, 6n], [360, 366, 12n]].find(([min, max]) => days >= (min as number) && days <= (max as number));
    return band ? halfEven(atto(amount), band[2] as bigint) : halfEven(atto(amount) * 2_629_746n, BigInt(seconds));
  };

  let dir: string;
  let read: { exitCode?: number; stderr: string; fods: string } | undefined;
  /** The fx of the renewals in [from, to), worked out here, in units of 10^-18. */
  let fxOf: (from: number, to: number) => bigint;

  // The closes and the workbook's read-back start with the file's other setups; the test holds what they wrote.
  const ready = setup(async () => {
    const made = (async () => {
      // The emulator's records: every BNB billing of every plan, by subscription, in time order.
      const plans = s.fx.plans['fixed-recurring'];
      const bnb: Row[] = [];
      for (const plan of plans) {
        const billings = (await apiRecords(s.emu, `/fixed-recurring/plans/${plan}/billings`)).filter((b) => b.token === 'BNB');
        if (billings.length === 0) continue;
        bnb.push(...billings);
        // What keeps the rule simple: no failed billing and no cancellation, so each billing renews the cycle before it.
        expect(billings.every((b) => b.success === 1), `plan ${plan}: BNB billings that failed`).toBe(true);
        const ids = new Set(billings.map((b) => b.subscriptionId));
        expect((await apiRecords(s.emu, `/fixed-recurring/plans/${plan}/cancellations`)).filter((c) => ids.has(c.subscriptionId))).toEqual([]);
      }
      const bySubscription = new Map<string, Row[]>();
      for (const b of bnb.sort((x, y) => (x.timestamp as number) - (y.timestamp as number))) bySubscription.set(b.subscriptionId as string, [...(bySubscription.get(b.subscriptionId as string) ?? []), b]);
      const renewals = [...bySubscription.values()].flatMap((list) => list.slice(1).map((next, i) => ({ prev: list[i], next })));
      const inQuarter = renewals.filter(({ next }) => (next.timestamp as number) >= MONTHS[0] && (next.timestamp as number) < ANCHOR);
      expect(inQuarter.length, 'a BNB renewal in the quarter').toBeGreaterThan(0);
      // D: the UTC day of the first renewal in the quarter (its cycle begins that day, the cycle before it a period earlier).
      const day = Math.floor((inQuarter[0].next.cycleStart as number) / 86_400) * 86_400;
      const rate = (t: number) => (t >= day ? AFTER : BEFORE);
      dir = tempDir();
      const rates = join(dir, 'rates.csv');
      writeFileSync(rates, ['time,chain,token,currency,rate,source', '*,bsc,8PAY,USD,0.0512,peg', '*,bsc,BUSD,USD,1,peg', '*,bsc,USDT,USD,1,peg', '*,bsc,USDC,USD,1,peg', `*,bsc,BNB,USD,${BEFORE},test`, `${new Date(day * 1000).toISOString().slice(0, 10)},bsc,BNB,USD,${AFTER},test`, ''].join('\n'));
      // Each renewal whose cycle has another rate than the one it renews moves the subscription's value by its MRR × the difference.
      fxOf = (from: number, to: number) =>
        inQuarter
          .filter(({ next }) => (next.timestamp as number) >= from && (next.timestamp as number) < to)
          .reduce((sum, { prev, next }) => sum + mrr(next.amount as string, (next.cycleEnd as number) - (next.cycleStart as number) + 1) * (rate(next.cycleStart as number) - rate(prev.cycleStart as number)), 0n);
      expect(fxOf(MONTHS[0], ANCHOR) === 0n, 'the fx the test expects is not 0').toBe(false);

      // The node gives the other products' tokens their rates (the fixed-recurring ones are all in the file).
      const env = { PAYREC_RPC_URL: s.emu.rpcUrl('bsc') };
      // Every plan stated: the BNB plan is named by no short url. Synced over a copy of the file's one full sync: only what it lacks is read.
      const every = plans.flatMap((p) => ['--plan-id', p]);
      const db = await syncedCopy(dir);
      expect((await payrecInProcess(s.emu, ['sync', '--db', db, ...every], { env })).exitCode).toBe(0);
      const runs = await Promise.all(['close.xlsx', 'close.html'].map((f) => payrec(s.emu, ['close', QUARTER, '--db', db, ...every, '--at', String(ANCHOR), '--currency', 'USD', '--rates', rates, '-o', join(dir, f)], { env })));
      for (const r of runs) expect(r.exitCode, r.stderr).toBe(0);
      return join(dir, 'close.xlsx');
    })();
    [read] = await Promise.all([office.skip ? undefined : readBack(made), made]);
  });
  beforeAll(ready, 300_000);

  test('the page labels the fx bar, and the workbook holds each month’s mrr_fx, with the figure worked out here from the emulator’s billings and the rates', () => {
    const text = (a: bigint) => new Big(a.toString()).div(new Big(10).pow(18));
    const whole = text(fxOf(MONTHS[0], ANCHOR));

    // The page's waterfall, as written in the file: the fx bar's label, and the bars add up to the end.
    const page = readFileSync(join(dir, 'close.html'), 'utf8');
    const svg = /<svg [^>]*data-token="\*" data-currency="USD"[^>]*>([\s\S]*?)<\/svg>/.exec(page);
    expect(svg, 'the waterfall in USD').not.toBeNull();
    const figures = Object.fromEntries([...svg![1].matchAll(/<g class="step" data-kind="(\w+)">[\s\S]*?<text class="figure"[^>]*>([^<]*)<\/text>/g)].map(([, kind, figure]) => [kind, figure]));
    expect(new Big(figures.fx).eq(whole), `fx bar ${figures.fx}, expected ${whole}`).toBe(true);
    expect(new Big(figures.start).plus(figures.new).plus(figures.reactivated).plus(figures.churned).plus(figures.fx).eq(figures.end)).toBe(true);

    // The workbook: each month's mrr_fx (its exact text beside the number), as worked out here for that month.
    if (office.skip) return;
    expect(read!.exitCode, read!.stderr).toBe(0);
    const [header, ...rows] = tablesOf(readFileSync(read!.fods, 'utf8')).get('metrics')!;
    const col = (name: string) => header.findIndex((c) => c.text === name);
    expect(rows.map((row) => new Big(row[col('mrr_fx_exact')].text).toString())).toEqual([0, 1, 2].map((m) => text(fxOf(MONTHS[m], MONTHS[m + 1])).toString()));
    // The number beside it: the 15 significant digits a spreadsheet number holds.
    rows.forEach((row, m) => {
      const exact = text(fxOf(MONTHS[m], MONTHS[m + 1]));
      expect(new Big(row[col('mrr_fx')].value!).minus(exact).abs().lte(exact.abs().times('1e-14')), `month ${m + 1}: ${row[col('mrr_fx')].value}`).toBe(true);
    });
  });
});

describe('payrec close --currency: a missing rate is exit 11, naming it, and nothing is written', () => {
  test('8PAY has no feed and no rates-file line: exit 11 naming bsc 8PAY → USD with lines to fill, no file and no temporary one', async () => {
    const dir = tempDir();
    const db = await syncedCopy(dir);
    const env = { PAYREC_RPC_URL: s.emu.rpcUrl('bsc') };
    const before = readdirSync(dir).sort();
    const r = await payrec(s.emu, ['close', PERIOD, '--db', db, '--at', String(ANCHOR), '--currency', 'USD', '-o', join(dir, 'close.xlsx')], { env });
    expect(r.exitCode, r.stderr).toBe(11);
    expect(r.stderr).toMatch(/^no usable rate for:$/m);
    expect(r.stderr).toMatch(/^ {2}bsc 8PAY → USD: \d+ records? from /m);
    expect(r.stderr).toMatch(/^time,chain,token,currency,rate,source$/m);
    // A close prints no value, it writes a file: the error says what did not happen (a list's "no value was printed" would be wrong here).
    expect(r.stderr).toMatch(/^error: no usable rate for [\d,]+ figures? \(each pair, and rates-file lines to fill, above\): no file was written$/m);
    expect(r.stderr).not.toContain('no value was printed');
    // As metrics --currency says it (the close asks more: the ledger's cycles too): the pair, and the command says nothing was written.
    const metrics = await payrecInProcess(s.emu, ['metrics', '--period', PERIOD, '--at', String(ANCHOR), '--db', db, '--currency', 'USD'], { env });
    expect(metrics.exitCode).toBe(11);
    expect(metrics.stderr).toMatch(/^ {2}bsc 8PAY → USD: /m);
    expect(metrics.stderr).toMatch(/^error: no usable rate for [\d,]+ figures? \(each pair, and rates-file lines to fill, above\): no value was printed$/m);
    expect(readdirSync(dir).sort()).toEqual(before);

    // --rates-missing blank: the file is written, and the cover says how many rows have no value, as the commands count them.
    const blank = ['--currency', 'USD', '--rates-missing', 'blank'];
    // Its words and exit code alone are held: in this worker, as the rows it is held to.
    const written = await payrecInProcess(s.emu, ['close', PERIOD, '--db', db, '--at', String(ANCHOR), ...blank, '-o', join(dir, 'close.xlsx')], { env });
    expect(written.exitCode, written.stderr).toBe(0);
    const rows = async (args: string[]) => {
      const x = await payrecInProcess(s.emu, [...args, '--db', db, ...blank, '-f', 'json'], { env });
      expect(x.exitCode, x.stderr).toBe(0);
      return (JSON.parse(x.stdout) as Row[]).filter((row) => row.rateSource === 'missing').length;
    };
    const missing = (await rows(['metrics', '--period', PERIOD, '--at', String(ANCHOR), '--movements'])) + (await rows(['subscriptions', '--at', String(END)])) + (await rows(['transfers', '--period', PERIOD]));
    expect(missing).toBeGreaterThan(0);
    expect(written.stderr).toContain(`warning: incomplete: ${missing} rows of the movements, the ledger and the transfers have no usable rate (--rates-missing blank)`);
  });
});
