import type { Endpoint } from '../../registry/types.js';
import type { Envelope } from '../../registry/schemas.js';
import { MalformedResponseError } from '../runtime/errors.js';
import { Fingerprints } from './fingerprints.js';
import { inTimeRange } from '../runtime/time.js';
import { grouped } from '../output/grouped.js';

// The one paginator. It asks for the first page, learns `total`, then fetches the
// remaining pages with bounded concurrency and yields them strictly in order, so a
// consumer can stream them out while at most `concurrency` pages are held in memory.
// The concurrency may be a window whose size moves while the walk runs (the client's
// RequestWindow, which finds the pace): it is read before each page is asked for.
//
// Exact while records arrive (lists with a time window, given an `Ordering`)
// --------------------------------------------------------------------------
// The API pages by offset only. Records keep arriving while we read, some of them
// late (a timestamp already inside the window), so the record at a given offset
// moves: pages fetched at different moments can overlap (a record printed twice) or
// leave a gap (a record never printed). Records are mostly added (a status may change;
// now and then one vanishes, a transaction dropped, or its timestamp is corrected), and
// the list is ordered by timestamp. Hence:
//
// 1. `total` only grows. Two pages that report the same total saw the same list, so
//    they join seamlessly: no overlap, no gap. In a quiet list every page agrees and
//    nothing below costs a request.
// 2. When the totals of two neighbouring pages differ, records were added between
//    the two fetches and the join may hide a gap. Every record of the gap lies, by
//    timestamp, between the last record covered so far and the first record of the
//    new page, so we re-read exactly that time range (by timestamp, not by offset:
//    usually one small request), one page after another. Read one after another,
//    pages can only overlap, never skip (a record's offset only grows), and what
//    was there before the repair began is all read.
// 3. Overlaps are dropped as records pass: in ascending order a record older than
//    the newest one emitted was emitted already (or arrived after we started); one
//    of the same second is checked against the identities emitted in that second.
//    So memory stays bounded by the records of one second.
// 4. The walk does not stop where the first total said the list ends: records that
//    were pushed further along are read until a page comes back short.
//
// 5. A record that vanished shrinks the total: the join is repaired as in 2. A record
//    whose timestamp moved may come again under its new second: the identities yielded
//    within a day of the walk's position are remembered (64-bit fingerprints, see
//    MOVE_HORIZON), so it is yielded once.
//
// 6. Not yet: a record that vanished and another that arrived between two page fetches
//    (or one that moved) leave the total as it was, so the join looks seamless while a
//    record may have slipped across it. The walk then yields fewer records than the
//    total it saw and stops with exit 6 (checkComplete), never silently; overlapping
//    each page with the last record of the one before would see it.
//
// Every record that was in the window when the walk started, and stayed where it was,
// is therefore yielded, exactly once, while records arrive or vanish; records that
// arrive, vanish or move meanwhile may or may not be, never twice. A list without a time
// window (short urls) has no order to repair by: its records are only kept from
// repeating, by identity (see Unordered). The same checks
// refuse a service that breaks its own envelope: a page longer than asked, the same
// page again, or fewer records than the total it announced (MalformedResponseError,
// exit 6), so an export is never silently cut or endless.

/**
 * How far a timestamp correction is followed: a record yielded, then met again this many
 * seconds or less further along the walk, is known. A correction is a block re-mined or
 * re-indexed, minutes; one of more than a day while a single export runs could print a
 * record twice.
 */
const MOVE_HORIZON = 86_400;

/** How many times its first total a list may grow to while it is read (records arriving meanwhile) before the walk stops. */
const MAX_GROWTH = 10;

export interface PageRequest {
  offset: number;
  limit: number;
  /** A narrower time range than the window's (repair requests); absent = the window's own. */
  from?: number;
  to?: number;
}

/** Pages in flight at once: a number, or a window whose size may change while the walk runs. */
export type Concurrency = number | { readonly size: number };

