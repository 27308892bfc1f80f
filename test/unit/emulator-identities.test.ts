import { describe, expect, test } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { Random } from '../../src/emulator/prng.js';
import { uniqueHexId, uuid } from '../../src/emulator/values.js';

// A record's identity (a transaction hash, a payment id) is what exports, follow and the
// mirror de-duplicate by, so no two generated records of a collection may share one.
// Seeds are 32-bit: before identities encoded their index, a 300,000-record collection
// held a few random collisions.

describe('generated identities are unique in their collection', () => {
  test('ids built from the same random stream differ when their indexes do', () => {
    const hashes = new Set<string>();
    const uuids = new Set<string>();
    for (let i = 0; i < 1 << 18; i++) {
      hashes.add(uniqueHexId(new Random(7), i));
      uuids.add(uuid(new Random(7), i));
    }
    expect(hashes.size).toBe(1 << 18);
    expect(uuids.size).toBe(1 << 18);
  });

  test('transfers, one-time and wallet-to-wallet payments: 100,000 records each, every identity distinct', async () => {
    const emu = await startEmulator({ records: 100_000 });
    try {
      for (const [collection, field] of [['on-demand/transfers', 'transactionHash'], ['one-time/payments', 'id'], ['wallet-to-wallet/payments', 'id']]) {
        const { records } = emu.records('bsc', collection);
        expect(new Set(records.map((r) => r[field])).size, collection).toBe(100_000);
      }
    } finally {
      await emu.close();
    }
  });
});
