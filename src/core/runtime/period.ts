import { instantAt, wallTime } from './zone.js';

// --period: calendar periods in a time zone. A period is [its start, the next
// period's start) in Unix seconds, so consecutive periods share their boundary and
// partition time exactly: a record stamped 2026-11-01T00:00:00 is November's only.

export type PeriodKind = 'year' | 'quarter' | 'month' | 'day';

/** A half-open span of Unix seconds: start <= t < end. */
export interface Span {
  start: number;
  end: number;
}

export const PERIOD_FORMS = '2026, 2026-Q4, 2026-10, 2026-10-31, today, yesterday, this-month, last-month, last-quarter, last-year';

interface CalendarPeriod {
  kind: PeriodKind;
  year: number;
  /** 1–12: the period's first month. */
  month: number;
  day: number;
}

const MONTHS: Record<PeriodKind, number> = { year: 12, quarter: 3, month: 1, day: 0 };

function spanOf(p: CalendarPeriod, zone: string): Span {
  const start = instantAt(zone, p.year, p.month, p.day);
  // Date.UTC's overflow carries month 13 and day 32 into the next year or month.
  const end = p.kind === 'day' ? instantAt(zone, p.year, p.month, p.day + 1) : instantAt(zone, p.year, p.month + MONTHS[p.kind], 1);
  return { start, end };
}

/** The period of `kind` that holds instant `t` in `zone`. */
export function periodContaining(kind: PeriodKind, t: number, zone: string): Span {
  const w = wallTime(t, zone);
  const month = kind === 'year' ? 1 : kind === 'quarter' ? w.month - ((w.month - 1) % 3) : w.month;
  const period = { kind, year: w.year, month, day: kind === 'day' ? w.day : 1 };
  const span = spanOf(period, zone);
  // Where the clock goes back over midnight, the repeated hour is the earlier day's
  // wall time yet after the later day's start: it belongs to the later day.
  return t < span.start ? periodContaining(kind, span.start - 1, zone) : t >= span.end ? periodContaining(kind, span.end, zone) : span;
}

/** The period right after `span` (one of the same kind), e.g. to walk a year month by month. */
export function nextPeriod(kind: PeriodKind, span: Span, zone: string): Span {
  return periodContaining(kind, span.end, zone);
}

const YEAR = /^(\d{4})$/;
const QUARTER = /^(\d{4})-Q([1-4])$/i;
const MONTH = /^(\d{4})-(\d{2})$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The span a --period value names in `zone`, or undefined when it names none.
 * The cron forms are read at `now` (Unix seconds) in `zone`; `today` and
 * `this-month` end where they end, in the future (the caller caps them at now).
 */
export function parsePeriod(text: string, now: number, zone: string): Span | undefined {
  const back = (kind: PeriodKind) => periodContaining(kind, periodContaining(kind, now, zone).start - 1, zone);
  switch (text.toLowerCase()) {
    case 'today':
      return periodContaining('day', now, zone);
    case 'yesterday':
      return back('day');
    case 'this-month':
      return periodContaining('month', now, zone);
    case 'last-month':
      return back('month');
    case 'last-quarter':
      return back('quarter');
    case 'last-year':
      return back('year');
  }
  let m: RegExpExecArray | null;
  let period: CalendarPeriod | undefined;
  if ((m = YEAR.exec(text))) period = { kind: 'year', year: Number(m[1]), month: 1, day: 1 };
  else if ((m = QUARTER.exec(text))) period = { kind: 'quarter', year: Number(m[1]), month: Number(m[2]) * 3 - 2, day: 1 };
  else if ((m = MONTH.exec(text))) period = { kind: 'month', year: Number(m[1]), month: Number(m[2]), day: 1 };
  else if ((m = DAY.exec(text))) period = { kind: 'day', year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  if (!period || period.year < 1970 || period.month < 1 || period.month > 12) return undefined;
  if (period.day < 1 || period.day > new Date(Date.UTC(period.year, period.month, 0)).getUTCDate()) return undefined;
  return spanOf(period, zone);
}

/** The calendar intervals `payrec metrics` rows follow: periods, and weeks (Monday first, as --chart week). */
export type IntervalKind = PeriodKind | 'week';
export const INTERVAL_KINDS: readonly IntervalKind[] = ['day', 'week', 'month', 'quarter', 'year'];

/** The interval of `kind` that holds instant `t` in `zone`. */
export function intervalContaining(kind: IntervalKind, t: number, zone: string): Span {
  if (kind !== 'week') return periodContaining(kind, t, zone);
  const day = periodContaining('day', t, zone);
  const w = wallTime(day.start, zone);
  const back = (new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay() + 6) % 7;
  return { start: instantAt(zone, w.year, w.month, w.day - back), end: instantAt(zone, w.year, w.month, w.day - back + 7) };
}

/**
 * The intervals of `kind` that cover `window`, in order, the first and last cut to it:
 * consecutive intervals share their boundary, so every instant of the window is in
 * exactly one.
 */
export function intervalsOf(kind: IntervalKind, window: Span, zone: string): Span[] {
  const out: Span[] = [];
  for (let t = window.start; t < window.end; ) {
    const span = intervalContaining(kind, t, zone);
    out.push({ start: t, end: Math.min(span.end, window.end) });
    t = span.end;
  }
  return out;
}
