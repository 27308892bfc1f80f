// Where calendar months meet: the emulator puts records there (datasets.ts for the
// collections of independent records, lifecycles.ts for billings).

/** Below this many records a collection keeps its random timestamps only (small test sets stay as they were). */
export const BOUNDARY_MIN_RECORDS = 100;

/**
 * Where calendar periods meet, so that tests of --period and --tz meet records there:
 * the first second of every month and the last second before it, in UTC and in
 * Europe/Berlin, inside [from, to). Berlin's month starts are written out here (not
 * computed by payrec's code under test): under the EU rule, summer time (UTC+2) runs
 * from the last Sunday of March to the last Sunday of October, so April to October
 * begin at 22:00 UTC on the day before, November to March at 23:00 UTC.
 */
export function boundaryTimestamps(from: number, to: number): number[] {
  const marks: number[] = [];
  const first = new Date(from * 1000);
  for (let y = first.getUTCFullYear(), m = first.getUTCMonth(); Date.UTC(y, m, 1) / 1000 - 7200 < to + 7200; m++) {
    const utc = Date.UTC(y, m, 1) / 1000;
    const month = new Date(utc * 1000).getUTCMonth() + 1;
    const berlin = utc - (month >= 4 && month <= 10 ? 7200 : 3600);
    marks.push(utc - 1, utc, berlin - 1, berlin);
  }
  return [...new Set(marks)].filter((t) => t >= from && t < to).sort((a, b) => a - b);
}
