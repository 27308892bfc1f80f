import { describe, expect, test } from 'vitest';
import { age, clockCheck, httpDate, size } from '../../src/commands/doctor.js';

// doctor's measures, against values worked out by hand in each case.

describe('httpDate', () => {
  test('reads RFC 9110 dates of the years 2000 to 2099, to the second', () => {
    // Ground truth: Date.UTC with the fields written out.
    expect(httpDate('Thu, 01 Jan 2026 00:00:00 GMT')).toBe(Date.UTC(2026, 0, 1));
    expect(httpDate('Sun, 29 Feb 2032 23:59:59 GMT')).toBe(Date.UTC(2032, 1, 29, 23, 59, 59));
    expect(httpDate('Sat, 01 Jan 2000 00:00:00 GMT')).toBe(Date.UTC(2000, 0, 1));
    expect(httpDate('Thu, 31 Dec 2099 23:59:59 GMT')).toBe(Date.UTC(2099, 11, 31, 23, 59, 59));
  });

  test.each([
    ['a year before 2000', 'Fri, 31 Dec 1999 23:59:59 GMT'],
    ['a year after 2099', 'Fri, 01 Jan 2100 00:00:00 GMT'],
    ['29 February of a common year', 'Mon, 29 Feb 2026 00:00:00 GMT'],
    ['24:00', 'Thu, 01 Jan 2026 24:00:00 GMT'],
    ['minute 60', 'Thu, 01 Jan 2026 00:60:00 GMT'],
    ['second 60', 'Thu, 01 Jan 2026 00:00:60 GMT'],
    ['the wrong weekday', 'Fri, 01 Jan 2026 00:00:00 GMT'],
    ['no weekday', '01 Jan 2026 00:00:00 GMT'],
    ['UTC for GMT', 'Thu, 01 Jan 2026 00:00:00 UTC'],
    ["RFC 850's obsolete form", 'Thursday, 01-Jan-26 00:00:00 GMT'],
    ["asctime's obsolete form", 'Thu Jan  1 00:00:00 2026'],
    ['ISO 8601', '2026-01-01T00:00:00Z'],
    ['what an invalid Date prints', 'Invalid Date'],
    ['nothing', ''],
  ])('%s is not read: %s', (_, header) => {
    expect(httpDate(header)).toBeUndefined();
  });
});

describe('clockCheck', () => {
  // The service's time is taken as its Date + 0.5 s, at the request's midpoint (sentAt + ms / 2).
  // Sent at 10 s, answered in 1 s (midpoint 10.5 s, slack 1 s): a Date of 10 s + N s is N s off.
  const off = (seconds: number) => clockCheck(10_000 + seconds * 1000, 10_000, 1_000);
  test.each([
    [0, 'ok', 'in step with the service (within 1 s)'],
    [1, 'ok', 'in step with the service (within 1 s)'],
    [-1, 'ok', 'in step with the service (within 1 s)'],
    [2, 'ok', '2 s behind the service (± 1 s)'],
    [-2, 'ok', '2 s ahead of the service (± 1 s)'],
    [5, 'ok', '5 s behind the service (± 1 s)'],
    [6, 'warn', '6 s behind the service (± 1 s)'],
    [-6, 'warn', '6 s ahead of the service (± 1 s)'],
    [60, 'warn', '60 s behind the service (± 1 s)'],
    [-60, 'warn', '60 s ahead of the service (± 1 s)'],
    [61, 'fail', '61 s behind the service (± 1 s)'],
    [-61, 'fail', '61 s ahead of the service (± 1 s)'],
  ])('a Date %i s off: %s, "%s"', (seconds, status, said) => {
    expect(off(seconds)).toEqual({ status, said });
  });

  test('the half second the header cuts off, the midpoint of the request, and a slow request\'s slack', () => {
    // Sent at 9 s, took 1 s: midpoint 9.5 s; the service said 20 s, so 20.5 s: 11 s behind.
    expect(clockCheck(20_000, 9_000, 1_000)).toEqual({ status: 'warn', said: '11 s behind the service (± 1 s)' });
    // Sent at 21.6 s, took 0.2 s: midpoint 21.7 s against 10.5 s: 11.2 s ahead, rounded to 11.
    expect(clockCheck(10_000, 21_600, 200)).toEqual({ status: 'warn', said: '11 s ahead of the service (± 1 s)' });
    // A 5 s request can tell only to within 3 s (2.5 s rounded up). Midpoint 8.5 s: a Date of 11 s is 3 s off, of 12 s 4 s.
    expect(clockCheck(11_000, 6_000, 5_000)).toEqual({ status: 'ok', said: 'in step with the service (within 3 s)' });
    expect(clockCheck(12_000, 6_000, 5_000)).toEqual({ status: 'ok', said: '4 s behind the service (± 3 s)' });
    // A 4 s request: within 2 s exactly. Midpoint 10 s: a Date of 11 s is 1.5 s off, rounded to 2.
    expect(clockCheck(11_000, 8_000, 4_000)).toEqual({ status: 'ok', said: 'in step with the service (within 2 s)' });
  });
});

describe('age', () => {
  test.each([
    [-5, '0 s'],
    [0, '0 s'],
    [89, '89 s'],
    [90, '2 min'],
    [5_399, '90 min'],
    [5_400, '2 h'],
    [172_799, '48 h'],
    [172_800, '2 d'],
    [1_000_000, '12 d'],
  ])('%i seconds: %s', (seconds, said) => {
    expect(age(seconds)).toBe(said);
  });
});

describe('size', () => {
  test.each([
    [0, '0 B'],
    [1_023, '1023 B'],
    [1_024, '1.0 KB'],
    [1_536, '1.5 KB'],
    [1_048_576, '1.0 MB'],
    [5 * 1_073_741_824, '5.0 GB'],
    [3 * 1_099_511_627_776, '3.0 TB'],
    [2_048 * 1_099_511_627_776, '2048.0 TB'],
  ])('%i bytes: %s', (bytes, said) => {
    expect(size(bytes)).toBe(said);
  });
});
