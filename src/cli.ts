import { processContext } from './core/context.js';
import { EXIT, InterruptedError } from './core/errors.js';
import { removePendingFiles } from './core/atomic-file.js';
import type { Context } from './core/context.js';
import pkg from '../package.json' with { type: 'json' };

// The entry point (bin/payrec.js). It imports the command tree only when there is
// more to do than print the version: start-up time is paid by every script that
// calls payrec in a loop.

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
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    controller.abort(new InterruptedError());
    if (interrupts > 1) {
      removePendingFiles();
      process.exit(EXIT.interrupted);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', removePendingFiles);
  // `payrec … | head`: the reader left; stop quietly like other Unix tools.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    removePendingFiles();
    process.exit(EXIT.ok);
  });
  const ctx = processContext(controller.signal);
  const code = await run(argv, ctx);
  process.exitCode = controller.signal.aborted ? EXIT.interrupted : code;
}
