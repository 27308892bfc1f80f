import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/runtime/errors.js';
import { formatDuration, parseDuration, parseTime } from '../../src/core/runtime/time.js';

const NOW_MS = Date.UTC(2026, 0, 31, 12, 0, 0); // 2026-01-31T12:00:00Z
const NOW = NOW_MS / 1000;

const parse = (value: string) => parseTime(value, NOW_MS, '--from');

describe('parseTime', () => {
  it('takes Unix seconds as they are', () => {
    expect(parse('0')).toBe(0);
    expect(parse('1769860800')).toBe(1769860800);
    expect(parse('99999999999')).toBe(99999999999);
  });

  it('takes an ISO 8601 date as UTC midnight', () => {
    expect(parse('2026-01-31')).toBe(Date.UTC(2026, 0, 31) / 1000);
    expect(parse('2024-02-29')).toBe(Date.UTC(2024, 1, 29) / 1000);
  });

  it('takes ISO 8601 date-times with and without a zone (no zone is UTC)', () => {
    expect(parse('2026-01-31T12:00:00Z')).toBe(NOW);
    expect(parse('2026-01-31T12:00:00')).toBe(NOW);
    expect(parse('2026-01-31T12:00')).toBe(NOW);
    expect(parse('2026-01-31T14:00:00+02:00')).toBe(NOW);
    expect(parse('2026-01-31T06:30:00-0530')).toBe(NOW);
    expect(parse('2026-01-31T12:00:00.999Z')).toBe(NOW);
    expect(parse('2026-01-31t12:00:00z')).toBe(NOW);
  });

  it('takes ages as now minus that long', () => {
    expect(parse('30s')).toBe(NOW - 30);
    expect(parse('30m')).toBe(NOW - 1800);
    expect(parse('24h')).toBe(NOW - 86_400);
    expect(parse('7d')).toBe(NOW - 7 * 86_400);
    expect(parse('2w')).toBe(NOW - 14 * 86_400);
    expect(parse('0s')).toBe(NOW);
  });

  it('rounds a fractional now down to whole seconds', () => {
    expect(parseTime('1s', NOW_MS + 999, '--to')).toBe(NOW - 1);
  });

  it.each([
    '', ' ', ' 1769860800', '1769860800 ', '7x', '-5', '+5', '-7d', '7 d', '7D', '1.5', '1e9', '0x10',
    '2026-13-01', '2026-00-10', '2026-02-30', '2025-02-29', '2026-1-31', '26-01-31', '2026-01-31T24:00:00Z',
    '2026-01-31T12:60', '2026-01-31T12:00:60Z', '2026-01-31 12:00:00', '2026-01-31T12:00:00+24:00',
    '2026-01-31T12:00:00+02', '1969-12-31', '1970-01-01T00:00:00+01:00', 'yesterday', 'now',
    '100000000000', '999999999999999999999', '9999999999999d', '60000w',
    '7dx', 'x7d', 'x2026-01-31', '2026-01-31x', 'x2026-01-31T12:00Z', '2026-01-31T12:00Zx', '2026-01-00', '2026-04-31',
    '2026-01-31T12:00+05:60', '2026-01-31T12:00:00+2400',
  ])('rejects %j with a UsageError naming the flag and the value', (value) => {
    let error: unknown;
    try {
      parse(value);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain(`invalid --from ${JSON.stringify(value)}:`);
    expect((error as UsageError).exitCode).toBe(2);
  });

  it('says what is expected', () => {
    expect(() => parse('7x')).toThrow(
      'invalid --from "7x": expected Unix seconds, an ISO 8601 date (2026-01-31) or date-time, or an age such as 30m, 24h, 7d, 2w',
    );
  });

  it('recognises milliseconds and hints at seconds', () => {
    try {
      parseTime('1769860800123', NOW_MS, '--to');
      expect.unreachable();
    } catch (err) {
      expect((err as UsageError).message).toContain('invalid --to "1769860800123": this looks like milliseconds');
      expect((err as UsageError).hint).toContain('1769860800');
    }
  });

  it('names an impossible calendar date as such', () => {
    expect(() => parse('2026-02-30')).toThrow(/no such calendar date/);
  });

  const EXPECTED = 'expected Unix seconds, an ISO 8601 date (2026-01-31) or date-time, or an age such as 30m, 24h, 7d, 2w';

  it.each([
    ['1769860800123', 'this looks like milliseconds; expected Unix seconds', 'use 1769860800 (seconds), or an ISO 8601 date-time'],
    ['100000000000', `too large; ${EXPECTED}`, undefined],
    ['1769860801s', 'this age reaches back before 1970', undefined],
    ['1969-12-31', 'dates before 1970 are not Unix seconds', undefined],
    ['2026-01-00', `there is no such calendar date; ${EXPECTED}`, undefined],
    ['2026-13-01', `there is no such calendar date; ${EXPECTED}`, undefined],
    ['2026-01-31T24:00', `there is no such time of day; ${EXPECTED}`, undefined],
    ['2026-01-31T23:60', `there is no such time of day; ${EXPECTED}`, undefined],
    ['2026-01-31T23:59:60', `there is no such time of day; ${EXPECTED}`, undefined],
    ['2026-01-31T12:00+24:00', `the zone offset is out of range; ${EXPECTED}`, undefined],
    ['2026-01-31T12:00-00:60', `the zone offset is out of range; ${EXPECTED}`, undefined],
    ['1970-01-01T00:00:00+01:00', 'this is before 1970', undefined],
    ['7x', EXPECTED, undefined],
  ])('%j: says why, with a hint where there is a next step', (value, why, hint) => {
    try {
      parse(value);
      expect.unreachable();
    } catch (err) {
      expect((err as UsageError).message).toBe(`invalid --from "${value}": ${why}`);
      expect((err as UsageError).hint).toBe(hint);
    }
  });

  it('an age back to 1970 exactly is second 0', () => {
    expect(parse(`${NOW}s`)).toBe(0);
  });

  it.each([
    ['--from', 'yesterday'],
    ['--to', 'Last-Month'],
    ['--from', 'TODAY'],
    ['--to', 'this-month'],
    ['--from', 'last-quarter'],
    ['--to', 'last-year'],
  ])('%s %s: hints at --period', (flag, value) => {
    try {
      parseTime(value, NOW_MS, flag);
      expect.unreachable();
    } catch (err) {
      expect((err as UsageError).message).toBe(`invalid ${flag} "${value}": ${EXPECTED}`);
      expect((err as UsageError).hint).toBe(`for a calendar period, use --period ${value.toLowerCase()} (instead of --from and --to)`);
    }
  });

  it.each([
    ['--since', 'yesterday'],
    ['--from', 'the-day-before-yesterday'],
    ['--from', 'yesterday-ish'],
    ['--to', 'xlast-month'],
  ])('%s %s: no hint at --period', (flag, value) => {
    try {
      parseTime(value, NOW_MS, flag);
      expect.unreachable();
    } catch (err) {
      expect((err as UsageError).hint).toBeUndefined();
    }
  });

  it('takes offsets up to 23:59 either way', () => {
    expect(parse('2026-01-31T23:00+23:00')).toBe(Date.UTC(2026, 0, 31) / 1000);
    expect(parse('2026-01-31T00:00-23:59')).toBe(Date.UTC(2026, 0, 31, 23, 59) / 1000);
    expect(parse('2026-01-31T12:00+05:59')).toBe(Date.UTC(2026, 0, 31, 6, 1) / 1000);
    expect(parse('2026-01-31T12:00+00:00')).toBe(NOW);
    expect(parse('2026-01-31T12:00-00:00')).toBe(NOW);
  });
});

describe('parseDuration', () => {
  it('takes plain seconds or a number with a unit', () => {
    expect(parseDuration('0', '--late-max')).toBe(0);
    expect(parseDuration('90', '--late-max')).toBe(90);
    expect(parseDuration('90s', '--late-max')).toBe(90);
    expect(parseDuration('10m', '--late-max')).toBe(600);
    expect(parseDuration('2h', '--late-max')).toBe(7200);
    expect(parseDuration('7d', '--late-max')).toBe(7 * 86_400);
    expect(parseDuration('2w', '--late-max')).toBe(14 * 86_400);
  });

  it.each(['', '-5m', '1.5h', '10 m', '5y', '10M', 'm', '1e3', ' 90', '999999999999w'])('refuses %j naming the flag', (value) => {
    expect(() => parseDuration(value, '--lookback')).toThrow(UsageError);
    expect(() => parseDuration(value, '--lookback')).toThrow(/^invalid --lookback ".*": expected a duration such as 90s, 10m, 2h or 7d \(or plain seconds\)$/);
  });

  it('formats back in the largest unit that divides evenly', () => {
    for (const [seconds, text] of [[600, '10m'], [90, '90s'], [7200, '2h'], [5400, '90m'], [86_400, '1d'], [1_209_600, '2w'], [0, '0s']] as const) {
      expect(formatDuration(seconds)).toBe(text);
      expect(parseDuration(text, '--late-max')).toBe(seconds);
    }
  });
});
