import { describe, expect, test } from 'vitest';
import { identityOf, paginate, type Ordering, type Page, type PageRequest, type PageWindow } from '../../src/core/lists/paginate.js';
import { MalformedResponseError } from '../../src/core/runtime/errors.js';

// The paginator step by step, on small lists served by hand-written fetchers: which
// requests it sends (and how many at once), what it yields, page by page, and how it
// refuses a service that breaks its envelope. Every expected request and record is
// worked out here from the rules in paginate.ts's header (test/unit/paginate.test.ts
// checks the same rules on generated lists that change while they are read).

type Rec = { id: string; timestamp: number };
const rec = (id: string, timestamp: number): Rec => ({ id, timestamp });
const ids = (records: Record<string, unknown>[]) => records.map((r) => r.id);
const byId = { identity: (r: Record<string, unknown>) => String(r.id) };
const asc: Ordering = { sort: 'asc', from: 0, to: Number.MAX_SAFE_INTEGER, identity: byId.identity };
const desc: Ordering = { ...asc, sort: 'desc' };

/** A fetcher over `answer`, logging each request and how many were in flight at most. */
function served(answer: (req: PageRequest, n: number) => { data: unknown[]; total: number; body?: Buffer }) {
  const log: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let n = 0;
  const fetchPage = async (req: PageRequest) => {
    log.push(req.from === undefined ? `${req.offset}+${req.limit}` : `${req.offset}+${req.limit} ${req.from}..${req.to}`);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const reply = answer(req, n++);
    await new Promise((resolve) => setImmediate(resolve));
    inFlight--;
    return { limit: req.limit, offset: req.offset, ...reply };
  };
  return { fetchPage, log, maxInFlight: () => maxInFlight, requests: () => n };
}

/** A quiet list of `count` records r0, r1, … answered by offset. */
function quiet(count: number) {
  const records = Array.from({ length: count }, (_, i) => rec(`r${i}`, 1000 - i));
  return served((req) => ({ data: records.slice(req.offset, req.offset + req.limit), total: count }));
}

async function walk(fetchPage: Parameters<typeof paginate>[0], w: Partial<PageWindow>, order?: Parameters<typeof paginate>[2]) {
  const pages: Page[] = [];
  for await (const page of paginate(fetchPage, { limit: Infinity, pageSize: 5, offset: 0, concurrency: 1, ...w }, order)) pages.push(page);
  return pages;
}

async function refusal(fetchPage: Parameters<typeof paginate>[0], w: Partial<PageWindow>, order?: Parameters<typeof paginate>[2]) {
  const err = await walk(fetchPage, w, order).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MalformedResponseError);
  return err as MalformedResponseError;
}

describe('identityOf', () => {
  test('one field: its text, or its JSON when it is not text; the whole record when it is missing', () => {
    const identity = identityOf({ identity: ['transactionHash'] });
    expect(identity({ transactionHash: '0xab', x: 1 })).toBe('0xab');
    expect(identity({ transactionHash: 5 })).toBe('5');
    expect(identity({ transactionHash: { a: 1 } })).toBe('{"a":1}');
    expect(identity({ x: 1 })).toBe('{"x":1}');
    expect(identity({ transactionHash: null, x: 2 })).toBe('{"transactionHash":null,"x":2}');
  });

  test('several fields: each as JSON, so that no two tuples read alike; the whole record when one is missing', () => {
    const identity = identityOf({ identity: ['subscriptionId', 'transactionHash'] });
    expect(identity({ subscriptionId: '0x1', transactionHash: '0x2' })).toBe('"0x1"|"0x2"');
    expect(identity({ subscriptionId: 'a|b', transactionHash: 'c' })).not.toBe(identity({ subscriptionId: 'a', transactionHash: 'b|c' }));
    expect(identity({ subscriptionId: '0x1' })).toBe('{"subscriptionId":"0x1"}');
  });
});

