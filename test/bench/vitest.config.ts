import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `npm run bench:emulator`: the emulator at a million records (emulator-scale.ts), which
// imports the emulator from src/ as the unit tests do. Never part of `npm test`.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/bench/emulator-scale.ts'],
    testTimeout: 600_000,
  },
});
