import type { Command } from 'commander';
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import { formatNamed } from '../output/formats.js';
import type { GlobalFlags, Session, StartEmulator } from './session.js';

// Wraps a command's work: builds its Session from the global flags and always
// releases what the session opened (connections, temporary files, the emulator).

export type CommandWork = (session: Session, cmd: Command) => Promise<void>;
export interface CommandTraits {
  /**
   * It prints records or results through session.openOutput(), so -o FILE (and with
   * it -f xlsx) means something. Every other command refuses them before it starts:
   * a -o it ignored would leave the user believing a file was written.
   */
  output?: boolean;
}
export type CommandAction = (work: CommandWork, traits?: CommandTraits) => (...args: unknown[]) => Promise<void>;

/** `startEmulator`: --emulator's start, handed in by program.ts (core never imports src/emulator/). */
export function makeAction(ctx: Context, startEmulator: StartEmulator): CommandAction {
  // The handler carries its traits, so that help can tell which inherited flags the command takes (help.ts).
  return (work, traits = {}) =>
    Object.assign(async (...args: unknown[]) => {
      const cmd = args.at(-1) as Command;
      const flags = cmd.optsWithGlobals() as GlobalFlags;
      if (!traits.output) refuseFileOutput(cmd, flags);
      // Imported here, not above: the session brings the HTTP client and config store,
      // which defining the commands (and printing help) does not need; the emulator's
      // clock only --emulator needs.
      const { Session } = await import('./session.js');
      const runCtx = flags.emulator ? (await import('./emulator-clock.js')).emulatorContext(ctx) : ctx;
      const { ConfigStore } = await import('../config/config-store.js');
      const stored = await new ConfigStore(runCtx.env).runDefaults(flags.profile, runCtx.env);
      const session = new Session(runCtx, flags, stored, startEmulator);
      try {
        await work(session, cmd);
      } catch (err) {
        // -o FILE on a disk that refuses it (full, over quota, read-only): exit 2 naming its
        // folder; the temporary file goes with the session.
        if (flags.output === undefined) throw err;
        const [{ refusedByDisk }, { printable }, { dirname, resolve }] = await Promise.all([import('./trust.js'), import('../output/sanitize.js'), import('node:path')]);
        throw refusedByDisk(err, `--output "${printable(flags.output)}"`, dirname(resolve(flags.output)), 'give -o a path on another disk');
      } finally {
        await session.close();
      }
    }, { traits });
}

function refuseFileOutput(cmd: Command, flags: GlobalFlags): void {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  const name = names.join(' ');
  if (flags.output !== undefined) throw new UsageError(`-o is for commands that print records or results, not ${name}`, 'to keep what it prints, redirect it: > FILE');
  if (formatNamed(flags.format)?.needsFile) throw new UsageError(`-f ${flags.format} is for commands that print records or results, not ${name}`, 'use -f json (or the default table)');
  // The other flags about records (--columns, --wide…): this command prints none, so they would do nothing.
  const given = RECORD_OUTPUT_FLAGS.filter(([key]) => key !== 'output' && flags[key] !== undefined && flags[key] !== false);
  if (given.length) throw new UsageError(`${given.map(([, flag]) => flag).join(', ')} ${given.length === 1 ? 'is' : 'are'} for commands that print records or results, not ${name}`);
}

/**
 * Global flags that only commands printing records or results take (option attribute
 * name, flag): the others refuse them here and do not offer them in --help (help.ts).
 */
export const RECORD_OUTPUT_FLAGS: readonly [keyof GlobalFlags, string][] = [
  ['output', '-o'],
  ['columns', '--columns'],
  ['flatten', '--flatten'],
  ['wide', '--wide'],
  ['timeFormat', '--time-format'],
  ['csvRaw', '--csv-raw'],
  ['bom', '--bom'],
];
