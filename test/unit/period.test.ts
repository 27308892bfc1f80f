import { describe, expect, it } from 'vitest';
import { INTERVAL_KINDS, PERIOD_FORMS, intervalContaining, intervalsOf, nextPeriod, parsePeriod, periodContaining } from '../../src/core/runtime/period.js';

// Calendar periods and intervals on dates worked out by hand from a calendar
// (test/unit/zone.test.ts checks them against Intl on arbitrary instants).
// 2026-01-01 is a Thursday; 2026-05-20 a Wednesday; Berlin moves to summer time on
// Sunday 2026-03-29 at 01:00 UTC.

const utc = (y: number, m: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, m - 1, d, h, mi, s) / 1000;
const span = (start: number, end: number) => ({ start, end });

describe('parsePeriod: the forms --period takes', () => {
  it('every form --help lists names a period', () => {
    const forms = PERIOD_FORMS.split(', ');
    expect(forms).toHaveLength(10);
    for (const form of forms) expect(parsePeriod(form, utc(2026, 11, 22), 'UTC'), form).toBeDefined();
  });

  it.each([
    ['2026', span(utc(2026, 1, 1), utc(2027, 1, 1))],
    ['1970', span(0, utc(1971, 1, 1))],
    ['2026-Q1', span(utc(2026, 1, 1), utc(2026, 4, 1))],
    ['2026-q4', span(utc(2026, 10, 1), utc(2027, 1, 1))],
    ['2026-01', span(utc(2026, 1, 1), utc(2026, 2, 1))],
    ['2026-12', span(utc(2026, 12, 1), utc(2027, 1, 1))],
    ['2026-01-01', span(utc(2026, 1, 1), utc(2026, 1, 2))],
    ['2026-01-31', span(utc(2026, 1, 31), utc(2026, 2, 1))],
    ['2026-04-30', span(utc(2026, 4, 30), utc(2026, 5, 1))],
    ['2024-02-29', span(utc(2024, 2, 29), utc(2024, 3, 1))],
    ['2026-12-31', span(utc(2026, 12, 31), utc(2027, 1, 1))],
  ])('%s', (text, expected) => {
    expect(parsePeriod(text, 0, 'UTC')).toEqual(expected);
  });

  it.each([
    '1969', '1969-12', '1969-12-31', '2026-00', '2026-13', '2026-01-00', '2026-01-32', '2026-02-29', '2026-04-31', '1900-02-29',
    'x2026', '2026x', '20260', 'abcd', '2026-Q0', '2026-Q5', 'x2026-Q4', '2026-Q4x', 'x2026-10', '2026-10x', 'x2026-10-31', '2026-10-31x',
  ])('names no period: %j', (text) => {
    expect(parsePeriod(text, 0, 'UTC')).toBeUndefined();
  });

  it('the cron forms in any case', () => {
    const now = utc(2026, 5, 20, 12);
    expect(parsePeriod('TODAY', now, 'UTC')).toEqual(span(utc(2026, 5, 20), utc(2026, 5, 21)));
    expect(parsePeriod('Last-Quarter', now, 'UTC')).toEqual(span(utc(2026, 1, 1), utc(2026, 4, 1)));
  });
});

describe('periodContaining and nextPeriod', () => {
  it.each([
    [1, 1], [2, 1], [3, 1], [4, 4], [5, 4], [6, 4], [7, 7], [8, 7], [9, 7], [10, 10], [11, 10], [12, 10],
  ])('an instant in month %i is in the quarter that begins in month %i', (month, first) => {
    expect(periodContaining('quarter', utc(2026, month, 15, 12), 'UTC')).toEqual(span(utc(2026, first, 1), utc(2026, first + 3, 1)));
  });

  it('the period after one is the next of the same kind', () => {
    expect(nextPeriod('month', span(utc(2026, 1, 1), utc(2026, 2, 1)), 'UTC')).toEqual(span(utc(2026, 2, 1), utc(2026, 3, 1)));
    expect(nextPeriod('quarter', span(utc(2026, 10, 1), utc(2027, 1, 1)), 'UTC')).toEqual(span(utc(2027, 1, 1), utc(2027, 4, 1)));
    expect(nextPeriod('day', span(utc(2026, 2, 28), utc(2026, 3, 1)), 'UTC')).toEqual(span(utc(2026, 3, 1), utc(2026, 3, 2)));
    expect(nextPeriod('year', span(utc(2026, 1, 1), utc(2027, 1, 1)), 'UTC')).toEqual(span(utc(2027, 1, 1), utc(2028, 1, 1)));
  });

  it("where the clock went back over midnight (St. John's, 1987), the repeated hour belongs to the later day", () => {
    // On 25 October 1987 Newfoundland left summer time at 00:01 NDT (UTC−2:30), back to
    // 23:01 NST (UTC−3:30) of the 24th. The 25th began at its first 00:00 (02:30 UTC) and
    // ended at 00:00 NST on the 26th (03:30 UTC): 25 hours. 02:45 UTC reads 23:14 of the
    // 24th on the wall, the second time round, yet lies after the 25th began.
    const zone = 'America/St_Johns';
    const day25 = span(utc(1987, 10, 25, 2, 30), utc(1987, 10, 26, 3, 30));
    expect(parsePeriod('1987-10-25', 0, zone)).toEqual(day25);
    expect(periodContaining('day', utc(1987, 10, 25, 2, 45), zone)).toEqual(day25);
    expect(periodContaining('day', utc(1987, 10, 25, 2, 29, 59), zone)).toEqual(span(utc(1987, 10, 24, 2, 30), utc(1987, 10, 25, 2, 30)));
  });
});

