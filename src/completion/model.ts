import type { Command } from 'commander';
import { inheritedOptions } from '../commands/help.js';
import { KNOWN_CHAINS } from '../registry/validators.js';
import { productAliases } from '../registry/products.js';
import { TRANSFER_PRODUCTS } from '../registry/transfers.js';

// A shell-neutral model of the command tree, read from the real commander program,
// so completions can never drift from the commands that exist.

export interface CompletionNode {
  /** Canonical path: ['fixed-recurring', 'short-urls']. Root is []. */
  path: string[];
  /** Name and aliases, as a user may type them. */
  names: string[];
  children: CompletionNode[];
  /** Flags of this command, e.g. ['--plan-id', '--from'], then those it inherits from payrec (commands/help.ts). */
  flags: string[];
}

export interface CompletionModel {
  root: CompletionNode;
  /** Flags that take a value (the next word is a value, not a command). */
  valueFlags: string[];
  /** Known values of some flags. */
  values: Record<string, string[]>;
}

/** Values offered after these flags; --chain is an open list, these are the known ones. */
export const FLAG_VALUES: Record<string, string[]> = {
  '--format': ['table', 'json', 'jsonl', 'csv', 'xlsx'],
  '-f': ['table', 'json', 'jsonl', 'csv', 'xlsx'],
  '--sort': ['asc', 'desc'],
  '--chain': [...KNOWN_CHAINS],
  '--flatten': ['receivers', 'swaps'],
  '--chart': ['day', 'week', 'month'],
  '--time-format': ['unix', 'iso'],
  // The cron forms; a year, quarter, month or day is typed.
  '--period': ['today', 'yesterday', 'this-month', 'last-month', 'last-quarter', 'last-year'],
  '--tz': ['UTC', 'Europe/Berlin', 'Europe/London', 'America/New_York', 'Asia/Tokyo'],
  '--product': TRANSFER_PRODUCTS.flatMap((p) => [p, productAliases[p]]),
};

export function completionModel(program: Command): CompletionModel {
  const valueFlags = new Set<string>();
  const walk = (cmd: Command, path: string[]): CompletionNode => {
    const flags: string[] = [];
    for (const o of [...cmd.options, ...inheritedOptions(cmd)]) {
      if ((o as { hidden?: boolean }).hidden) continue;
      for (const f of [o.long, o.short]) {
        if (!f) continue;
        flags.push(f);
        if (o.required || o.optional) valueFlags.add(f);
      }
    }
    // --help works everywhere.
    flags.push('--help');
    const children = cmd.commands
      .filter((c) => !(c as unknown as { _hidden?: boolean })._hidden)
      .map((c) => walk(c, [...path, c.name()]));
    return { path, names: [cmd.name(), ...cmd.aliases()], children, flags };
  };
  return { root: walk(program, []), valueFlags: [...valueFlags].sort(), values: FLAG_VALUES };
}

export function allNodes(node: CompletionNode): CompletionNode[] {
  return [node, ...node.children.flatMap(allNodes)];
}
