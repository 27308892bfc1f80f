import type { Period } from './chart.js';
import type { PageWindow } from './paginate.js';

/** What a list command asked for: the window of records and what to make of them. */
export interface ListQuery {
  window: PageWindow;
  from?: number;
  to?: number;
  sort?: 'asc' | 'desc';
  summary?: boolean;
  chart?: { period: Period; token?: string };
  follow?: { intervalMs: number };
}