describe('the main walk: offsets, limits and concurrency', () => {
  test('an offset and a limit: those records, the later pages fetched together', async () => {
    const s = quiet(30);
    const pages = await walk(s.fetchPage, { offset: 10, limit: 15, concurrency: 3 });
    expect(pages.flatMap((p) => ids(p.records))).toEqual(Array.from({ length: 15 }, (_, i) => `r${10 + i}`));
    expect(s.log).toEqual(['10+5', '15+5', '20+5']);
    expect(s.maxInFlight()).toBe(2);
  });

  test('an offset without a limit: the rest of the list, which is all the total promised', async () => {
    const s = quiet(30);
    const pages = await walk(s.fetchPage, { offset: 10 });
    expect(pages.flatMap((p) => ids(p.records))).toEqual(Array.from({ length: 20 }, (_, i) => `r${10 + i}`));
  });

  test('a limit that ends inside a page asks for only what is left', async () => {
    const s = quiet(30);
    const pages = await walk(s.fetchPage, { limit: 12, concurrency: 2 });
    expect(pages.flatMap((p) => ids(p.records))).toHaveLength(12);
    expect(s.log).toEqual(['0+5', '5+5', '10+2']);
  });

  test('at most `concurrency` pages in flight, the next asked for as each is handed on', async () => {
    const s = quiet(40);
    const seen: number[] = [];
    for await (const page of paginate(s.fetchPage, { limit: Infinity, pageSize: 5, offset: 0, concurrency: 3 })) {
      seen.push(s.requests());
      expect(page.records).toHaveLength(5);
    }
    // Page 0 alone; then pages 5, 10 and 15 together, each page handed on after the one
    // three further along was asked for, until the 8 pages of the first total are asked.
    expect(seen).toEqual([1, 5, 6, 7, 8, 8, 8, 8]);
    expect(s.maxInFlight()).toBe(3);
  });

  test('a first page shorter than asked ends the walk there: one request', async () => {
    const records = [rec('a', 3), rec('b', 2), rec('c', 1)];
    const s = served((req) => ({ data: records.slice(req.offset, req.offset + req.limit), total: 3 }));
    const pages = await walk(s.fetchPage, { concurrency: 4 });
    expect(pages.flatMap((p) => ids(p.records))).toEqual(['a', 'b', 'c']);
    expect(s.log).toEqual(['0+5']);
  });

  test('a short first page below the announced total is an incomplete list', async () => {
    const s = served(() => ({ data: [rec('a', 3), rec('b', 2), rec('c', 1)], total: 10 }));
    const err = await refusal(s.fetchPage, { concurrency: 4 });
    expect(err.message).toBe('the service announced 10 records but sent only 3: the list is incomplete');
    expect(err.hint).toBe('try again later; if it persists, the service is not paging correctly');
    expect(s.log).toEqual(['0+5']);
  });

  test('a short page in the middle ends the walk there: an incomplete list', async () => {
    const records = Array.from({ length: 20 }, (_, i) => rec(`r${i}`, 100 - i));
    const s = served((req) => ({ data: records.slice(req.offset, req.offset + (req.offset === 10 ? 3 : req.limit)), total: 20 }));
    const err = await refusal(s.fetchPage, {});
    expect(err.message).toBe('the service announced 20 records but sent only 13: the list is incomplete');
  });
});

