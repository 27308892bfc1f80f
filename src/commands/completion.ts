import type { Command } from 'commander';
import { topCommand } from './tree.js';
import type { CommandAction } from '../core/runtime/action.js';
import { UsageError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import { completionModel } from '../command-reference/model.js';
import { SHELLS, type Shell } from '../command-reference/scripts.js';

export function addCompletionCommand(program: Command, action: CommandAction): void {
  topCommand(program, 'completion')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      '\nExamples:\n  $ source <(payrec completion bash)\n  $ payrec completion zsh > "${fpath[1]}/_payrec"\n  $ payrec completion fish > ~/.config/fish/completions/payrec.fish\n',
    )
    .action(
      action(async (session, cmd) => {
        const shell = cmd.args[0];
        if (!(shell in SHELLS)) throw new UsageError(`invalid <shell> "${printable(shell)}": expected bash, zsh or fish`);
        session.ctx.stdout.write(SHELLS[shell as Shell](completionModel(rootOf(cmd))));
      }),
    );
}

function rootOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}
