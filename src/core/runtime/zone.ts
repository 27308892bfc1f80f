// Calendar arithmetic in an IANA time zone, on Unix seconds (the API's resolution:
// timestamps are whole seconds, so "the second before a boundary" is exact).
//
// Written on the runtime's own Intl (Node ships full ICU with its tz database)
// rather than through a date library: luxon, date-fns-tz and @date-fns/tz all read
// offsets through this same Intl call, so they add weight without adding data, and
// at several microseconds a call they are too slow to format the times of a
// 300,000-row CSV. What is ours is small: an offset cache and finding where a
// local day begins (test/unit/zone.test.ts checks it against Intl on arbitrary
// instants, daylight-saving changes included).

export const UTC = 'UTC';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/**
 * The zone's canonical IANA name, or undefined when Intl does not know it. Offsets
 * (`+01:00`) are refused: a fixed offset has no daylight saving and no name to show.
 */
export function canonicalZone(name: string): string | undefined {
  // The default, answered without Intl: its first DateTimeFormat loads ICU's zone data (about 20 ms of every run).
  if (name === UTC) return UTC;
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

const isUtc = (zone: string) => zone === UTC || zone === 'Etc/UTC';

/** Seconds east of UTC at instant `t`, asked of Intl. */
function offsetFromIntl(t: number, zone: string): number {
  const p: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(t * 1000)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) / 1000 - t;
}

const HOUR = 3600;
/** Per zone: UTC hour → the offset through that whole hour, or NaN when it changes within it. */
const hourOffsets = new Map<string, Map<number, number>>();
const CACHE_HOURS = 100_000;

/**
 * Seconds east of UTC at instant `t` in `zone`. Offsets change at most once an hour
 * (a zone never changes and changes back within one), so an hour whose first and
 * last second share an offset has it throughout: two Intl calls per hour of data
 * instead of one per record.
 */
export function offsetAt(t: number, zone: string): number {
  if (isUtc(zone)) return 0;
  let hours = hourOffsets.get(zone);
  if (!hours) hourOffsets.set(zone, (hours = new Map()));
  const hour = Math.floor(t / HOUR);
  let offset = hours.get(hour);
  if (offset === undefined) {
    const first = offsetFromIntl(hour * HOUR, zone);
    offset = first === offsetFromIntl(hour * HOUR + HOUR - 1, zone) ? first : NaN;
    if (hours.size >= CACHE_HOURS) hours.clear();
    hours.set(hour, offset);
  }
  return Number.isNaN(offset) ? offsetFromIntl(t, zone) : offset;
}

export interface WallTime {
  year: number;
  month: number; // 1–12
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The local calendar date and clock time at instant `t` in `zone`. */
export function wallTime(t: number, zone: string): WallTime {
  const d = new Date((t + offsetAt(t, zone)) * 1000);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

/** A local wall time as seconds on a clock that never changes (UTC arithmetic on it is calendar arithmetic). */
const wallSeconds = (y: number, m: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, m - 1, d, h, mi, s) / 1000;
const wallOf = (t: number, zone: string) => t + offsetAt(t, zone);

/**
 * The first instant whose local wall time in `zone` is at or after the given one:
 * the start of a local day or month. Where the clock goes back over it (the time
 * happens twice), the earlier; where it jumps over it (a gap, as when a zone
 * starts summer time at midnight), the moment the clock jumps. Month and day
 * overflow like Date.UTC (month 13 is January of the next year).
 */
export function instantAt(zone: string, year: number, month: number, day = 1, hour = 0, minute = 0, second = 0): number {
  const wall = wallSeconds(year, month, day, hour, minute, second);
  if (isUtc(zone)) return wall;
  // The offsets a day either side: a zone changes at most once in between.
  const candidates = [wall - offsetAt(wall - 86_400, zone), wall - offsetAt(wall + 86_400, zone)].sort((a, b) => a - b);
  const exact = candidates.find((t) => wallOf(t, zone) === wall);
  if (exact !== undefined) return exact;
  // A gap: the clock jumps from before `wall` to after it between the two candidates.
  let [lo, hi] = candidates; // wall(lo) < wall <= wall(hi)
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (wallOf(mid, zone) >= wall) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Date's range, less a day either side for the zone's offset. */
const MAX_DATE_SECONDS = 8.64e12 - 86_400;

const pad2 = (n: number) => (n < 10 ? '0' : '') + n;

/**
 * `2026-10-31 14:05:09`: instant `t` as a local date-time in `zone`, the form every
 * spreadsheet (Excel, LibreOffice, Google Sheets) reads from CSV as a date-time
 * cell, and people read in tables. The zone itself is not in the text: no
 * spreadsheet reads a date with one.
 */
export function formatLocal(t: number, zone: string): string {
  // A number no date can hold (a server's nonsense) is shown as it came.
  if (!Number.isFinite(t) || Math.abs(t) > MAX_DATE_SECONDS) return String(t);
  const wall = wallOf(t, zone);
  // Whole seconds (the API's times): the date is made once per local day, since the
  // records of a list come in time order (a fifth of an export's rows stage went to Date).
  if (Number.isInteger(wall)) {
    const day = Math.floor(wall / DAY);
    if (day !== lastDay) {
      const d = new Date(day * DAY * 1000);
      lastDate = `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} `;
      lastDay = day;
    }
    const s = wall - day * DAY;
    return `${lastDate}${pad2(Math.floor(s / 3600))}:${pad2(Math.floor(s / 60) % 60)}:${pad2(s % 60)}`;
  }
  const d = new Date(wall * 1000);
  return (
    `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ` +
    `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`
  );
}

const DAY = 86_400;
/** The local day formatLocal last wrote (days since 1970 on the wall clock), and its `YYYY-MM-DD `. */
let lastDay = NaN;
let lastDate = '';

/** `2026-10-31T15:05:09+01:00` (or `…Z` in UTC): instant `t` in ISO 8601, unambiguous anywhere. */
export function formatIso(t: number, zone: string): string {
  const local = formatLocal(t, zone);
  if (local === String(t)) return local;
  const offset = offsetAt(t, zone);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const suffix = isUtc(zone) ? 'Z' : `${sign}${pad2(Math.floor(abs / 3600))}:${pad2(Math.floor((abs % 3600) / 60))}`;
  return local.replace(' ', 'T') + suffix;
}
