import type { Endpoint } from '../../registry/types.js';
import type { ApiClient } from '../http/client.js';
import type { Period } from './chart.js';
import type { Page, PageWindow } from './paginate.js';

/** What a list command asked for: the window of records and what to make of them. */
export interface ListQuery {
  window: PageWindow;
  from?: number;
  to?: number;
  sort?: 'asc' | 'desc';
  summary?: boolean;
  chart?: { period: Period; token?: string };
  /** --follow: poll every `intervalMs`, re-reading `lookbackSeconds` back for records that arrive late. */
  follow?: { intervalMs: number; lookbackSeconds: number };
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
  walk(client: ApiClient): WalkWindow;
}
