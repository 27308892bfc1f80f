import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The tests `npm run mutate` runs against each mutant: the unit tests that exercise the
// modules Stryker mutates (stryker.config.mjs). Never the e2e tests: they run the built
// binary, which Stryker's mutants do not reach.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: [
      'test/unit/chain-properties.test.ts',
      'test/unit/chain-verdicts.test.ts',
      'test/unit/days-not-24-hours.test.ts',
      'test/unit/merge.test.ts',
      'test/unit/output.test.ts',
      'test/unit/paginate*.test.ts',
      'test/unit/period.test.ts',
      'test/unit/properties.test.ts',
      'test/unit/round-search.test.ts',
      'test/unit/status.test.ts',
      'test/unit/subscriptions*.test.ts',
      'test/unit/summary.test.ts',
      'test/unit/time.test.ts',
      'test/unit/values-*.test.ts',
      'test/unit/xlsx.test.ts',
      'test/unit/zone.test.ts',
    ],
    setupFiles: ['test/mutation/fixed-seed.ts'],
    testTimeout: 30_000,
  },
});
