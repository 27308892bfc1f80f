import { UsageError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import { KNOWN_CHAINS } from '../registry/validators.js';
import { currencyProblem } from './currency.js';
import { csvRecords, CsvSyntaxError, type CsvRecord } from './csv-records.js';
import { plainDecimal } from './valuation.js';

// The team's rates file (DESIGN.md "Values in one currency"): UTF-8 CSV with a header
// `time,chain,token,currency,rate,source` and optionally `address`, `note`, in any order.
// Every line is checked before any request is sent: the first malformed one is exit 2
// naming the file and the line, never a rate quietly skipped.
//
//   time      YYYY-MM-DD (from that UTC day's start), RFC 3339 with a zone, or * (a constant: a declared peg)
//   chain     a chain name, * (every chain), or fiat (then token is a currency: EUR,USD,1.0830 = 1 EUR is 1.0830 USD)
//   rate      plain decimal text: no sign, no exponent; 0 only as a flagged zero
//   source    required: where the figure came from

export const REQUIRED_COLUMNS = ['time', 'chain', 'token', 'currency', 'rate', 'source'] as const;
export const OPTIONAL_COLUMNS = ['address', 'note'] as const;
type Column = (typeof REQUIRED_COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number];

/** `*`: every chain (token rows); `fiat`: a rate between two currencies. */
export const ANY_CHAIN = '*';
export const FIAT = 'fiat';

export interface RateRow {
  /** The file's line the row ends on (the header is line 1). */
  line: number;
  /** Unix seconds the rate holds from; null for a constant (`*`). */
  time: number | null;
  chain: string;
  token: string;
  currency: string;
  /** Plain decimal text, as written. */
  rate: string;
  source: string;
  address?: string;
  note?: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// RFC 3339: full date, T, full time with seconds (fraction allowed, zero only: rates are
// stamped to the second), and a zone, required: Z, or a sign, hours and minutes.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const RATE = /^\d+(\.\d+)?$/;

/** The rows of a rates file; a malformed line is a UsageError naming `name` and the line. */
export function parseRatesFile(text: string, name: string): RateRow[] {
  const at = (line: number, why: string) => new UsageError(`${name}:${line}: ${why}`, 'a rates file is CSV with the header time,chain,token,currency,rate,source (docs/values.md "The rates file")');
  let records: IterableIterator<CsvRecord>;
  try {
    records = csvRecords(text);
  } catch (err) {
    // Stryker disable next-line ConditionalExpression: csvRecords throws nothing but CsvSyntaxError for any text; another error would be payrec's own bug
    if (!(err instanceof CsvSyntaxError)) throw err;
    throw at(err.line, `not CSV: ${printable(err.message.replace(/ (on|at) line \d+/, ''))}`);
  }
  const first = records.next();
  if (first.done) throw at(1, 'empty: expected the header time,chain,token,currency,rate,source');
  const head = first.value;
  const header = head.record.map((c) => c.toLowerCase());
  const known = new Set<string>([...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS]);
  const index = new Map<Column, number>();
  header.forEach((c, i) => {
    if (!known.has(c)) throw at(head.line, `unknown column "${printable(c)}": expected ${[...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS].join(', ')}`);
    if (index.has(c as Column)) throw at(head.line, `the column ${c} is named twice`);
    index.set(c as Column, i);
  });
  const lacking = REQUIRED_COLUMNS.filter((c) => !index.has(c));
  if (lacking.length) throw at(head.line, `the header lacks ${lacking.join(', ')}`);

  const rows: RateRow[] = [];
  /**
   * Each pair's rows so far, to refuse a key written twice with two rates. A pair's rows
   * usually come in time order (a dump, a script's loop): a time past either end of those
   * seen is new, so a map of every time (a row's key made, hashed and kept: an hourly file
   * of 87,600 rows paid more for it than for its parse) is made only once a pair's time
   * falls among its earlier ones.
   */
  const pairs = new Map<string, PairRows>();
  // Rows come grouped by pair: the last pair's rows are reused while the pair holds.
  let lastPair: { chain: string; token: string; currency: string; rows: PairRows } | undefined;
  // A file repeats its currencies: each text is checked once. Times are read again unless
  // the line before had the same (a daily file's rows of one day): a map of every time
  // text cost an hourly file more than reading each (its lookups hash a new text a row).
  let lastTimeText: string | undefined;
  let lastTime: number | null = null;
  // The strings a row keeps are the last row's where equal: an hourly file's rows then keep one string each, their rate.
  let lastSource = '';
  const currencies = new Map<string, string>();
  const currencyOf = (value: string, what: string, line: number) => {
    let code = currencies.get(value);
    // Stryker disable next-line ConditionalExpression: a cache; checking a currency again gives the same code
    if (code === undefined) currencies.set(value, (code = currencyAt(value, what, line, at)));
    return code;
  };
  // Each column's place in a record (the required ones are there), -1 for an optional one the header lacks.
  const place = { time: index.get('time')!, chain: index.get('chain')!, token: index.get('token')!, currency: index.get('currency')!, rate: index.get('rate')!, source: index.get('source')!, address: index.get('address') ?? -1, note: index.get('note') ?? -1 };
  for (const { record, line } of records) {
    if (record.length !== header.length) throw at(line, `${record.length} cell${record.length === 1 ? '' : 's'}, but the header has ${header.length}`);
    const chain = record[place.chain];
    if (chain !== ANY_CHAIN && chain !== FIAT && !(KNOWN_CHAINS as readonly string[]).includes(chain)) {
      throw at(line, `chain "${printable(chain)}": expected ${KNOWN_CHAINS.join(', ')}, * (every chain) or fiat`);
    }
    const token = record[place.token];
    if (token === '') throw at(line, 'no token');
    const currency = currencyOf(record[place.currency], 'currency', line);
    if (chain === FIAT) {
      currencyOf(token, 'token (a currency on a fiat row)', line);
      if (token.toUpperCase() === currency) throw at(line, `a fiat row from ${currency} to itself`);
    }
    const rate = record[place.rate];
    if (!RATE.test(rate)) throw at(line, `rate "${printable(rate)}": expected plain decimal text such as 612.34 (no sign, no exponent, no thousands separator)`);
    const source = record[place.source];
    if (source === '') throw at(line, 'no source: every rate says where it came from');
    const timeText = record[place.time];
    // Stryker disable next-line ConditionalExpression: a cache; reading a time again gives the same instant (an invalid one fails the first time)
    if (lastTimeText !== timeText) {
      lastTime = timeAt(timeText, line, at);
      lastTimeText = timeText;
    }
    const time = lastTime;
    const key = chain === FIAT ? token.toUpperCase() : token;
    if (!lastPair || lastPair.chain !== chain || lastPair.token !== key || lastPair.currency !== currency) {
      // Unambiguous: only the token is free text, and the currency after it is three letters.
      const pair = `${chain}\u0000${key}\u0000${currency}`;
      let kept = pairs.get(pair);
      if (!kept) pairs.set(pair, (kept = new PairRows()));
      lastPair = { chain, token: key, currency, rows: kept };
    }
    const earlier = lastPair.rows.earlier(time);
    if (earlier && plainDecimal(earlier.rate) !== plainDecimal(rate)) throw at(line, `${key} → ${currency} on ${chain} at ${timeText} is ${rate} here but ${earlier.rate} on line ${earlier.line}`);
    if (earlier) continue;
    // Stryker disable next-line ConditionalExpression: the same text either way
    if (source !== lastSource) lastSource = source;
    const row: RateRow = { line, time, chain: lastPair.chain, token: lastPair.token, currency, rate, source: lastSource };
    if (place.address !== -1 && record[place.address]) row.address = record[place.address];
    if (place.note !== -1 && record[place.note]) row.note = record[place.note];
    lastPair.rows.add(row);
    rows.push(row);
  }
  return rows;
}

/** The rows of one pair kept so far (no two of one time), asked whether a time is among them. */
class PairRows {
  private readonly rows: RateRow[] = [];
  /** The earliest and latest dated times kept: a time outside them is none of theirs. */
  private first = Infinity;
  private last = -Infinity;
  /** Every row by time, made once a time falls within [first, last] or is a constant's (null). */
  private byTime?: Map<number | null, RateRow>;

  /** The row kept of this time, if any. */
  earlier(time: number | null): RateRow | undefined {
    if (this.byTime) return this.byTime.get(time);
    // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: the map answers the same, only later
    if (time !== null && (time < this.first || time > this.last)) return undefined;
    this.byTime = new Map(this.rows.map((row) => [row.time, row]));
    return this.byTime.get(time);
  }

  add(row: RateRow): void {
    if (this.byTime) this.byTime.set(row.time, row);
    else this.rows.push(row);
    if (row.time === null) return;
    this.first = Math.min(this.first, row.time);
    this.last = Math.max(this.last, row.time);
  }
}

function currencyAt(value: string, what: string, line: number, at: (line: number, why: string) => Error): string {
  const problem = currencyProblem(value);
  if (problem !== undefined) throw at(line, `${what} "${printable(value)}": ${problem}`);
  // Cells come trimmed (csv-parse's trim).
  return value.toUpperCase();
}

/** Unix seconds of a row's time; null for `*`. */
function timeAt(value: string, line: number, at: (line: number, why: string) => Error): number | null {
  if (value === '*') return null;
  const utc = utcSeconds(value);
  if (utc !== undefined) return utc;
  const m = DATE.exec(value) ?? DATE_TIME.exec(value);
  if (!m) {
    const noZone = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value);
    throw at(line, noZone ? `time "${printable(value)}" has no zone: add Z or an offset such as +01:00 (RFC 3339)` : `time "${printable(value)}": expected YYYY-MM-DD, an RFC 3339 date-time with a zone, or *`);
  }
  const [, y, mo, d, h, mi, s, fraction, sign, zh, zm] = m;
  // A date alone is 00:00:00Z; Z is an offset of 0.
  const [year, month, day, hour, minute, second, zoneHours, zoneMinutes] = [y, mo, d, h, mi, s, zh, zm].map((x) => Number(x ?? 0));
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) {
    throw at(line, `time "${printable(value)}" is no such instant after 1970`);
  }
  if (Number(fraction ?? 0) > 0) throw at(line, `time "${printable(value)}": rates are stamped to the second`);
  if (zoneHours > 23 || zoneMinutes > 59) throw at(line, `time "${printable(value)}": the zone offset is out of range`);
  const offset = (sign === '-' ? -1 : 1) * (zoneHours * 3600 + zoneMinutes * 60);
  return Date.UTC(year, month - 1, day, hour, minute, second) / 1000 - offset;
}

