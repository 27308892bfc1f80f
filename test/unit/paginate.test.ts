import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { paginate, type Ordering, type PageRequest } from '../../src/core/lists/paginate.js';
import { MalformedResponseError } from '../../src/core/runtime/errors.js';

// The paginator against a simulated list that keeps changing: records are inserted at
// arbitrary timestamps (late ones inside the window) between the answers to page
// requests, and fast-check's scheduler answers the parallel requests in arbitrary
// order. The list is a plain sorted array written here, not the emulator: the ground
// truth is what it held when the walk began.

interface Rec {
  timestamp: number;
  id: string;
  [k: string]: unknown;
}

/** A list ordered by (timestamp, arrival), as the emulator and the API keep it. */
class ShiftingList {
  private readonly records: Rec[] = [];
  private seq = 0;
  requests = 0;
  /** The first total answered for each time range, and whether one later grew past ten times it. */
  private readonly firstTotals = new Map<string, number>();
  grewTenfold = false;

  insert(timestamp: number): void {
    const r = { timestamp, id: `r${this.seq++}` };
    let pos = this.records.length;
    while (pos > 0 && this.records[pos - 1].timestamp > timestamp) pos--;
    this.records.splice(pos, 0, r);
  }

  within(from: number, to: number): Rec[] {
    return this.records.filter((r) => r.timestamp >= from && r.timestamp <= to);
  }

  answer(req: PageRequest, window: { from: number; to: number; sort: 'asc' | 'desc' }) {
    this.requests++;
    const matching = this.within(req.from ?? window.from, req.to ?? window.to);
    const range = `${req.from ?? window.from}..${req.to ?? window.to}`;
    const first = this.firstTotals.get(range) ?? matching.length;
    this.firstTotals.set(range, first);
    if (matching.length > 10 * Math.max(first, 1)) this.grewTenfold = true;
    if (window.sort === 'desc') matching.reverse();
    return { data: matching.slice(req.offset, req.offset + req.limit), limit: req.limit, offset: req.offset, total: matching.length };
  }
}

const identity = (r: Record<string, unknown>) => r.id as string;

const walkSetup = fc.record({
  initial: fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 80 }),
  // Records inserted before each answer: late ones land inside the window.
  batches: fc.array(fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 6 }), { maxLength: 40 }),
  from: fc.integer({ min: 0, max: 20 }),
  to: fc.integer({ min: 30, max: 60 }),
  pageSize: fc.integer({ min: 1, max: 12 }),
  concurrency: fc.integer({ min: 1, max: 6 }),
  sort: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
});

describe('paginate: exact while records arrive', () => {
  test('every record of the window at the start exactly once, nothing outside it, in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), walkSetup, async (s, { initial, batches, from, to, pageSize, concurrency, sort }) => {
        const list = new ShiftingList();
        for (const t of initial) list.insert(t);
        const before = new Set(list.within(from, to).map((r) => r.id));
        const pending = [...batches];
        const ordering: Ordering = { sort, from, to, identity };
        const fetchPage = (req: PageRequest) =>
          s.schedule(Promise.resolve(), `page ${req.offset}+${req.limit} ${req.from ?? ''}..${req.to ?? ''}`).then(() => {
            for (const t of pending.shift() ?? []) list.insert(t);
            return list.answer(req, ordering);
          });

        const out: Record<string, unknown>[] = [];
        const walk = (async () => {
          for await (const page of paginate(fetchPage, { limit: Infinity, pageSize, offset: 0, concurrency }, ordering)) out.push(...page.records);
        })();
        const stopped = await s.waitFor(walk).then(
          () => undefined,
          (e: Error) => e,
        );
        if (stopped) {
          // A tiny list that many arrivals outgrow trips the guard against endless lists;
          // the walk may stop so only when a range it read did grow past ten times its first total.
          expect(stopped.message).toMatch(/kept growing/);
          expect(list.grewTenfold).toBe(true);
          return;
        }

        const ids = out.map(identity);
        expect(new Set(ids).size).toBe(ids.length); // nothing twice
        for (const id of before) expect(ids).toContain(id); // nothing of the window missed
        const now = new Set(list.within(from, to).map((r) => r.id));
        for (const id of ids) expect(now.has(id)).toBe(true); // nothing from outside the window
        const ts = out.map((r) => r.timestamp as number);
        for (let i = 1; i < ts.length; i++) expect(sort === 'asc' ? ts[i] >= ts[i - 1] : ts[i] <= ts[i - 1]).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  test('a quiet list costs one request per page, and nothing more', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 120 }), fc.integer({ min: 1, max: 15 }), fc.integer({ min: 1, max: 6 }), async (initial, pageSize, concurrency) => {
        const list = new ShiftingList();
        for (const t of initial) list.insert(t);
        const ordering: Ordering = { sort: 'desc', from: 0, to: 60, identity };
        const out: unknown[] = [];
        for await (const page of paginate(async (req) => list.answer(req, ordering), { limit: Infinity, pageSize, offset: 0, concurrency }, ordering)) out.push(...page.records);
        expect(out).toHaveLength(initial.length);
        expect(list.requests).toBe(Math.max(1, Math.ceil(initial.length / pageSize)));
      }),
    );
  });

  test('--limit: the first N records of a quiet list, in order', async () => {
    const list = new ShiftingList();
    for (let t = 0; t < 50; t++) list.insert(t);
    const ordering: Ordering = { sort: 'asc', from: 0, to: 100, identity };
    const out: Record<string, unknown>[] = [];
    for await (const page of paginate(async (req) => list.answer(req, ordering), { limit: 17, pageSize: 5, offset: 0, concurrency: 3 }, ordering)) out.push(...page.records);
    expect(out.slice(0, 17).map((r) => r.timestamp)).toEqual([...Array(17).keys()]);
  });
});

