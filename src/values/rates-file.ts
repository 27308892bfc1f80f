import { parse } from 'csv-parse/sync';
import { UsageError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import { KNOWN_CHAINS } from '../registry/validators.js';
import { parseCurrency } from './currency.js';

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
// stamped to the second), and a zone, required.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;
const RATE = /^\d+(\.\d+)?$/;

/** The rows of a rates file; a malformed line is a UsageError naming `name` and the line. */
export function parseRatesFile(text: string, name: string): RateRow[] {
  const at = (line: number, why: string) => new UsageError(`${name}:${line}: ${why}`, 'a rates file is CSV with the header time,chain,token,currency,rate,source (docs/values.md "The rates file")');
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { bom: true, info: true, trim: true, skip_empty_lines: true, relax_column_count: false }) as never;
  } catch (err) {
    const line = (err as { lines?: number }).lines ?? 1;
    throw at(line, `not CSV: ${printable(String((err as Error).message).replace(/ (on|at) line \d+/, ''))}`);
  }
  if (records.length === 0) throw at(1, 'empty: expected the header time,chain,token,currency,rate,source');
  const header = records[0].record.map((c) => c.toLowerCase());
  const known = new Set<string>([...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS]);
  const index = new Map<Column, number>();
  header.forEach((c, i) => {
    if (!known.has(c)) throw at(records[0].info.lines, `unknown column "${printable(c)}": expected ${[...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS].join(', ')}`);
    if (index.has(c as Column)) throw at(records[0].info.lines, `the column ${c} is named twice`);
    index.set(c as Column, i);
  });
  const lacking = REQUIRED_COLUMNS.filter((c) => !index.has(c));
  if (lacking.length) throw at(records[0].info.lines, `the header lacks ${lacking.join(', ')}`);

  const rows: RateRow[] = [];
  /** The first line of each key, and its rate: duplicates must agree. */
  const seen = new Map<string, RateRow>();
  for (const { record, info } of records.slice(1)) {
    const line = info.lines;
    const cell = (c: Column) => (index.has(c) ? record[index.get(c)!] : '');
    const chain = cell('chain');
    if (chain !== ANY_CHAIN && chain !== FIAT && !(KNOWN_CHAINS as readonly string[]).includes(chain)) {
      throw at(line, `chain "${printable(chain)}": expected ${KNOWN_CHAINS.join(', ')}, * (every chain) or fiat`);
    }
    const token = cell('token');
    if (token === '') throw at(line, 'no token');
    const currency = currencyAt(cell('currency'), 'currency', line, at);
    if (chain === FIAT) {
      currencyAt(token, 'token (a currency on a fiat row)', line, at);
      if (token.toUpperCase() === currency) throw at(line, `a fiat row from ${currency} to itself`);
    }
    const rate = cell('rate');
    if (!RATE.test(rate)) throw at(line, `rate "${printable(rate)}": expected plain decimal text such as 612.34 (no sign, no exponent, no thousands separator)`);
    const source = cell('source');
    if (source === '') throw at(line, 'no source: every rate says where it came from');
    const row: RateRow = { line, time: timeAt(cell('time'), line, at), chain, token: chain === FIAT ? token.toUpperCase() : token, currency, rate, source };
    if (cell('address')) row.address = cell('address');
    if (cell('note')) row.note = cell('note');
    const key = `${row.time ?? '*'}\u0000${chain}\u0000${row.token}\u0000${currency}`;
    const earlier = seen.get(key);
    if (earlier && !sameRate(earlier.rate, rate)) throw at(line, `${row.token} → ${currency} on ${chain} at ${cell('time')} is ${rate} here but ${earlier.rate} on line ${earlier.line}`);
    if (earlier) continue;
    seen.set(key, row);
    rows.push(row);
  }
  return rows;
}

function currencyAt(value: string, what: string, line: number, at: (line: number, why: string) => Error): string {
  try {
    return parseCurrency(value, what);
  } catch (err) {
    throw at(line, (err as Error).message.replace(/^invalid /, ''));
  }
}

/** Unix seconds of a row's time; null for `*`. */
function timeAt(value: string, line: number, at: (line: number, why: string) => Error): number | null {
  if (value === '*') return null;
  const date = DATE.exec(value);
  const m = date ?? DATE_TIME.exec(value);
  if (!m) {
    const noZone = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value);
    throw at(line, noZone ? `time "${printable(value)}" has no zone: add Z or an offset such as +01:00 (RFC 3339)` : `time "${printable(value)}": expected YYYY-MM-DD, an RFC 3339 date-time with a zone, or *`);
  }
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction, zone = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > days || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) {
    throw at(line, `time "${printable(value)}" is no such instant after 1970`);
  }
  if (fraction !== undefined && /[1-9]/.test(fraction)) throw at(line, `time "${printable(value)}": rates are stamped to the second`);
  const offset = zone.toUpperCase() === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  if (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4, 6)) > 59) throw at(line, `time "${printable(value)}": the zone offset is out of range`);
  return Date.UTC(year, month - 1, day, Number(h), Number(mi), Number(s)) / 1000 - offset;
}

/** 1.0830 and 1.083 are the same rate. */
function sameRate(a: string, b: string): boolean {
  const norm = (x: string) => (x.includes('.') ? x.replace(/0+$/, '').replace(/\.$/, '') : x).replace(/^0+(?=\d)/, '');
  return norm(a) === norm(b);
}
