import { DuckDBInstance } from '@duckdb/node-api';
import { expect, test } from 'vitest';
import { subscriptionsView } from '../../src/mirror/duckdb/subscriptions-view.js';

// The mirror's `subscriptions` view in a zone with summer time (payrec sql --tz
// Europe/Berlin). Grace is 30 days of 86,400 s (DESIGN.md: past_due while t ≤ paidThrough
// + grace), the engine's arithmetic; never 30 calendar days of the session's zone, which
// across the end of summer time are 30 days and an hour. Expected states worked out by
// hand from that definition.

const DAY = 86_400;
/** A paid 30-day cycle whose last second is 2026-10-10T12:00:00Z; Berlin leaves summer time on 25 October. */
const PAID_THROUGH = Date.UTC(2026, 9, 10, 12) / 1000;
const CYCLE_START = PAID_THROUGH - 30 * DAY + 1;

async function stateAt(now: number): Promise<string> {
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  try {
    await db.run("SET TimeZone = 'Europe/Berlin'");
    await db.run(`CREATE TABLE fixed_recurring_billings (chain VARCHAR, subscriptionId VARCHAR, planId VARCHAR, token VARCHAR, amount DECIMAL(38,18),
      "timestamp" TIMESTAMPTZ, cycleStart TIMESTAMPTZ, cycleEnd TIMESTAMPTZ, success INTEGER, transactionStatus VARCHAR)`);
    await db.run('CREATE TABLE fixed_recurring_cancellations (chain VARCHAR, subscriptionId VARCHAR, "timestamp" TIMESTAMPTZ, transactionStatus VARCHAR, forced BOOLEAN)');
    await db.run(`INSERT INTO fixed_recurring_billings VALUES ('bsc', '0xs', '0xp', 'USDT', 10, to_timestamp(${CYCLE_START}), to_timestamp(${CYCLE_START}), to_timestamp(${PAID_THROUGH}), 1, 'confirmed')`);
    await db.run(subscriptionsView('main'));
    await db.run(`SET VARIABLE payrec_now = to_timestamp(${now})`);
    const rows = (await db.runAndReadAll('SELECT state FROM subscriptions')).getRowObjectsJson();
    return String(rows[0].state);
  } finally {
    db.closeSync();
    instance.closeSync();
  }
}

test('past due up to paidThrough + 30 × 86,400 s exactly, lapsed from the next second, across the end of summer time', async () => {
  const end = PAID_THROUGH + 30 * DAY;
  expect(await stateAt(PAID_THROUGH)).toBe('active');
  expect(await stateAt(PAID_THROUGH + 1)).toBe('past_due');
  expect(await stateAt(end)).toBe('past_due');
  expect(await stateAt(end + 1)).toBe('lapsed');
  // Inside the hour that 30 calendar days in Berlin add here (9 November 12:00Z to 13:00Z).
  expect(await stateAt(end + 1800)).toBe('lapsed');
});