export interface PageWindow {
  /** Most records wanted; Infinity for --all. */
  limit: number;
  pageSize: number;
  offset: number;
  concurrency: Concurrency;
}

/** How a time-window list is ordered, so the walk can stay exact while records arrive. */
export interface Ordering {
  sort: 'asc' | 'desc';
  /** The window, inclusive Unix seconds. */
  from: number;
  to: number;
  identity: (record: Record<string, unknown>) => string;
}

export interface Page {
  records: Record<string, unknown>[];
  /** The server's total for the whole window (not only from `offset`), as last seen. */
  total: number;
  /** The response's bytes, when the fetcher kept them and `records` is all of the page's data (none dropped as a repeat). */
  body?: Buffer;
}

/** A fetcher returns the page's envelope, with the response's bytes when they should travel with its records. */
type FetchPage = (req: PageRequest) => Promise<Envelope & { body?: Buffer }>;

/** A record's identity from the endpoint's identity fields; the whole record when they are missing. */
export function identityOf(endpoint: Pick<Endpoint, 'identity'>): (record: Record<string, unknown>) => string {
  const fields = endpoint.identity;
  if (fields.length === 1) {
    const [field] = fields;
    return (r) => {
      const v = r[field];
      return typeof v === 'string' ? v : v === undefined || v === null ? JSON.stringify(r) : JSON.stringify(v);
    };
  }
  return (r) => (fields.some((f) => r[f] === undefined) ? JSON.stringify(r) : fields.map((f) => JSON.stringify(r[f])).join('|'));
}

/**
 * A list without a time window (short urls), known by identity: it has no order to
 * repair by, but a record that a shift brings back onto the next page is yielded once.
 * Every identity is kept, which such lists (short ones) can afford.
 */
export interface Unordered {
  identity: (record: Record<string, unknown>) => string;
}

export async function* paginate(fetchPage: FetchPage, w: PageWindow, order?: Ordering | Unordered): AsyncGenerator<Page> {
  const walk = new Walk(fetchPage, w, order && 'sort' in order ? order : undefined, order && !('sort' in order) ? order : undefined);
  yield* walk.run();
}

/** A fetched page of the main walk, with what the joins need. */
interface Fetched {
  offset: number;
  asked: number;
  envelope: Envelope & { body?: Buffer };
}

class Walk {
  private readonly seen?: Overlaps;
  /** Records yielded so far. */
  private emitted = 0;
  /** The smallest total the service announced: the walk must yield at least that many. */
  private announced = Infinity;
  /** The furthest record (in list order) up to which every record has been yielded. */
  private covered?: Record<string, unknown>;
  private previous?: { total: number; first: unknown; last: unknown; full: boolean };
  /** The main walk's latest total, reported with every page (repair pages included). */
  private total = 0;

  /** Identities yielded by a walk of an unordered list. */
  private readonly yielded?: { identity: Unordered['identity']; ids: Set<string> };

  constructor(
    private readonly fetchPage: FetchPage,
    private readonly w: PageWindow,
    private readonly ordering?: Ordering,
    unordered?: Unordered,
  ) {
    if (ordering) this.seen = new Overlaps(ordering);
    if (unordered) this.yielded = { identity: unordered.identity, ids: new Set() };
  }

