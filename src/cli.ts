import pkg from '../package.json' with { type: 'json' };
import type { Context } from './core/runtime/context.js';

// The entry point (bin/payrec.js). It imports nothing else until it knows there is
// more to do than print the version: start-up time is paid by every script that
// calls payrec in a loop, and each module loaded costs a little of it.

/** The command tree (see program.ts); the whole tree unless `words` narrows it. */
export async function buildProgram(ctx: Context, words?: readonly string[]) {
  return (await import('./program.js')).buildProgram(ctx, words);
}

/** Runs payrec with `argv` (without node and script) and returns the exit code. */
export async function run(argv: string[], ctx: Context): Promise<number> {
  return (await import('./program.js')).run(argv, ctx);
}

export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(pkg.version + '\n');
    return;
  }
  await (await import('./program.js')).runProcess(argv);
}
