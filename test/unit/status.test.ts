import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NO_STATUS, parseStatusFlags, statusLabeller, statusReader } from '../../src/core/lists/status.js';
import { hasStatus, hasSuccess } from '../../src/registry/outcome.js';
import { UsageError } from '../../src/core/runtime/errors.js';
import { endpoints } from '../../src/registry/endpoints.js';

// One meaning of a record's status for --status, --failed, --summary and the labels
// tables show (DESIGN.md "Answers finance and ops can sign"). Expected values are
// written out by hand from that rule, record by record.

const endpoint = (id: string) => endpoints.find((e) => e.id === id)!;
const billings = endpoint('fixed-recurring.billings.by-plan');
const transfers = endpoint('one-time.transfers');
const cancellations = endpoint('fixed-recurring.cancellations');
const shortUrls = endpoint('fixed-recurring.short-urls.list');
const w2wPayments = endpoint('wallet-to-wallet.payments.list');

describe('which lists have a status', () => {
  it.each([
    ['fixed-recurring.billings.by-plan', true, true],
    ['one-time.transfers', true, false],
    ['fixed-recurring.cancellations', true, false],
    ['fixed-recurring.short-urls.list', false, false],
    // Its status lives on each receiver, not on the payment.
    ['wallet-to-wallet.payments.list', false, false],
  ])('%s: status %s, success %s', (id, status, success) => {
    expect(hasStatus(endpoint(id))).toBe(status);
    expect(hasSuccess(endpoint(id))).toBe(success);
  });
});

describe('statusReader', () => {
  const billing = statusReader(billings);
  const transfer = statusReader(transfers);

  it('a billing failed when its success is not 1, whatever its status says', () => {
    expect(billing({ success: 1, transactionStatus: 'confirmed' })).toBe('confirmed');
    expect(billing({ success: 1, transactionStatus: 'pending' })).toBe('pending');
    expect(billing({ success: 0, transactionStatus: 'confirmed' })).toBe('failed');
    expect(billing({ success: 2, transactionStatus: 'pending' })).toBe('failed');
    expect(billing({ success: 1, transactionStatus: 'failed' })).toBe('failed');
  });

  it('a success sent as text reads as its number', () => {
    expect(billing({ success: '0', transactionStatus: 'confirmed' })).toBe('failed');
    expect(billing({ success: '1', transactionStatus: 'confirmed' })).toBe('confirmed');
  });

  it('a billing without a success (drift) goes by its status', () => {
    expect(billing({ transactionStatus: 'pending' })).toBe('pending');
    expect(billing({ success: null, transactionStatus: 'confirmed' })).toBe('confirmed');
  });

  it('a list without a success signal ignores a success field', () => {
    expect(transfer({ success: 0, transactionStatus: 'confirmed' })).toBe('confirmed');
  });

  it('a record without a status is (none), never one of the statuses', () => {
    expect(NO_STATUS).toBe('(none)');
    expect(transfer({})).toBe('(none)');
    expect(transfer({ transactionStatus: 3 })).toBe('(none)');
    expect(billing({ success: 1 })).toBe('(none)');
  });

  it('a record status comes before its receivers', () => {
    expect(transfer({ transactionStatus: 'pending', receivers: [{ transactionStatus: 'failed' }] })).toBe('pending');
  });

  describe('a payment with a status per receiver counts as its worst', () => {
    const payment = statusReader(w2wPayments);
    const of = (...statuses: unknown[]) => payment({ receivers: statuses.map((s) => ({ transactionStatus: s })) });

    it.each([
      [['confirmed'], 'confirmed'],
      [['confirmed', 'confirmed', 'confirmed'], 'confirmed'],
      [['confirmed', 'pending'], 'pending'],
      [['pending', 'confirmed', 'failed'], 'failed'],
      [['failed', 'pending'], 'failed'],
      // A status payrec does not know outranks confirmed, not pending or failed.
      [['confirmed', 'reverted'], 'reverted'],
      [['reverted', 'pending'], 'pending'],
      [['reverted', 'failed'], 'failed'],
    ])('%j → %s', (statuses, expected) => {
      expect(of(...statuses)).toBe(expected);
    });

    it('no receivers, or one without a readable status, is (none)', () => {
      expect(payment({ receivers: [] })).toBe('(none)');
      expect(of('confirmed', 7)).toBe('(none)');
      expect(of('confirmed', undefined)).toBe('(none)');
      expect(payment({ receivers: [{ transactionStatus: 'confirmed' }, null] })).toBe('(none)');
      expect(payment({ receivers: [{ transactionStatus: 'confirmed' }, 'confirmed'] })).toBe('(none)');
      expect(payment({ receivers: 'confirmed' })).toBe('(none)');
      expect(payment({})).toBe('(none)');
    });
  });
});

describe('statusLabeller', () => {
  it('labels a billing whose success contradicts its status, and only those', () => {
    const label = statusLabeller(billings)!;
    expect(label({ success: 0, transactionStatus: 'confirmed' })).toBe('failed (success 0)');
    expect(label({ success: '0', transactionStatus: 'pending' })).toBe('failed (success 0)');
    expect(label({ success: 1, transactionStatus: 'confirmed' })).toBeUndefined();
    expect(label({ success: 0, transactionStatus: 'failed' })).toBeUndefined();
    expect(label({ success: 0 })).toBeUndefined();
  });

  it('lists without both signals have no labeller', () => {
    expect(statusLabeller(transfers)).toBeUndefined();
    expect(statusLabeller(cancellations)).toBeUndefined();
    expect(statusLabeller(shortUrls)).toBeUndefined();
    // A success without a status (no such list today) is not enough either.
    expect(statusLabeller({ record: z.object({ success: z.number() }) })).toBeUndefined();
  });
});

describe('parseStatusFlags', () => {
  const usageError = (status: string | undefined, failed: boolean | undefined) => {
    try {
      parseStatusFlags(status, failed);
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      return (err as UsageError).message;
    }
    throw new Error('expected a UsageError');
  };

  it('neither flag keeps every record', () => {
    expect(parseStatusFlags(undefined, undefined)).toBeUndefined();
    expect(parseStatusFlags(undefined, false)).toBeUndefined();
  });

  it('--failed is --status failed', () => {
    expect(parseStatusFlags(undefined, true)).toEqual(new Set(['failed']));
  });

  it('--status takes one or more statuses, spaces around the commas allowed', () => {
    expect(parseStatusFlags('pending', undefined)).toEqual(new Set(['pending']));
    expect(parseStatusFlags('confirmed, failed', false)).toEqual(new Set(['confirmed', 'failed']));
    expect(parseStatusFlags(' failed ', undefined)).toEqual(new Set(['failed']));
  });

  it('refuses both at once', () => {
    expect(usageError('pending', true)).toBe('give either --status or --failed, not both (--failed is --status failed)');
  });

  it.each(['bogus', '', 'pending,,failed', 'Pending', 'confirmed;failed'])('refuses %j, naming the statuses it takes', (value) => {
    expect(usageError(value, undefined)).toBe(
      `invalid --status "${value}": expected one or more of confirmed, pending, failed, separated by commas (e.g. pending,failed)`,
    );
  });
});