describe('intervals: periods and Monday-first weeks', () => {
  it('INTERVAL_KINDS, shortest first, at one instant', () => {
    const t = utc(2026, 5, 20, 12); // a Wednesday
    expect(INTERVAL_KINDS.map((kind) => intervalContaining(kind, t, 'UTC'))).toEqual([
      span(utc(2026, 5, 20), utc(2026, 5, 21)),
      span(utc(2026, 5, 18), utc(2026, 5, 25)),
      span(utc(2026, 5, 1), utc(2026, 6, 1)),
      span(utc(2026, 4, 1), utc(2026, 7, 1)),
      span(utc(2026, 1, 1), utc(2027, 1, 1)),
    ]);
  });

  it.each([
    // Every day of the week of Monday 2025-12-29, across the new year, and the Mondays either side.
    [utc(2025, 12, 28, 23, 59, 59), span(utc(2025, 12, 22), utc(2025, 12, 29))],
    [utc(2025, 12, 29), span(utc(2025, 12, 29), utc(2026, 1, 5))],
    [utc(2025, 12, 30, 6), span(utc(2025, 12, 29), utc(2026, 1, 5))],
    [utc(2025, 12, 31, 23), span(utc(2025, 12, 29), utc(2026, 1, 5))],
    [utc(2026, 1, 1, 12), span(utc(2025, 12, 29), utc(2026, 1, 5))],
    [utc(2026, 1, 2), span(utc(2025, 12, 29), utc(2026, 1, 5))],
    [utc(2026, 1, 3, 18), span(utc(2025, 12, 29), utc(2026, 1, 5))],
    [utc(2026, 1, 4, 23, 59, 59), span(utc(2025, 12, 29), utc(2026, 1, 5))],
    [utc(2026, 1, 5), span(utc(2026, 1, 5), utc(2026, 1, 12))],
  ])('in UTC, the week of %i', (t, expected) => {
    expect(intervalContaining('week', t, 'UTC')).toEqual(expected);
  });

  it('a week in Berlin runs from Monday midnight to Monday midnight, 167 hours across the change to summer time', () => {
    const week = intervalContaining('week', utc(2026, 3, 29, 12), 'Europe/Berlin');
    expect(week).toEqual(span(utc(2026, 3, 22, 23), utc(2026, 3, 29, 22)));
    expect((week.end - week.start) / 3600).toBe(167);
  });

  it('intervalsOf cuts the first and last interval to the window', () => {
    expect(intervalsOf('month', span(utc(2026, 1, 15), utc(2026, 3, 10)), 'UTC')).toEqual([
      span(utc(2026, 1, 15), utc(2026, 2, 1)),
      span(utc(2026, 2, 1), utc(2026, 3, 1)),
      span(utc(2026, 3, 1), utc(2026, 3, 10)),
    ]);
    expect(intervalsOf('week', span(utc(2026, 1, 1), utc(2026, 1, 13)), 'UTC')).toEqual([
      span(utc(2026, 1, 1), utc(2026, 1, 5)),
      span(utc(2026, 1, 5), utc(2026, 1, 12)),
      span(utc(2026, 1, 12), utc(2026, 1, 13)),
    ]);
  });

  it('intervalsOf a window of whole intervals, and of none', () => {
    expect(intervalsOf('year', span(utc(2025, 1, 1), utc(2027, 1, 1)), 'UTC')).toEqual([span(utc(2025, 1, 1), utc(2026, 1, 1)), span(utc(2026, 1, 1), utc(2027, 1, 1))]);
    expect(intervalsOf('day', span(utc(2026, 1, 1), utc(2026, 1, 1)), 'UTC')).toEqual([]);
  });
});
