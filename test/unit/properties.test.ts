import { Writable } from 'node:stream';
import { stringify as csvStringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createWriter } from '../../src/core/output/writer.js';
import type { OutputOptions } from '../../src/core/output/options.js';
import { neutraliseFormula, neutraliseTerminal } from '../../src/core/output/sanitize.js';
import { Summariser } from '../../src/core/lists/summary.js';
import { endpoints } from '../../src/registry/endpoints.js';
import { parseTime } from '../../src/core/runtime/time.js';

const NOW_MS = Date.UTC(2026, 0, 31);

describe('parseTime properties', () => {
  const instants = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });

  it('reads back an ISO 8601 date-time as its Unix second', () => {
    fc.assert(
      fc.property(instants, (d) => {
        expect(parseTime(d.toISOString(), NOW_MS, '--from')).toBe(Math.floor(d.getTime() / 1000));
      }),
    );
  });

  it('reads back an ISO 8601 date as its UTC midnight', () => {
    fc.assert(
      fc.property(instants, (d) => {
        const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) / 1000;
        expect(parseTime(d.toISOString().slice(0, 10), NOW_MS, '--from')).toBe(midnight);
      }),
    );
  });

  it('reads back Unix seconds unchanged', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), (n) => {
        expect(parseTime(String(n), NOW_MS, '--to')).toBe(n);
      }),
    );
  });
});

