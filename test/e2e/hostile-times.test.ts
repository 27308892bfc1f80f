import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { payrec, tempDir } from './helpers.js';

// A service that stamps one record beyond the years 1 to 9999 (issue 32, item 5):
// 8.64e12 ran --chart day six minutes into a 4 GB heap abort, year 10000 grew memory past
// every signal, 1e300 was exit 1. Each is no date: exit 6 naming the field, in every way
// of reading a list, nothing left on disk. The server is written here, not in the emulator.

const NO_STACK = /\n\s+at /;
/** 9999-12-31T23:59:59Z, the last second a date can have, and the one after it. */
const LAST = 253_402_300_799;

let server: Server;
let url: string;
/** What the one odd record of the page is stamped (the others are ordinary). */
let odd: number = LAST;

function transfer(i: number, timestamp: number) {
  const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');
  return {
    description: 'Plan payment', amount: '10.5', fee: '0.1', token: 'USDT', category: 'Subscription', timestamp,
    transactionHash: `0x${hex(i, 64)}`, transactionStatus: 'confirmed',
    sender: `0x${hex(1, 40)}`, receiver: `0x${hex(2, 40)}`, planId: `0x${hex(3, 64)}`, subscriptionId: `0x${hex(4, 64)}`,
  };
}

beforeAll(async () => {
  server = createServer((_req, res) => {
    // Newest first, as the API sends: an odd record after the others leads the page, one before them ends it.
    const ordinary = [transfer(1, 1_760_000_000), transfer(2, 1_759_000_000)];
    const data = odd > 0 ? [transfer(0, odd), ...ordinary] : [...ordinary, transfer(0, odd)];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data, limit: 100, offset: 0, total: data.length }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

const run = (args: string[]) => payrec(undefined, ['od', 'transfers', ...args], { env: { PAYREC_BASE_URL: url, PAYREC_API_KEY: 'prk_times_test_1234', PAYREC_CHAIN: 'bsc' } });

describe('a record stamped beyond the years 1 to 9999 is exit 6, however the list is read', () => {
  const ways: [string, string[]][] = [
    ['a table', ['--limit', '5']],
    ['a chart by day', ['--limit', '5', '--chart', 'day']],
    ['a summary', ['--limit', '5', '--summary']],
    ['json', ['--limit', '5', '-f', 'json']],
  ];
  for (const stamp of [8.64e12, 1e300, LAST + 1, -62_135_596_801]) {
    test.each(ways)(`${stamp}: %s`, async (_way, args) => {
      odd = stamp;
      const r = await run(args);
      expect(r.exitCode).toBe(6);
      expect(r.stderr).toContain(`a record's timestamp is ${stamp}, beyond the years 1 to 9999`);
      expect(r.stderr).not.toMatch(NO_STACK);
      if (stamp > 0) expect(r.stdout).toBe(''); // the odd record leads the page: nothing before it to print
    });
  }

  test('an export to a file leaves no file', async () => {
    odd = 8.64e12;
    const file = join(tempDir(), 'out.csv');
    const r = await run(['--all', '-f', 'csv', '-o', file]);
    expect(r.exitCode).toBe(6);
    expect(existsSync(file)).toBe(false);
  });

  test('a chart by day from this year to 9999 would draw millions of bars: refused at once (exit 6), by month it is drawn', async () => {
    odd = LAST;
    // A window that holds it: a record after the one asked is refused (issue 48, item 7; hostile-window.test.ts).
    const byDay = await run(['--limit', '5', '--chart', 'day', '-f', 'csv', '--to', '9999-12-31T23:59:59Z']);
    expect(byDay.exitCode).toBe(6);
    // The days from 2025-09-27 (1_759_000_000) to 9999-12-31, both included.
    const days = (Date.UTC(9999, 11, 31) - Date.UTC(2025, 8, 27)) / 86_400_000 + 1;
    expect(byDay.stderr).toContain(`cannot chart by day: the records run from 2025-09-27 to 9999-12-31, ${days.toLocaleString('en-US')} bars (at most 100,000)`);
    expect(byDay.stdout).toBe('');
    const byMonth = await run(['--limit', '5', '--chart', 'month', '-f', 'csv', '--to', '9999-12-31T23:59:59Z']);
    expect(byMonth.exitCode).toBe(0);
    // 2025-09 to 9999-12: (9999 − 2025) × 12 + (12 − 9) + 1 months, a header above them.
    expect(byMonth.stdout.trim().split('\n')).toHaveLength((9999 - 2025) * 12 + 4 + 1);
  });

  test('the last second of the year 9999 is a date: listed, exit 0', async () => {
    odd = LAST;
    const r = await run(['--limit', '5', '-f', 'json', '--columns', 'timestamp', '--to', '9999-12-31T23:59:59Z']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ timestamp: LAST }, { timestamp: 1_760_000_000 }, { timestamp: 1_759_000_000 }]);
  });
});