describe('records pushed past the end of the first total', () => {
  test('are read one page after another, the last page cut to the limit', async () => {
    // 10 records when the walk starts, 15 once the first page is answered (5 new at the end).
    const records = Array.from({ length: 15 }, (_, i) => rec(`r${i}`, 100 - i));
    const s = served((req, n) => {
      const list = n === 0 ? records.slice(0, 10) : records;
      return { data: list.slice(req.offset, req.offset + req.limit), total: list.length };
    });
    const pages = await walk(s.fetchPage, { limit: 12 });
    expect(pages.flatMap((p) => ids(p.records))).toEqual(Array.from({ length: 12 }, (_, i) => `r${i}`));
    expect(s.log).toEqual(['0+5', '5+5', '10+2']);
  });

  test('until a page comes back short, whatever the total says', async () => {
    // The total grows to 25, but only 13 records are ever there.
    const records = Array.from({ length: 13 }, (_, i) => rec(`r${i}`, 100 - i));
    const s = served((req, n) => ({ data: records.slice(req.offset, Math.min(req.offset + req.limit, n === 0 ? 10 : 13)), total: n === 0 ? 10 : 25 }));
    const pages = await walk(s.fetchPage, {});
    expect(pages.flatMap((p) => ids(p.records))).toHaveLength(13);
    expect(s.log).toEqual(['0+5', '5+5', '10+5']);
  });

  test('a list that grows past ten times its first total stops the walk (exit 6)', async () => {
    // 2 records, then 5 more after each answer: totals 2, 7, 12, 17, 22.
    let count = 2;
    const s = served((req) => {
      const reply = { data: Array.from({ length: Math.max(0, Math.min(req.limit, count - req.offset)) }, (_, i) => rec(`r${req.offset + i}`, 100)), total: count };
      count += 5;
      return reply;
    });
    const err = await refusal(s.fetchPage, { pageSize: 1 });
    expect(err.message).toBe('the list kept growing while it was read: the service announced 2 records, then 22 (more than 10 times as many); stopped rather than read forever');
    expect(err.hint).toBe('pin the window with --to, or try again later');
    expect(s.requests()).toBe(5);
  });

  test('a list that grows to ten times its first total, and no further, is read to its end', async () => {
    // 2 records, then 6 more after each answer up to 20: totals 2, 8, 14, 20, 20…
    let count = 2;
    const s = served((req) => {
      const reply = { data: Array.from({ length: Math.max(0, Math.min(req.limit, count - req.offset)) }, (_, i) => rec(`r${req.offset + i}`, 100)), total: count };
      count = Math.min(20, count + 6);
      return reply;
    });
    const pages = await walk(s.fetchPage, { pageSize: 1 });
    expect(pages.flatMap((p) => ids(p.records))).toEqual(Array.from({ length: 20 }, (_, i) => `r${i}`));
  });
});

describe('joins repaired by time while records arrive', () => {
  test('a late record in a second already read is found by re-reading that second', async () => {
    // a1 b2 c3 d4 when the walk starts; e, stamped 2, arrives after the first page.
    const before = [rec('a', 1), rec('b', 2), rec('c', 3), rec('d', 4)];
    const after = [rec('a', 1), rec('b', 2), rec('e', 2), rec('c', 3), rec('d', 4)];
    const s = served((req, n) => {
      const list = (n === 0 ? before : after).filter((r) => r.timestamp >= (req.from ?? 0) && r.timestamp <= (req.to ?? 100));
      return { data: list.slice(req.offset, req.offset + req.limit), total: list.length };
    });
    const pages = await walk(s.fetchPage, { pageSize: 2 }, asc);
    // Page [a b]; page [e c] with a new total, so the join is re-read from b's second to
    // e's: [b e], of which e is new; then c, and d from the page past the first total.
    expect(s.log).toEqual(['0+2', '2+2', '0+2 2..2', '4+2']);
    expect(pages.map((p) => ids(p.records))).toEqual([['a', 'b'], ['e'], ['c'], ['d']]);
    expect(pages.map((p) => p.total)).toEqual([4, 5, 5, 5]);
  });

  test('a repair that finds nothing yields nothing', async () => {
    const s = served((req) => {
      if (req.from !== undefined) return { data: [], total: 0 };
      return req.offset === 0 ? { data: [rec('a', 1), rec('b', 2)], total: 4 } : req.offset === 2 ? { data: [rec('c', 5), rec('d', 6)], total: 5 } : { data: [], total: 5 };
    });
    const pages = await walk(s.fetchPage, { pageSize: 2 }, asc);
    expect(s.log).toEqual(['0+2', '2+2', '0+2 2..5', '4+2']);
    expect(pages.map((p) => ids(p.records))).toEqual([['a', 'b'], ['c', 'd'], []]);
  });

  test('a repair range of exactly one full page is one request', async () => {
    const s = served((req) => {
      if (req.from !== undefined) return { data: [rec('b', 2), rec('x', 3)], total: 2 };
      return req.offset === 0 ? { data: [rec('a', 1), rec('b', 2)], total: 4 } : req.offset === 2 ? { data: [rec('c', 4), rec('d', 5)], total: 5 } : { data: [], total: 5 };
    });
    const pages = await walk(s.fetchPage, { pageSize: 2 }, asc);
    expect(s.log).toEqual(['0+2', '2+2', '0+2 2..4', '4+2']);
    expect(pages.map((p) => ids(p.records))).toEqual([['a', 'b'], ['x'], ['c', 'd'], []]);
  });

  test('a repair range that answers the same full page again is refused (exit 6)', async () => {
    const s = served((req) => {
      if (req.from !== undefined) return { data: [rec('b', 2), rec('x', 3)], total: 10 };
      return req.offset === 0 ? { data: [rec('a', 1), rec('b', 2)], total: 4 } : { data: [rec('c', 5), rec('d', 6)], total: 5 };
    });
    const err = await refusal(s.fetchPage, { pageSize: 2 }, asc);
    expect(err.message).toBe('the service returned the same records again at offset 2 (from 2 to 5): paging does not advance');
    expect(s.log).toEqual(['0+2', '2+2', '0+2 2..5', '2+2 2..5']);
  });

  test('in descending order, a record seen on an earlier page is dropped, and that page loses its bytes', async () => {
    // d10 c9 b8 a7 when the walk starts; x11 arrives at the head after the first page,
    // pushing c onto the second page again.
    const body = Buffer.from('page');
    const before = [rec('d', 10), rec('c', 9), rec('b', 8), rec('a', 7)];
    const after = [rec('x', 11), ...before];
    const s = served((req, n) => {
      const list = (n === 0 ? before : after).filter((r) => r.timestamp >= (req.from ?? 0) && r.timestamp <= (req.to ?? 100));
      return { data: list.slice(req.offset, req.offset + req.limit), total: list.length, body };
    });
    const pages = await walk(s.fetchPage, { pageSize: 2 }, desc);
    expect(s.log).toEqual(['0+2', '2+2', '0+2 9..9', '4+2']);
    expect(pages.map((p) => ids(p.records))).toEqual([['d', 'c'], ['b'], ['a']]);
    expect(pages.map((p) => p.body === body)).toEqual([true, false, true]);
  });
});

