import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseRatesFile } from '../../src/values/rates-file.js';
import { UsageError } from '../../src/core/runtime/errors.js';

// The rates file's parser, line by line (DESIGN.md "Values in one currency", docs/values.md
// "The rates file"). Every message is asserted whole: it is what the user reads. Instants
// are worked out by hand from 2026-01-01T00:00:00Z = 1767225600 (and held against
// `date -u -d … +%s` once, outside the test).

const HEADER = 'time,chain,token,currency,rate,source';
const file = (...lines: string[]) => [HEADER, ...lines].join('\n') + '\n';
const HINT = 'a rates file is CSV with the header time,chain,token,currency,rate,source (docs/values.md "The rates file")';
// 2026-10-05T00:00:00Z: 2026-01-01 + 277 days (Jan–Sep 273, + 4).
const OCT5 = 1_767_225_600 + 277 * 86_400;

/** The message of the UsageError a text is refused with (its hint checked on the way). */
function refused(text: string): string {
  try {
    parseRatesFile(text, 'rates.csv');
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).hint).toBe(HINT);
    return (err as Error).message;
  }
  throw new Error('parsed');
}

/** The time of a file's only row. */
const timeOf = (time: string) => parseRatesFile(file(`${time},bsc,BNB,USD,1,a`), 'rates.csv')[0].time;
const timeRefused = (time: string) => refused(file(`${time},bsc,BNB,USD,1,a`));

describe('the rates file: times', () => {
  it('reads a date as the start of its UTC day, and * as a constant', () => {
    expect(timeOf('2026-10-05')).toBe(OCT5);
    expect(timeOf('1970-01-01')).toBe(0);
    // 2028 is a leap year: 2028-01-01 is 2026-01-01 + 730 days, and 29 February its day 59.
    expect(timeOf('2028-02-29')).toBe(1_767_225_600 + (730 + 59) * 86_400);
    expect(timeOf('*')).toBeNull();
  });

  it('reads RFC 3339 date-times with a zone, upper or lower case, the offset subtracted', () => {
    expect(timeOf('2026-10-05T12:30:00+02:00')).toBe(OCT5 + 10 * 3600 + 30 * 60);
    // West of UTC: 10:00 at −05:30 is 15:30Z.
    expect(timeOf('2026-10-05T10:00:00-05:30')).toBe(OCT5 + 15 * 3600 + 30 * 60);
    expect(timeOf('2026-10-05t23:59:59z')).toBe(OCT5 + 86_399);
    expect(timeOf('2026-10-05T00:00:00+23:59')).toBe(OCT5 - 23 * 3600 - 59 * 60);
    expect(timeOf('2026-12-31T23:59:59Z')).toBe(1_767_225_600 + 365 * 86_400 - 1);
    expect(timeOf('2026-10-05T00:00:01.000Z')).toBe(OCT5 + 1);
  });

  it('refuses instants that do not exist, one past each bound', () => {
    for (const t of ['1969-12-31', '2026-00-05', '2026-13-01', '2026-10-00', '2026-02-29', '2026-04-31', '2026-10-05T24:00:00Z', '2026-10-05T23:60:00Z', '2026-10-05T23:59:60Z']) {
      expect(timeRefused(t)).toBe(`rates.csv:2: time "${t}" is no such instant after 1970`);
    }
    expect(timeOf('2026-02-28')).toBe(1_767_225_600 + 58 * 86_400);
  });

  it('stamps rates to the second, with an offset that exists', () => {
    expect(timeRefused('2026-10-05T10:00:00.5Z')).toBe('rates.csv:2: time "2026-10-05T10:00:00.5Z": rates are stamped to the second');
    expect(timeRefused('2026-10-05T10:00:00.000001+01:00')).toBe('rates.csv:2: time "2026-10-05T10:00:00.000001+01:00": rates are stamped to the second');
    expect(timeRefused('2026-10-05T10:00:00+24:00')).toBe('rates.csv:2: time "2026-10-05T10:00:00+24:00": the zone offset is out of range');
    expect(timeRefused('2026-10-05T10:00:00-00:60')).toBe('rates.csv:2: time "2026-10-05T10:00:00-00:60": the zone offset is out of range');
  });

  it('says a date-time has no zone when that is all it lacks', () => {
    for (const t of ['2026-10-05T10:00:00', '2026-10-05 10:00', '2026-10-05T10:00', '2026-10-05t10:00:00.25']) {
      expect(timeRefused(t)).toBe(`rates.csv:2: time "${t}" has no zone: add Z or an offset such as +01:00 (RFC 3339)`);
    }
  });

  it('refuses every other text, whole: nothing before or after the instant', () => {
    for (const t of ['x2026-10-05', '2026-10-05x', '26-10-05', '2026-1-05', '2026-10-5', 'x2026-10-05T10:00:00Z', '2026-10-05T10:00:00Zx', '2026-10-05T10:00x', 'x2026-10-05T10:00', '2026-10-05T1:00:00Z', '2026-10-05T10:00:00+0100', 'yesterday']) {
      expect(timeRefused(t)).toBe(`rates.csv:2: time "${t}": expected YYYY-MM-DD, an RFC 3339 date-time with a zone, or *`);
    }
  });
});

