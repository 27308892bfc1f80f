import { parse } from 'csv-parse/sync';

// The records of a rates file, each with the line it ends on, as csv-parse reads them
// with the rates file's options (a BOM skipped, cells trimmed, empty lines skipped, rows
// of any width). csv-parse reads a byte at a time: a team's hourly file of 87,600 rows
// took it 13 s on a loaded machine. A file with no quote and no white space but spaces
// and line ends (what a spreadsheet or a script writes) has no field that spans lines
// and nothing to unquote, so its records are its lines split at commas: that is read
// here, about ten times faster; every other file is csv-parse's. The two are held equal
// on generated files (test/unit/values-csv-records.test.ts).

export interface CsvRecord {
  record: string[];
  /** The line the record ends on (1 is the first). */
  line: number;
}

/** A CSV error with the line csv-parse stopped at. */
export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/** Nothing but a quote or white space other than a space or a line feed ends the fast path. */
const NOT_PLAIN = /["\t\v\f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/** The records of a text, each made when the reader asks for it: none of a large file's is kept past its row's check. */
export function csvRecords(text: string): IterableIterator<CsvRecord> {
  const body = text.startsWith('\ufeff') ? text.slice(1) : text;
  const eol = lineEnd(body);
  return eol === undefined ? parsed(text)[Symbol.iterator]() : split(body, eol);
}

/** The line end of a text csv-parse would split at line ends alone: every one \n, or every one \r\n; undefined otherwise. */
function lineEnd(text: string): '\n' | '\r\n' | undefined {
  if (NOT_PLAIN.test(text)) return undefined;
  if (!text.includes('\r')) return '\n';
  // Every \r before a \n, and every \n after a \r.
  return /\r(?!\n)|(?<!\r)\n/.test(text) ? undefined : '\r\n';
}

function* split(text: string, eol: string): IterableIterator<CsvRecord> {
  // The lines of text.split(eol), one at a time: the last is what follows the last line end ('' after a final one).
  for (let start = 0, n = 1; start <= text.length; n++) {
    const found = text.indexOf(eol, start);
    const end = found === -1 ? text.length : found;
    const line = text.slice(start, end);
    start = end + eol.length;
    // Only spaces: an empty line (trimmed), skipped. A line without a space (most) has no cell to trim.
    const spaced = line.includes(' ');
    if (spaced ? line.trim() === '' : line === '') continue;
    const record = line.split(',');
    if (spaced) for (let c = 0; c < record.length; c++) record[c] = record[c].trim();
    yield { record, line: n };
  }
}

function parsed(text: string): CsvRecord[] {
  try {
    const records = parse(text, { bom: true, info: true, trim: true, skip_empty_lines: true, relax_column_count: true }) as unknown as { record: string[]; info: { lines: number } }[];
    return records.map(({ record, info }) => ({ record, line: info.lines }));
  } catch (err) {
    throw new CsvSyntaxError(String((err as Error).message), (err as { lines?: number }).lines ?? 1);
  }
}
