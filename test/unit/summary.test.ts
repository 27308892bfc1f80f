import { describe, expect, it } from 'vitest';
import { Summariser, amountFields, amountsOf } from '../../src/core/lists/summary.js';
import { MalformedResponseError } from '../../src/core/runtime/errors.js';
import { endpoints } from '../../src/registry/endpoints.js';

// --summary by hand: small lists whose counts, orders and sums are worked out here,
// record by record (test/unit/properties.test.ts checks the sums against BigInt on
// generated lists).

const endpoint = (id: string) => endpoints.find((e) => e.id === id)!;

function summarise(id: string, records: Record<string, unknown>[]) {
  const s = new Summariser(endpoint(id));
  for (const r of records) s.add(r);
  return s.result();
}

function refusal(id: string, records: Record<string, unknown>[]): MalformedResponseError {
  const s = new Summariser(endpoint(id));
  for (const r of records) s.add(r);
  try {
    s.result();
  } catch (err) {
    expect(err).toBeInstanceOf(MalformedResponseError);
    return err as MalformedResponseError;
  }
  throw new Error('expected the summary to be refused');
}

describe('amountFields: the columns of the totals', () => {
  it.each([
    ['one-time.transfers', ['amount', 'fee']],
    ['fixed-recurring.billings.by-plan', ['amount', 'fee']],
    ['one-time.payments.list', ['receivers.amount', 'receivers.fee']],
    ['wallet-to-wallet.payments.list', ['serviceFee', 'receivers.amount', 'receivers.fee']],
    ['dollar-cost-average.executions', ['fee', 'swaps.inputAmount', 'swaps.outputAmount']],
    ['fixed-recurring.cancellations', []],
    ['fixed-recurring.short-urls.list', []],
  ])('%s: %j', (id, fields) => {
    expect(amountFields(endpoint(id).record)).toEqual(fields);
  });
});

describe('amountsOf', () => {
  it('a transfer: amount and fee in its token', () => {
    expect([...amountsOf({ token: 'USDT', amount: '12.5', fee: '0.1' })]).toEqual([
      { token: 'USDT', field: 'amount', value: '12.5', exact: true },
      { token: 'USDT', field: 'fee', value: '0.1', exact: true },
    ]);
  });

  it('a payment: its service fee, then each receiver amount and fee, skipping what is not an object', () => {
    const payment = { token: 'BNB', serviceFee: '1', receivers: [{ amount: '2', fee: '0.2' }, null, 'x', { amount: '3' }] };
    expect([...amountsOf(payment)]).toEqual([
      { token: 'BNB', field: 'serviceFee', value: '1', exact: true },
      { token: 'BNB', field: 'receivers.amount', value: '2', exact: true },
      { token: 'BNB', field: 'receivers.fee', value: '0.2', exact: true },
      { token: 'BNB', field: 'receivers.amount', value: '3', exact: true },
    ]);
    expect([...amountsOf({ token: 'BNB', receivers: 'none' })]).toEqual([]);
  });

  it("an execution: fee and inputs in its input token, each output in that swap's own token", () => {
    const execution = {
      inputToken: 'USDT',
      fee: '0.5',
      swaps: [
        { inputAmount: '10', outputAmount: '0.02', outputToken: 'BNB' },
        { inputAmount: '5', outputAmount: '7' },
      ],
    };
    expect([...amountsOf(execution)]).toEqual([
      { token: 'USDT', field: 'fee', value: '0.5', exact: true },
      { token: 'USDT', field: 'swaps.inputAmount', value: '10', exact: true },
      { token: 'BNB', field: 'swaps.outputAmount', value: '0.02', exact: true },
      { token: 'USDT', field: 'swaps.inputAmount', value: '5', exact: true },
      { token: '(no token)', field: 'swaps.outputAmount', value: '7', exact: true },
    ]);
  });

  it("the list's amount fields, when asked for, are amounts even when missing (not exact)", () => {
    expect([...amountsOf({ token: 'USDT', amount: '1' }, ['amount', 'fee'])]).toEqual([
      { token: 'USDT', field: 'amount', value: '1', exact: true },
      { token: 'USDT', field: 'fee', value: undefined, exact: false },
    ]);
    expect([...amountsOf({ token: 'USDT', receivers: null }, ['receivers.amount', 'receivers.fee'])]).toEqual([{ token: 'USDT', field: 'receivers', value: null, exact: false }]);
    expect([...amountsOf({ token: 'USDT', receivers: [{ amount: '2' }] }, ['receivers.amount', 'receivers.fee'])]).toEqual([
      { token: 'USDT', field: 'receivers.amount', value: '2', exact: true },
      { token: 'USDT', field: 'receivers.fee', value: undefined, exact: false },
    ]);
  });

  it('a token that is not text is no token', () => {
    expect([...amountsOf({ token: 7, amount: '1' })]).toEqual([{ token: '(no token)', field: 'amount', value: '1', exact: true }]);
    expect([...amountsOf({ token: 7, inputToken: 'USDT', amount: '1' })]).toEqual([{ token: 'USDT', field: 'amount', value: '1', exact: true }]);
  });

  it.each([
    ['0', true],
    ['-3', true],
    ['12.50', true],
    ['-0.000000000000000001', true],
    ['1e5', false],
    ['12.', false],
    ['.5', false],
    ['+1', false],
    ['12x', false],
    ['x12', false],
    ['', false],
    [' 1', false],
    [100, false],
    [null, false],
  ])('%j is exact: %s', (value, exact) => {
    expect([...amountsOf({ token: 'T', amount: value })]).toEqual([{ token: 'T', field: 'amount', value, exact }]);
  });
});

