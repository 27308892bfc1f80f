import { UsageError } from '../runtime/errors.js';
import { formatNamed } from '../output/formats.js';
import type { Endpoint } from '../../registry/types.js';
import type { ApiClient } from '../http/client.js';
import type { Period } from './chart.js';
import type { Page, PageWindow } from './paginate.js';
import type { RecordEnricher } from './enrich.js';

/**
 * The records a list command asked for; `concurrency`: --concurrency, pages at once, or
 * undefined: the client's window finds the pace.
 */
export type ListWindow = Omit<PageWindow, 'concurrency'> & { concurrency?: number };

/** What a list command asked for: the window of records and what to make of them. */
export interface ListQuery {
  window: ListWindow;
  from?: number;
  to?: number;
  sort?: 'asc' | 'desc';
  summary?: boolean;
  /** `zone`: --tz, where each day, week or month of the chart begins. */
  chart?: { period: Period; token?: string; zone: string };
  /**
   * --follow: poll every `intervalMs`, re-reading `lookbackSeconds` back for records that
   * arrive late; records stamped at or after `startedAt` (the command's start, Unix
   * seconds) are new even when the first poll sees them.
   */
  follow?: { intervalMs: number; lookbackSeconds: number; startedAt: number };
  /** --status/--failed: keep the records whose status (status.ts statusReader) is one of these; --limit counts them. */
  statuses?: Set<string>;
  /** --count: print only the number of matching records. */
  count?: boolean;
  /** --fail-if-any: exit 9 when at least one record matched. */
  failIfAny?: boolean;
  /** --jq EXPR: run over the JSON document that -f json would print (compiled before any request). */
  jq?: string;
  /** Hooks that add fields to each page's records, in order (enrich.ts): --verify's. */
  enrichers?: RecordEnricher[];
}

/** Walks [from, to] of a list in `sort` order (the API's default, desc, when absent). */
export type WalkWindow = (window: PageWindow, from: number | undefined, to: number | undefined, sort: 'asc' | 'desc' | undefined) => AsyncGenerator<Page>;

/**
 * A list read from several endpoints as one (`payrec transfers`): described like an
 * endpoint for checks and output, it brings its own walk instead of a path.
 */
export interface MergedList extends Pick<Endpoint, 'record' | 'identity' | 'columns'> {
  kind: 'list';
  method: 'GET';
  timeWindow: true;
  /** How messages name it: `/:product/transfers`. */
  path: string;
  /** How --follow's notice names it. */
  title: string;
  /** Every field a record may have, for the CSV header (OutputOptions.fields). */
  fields: readonly string[];
  /** The collection a record came from (`fixed-recurring/billings`), for the enrichers (--verify). */
  collectionOf(record: Record<string, unknown>): string;
  walk(client: ApiClient): WalkWindow;
  /**
   * The records kept of those walked, when payrec filters some itself (a filter one of
   * the lists lacks in the API): kept after the walk, as --status keeps them, so --limit
   * counts kept records and the walk is never cut short by it.
   */
  keep?: (record: Record<string, unknown>) => boolean;
}

/** --count prints one number: a format written to a file (a workbook) has nowhere to put it (and a .xlsx file of text is no workbook). */
export function refuseCountToFile(count: boolean | undefined, format: string): void {
  if (count && formatNamed(format)?.needsFile) throw new UsageError(`--count prints a number: -f ${format} does not apply`, `leave out -f ${format}, or drop --count to export the records`);
}