describe('the rates file: times as scripts write them', () => {
  // YYYY-MM-DD and YYYY-MM-DDTHH:MM:SSZ are read digit by digit (an hourly dump's every
  // row): held against Date's own reading of the same text. Catches a digit read at the
  // wrong place, a bound off by one, a leap year miscounted.
  it('reads any instant from 1970 to 2200 as Date does', () => {
    const to = Date.UTC(2200, 0, 1) / 1000;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: to }), (t) => {
        const text = new Date(t * 1000).toISOString().replace('.000Z', 'Z');
        expect(timeOf(text)).toBe(t);
        expect(timeOf(text.slice(0, 10))).toBe(t - (t % 86_400));
      }),
      { numRuns: 3000 },
    );
  });

  it('counts leap years by the Gregorian rule', () => {
    expect(timeOf('2000-02-29')).toBe(Date.UTC(2000, 1, 29) / 1000);
    expect(timeOf('2096-02-29T23:59:59Z')).toBe(Date.UTC(2096, 1, 29, 23, 59, 59) / 1000);
    for (const t of ['2100-02-29', '2100-02-29T00:00:00Z', '2027-02-29T12:00:00Z', '2026-06-31T00:00:00Z', '2026-12-32']) {
      expect(timeRefused(t)).toBe(`rates.csv:2: time "${t}" is no such instant after 1970`);
    }
    expect(timeRefused('2026-10-05T00:00:0xZ')).toBe('rates.csv:2: time "2026-10-05T00:00:0xZ": expected YYYY-MM-DD, an RFC 3339 date-time with a zone, or *');
  });
});

describe('the rates file: a whole file', () => {
  it('reads dates, RFC 3339 times with zones, constants, fiat rows and optional columns', () => {
    const rows = parseRatesFile(
      [
        'time,chain,token,currency,rate,source,address,note',
        '2026-10-05,bsc,BNB,USD,612.34,desk,0xabc,close',
        '2026-10-05T12:30:00+02:00,*,USDT,USD,0.9990,cmc,,',
        '*,sandbox,USDT,USD,1,declared peg,,',
        '2026-10-05,fiat,eur,USD,1.0830,ECB,,',
        '',
        '2026-10-06T00:00:00.000Z,bsc,8PAY,EUR,0,written off,,',
      ].join('\r\n'),
      'rates.csv',
    );
    expect(rows.map((r) => [r.line, r.time, r.chain, r.token, r.currency, r.rate, r.source])).toEqual([
      [2, OCT5, 'bsc', 'BNB', 'USD', '612.34', 'desk'],
      [3, OCT5 + 10 * 3600 + 30 * 60, '*', 'USDT', 'USD', '0.9990', 'cmc'],
      [4, null, 'sandbox', 'USDT', 'USD', '1', 'declared peg'],
      [5, OCT5, 'fiat', 'EUR', 'USD', '1.0830', 'ECB'],
      [7, OCT5 + 86_400, 'bsc', '8PAY', 'EUR', '0', 'written off'],
    ]);
    expect(rows[0].address).toBe('0xabc');
    expect(rows[0].note).toBe('close');
  });

});

describe('the rates file: the header', () => {
  it('takes the columns in any order and any case, optional ones included', () => {
    const rows = parseRatesFile('SOURCE,Rate,note,Currency,TOKEN,chain,time,address\ndesk,612.34,close,usd,BNB,bsc,2026-10-05,0xabc\n', 'r.csv');
    expect(rows).toEqual([{ line: 2, time: OCT5, chain: 'bsc', token: 'BNB', currency: 'USD', rate: '612.34', source: 'desk', address: '0xabc', note: 'close' }]);
  });

  it('names an unknown column, a column named twice, the columns lacking, an empty file', () => {
    expect(refused(`${HEADER},price\n`)).toBe('rates.csv:1: unknown column "price": expected time, chain, token, currency, rate, source, address, note');
    expect(refused('time,chain,token,currency,rate,source,Time\n')).toBe('rates.csv:1: the column time is named twice');
    expect(refused('time,chain,token,currency\n')).toBe('rates.csv:1: the header lacks rate, source');
    expect(refused('chain,token,currency,rate,source\n2026-10-05\n')).toBe('rates.csv:1: the header lacks time');
    expect(refused('')).toBe('rates.csv:1: empty: expected the header time,chain,token,currency,rate,source');
    expect(refused('\n  \n')).toBe('rates.csv:1: empty: expected the header time,chain,token,currency,rate,source');
    // Blank lines before the header: it is named by its own line.
    expect(refused('\n\ntime,chain,price\n')).toBe('rates.csv:3: unknown column "price": expected time, chain, token, currency, rate, source, address, note');
  });
});

