import type { Context } from './context.js';
import { EXIT, PayrecError } from './errors.js';
import { neutraliseTerminal } from '../output/sanitize.js';
import { maskSecrets } from './secrets.js';

// The one place where an error becomes a message on stderr and an exit code.
// Users see what went wrong and what to do; stack traces only with --debug.
// Messages quote servers (an API error, an emulator's answer, a forwarded reply), so
// each line is neutralised here as record text is, whoever built the message.

export function reportError(err: unknown, ctx: Context, debug: boolean): number {
  if (err instanceof PayrecError) {
    if (err.exitCode === EXIT.ok) return EXIT.ok; // e.g. --dry-run stopping after printing
    if (err.exitCode === EXIT.interrupted) {
      ctx.stderr.write('interrupted\n');
      return EXIT.interrupted;
    }
    ctx.stderr.write(`error: ${shown(err.message)}\n`);
    if (err.hint) ctx.stderr.write(`hint: ${shown(err.hint)}\n`);
    if (debug && err.stack) ctx.stderr.write(maskSecrets(err.stack) + '\n');
    return err.exitCode;
  }
  if (ctx.signal.aborted) {
    ctx.stderr.write('interrupted\n');
    return EXIT.interrupted;
  }
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'EPIPE') return EXIT.ok; // the reader went away (payrec … | head)
  ctx.stderr.write(`error: unexpected internal error: ${shown(e?.message ?? String(err))}\n`);
  ctx.stderr.write(debug && e?.stack ? maskSecrets(e.stack) + '\n' : 'hint: run again with --debug for details, and report it\n');
  return EXIT.internal;
}

/** A message line as the user sees it: inert on a terminal, the API key masked. */
function shown(text: string): string {
  return neutraliseTerminal(maskSecrets(text));
}
