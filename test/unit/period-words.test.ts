import { expect, test } from 'vitest';
import { periodInWords } from '../../src/subscriptions/mrr.js';

// fr plans' period in words, worked by hand: whole days (and the months MRR counts in a
// month band of DESIGN.md: 28-31 days one, 56-62 two, 84-92 three, 168-184 six, 360-366
// twelve), else whole hours, else seconds; never rounded.

test.each([
  [86_400, '1 day'],
  [7 * 86_400, '7 days'],
  [27 * 86_400, '27 days'],
  [28 * 86_400, '28 days, 1 month'],
  [30 * 86_400, '30 days, 1 month'],
  [31 * 86_400, '31 days, 1 month'],
  [32 * 86_400, '32 days'],
  [62 * 86_400, '62 days, 2 months'],
  [91 * 86_400, '91 days, 3 months'],
  [184 * 86_400, '184 days, 6 months'],
  [366 * 86_400, '366 days, 12 months'],
  [1000 * 86_400, '1,000 days'],
  [3600, '1 hour'],
  [36 * 3600, '36 hours'],
  // 30.5 days: in no band by the calendar, whole hours.
  [30 * 86_400 + 12 * 3600, '732 hours'],
  [90, '90 seconds'],
  [1, '1 second'],
])('%i seconds: %s', (seconds, words) => {
  expect(periodInWords(seconds)).toBe(words);
});
