import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextPeriod, parsePeriod, periodContaining, type PeriodKind, type Span } from '../../src/core/runtime/period.js';
import { parseTime } from '../../src/core/runtime/time.js';
import { canonicalZone, formatIso, formatLocal, instantAt, offsetAt } from '../../src/core/runtime/zone.js';

// Calendar periods in a time zone. The oracle is the runtime's Intl, asked directly
// here (a formatter of the test's own, no cache), never the code under test.

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'America/Santiago', 'Australia/Lord_Howe'];
const KINDS: PeriodKind[] = ['year', 'quarter', 'month', 'day'];
const YEAR = 2025;

/** `YYYY-MM-DD HH:MM:SS` of instant `t` in `zone`, straight from Intl. */
function intlWall(t: number, zone: string): string {
  const f = new Intl.DateTimeFormat('en-CA', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const p = Object.fromEntries(f.formatToParts(t * 1000).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

const utc = (...a: [number, number, number, number?, number?, number?]) => Date.UTC(a[0], a[1] - 1, a[2], a[3] ?? 0, a[4] ?? 0, a[5] ?? 0) / 1000;

// Daylight-saving changes of 2025 (instants, UTC): Berlin, New York, Santiago (its clock
// jumps over midnight) and Lord Howe (half an hour).
const TRANSITIONS = [utc(2025, 3, 30, 1), utc(2025, 10, 26, 1), utc(2025, 3, 9, 7), utc(2025, 11, 2, 6), utc(2025, 4, 6, 3), utc(2025, 9, 7, 4), utc(2025, 4, 5, 15), utc(2025, 10, 4, 15, 30)];
// Where months begin in UTC and in the zones above, give or take an hour or three.
const MONTH_STARTS = Array.from({ length: 13 }, (_, m) => utc(YEAR, m + 1, 1)).flatMap((t) => [-3, -2, -1, 0, 1, 2, 3, 4, 5].map((h) => t + h * 3600));

const near = (ts: number[]) => fc.constantFrom(...ts).chain((t) => fc.integer({ min: t - 2, max: t + 1 }));
const instant = fc.oneof(fc.integer({ min: utc(YEAR, 1, 1) - 86_400, max: utc(YEAR + 1, 1, 1) + 86_400 }), near(TRANSITIONS), near(MONTH_STARTS));

/** Every period of `kind` from the year's start to its end, walked with nextPeriod. */
function periodsOfYear(kind: PeriodKind, zone: string): Span[] {
  const year = parsePeriod(String(YEAR), 0, zone)!;
  const spans = [periodContaining(kind, year.start, zone)];
  while (spans.at(-1)!.end < year.end) spans.push(nextPeriod(kind, spans.at(-1)!, zone));
  return spans;
}

describe('calendar periods partition time', () => {
  for (const zone of ZONES) {
    for (const kind of KINDS) {
      // Computed in each test, not while the tests are collected: code run then is in no test
      // (so `npm run mutate` would not see a test fail when it breaks).
      it(`${zone}, ${kind}s: consecutive, from the year's start to its end`, () => {
        const spans = periodsOfYear(kind, zone);
        const year = parsePeriod(String(YEAR), 0, zone)!;
        expect(spans.length).toBe({ year: 1, quarter: 4, month: 12, day: 365 }[kind]);
        expect(spans[0].start).toBe(year.start);
        expect(spans.at(-1)!.end).toBe(year.end);
        for (let i = 1; i < spans.length; i++) expect(spans[i].start).toBe(spans[i - 1].end);
        for (const s of spans) expect(s.end).toBeGreaterThan(s.start);
      });

      it(`${zone}, ${kind}s: each instant of the year in exactly one, the one periodContaining names`, () => {
        const spans = periodsOfYear(kind, zone);
        const year = parsePeriod(String(YEAR), 0, zone)!;
        fc.assert(
          fc.property(instant, (t) => {
            const holding = spans.filter((s) => s.start <= t && t < s.end);
            const inYear = year.start <= t && t < year.end;
            expect(holding.length).toBe(inYear ? 1 : 0);
            const p = periodContaining(kind, t, zone);
            expect(p.start <= t && t < p.end).toBe(true);
            if (inYear) expect(p).toEqual(holding[0]);
          }),
          { numRuns: 400 },
        );
      });

      it(`${zone}, ${kind}s: each begins at the first second of its calendar day, as Intl reads it`, () => {
        for (const s of periodsOfYear(kind, zone)) {
          const first = intlWall(s.start, zone);
          const before = intlWall(s.start - 1, zone);
          expect(first.slice(0, 10) > before.slice(0, 10)).toBe(true);
          if (kind !== 'day') expect(first.slice(8, 10)).toBe('01');
        }
      });
    }
  }

  it('Berlin has a 23-hour day in March and a 25-hour day in October; New York too, in March and November', () => {
    const day = (zone: string, text: string) => {
      const s = parsePeriod(text, 0, zone)!;
      return (s.end - s.start) / 3600;
    };
    expect(day('Europe/Berlin', '2025-03-30')).toBe(23);
    expect(day('Europe/Berlin', '2025-10-26')).toBe(25);
    expect(day('America/New_York', '2025-03-09')).toBe(23);
    expect(day('America/New_York', '2025-11-02')).toBe(25);
    expect(day('UTC', '2025-03-30')).toBe(24);
  });

  it('a month in Berlin begins at 22:00 or 23:00 UTC the day before', () => {
    expect(parsePeriod('2025-11', 0, 'Europe/Berlin')).toEqual({ start: utc(2025, 10, 31, 23), end: utc(2025, 11, 30, 23) });
    expect(parsePeriod('2025-Q2', 0, 'Europe/Berlin')).toEqual({ start: utc(2025, 3, 31, 22), end: utc(2025, 6, 30, 22) });
    expect(parsePeriod('2025-10', 0, 'UTC')).toEqual({ start: utc(2025, 10, 1), end: utc(2025, 11, 1) });
  });

  it('where the clock jumps over midnight (Santiago), the day begins when it jumps', () => {
    const start = instantAt('America/Santiago', 2025, 9, 7);
    expect(intlWall(start, 'America/Santiago')).toBe('2025-09-07 01:00:00');
    expect(intlWall(start - 1, 'America/Santiago')).toBe('2025-09-06 23:59:59');
  });

  it('the cron forms, read at an instant in a zone', () => {
    const now = utc(2026, 1, 1, 0, 30); // 01:30 on 1 January in Berlin, 31 December elsewhere west
    expect(parsePeriod('today', now, 'Europe/Berlin')).toEqual(parsePeriod('2026-01-01', 0, 'Europe/Berlin'));
    expect(parsePeriod('today', now, 'America/New_York')).toEqual(parsePeriod('2025-12-31', 0, 'America/New_York'));
    expect(parsePeriod('yesterday', now, 'UTC')).toEqual(parsePeriod('2025-12-31', 0, 'UTC'));
    expect(parsePeriod('this-month', now, 'UTC')).toEqual(parsePeriod('2026-01', 0, 'UTC'));
    expect(parsePeriod('last-month', now, 'UTC')).toEqual(parsePeriod('2025-12', 0, 'UTC'));
    expect(parsePeriod('last-month', now, 'America/New_York')).toEqual(parsePeriod('2025-11', 0, 'America/New_York'));
    expect(parsePeriod('last-quarter', now, 'UTC')).toEqual(parsePeriod('2025-Q4', 0, 'UTC'));
    expect(parsePeriod('last-year', now, 'UTC')).toEqual(parsePeriod('2025', 0, 'UTC'));
  });

  it.each(['2026-13', '2026-00', '2026-02-29', '2026-Q5', '26', '1969', '2026-1', 'tomorrow', '2026-10-31T00:00', ''])('names no period: %j', (text) => {
    expect(parsePeriod(text, 0, 'UTC')).toBeUndefined();
  });
});

describe('times shown in a zone', () => {
  it('formatLocal and formatIso agree with Intl at any instant', () => {
    fc.assert(
      fc.property(instant, fc.constantFrom(...ZONES), (t, zone) => {
        expect(formatLocal(t, zone)).toBe(intlWall(t, zone));
        const iso = formatIso(t, zone);
        expect(Date.parse(iso) / 1000).toBe(t);
        expect(iso.slice(0, 19)).toBe(intlWall(t, zone).replace(' ', 'T'));
      }),
      { numRuns: 2000 },
    );
  });

  it('formatLocal over runs of times as a list gives them (same day, next second, across midnight, back in time, before 1970, fractions)', () => {
    // Oracle: Date's own fields of the wall time (the form before formatLocal kept a day's date).
    const pad = (n: number) => String(n).padStart(2, '0');
    const viaDate = (t: number) => {
      const d = new Date(t * 1000);
      return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
    };
    const start = fc.oneof(fc.integer({ min: -62_135_596_800, max: 253_402_300_799 }), fc.constantFrom(0, -1, 86_399, 86_400, -86_400, -86_401, 1_795_651_199));
    const steps = fc.array(fc.oneof(fc.constantFrom(0, 1, -1, 59, 3600, -86_400, 86_400), fc.integer({ min: -200_000, max: 200_000 }), fc.double({ min: -3, max: 3, noNaN: true })), { maxLength: 40 });
    fc.assert(
      fc.property(start, steps, (t0, ds) => {
        let t = t0;
        for (const d of [0, ...ds]) {
          t += d;
          expect(formatLocal(t, 'UTC'), String(t)).toBe(viaDate(t));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('UTC times end in Z, others in their offset', () => {
    expect(formatIso(utc(2026, 10, 31, 14, 5, 9), 'UTC')).toBe('2026-10-31T14:05:09Z');
    expect(formatIso(utc(2026, 10, 31, 14, 5, 9), 'Europe/Berlin')).toBe('2026-10-31T15:05:09+01:00');
    expect(formatLocal(utc(2026, 10, 31, 14, 5, 9), 'Europe/Berlin')).toBe('2026-10-31 15:05:09');
  });

  it('a number that is no time is shown as it is', () => {
    expect(formatLocal(Number.NaN, 'UTC')).toBe('NaN');
    expect(formatLocal(1e300, 'Europe/Berlin')).toBe('1e+300');
    expect(formatIso(Number.NaN, 'UTC')).toBe('NaN');
    expect(formatIso(Number.POSITIVE_INFINITY, 'Europe/Berlin')).toBe('Infinity');
  });

  it("times as far as Date reaches, less a day for the zone's offset", () => {
    // Date ends at 8.64e15 ms: 13 September 275760, 00:00 UTC.
    expect(formatLocal(8.64e12 - 86_400, 'UTC')).toBe('275760-09-12 00:00:00');
    expect(formatLocal(8.64e12 - 86_400 + 1, 'UTC')).toBe('8639999913601');
  });

  it('the offset suffix: Z for either name of UTC, a sign even for zero, minutes for half hours', () => {
    const t = utc(2026, 1, 15, 12);
    expect(formatIso(t, 'Etc/UTC')).toBe('2026-01-15T12:00:00Z');
    expect(formatIso(t, 'Europe/London')).toBe('2026-01-15T12:00:00+00:00');
    expect(formatIso(t, 'America/St_Johns')).toBe('2026-01-15T08:30:00-03:30');
    expect(formatIso(t, 'Asia/Kolkata')).toBe('2026-01-15T17:30:00+05:30');
  });

  it('knows IANA names, not offsets or made-up places', () => {
    expect(canonicalZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(canonicalZone('UTC')).toBe('UTC');
    expect(canonicalZone('Mars/Base')).toBeUndefined();
    expect(canonicalZone('+01:00')).toBeUndefined();
    expect(canonicalZone('')).toBeUndefined();
  });
});

describe('date-only --from and --to in a zone', () => {
  it('--to DATE is the last second of that day; --from DATE its first', () => {
    expect(parseTime('2025-10-31', 0, '--to', 'UTC', true)).toBe(utc(2025, 11, 1) - 1);
    expect(parseTime('2025-10-31', 0, '--from', 'UTC')).toBe(utc(2025, 10, 31));
    expect(parseTime('2025-10-26', 0, '--to', 'Europe/Berlin', true)).toBe(utc(2025, 10, 26, 23) - 1);
    expect(parseTime('2025-10-26', 0, '--from', 'Europe/Berlin')).toBe(utc(2025, 10, 25, 22));
    // A date-time without an offset is a wall time in the zone; with one, it is what it says.
    expect(parseTime('2025-10-31T12:00', 0, '--to', 'Europe/Berlin', true)).toBe(utc(2025, 10, 31, 11));
    expect(parseTime('2025-10-31T12:00Z', 0, '--to', 'Europe/Berlin', true)).toBe(utc(2025, 10, 31, 12));
  });

  it('consecutive days as --from/--to in any zone meet without gap or overlap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 364 }), fc.constantFrom(...ZONES), (n, zone) => {
        const day = new Date(Date.UTC(YEAR, 0, 1 + n)).toISOString().slice(0, 10);
        const next = new Date(Date.UTC(YEAR, 0, 2 + n)).toISOString().slice(0, 10);
        expect(parseTime(day, 0, '--to', zone, true) + 1).toBe(parseTime(next, 0, '--from', zone));
      }),
    );
  });
});

describe('offsets and wall times where the clock changes', () => {
  it('offsetAt agrees with Intl minute by minute through changes in the middle of an hour (Tehran, 2021)', () => {
    // Iran's clocks moved at local midnight, 20:30 UTC in March and 19:30 UTC in September:
    // the offset cache must not take either hour for one offset throughout.
    for (const day of [utc(2021, 3, 20), utc(2021, 9, 21)]) {
      for (let t = day; t < day + 86_400; t += 60) {
        for (const u of [t, t + 59]) {
          const wall = intlWall(u, 'Asia/Tehran');
          const offset = Date.UTC(+wall.slice(0, 4), +wall.slice(5, 7) - 1, +wall.slice(8, 10), +wall.slice(11, 13), +wall.slice(14, 16), +wall.slice(17, 19)) / 1000 - u;
          expect(offsetAt(u, 'Asia/Tehran')).toBe(offset);
        }
      }
    }
  });

  it('a wall time the clock jumps over is the moment it jumps', () => {
    // Berlin: 02:00 CET became 03:00 CEST at 01:00 UTC on 29 March 2026.
    expect(instantAt('Europe/Berlin', 2026, 3, 29, 2, 30)).toBe(utc(2026, 3, 29, 1));
    expect(instantAt('Europe/Berlin', 2026, 3, 29, 2, 59, 59)).toBe(utc(2026, 3, 29, 1));
    expect(instantAt('Europe/Berlin', 2026, 3, 29, 3)).toBe(utc(2026, 3, 29, 1));
    expect(instantAt('Europe/Berlin', 2026, 3, 29, 1, 59, 59)).toBe(utc(2026, 3, 29, 1) - 1);
    // Santiago: 00:00 −04 became 01:00 −03 at 04:00 UTC on 7 September 2025.
    expect(instantAt('America/Santiago', 2025, 9, 7, 0, 30)).toBe(utc(2025, 9, 7, 4));
    expect(parseTime('2025-09-07T00:45', 0, '--from', 'America/Santiago')).toBe(utc(2025, 9, 7, 4));
  });

  it('a wall time that happens twice is the first time', () => {
    // Berlin: 03:00 CEST became 02:00 CET at 01:00 UTC on 25 October 2026; 02:30 came twice.
    expect(instantAt('Europe/Berlin', 2026, 10, 25, 2, 30)).toBe(utc(2026, 10, 25, 0, 30));
  });
});