describe('the rates file: rows', () => {
  it('keeps each row whole: no optional column invented, a byte-order mark and padding dropped', () => {
    const rows = parseRatesFile(`\uFEFF${file(' 2026-10-05 , bsc , bnb , usd , 612.34 , OTC desk ', '*,*,USDT,EUR,0.92,peg', '2026-10-05,fiat,eur,usd,1.0830,ECB')}`, 'r.csv');
    expect(rows).toEqual([
      // A token is the API's symbol, kept as written; a currency is upper case.
      { line: 2, time: OCT5, chain: 'bsc', token: 'bnb', currency: 'USD', rate: '612.34', source: 'OTC desk' },
      { line: 3, time: null, chain: '*', token: 'USDT', currency: 'EUR', rate: '0.92', source: 'peg' },
      // A fiat row's token is a currency: upper case too.
      { line: 4, time: OCT5, chain: 'fiat', token: 'EUR', currency: 'USD', rate: '1.0830', source: 'ECB' },
    ]);
  });

  it('names the line of a row with an unknown chain, no token, an unknown currency or a fiat row that is not between currencies', () => {
    expect(refused(file('2026-10-05,bsc,BNB,USD,1,a', '2026-10-05,tron,BNB,USD,1,a'))).toBe('rates.csv:3: chain "tron": expected bsc, ethereum, polygon, sandbox, * (every chain) or fiat');
    expect(refused(file('2026-10-05,BSC,BNB,USD,1,a'))).toBe('rates.csv:2: chain "BSC": expected bsc, ethereum, polygon, sandbox, * (every chain) or fiat');
    expect(refused(file('2026-10-05,bsc,,USD,1,a'))).toBe('rates.csv:2: no token');
    expect(refused(file('2026-10-05,bsc,BNB,XYZ,1,a'))).toBe('rates.csv:2: currency "XYZ": XYZ is not an ISO 4217 currency (a token\'s value is asked in a currency: USD, EUR, GBP…)');
    expect(refused(file('2026-10-05,bsc,BNB,US,1,a'))).toBe('rates.csv:2: currency "US": expected an ISO 4217 code such as USD or EUR');
    expect(refused(file('2026-10-05,fiat,BNB,USD,1,a'))).toBe('rates.csv:2: token (a currency on a fiat row) "BNB": BNB is not an ISO 4217 currency (a token\'s value is asked in a currency: USD, EUR, GBP…)');
    expect(refused(file('2026-10-05,fiat,usd,USD,1,a'))).toBe('rates.csv:2: a fiat row from USD to itself');
  });

  it('takes a rate only as plain decimal text, and a source always', () => {
    for (const rate of ['6.1e2', '-1', '+1', '.5', '5.', '1 000', '0x10', '']) {
      expect(refused(file(`2026-10-05,bsc,BNB,USD,"${rate}",a`))).toBe(`rates.csv:2: rate "${rate}": expected plain decimal text such as 612.34 (no sign, no exponent, no thousands separator)`);
    }
    expect(parseRatesFile(file('2026-10-05,bsc,BNB,USD,0,a', '2026-10-06,bsc,BNB,USD,10.000000000000000001,a'), 'r.csv').map((r) => r.rate)).toEqual(['0', '10.000000000000000001']);
    expect(refused(file('2026-10-05,bsc,BNB,USD,1,'))).toBe('rates.csv:2: no source: every rate says where it came from');
  });

  it('names the line where the text stops being CSV, without csv-parse\'s own line, and a row of another width', () => {
    const ok = Array.from({ length: 10 }, (_, i) => `2026-10-${String(i + 1).padStart(2, '0')},bsc,BNB,USD,1,a`);
    expect(refused(file(...ok, '2026-10-20,bsc,BNB,USD,1,"a"x'))).toBe(
      // csv-parse's 115 characters without " at line 12", cut at 80 as every quoted text is.
      'rates.csv:12: not CSV: Invalid Closing Quote: got \\"x\\" instead of delimiter, record delimiter, trimable … (115 characters)',
    );
    expect(refused(file(...ok, '2026-10-20,bsc,BNB,USD,1,"a'))).toBe('rates.csv:12: not CSV: Quote Not Closed: the parsing is finished with an opening quote');
    expect(refused(file('2026-10-05,bsc,BNB,USD,1'))).toBe('rates.csv:2: 5 cells, but the header has 6');
    expect(refused(file('2026-10-05,bsc,BNB,USD,1,a,b'))).toBe('rates.csv:2: 7 cells, but the header has 6');
    expect(refused(file('2026-10-05'))).toBe('rates.csv:2: 1 cell, but the header has 6');
  });
});