describe('Summariser', () => {
  it('counts records per status, settled first, then what may move, then what did not happen, then the rest by name', () => {
    const statuses = ['failed', 'reverted', 'pending', 'confirmed', 'abandoned', 'confirmed', 'failed', 'confirmed'];
    const result = summarise(
      'one-time.transfers',
      statuses.map((transactionStatus, i) => ({ transactionStatus, token: 'USDT', amount: '1', fee: '0', transactionHash: `0x${i}` })),
    );
    expect(result.count).toBe(8);
    expect(Object.entries(result.statuses)).toEqual([
      ['confirmed', 3],
      ['pending', 1],
      ['failed', 2],
      ['abandoned', 1],
      ['reverted', 1],
    ]);
  });

  it('counts a billing with success 0 as failed, whatever its status says', () => {
    const result = summarise('fixed-recurring.billings.by-plan', [
      { success: 0, transactionStatus: 'confirmed', token: 'USDT', amount: '5', fee: '0' },
      { success: 1, transactionStatus: 'confirmed', token: 'USDT', amount: '7', fee: '0' },
    ]);
    expect(result.statuses).toEqual({ confirmed: 1, failed: 1 });
    expect(result.totals).toEqual([
      { token: 'USDT', status: 'confirmed', count: 1, amount: '7', fee: '0' },
      { token: 'USDT', status: 'failed', count: 1, amount: '5', fee: '0' },
    ]);
  });

  it('totals per token (by name) and status (in the order above), exact, every amount column on every row', () => {
    const r = (token: string, transactionStatus: string, amount: string, fee: string) => ({ token, transactionStatus, amount, fee });
    const result = summarise('one-time.transfers', [
      r('USDT', 'pending', '0.1', '0.01'),
      r('BNB', 'zombie', '3', '0'),
      r('USDT', 'confirmed', '0.2', '0.02'),
      r('BNB', 'failed', '1.5', '0.5'),
      r('USDT', 'pending', '0.2', '0'),
      r('BNB', 'confirmed', '-2', '0'),
      r('BNB', 'abandoned', '4', '0'),
      r('8PAY', 'confirmed', '100000000000000000000.000000000000000001', '1'),
      r('8PAY', 'confirmed', '0.999999999999999999', '2'),
    ]);
    expect(result.totals).toEqual([
      { token: '8PAY', status: 'confirmed', count: 2, amount: '100000000000000000001', fee: '3' },
      { token: 'BNB', status: 'confirmed', count: 1, amount: '-2', fee: '0' },
      { token: 'BNB', status: 'failed', count: 1, amount: '1.5', fee: '0.5' },
      { token: 'BNB', status: 'abandoned', count: 1, amount: '4', fee: '0' },
      { token: 'BNB', status: 'zombie', count: 1, amount: '3', fee: '0' },
      { token: 'USDT', status: 'confirmed', count: 1, amount: '0.2', fee: '0.02' },
      { token: 'USDT', status: 'pending', count: 2, amount: '0.3', fee: '0.01' },
    ]);
  });

  it("counts a swap's output in its own token: rows of that token count no records", () => {
    const result = summarise('dollar-cost-average.executions', [
      {
        inputToken: 'USDT',
        transactionStatus: 'confirmed',
        fee: '0.5',
        swaps: [
          { inputAmount: '10', outputAmount: '0.02', outputToken: 'BNB' },
          { inputAmount: '5', outputAmount: '7' },
        ],
      },
    ]);
    expect(result.totals).toEqual([
      { token: '(no token)', status: 'confirmed', count: 0, fee: '0', 'swaps.inputAmount': '0', 'swaps.outputAmount': '7' },
      { token: 'BNB', status: 'confirmed', count: 0, fee: '0', 'swaps.inputAmount': '0', 'swaps.outputAmount': '0.02' },
      { token: 'USDT', status: 'confirmed', count: 1, fee: '0.5', 'swaps.inputAmount': '15', 'swaps.outputAmount': '0' },
    ]);
  });

  it('the first and last timestamps are the least and greatest, whatever the order; text is no timestamp', () => {
    const result = summarise(
      'one-time.transfers',
      [50, 10, 70, '5', 30, '90'].map((timestamp) => ({ timestamp, transactionStatus: 'confirmed', token: 'USDT', amount: '1', fee: '0' })),
    );
    expect(result.firstTimestamp).toBe(10);
    expect(result.lastTimestamp).toBe(70);
  });

  it('a list without timestamps or forced flags has neither in its summary', () => {
    const result = summarise('one-time.transfers', [{ transactionStatus: 'confirmed', token: 'USDT', amount: '1', fee: '0' }]);
    expect(result).toEqual({
      count: 1,
      statuses: { confirmed: 1 },
      totals: [{ token: 'USDT', status: 'confirmed', count: 1, amount: '1', fee: '0' }],
    });
    expect(Object.keys(result)).toEqual(['count', 'statuses', 'totals']);
  });

  it('an empty list', () => {
    expect(summarise('one-time.transfers', [])).toEqual({ count: 0, statuses: {}, totals: [] });
  });

  it('counts forced cancellations once the list has the flag, zero included', () => {
    const c = (forced: unknown) => ({ subscriptionId: '0x1', transactionHash: '0x2', transactionStatus: 'confirmed', timestamp: 100, forced });
    expect(summarise('fixed-recurring.cancellations', [c(true), c(false), c(true), c('yes'), c(1)]).forced).toBe(2);
    const none = summarise('fixed-recurring.cancellations', [c(false), c(false)]);
    expect(none.forced).toBe(0);
    expect(Object.keys(none)).toEqual(['count', 'statuses', 'forced', 'firstTimestamp', 'lastTimestamp', 'totals']);
  });

  describe('refuses to total an amount that is not a decimal string (exit 6), naming its record', () => {
    const transfer = (hash: string, amount: unknown, fee: unknown = '0') => ({ transactionHash: hash, transactionStatus: 'confirmed', token: 'USDT', amount, fee });

    it.each([
      [100000, 'amount 100000'],
      ['1e5', 'amount "1e5"'],
      [null, 'amount null'],
      ['12x', 'amount "12x"'],
      ['x12', 'amount "x12"'],
      [true, 'amount true'],
    ])('%j', (amount, named) => {
      const err = refusal('one-time.transfers', [transfer('0xok', '1'), transfer('0xbad', amount)]);
      expect(err.message).toBe(`cannot total exactly: 1 record carry an amount that is not a decimal string: 0xbad (${named})`);
      expect(err.hint).toBe('the service sent amounts payrec cannot add up exactly (a number, an exponent, null or nothing instead of a decimal string); no total was printed');
      expect(err.exitCode).toBe(6);
    });

    it('every bad field of a record, in one message', () => {
      const err = refusal('one-time.transfers', [transfer('0xbad', 1, '2e1')]);
      expect(err.message).toBe('cannot total exactly: 1 record carry an amount that is not a decimal string: 0xbad (amount 1, fee "2e1")');
    });

    it('names ten records and counts the rest', () => {
      const records = Array.from({ length: 12 }, (_, i) => transfer(`0x${i}`, 1));
      const named = Array.from({ length: 10 }, (_, i) => `0x${i} (amount 1)`).join('; ');
      expect(refusal('one-time.transfers', records).message).toBe(`cannot total exactly: 12 records carry an amount that is not a decimal string: ${named}, and 2 more`);
    });

    it('names exactly ten without "more"', () => {
      const records = Array.from({ length: 10 }, (_, i) => transfer(`0x${i}`, 1));
      expect(refusal('one-time.transfers', records).message).not.toContain('more');
    });

    it('a thousand and more, with separators', () => {
      const records = Array.from({ length: 1234 }, (_, i) => transfer(`0x${i}`, 1));
      expect(refusal('one-time.transfers', records).message).toMatch(/^cannot total exactly: 1,234 records carry .*, and 1,224 more$/);
    });

    it('cuts a name or value longer than 80 characters', () => {
      const long = '0x' + 'a'.repeat(98);
      const exactly80 = '0x' + 'b'.repeat(78);
      const value81 = '9'.repeat(79) + 'e9'; // 81 characters, 83 with its quotes
      expect(refusal('one-time.transfers', [transfer(long, 1)]).message).toContain(`: ${long.slice(0, 80)}… (amount 1)`);
      expect(refusal('one-time.transfers', [transfer(exactly80, 1)]).message).toContain(`: ${exactly80} (amount 1)`);
      expect(refusal('one-time.transfers', [transfer('0x1', value81)]).message).toContain(`(amount ${JSON.stringify(value81).slice(0, 80)}…)`);
    });

    it('a record without its identity is named by the whole record', () => {
      const record = { transactionStatus: 'confirmed', token: 'USDT', amount: 5, fee: '0' };
      expect(refusal('one-time.transfers', [record]).message).toContain(`: ${JSON.stringify(record)} (amount 5)`);
    });

    it("an amount the list's records carry that is missing is named as missing", () => {
      expect(refusal('one-time.transfers', [{ transactionHash: '0xa', transactionStatus: 'confirmed', token: 'USDT', amount: '1' }]).message).toContain(': 0xa (fee missing)');
      expect(refusal('one-time.payments.list', [{ id: 'p1', transactionStatus: 'confirmed', token: 'USDT' }]).message).toContain(': p1 (receivers missing)');
    });
  });
});
