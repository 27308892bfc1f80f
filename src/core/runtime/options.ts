import { z } from 'zod';
import { UsageError } from './errors.js';
import { printable } from '../output/sanitize.js';

// Numeric and enumerated options, each declared once as a zod schema that is also
// its parser: the value a user typed in, a number or a clear exit-2 message out.

const wholeNumber = (min: number, max: number, what: string) =>
  z
    .string()
    .regex(/^\d+$/, `expected ${what}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `expected ${what}`);

export const optionSchemas = {
  limit: wholeNumber(1, 1_000_000_000, 'a whole number of records from 1 (or --all for every record)'),
  pageSize: wholeNumber(1, 1000, 'a whole number from 1 to 1000'),
  offset: wholeNumber(0, 1_000_000_000, 'a whole number from 0'),
  concurrency: wholeNumber(1, 16, 'a whole number from 1 to 16'),
  retries: wholeNumber(0, 10, 'a whole number from 0 to 10'),
  timeout: z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'expected seconds, such as 30 or 2.5')
    .transform(Number)
    .refine((n) => n > 0 && n <= 3600, 'expected seconds from more than 0 to 3600'),
  interval: z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'expected seconds, such as 10 or 0.5')
    .transform(Number)
    .refine((n) => n >= 0.1 && n <= 86_400, 'expected seconds from 0.1 to 86400'),
  period: z.enum(['day', 'week', 'month'], { error: 'expected day, week or month' }),
  timeFormat: z.enum(['unix', 'iso'], { error: 'expected unix or iso' }),
  sort: z.enum(['asc', 'desc'], { error: 'expected asc or desc' }),
  format: z.enum(['table', 'json', 'jsonl', 'csv', 'xlsx'], { error: 'expected table, json, jsonl, csv or xlsx' }),
};

/** Parses one option value with its schema; the message names the flag and the value. */
export function parseOption<T>(schema: z.ZodType<T>, value: string, flag: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new UsageError(`invalid ${flag} "${printable(value)}": ${r.error.issues[0].message}`);
}

/** Kebab-case flag of an API name: planId → --plan-id. */
export function flagOf(name: string): string {
  return '--' + name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase()).replace(/_/g, '-');
}
