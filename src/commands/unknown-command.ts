import type { Command } from 'commander';
import { UsageError } from '../core/runtime/errors.js';

// Unknown command words. Commander answers `payrec biling --help` (an unknown word
// followed by --help) with the help of the nearest known command and exit 0, so a
// script cannot tell a typo from success. The command words of a line are checked
// against the tree before commander parses it: an unknown one is a usage error (exit
// 2), with or without --help, that names the closest commands.

export interface UnknownCommand {
  /** The command under which a subcommand was expected. */
  parent: Command;
  word: string;
}

/**
 * The first word of `argv` that stands where a subcommand is expected and names none.
 * Global option values are skipped (`--chain bsc`); the walk stops at a command that
 * takes arguments, at `--`, and at an option it does not know (commander reports those).
 */
export function findUnknownCommand(program: Command, argv: readonly string[]): UnknownCommand | undefined {
  const found = walkWords(program, argv);
  return found.unknown === undefined ? undefined : { parent: found.cmd, word: found.unknown };
}

/** The deepest command the words of `argv` name (for a hint after commander's own error). */
export function commandNamed(program: Command, argv: readonly string[]): Command {
  return walkWords(program, argv).cmd;
}

function walkWords(program: Command, argv: readonly string[]): { cmd: Command; unknown?: string } {
  let cmd = program;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') return { cmd };
    if (arg.length > 1 && arg.startsWith('-')) {
      const takes = optionTakesValue(cmd, arg);
      if (takes === undefined) return { cmd };
      if (takes) i++;
      continue;
    }
    if (cmd.commands.length === 0) return { cmd }; // a leaf: the rest are its arguments
    const sub = cmd.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (sub) cmd = sub;
    else if (cmd.registeredArguments.length > 0) return { cmd }; // a command with subcommands and arguments of its own (payrec verify ot/transfers)
    else if (arg !== 'help') return { cmd, unknown: arg }; // `payrec help fr` names commands after it
  }
  return { cmd };
}

/**
 * A hint for an option given to a group, which takes a subcommand rather than options:
 * `payrec ot payments --limit 1` → `payrec one-time payments list`.
 */
export function groupOptionHint(cmd: Command): string | undefined {
  const subcommands = cmd.commands.filter((c) => c.name() !== 'help');
  if (subcommands.length === 0 || !cmd.parent) return undefined;
  const path = pathOf(cmd);
  const list = subcommands.find((c) => c.name() === 'list');
  if (list) return `${path} takes a subcommand; did you mean ${path} list?`;
  return `${path} takes a subcommand: ${subcommands.map((c) => c.name()).join(', ')} (see ${path} --help)`;
}

/** Whether `arg` is an option of `cmd` or its ancestors that takes the next word as its value; undefined when unknown. */
function optionTakesValue(cmd: Command, arg: string): boolean | undefined {
  if (arg === '-h' || arg === '--help') return false;
  const [flag, attached] = arg.startsWith('--') ? [arg.split('=')[0], arg.includes('=')] : [arg.slice(0, 2), arg.length > 2];
  for (let c: Command | null = cmd; c; c = c.parent) {
    const option = c.options.find((o) => o.long === flag || o.short === flag);
    if (!option) continue;
    const takesValue = option.required || option.optional;
    if (attached && !takesValue) return undefined; // -qV and the like: leave bundles to commander
    return takesValue && !attached;
  }
  return undefined;
}

/**
 * The usage error for an unknown command, naming the closest commands: first among the
 * siblings the word stood for, else anywhere in the whole tree (`payrec biling` →
 * `payrec fixed-recurring billings`). Only the top-level commands a line names are
 * defined (top-level.ts), so `wholeTree` loads the rest, paid for only on this error.
 */
export async function unknownCommandError(unknown: UnknownCommand, wholeTree: () => Promise<Command>): Promise<UsageError> {
  const where = pathOf(unknown.parent);
  // Imported here: only this error measures edit distances and quotes what was typed, and every run defines the commands.
  const [{ default: leven }, { printable }] = await Promise.all([import('leven'), import('../core/output/sanitize.js')]);
  let close = closest(leven, unknown.word, unknown.parent.commands.map((c) => ({ names: [c.name(), ...c.aliases()], path: pathOf(c) })));
  if (close.length === 0) close = closest(leven, unknown.word, everyCommand(await wholeTree()));
  const hint = close.length > 0 ? `did you mean ${close.join(', or ')}?` : `see ${where} --help for the commands`;
  return new UsageError(`unknown command "${printable(unknown.word)}"${unknown.parent.parent ? ` in ${where}` : ''}`, hint);
}

type Leven = typeof import('leven').default;

interface Candidate {
  /** What a user may type for it: the name and the aliases. */
  names: string[];
  /** `payrec fixed-recurring billings` */
  path: string;
}

/** At most this many edits, as commander's own suggestions. */
const MAX_DISTANCE = 3;
/** Longest list of suggestions (five products have `transfers`). */
const MAX_SUGGESTIONS = 6;

/** The candidates at the smallest edit distance from `word`, when close enough to be a typo. */
function closest(leven: Leven, word: string, candidates: Candidate[]): string[] {
  let best = Infinity;
  let found: string[] = [];
  for (const c of candidates) {
    const d = Math.min(...c.names.map((n) => typoDistance(leven, word, n)));
    if (d < best) [best, found] = [d, [c.path]];
    else if (d === best && d !== Infinity && !found.includes(c.path)) found.push(c.path);
  }
  return found.slice(0, MAX_SUGGESTIONS);
}

/** Edit distance from `word` to `name`; Infinity when too far for a typo (as commander: over 3 edits, or 40 % or less in common). */
function typoDistance(leven: Leven, word: string, name: string): number {
  const d = leven(word, name, { maxDistance: MAX_DISTANCE + 1 });
  const length = Math.max(word.length, name.length);
  return d <= MAX_DISTANCE && (length - d) / length > 0.4 ? d : Infinity;
}

function everyCommand(program: Command): Candidate[] {
  const walk = (cmd: Command): Candidate[] => cmd.commands.flatMap((c) => [{ names: [c.name(), ...c.aliases()], path: pathOf(c) }, ...walk(c)]);
  return walk(program);
}

function pathOf(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}
