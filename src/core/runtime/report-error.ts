import type { Context } from './context.js';
import { EXIT, PayrecError } from './errors.js';
import { neutraliseTerminal } from '../output/sanitize.js';
import { maskSecrets } from './secrets.js';

// The one place where an error becomes a message on stderr and an exit code.
// Users see what went wrong and what to do; stack traces only with --debug.
// Messages quote servers (an API error, an emulator's answer, a forwarded reply), so
// each line is neutralised here as record text is, whoever built the message.

export function reportError(err: unknown, ctx: Context, debug: boolean, emulator = false): number {
  if (err instanceof PayrecError) {
    if (err.exitCode === EXIT.ok) return EXIT.ok; // e.g. --dry-run stopping after printing
    if (err.exitCode === EXIT.interrupted) {
      ctx.stderr.write('interrupted\n');
      return EXIT.interrupted;
    }
    // A gate that matched is an answer, not a failure of payrec: no "error:".
    ctx.stderr.write(err.exitCode === EXIT.gate ? `${err.message}\n` : `error: ${shown(err.message)}\n`);
    if (err.hint) ctx.stderr.write(`hint: ${shown(emulator ? underEmulator(err.hint) : err.hint)}\n`);
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

/**
 * A hint of a run with --emulator, whose commands must keep it to reach the same demo
 * data: `payrec sync` → `payrec --emulator sync`. Commands that do not use the service
 * (emulator, completion, help) and ones that say --emulator already are left as they are.
 */
export function underEmulator(text: string): string {
  return text.replace(/\bpayrec (?!--emulator\b|emulator\b|completion\b|help\b)(?=[a-z-])/g, 'payrec --emulator ');
}

/** A message line as the user sees it: inert on a terminal, the API key masked. */
function shown(text: string): string {
  return neutraliseTerminal(maskSecrets(text));
}

/**
 * Why a step stopped, as its report says it beside what it did (sync's and verify's rows
 * of a run that failed half-way): the message stderr shows, with the key masked; a bug
 * is named as one. Undefined for --dry-run's stop after printing: nothing was done.
 */
export function stopNote(err: unknown): string | undefined {
  if (err instanceof PayrecError) return err.exitCode === EXIT.ok ? undefined : err.exitCode === EXIT.interrupted ? 'interrupted' : maskSecrets(err.message);
  return `unexpected internal error: ${maskSecrets(err instanceof Error ? err.message : String(err))}`;
}
