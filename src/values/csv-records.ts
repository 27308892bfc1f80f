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

export function csvRecords(text: string): CsvRecord[] {
  const body = text.startsWith('\ufeff') ? text.slice(1) : text;
  const lines = plainLines(body);
  return lines ? split(lines) : parsed(text);
}

/** The lines of a text csv-parse would split at line ends alone: every one \n, or every one \r\n; undefined otherwise. */
function plainLines(text: string): string[] | undefined {
  if (NOT_PLAIN.test(text)) return undefined;
  if (!text.includes('\r')) return text.split('\n');
  const lines = text.split('\r\n');
  return lines.some((l) => l.includes('\r') || l.includes('\n')) ? undefined : lines;
}

function split(lines: string[]): CsvRecord[] {
  const out: CsvRecord[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    // Only spaces: an empty line (trimmed), skipped. A line without a space (most) has no cell to trim.
    const spaced = line.includes(' ');
    if (spaced ? line.trim() === '' : line === '') continue;
    const record = line.split(',');
    if (spaced) for (let c = 0; c < record.length; c++) record[c] = record[c].trim();
    out.push({ record, line: i + 1 });
  }
  return out;
}

function parsed(text: string): CsvRecord[] {
  try {
    const records = parse(text, { bom: true, info: true, trim: true, skip_empty_lines: true, relax_column_count: true }) as unknown as { record: string[]; info: { lines: number } }[];
    return records.map(({ record, info }) => ({ record, line: info.lines }));
  } catch (err) {
    throw new CsvSyntaxError(String((err as Error).message), (err as { lines?: number }).lines ?? 1);
  }
}
