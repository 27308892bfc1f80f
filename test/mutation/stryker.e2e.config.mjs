// @ts-check
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Mutation testing of the commands around the engine (subscriptions, metrics, the
 * one-subscription view, the mirror's reader, doctor, config settings), which only e2e
 * tests reach: they run the built binary. Stryker builds the mutated sources once
 * (`buildCommand`, every mutant compiled in behind a switch) and runs the command below
 * once per mutant with `__STRYKER_ACTIVE_MUTANT__` set; payrec() in test/e2e/helpers.ts
 * passes it on to the binary, which turns that one mutant on. Slow (a vitest run per
 * mutant): one module at a time, with the tests that cover it, e.g.
 *
 *   PAYREC_MUTATE_TESTS='test/e2e/subscription-flags.test.ts' npx stryker run \
 *     test/mutation/stryker.e2e.config.mjs --mutate src/commands/subscription-show.ts
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'command',
  commandRunner: { command: `npx vitest run ${process.env.PAYREC_MUTATE_TESTS ?? 'test/e2e/subscriptions.test.ts'} --bail 1 --maxWorkers 1 --testTimeout 120000` },
  buildCommand: `node test/mutation/e2e-build.mjs ${join(process.cwd(), 'node_modules')}`,
  symlinkNodeModules: false,
  // The tests run in other processes: Stryker cannot see which mutant each reaches.
  coverageAnalysis: 'off',
  // The machine is shared, and each run starts emulators and payrec processes of its own.
  concurrency: 1,
  // A run that takes longer than this is counted as a timeout (detected): generous, so that
  // a loaded machine's slow run of a surviving mutant is not counted as one.
  timeoutFactor: 3,
  timeoutMS: 60_000,
  // docs/, man/ and completions/ stay in the sandbox: e2e tests read docs' figures, and
  // completions.test.ts compares the generated reference with them (help texts' mutants).
  ignorePatterns: ['/dist', '/test/bench', '/.ci', '/reports'],
  tempDirName: join(tmpdir(), 'payrec-stryker-e2e'),
  cleanTempDir: 'always',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  thresholds: { high: 90, low: 80, break: null },
};
