// Counts in messages, grouped by thousands as en-US writes them (1,234,567), without
// Intl: a process's first toLocaleString initialises ICU's number formatting, about
// 30 ms of CPU on a quiet machine, which every list command paid for its "showing 100
// of 1,234" (issue 48, the suite's time).

/** `n` with a comma between groups of three digits: what toLocaleString('en-US') writes of a whole number. */
export function grouped(n: number | bigint): string {
  // Fractions, and integers a double does not hold exactly, as ICU rounds them.
  if (typeof n === 'number' && (!Number.isSafeInteger(n) || Object.is(n, -0))) return n.toLocaleString('en-US');
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}