describe('the rates file: the same key twice', () => {
  const twice = (a: string, b: string, time = '2026-10-05', chain = 'bsc') => file(`${time},${chain},BNB,USD,${a},one`, `${time},${chain},BNB,USD,${b},two`);

  it('keeps the first line of a rate written twice in any form of the same decimal', () => {
    for (const [a, b] of [['1.0830', '1.083'], ['1.50', '1.5'], ['1.0', '1'], ['007', '7'], ['0.0', '0'], ['00.10', '0.1']]) {
      expect(parseRatesFile(twice(a, b), 'r.csv')).toEqual([{ line: 2, time: OCT5, chain: 'bsc', token: 'BNB', currency: 'USD', rate: a, source: 'one' }]);
    }
    // The same instant written two ways is the same key.
    expect(parseRatesFile(file('2026-10-05,bsc,BNB,USD,1,one', '2026-10-05T02:00:00+02:00,bsc,BNB,USD,1.0,two'), 'r.csv')).toHaveLength(1);
  });

  it('refuses two rates of one key, naming both lines', () => {
    expect(refused(twice('1', '2'))).toBe('rates.csv:3: BNB → USD on bsc at 2026-10-05 is 2 here but 1 on line 2');
    // Zeros are stripped only after a point: 10 is not 1, 1.5 is not 15, 100 is not 1.
    expect(refused(twice('10', '1'))).toBe('rates.csv:3: BNB → USD on bsc at 2026-10-05 is 1 here but 10 on line 2');
    expect(refused(twice('1.5', '15'))).toBe('rates.csv:3: BNB → USD on bsc at 2026-10-05 is 15 here but 1.5 on line 2');
    expect(refused(twice('100', '1.00'))).toBe('rates.csv:3: BNB → USD on bsc at 2026-10-05 is 1.00 here but 100 on line 2');
    expect(refused(twice('1', '2', '*'))).toBe('rates.csv:3: BNB → USD on bsc at * is 2 here but 1 on line 2');
    expect(refused(twice('1', '2', '*', '*'))).toBe('rates.csv:3: BNB → USD on * at * is 2 here but 1 on line 2');
  });

  // The check skips its map while a pair's times come in order: held against every line
  // compared with every earlier one, in any order of times. Catches a time taken for new
  // because it is past one end of the times seen when it is not past the other.
  it('finds the first line that contradicts an earlier one, in any order of times', () => {
    const line = fc.record({ day: fc.integer({ min: 1, max: 6 }), token: fc.constantFrom('BNB', 'USDT'), rate: fc.constantFrom('1', '1.0', '2') });
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        const text = file(...lines.map((l) => `2026-10-0${l.day},bsc,${l.token},USD,${l.rate},s`));
        const first = new Map<string, number>();
        let expected: string | undefined;
        lines.forEach((l, i) => {
          const key = `${l.day} ${l.token}`;
          const k = first.get(key);
          if (k === undefined) first.set(key, i);
          else if (expected === undefined && Number(lines[k].rate) !== Number(l.rate)) expected = `rates.csv:${i + 2}: ${l.token} → USD on bsc at 2026-10-0${l.day} is ${l.rate} here but ${lines[k].rate} on line ${k + 2}`;
        });
        if (expected !== undefined) expect(refused(text)).toBe(expected);
        else expect(parseRatesFile(text, 'rates.csv').map((r) => r.line)).toEqual([...first.values()].map((i) => i + 2));
      }),
      { numRuns: 2000 },
    );
  });

  it('takes different rates of different keys: another time, chain, token or currency', () => {
    const rows = parseRatesFile(
      file('2026-10-05,bsc,BNB,USD,1,a', '2026-10-06,bsc,BNB,USD,2,a', '2026-10-05,*,BNB,USD,3,a', '2026-10-05,bsc,WBNB,USD,4,a', '2026-10-05,bsc,BNB,EUR,5,a', '*,bsc,BNB,USD,6,a', '*,*,BNB,USD,7,a'),
      'r.csv',
    );
    expect(rows.map((r) => r.rate)).toEqual(['1', '2', '3', '4', '5', '6', '7']);
  });
});
