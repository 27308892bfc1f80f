import { Command, Help, type Option } from 'commander';
import { RECORD_OUTPUT_FLAGS, type CommandTraits } from './action.js';

// `--help` shows every flag that works on a command: its own, then the ones it inherits
// from payrec in their own section (as gh's INHERITED FLAGS). The flags about record
// output (-o, --columns, --wide…) are inherited only by commands that print records or
// results: the others neither offer nor take them (action.ts refuses them, exit 2).

const recordOutput: ReadonlySet<string> = new Set(RECORD_OUTPUT_FLAGS.map(([attribute]) => attribute));

/** A command that remembers its action's traits, so help can tell which inherited flags it takes. */
export class PayrecCommand extends Command {
  traits?: CommandTraits;

  override createCommand(name?: string): PayrecCommand {
    return new PayrecCommand(name);
  }

  override action(fn: (...args: any[]) => void | Promise<void>): this {
    this.traits = (fn as { traits?: CommandTraits }).traits;
    return super.action(fn);
  }
}

/** Does `cmd` print records or results (its action says so)? Groups answer for their subcommands in their help. */
function printsRecords(cmd: Command): boolean {
  return Boolean((cmd as PayrecCommand).traits?.output);
}

/** The flags `cmd` inherits from payrec and takes: every global flag, less record output for commands that print none. */
export function inheritedOptions(cmd: Command): Option[] {
  let root = cmd;
  while (root.parent) root = root.parent;
  if (root === cmd) return [];
  const takesOutput = printsRecords(cmd) || cmd.commands.length > 0;
  return root.options.filter((o) => !o.hidden && o.long !== '--version' && (takesOutput || !recordOutput.has(o.attributeName())));
}

/** Help with an "Inherited flags" section; set on the program before its commands are added (they copy it). */
export function configureInheritedHelp(program: Command): void {
  program.configureHelp({
    showGlobalOptions: true,
    visibleGlobalOptions: (cmd: Command) => inheritedOptions(cmd),
    formatHelp(cmd: Command, helper: Help): string {
      return Help.prototype.formatHelp.call(this, cmd, helper).replace(/^Global Options:$/m, 'Inherited flags (from payrec):');
    },
  });
}