describe('the bytes of a page travel with it when every record of it is yielded', () => {
  test('with a body, every page of a quiet list carries it; without one, none has the field', async () => {
    const records = Array.from({ length: 7 }, (_, i) => rec(`r${i}`, 100 - i));
    const body = Buffer.from('x');
    const withBody = served((req) => ({ data: records.slice(req.offset, req.offset + req.limit), total: 7, body }));
    expect((await walk(withBody.fetchPage, {}, desc)).map((p) => p.body === body)).toEqual([true, true]);
    const without = quiet(7);
    expect((await walk(without.fetchPage, {}, desc)).map((p) => 'body' in p)).toEqual([false, false]);
    expect((await walk(quiet(7).fetchPage, {})).map((p) => 'body' in p)).toEqual([false, false]);
  });
});

describe('the window asked is not trusted (issue 48, item 7)', () => {
  // The window of October 2026 in Unix seconds, worked out by hand: 2026-10-01T00:00:00Z and 2026-10-31T23:59:59Z.
  const OCT = { from: 1_790_812_800, to: 1_793_491_199 };
  const month: Ordering = { ...asc, ...OCT };
  const NINES = 253_402_214_400; // 9999-12-31T00:00:00Z

  test('records stamped at the window\'s two ends are in it; one a second outside either end is refused (exit 6), in either order', async () => {
    // Mutants killed: no check (the 9999 record was yielded and counted), < for <= at either end.
    const ends = [rec('first', OCT.from), rec('last', OCT.to)];
    expect((await walk(served(() => ({ data: ends, total: 2 })).fetchPage, {}, month)).flatMap((p) => ids(p.records))).toEqual(['first', 'last']);
    for (const [data, order] of [
      [[...ends, rec('late', OCT.to + 1)], month],
      [[rec('early', OCT.from - 1), ...ends], month],
      [[rec('nines', NINES), ...ends.reverse()], { ...month, sort: 'desc' }],
    ] as [Rec[], Ordering][]) {
      const err = await refusal(served(() => ({ data, total: data.length })).fetchPage, {}, order);
      expect(err.message).toMatch(/^the service sent 1 record stamped outside the window asked \(2026-10-01T00:00:00Z to 2026-10-31T23:59:59Z\), the first at (2026-11-01T00:00:00Z|2026-09-30T23:59:59Z|9999-12-31T00:00:00Z): it does not keep to the window, so no total of it is counted$/);
    }
  });

  test('a repair page is held to the window too, and the count names every record of the page outside it', async () => {
    const s = served((req) => {
      if (req.from !== undefined) return { data: [rec('x', NINES), rec('y', NINES + 1)], total: 2 };
      return req.offset === 0 ? { data: [rec('a', OCT.from + 1), rec('b', OCT.from + 2)], total: 4 } : { data: [rec('c', OCT.from + 4), rec('d', OCT.from + 5)], total: 5 };
    });
    const err = await refusal(s.fetchPage, { pageSize: 2 }, month);
    expect(err.message).toBe('the service sent 2 records stamped outside the window asked (2026-10-01T00:00:00Z to 2026-10-31T23:59:59Z), the first at 9999-12-31T00:00:00Z: it does not keep to the window, so no total of it is counted');
    expect(s.log).toEqual(['0+2', '2+2', `0+2 ${OCT.from + 2}..${OCT.from + 4}`]);
  });
});

