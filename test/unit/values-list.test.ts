import { describe, expect, it } from 'vitest';
import { currencyEnricher } from '../../src/values/list-values.js';
import { parseRatesFile } from '../../src/values/rates-file.js';
import { Rates } from '../../src/values/resolve.js';
import { RowBook } from '../../src/values/selection.js';
import type { Session } from '../../src/core/runtime/session.js';

// A list's records valued where the rate is at hand (a rates file): the figures of a
// record that are plain decimal text get a value, any other text gets none (empty), and
// the record keeps its rate as evidence. Expected values worked by hand.

// 2026-10-05T00:00:00Z (2026-01-01 = 1767225600, + 277 days).
const OCT5 = 1_767_225_600 + 277 * 86_400;
const file = 'time,chain,token,currency,rate,source\n2026-10-05,bsc,BNB,USD,600.5,desk\n';
const session = { settings: async () => ({ chain: 'bsc' }) } as unknown as Session;

async function valued(records: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const book = new RowBook(parseRatesFile(file, 'r.csv'), 'r.csv');
  const enricher = currencyEnricher({ currency: 'USD', blank: false }, async () => new Rates([book]));
  const started = await enricher.start({ session, collectionOf: () => 'one-time/transfers', pathValues: {}, asJson: false });
  return started.page(records);
}

describe('a list valued at rates at hand', () => {
  it('values plain decimal figures and leaves any other text (an exponent, a space, a number, none) without a value', async () => {
    // Mutant killed: the amount's plain-decimal check dropped (BigInt reads " 12" as 12, and "1e3" throws).
    const at = { token: 'BNB', timestamp: OCT5 + 60 };
    const rows = await valued([
      { ...at, amount: '2', fee: '-0.01' },
      { ...at, amount: '1e3', fee: ' 12' },
      { ...at, amount: 12, fee: '12.' },
      { ...at },
    ]);
    const evidence = { rate: '600.5', rateTime: OCT5, rateSource: 'file:r.csv:2' };
    expect(rows).toEqual([
      { ...at, amount: '2', fee: '-0.01', value: '1201', feeValue: '-6.005', ...evidence },
      { ...at, amount: '1e3', fee: ' 12', value: '', feeValue: '', ...evidence },
      { ...at, amount: 12, fee: '12.', value: '', feeValue: '', ...evidence },
      { ...at, value: '', feeValue: '', ...evidence },
    ]);
  });
});
