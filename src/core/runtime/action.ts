import type { Command } from 'commander';
import type { Context } from './context.js';
import type { GlobalFlags, Session } from './session.js';

// Wraps a command's work: builds its Session from the global flags and always
// releases what the session opened (connections, temporary files, the emulator).

export type CommandWork = (session: Session, cmd: Command) => Promise<void>;
export type CommandAction = (work: CommandWork) => (...args: unknown[]) => Promise<void>;

export function makeAction(ctx: Context): CommandAction {
  return (work) =>
    async (...args) => {
      const cmd = args.at(-1) as Command;
      // Imported here, not above: the session brings the HTTP client, config store and
      // zod, which defining the commands (and printing help) does not need.
      const { Session } = await import('./session.js');
      const session = new Session(ctx, cmd.optsWithGlobals() as GlobalFlags);
      try {
        await work(session, cmd);
      } finally {
        await session.close();
      }
    };
}
