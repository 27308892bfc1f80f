import { Writable } from 'node:stream';
import { stringify as csvStringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/runtime/errors.js';
import { createWriter, validateColumns } from '../../src/core/output/writer.js';
import type { OutputOptions } from '../../src/core/output/options.js';
import { FORMATS } from '../../src/core/output/formats.js';
import { schemaFields } from '../../src/core/output/schema-fields.js';
import * as schemas from '../../src/registry/schemas.js';

const HASH = '0x57b2aa0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f9016bf7';
const ALICE = '0xabababababababababababababababababababab';
const BOB = '0xcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd';

function payment(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: HASH,
    timestamp: 1769860800 + i,
    sender: ALICE,
    description: `order ${i}`,
    token: 'USDT',
    tag: 'shop',
    transactionStatus: 'confirmed',
    transactionHash: HASH,
    receivers: [
      { user: BOB, amount: '1.5', fee: '0.01' },
      { user: ALICE, amount: '-2', fee: '0' },
    ],
    ...extra,
  };
}

const COLUMNS = ['timestamp', 'id', 'sender', 'description', 'token', 'receivers', 'tag', 'transactionStatus'];

const base: OutputOptions = { format: 'json', kind: 'list', defaultColumns: COLUMNS, csvRaw: false, tty: false, color: false, zone: 'UTC' };

function collector(highWaterMark?: number) {
  const chunks: string[] = [];
  const out = new Writable({
    decodeStrings: false,
    highWaterMark,
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      // A slow consumer, so that backpressure shows.
      if (highWaterMark) setImmediate(done);
      else done();
    },
  });
  return { out, text: () => chunks.join('') };
}

async function render(records: Record<string, unknown>[], opts: Partial<OutputOptions>) {
  const { out, text } = collector();
  const writer = createWriter(out, { ...base, ...opts });
  for (const r of records) await writer.write(r);
  await writer.end();
  return { text: text(), count: writer.count };
}

const lines = (text: string, eol = '\n') => text.split(eol).slice(0, -1);

describe('FORMATS', () => {
  it('lists every --format value', () => expect([...FORMATS]).toEqual(['table', 'json', 'jsonl', 'csv', 'xlsx', 'html']));
});

describe('json', () => {
  it('prints [] for no records', async () => {
    expect((await render([], { format: 'json' })).text).toBe('[]\n');
  });

  it('is one valid document across many records, one record per line', async () => {
    const records = Array.from({ length: 2500 }, (_, i) => payment(i));
    const { text, count } = await render(records, { format: 'json' });
    expect(JSON.parse(text)).toEqual(records);
    expect(count).toBe(2500);
    expect(text.split('\n')).toHaveLength(2500 + 3); // [, records, ], trailing newline
  });

  it('keeps amounts as strings and timestamps as numbers', async () => {
    const [r] = JSON.parse((await render([payment(0)], { format: 'json' })).text);
    expect(r.receivers[0].amount).toBe('1.5');
    expect(r.timestamp).toBe(1769860800);
  });

  it('streams: records reach the stream before the list ends', async () => {
    const { out, text } = collector();
    const writer = createWriter(out, { ...base, format: 'json' });
    await writer.write(payment(0));
    await new Promise((r) => setImmediate(r));
    expect(text()).toBe('[\n' + JSON.stringify(payment(0)));
    await writer.end();
    expect(JSON.parse(text())).toEqual([payment(0)]);
  });

  it('prints a single record as a pretty object, not an array', async () => {
    const { text } = await render([payment(0)], { format: 'json', kind: 'single' });
    expect(text).toBe(JSON.stringify(payment(0), null, 2) + '\n');
  });

  it('picks --columns as flat dotted keys, in order, null when missing', async () => {
    const record = { ...payment(0), params: { extra: { banner: 'hi' } } };
    const { text } = await render([record, payment(1)], { format: 'json', columns: ['token', 'params.extra.banner', 'timestamp'] });
    const parsed = JSON.parse(text);
    expect(parsed[0]).toEqual({ token: 'USDT', 'params.extra.banner': 'hi', timestamp: 1769860800 });
    expect(Object.keys(parsed[0])).toEqual(['token', 'params.extra.banner', 'timestamp']);
    expect(parsed[1]['params.extra.banner']).toBeNull();
  });

  it('honours backpressure and keeps every record in order', async () => {
    const { out, text } = collector(16);
    const writer = createWriter(out, { ...base, format: 'json' });
    const records = Array.from({ length: 3000 }, (_, i) => payment(i, { description: 'x'.repeat(100) }));
    let waited = 0;
    for (const r of records) {
      const pending = writer.write(r);
      if (pending) {
        waited++;
        await pending;
      }
    }
    await writer.end();
    expect(waited).toBeGreaterThan(0);
    expect(JSON.parse(text())).toEqual(records);
  });
});

