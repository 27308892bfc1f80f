import { describe, expect, it } from 'vitest';
import { grouped } from '../../src/core/output/grouped.js';

// grouped() writes counts as toLocaleString('en-US') does, without ICU (issue 48): the
// oracle is ICU itself, on every length of number and both signs.
describe('grouped', () => {
  it('is toLocaleString("en-US") of whole numbers of every length, both signs, numbers and bigints', () => {
    const cases: (number | bigint)[] = [0, 1, 12, 123, 999, 1000, 1001, 9999, 10_000, 99_999, 100_000, 123_456, 999_999, 1_000_000, 1_234_567, 2 ** 31, 2 ** 32, Number.MAX_SAFE_INTEGER];
    for (let digits = 1; digits <= 16; digits++) cases.push(Number('9'.repeat(digits)), 10 ** (digits - 1));
    for (let i = 0; i < 500; i++) cases.push(Math.floor(Math.random() * 10 ** (1 + (i % 15))));
    for (const n of [...cases]) if (typeof n === 'number') cases.push(-n, BigInt(n), -BigInt(n));
    cases.push(10n ** 30n + 7n, -(10n ** 25n));
    for (const n of cases) expect(grouped(n), String(n)).toBe(n.toLocaleString('en-US'));
  });

  it('leaves fractions, -0 and integers a double cannot hold to ICU', () => {
    for (const n of [0.5, 1234.5678, -1234.0005, 1e21, 2 ** 53 + 2, -0, Number.NaN, Infinity]) expect(grouped(n), String(n)).toBe(n.toLocaleString('en-US'));
  });
});
