import { UsageError } from './errors.js';
import { printable } from '../output/sanitize.js';
import { instantAt, UTC } from './zone.js';

// Times a user types for --from/--to.

const EXPECTED = 'expected Unix seconds, an ISO 8601 date (2026-01-31) or date-time, or an age such as 30m, 24h, 7d, 2w';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 } as const;

const UNIX_SECONDS = /^\d+$/;
const AGE = /^(\d{1,12})([smhdw])$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// Minutes are required, seconds and fractions optional; the zone is Z or ±HH:MM (or ±HHMM).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

// 11 digits reach the year 5138; a 13-digit value is almost always milliseconds.
const MAX_SECONDS_DIGITS = 11;

/**
 * Parses a --from/--to value into Unix seconds.
 *
 * Accepts Unix seconds, an ISO 8601 date (midnight in `zone`), an ISO 8601 date-time
 * (one without an offset is a wall time in `zone`, --tz, UTC by default: never the
 * machine's own zone, so the same command selects the same records on every machine
 * and in CI), or an age such as `7d` meaning that long before `nowMs`. Anything else,
 * including values with spaces, signs or impossible calendar dates, is a UsageError
 * that names the flag. `endOfDay`: a date alone means the last second of that day
 * (a date-only --to includes the whole day; the API's times are whole seconds, so
 * the second before the next day's start is exact).
 */
export function parseTime(value: string, nowMs: number, flag: string, zone = UTC, endOfDay = false): number {
  const invalid = (why = EXPECTED, hint?: string) => new UsageError(`invalid ${flag} "${printable(value)}": ${why}`, hint);

  if (UNIX_SECONDS.test(value)) {
    if (value.length === 13) {
      throw invalid('this looks like milliseconds; expected Unix seconds', `use ${value.slice(0, 10)} (seconds), or an ISO 8601 date-time`);
    }
    if (value.length > MAX_SECONDS_DIGITS) throw invalid(`too large; ${EXPECTED}`);
    return Number(value);
  }

  const age = AGE.exec(value);
  if (age) {
    const seconds = Math.floor(nowMs / 1000) - Number(age[1]) * UNIT_SECONDS[age[2] as keyof typeof UNIT_SECONDS];
    if (seconds < 0) throw invalid('this age reaches back before 1970');
    return seconds;
  }

  const date = DATE.exec(value) ?? DATE_TIME.exec(value);
  if (!date) {
    // A period's name given where a time goes: --from yesterday means --period yesterday.
    const period = /^(today|yesterday|this-month|last-month|last-quarter|last-year)$/i.test(value) && (flag === '--from' || flag === '--to');
    throw invalid(EXPECTED, period ? `for a calendar period, use --period ${value.toLowerCase()} (instead of --from and --to)` : undefined);
  }
  const [, y, mo, d, h = '00', mi = '00', s = '00', offsetText] = date;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year < 1970) throw invalid('dates before 1970 are not Unix seconds');
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw invalid(`there is no such calendar date; ${EXPECTED}`);
  }
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) throw invalid(`there is no such time of day; ${EXPECTED}`);
  let seconds: number;
  if (date.length === 4 && endOfDay) seconds = instantAt(zone, year, month, day + 1) - 1;
  else if (offsetText === undefined) seconds = instantAt(zone, year, month, day, Number(h), Number(mi), Number(s));
  else {
    const offset = zoneOffsetSeconds(offsetText);
    if (offset === undefined) throw invalid(`the zone offset is out of range; ${EXPECTED}`);
    seconds = Date.UTC(year, month - 1, day, Number(h), Number(mi), Number(s)) / 1000 - offset;
  }
  if (seconds < 0) throw invalid('this is before 1970');
  return seconds;
}

const DURATION = /^(\d{1,9})([smhdw])?$/;

/** Parses a duration a user types (`90s`, `10m`, `2h`, `7d`, or plain seconds) into seconds. */
export function parseDuration(value: string, flag: string): number {
  const m = DURATION.exec(value);
  if (!m) throw new UsageError(`invalid ${flag} "${printable(value)}": expected a duration such as 90s, 10m, 2h or 7d (or plain seconds)`);
  return Number(m[1]) * UNIT_SECONDS[(m[2] ?? 's') as keyof typeof UNIT_SECONDS];
}

/** Seconds in the largest unit that divides them evenly: 600 → 10m, 90 → 90s, 7200 → 2h. */
export function formatDuration(seconds: number): string {
  const units = Object.entries(UNIT_SECONDS).reverse() as [keyof typeof UNIT_SECONDS, number][];
  const [unit, size] = units.find(([, size]) => seconds > 0 && seconds % size === 0) ?? ['s', 1];
  return `${seconds / size}${unit}`;
}

function daysInMonth(year: number, month: number): number {
  // Day 0 of the next month is the last day of this one.
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Seconds east of UTC for `Z`, `+02:00` or `-0530`; undefined when out of range. */
function zoneOffsetSeconds(zone: string): number | undefined {
  if (zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2));
  if (hours > 23 || minutes > 59) return undefined;
  return (zone[0] === '-' ? -1 : 1) * (hours * 3600 + minutes * 60);
}

/** Unix seconds of the years 1 to 9999: what a date-time can be (and the mirror's TIMESTAMP WITH TIME ZONE holds). */
export const TIME_RANGE = [-62_135_596_800, 253_402_300_799] as const;

export const inTimeRange = (t: number) => t >= TIME_RANGE[0] && t <= TIME_RANGE[1];
