import { UsageError } from './errors.js';
import { formatLocal } from './zone.js';

/**
 * A window that starts after now, however it is given (--period 2027-01, --from 2030-01-01,
 * with or without --to), is refused alike by lists and reports. Records are stamped when
 * they settle, so such a window can hold none: the date is a typo (2027 for 2026) far
 * more often than a question, and an empty answer would let a --fail-if-any gate pass
 * forever. `what` quotes the flag as typed: `--period "2027-01" begins`.
 */
export function futureWindow(what: string, now: number, zone: string): UsageError {
  return new UsageError(
    `${what} after now (${formatLocal(now, zone)} ${zone}): records are stamped when they settle, so a window in the future has none`,
    'check the year; a period under way (today, this-month) ends now',
  );
}