  async *run(): AsyncGenerator<Page> {
    const { w } = this;
    const firstSize = Math.min(w.pageSize, w.limit);
    const first = await this.fetch(w.offset, firstSize);
    yield* this.accept(first);
    if (first.envelope.data.length < firstSize) return this.checkComplete();

    // The pages the first total promises, fetched `concurrency` at a time, yielded in order.
    const end = Math.min(first.envelope.total, w.offset + w.limit);
    let nextOffset = w.offset + firstSize;
    const inFlight: Promise<Fetched>[] = [];
    const { concurrency } = w;
    const room = () => inFlight.length < (typeof concurrency === 'number' ? concurrency : concurrency.size);
    const launch = () => {
      const offset = nextOffset;
      nextOffset += w.pageSize;
      const p = this.fetch(offset, Math.min(w.pageSize, end - offset));
      // A page that fails while an earlier one is awaited must not become an unhandled
      // rejection; its error surfaces when its turn comes.
      p.catch(() => {});
      inFlight.push(p);
    };
    let last = first;
    try {
      while (nextOffset < end && room()) launch();
      while (inFlight.length > 0) {
        last = await inFlight.shift()!;
        while (nextOffset < end && room()) launch();
        yield* this.accept(last);
        if (last.envelope.data.length < last.asked) return this.checkComplete();
      }
    } finally {
      inFlight.length = 0;
    }

    // Records pushed past the first total's end by records that arrived meanwhile.
    let offset = last.offset + last.asked;
    while (this.emitted < w.limit && offset < last.envelope.total) {
      checkGrowth(first.envelope.total, last.envelope.total);
      last = await this.fetch(offset, Math.min(w.pageSize, w.limit - this.emitted));
      yield* this.accept(last);
      if (last.envelope.data.length < last.asked) break;
      offset += last.asked;
    }
    this.checkComplete();
  }

  private async fetch(offset: number, asked: number): Promise<Fetched> {
    const envelope = await this.fetchPage({ offset, limit: asked });
    checkLength(envelope, offset, asked);
    return { offset, asked, envelope };
  }

  /** Yields a page of the main walk, repairing its join with what came before when needed. */
  private async *accept(page: Fetched): AsyncGenerator<Page> {
    const { data, total } = page.envelope;
    this.checkInWindow(data);
    this.total = total;
    this.announced = Math.min(this.announced, Math.max(0, total - this.w.offset));
    this.checkNotRepeated(page);
    if (this.seen && this.covered !== undefined && data.length > 0) {
      const head = asRecord(data[0]);
      const seamless = this.previous?.total === total && this.previous.last === this.covered;
      if (!seamless && !this.seen.before(head, this.covered)) yield* this.repair(timestampOf(this.covered), timestampOf(head));
    }
    const records = this.pass(data);
    if (data.length > 0) {
      const tail = data[data.length - 1] as Record<string, unknown>;
      if (this.seen && (this.covered === undefined || !this.seen.before(tail, this.covered))) this.covered = tail;
      this.previous = { total, first: data[0], last: tail, full: data.length === page.asked };
    }
    yield whole(records, data, page.envelope.body, total);
  }

  /**
   * Re-reads the time range between two timestamps, one page after another (never in
   * parallel: read in sequence, pages can only overlap), and yields what was missed.
   */
  private async *repair(a: number, b: number): AsyncGenerator<Page> {
    const o = this.ordering!;
    const from = Math.max(o.from, Math.min(a, b));
    const to = Math.min(o.to, Math.max(a, b));
    let previous: { total: number; first: string } | undefined;
    let firstTotal: number | undefined;
    for (let offset = 0; ; ) {
      const envelope = await this.fetchPage({ offset, limit: this.w.pageSize, from, to });
      checkLength(envelope, offset, this.w.pageSize);
      firstTotal ??= envelope.total;
      checkGrowth(firstTotal, envelope.total);
      const { data } = envelope;
      const first = data.length > 0 ? o.identity(asRecord(data[0])) : undefined;
      // The same full page at the next offset of a range that did not grow: the service repeats itself.
      if (data.length === this.w.pageSize && previous?.total === envelope.total && previous.first === first) {
        throw new MalformedResponseError(`the service returned the same records again at offset ${offset} (from ${from} to ${to}): paging does not advance`);
      }
      previous = first === undefined ? undefined : { total: envelope.total, first };
      this.checkInWindow(data);
      const records = this.pass(data);
      if (records.length > 0) yield whole(records, data, envelope.body, this.total);
      if (data.length < this.w.pageSize || offset + data.length >= envelope.total) return;
      offset += data.length;
    }
  }

