import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { WalkWindow } from '../../src/core/lists/list-query.js';
import { mergeWalks } from '../../src/core/lists/merge.js';
import type { Concurrency, PageWindow } from '../../src/core/lists/paginate.js';

// mergeWalks over lists served as the API serves them (sorted by timestamp only, records
// of one second in the server's own order, paged by offset): whatever the page size,
// limit, offset and order, the merged list is every list's records ordered by
// (timestamp, list, identity), descending the exact reverse, cut at offset and limit.

type R = { timestamp: number; transactionHash: string };

/** A list as the API pages it; records of one second keep their insertion order (not by identity). */
function served(records: R[]): WalkWindow {
  return async function* (window, from, to, sort) {
    const inWindow = records.filter((r) => r.timestamp >= (from ?? 0) && r.timestamp <= (to ?? Infinity));
    const ordered = [...inWindow].sort((a, b) => (sort === 'asc' ? a.timestamp - b.timestamp : b.timestamp - a.timestamp));
    const end = Math.min(ordered.length, window.offset + window.limit);
    for (let at = window.offset; ; at += window.pageSize) {
      const page = ordered.slice(at, Math.min(at + window.pageSize, end));
      yield { records: page as unknown as Record<string, unknown>[], total: ordered.length };
      if (at + window.pageSize >= end) return;
    }
  };
}

const record = fc.record({ timestamp: fc.integer({ min: 1, max: 12 }), transactionHash: fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 4, maxLength: 4 }) });
const lists = fc.array(fc.uniqueArray(record, { selector: (r) => r.transactionHash, maxLength: 40 }), { minLength: 1, maxLength: 5 });

