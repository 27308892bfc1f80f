import { describe, expectTypeOf, test } from 'vitest';
import { createClient, type PayrecClient, type RecordOf } from '../../src/index.js';

// The library's types, checked by `npx tsc --noEmit` (this file is in the project) and
// by vitest: record types come from the registry's zod schemas, ids and path parameters
// are checked at compile time. Nothing here is sent: the client is never used.

describe('library types', () => {
  test('list yields the record type of the endpoint, page after page', () => {
    expectTypeOf<PayrecClient['list']>().toBeFunction();
    type Transfers = ReturnType<typeof listTransfers>;
    expectTypeOf<Transfers>().toEqualTypeOf<AsyncGenerator<RecordOf<'one-time.transfers'>>>();
    expectTypeOf<RecordOf<'one-time.transfers'>['amount']>().toEqualTypeOf<string>();
    expectTypeOf<RecordOf<'one-time.transfers'>['timestamp']>().toEqualTypeOf<number>();
    expectTypeOf<RecordOf<'one-time.transfers'>['oneTimeId']>().toEqualTypeOf<string>();
    expectTypeOf<RecordOf<'fixed-recurring.billings.by-plan'>['success']>().toEqualTypeOf<number>();
    expectTypeOf<RecordOf<'variable-recurring.cancellations'>['forced']>().toEqualTypeOf<boolean>();
    expectTypeOf<RecordOf<'dollar-cost-average.executions'>['swaps'][number]['outputToken']>().toEqualTypeOf<string>();
    expectTypeOf<RecordOf<'wallet-to-wallet.payments.list'>['receivers'][number]['amount']>().toEqualTypeOf<string>();
  });

  test('get returns a promise of the record', () => {
    type Payment = ReturnType<typeof getPayment>;
    expectTypeOf<Payment>().toEqualTypeOf<Promise<RecordOf<'one-time.payments.get'>>>();
  });

  test('unknown ids, lists passed to get and missing path parameters do not compile', () => {
    const client = null as unknown as PayrecClient;
    const never = () => {
      // @ts-expect-error not an endpoint
      client.list('one-time.transfer');
      // @ts-expect-error a single-record endpoint is not a list
      client.list('one-time.payments.get');
      // @ts-expect-error a list is not fetched with get
      void client.get('one-time.transfers', {});
      // @ts-expect-error the path parameter is id, not planId
      void client.get('one-time.payments.get', { planId: '0x' });
      // @ts-expect-error amounts are decimal strings, never numbers
      const n: number = ({} as RecordOf<'one-time.transfers'>).amount;
      return n;
    };
    expectTypeOf(never).toBeFunction();
  });
});

function listTransfers() {
  return createClient({ apiKey: 'unused' }).list('one-time.transfers', { filters: { token: 'USDT' } });
}

function getPayment() {
  return createClient({ apiKey: 'unused' }).get('one-time.payments.get', { id: '0x' });
}