  /** The records of a page that were not yielded before, checked to be in order. */
  private pass(data: unknown[]): Record<string, unknown>[] {
    if (this.yielded) {
      const { identity, ids } = this.yielded;
      const out: Record<string, unknown>[] = [];
      for (const item of data) {
        const r = asRecord(item);
        const id = identity(r);
        if (ids.has(id)) continue;
        ids.add(id);
        out.push(r);
      }
      this.emitted += out.length;
      return out;
    }
    if (!this.seen) {
      this.emitted += data.length;
      return data as Record<string, unknown>[];
    }
    const out: Record<string, unknown>[] = [];
    for (let i = 0; i < data.length; i++) {
      const r = asRecord(data[i]);
      if (i > 0 && this.seen.before(r, data[i - 1] as Record<string, unknown>)) {
        throw new MalformedResponseError(`the service sent records out of ${this.ordering!.sort === 'asc' ? 'ascending' : 'descending'} timestamp order`);
      }
      if (this.seen.isNew(r)) out.push(r);
    }
    this.emitted += out.length;
    return out;
  }

  /**
   * The server's window is not trusted: a record stamped outside the one asked (a service
   * that ignores `to` and sends one of 9999-12-31) would be counted in the month. Such a
   * service's totals, which the walk's exactness rests on, cannot be trusted either: the
   * list stops (exit 6), naming how many records of the page were outside and the first.
   */
  private checkInWindow(data: unknown[]): void {
    const o = this.ordering;
    if (!o) return;
    // A time that is no date at all (8.64e12, year 10000) is the record checks' to name (records.ts).
    const outside = data.map((r) => timestampOf(asRecord(r))).filter((t) => inTimeRange(t) && (t < o.from || t > o.to));
    if (outside.length === 0) return;
    throw new MalformedResponseError(
      `the service sent ${grouped(outside.length)} record${outside.length === 1 ? '' : 's'} stamped outside the window asked (${readable(o.from)} to ${readable(o.to)}), the first at ${readable(outside[0])}: it does not keep to the window, so no total of it is counted`,
      'check --base-url: is it the API? If it is, report the record to 8pay',
    );
  }

  /** A full page whose records are those of the previous page, while the list did not grow: paging does not advance. */
  private checkNotRepeated(page: Fetched): void {
    const p = this.previous;
    const { data, total } = page.envelope;
    if (!p || !p.full || data.length !== page.asked || data.length === 0 || p.total !== total) return;
    const sign = (r: unknown) => (this.ordering ? this.ordering.identity(asRecord(r)) : JSON.stringify(r));
    if (sign(data[0]) === sign(p.first) && sign(data[data.length - 1]) === sign(p.last)) {
      throw new MalformedResponseError(`the service returned the same records again at offset ${page.offset}: paging does not advance (it announced ${grouped(total)} records)`);
    }
  }

  /** The walk ended: it must have yielded at least what the service announced (a record met again after it moved counts: it was yielded). */
  private checkComplete(): void {
    const expected = Math.min(this.announced, this.w.limit);
    if (this.emitted + (this.seen?.moved ?? 0) < expected) {
      throw new MalformedResponseError(
        `the service announced ${grouped(expected)} records but sent only ${grouped(this.emitted)}: the list is incomplete`,
        'try again later; if it persists, the service is not paging correctly',
      );
    }
  }
}

/**
 * Drops the records a walk has already yielded. In list order a record earlier than the
 * newest yielded one was yielded already (or arrived after the walk began), so only the
 * identities of the current second are kept whole. A record whose timestamp was
 * corrected while the walk ran (it moved to a later second) comes again under another
 * second: every identity yielded is also kept as a fingerprint (fingerprints.ts), so
 * it is yielded once.
 */
