import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { optionSchemas, parseOption } from '../../src/core/runtime/options.js';

// The flag parsers were zod schemas until start-up dropped zod from option parsing;
// the same schemas, written here as they were, are the oracle: every value must parse
// to the same number or be refused with the same message.

const wholeNumber = (min: number, max: number, what: string) =>
  z.string().regex(/^\d+$/, `expected ${what}`).transform(Number).refine((n) => n >= min && n <= max, `expected ${what}`);

const oracle = {
  limit: wholeNumber(1, 1_000_000_000, 'a whole number of records from 1 (or --all for every record)'),
  pageSize: wholeNumber(1, 1000, 'a whole number from 1 to 1000'),
  offset: wholeNumber(0, 1_000_000_000, 'a whole number from 0'),
  concurrency: wholeNumber(1, 16, 'a whole number from 1 to 16'),
  retries: wholeNumber(0, 10, 'a whole number from 0 to 10'),
  timeout: z.string().regex(/^\d+(\.\d+)?$/, 'expected seconds, such as 30 or 2.5').transform(Number).refine((n) => n > 0 && n <= 3600, 'expected seconds from more than 0 to 3600'),
  interval: z.string().regex(/^\d+(\.\d+)?$/, 'expected seconds, such as 10 or 0.5').transform(Number).refine((n) => n >= 0.1 && n <= 86_400, 'expected seconds from 0.1 to 86400'),
  period: z.enum(['day', 'week', 'month'], { error: 'expected day, week or month' }),
  timeFormat: z.enum(['unix', 'iso'], { error: 'expected unix or iso' }),
  sort: z.enum(['asc', 'desc'], { error: 'expected asc or desc' }),
  format: z.enum(['table', 'json', 'jsonl', 'csv', 'xlsx', 'html'], { error: 'expected table, json, jsonl, csv, xlsx or html' }),
};

/** What parseOption makes of a value: the value, or the message of its exit 2. */
function outcome(schema: Parameters<typeof parseOption>[0], value: string): unknown {
  try {
    return { value: parseOption(schema, value, '--flag') };
  } catch (err) {
    return { message: (err as Error).message };
  }
}

// Around every bound and form: edges, leading zeros, decimals, signs, exponents, spaces.
const edges = ['', '0', '00', '1', '01', '0.0', '0.1', '0.09', '.5', '5.', '1e3', '-1', '+1', ' 1', '1 ', '10', '11', '15', '16', '17', '1000', '1001', '3600', '3600.0', '3600.5', '86400', '86400.1', '999999999', '1000000000', '1000000001', '99999999999999999999', '2.5', 'NaN', 'Infinity', '0x10', '１', 'day', 'week', 'month', 'Day', 'unix', 'iso', 'asc', 'desc', 'table', 'json', 'jsonl', 'csv', 'xlsx', 'tsv', 'json ', '\n'];

describe('option parsers', () => {
  for (const name of Object.keys(oracle) as (keyof typeof oracle)[]) {
    it(`--${name}: the same value or message as its zod schema`, () => {
      for (const v of edges) expect(outcome(optionSchemas[name], v), JSON.stringify(v)).toEqual(outcome(oracle[name], v));
      fc.assert(
        fc.property(fc.oneof(fc.stringMatching(/^[0-9.]{0,12}$/), fc.nat().map(String), fc.string()), (v) => {
          expect(outcome(optionSchemas[name], v)).toEqual(outcome(oracle[name], v));
        }),
        { numRuns: 500 },
      );
    });
  }
});