describe('paginate: a list without a time window', () => {
  test('a record that an insertion at the head pushes onto the next page is yielded once', async () => {
    // Newest first, as short urls are listed: a record created after the first page moves every other one along.
    let list = Array.from({ length: 10 }, (_, i) => ({ id: `s${i}` }));
    const answer = async (req: PageRequest) => {
      const page = { data: list.slice(req.offset, req.offset + req.limit), limit: req.limit, offset: req.offset, total: list.length };
      if (req.offset === 0) list = [{ id: 'new' }, ...list];
      return page;
    };
    const ids: string[] = [];
    for await (const page of paginate(answer, { limit: Infinity, pageSize: 4, offset: 0, concurrency: 1 }, { identity })) ids.push(...page.records.map(identity));
    // s3 came back at the head of the second page; the new record arrived after the walk began and is not read.
    expect(ids).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9']);
  });
});

describe('paginate: a service that breaks its envelope', () => {
  const envelope = (data: unknown[], total: number, offset = 0) => ({ data, limit: data.length, offset, total });
  const rec = (i: number) => ({ timestamp: 1000 - i, id: `r${i}` });
  const ordering: Ordering = { sort: 'desc', from: 0, to: 2000, identity };

  // No default for `o`: a default would stand in for the `undefined` of the cases "without one".
  async function drain(fetchPage: (req: PageRequest) => Promise<ReturnType<typeof envelope>>, o: Ordering | undefined) {
    const out: unknown[] = [];
    for await (const page of paginate(fetchPage, { limit: Infinity, pageSize: 100, offset: 0, concurrency: 4 }, o)) out.push(...page.records);
    return out;
  }

  test.each([
    ['with an ordering', ordering],
    ['without one', undefined],
  ])('pages that end before the announced total: an error naming the shortfall (%s)', async (_name, o) => {
    const err = await drain(async (req) => envelope(req.offset < 500 ? Array.from({ length: req.limit }, (_, i) => rec(req.offset + i)) : [], 5000, req.offset), o).catch((e) => e);
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect(err.message).toMatch(/announced 5,000 records but sent only 500/);
  });

  test('a page longer than asked is refused', async () => {
    const err = await drain(async (req) => envelope(Array.from({ length: req.limit + 3 }, (_, i) => rec(req.offset + i)), 3000, req.offset), ordering).catch((e) => e);
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect(err.message).toMatch(/sent 103 records for a page of 100 at offset 0/);
  });

  test.each([
    ['with an ordering', ordering],
    ['without one', undefined],
  ])('the same page forever with a huge total ends with an error, not an endless run (%s)', async (_name, o) => {
    let requests = 0;
    const err = await drain(async () => (requests++, envelope(Array.from({ length: 100 }, (_, i) => rec(i)), 1_000_000_000)), o).catch((e) => e);
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect(err.message).toMatch(/same records again at offset 100/);
    expect(requests).toBeLessThan(10);
  });

  test('records out of timestamp order are refused rather than silently dropped', async () => {
    const err = await drain(async () => envelope([rec(5), rec(3), rec(9)], 3), ordering).catch((e) => e);
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect(err.message).toMatch(/out of descending timestamp order/);
  });
});
