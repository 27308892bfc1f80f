import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Fingerprints } from '../../src/core/lists/fingerprints.js';

// The walk's memory of identities it yielded (paginate.ts: two generations, `older` and
// `recent`), against the same memory kept as sets of the identities themselves.

describe('Fingerprints', () => {
  it('says an identity is new exactly when neither generation holds it, through growth and generation changes', () => {
    // Mostly a small pool, so identities come again in the same generation and in the next.
    const pool = Array.from({ length: 40 }, (_, i) => `0x${i.toString(16).padStart(64, '0')}`).concat(['', '0x', '\u{1F600}']);
    const identity = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) });
    const step = fc.oneof({ weight: 30, arbitrary: identity.map((id) => ({ id })) }, { weight: 1, arbitrary: fc.constant({ rotate: true as const }) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 3000 }), (steps) => {
        let recent = new Fingerprints();
        let older: Fingerprints | undefined;
        let recentIds = new Set<string>();
        let olderIds = new Set<string>();
        for (const s of steps) {
          if ('rotate' in s) {
            [older, recent, olderIds, recentIds] = [recent, new Fingerprints(), recentIds, new Set()];
            continue;
          }
          const expected = !olderIds.has(s.id) && !recentIds.has(s.id);
          if (expected) recentIds.add(s.id);
          expect(recent.addUnlessIn(older, s.id), s.id).toBe(expected);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('keeps 100,000 distinct identities (the table doubles many times) and knows each again', () => {
    const f = new Fingerprints();
    for (let i = 0; i < 100_000; i++) expect(f.addUnlessIn(undefined, `0x${i.toString(16).padStart(64, '0')}`)).toBe(true);
    for (let i = 0; i < 100_000; i += 997) expect(f.addUnlessIn(undefined, `0x${i.toString(16).padStart(64, '0')}`)).toBe(false);
    expect(f.addUnlessIn(undefined, 'never added')).toBe(true);
  });
});
