// What a format written by a module of its own is given (formats.ts `load`; xlsx.ts
// today, the close report's html page next): columns that know how each cell is held,
// rows, and the options of the run. Kept apart from writer.ts and formats.ts so that
// both, and every such module, read it without reading each other.

/** How a column's cells are held: times and dates as date cells, amounts, values and rates as numbers with their exact text beside, ratios (fractions) as percent-formatted numbers with theirs. */
export type CellKind = 'time' | 'date' | 'amount' | 'value' | 'rate' | 'ratio' | 'plain';

export interface SheetColumn {
  name: string;
  get: (row: Record<string, unknown>) => unknown;
  kind: CellKind;
}

export interface DocumentOptions {
  /** IANA zone in which times are shown (default UTC). */
  timeZone?: string;
  /** Tells the user what the document cannot show as sent (stderr; --quiet silences it). */
  warn?: (message: string) => void;
  /** Where exact totals of rounded amounts are found, said after the count of them. */
  exactTotals?: string;
  /** Data rows per sheet before the next sheet begins (Excel's limit; smaller in tests). */
  rowsPerSheet?: number;
}

export interface SheetWriter {
  row(row: Record<string, unknown>): void | Promise<void>;
  end(): Promise<void>;
}

/**
 * Starts a document streamed to `out` (which the module ends when the document is
 * complete). `first` is the first record, if any: columns are as wide as its values.
 */
export type OpenDocument = (out: NodeJS.WritableStream, columns: SheetColumn[], first: Record<string, unknown> | undefined, options: DocumentOptions) => SheetWriter;
