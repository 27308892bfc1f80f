import { execa } from 'execa';
import { describe, expect, test } from 'vitest';
import { BIN, emulator, program, tempDir } from './helpers.js';

// --follow on a terminal is one table: one header, a line per record as it comes, and a
// record stamped before one already printed (a late arrival) marked `late`. The
// emulator's live mode makes records, some of them late; its ground truth says which
// records exist and when they are stamped.

const script = program('script', 'bsdutils');
const onPty = script.skip ? test.skip : test;

describe('--follow on a terminal', () => {
  onPty(`one header, rows appended as they come, late arrivals marked${script.note}`, async () => {
    const emu = await emulator({ records: 50 });
    try {
      const live = await fetch(`${emu.url}/_emulator/live`, {
        method: 'POST',
        body: JSON.stringify({ rate: 20, lateFraction: 0.5, lateMaxSeconds: 60, pendingFraction: 0, chains: ['bsc'], collections: ['one-time/transfers'] }),
      });
      expect(live.ok).toBe(true);
      const command = `stty cols 150 rows 50; exec timeout --preserve-status -s INT 6 node ${BIN} ot transfers --follow --interval 0.5 --columns timestamp,transactionHash,amount --time-format unix 2>${tempDir()}/stderr`;
      const r = await execa('script', ['-qec', command, '/dev/null'], {
        reject: false,
        stdin: 'ignore',
        extendEnv: false,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', NO_COLOR: '1', PAYREC_CONFIG_DIR: tempDir(), PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc') },
      });
      await fetch(`${emu.url}/_emulator/live`, { method: 'DELETE' });
      expect(r.exitCode).toBe(130);
      // stderr went to a file: the screen is what stdout printed.
      const lines = r.stdout.split(/\r?\n/).filter((l) => l.trim() !== '');
      // One header, at the top, and no box lines.
      expect(lines.filter((l) => /^timestamp\s+transactionHash\s+amount$/.test(l))).toHaveLength(1);
      expect(lines[0]).toMatch(/^timestamp/);
      expect(r.stdout).not.toMatch(/[┌└│]/);
      const rows = lines.slice(1).map((l) => l.split(/\s{2,}/));
      expect(rows.length).toBeGreaterThan(10);
      // Every row is a record of the emulator, with its own timestamp and amount, once.
      const truth = (await (await fetch(`${emu.url}/_emulator/records?chain=bsc&collection=one-time/transfers`)).json()) as { records: Record<string, any>[] };
      const byHash = new Map(truth.records.map((t) => [t.transactionHash, t]));
      expect(new Set(rows.map((c) => c[1])).size).toBe(rows.length);
      let newest = -Infinity;
      let late = 0;
      for (const [stamp, hash, amount, marker] of rows) {
        const record = byHash.get(hash)!;
        expect(record, hash).toBeDefined();
        expect([Number(stamp), amount]).toEqual([record.timestamp, record.amount]);
        // Marked late exactly when stamped before a record printed above it.
        expect(marker === 'late', `${stamp} after ${newest}`).toBe(Number(stamp) < newest);
        if (marker === 'late') late++;
        newest = Math.max(newest, Number(stamp));
      }
      expect(late).toBeGreaterThan(0);
    } finally {
      await emu.close();
    }
  });
});
