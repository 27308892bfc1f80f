import type { Command } from 'commander';
import type { CommandAction } from '../core/runtime/action.js';
import { referenceMarkdown } from '../command-reference/reference.js';
import { topCommand } from './tree.js';

// `payrec help reference`: every command and flag as Markdown, from the whole tree
// (docs/reference.md is this output; the man page is its roff sibling). Commander
// answers `help reference` with this command's help, so its help is the reference;
// `payrec reference` prints the same.

export function addReferenceCommand(program: Command, action: CommandAction): void {
  topCommand(program, 'reference')
    .configureHelp({ formatHelp: () => referenceMarkdown(program) })
    .action(
      action(async (session) => {
        session.ctx.stdout.write(referenceMarkdown(program));
      }),
    );
}
