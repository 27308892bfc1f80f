import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { RequestGate } from '../../src/core/http/request-gate.js';
import { FixedWindow, type Answer, type RequestWindow } from '../../src/core/http/request-window.js';
import { InterruptedError } from '../../src/core/runtime/errors.js';

// Where every request of the client waits its turn: the window's size, and a Retry-After
// that holds them all. On fake timers: the clock moves only when the test moves it.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** Enters `n` requests and notes the order in which each is let go. */
function enter(gate: RequestGate, n: number, gone: number[], first = 0): Promise<void>[] {
  return Array.from({ length: n }, (_, i) => gate.enter().then(() => void gone.push(first + i)));
}

test('lets `size` requests go at once, the next one as one leaves, first come first served', async () => {
  const gate = new RequestGate(new FixedWindow(2), new AbortController().signal, () => Date.now());
  const gone: number[] = [];
  enter(gate, 5, gone);
  await vi.advanceTimersByTimeAsync(0);
  expect(gone).toEqual([0, 1]);
  gate.leave();
  await vi.advanceTimersByTimeAsync(0);
  expect(gone).toEqual([0, 1, 2]);
  gate.leave();
  gate.leave();
  await vi.advanceTimersByTimeAsync(0);
  expect(gone).toEqual([0, 1, 2, 3, 4]);
});

test('a Retry-After holds every request, those already waiting and those that come, until it has passed', async () => {
  const window = new FixedWindow(4);
  const gate = new RequestGate(window, new AbortController().signal, () => Date.now());
  const gone: number[] = [];
  await Promise.all(enter(gate, 1, gone));
  gate.leave({ sentAt: Date.now(), at: Date.now(), status: 429, retryAfterMs: 1000 });
  enter(gate, 2, gone, 1);
  await vi.advanceTimersByTimeAsync(999);
  enter(gate, 1, gone, 3);
  await vi.advanceTimersByTimeAsync(0);
  expect(gone).toEqual([0]);
  await vi.advanceTimersByTimeAsync(1);
  expect(gone).toEqual([0, 1, 2, 3]);
});

test('each answer goes to the window as its request leaves; none when no answer said anything', async () => {
  const seen: Answer[] = [];
  const window: RequestWindow = { size: 1, ceiling: 1, notBefore: -Infinity, observe: (a) => void seen.push(a) };
  const gate = new RequestGate(window, new AbortController().signal, () => Date.now());
  await gate.enter();
  gate.leave({ sentAt: 1, at: 2, status: 200 });
  await gate.enter();
  gate.leave();
  expect(seen).toEqual([{ sentAt: 1, at: 2, status: 200 }]);
});

test('Ctrl-C turns every waiting request away, and any that comes after', async () => {
  const stop = new AbortController();
  const gate = new RequestGate(new FixedWindow(1), stop.signal, () => Date.now());
  await gate.enter();
  const waiting = [gate.enter(), gate.enter()];
  stop.abort();
  for (const w of waiting) await expect(w).rejects.toBeInstanceOf(InterruptedError);
  await expect(gate.enter()).rejects.toBeInstanceOf(InterruptedError);
});
