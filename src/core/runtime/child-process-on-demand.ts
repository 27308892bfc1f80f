import { createRequire } from 'node:module';
import type { spawn as nodeSpawn } from 'node:child_process';

// What the bundle gets for `node:child_process` (package.json's build aliases it here).
// commander requires it when it loads, for executable subcommands, which payrec has
// none of; loading it also loads net and dgram, about 2 ms of every start-up. So it
// is loaded the first time something spawns. Only `spawn` is here: an import of
// anything else fails the build, rather than finding undefined at run time.

const load = createRequire(import.meta.url);
let real: typeof import('node:child_process') | undefined;

export const spawn = ((...args: Parameters<typeof nodeSpawn>) => {
  // The name without `node:`, which the alias does not rewrite.
  real ??= load('child_process') as typeof import('node:child_process');
  return real.spawn(...args);
}) as typeof nodeSpawn;
