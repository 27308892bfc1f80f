import type { Command, Option } from 'commander';
import type { EventEmitter } from 'node:events';
import { RECORD_OUTPUT_FLAGS } from '../core/runtime/action.js';
import { inheritedOptions, type PayrecCommand } from '../core/runtime/help.js';

// The command reference (`payrec help reference`, docs/reference.md), rendered by
// walking the real command tree (like gh's gen-docs), so the documentation lists
// exactly the commands and flags that exist. The man page (man-page.ts) walks it the same way.

/** One command that does something (a leaf of the tree, or a command with subcommands and an action of its own: `fr plans`), as the reference shows it. */
export interface CommandPage {
  /** `payrec fixed-recurring billings`, with its arguments: `payrec wn get <notification-id>`. */
  usage: string;
  description: string;
  /** `payrec fr billings`, when aliases shorten the path. */
  shortForm?: string;
  /** Its arguments as usage names them (`<shell>`, `[subscriptionId]`), with what --help says of each. */
  arguments: { usage: string; description: string }[];
  options: readonly Option[];
  /** The global flags it takes (all, less record output for commands that print no records). */
  inherited: readonly string[];
  /** What `--help` says after the flags (meanings, examples), without its blank edges; '' when nothing. */
  after: string;
}

export function commandPages(program: Command): CommandPage[] {
  const pages: CommandPage[] = [];
  const walk = (cmd: Command, words: string[]) => {
    for (const c of cmd.commands) {
      if ((c as unknown as { _hidden?: boolean })._hidden) continue;
      const path = [...words, c.name()];
      if (c.commands.length === 0 || (c as PayrecCommand).traits !== undefined) {
        const args = c.registeredArguments.map((a) => ({ usage: a.required ? `<${a.name()}>` : `[${a.name()}]`, description: a.description }));
        const usage = `payrec ${[...path, ...args.map((a) => a.usage)].join(' ')}`;
        pages.push({ usage, description: c.description(), shortForm: aliasPath(program, path), arguments: args, options: c.options, inherited: inheritedFlags(c), after: afterHelp(c) });
      }
      walk(c, path);
    }
  };
  walk(program, []);
  return pages;
}

/**
 * The text `addHelpText('after', …)` gives a command's --help, as commander writes it:
 * it keeps such text as listeners of the command's afterHelp event, so the event is
 * emitted here with a writer that collects.
 */
function afterHelp(cmd: Command): string {
  const parts: string[] = [];
  // A Command is an EventEmitter (commander's docs: "help events"); its typings leave emit out.
  (cmd as unknown as EventEmitter).emit('afterHelp', { error: false, command: cmd, write: (s: string) => parts.push(s) });
  return parts.join('').replace(/^\n+|\s+$/g, '');
}

/** The long flags a command inherits from payrec (`--profile`, `--format`…). */
function inheritedFlags(cmd: Command): string[] {
  return inheritedOptions(cmd).map((o) => o.long ?? o.flags);
}

/** What the global flags section says about who takes them. */
export const GLOBAL_FLAGS_NOTE = `Inherited by every command, except the flags about printed records (${RECORD_OUTPUT_FLAGS.map(([, flag]) => flag).join(', ')}), which only commands that print records or results take (the others refuse them, exit 2). Each command below lists the flags it inherits.`;

/** The options a user can see, as `flags` and `description`. */
export function optionRows(options: readonly Option[]): { flags: string; description: string }[] {
  return options.filter((o) => !o.hidden).map((o) => ({ flags: o.flags, description: o.description }));
}

export function referenceMarkdown(program: Command): string {
  const out: string[] = [
    '# payrec command reference',
    '',
    'Every command and flag, with what its `--help` says after them (meanings and examples), generated from the command tree: `payrec help reference` prints this, `man payrec` shows it as a man page, and `npm run generate` writes it to docs/reference.md (a test fails when that is stale).',
    '',
    '## Global flags',
    '',
    GLOBAL_FLAGS_NOTE,
    '',
    ...optionTable(program.options),
    '',
  ];
  for (const page of commandPages(program)) {
    out.push(`## ${page.usage}`, '', escape(page.description), '');
    if (page.shortForm) out.push(`Short form: \`payrec ${page.shortForm}\``, '');
    const described = page.arguments.filter((a) => a.description);
    if (described.length) out.push('| argument | meaning |', '| --- | --- |', ...described.map((a) => `| \`${a.usage}\` | ${escape(a.description)} |`), '');
    if (page.options.length) out.push(...optionTable(page.options), '');
    out.push(`Inherited flags: ${page.inherited.map((f) => `\`${f}\``).join(', ')}`, '');
    if (page.after) out.push('```text', page.after, '```', '');
  }
  return out.join('\n').trimEnd() + '\n';
}

function optionTable(options: readonly Option[]): string[] {
  const rows = optionRows(options).map((o) => `| \`${o.flags.replace(/\|/g, '\\|')}\` | ${escape(o.description)} |`);
  return ['| flag | meaning |', '| --- | --- |', ...rows];
}

/** `fr billings` for `fixed-recurring billings`, when aliases shorten the path. */
function aliasPath(program: Command, path: string[]): string | undefined {
  let cmd = program;
  const words: string[] = [];
  for (const name of path) {
    cmd = cmd.commands.find((c) => c.name() === name)!;
    words.push(cmd.aliases()[0] ?? name);
  }
  const short = words.join(' ');
  return short === path.join(' ') ? undefined : short;
}

function escape(s: string): string {
  return s.replace(/\|/g, '\\|');
}
