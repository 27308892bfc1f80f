import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec } from './helpers.js';

// --count, --jq and the truncation notice over a window of several hundred matches
// (more than the default --limit 100 and than one page), against the emulator's
// complete records: a walk that stopped after the first page or the first 100
// matches would print a plausible number with exit 0 (issue 24, items 1 and 7).

let emu: Emulator;
let records: Record<string, unknown>[];
beforeAll(async () => {
  emu = await emulator({ records: 600 });
  records = emu.records('bsc', 'one-time/transfers').records;
});
afterAll(() => emu.close());

describe('--count and --jq read the whole window', () => {
  it('--count counts every record (mutant: the first 100 only)', async () => {
    const r = await payrec(emu, ['ot', 'transfers', '--count']);
    expect(records.length).toBe(600);
    expect(r.stdout).toBe('600\n');
  });

  it('--status confirmed --count -q counts every confirmed record', async () => {
    const confirmed = records.filter((x) => x.transactionStatus === 'confirmed').length;
    expect(confirmed).toBeGreaterThan(100);
    const r = await payrec(emu, ['ot', 'transfers', '--status', 'confirmed', '--count', '-q']);
    expect(r.stdout).toBe(`${confirmed}\n`);
    expect(r.stderr).toBe('');
  });

  it('--jq length and --jq map(.transactionHash) see every record, newest first', async () => {
    const [length, hashes] = await Promise.all([payrec(emu, ['ot', 'transfers', '--jq', 'length']), payrec(emu, ['ot', 'transfers', '--jq', 'map(.transactionHash)', '--page-size', '250'])]);
    expect(length.stdout).toBe('600\n');
    // The store holds them oldest first; the API's default sort is newest first.
    expect(JSON.parse(hashes.stdout)).toEqual(records.map((x) => x.transactionHash).reverse());
  });
});

describe('a list cut by --limit says so', () => {
  it('when the last match ends a page (--status confirmed --limit 1 --page-size 1)', async () => {
    const r = await payrec(emu, ['ot', 'transfers', '--status', 'confirmed', '--limit', '1', '--page-size', '1', '-f', 'jsonl']);
    expect(r.exitCode).toBe(0);
    const newestConfirmed = [...records].reverse().find((x) => x.transactionStatus === 'confirmed')!;
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l).transactionHash)).toEqual([newestConfirmed.transactionHash]);
    expect(r.stderr).toMatch(/showing the first 1 matching records?; more may match/);
  });
});

describe('a list whose total keeps growing', () => {
  it('--all stops with exit 6 once the total passes ten times the first one, instead of reading forever', async () => {
    // A coherent list (newest first, the same record at the same place) to which five
    // older records are added at every request: the walk never reaches its end.
    const T = 1_700_000_000;
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      const u = new URL(req.url!, 'http://x');
      const from = Number(u.searchParams.get('from') ?? 0);
      const to = Number(u.searchParams.get('to') ?? Infinity);
      const all = Array.from({ length: 10 + 5 * requests }, (_, i) => T - i).filter((t) => t >= from && t <= to);
      const offset = Number(u.searchParams.get('offset') ?? 0);
      const limit = Number(u.searchParams.get('limit') ?? 100);
      const data = all.slice(offset, offset + limit).map((t) => ({
        description: 'Ebook', amount: '1', fee: '0', token: 'USDT', category: 'Shop', timestamp: t,
        transactionHash: `0x${t.toString(16).padStart(64, '0')}`, transactionStatus: 'confirmed',
        sender: `0x${'1'.repeat(40)}`, receiver: `0x${'2'.repeat(40)}`, oneTimeId: `0x${'3'.repeat(64)}`,
      }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data, limit, offset, total: all.length }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await payrec(undefined, ['ot', 'transfers', '--all', '--page-size', '5', '-f', 'jsonl', '-q'], { env: { PAYREC_BASE_URL: url, PAYREC_API_KEY: 'prk_test_growing' } });
      expect(r.exitCode).toBe(6);
      expect(r.stderr).toMatch(/the list kept growing while it was read: the service announced 15 records, then 1\d\d \(more than 10 times as many\)/);
      expect(requests).toBeLessThan(40);
    } finally {
      server.close();
    }
  });
});