describe('mergeWalks', () => {
  test('is the (timestamp, list, identity) order of every list, cut at offset and limit, totals summed', async () => {
    await fc.assert(
      fc.asyncProperty(
        lists,
        fc.integer({ min: 1, max: 7 }),
        fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
        fc.integer({ min: 0, max: 10 }),
        fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
        fc.integer({ min: 1, max: 8 }),
        async (sources, pageSize, limit, offset, sort, concurrency) => {
          const walk = mergeWalks(
            sources.map((records, i) => ({ tag: `p${i}`, walk: served(records), identity: (r) => String(r.transactionHash) })),
            'product',
          );
          const out: Record<string, unknown>[] = [];
          let total = 0;
          for await (const page of walk({ limit: limit ?? Infinity, pageSize, offset, concurrency }, 0, 100, sort)) {
            out.push(...page.records);
            total = page.total;
          }
          const all = sources.flatMap((records, i) => records.map((r) => ({ product: `p${i}`, ...r })));
          all.sort((a, b) => a.timestamp - b.timestamp || a.product.localeCompare(b.product) || (a.transactionHash < b.transactionHash ? -1 : 1));
          if (sort === 'desc') all.reverse();
          expect(out).toEqual(all.slice(offset, offset + (limit ?? Infinity)));
          expect(total).toBe(sources.reduce((n, s) => n + s.length, 0));
          for (const r of out) expect(Object.keys(r)[0]).toBe('product');
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('mergeWalks, case by case', () => {
  const identity = (r: Record<string, unknown>) => String(r.transactionHash);
  const list = (n: number, prefix: string, step = 1): R[] => Array.from({ length: n }, (_, i) => ({ timestamp: 1 + i * step, transactionHash: `${prefix}${String(i).padStart(4, '0')}` }));

  /** A served list that counts its walks and logs the window and order each is asked for. */
  function watched(records: R[]) {
    const calls: { window: PageWindow; from?: number; to?: number; sort?: string }[] = [];
    let closed = 0;
    const walk: WalkWindow = async function* (window, from, to, sort) {
      calls.push({ window, from, to, sort });
      try {
        yield* served(records)(window, from, to, sort);
      } finally {
        closed++;
      }
    };
    return { walk, calls, closed: () => closed };
  }

  async function read(walk: WalkWindow, window: { limit?: number; offset?: number; pageSize?: number; concurrency?: Concurrency }, sort: 'asc' | 'desc' | undefined) {
    const pages: Record<string, unknown>[][] = [];
    for await (const page of walk({ limit: Infinity, offset: 0, pageSize: 500, concurrency: 2, ...window }, 0, 100_000, sort)) pages.push(page.records);
    return pages;
  }

  test('hands records on in pages of at most 1,000', async () => {
    const walk = mergeWalks([{ tag: 'a', walk: served(list(1500, 'a', 2)), identity }, { tag: 'b', walk: served(list(1500, 'b', 2)), identity }], 'product');
    const pages = await read(walk, {}, 'asc');
    expect(pages.slice(0, 3).map((p) => p.length)).toEqual([1000, 1000, 1000]);
    expect(pages.flat()).toHaveLength(3000);
    for (const p of pages) expect(p.length).toBeLessThanOrEqual(1000);
  });

  test('shares the concurrency among the lists, at least one page each, and walks them newest first by default', async () => {
    const lists = [watched(list(3, 'a')), watched(list(3, 'b')), watched(list(3, 'c'))];
    const walk = mergeWalks(lists.map((l, i) => ({ tag: `p${i}`, walk: l.walk, identity })), 'product');
    const [page] = await read(walk, { concurrency: 8, offset: 2, limit: 4 }, undefined);
    // Newest first, the lists in reverse order within a second: c2 b2 a2 c1 b1 a1 …, from the third.
    expect(page.map(identity)).toEqual(['a0002', 'c0001', 'b0001', 'a0001']);
    for (const l of lists) expect(l.calls[0]).toEqual({ window: { limit: 6, pageSize: 500, offset: 0, concurrency: 3 }, from: 0, to: 100_000, sort: 'desc' });
    const one = [watched(list(1, 'a')), watched(list(1, 'b')), watched(list(1, 'c'))];
    await read(mergeWalks(one.map((l, i) => ({ tag: `p${i}`, walk: l.walk, identity })), 'product'), { concurrency: 1 }, 'asc');
    for (const l of one) expect(l.calls[0].window.concurrency).toBe(1);
  });

  test('a window that moves (the client finding the pace) is shared as it moves', async () => {
    const lists = [watched(list(3, 'a')), watched(list(3, 'b')), watched(list(3, 'c'))];
    const pace = { size: 8 };
    await read(mergeWalks(lists.map((l, i) => ({ tag: `p${i}`, walk: l.walk, identity })), 'product'), { concurrency: pace }, 'asc');
    const each = lists.map((l) => l.calls[0].window.concurrency as { size: number });
    expect(each.map((c) => c.size)).toEqual([3, 3, 3]);
    pace.size = 16;
    expect(each.map((c) => c.size)).toEqual([6, 6, 6]);
    pace.size = 1;
    expect(each.map((c) => c.size)).toEqual([1, 1, 1]);
  });

  test('a second that the limit cuts is read whole, so that its first records by identity come first', async () => {
    // The server keeps second 5 in arrival order c, b, a; asked for 2 records it sends c, b.
    const records: R[] = [
      { timestamp: 5, transactionHash: 'c' },
      { timestamp: 5, transactionHash: 'b' },
      { timestamp: 5, transactionHash: 'a' },
      { timestamp: 6, transactionHash: 'd' },
    ];
    const l = watched(records);
    const pages = await read(mergeWalks([{ tag: 'x', walk: l.walk, identity }], 'product'), { limit: 2 }, 'asc');
    expect(pages.flat().map(identity)).toEqual(['a', 'b']);
    expect(l.calls.map((c) => [c.from, c.to])).toEqual([
      [0, 100_000],
      [5, 5],
    ]);
  });

  test('a list read to its end is walked once', async () => {
    const lists = [watched(list(4, 'a')), watched(list(2, 'b'))];
    const pages = await read(mergeWalks(lists.map((l, i) => ({ tag: `p${i}`, walk: l.walk, identity })), 'product'), {}, 'asc');
    expect(pages.flat()).toHaveLength(6);
    for (const l of lists) expect(l.calls).toHaveLength(1);
  });

  test('timestamps sent as digits merge as numbers', async () => {
    const a = [{ timestamp: '10', transactionHash: 'a' }] as unknown as R[];
    const b = [{ timestamp: '9', transactionHash: 'b' }] as unknown as R[];
    const pages = await read(mergeWalks([{ tag: 'a', walk: served(a), identity }, { tag: 'b', walk: served(b), identity }], 'product'), {}, 'asc');
    expect(pages.flat().map(identity)).toEqual(['b', 'a']);
  });

  test('stopping early closes every list', async () => {
    const lists = [watched(list(1500, 'a', 2)), watched(list(1500, 'b', 2))];
    const walk = mergeWalks(lists.map((l, i) => ({ tag: `p${i}`, walk: l.walk, identity })), 'product');
    for await (const page of walk({ limit: Infinity, offset: 0, pageSize: 500, concurrency: 2 }, 0, 100_000, 'asc')) {
      expect(page.records).toHaveLength(1000);
      break;
    }
    expect(lists.map((l) => l.closed())).toEqual([1, 1]);
  });

  test('a list that fails fails the merge, and closes the others', async () => {
    const a = watched(list(1500, 'a', 2));
    const failing: WalkWindow = async function* (window, from, to, sort) {
      let pages = 0;
      for await (const page of served(list(1500, 'b', 2))(window, from, to, sort)) {
        if (pages++ === 1) throw new Error('connection reset');
        yield page;
      }
    };
    const walk = mergeWalks([{ tag: 'a', walk: a.walk, identity }, { tag: 'b', walk: failing, identity }], 'product');
    await expect(read(walk, {}, 'asc')).rejects.toThrow('connection reset');
    expect(a.closed()).toBe(1);
  });
});
