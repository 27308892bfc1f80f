import type { Page, PageWindow } from './paginate.js';
import type { WalkWindow } from './list-query.js';

// Several lists read as one, merged by time (`payrec transfers`). Each list is walked
// by the one paginator, exactly as it would be alone (pinned window, repaired joins
// under live traffic), so the merge holds every record of every list once; the merge
// only orders them. The order is total: timestamp, then the list's place among the
// sources, then the record's identity; a descending list is the exact reverse of the
// ascending one. Within one list the server's order of records of the same second is
// its own, so each list's records are taken a second at a time and sorted by identity
// (memory: one second of records per list).

export interface MergeSource {
  /** Written into each record under the merge's `field` (e.g. the product). */
  tag: string;
  walk: WalkWindow;
  identity: (record: Record<string, unknown>) => string;
}

/** Merged records are handed on in pages of this many (progress and backpressure stay per page). */
const BATCH = 1000;

/**
 * A walk of the merged list. `window.limit` and `window.offset` count merged records:
 * each list is asked for offset + limit records from its start (the first N merged
 * records hold at most N of any list; a second that limit cuts is read whole, see
 * Cursor.completeRun) and the merge skips the first `offset`.
 * `window.concurrency` is shared among the lists, at least one page each.
 * Each page's `total` is the sum of the lists' totals as last seen.
 */
export function mergeWalks(sources: readonly MergeSource[], field: string): WalkWindow {
  return async function* (window, from, to, sort) {
    const shared = window.concurrency;
    const share = (n: number) => Math.max(1, Math.ceil(n / sources.length));
    const each: PageWindow = {
      limit: window.offset + window.limit,
      pageSize: window.pageSize,
      offset: 0,
      // A window that moves (the client's) is shared as it moves.
      concurrency: typeof shared === 'number' ? share(shared) : { get size() { return share(shared.size); } },
    };
    const cursors = sources.map((s, i) => new Cursor(s, i, each, from, to, sort ?? 'desc'));
    const total = () => cursors.reduce((sum, c) => sum + c.total, 0);
    try {
      // Every list's first page before the first merged record: their totals are all known.
      const started = await Promise.all(cursors.map((c) => c.advance()));
      const live = cursors.filter((_, i) => started[i]);
      const wanted = window.offset + window.limit;
      let taken = 0;
      let out: Record<string, unknown>[] = [];
      while (live.length > 0 && taken < wanted) {
        let best = 0;
        for (let i = 1; i < live.length; i++) if (live[i].precedes(live[best])) best = i;
        const c = live[best];
        const record = c.take();
        if (taken++ >= window.offset) out.push({ [field]: c.source.tag, ...record });
        if (c.exhausted() && !(await c.advance())) live.splice(best, 1);
        if (out.length >= BATCH) {
          yield { records: out, total: total() };
          out = [];
        }
      }
      yield { records: out, total: total() } satisfies Page;
    } finally {
      await Promise.allSettled(cursors.map((c) => c.close()));
    }
  };
}

/** One list's records, a second at a time, each second's records in identity order. */
class Cursor {
  total = 0;
  private readonly pages: AsyncGenerator<Page>;
  private readonly desc: boolean;
  private page: Record<string, unknown>[] = [];
  private at = 0;
  private ended = false;
  /** Records the walk has yielded: when it stopped at its limit, its last second may be cut. */
  private received = 0;
  /** The records of the current second, in merge order; `pos` is the next one. */
  private run: Record<string, unknown>[] = [];
  private pos = 0;
  private second = 0;

  constructor(
    readonly source: MergeSource,
    readonly index: number,
    private readonly window: PageWindow,
    from: number | undefined,
    to: number | undefined,
    private readonly sort: 'asc' | 'desc',
  ) {
    this.pages = source.walk(window, from, to, sort);
    this.desc = sort === 'desc';
  }

  /** Loads the next second's records; false when the list has no more. */
  async advance(): Promise<boolean> {
    this.run = [];
    this.pos = 0;
    if (!(await this.fill())) return false;
    this.second = timestampOf(this.page[this.at]);
    for (;;) {
      while (this.at < this.page.length && timestampOf(this.page[this.at]) === this.second) this.run.push(this.page[this.at++]);
      if (this.at < this.page.length || !(await this.fill())) break;
    }
    // The walk stopped at its limit inside this second: the records of the second it left
    // unread may come first by identity, so the whole second is read.
    if (this.ended && this.received >= this.window.limit) await this.completeRun();
    if (this.run.length > 1) {
      const keyed = this.run.map((r) => ({ r, id: this.source.identity(r) }));
      keyed.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * (this.desc ? -1 : 1));
      this.run = keyed.map((k) => k.r);
    }
    return true;
  }

  private async completeRun(): Promise<void> {
    const ids = new Set(this.run.map(this.source.identity));
    const whole = { limit: Infinity, pageSize: 1000, offset: 0, concurrency: 1 };
    for await (const page of this.source.walk(whole, this.second, this.second, this.sort)) {
      for (const r of page.records) if (!ids.has(this.source.identity(r))) this.run.push(r);
    }
  }

  take(): Record<string, unknown> {
    return this.run[this.pos++];
  }

  exhausted(): boolean {
    return this.pos >= this.run.length;
  }

  /** Whether this list's next record comes before `other`'s in the merged order. */
  precedes(other: Cursor): boolean {
    if (this.second !== other.second) return this.desc ? this.second > other.second : this.second < other.second;
    if (this.index !== other.index) return this.desc ? this.index > other.index : this.index < other.index;
    return false; // one list: never compared with itself
  }

  close(): Promise<unknown> {
    return this.pages.return(undefined);
  }

  private async fill(): Promise<boolean> {
    while (this.at >= this.page.length) {
      if (this.ended) return false;
      const next = await this.pages.next();
      if (next.done) {
        this.ended = true;
        return false;
      }
      this.total = next.value.total;
      this.page = next.value.records;
      this.received += this.page.length;
      this.at = 0;
    }
    return true;
  }
}

/** The paginator has checked every timestamp it ordered by; a page's records all have one. */
function timestampOf(r: Record<string, unknown>): number {
  const t = r.timestamp;
  return typeof t === 'number' ? t : Number(t);
}
