// The wall-clock time of a Unix timestamp in an IANA zone, as a spreadsheet needs it:
// a date cell has no zone, so it holds the date and time a person in that zone reads
// (Europe/Berlin's 2026-10-31 23:30 is 22:30 UTC), and says which zone by its format.

/** A zone's offset from UTC at an instant, in seconds (+3600 for Berlin in winter). */
export type OffsetOf = (unixSeconds: number) => number;

// Zones change offset (daylight saving, a new law) only every few months, and every
// change since 1970 fell on a quarter hour of UTC. So offsets are looked up once per
// quarter hour: when both ends of the quarter agree, no change fell inside it; when
// they differ, the instant itself is asked. Exact either way, and an export of 300,000
// records asks Intl a few thousand times rather than 300,000 (about 4 µs a call).
const QUARTER = 900;
const MOST_REMEMBERED = 4096;

/**
 * The offset function of `timeZone` (an IANA name Intl knows; a RangeError otherwise).
 * UTC is the common case and costs nothing.
 */
export function zoneOffsets(timeZone: string): OffsetOf {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  if (format.resolvedOptions().timeZone === 'UTC') return () => 0;
  const exact = (seconds: number): number => {
    const parts: Record<string, number> = {};
    for (const p of format.formatToParts(seconds * 1000)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
    const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) / 1000;
    return wall - seconds;
  };
  const byQuarter = new Map<number, number | undefined>();
  return (seconds) => {
    const quarter = Math.floor(seconds / QUARTER);
    let offset = byQuarter.get(quarter);
    if (offset === undefined && !byQuarter.has(quarter)) {
      const start = quarter * QUARTER;
      const first = exact(start);
      offset = first === exact(start + QUARTER - 1) ? first : undefined;
      if (byQuarter.size >= MOST_REMEMBERED) byQuarter.clear();
      byQuarter.set(quarter, offset);
    }
    return offset ?? exact(Math.floor(seconds));
  };
}
