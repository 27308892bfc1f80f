// @ts-check
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm run mutate`: mutation testing of the pure modules that decide answers, with their
 * unit tests (docs/testing.md). Run from the top of the repository.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  mutate: [
    'src/core/runtime/period.ts',
    'src/core/runtime/zone.ts',
    'src/core/runtime/time.ts',
    'src/core/lists/status.ts',
    'src/registry/outcome.ts',
    'src/core/lists/summary.ts',
    'src/core/lists/merge.ts',
    'src/core/lists/paginate.ts',
    'src/subscriptions/*.ts',
    'src/chain/decode.ts',
    'src/chain/verdict.ts',
    'src/chain/round-search.ts',
    'src/values/rates-file.ts',
    'src/values/selection.ts',
    'src/values/resolve.ts',
    'src/values/valuation.ts',
    'src/values/currency.ts',
    'src/values/rate.ts',
    'src/mirror/server-url.ts',
    'src/mirror/postgres/types.ts',
    'src/mirror/postgres/results.ts',
  ],
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'test/mutation/vitest.config.ts' },
  coverageAnalysis: 'perTest',
  // The machine is shared: two test runners at most.
  concurrency: 2,
  // Not needed by the unit tests; copying them only slows the sandbox down.
  ignorePatterns: ['/dist', '/docs', '/man', '/completions', '/test/e2e', '/test/bench', '/.ci'],
  // The sandbox (a copy of the repository) lives outside it, and goes even after a
  // failed run: a copy left inside would be picked up by `npm test`, whose vitest
  // excludes only node_modules and .git.
  tempDirName: join(tmpdir(), 'payrec-stryker'),
  cleanTempDir: 'always',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  thresholds: { high: 90, low: 80, break: 80 },
};
