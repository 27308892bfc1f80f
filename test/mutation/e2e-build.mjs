// The e2e mutation run's build (stryker.e2e.config.mjs), in Stryker's sandbox: links the
// repository's node_modules there first (Stryker links them only after the build, which
// needs them), then builds the mutated sources as `npm run build` does.
import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';

symlinkSync(process.argv[2], 'node_modules', 'dir');
execFileSync('npm', ['run', 'build'], { stdio: 'inherit' });
