import { toAtto } from './exact.js';
import { grouped } from '../core/output/grouped.js';

// Monthly recurring revenue of one subscription (DESIGN.md "Subscriptions and revenue
// metrics"): a period of whole months by the calendar counts as that many months, any
// other period by the mean Gregorian month.

/** The mean Gregorian month in seconds: 365.2425 days / 12. */
export const MEAN_MONTH_SECONDS = 2_629_746n;

const DAY = 86_400;

/** Days (inclusive) that a calendar period of m months can last → m. */
const MONTH_BANDS: ReadonlyArray<{ min: number; max: number; months: bigint }> = [
  { min: 28, max: 31, months: 1n },
  { min: 56, max: 62, months: 2n },
  { min: 84, max: 92, months: 3n },
  { min: 168, max: 184, months: 6n },
  { min: 360, max: 366, months: 12n },
];

/**
 * The period in whole days: P / 86,400 rounded half up (a period of 62.5 days is 63
 * days), as "rounded to whole days" reads and as SQL's round() does it.
 */
export function periodDays(periodSeconds: number): number {
  return Math.floor((periodSeconds + DAY / 2) / DAY);
}

/** The months a period stands for when it lies in a month band; undefined otherwise. */
export function bandMonths(periodSeconds: number): bigint | undefined {
  const d = periodDays(periodSeconds);
  return MONTH_BANDS.find((b) => d >= b.min && d <= b.max)?.months;
}

/**
 * A period in words, as a person reads a plan: `30 days, 1 month` (the months MRR counts it
 * as, when it lies in a month band), `7 days`, `36 hours`, `90 seconds`: whole days, else whole
 * hours, else seconds, never rounded.
 */
export function periodInWords(periodSeconds: number): string {
  const unit = (n: number, word: string) => `${grouped(n)} ${word}${n === 1 ? '' : 's'}`;
  const length =
    periodSeconds % DAY === 0 ? unit(periodSeconds / DAY, 'day') : periodSeconds % 3600 === 0 ? unit(periodSeconds / 3600, 'hour') : unit(periodSeconds, 'second');
  const months = periodSeconds % DAY === 0 ? bandMonths(periodSeconds) : undefined;
  return months === undefined ? length : `${length}, ${unit(Number(months), 'month')}`;
}

/**
 * MRR in units of 10^-18, rounded half-even once: amount ÷ m in a month band, else
 * amount × 2,629,746 / P. `amount` is the exact fraction num/den; P ≥ 1 second.
 */
export function mrrAtto(amount: { num: bigint; den: bigint }, periodSeconds: number): bigint {
  const months = bandMonths(periodSeconds);
  if (months !== undefined) return toAtto(amount.num, amount.den * months);
  return toAtto(amount.num * MEAN_MONTH_SECONDS, amount.den * BigInt(periodSeconds));
}
