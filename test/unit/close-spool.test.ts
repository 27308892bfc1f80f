import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leafPaths, type Row } from '../../src/core/output/rows.js';
import { RowSpool, spoolFolder, sweepStale } from '../../src/close/spool.js';

// The close's transfers spooled to disk (src/close/spool.ts): every row comes back as it
// went in, in order, and the columns gathered on the way are those the close took from
// every row held in memory before (the fields given first, then each row's leaf paths).

describe('RowSpool', () => {
  it('gives every row back in order, across chunks, with characters of several bytes cut at no boundary, and the columns of every row', async () => {
    const folder = spoolFolder();
    try {
      const spool = new RowSpool(join(folder.path, 'rows.jsonl'), ['product', 'amount']);
      const rows: Row[] = [];
      // About 3 MB: several chunks of the writer and of the reader, with text of 1 to 4 UTF-8 bytes a character throughout.
      for (let i = 0; i < 30_000; i++) {
        const row: Row = { product: i % 7 === 0 ? 'fixed-recurring' : 'one-time', amount: `${i}.5`, memo: `é€😀 ${'x'.repeat(i % 13)} ${i}`, receivers: [{ to: `0x${i}` }] };
        if (i === 12_345) row.route = { from: 'BNB', to: { token: 'USDT', hops: 2 } };
        if (i === 20_000) row.chainDiff = [];
        rows.push(row);
        const wait = spool.add(row);
        if (wait) await wait;
      }
      await spool.end();
      expect(spool.count).toBe(rows.length);
      expect(spool.first).toBe(rows[0]);
      const names = new Set(['product', 'amount']);
      for (const r of rows) for (const p of leafPaths(r)) names.add(p.join('.'));
      expect([...spool.names]).toEqual([...names]);
      expect([...spool.names]).toContain('route.to.token');
      const back: Row[] = [];
      let batches = 0;
      for await (const batch of spool.batches()) {
        back.push(...batch);
        batches++;
      }
      // Several chunks of the reader, each a batch: a line cut at a chunk's end comes whole in the next.
      expect(batches).toBeGreaterThan(1);
      expect(back).toEqual(rows);
    } finally {
      folder.remove();
    }
    expect(existsSync(folder.path)).toBe(false);
  });
});

describe('sweepStale', () => {
  it("removes the spool folders of this user's closes whose process is gone, and nothing else", () => {
    const dir = mkdtempSync(join(tmpdir(), 'payrec-sweep-test-'));
    // A process that ran and ended: its number names no process now.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const alive = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    try {
      const make = (name: string) => {
        mkdirSync(join(dir, name));
        writeFileSync(join(dir, name, 'transfers.jsonl'), '{}\n');
      };
      make(`payrec-close-${dead}-aB3dE9`);
      make(`payrec-close-${alive.pid}-xY7wQ2`);
      make(`payrec-close-${process.pid}-Mine00`);
      make('payrec-close-kept01');
      make(`other-${dead}-aB3dE9`);
      // Not folders: a file, and a link to a folder (whose content must survive).
      writeFileSync(join(dir, `payrec-close-${dead}-File00`), 'x');
      make('target');
      symlinkSync(join(dir, 'target'), join(dir, `payrec-close-${dead}-Link00`));
      sweepStale(dir);
      expect(readdirSync(dir).sort()).toEqual(
        [`payrec-close-${alive.pid}-xY7wQ2`, `payrec-close-${process.pid}-Mine00`, 'payrec-close-kept01', `other-${dead}-aB3dE9`, `payrec-close-${dead}-File00`, 'target', `payrec-close-${dead}-Link00`].sort(),
      );
      expect(existsSync(join(dir, 'target', 'transfers.jsonl'))).toBe(true);
    } finally {
      alive.kill();
    }
  });

  it("a close's folder is named by its process number, which the sweep reads", () => {
    const folder = spoolFolder();
    try {
      expect(folder.path).toMatch(new RegExp(`/payrec-close-${process.pid}-[A-Za-z0-9]{6}$`));
    } finally {
      folder.remove();
    }
  });
});
