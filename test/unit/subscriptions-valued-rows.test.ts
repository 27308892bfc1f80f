import { describe, expect, it } from 'vitest';
import type { EvidencedRate } from '../../src/subscriptions/prepared-rates.js';
import type { MovementRow, ValuedSubscriptionRow } from '../../src/subscriptions/engine.js';
import { tableMoney, VALUE_CELLS, valuedLedgerColumns, valuedLedgerRow, valuedMetricsColumns, valuedMetricsRow, valuedMovement } from '../../src/subscriptions/valued-rows.js';

// The rows of metrics, the movement list and the ledger in a currency (DESIGN.md "MRR in
// one currency"): where the currency, mrr_fx and each value's evidence go, what a missing
// rate prints, and a table's money in the currency's minor unit. Expected rows written by hand.

const rate = (text: string, rateTime: number | null, rateSource: string, zero = false): EvidencedRate => ({
  num: 1n,
  den: 2n,
  evidence: { rate: text, numerator: '1', denominator: '2', rateTime, rateSource, zero },
});
const OCT1 = 1_790_812_800;

describe('metrics in a currency', () => {
  it('the currency comes after the row key, mrr_fx after mrr_churned', () => {
    expect(valuedMetricsColumns(['from', 'to', 'token', 'subscriptions_start', 'subscriptions_end', 'mrr_churned', 'mrr_end'])).toEqual([
      'from', 'to', 'token', 'currency', 'subscriptions_start', 'subscriptions_end', 'mrr_churned', 'mrr_fx', 'mrr_end',
    ]);
    const row = valuedMetricsRow({ from: 1, to: 2, token: '*', subscriptions_start: 3, mrr_fx: '0.5' }, 'EUR');
    expect(Object.entries(row)).toEqual([['from', 1], ['to', 2], ['token', '*'], ['currency', 'EUR'], ['subscriptions_start', 3], ['mrr_fx', '0.5']]);
  });
});

describe('the movement list in a currency', () => {
  const move: MovementRow<EvidencedRate> = { from: 0, to: OCT1, instant: 100, subscriptionId: 's1', planId: 'p1', token: 'USDT', kind: 'new', mrr_change: '10' };

  it("a value beside its rate's text, time and source; a zero rate says so", () => {
    const row = valuedMovement({ ...move, value: '5', rate: rate('0.5', OCT1, 'file:rates.csv:2') });
    expect(Object.entries(row)).toEqual([...Object.entries(move), ['value', '5'], ['rate', '0.5'], ['rateTime', OCT1], ['rateSource', 'file:rates.csv:2']]);
    expect(valuedMovement({ ...move, value: '0', rate: rate('0', OCT1, 'file:rates.csv:3', true) }).rateSource).toBe('file:rates.csv:3 (zero rate)');
  });

  it('a constant rate has no time; a missing rate leaves the value and rate empty and names the source missing', () => {
    expect(valuedMovement({ ...move, value: '5', rate: rate('0.5', null, 'file:rates.csv:9') })).toStrictEqual({ ...move, value: '5', rate: '0.5', rateTime: undefined, rateSource: 'file:rates.csv:9' });
    expect(valuedMovement({ ...move, value: null, rate: null })).toStrictEqual({ ...move, value: '', rate: '', rateTime: undefined, rateSource: 'missing' });
    expect(valuedMovement({ ...move, kind: 'fx', mrr_change: '0', value: '-1.25', rate: undefined })).toStrictEqual({ ...move, kind: 'fx', mrr_change: '0', value: '-1.25', rate: '', rateTime: undefined, rateSource: 'missing' });
  });
});

describe('the ledger in a currency', () => {
  it('value after mrr, the evidence at the end', () => {
    expect(valuedLedgerColumns(['subscriptionId', 'mrr', 'started'])).toEqual(['subscriptionId', 'mrr', 'value', 'started', 'rate', 'rateTime', 'rateSource']);
    const base = { subscriptionId: 's1', mrr: '10', started: 5 } as unknown as ValuedSubscriptionRow<EvidencedRate>;
    expect(Object.entries(valuedLedgerRow({ ...base, value: '20', rate: rate('2', OCT1, 'peg:USDT') }))).toEqual([
      ['subscriptionId', 's1'], ['mrr', '10'], ['value', '20'], ['started', 5], ['rate', '2'], ['rateTime', OCT1], ['rateSource', 'peg:USDT'],
    ]);
    expect(valuedLedgerRow({ ...base, value: null, rate: null })).toStrictEqual({ subscriptionId: 's1', mrr: '10', value: '', started: 5, rate: '', rateTime: undefined, rateSource: 'missing' });
  });

  it("a workbook's value cells: values as amounts, rate times as times", () => {
    expect(VALUE_CELLS).toEqual([['value', 'amount'], ['mrr_fx', 'amount'], ['rateTime', 'time']]);
  });
});

describe("a table's money", () => {
  it("the currency's minor unit, ~ where rounded half to even; empty, absent and other columns as they are", () => {
    const usd = tableMoney('USD', ['value', 'mrr_fx', 'mrr_end']);
    const row = { token: 'USDT', value: '10.005', mrr_fx: '', mrr_end: null, rate: '0.123456' };
    expect(usd(row)).toStrictEqual({ token: 'USDT', value: '~10.00', mrr_fx: '', mrr_end: null, rate: '0.123456' });
    expect(row.value).toBe('10.005');
    expect(usd({ value: '3', mrr_fx: '-0.015' })).toEqual({ value: '3.00', mrr_fx: '~-0.02' });
    expect(tableMoney('JPY', ['value'])({ value: '1234.5' })).toEqual({ value: '~1234' });
    expect(tableMoney('KWD', ['value'])({ value: '1.2345' })).toEqual({ value: '~1.234' });
  });
});