/** A minimal RFC 4180 reader (CRLF records, "" inside quoted fields), for the round trip. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (text[i] === '"' && text[i + 1] === '"') (field += '"'), (i += 2);
        else if (text[i] === '"') break;
        else field += text[i++];
      }
      i++;
    } else if (text[i] === ',') {
      record.push(field);
      field = '';
      i++;
    } else if (text.startsWith('\r\n', i)) {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else {
      field += text[i++];
    }
  }
  return records;
}

const CSV_SPECIALS = fc.constantFrom(',', ';', '\u00a0', '\u200b', '"', '\r', '\n', '\r\n', '=', '-', '+', '@', '\t', ' ', '🎉', 'مر', '\u202e', '\x1b');
const cellText = fc.string({ unit: fc.oneof(CSV_SPECIALS, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 12 });
const table = fc.integer({ min: 1, max: 5 }).chain((width) => fc.array(fc.array(cellText, { minLength: width, maxLength: width }), { maxLength: 8 }));

async function csvOf(rows: string[][], csvRaw: boolean): Promise<string> {
  const columns = rows.length > 0 ? rows[0].map((_, i) => `c${i}`) : ['c0'];
  const chunks: string[] = [];
  const out = new Writable({ decodeStrings: false, write: (c, _e, done) => (chunks.push(String(c)), done()) });
  const opts: OutputOptions = { format: 'csv', kind: 'list', columns, defaultColumns: [], csvRaw, tty: false, color: false, zone: 'UTC' };
  const writer = createWriter(out, opts);
  for (const row of rows) await writer.write(Object.fromEntries(row.map((v, i) => [`c${i}`, v])));
  await writer.end();
  return chunks.join('');
}

describe('CSV properties', () => {
  it('with --csv-raw, parses back to exactly the cells written', async () => {
    await fc.assert(
      fc.asyncProperty(table, async (rows) => {
        const parsed = parseCsv(await csvOf(rows, true));
        expect(parsed.slice(1)).toEqual(rows);
      }),
    );
  });

  it('writes the same bytes as csv-stringify with RFC 4180 CRLF records', async () => {
    await fc.assert(
      fc.asyncProperty(table, async (rows) => {
        const text = await csvOf(rows, true);
        const header = (rows[0] ?? ['']).map((_, i) => `c${i}`);
        expect(text).toBe(csvStringify([header, ...rows], { record_delimiter: 'windows', quote_record_delimiter: true, quoted_match: ';' }));
      }),
    );
  });

  it('without --csv-raw, changes a cell only by a leading quote, and only when it could run as a formula', async () => {
    await fc.assert(
      fc.asyncProperty(table, async (rows) => {
        const parsed = parseCsv(await csvOf(rows, false)).slice(1);
        rows.forEach((row, r) =>
          row.forEach((cell, c) => {
            expect(parsed[r][c]).toBe(neutraliseFormula(cell));
            if (parsed[r][c] !== cell) expect(parsed[r][c]).toBe(`'${cell}`);
            expect(parsed[r][c]).not.toMatch(/^[=+@\t\r]|^-(?!\d+(\.\d+)?$)|^[\s\u200b]+[=+@-]/);
          }),
        );
      }),
    );
  });
});

describe('terminal sanitising properties', () => {
  it('leaves no control, bidi override or line separator character in any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(neutraliseTerminal(s)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
      }),
    );
  });

  it('is the identity on printable ASCII', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...' !"#$%&()*+,-./09:;<=>?@AZ[\\]^_`az{|}~') }), (s) => {
      expect(neutraliseTerminal(s)).toBe(s);
    }));
  });
});

describe('json properties', () => {
  it('is one valid document equal to the records written, for any number of records', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { maxLength: 30 }), async (records) => {
        const chunks: string[] = [];
        const out = new Writable({ decodeStrings: false, write: (c, _e, done) => (chunks.push(String(c)), done()) });
        const writer = createWriter(out, { format: 'json', kind: 'list', defaultColumns: [], csvRaw: false, tty: false, color: false, zone: 'UTC' });
        for (const r of records) await writer.write(r as Record<string, unknown>);
        await writer.end();
        expect(JSON.parse(chunks.join(''))).toEqual(JSON.parse(JSON.stringify(records)));
      }),
    );
  });
});

describe('decimal totals properties', () => {
  const SCALE = 18;
  /** Up to 30 integer digits and up to 18 decimals, as the API's amount strings. */
  const decimal = fc
    .tuple(fc.stringMatching(/^(0|[1-9]\d{0,29})$/), fc.option(fc.stringMatching(/^\d{1,18}$/), { nil: undefined }))
    .map(([whole, frac]) => (frac === undefined ? whole : `${whole}.${frac}`));

  /** The independent reference: a decimal string as an integer count of 10^-18 units. */
  const toUnits = (s: string) => {
    const [whole, frac = ''] = s.split('.');
    return BigInt(whole) * 10n ** BigInt(SCALE) + BigInt(frac.padEnd(SCALE, '0'));
  };
  const fromUnits = (units: bigint) => {
    const whole = units / 10n ** BigInt(SCALE);
    const frac = (units % 10n ** BigInt(SCALE)).toString().padStart(SCALE, '0').replace(/0+$/, '');
    return frac ? `${whole}.${frac}` : `${whole}`;
  };

  const endpoint = (id: string) => endpoints.find((e) => e.id === id)!;

  it('totals per token and status of amount and fee equal a BigInt sum, digit for digit', () => {
    const record = fc.record({
      token: fc.constantFrom('USDT', 'BNB', '8PAY'),
      transactionStatus: fc.constantFrom('confirmed', 'pending', 'failed'),
      transactionHash: fc.uuid(),
      amount: decimal,
      fee: decimal,
    });
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 40 }), (records) => {
        const s = new Summariser(endpoint('one-time.transfers'));
        for (const r of records) s.add(r);
        const totals = s.result().totals;
        const expected = new Map<string, { count: number; amount: bigint; fee: bigint }>();
        for (const r of records) {
          const key = `${r.token}/${r.transactionStatus}`;
          const t = expected.get(key) ?? expected.set(key, { count: 0, amount: 0n, fee: 0n }).get(key)!;
          t.count++;
          t.amount += toUnits(r.amount);
          t.fee += toUnits(r.fee);
        }
        expect(totals.map((t) => `${t.token}/${t.status}`).sort()).toEqual([...expected.keys()].sort());
        for (const t of totals) {
          const e = expected.get(`${t.token}/${t.status}`)!;
          expect(Object.keys(t)).toEqual(['token', 'status', 'count', 'amount', 'fee']);
          expect(t.count).toBe(e.count);
          expect(t.amount).toBe(fromUnits(e.amount));
          expect(t.fee).toBe(fromUnits(e.fee));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('receivers amounts of payments add up exactly too', () => {
    const payment = fc.record({
      token: fc.constant('USDT'),
      transactionStatus: fc.constant('confirmed'),
      receivers: fc.array(fc.record({ amount: decimal, fee: decimal }), { minLength: 1, maxLength: 5 }),
    });
    fc.assert(
      fc.property(fc.array(payment, { minLength: 1, maxLength: 20 }), (payments) => {
        const s = new Summariser(endpoint('one-time.payments.list'));
        for (const p of payments) s.add(p);
        const sum = payments.flatMap((p) => p.receivers).reduce((acc, r) => acc + toUnits(r.amount), 0n);
        const [row] = s.result().totals;
        expect(row).toMatchObject({ token: 'USDT', status: 'confirmed', count: payments.length });
        expect(row['receivers.amount']).toBe(fromUnits(sum));
      }),
    );
  });
});
