import { UsageError } from './errors.js';
import { printable } from '../output/sanitize.js';
import { FORMATS, namesOr } from '../output/formats.js';

// Numeric and enumerated options, each declared once as a parser: the value a user
// typed in, a number or a clear exit-2 message out. Written without zod: `sql`,
// `metrics` and the start of every command parse flags, and loading zod for that cost
// about 20 ms of each run (the registry's schemas bring it where records are checked).

/** What parseOption asks of a schema: zod's safeParse, which the registry's validators (zod schemas) have too. */
export interface OptionSchema<T> {
  safeParse(value: string): { success: true; data: T } | { success: false; error: { issues: readonly { message: string }[] } };
}

/** A schema from a function that returns the value, or the message when it refuses. */
function option<T>(parse: (s: string) => { value: T } | string): OptionSchema<T> {
  return {
    safeParse(s) {
      const r = parse(s);
      return typeof r === 'string' ? { success: false, error: { issues: [{ message: r }] } } : { success: true, data: r.value };
    },
  };
}

const wholeNumber = (min: number, max: number, what: string) =>
  option((s) => {
    const n = Number(s);
    return /^\d+$/.test(s) && n >= min && n <= max ? { value: n } : `expected ${what}`;
  });

const seconds = (example: string, range: string, inRange: (n: number) => boolean) =>
  option((s) => {
    if (!/^\d+(\.\d+)?$/.test(s)) return `expected seconds, such as ${example}`;
    const n = Number(s);
    return inRange(n) ? { value: n } : `expected seconds from ${range}`;
  });

const oneOf = <const T extends string>(values: readonly T[], message: string) =>
  option((s) => ((values as readonly string[]).includes(s) ? { value: s as T } : message));

export const optionSchemas = {
  limit: wholeNumber(1, 1_000_000_000, 'a whole number of records from 1 (or --all for every record)'),
  pageSize: wholeNumber(1, 1000, 'a whole number from 1 to 1000'),
  offset: wholeNumber(0, 1_000_000_000, 'a whole number from 0'),
  concurrency: wholeNumber(1, 16, 'a whole number from 1 to 16'),
  retries: wholeNumber(0, 10, 'a whole number from 0 to 10'),
  timeout: seconds('30 or 2.5', 'more than 0 to 3600', (n) => n > 0 && n <= 3600),
  interval: seconds('10 or 0.5', '0.1 to 86400', (n) => n >= 0.1 && n <= 86_400),
  period: oneOf(['day', 'week', 'month'], 'expected day, week or month'),
  timeFormat: oneOf(['unix', 'iso'], 'expected unix or iso'),
  sort: oneOf(['asc', 'desc'], 'expected asc or desc'),
  format: oneOf(FORMATS, `expected ${namesOr(FORMATS)}`),
};

/** --concurrency's help, of lists and sync alike. */
export const CONCURRENCY_HELP =
  'pages fetched at once, 1–16; without it payrec finds the pace: more pages while they come faster, fewer on 429, 503 or rising latency (Retry-After honoured), up to 16 (config set concurrency)';

/** Parses one option value with its schema; the message names the flag and the value. */
export function parseOption<T>(schema: OptionSchema<T>, value: string, flag: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new UsageError(`invalid ${flag} "${printable(value)}": ${r.error.issues[0].message}`);
}

/** Kebab-case flag of an API name: planId → --plan-id. */
export function flagOf(name: string): string {
  return '--' + name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase()).replace(/_/g, '-');
}