describe('a service that breaks its envelope', () => {
  const fixed = (pages: unknown[][], total: number) => served((req) => ({ data: pages[req.offset / req.limit] ?? [], total }));

  test('the same full page at the next offset is refused', async () => {
    const err = await refusal(fixed([[{ id: 'A' }, { id: 'B' }], [{ id: 'A' }, { id: 'B' }]], 4).fetchPage, { pageSize: 2 });
    expect(err.message).toBe('the service returned the same records again at offset 2: paging does not advance (it announced 4 records)');
  });

  test('pages that share only their first record, or only their last, are not the same page', async () => {
    const first = await walk(fixed([[{ id: 'A' }, { id: 'B' }], [{ id: 'A' }, { id: 'C' }]], 4).fetchPage, { pageSize: 2 });
    expect(first.flatMap((p) => ids(p.records))).toEqual(['A', 'B', 'A', 'C']);
    const last = await walk(fixed([[{ id: 'A' }, { id: 'B' }], [{ id: 'C' }, { id: 'B' }]], 4).fetchPage, { pageSize: 2 });
    expect(last.flatMap((p) => ids(p.records))).toEqual(['A', 'B', 'C', 'B']);
  });

  test.each([
    ['asc', asc, [rec('a', 3), rec('b', 1)], 'the service sent records out of ascending timestamp order'],
    ['desc', desc, [rec('a', 1), rec('b', 3)], 'the service sent records out of descending timestamp order'],
  ])('records out of %s order', async (_sort, order, data, message) => {
    expect((await refusal(served(() => ({ data, total: 2 })).fetchPage, {}, order)).message).toBe(message);
  });

  test.each([[null], ['x'], [[1]], [5]])('a record that is not an object (%j)', async (bad) => {
    const data = [rec('a', 1), bad];
    expect((await refusal(served(() => ({ data, total: 2 })).fetchPage, {}, asc)).message).toBe('a record is not a JSON object');
    expect((await refusal(served(() => ({ data, total: 2 })).fetchPage, {}, byId)).message).toBe('a record is not a JSON object');
  });

  test.each([[Number.NaN], [Number.POSITIVE_INFINITY], [undefined], [null], [true], ['1e3'], ['12a'], ['1234567890123456'], [''], ['-5']])(
    'a record whose timestamp is no number (%j)',
    async (timestamp) => {
      const data = [rec('a', 1), { id: 'b', timestamp }];
      expect((await refusal(served(() => ({ data, total: 2 })).fetchPage, {}, asc)).message).toBe('a record has no numeric timestamp: the list cannot be paged exactly');
    },
  );

  test('timestamps sent as digits still order as numbers', async () => {
    const data = [{ id: 'a', timestamp: '9' }, { id: 'b', timestamp: '10' }, { id: 'c', timestamp: 123456789012345 }];
    const pages = await walk(served(() => ({ data, total: 3 })).fetchPage, {}, asc);
    expect(pages.flatMap((p) => ids(p.records))).toEqual(['a', 'b', 'c']);
  });
});
