import type { CellKind } from './document.js';
import type { Format } from './formats.js';

// What every format is given (writer.ts createWriter; the terminal table, the rows
// every format shares): below the writer and its emitters, which all read it.

export interface OutputOptions {
  format: Format;
  /** `single`: json prints the object itself; the table shows a field/value view. */
  kind: 'list' | 'single';
  /** --columns: fields to print, in order (dotted paths for nested fields). */
  columns?: string[];
  /** The registry's table columns; json, jsonl and csv print every field unless --columns. */
  defaultColumns: string[];
  /** The default columns are names as they are, not dotted paths (SQL result columns such as `sum(t.x)`). */
  literalColumns?: boolean;
  /** Records may hold BigInts (payrec sql's integers beyond a double): json writes them as numbers with every digit. */
  bigInts?: boolean;
  /**
   * Every field the records may have, when they differ by kind (`payrec transfers`): the
   * CSV header is these, then any other field of the first record, so it does not depend
   * on which kind of record comes first.
   */
  fields?: readonly string[];
  /** The header of an export that has no record to take it from: the list's record fields. */
  emptyHeader?: readonly string[];
  /**
   * How a format of typed cells (-f xlsx) holds each column (payrec sql: from its DuckDB type; other columns are
   * plain). Without it, columns are told by their field names (amount, timestamp…).
   */
  cellKinds?: ReadonlyMap<string, CellKind>;
  /** --flatten FIELD: one row per element of that top-level array field. */
  flatten?: string;
  /** --csv-raw: no spreadsheet-formula neutralisation. */
  csvRaw: boolean;
  /** --bom: CSV begins with the UTF-8 byte-order mark, without which Excel reads it in a legacy code page. */
  bom?: boolean;
  /** Tells the user what a format cannot show as sent (stderr; --quiet silences it). */
  warn?: (message: string) => void;
  /** stdout is a terminal: box-drawn table; otherwise tab-separated text. */
  tty: boolean;
  /** A terminal that cannot draw boxes (TERM=dumb): the table prints as in a pipe. */
  dumb?: boolean;
  /** Colour allowed (terminal, no NO_COLOR / --no-color). */
  color: boolean;
  /** Terminal width in columns; the table is fitted to it. */
  width?: number;
  /** Columns the terminal table leaves out last when the width is short (the ones that answer: a ledger's id, mrr, state). */
  keepColumns?: readonly string[];
  /** --wide: the terminal table shortens no value (ids, JSON) to fit the width. */
  wide?: boolean;
  /** --follow: the terminal table grows a line per record as they come, under one header. */
  growing?: boolean;
  /**
   * How a record's status reads in a terminal table, when payrec's meaning differs from
   * the API's transactionStatus ("failed (success 0)"); undefined keeps the field as sent.
   */
  statusLabel?: (record: Record<string, unknown>) => string | undefined;
  /** --tz: the IANA zone readable and ISO times are shown in. */
  zone: string;
  /** --time-format; when absent each format has its own (see timeStyleOf). */
  timeFormat?: 'unix' | 'iso';
}