describe('json and jsonl on a terminal', () => {
  const hostile = payment(0, { description: 'txt.\u202eexe \x1b[31m \x9b2J \u0085 \u2066x\u2069 \u2028' });

  it.each(['json', 'jsonl'] as const)('%s writes characters that could act on the terminal as \\u escapes: the same JSON', async (format) => {
    const onTerminal = (await render([hostile], { format, tty: true })).text;
    expect(onTerminal).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
    expect(onTerminal).toContain('txt.\\u202eexe \\u001b[31m \\u009b2J \\u0085 \\u2066x\\u2069 \\u2028');
    const piped = (await render([hostile], { format, tty: false })).text;
    expect(JSON.parse(format === 'json' ? onTerminal : onTerminal.trim())).toEqual(JSON.parse(format === 'json' ? piped : piped.trim()));
    expect(piped).toContain('txt.\u202eexe'); // files and pipes keep JSON.stringify's bytes
  });
});

describe('jsonl', () => {
  it('prints one compact record per line', async () => {
    const records = [payment(0), payment(1)];
    const { text } = await render(records, { format: 'jsonl' });
    expect(lines(text).map((l) => JSON.parse(l))).toEqual(records);
    expect(text).toBe(records.map((r) => JSON.stringify(r) + '\n').join(''));
  });

  it('prints nothing for no records', async () => {
    expect((await render([], { format: 'jsonl' })).text).toBe('');
  });
});

