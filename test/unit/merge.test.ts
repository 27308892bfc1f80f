import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { WalkWindow } from '../../src/core/lists/list-query.js';
import { mergeWalks } from '../../src/core/lists/merge.js';

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
