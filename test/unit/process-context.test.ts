import { expect, test, vi } from 'vitest';
import { processContext } from '../../src/core/runtime/context.js';

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