/**
 * Unix seconds of `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ` (what scripts write: every row of
 * an hourly dump) read digit by digit, without the regular expressions' match arrays;
 * undefined for any other text, or one that is no such instant (timeAt reads it again and
 * says why). The same instant as timeAt's for each text it reads.
 */
function utcSeconds(v: string): number | undefined {
  // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: a text declined here is read by timeAt, to the same instant
  const dated = v.length === 10 || (v.length === 20 && v.charCodeAt(10) === 84 && v.charCodeAt(13) === 58 && v.charCodeAt(16) === 58 && v.charCodeAt(19) === 90);
  // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: a text declined here is read by timeAt, to the same instant
  if (!dated || v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45) return undefined;
  const year = digitsAt(v, 0, 4);
  const month = digitsAt(v, 5, 2);
  const day = digitsAt(v, 8, 2);
  const clock = v.length === 20;
  const hour = clock ? digitsAt(v, 11, 2) : 0;
  const minute = clock ? digitsAt(v, 14, 2) : 0;
  const second = clock ? digitsAt(v, 17, 2) : 0;
  // A NaN (a character that is not a digit) fails every comparison.
  const exists = year >= 1970 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && hour <= 23 && minute <= 59 && second <= 59;
  return exists ? Date.UTC(year, month - 1, day, hour, minute, second) / 1000 : undefined;
}

/** The number written by `length` ASCII digits from `start`; NaN if one is not a digit. */
function digitsAt(text: string, start: number, length: number): number {
  let n = 0;
  for (let i = start; i < start + length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return n;
}

/** The days of a month (1 to 12) of the Gregorian calendar. */
function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