describe('csv', () => {
  it('derives a header from the first record: nested objects dotted, arrays as JSON', async () => {
    const record = { a: 1, nested: { b: 'x', deep: { c: true } }, list: [1, 2], empty: {}, none: null };
    const { text } = await render([record], { format: 'csv' });
    expect(text).toBe('a,nested.b,nested.deep.c,list,empty,none\r\n1,x,true,"[1,2]",{},\r\n');
  });

  it('--bom: the UTF-8 byte-order mark before the header, once, and nothing else changed', async () => {
    const plain = await render([payment(0), payment(1)], { format: 'csv' });
    const marked = await render([payment(0), payment(1)], { format: 'csv', bom: true });
    expect(Buffer.from(marked.text).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(marked.text).toBe(`\uFEFF${plain.text}`);
    // No records but named columns: the header alone, marked; nothing at all otherwise.
    expect((await render([], { format: 'csv', bom: true, columns: ['token'] })).text).toBe('\uFEFFtoken\r\n');
    expect((await render([], { format: 'csv', bom: true })).text).toBe('');
  });

  it('ends every record with CRLF (RFC 4180)', async () => {
    const { text } = await render([payment(0), payment(1)], { format: 'csv', columns: ['token', 'tag'] });
    expect(text).toBe('token,tag\r\nUSDT,shop\r\nUSDT,shop\r\n');
  });

  it('ends a record with no field with CRLF too: an empty line, never a record lost', async () => {
    // Mutant killed: the line's end joined to a last cell that a record of no columns does not have.
    const { text } = await render([{}, {}], { format: 'csv' });
    expect(text).toBe('\r\n\r\n\r\n');
  });

  it('quotes commas, quotes and line breaks, and keeps emoji and right-to-left text as they are', async () => {
    const cells = ['a,b', 'say "hi"', 'two\nlines', 'cr\ronly', 'crlf\r\n', '🎉 emoji', 'مرحبا', 'plain', '', ' padded '];
    const record = Object.fromEntries(cells.map((c, i) => [`c${i}`, c]));
    const { text } = await render([record], { format: 'csv', csvRaw: true });
    expect(text).toBe(
      'c0,c1,c2,c3,c4,c5,c6,c7,c8,c9\r\n"a,b","say ""hi""","two\nlines","cr\ronly","crlf\r\n",🎉 emoji,مرحبا,plain,, padded \r\n',
    );
    // The same bytes csv-stringify writes for RFC 4180 with CRLF.
    expect(text).toBe(csvStringify([Object.keys(record), cells], { record_delimiter: 'windows', quote_record_delimiter: true, quoted_match: ';' }));
  });

  it('quotes a field holding ";" (Excel in ";" locales would split x;=2+2;y into a formula cell), with and without --csv-raw', async () => {
    // Mutant killed: NEEDS_QUOTES without ";".
    for (const csvRaw of [false, true]) {
      const { text } = await render([{ a: 'x;=2+2;y', b: 'plain' }], { format: 'csv', csvRaw });
      expect(text).toBe('a,b\r\n"x;=2+2;y",plain\r\n');
    }
  });

  it('neutralises formulas in text cells but leaves decimal amounts and numbers alone', async () => {
    const record = { f1: '=HYPERLINK("http://evil")', f2: '+1', f3: '@SUM(A1)', f4: '-cmd', f5: '\tx', amount: '-12.5', n: -3 };
    const { text } = await render([record], { format: 'csv' });
    expect(lines(text, '\r\n')[1]).toBe(`"'=HYPERLINK(""http://evil"")",'+1,'@SUM(A1),'-cmd,'\tx,-12.5,-3`);
  });

  it('--csv-raw turns neutralisation off', async () => {
    const { text } = await render([{ f: '=1+1', g: '-x' }], { format: 'csv', csvRaw: true });
    expect(text).toBe('f,g\r\n=1+1,-x\r\n');
  });

  it('neutralises formulas in header names taken from the server', async () => {
    const { text } = await render([{ '=evil': 1 }], { format: 'csv' });
    expect(lines(text, '\r\n')[0]).toBe("'=evil");
  });

  it('uses --columns, in order, with empty cells for missing fields', async () => {
    const { text } = await render([payment(0)], { format: 'csv', columns: ['tag', 'missing', 'timestamp'] });
    expect(text).toBe('tag,missing,timestamp\r\nshop,,2026-01-31 12:00:00\r\n');
  });

  it('prints only the header for no records with --columns, and nothing without', async () => {
    expect((await render([], { format: 'csv', columns: ['a', 'b.c'] })).text).toBe('a,b.c\r\n');
    expect((await render([], { format: 'csv' })).text).toBe('');
  });

  it('keeps full values (no shortening); times as date-times in the zone, or as --time-format says', async () => {
    const csvLine = async (o: Partial<OutputOptions>) => lines((await render([payment(0)], { format: 'csv', columns: ['id', 'timestamp'], ...o })).text, '\r\n')[1];
    expect(await csvLine({})).toBe(`${HASH},2026-01-31 12:00:00`);
    expect(await csvLine({ zone: 'Europe/Berlin' })).toBe(`${HASH},2026-01-31 13:00:00`);
    expect(await csvLine({ timeFormat: 'unix' })).toBe(`${HASH},1769860800`);
    expect(await csvLine({ timeFormat: 'iso', zone: 'America/New_York' })).toBe(`${HASH},2026-01-31T07:00:00-05:00`);
  });

  it('json keeps Unix seconds unless --time-format iso, which turns every time field (nested ones too) into text', async () => {
    const record = { timestamp: 1769860800, amount: '1', receivers: [{ timestamp: 1769860801, amount: '2' }] };
    expect(JSON.parse((await render([record], { format: 'json' })).text)).toEqual([record]);
    const iso = JSON.parse((await render([record], { format: 'jsonl', timeFormat: 'iso', zone: 'Europe/Berlin' })).text);
    expect(iso).toEqual({ timestamp: '2026-01-31T13:00:00+01:00', amount: '1', receivers: [{ timestamp: '2026-01-31T13:00:01+01:00', amount: '2' }] });
  });
});

describe('--flatten', () => {
  it('gives one csv row per element, parent fields repeated, element fields dotted', async () => {
    const { text, count } = await render([payment(0)], { format: 'csv', flatten: 'receivers', columns: ['id', 'receivers.user', 'receivers.amount'] });
    expect(text).toBe(`id,receivers.user,receivers.amount\r\n${HASH},${BOB},1.5\r\n${HASH},${ALICE},-2\r\n`);
    expect(count).toBe(2);
  });

  it('derives element columns from the first row', async () => {
    const { text } = await render([{ id: 1, receivers: [{ user: 'u', amount: '1' }] }], { format: 'csv', flatten: 'receivers' });
    expect(text).toBe('id,receivers.user,receivers.amount\r\n1,u,1\r\n');
  });

  it('keeps a record whose array is empty as one row with empty element cells', async () => {
    const records = [payment(0), payment(1, { receivers: [] })];
    const { text, count } = await render(records, { format: 'csv', flatten: 'receivers', columns: ['description', 'receivers.user'] });
    expect(lines(text, '\r\n')).toEqual(['description,receivers.user', `order 0,${BOB}`, `order 0,${ALICE}`, 'order 1,']);
    expect(count).toBe(3);
  });

  it('gives json records with the element in place of the array, as a list even for a single record', async () => {
    const { text } = await render([payment(0)], { format: 'json', kind: 'single', flatten: 'receivers' });
    const rows = JSON.parse(text);
    expect(rows).toHaveLength(2);
    expect(rows[1].receivers).toEqual({ user: ALICE, amount: '-2', fee: '0' });
  });

  it('replaces the array column of the default table columns by its element fields', async () => {
    const { text } = await render([payment(0)], { format: 'table', flatten: 'receivers' });
    expect(lines(text)[0].split('\t')).toEqual([
      'timestamp', 'id', 'sender', 'description', 'token', 'receivers.user', 'receivers.amount', 'receivers.fee', 'tag', 'transactionStatus',
    ]);
  });

  it('rejects a field that is not a list, and a nested field', async () => {
    await expect(render([payment(0)], { format: 'csv', flatten: 'token' })).rejects.toThrow(UsageError);
    expect(() => createWriter(collector().out, { ...base, flatten: 'a.b' })).toThrow(UsageError);
  });
});

describe('table, not on a terminal (tab-separated)', () => {
  it('prints a header line and one line per record with full, raw values', async () => {
    const { text } = await render([payment(0)], { format: 'table' });
    const [header, row] = lines(text);
    expect(header).toBe(COLUMNS.join('\t'));
    expect(row.split('\t')).toEqual([
      '1769860800', HASH, ALICE, 'order 0', 'USDT', JSON.stringify(payment(0).receivers), 'shop', 'confirmed',
    ]);
  });

  it('keeps each record on one line and every column in place, with no escape sequences', async () => {
    const { text } = await render([payment(0, { description: 'a\tb\nc\x1b[31m' })], { format: 'table', columns: ['description', 'tag'] });
    expect(lines(text)).toEqual(['description\ttag', 'a\\tb\\nc\\x1b[31m\tshop']);
  });

  it('prints the header for no records', async () => {
    expect((await render([], { format: 'table', columns: ['a', 'b'] })).text).toBe('a\tb\n');
  });

  it('prints a single record as field<TAB>value lines', async () => {
    const { text } = await render([{ webhook: 'https://x.test/hook', n: 1 }], { format: 'table', kind: 'single' });
    expect(text).toBe('webhook\thttps://x.test/hook\nn\t1\n');
  });
});

describe('table on a terminal', () => {
  const tty = { format: 'table' as const, tty: true };

  it('draws a box with date-times in the zone (UTC here) and whole hashes where they fit', async () => {
    const { text } = await render([payment(0)], { ...tty, columns: ['timestamp', 'id', 'token'], width: 120 });
    expect(text).toContain('┌');
    expect(text).toContain('2026-01-31 12:00:00');
    expect(text).toContain(`│ ${HASH} │`);
    expect(text).not.toContain('\x1b');
  });

  it('shortens hashes in the middle only when the terminal is too narrow, and never with --wide', async () => {
    const narrow = (await render([payment(0)], { ...tty, columns: ['timestamp', 'id', 'token'], width: 60 })).text;
    expect(narrow).toContain('│ 0x57b2…6bf7 │');
    expect(narrow).not.toContain(HASH);
    for (const line of lines(narrow)) expect(line.length).toBeLessThanOrEqual(60);
    const wide = (await render([payment(0)], { ...tty, columns: ['timestamp', 'id', 'token'], width: 60, wide: true })).text;
    expect(wide).toContain(`│ ${HASH} │`);
  });

  it('shows arrays as compact JSON, whole where they fit and shortened where not', async () => {
    const whole = (await render([payment(0)], { ...tty, columns: ['receivers'], width: 200 })).text;
    expect(whole).toContain(JSON.stringify(payment(0).receivers));
    const { text } = await render([payment(0)], { ...tty, columns: ['receivers'], width: 60 });
    expect(text).toContain('[{"user":"0xcdcd…cdcd"');
    expect(text).toContain('…');
  });

  it('neutralises escape sequences, control characters and bidi overrides from the server', async () => {
    const description = '\x1b]0;pwned\x07\x1b[2J\u202eevil\r\nnext';
    const { text } = await render([payment(0, { description })], { ...tty, columns: ['description'] });
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(text).toContain('\\x1b]0;pwned\\x07\\x1b[2J\\u202eevil\\r\\nnext');
  });

  it('colours statuses only when colour is allowed', async () => {
    const records = [payment(0), payment(1, { transactionStatus: 'failed' }), payment(2, { transactionStatus: 'pending' })];
    const coloured = (await render(records, { ...tty, columns: ['transactionStatus'], color: true })).text;
    expect(coloured).toContain('\x1b[32mconfirmed\x1b[39m');
    expect(coloured).toContain('\x1b[31mfailed\x1b[39m');
    expect(coloured).toContain('\x1b[33mpending\x1b[39m');
    const plain = (await render(records, { ...tty, columns: ['transactionStatus'], color: false })).text;
    expect(plain).not.toContain('\x1b');
  });

  it('shows a status as payrec counts it, in its colour: a billing with success 0 is red "failed (success 0)"', async () => {
    const billings = [payment(0, { success: 0 }), payment(1, { success: 1 })];
    const statusLabel = (r: Record<string, unknown>) => (r.success === 0 ? 'failed (success 0)' : undefined);
    const { text } = await render(billings, { ...tty, columns: ['success', 'transactionStatus'], color: true, statusLabel });
    expect(text).toContain('\x1b[31mfailed (success 0)\x1b[39m');
    expect(text).toContain('\x1b[32mconfirmed\x1b[39m');
  });

  it('fits the terminal width, keeping timestamps whole', async () => {
    const records = [payment(0, { description: 'a long description that would never fit '.repeat(4) })];
    const { text } = await render(records, { ...tty, width: 90 });
    for (const line of lines(text)) expect(line.length).toBeLessThanOrEqual(90);
    expect(text).toContain('2026-01-31 12:00:00');
  });

  it('prints a single record as a field/value box when every value fits on its line', async () => {
    const { text } = await render([payment(0)], { ...tty, kind: 'single', width: 200 });
    expect(text).toContain('field');
    expect(text).toContain(`│ ${HASH} `);
    expect(text).toContain('receivers');
    expect(text).toContain('2026-01-31 12:00:00');
  });

  it('prints a single record as plain field/value lines when a value would wrap: each id on one unbroken line', async () => {
    const { text } = await render([payment(0)], { ...tty, kind: 'single', width: 80 });
    expect(text).not.toContain('│');
    expect(lines(text)).toContain(`id                 ${HASH}`);
    expect(lines(text)).toContain(`transactionHash    ${HASH}`);
  });

  it('counts the rows', async () => {
    expect((await render([payment(0), payment(1)], tty)).count).toBe(2);
  });

  it('keeps the token column whole: look-alike tokens stay told apart on a narrow terminal (issue 48, item 8)', async () => {
    // Mutant killed: token free text like the others (both printed "USDT\u…" at 80 columns).
    const columns = ['timestamp', 'amount', 'token', 'transactionStatus', 'description', 'tag'];
    const records = ['USDT\u202e', 'USDT\u{e0041}', 'USDT'].map((token, i) => payment(i, { token, amount: '12.5', tag: 'a tag that is long long long', description: 'Ebook of the month, with a long name' }));
    for (const growing of [false, true]) {
      const { text } = await render(records, { ...tty, columns, width: 80, growing });
      const tokens = lines(text).map((l) => /USDT\S*/.exec(l)?.[0]).filter(Boolean);
      expect(tokens, text).toEqual(['USDT\\u202e', 'USDT\\u{e0041}', 'USDT']);
    }
  });

  it('cuts free text before an escape, never inside it, at every width (the box, and --follow\'s lines)', async () => {
    // Mutant killed: the cut left to cli-table3 (or a plain slice), which ends "\u2…" where the escape began.
    const description = 'Ebook\u202e\x1b[31m of the \u{e0041}month\n and more text after it';
    const partial = /\\(x[0-9a-f]?|u[0-9a-f]{0,3}|u\{[0-9a-f]*|u\{[0-9a-f]+)…/;
    let cuts = 0;
    for (let width = 40; width <= 110; width++) {
      for (const growing of [false, true]) {
        const { text } = await render([payment(0, { description, token: 'USDT' })], { ...tty, columns: ['timestamp', 'token', 'description'], width, growing });
        expect(text, `width ${width}${growing ? ' (follow)' : ''}`).not.toMatch(partial);
        if (/Ebook\S*…/.test(text)) cuts++;
      }
    }
    // The widths above cut the description at many points, inside each escape among them.
    expect(cuts).toBeGreaterThanOrEqual(20);
  });
});

describe('schemaFields and validateColumns', () => {
  it('lists dotted paths, array element fields and open maps', () => {
    expect(schemaFields(schemas.oneTimePayment)).toEqual(
      expect.arrayContaining(['id', 'timestamp', 'receivers', 'receivers.user', 'receivers.amount', 'transactionStatus']),
    );
    expect(schemaFields(schemas.shortUrl)).toEqual(
      expect.arrayContaining(['params', 'params.callbackSuccess', 'params.extra', 'params.extra.*', 'createdAt']),
    );
    expect(schemaFields(schemas.notification)).toEqual(expect.arrayContaining(['data', 'data.*', 'extra.*']));
  });

  it('accepts known columns and keys below open maps', () => {
    const known = schemaFields(schemas.shortUrl);
    expect(() => validateColumns(['path', 'params.extra.banner', 'params.callbackError'], known)).not.toThrow();
  });

  it('rejects unknown columns, naming them and listing the known ones', () => {
    const known = schemaFields(schemas.billing);
    try {
      validateColumns(['amount', 'amout', 'tokn'], known);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      const message = (err as UsageError).message;
      expect(message).toContain('unknown columns "amout", "tokn"');
      expect(message).toContain('subscriptionId, success, amount');
    }
  });
});

describe('backpressure', () => {
  it('a slow stream gets one drain listener, however many flushes wait on it', async () => {
    let drainListeners = 0;
    const out = new Writable({
      decodeStrings: false,
      highWaterMark: 1,
      write(_chunk, _encoding, done) {
        setTimeout(done, 5); // a slow disk: every write leaves the stream over its mark
      },
    });
    const writer = createWriter(out, { ...base, format: 'jsonl' });
    // Rows trickle in a turn of the event loop apart, so each one is flushed on its own.
    for (let i = 0; i < 30; i++) {
      writer.write(payment(i));
      await new Promise((r) => setImmediate(r));
      drainListeners = Math.max(drainListeners, out.listenerCount('drain'));
    }
    await writer.end();
    expect(drainListeners).toBe(1);
  });

  it('rows reach a slow stream whole and in order: non-ASCII text, chunks filled to the brim, a row larger than a chunk', async () => {
    const received: Buffer[] = [];
    const out = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, done) {
        received.push(Buffer.from(chunk));
        setTimeout(done, 1);
      },
    });
    const writer = createWriter(out, { ...base, format: 'jsonl' });
    const rows = [
      ...Array.from({ length: 3000 }, (_, i) => ({ id: i, note: i % 7 === 0 ? `Zoë 👨‍👩‍👧 ${'x'.repeat(i % 500)}` : 'plain'.repeat(i % 300) })),
      { id: 'huge', note: '日本'.repeat(400_000) },
      ...Array.from({ length: 50 }, (_, i) => ({ id: `after-${i}`, note: '€' })),
    ];
    for (const row of rows) await writer.write(row);
    await writer.end();
    // The ground truth: each row as JSON, one per line, encoded once as a whole.
    expect(Buffer.concat(received).equals(Buffer.from(rows.map((r) => JSON.stringify(r) + '\n').join(''), 'utf8'))).toBe(true);
  });
});

