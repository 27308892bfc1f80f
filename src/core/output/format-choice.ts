import { extname } from 'node:path';
import { UsageError } from '../runtime/errors.js';
import { optionSchemas, parseOption } from '../runtime/options.js';
import { printable } from './sanitize.js';
import { FORMAT_TABLE, type Format } from './formats.js';

// Which format a run prints in: -f, else PAYREC_FORMAT, else what -o's file name says
// (as DuckDB's COPY and pandas read it), else the table (tab-separated text in a file).

/** The format a file name's extension names (formats.ts); `.tsv` is the table as a pipe gets it (tab-separated, a header line). */
const EXTENSION_FORMATS: Readonly<Record<string, Format>> = Object.fromEntries(FORMAT_TABLE.flatMap((f) => f.extensions.map((e) => [e, f.name])));

/**
 * `-o` takes a file name. A bare format's name (`-o json`, `-o wide`: kubectl's habit)
 * or an extension payrec cannot write (`.xls`, `.ods`, `.parquet`) would get a file
 * named so holding something else: refused (exit 2) with the flag that does it.
 */
const NOT_FILE_NAMES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(FORMAT_TABLE.map((f) => [f.name, f.needsFile ? `-f ${f.name} -o FILE${f.extensions[0]}` : `-f ${f.name}`])),
  ndjson: '-f jsonl',
  tsv: '-f table (tab-separated when piped)',
  wide: '--wide',
  yaml: '-f json',
};
const UNWRITABLE_EXTENSIONS: Readonly<Record<string, string>> = {
  '.xls': '-o FILE.xlsx (a workbook every spreadsheet opens)',
  '.xlsm': '-o FILE.xlsx',
  '.ods': '-o FILE.xlsx (LibreOffice opens it) or -o FILE.csv',
  '.numbers': '-o FILE.xlsx (Numbers opens it) or -o FILE.csv',
  '.parquet': 'payrec sync --parquet DIR (Parquet of the mirror)',
  '.yaml': '-o FILE.json',
  '.yml': '-o FILE.json',
};

export function refuseOutputName(file: string): void {
  const flag = NOT_FILE_NAMES[file.toLowerCase()];
  if (flag !== undefined) {
    throw new UsageError(`-o takes a file name, and "${printable(file)}" is a format's name: nothing was written`, `for that format use ${flag} (with -o FILE to write a file)`);
  }
  const ext = extname(file).toLowerCase();
  const instead = UNWRITABLE_EXTENSIONS[ext];
  if (instead !== undefined) {
    throw new UsageError(`payrec cannot write ${ext} files (-o "${printable(file)}"): nothing was written`, `use ${instead}`);
  }
}

/** The format `file`'s extension names (any case), or undefined for another extension or none. */
export function formatOfFile(file: string): Format | undefined {
  return EXTENSION_FORMATS[extname(file).toLowerCase()];
}

/** How a run's format was chosen, as the user typed it (`-f csv`, `PAYREC_FORMAT=csv`, `-o "x.csv" (csv)`), for messages. */
export function formatGivenAs(flag: string | undefined, env: NodeJS.ProcessEnv, output: string | undefined, format: Format): string {
  if (flag !== undefined) return `-f ${format}`;
  if (env.PAYREC_FORMAT) return `PAYREC_FORMAT=${format}`;
  return output !== undefined && formatOfFile(output) !== undefined ? `-o "${printable(output)}" (${format})` : `-f ${format}`;
}

/**
 * The run's format. A format given (-f or PAYREC_FORMAT) that contradicts -o's extension
 * is refused: a `report.xlsx` holding CSV would open as garbage, or not at all.
 */
export function chooseFormat(flag: string | undefined, env: NodeJS.ProcessEnv, output: string | undefined, stored?: { value: string; source: string }): Format {
  const given = flag !== undefined ? { value: flag, source: '--format' } : env.PAYREC_FORMAT ? { value: env.PAYREC_FORMAT, source: 'PAYREC_FORMAT' } : undefined;
  const named = output === undefined ? undefined : formatOfFile(output);
  // A profile's format is a default: below -o's extension, which names this one file.
  if (!given) return named ?? (stored ? parseOption(optionSchemas.format, stored.value, stored.source) : 'table');
  const format = parseOption(optionSchemas.format, given.value, given.source);
  if (named !== undefined && named !== format) {
    const what = given.source === '--format' ? `-f ${format}` : `PAYREC_FORMAT=${format}`;
    throw new UsageError(
      `${what} contradicts -o "${printable(output!)}", whose extension means ${named === 'table' ? 'tab-separated text' : named}`,
      `give a file name that ends in ${extensionsOf(format)}, or leave ${given.source === '--format' ? '-f' : 'PAYREC_FORMAT'} out`,
    );
  }
  return format;
}

function extensionsOf(format: Format): string {
  const names = Object.entries(EXTENSION_FORMATS)
    .filter(([, f]) => f === format)
    .map(([ext]) => ext);
  return names.length ? names.join(' or ') : 'another extension';
}
