import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec } from './helpers.js';

// --count and --jq over a window of more records than the largest page the API serves
// (1,000), against the emulator's complete records: a walk that counted only its first
// page would print 1000 with exit 0 (issue 31, survivor 3; whole-window.test.ts holds
// windows under one page).

let emu: Emulator;
let records: Record<string, unknown>[];
beforeAll(async () => {
  emu = await emulator({ records: 2_345 });
  records = emu.records('bsc', 'one-time/transfers').records;
});
afterAll(() => emu.close());

describe('--count past a page of 1,000', () => {
  it('counts every record of the window, every confirmed one, and --jq length sees them all', async () => {
    expect(records.length).toBe(2_345);
    const confirmed = records.filter((x) => x.transactionStatus === 'confirmed').length;
    expect(confirmed).toBeGreaterThan(1_000);
    const [count, status, jq] = await Promise.all([
      payrec(emu, ['ot', 'transfers', '--count', '-q']),
      payrec(emu, ['ot', 'transfers', '--status', 'confirmed', '--count', '-q']),
      payrec(emu, ['ot', 'transfers', '--jq', 'length', '-q']),
    ]);
    expect([count.stdout, count.exitCode]).toEqual(['2345\n', 0]);
    expect([status.stdout, status.exitCode]).toEqual([`${confirmed}\n`, 0]);
    expect([jq.stdout, jq.exitCode]).toEqual(['2345\n', 0]);
  });
});