describe('a stream that fails (a full disk under -o)', () => {
  it('a write after the failure rejects with the disk\'s error, never a wait that nothing will end', async () => {
    // Mutant killed: drained() waiting for 'drain', 'close' or 'error' on a stream that had
    // emitted its last event: the run ended with the promise unsettled (exit 13, no message).
    const out = new Writable({
      highWaterMark: 1,
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error('no space left on device, write'), { code: 'ENOSPC' }));
      },
    });
    const failed = new Promise((resolve) => out.once('error', resolve));
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const writer = createWriter(out, { ...base, format: 'csv' });
    // Larger than a chunk: written at once, which fails the stream.
    writer.write({ id: 'x'.repeat(2 * 1024 * 1024) })?.catch(() => {});
    await failed;
    await turn();
    // A small row is flushed on the next turn, by nobody awaiting it (as rows of a page are).
    writer.write({ id: 'small' });
    await turn();
    const next = writer.write({ id: 'y'.repeat(2 * 1024 * 1024) });
    // Settled, either way, before a few turns of the event loop have passed.
    const turns = new Promise((resolve) => setImmediate(() => setImmediate(() => resolve('unsettled'))));
    const outcome = await Promise.race([Promise.resolve(next).then(() => 'resolved', (err: NodeJS.ErrnoException) => err.code), turns]);
    expect(outcome).toBe('ENOSPC');
  });
});

