import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { apiRecords, emulator, payrec } from './helpers.js';

// --all after the first page: the remaining pages are fetched several at a time over
// kept-alive connections, and still written in order, as one document.

const PATH = '/v1/bsc/one-time/transfers';
let emu: Emulator;

beforeAll(async () => {
  emu = await emulator({ records: 2000 });
});
afterAll(() => emu.close());

/** Runs an export and returns its output with the requests it made. */
async function exportAll(concurrency: number, format: string) {
  emu.clearLog();
  const r = await payrec(emu, ['one-time', 'transfers', '--all', '--page-size', '100', '--concurrency', String(concurrency), '-f', format]);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return { stdout: r.stdout, pages: emu.requests.filter((q) => q.path === PATH) };
}

describe('--all with --concurrency', () => {
  test('four pages at a time give the same bytes as one at a time, over at most four connections', async () => {
    const parallel = await exportAll(4, 'json');
    const serial = await exportAll(1, 'json');
    expect(parallel.stdout).toBe(serial.stdout);

    // One JSON document: exactly the API's records, each once, in the API's order (read
    // here with plain HTTP, not through payrec).
    const records = JSON.parse(parallel.stdout) as { timestamp: number; transactionHash: string }[];
    expect(records).toHaveLength(2000);
    expect(records).toEqual(await apiRecords(emu, '/one-time/transfers'));

    for (const run of [parallel, serial]) {
      expect(run.pages.map((q) => Number(q.query.offset)).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i * 100));
      expect(new Set(run.pages.map((q) => q.query.to)).size).toBe(1);
    }
    // Kept-alive connections carry many pages; several are open only when pages overlap.
    const connections = (run: typeof parallel) => new Set(run.pages.map((q) => q.connection)).size;
    expect(connections(serial)).toBe(1);
    expect(connections(parallel)).toBeGreaterThan(1);
    expect(connections(parallel)).toBeLessThanOrEqual(4);
  });

  test('without --concurrency pages still overlap (payrec finds the pace, at most 16 at once), and csv keeps one header and the API order', async () => {
    emu.clearLog();
    const r = await payrec(emu, ['one-time', 'transfers', '--all', '--page-size', '100', '-f', 'csv', '--columns', 'transactionHash']);
    expect(r.exitCode).toBe(0);
    const connections = new Set(emu.requests.filter((q) => q.path === PATH).map((q) => q.connection)).size;
    expect(connections).toBeGreaterThan(1);
    expect(connections).toBeLessThanOrEqual(16);
    const hashes = (await apiRecords(emu, '/one-time/transfers')).map((t) => t.transactionHash as string);
    expect(hashes).toHaveLength(2000);
    expect(r.stdout).toBe(['transactionHash', ...hashes].join('\r\n') + '\r\n');
  });
});
