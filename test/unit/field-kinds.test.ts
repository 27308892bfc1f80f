import { describe, expect, it } from 'vitest';
import { API_AMOUNT_FIELDS, API_TIME_FIELDS, isTimeColumn } from '../../src/core/output/rows.js';
import { AMOUNT_FIELDS, TIME_FIELDS } from '../../src/registry/field-kinds.js';

// Amounts and times are the registry's: field-kinds.ts reads them from the schemas. The
// writer names them (it never loads zod, for `payrec sql`): held here to the schemas, so
// a time or amount field added to the registry fails this until the writer shows it as one.

describe("the output's amount and time fields are the registry's", () => {
  it('names every time field of the schemas, and no other field of the API', () => {
    expect([...TIME_FIELDS].sort()).toEqual([...API_TIME_FIELDS].sort());
    for (const field of TIME_FIELDS) expect(isTimeColumn(field) && isTimeColumn(`receivers.${field}`), field).toBe(true);
  });

  it('names every amount field of the schemas', () => {
    expect([...AMOUNT_FIELDS].sort()).toEqual([...API_AMOUNT_FIELDS].sort());
  });
});