describe('a table that must keep its answering columns (keepColumns) on a short terminal', () => {
  const LEDGER = ['subscriptionId', 'token', 'mrr', 'state', 'paidThrough', 'planId', 'amount', 'period', 'started'];
  const row = (mrr: string, i: number) => ({ subscriptionId: HASH, token: 'BNB', mrr, state: 'past_due', paidThrough: 1769860800 + i, planId: HASH, amount: '100', period: 604800, started: 1769000000 });
  const table = (rows: Record<string, unknown>[], width: number) => render(rows, { format: 'table', tty: true, width, defaultColumns: LEDGER, keepColumns: LEDGER.slice(0, 5) });
  const header = (text: string) => text.split('\n').find((l) => l.startsWith('│'))!.split('│').map((c) => c.trim()).filter(Boolean);

  it('an MRR of 18 decimals keeps 8 of them, marked …, so that paidThrough stays; every row of the column alike', async () => {
    const { text } = await table([row('5368.567890123456789012', 1), row('9.99', 2), row('1.5', 3)], 80);
    expect(header(text)).toEqual(LEDGER.slice(0, 5));
    expect(text).toContain('│ 5368.56789012… │');
    expect(text).toContain('│ 9.99           │');
    for (const l of text.split('\n').filter((x) => /^[┌│└]/.test(x))) expect(l.length).toBeLessThanOrEqual(80);
  });

  it('cuts nothing when the answers fit whole, or with --wide', async () => {
    const narrow = await table([row('5368.567890123456789012', 1)], 120);
    expect(narrow.text).toContain('5368.567890123456789012');
    const wide = await render([row('5368.567890123456789012', 1)], { format: 'table', tty: true, width: 80, wide: true, defaultColumns: LEDGER, keepColumns: LEDGER.slice(0, 5) });
    expect(wide.text).toContain('5368.567890123456789012');
  });

  it('a list without answering columns never cuts an amount: it leaves columns out', async () => {
    const { text } = await render([row('5368.567890123456789012', 1)], { format: 'table', tty: true, width: 80, defaultColumns: LEDGER });
    expect(text).not.toMatch(/\.\d+…/);
    expect(text).toMatch(/\(mrr, .* not shown: too wide/);
  });
});
