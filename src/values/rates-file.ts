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
  let records: CsvRecord[];
  try {
    records = csvRecords(text);
  } catch (err) {
    // Stryker disable next-line ConditionalExpression: csvRecords throws nothing but CsvSyntaxError for any text; another error would be payrec's own bug
    if (!(err instanceof CsvSyntaxError)) throw err;
    throw at(err.line, `not CSV: ${printable(err.message.replace(/ (on|at) line \d+/, ''))}`);
  }
  if (records.length === 0) throw at(1, 'empty: expected the header time,chain,token,currency,rate,source');
  const header = records[0].record.map((c) => c.toLowerCase());
  const known = new Set<string>([...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS]);
  const index = new Map<Column, number>();
  header.forEach((c, i) => {
    if (!known.has(c)) throw at(records[0].line, `unknown column "${printable(c)}": expected ${[...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS].join(', ')}`);
    if (index.has(c as Column)) throw at(records[0].line, `the column ${c} is named twice`);
    index.set(c as Column, i);
  });
  const lacking = REQUIRED_COLUMNS.filter((c) => !index.has(c));
  if (lacking.length) throw at(records[0].line, `the header lacks ${lacking.join(', ')}`);

  const rows: RateRow[] = [];
  /**
   * The first line of each key, and its rate: duplicates must agree. By pair, then by
   * time (a number): a string key per row cost an hourly file of 87,600 rows more than
   * its parse (each key made, flattened, hashed and kept).
   */
  const seen = new Map<string, Map<number | null, RateRow>>();
  // Rows come grouped by pair: the last pair's map is reused while the pair holds.
  let lastPair: { chain: string; token: string; currency: string; times: Map<number | null, RateRow> } | undefined;
  // A file repeats its currencies: each text is checked once. Times are read again unless
  // the line before had the same (a daily file's rows of one day): a map of every time
  // text cost an hourly file more than reading each (its lookups hash a new text a row).
  let lastTime: { text: string; time: number | null } | undefined;
  const currencies = new Map<string, string>();
  const currencyOf = (value: string, what: string, line: number) => {
    let code = currencies.get(value);
    // Stryker disable next-line ConditionalExpression: a cache; checking a currency again gives the same code
    if (code === undefined) currencies.set(value, (code = currencyAt(value, what, line, at)));
    return code;
  };
  for (let r = 1; r < records.length; r++) {
    const { record, line } = records[r];
    if (record.length !== header.length) throw at(line, `${record.length} cell${record.length === 1 ? '' : 's'}, but the header has ${header.length}`);
    const cell = (c: Column) => (index.has(c) ? record[index.get(c)!] : '');
    const chain = cell('chain');
    if (chain !== ANY_CHAIN && chain !== FIAT && !(KNOWN_CHAINS as readonly string[]).includes(chain)) {
      throw at(line, `chain "${printable(chain)}": expected ${KNOWN_CHAINS.join(', ')}, * (every chain) or fiat`);
    }
    const token = cell('token');
    if (token === '') throw at(line, 'no token');
    const currency = currencyOf(cell('currency'), 'currency', line);
    if (chain === FIAT) {
      currencyOf(token, 'token (a currency on a fiat row)', line);
      if (token.toUpperCase() === currency) throw at(line, `a fiat row from ${currency} to itself`);
    }
    const rate = cell('rate');
    if (!RATE.test(rate)) throw at(line, `rate "${printable(rate)}": expected plain decimal text such as 612.34 (no sign, no exponent, no thousands separator)`);
    const source = cell('source');
    if (source === '') throw at(line, 'no source: every rate says where it came from');
    const timeText = cell('time');
    // Stryker disable next-line ConditionalExpression: a cache; reading a time again gives the same instant (an invalid one fails the first time)
    if (lastTime?.text !== timeText) lastTime = { text: timeText, time: timeAt(timeText, line, at) };
    const time = lastTime.time;
    const row: RateRow = { line, time, chain, token: chain === FIAT ? token.toUpperCase() : token, currency, rate, source };
    if (cell('address')) row.address = cell('address');
    if (cell('note')) row.note = cell('note');
    if (!lastPair || lastPair.chain !== chain || lastPair.token !== row.token || lastPair.currency !== currency) {
      // Unambiguous: only the token is free text, and the currency after it is three letters.
      const pair = `${chain}\u0000${row.token}\u0000${currency}`;
      let times = seen.get(pair);
      if (!times) seen.set(pair, (times = new Map()));
      lastPair = { chain, token: row.token, currency, times };
    }
    const earlier = lastPair.times.get(time);
    if (earlier && plainDecimal(earlier.rate) !== plainDecimal(rate)) throw at(line, `${row.token} → ${currency} on ${chain} at ${timeText} is ${rate} here but ${earlier.rate} on line ${earlier.line}`);
    if (earlier) continue;
    lastPair.times.set(time, row);
    rows.push(row);
  }
  return rows;
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
  const m = DATE.exec(value) ?? DATE_TIME.exec(value);
  if (!m) {
    const noZone = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value);
    throw at(line, noZone ? `time "${printable(value)}" has no zone: add Z or an offset such as +01:00 (RFC 3339)` : `time "${printable(value)}": expected YYYY-MM-DD, an RFC 3339 date-time with a zone, or *`);
  }
  const [, y, mo, d, h, mi, s, fraction, sign, zh, zm] = m;
  // A date alone is 00:00:00Z; Z is an offset of 0.
  const [year, month, day, hour, minute, second, zoneHours, zoneMinutes] = [y, mo, d, h, mi, s, zh, zm].map((x) => Number(x ?? 0));
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > days || hour > 23 || minute > 59 || second > 59) {
    throw at(line, `time "${printable(value)}" is no such instant after 1970`);
  }
  if (Number(fraction ?? 0) > 0) throw at(line, `time "${printable(value)}": rates are stamped to the second`);
  if (zoneHours > 23 || zoneMinutes > 59) throw at(line, `time "${printable(value)}": the zone offset is out of range`);
  const offset = (sign === '-' ? -1 : 1) * (zoneHours * 3600 + zoneMinutes * 60);
  return Date.UTC(year, month - 1, day, hour, minute, second) / 1000 - offset;
}
