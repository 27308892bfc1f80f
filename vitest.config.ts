import { defineConfig } from 'vitest/config';

// The suite's timeouts, for `npm test` and for a file run alone (npx vitest run FILE).
// A timeout is a backstop against a hang, never a measure of speed: it must leave room
// for a machine running at a fraction of its speed (a busy CI runner, other test runs
// on the same two cores), where an e2e test of 10 s takes a minute. Waits inside tests
// end at events (test/e2e/helpers.ts `until`), so a passing test never runs into one;
// figures about speed are measured by the benches (test/bench/), never asserted here.
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
