import { describe, expect, it } from 'vitest';
import { prepareRates } from '../../src/subscriptions/prepared-rates.js';
import { MissingRates } from '../../src/values/missing.js';
import type { Rate, RateAnswer, RateQuery, RateSource } from '../../src/values/rate.js';

// The engine's rates prepared from a rate source of values/: one batch with every instant
// the figures need, each answer read into an exact fraction (a cross through an inverted
// rate has a decimal denominator), and every question with no answer counted as missing.
// The source here is a table written in the test (the RateSource interface, no network).

const rate = (numerator: string, denominator: string, source: string): Rate => ({ rate: denominator === '1' ? numerator : `${numerator}/${denominator}`, numerator, denominator, rateTime: 100, rateSource: source, zero: false });

class TableSource implements RateSource {
  batches: RateQuery[][] = [];
  constructor(private readonly answer: (q: RateQuery) => RateAnswer) {}
  async rates(queries: readonly RateQuery[]): Promise<RateAnswer[]> {
    this.batches.push([...queries]);
    return queries.map(this.answer);
  }
}

describe('prepareRates', () => {
  it('asks once, for every instant of every token, and hands each answer over as an exact fraction with its evidence', async () => {
    const bnb = rate('612.5', '1', 'file:rates.csv:2');
    // EUR through USD: 1 USDT = 0.9998 USD, 1 EUR = 1.0830 USD → 0.9998 / 1.083 EUR.
    const usdt = rate('0.9998', '1.083', 'file:rates.csv:3 × file:rates.csv:9');
    const source = new TableSource((q) => (q.token === 'BNB' ? bnb : q.at === 30 ? { missing: 'no row' } : usdt));
    const missing = new MissingRates();
    const lookup = await prepareRates(
      new Map([
        ['BNB', [10, 20]],
        ['USDT', [20, 30]],
      ]),
      source,
      'bsc',
      'EUR',
      missing,
    );
    expect(source.batches).toEqual([
      [
        { chain: 'bsc', token: 'BNB', currency: 'EUR', at: 10 },
        { chain: 'bsc', token: 'BNB', currency: 'EUR', at: 20 },
        { chain: 'bsc', token: 'USDT', currency: 'EUR', at: 20 },
        { chain: 'bsc', token: 'USDT', currency: 'EUR', at: 30 },
      ],
    ]);
    expect(lookup('BNB', 10)).toEqual({ num: 6125n, den: 10n, evidence: bnb });
    expect(lookup('BNB', 20)).toEqual({ num: 6125n, den: 10n, evidence: bnb });
    // 0.9998 / 1.083 = (9998 / 10^4) / (1083 / 10^3) = 9998 × 10^3 / (10^4 × 1083).
    expect(lookup('USDT', 20)).toEqual({ num: 9_998_000n, den: 10_830_000n, evidence: usdt });
    // Not asked, or with no answer: nothing.
    expect(lookup('USDT', 30)).toBeUndefined();
    expect(lookup('BNB', 30)).toBeUndefined();
    expect(lookup('ETH', 10)).toBeUndefined();
    expect(missing.count).toBe(1);
    expect(missing.lines()).toEqual(['bsc USDT → EUR: 1 record from 1970-01-01T00:00:30Z to 1970-01-01T00:00:30Z (no row)']);
  });

  it('a rate that is not two plain decimals is a bug of the source, never a figure', async () => {
    const source = new TableSource(() => rate('1e3', '1', 'x'));
    await expect(prepareRates(new Map([['BNB', [1]]]), source, 'bsc', 'USD', new MissingRates())).rejects.toThrow(/not two plain decimals/);
    const zero = new TableSource(() => rate('1', '0', 'x'));
    await expect(prepareRates(new Map([['BNB', [1]]]), zero, 'bsc', 'USD', new MissingRates())).rejects.toThrow(/not two plain decimals/);
  });
});
