import type { Command } from 'commander';
import type { Context } from './context.js';
import { emulatorContext } from './emulator-clock.js';
import { UsageError } from './errors.js';
import type { GlobalFlags, Session } from './session.js';

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

export function makeAction(ctx: Context): CommandAction {
  return (work, traits = {}) =>
    async (...args) => {
      const cmd = args.at(-1) as Command;
      const flags = cmd.optsWithGlobals() as GlobalFlags;
      if (!traits.output) refuseFileOutput(cmd, flags);
      // Imported here, not above: the session brings the HTTP client, config store and
      // zod, which defining the commands (and printing help) does not need.
      const { Session } = await import('./session.js');
      const session = new Session(flags.emulator ? emulatorContext(ctx) : ctx, flags);
      try {
        await work(session, cmd);
      } finally {
        await session.close();
      }
    };
}

function refuseFileOutput(cmd: Command, flags: GlobalFlags): void {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  const name = names.join(' ');
  if (flags.output !== undefined) throw new UsageError(`-o is for commands that print records or results, not ${name}`, 'to keep what it prints, redirect it: > FILE');
  if (flags.format === 'xlsx') throw new UsageError(`-f xlsx is for commands that print records or results, not ${name}`, 'use -f json (or the default table)');
}
