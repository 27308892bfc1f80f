import { expect, test } from 'vitest';
import { RateLimit } from '../../src/emulator/rate-limit.js';

// The emulator's rate limit as a token bucket on a clock the test moves.

test('a second\'s burst passes, then one request per 1/rate seconds; beyond, the whole seconds to wait', () => {
  let now = 0;
  const limit = new RateLimit(4, () => now);
  expect([0, 1, 2, 3].map(() => limit.take())).toEqual([undefined, undefined, undefined, undefined]);
  expect(limit.take()).toBe(1);
  now += 250; // a quarter second: one token back
  expect(limit.take()).toBeUndefined();
  expect(limit.take()).toBe(1);
  now += 10_000; // a long pause fills the bucket, never beyond its size
  expect([0, 1, 2, 3, 4].map(() => limit.take())).toEqual([undefined, undefined, undefined, undefined, 1]);
});

test('a slow limit holds one request and asks for more than a second', () => {
  let now = 0;
  const limit = new RateLimit(0.25, () => now);
  expect(limit.take()).toBeUndefined();
  expect(limit.take()).toBe(4);
  now += 3000; // three quarters of a token: one second more, rounded up
  expect(limit.take()).toBe(1);
  now += 1000;
  expect(limit.take()).toBeUndefined();
});

test('refuses a rate it cannot keep', () => {
  expect(() => new RateLimit(0)).toThrow(RangeError);
  expect(() => new RateLimit(20_000)).toThrow(RangeError);
});