class Overlaps {
  private readonly asc: boolean;
  private current: number;
  /** Records yielded in the current second; their identities are computed only when a second record of it comes. */
  private run: Record<string, unknown>[] = [];
  private ids?: Set<string>;
  /** Fingerprints of the identities yielded, in two generations of MOVE_HORIZON seconds each (see remember). */
  private recent = new Fingerprints();
  private older?: Fingerprints;
  private generationStart?: number;
  /** Records met again under another second (their timestamp moved): yielded once, and counted as read. */
  moved = 0;

  constructor(private readonly ordering: Ordering) {
    this.asc = ordering.sort === 'asc';
    this.current = this.asc ? -Infinity : Infinity;
  }

  /** `a` comes strictly before `b` in list order (by timestamp: the tie-break is the server's). */
  before(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
    return this.asc ? timestampOf(a) < timestampOf(b) : timestampOf(a) > timestampOf(b);
  }

  isNew(r: Record<string, unknown>): boolean {
    const t = timestampOf(r);
    if (t === this.current) {
      this.ids ??= new Set(this.run.map(this.ordering.identity));
      const id = this.ordering.identity(r);
      if (this.ids.has(id)) return false;
      if (!this.remember(id, t)) return this.movedAgain();
      this.ids.add(id);
      this.run.push(r);
      return true;
    }
    if (this.asc ? t < this.current : t > this.current) return false;
    if (!this.remember(this.ordering.identity(r), t)) return this.movedAgain();
    this.current = t;
    this.run = [r];
    this.ids = undefined;
    return true;
  }

  /**
   * Notes an identity yielded at second `t`; false when it was yielded before. Only the
   * last one to two MOVE_HORIZONs of the walk are kept: memory follows the records of a
   * day, not of the whole export (a million records of a year take kilobytes).
   */
  private remember(id: string, t: number): boolean {
    if (this.generationStart === undefined) this.generationStart = t;
    else if (Math.abs(t - this.generationStart) >= MOVE_HORIZON) {
      this.older = this.recent;
      this.recent = new Fingerprints();
      this.generationStart = t;
    }
    return this.recent.addUnlessIn(this.older, id);
  }

  private movedAgain(): false {
    this.moved++;
    return false;
  }
}

/** A page to yield; its bytes go with it only when no record was dropped from its data. */
/** A total that keeps growing far beyond the first one is a list that never ends (or a window not pinned): stop rather than walk forever. */
function checkGrowth(firstTotal: number, total: number): void {
  if (total <= MAX_GROWTH * Math.max(firstTotal, 1)) return;
  throw new MalformedResponseError(
    `the list kept growing while it was read: the service announced ${grouped(firstTotal)} records, then ${grouped(total)} (more than ${MAX_GROWTH} times as many); stopped rather than read forever`,
    'pin the window with --to, or try again later',
  );
}

function whole(records: Record<string, unknown>[], data: unknown[], body: Buffer | undefined, total: number): Page {
  return body !== undefined && records.length === data.length ? { records, total, body } : { records, total };
}

function checkLength(envelope: Envelope, offset: number, asked: number): void {
  if (envelope.data.length > asked) {
    throw new MalformedResponseError(`the service sent ${grouped(envelope.data.length)} records for a page of ${grouped(asked)} at offset ${offset}`);
  }
}

function asRecord(r: unknown): Record<string, unknown> {
  if (r === null || typeof r !== 'object' || Array.isArray(r)) throw new MalformedResponseError('a record is not a JSON object');
  return r as Record<string, unknown>;
}

/** Unix seconds as an ISO date-time where a date can hold them, else as they are. */
function readable(t: number): string {
  const ms = t * 1000;
  return Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString().replace('.000Z', 'Z') : String(t);
}

function timestampOf(r: Record<string, unknown>): number {
  const t = r.timestamp;
  if (typeof t === 'number' && Number.isFinite(t)) return t;
  // Drift to numbers sent as strings still orders (the schema check reports the drift itself).
  if (typeof t === 'string' && /^\d{1,15}$/.test(t)) return Number(t);
  throw new MalformedResponseError('a record has no numeric timestamp: the list cannot be paged exactly');
}
