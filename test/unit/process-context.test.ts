import { expect, test, vi } from 'vitest';
import { processContext, type Context } from '../../src/core/runtime/context.js';
import { tuneHeap } from '../../src/core/runtime/heap.js';
import { Session } from '../../src/core/runtime/session.js';
import { tempDir } from '../e2e/helpers.js';

// Node makes process.stdin's stream on first access, which every run would pay for
// (--help included); only the commands that read stdin may make it.
test('the context makes the stdin stream only when a command reads it', () => {
  const stdin = vi.spyOn(process, 'stdin', 'get');
  try {
    const ctx = processContext(new AbortController().signal);
    expect(typeof ctx.stdinIsPiped).toBe('boolean');
    expect(typeof ctx.stdinIsSocket).toBe('boolean');
    expect(ctx.columns).toBeGreaterThan(0);
    expect(stdin).not.toHaveBeenCalled();

    const isTTY = ctx.stdinIsTTY;
    expect(stdin).toHaveBeenCalledTimes(1);
    const stream = ctx.stdin;
    expect(stdin).toHaveBeenCalledTimes(2);
    stdin.mockRestore();
    expect(stream).toBe(process.stdin);
    expect(isTTY).toBe(Boolean(process.stdin.isTTY));
  } finally {
    stdin.mockRestore();
  }
});

// V8's flags are the process's: payrec's own process tunes them for the command (heap.ts),
// and a run inside another program (a test worker's payrecInProcess) must leave them alone,
// so only processContext brings tuneHeap. A session hands it what the command needs: a small
// heap for a list export, V8's own growth for a sync (DuckDB's memory) and a workbook.
test('only payrec’s own process tunes V8’s heap, as each command needs', async () => {
  expect(processContext(new AbortController().signal).tuneHeap).toBe(tuneHeap);
  const asked = async (format: string, sync: boolean) => {
    const tuned: boolean[] = [];
    const ctx = { env: { PAYREC_CONFIG_DIR: tempDir(), PAYREC_BASE_URL: 'http://127.0.0.1:9', PAYREC_API_KEY: 'k' }, signal: new AbortController().signal, tuneHeap: (small: boolean) => tuned.push(small) } as unknown as Context;
    const session = new Session(ctx, { format, ...(format === 'xlsx' ? { output: 'a.xlsx' } : {}) });
    await (sync ? session.client(undefined, false) : session.client());
    await session.close();
    return tuned;
  };
  expect(await asked('csv', false)).toEqual([true]);
  expect(await asked('xlsx', false)).toEqual([false]);
  expect(await asked('csv', true)).toEqual([false]);
});
