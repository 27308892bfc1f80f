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
