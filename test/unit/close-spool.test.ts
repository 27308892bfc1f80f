import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leafPaths, type Row } from '../../src/core/output/rows.js';
import { RowSpool, spoolFolder } from '../../src/close/spool.js';

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
      for await (const r of spool.rows()) back.push(r);
      expect(back).toEqual(rows);
    } finally {
      folder.remove();
    }
    expect(existsSync(folder.path)).toBe(false);
  });
});
