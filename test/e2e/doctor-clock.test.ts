import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { payrec, tempDir } from './helpers.js';

// doctor reads the service's clock only from an RFC 9110 date of a plausible year (issue
// 32 item 17): a Date header of 1970, of the year 275760, or not a date at all says the
// clock cannot be read, rather than blame this machine's.

describe('a Date header that cannot be the time', () => {
  let server: Server;
  let date = '';
  let url: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.sendDate = false;
      res.setHeader('date', date);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: [], total: 0, limit: 1, offset: 0 }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  test.each([
    ['the epoch', 'Thu, 01 Jan 1970 00:00:00 GMT'],
    ['the last day JavaScript dates reach', 'Sat, 13 Sep 275760 00:00:00 GMT'],
    ['a date without its weekday', '01 Jan 2026 00:00:00 GMT'],
    ['a date with the wrong weekday', 'Mon, 01 Jan 2026 00:00:00 GMT'],
    ['not a date', 'soon'],
    ['a header of 41 characters, shown by its first 40', 'Tuesday, 01-Jan-2026 00:00:00 GMT (local)'],
  ])('%s: a warning that the service\'s clock cannot be read, exit 0', async (_, header) => {
    // Mutant killed: Date.parse of any header (1970 failed the run: "this machine's clock is 56 years ahead").
    date = header;
    const h = tempDir();
    const r = await payrec(undefined, ['doctor', '-f', 'json'], {
      env: { HOME: h, XDG_DATA_HOME: join(h, 'data'), XDG_STATE_HOME: join(h, 'state'), XDG_CONFIG_HOME: join(h, 'config'), SHELL: '/bin/bash', PAYREC_BASE_URL: url, PAYREC_API_KEY: 'sk_test_abcdefgh1234' },
    });
    const clock = (JSON.parse(r.stdout) as { check: string; status: string; detail: string }[]).find((row) => row.check === 'clock');
    expect(clock).toEqual({ check: 'clock', status: 'warn', detail: `not compared: the service's clock cannot be read (its Date header "${header.slice(0, 40)}" is not an HTTP date of the years 2000 to 2099)` });
    expect(r.exitCode).toBe(0);
  });
});
