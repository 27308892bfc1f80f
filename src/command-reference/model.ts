import { OUTCOME_FIELD, outcomeAdder } from '../registry/outcome.js';
import type { Command } from 'commander';
import { inheritedOptions } from '../core/runtime/help.js';
import { schemaFields } from '../core/output/schema-fields.js';
import { FORMATS } from '../core/output/formats.js';
import { CATALOG } from '../mirror/catalog.js';
import { endpoints } from '../registry/endpoints.js';
import { KNOWN_CHAINS } from '../registry/validators.js';
import { productAliases } from '../registry/products.js';
import { TRANSFER_FIELDS, TRANSFER_PRODUCTS } from '../registry/transfers.js';
import { declaredColumns } from './declared-columns.js';

// A shell-neutral model of the command tree, read from the real commander program,
// so completions can never drift from the commands that exist.

export interface CompletionNode {
  /** Canonical path: ['fixed-recurring', 'short-urls']. Root is []. */
  path: string[];
  /** Name and aliases, as a user may type them. */
  names: string[];
  children: CompletionNode[];
  /** Flags of this command, e.g. ['--plan-id', '--from'], then those it inherits from payrec (core/runtime/help.ts). */
  flags: string[];
  /** Values of its positional arguments, offered beside its subcommands (the shells of `completion`). */
  args: string[];
  /** The record fields --columns takes here (a registry command's, `transfers`'); [] where none are known. */
  columns: string[];
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
  '--format': [...FORMATS],
  '-f': [...FORMATS],
  '--sort': ['asc', 'desc'],
  '--chain': [...KNOWN_CHAINS],
  '--flatten': ['receivers', 'swaps'],
  '--chart': ['day', 'week', 'month'],
  '--time-format': ['unix', 'iso'],
  // The cron forms; a year, quarter, month or day is typed.
  '--period': ['today', 'yesterday', 'this-month', 'last-month', 'last-quarter', 'last-year'],
  // Every zone this Node knows (its ICU's IANA list): what --tz accepts.
  '--tz': [...new Set(['UTC', ...Intl.supportedValuesOf('timeZone')])],
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
    return { path, names: [cmd.name(), ...cmd.aliases()], children, flags, args: ARG_VALUES[path.join(' ')] ?? [], columns: [...(declaredColumns(cmd) ?? columnsAt(path))] };
  };
  const root = walk(program, []);
  // `payrec help [command]` is commander's own (hidden from the tree): it takes `reference` or a command.
  root.children.push({ path: ['help'], names: ['help'], children: [], flags: ['--help'], args: ['reference', ...root.children.map((c) => c.names[0])], columns: [] });
  return { root, valueFlags: [...valueFlags].sort(), values: FLAG_VALUES };
}

/** The shells `payrec completion` writes for (scripts.ts has one script for each). */
export const SHELL_NAMES = ['bash', 'zsh', 'fish'] as const;

/** Positional arguments with a known set of values, by command path. */
const ARG_VALUES: Record<string, string[]> = {
  completion: [...SHELL_NAMES],
  // Collections by product name and by alias (sync ot/transfers), as sync reads them.
  sync: CATALOG.flatMap((c) => [c.name, `${productAliases[c.product]}/${c.name.slice(c.product.length + 1)}`]),
};

/** Fields for --columns at a command path: its registry endpoints' records, or the transfers' union. */
function columnsAt(path: string[]): string[] {
  if (path.join(' ') === 'transfers') return [...TRANSFER_FIELDS];
  const reads = endpoints.filter((e) => e.method === 'GET' && path.join(' ') === [e.product, ...e.command].join(' '));
  // An open object (params.extra.*) takes any key: the object itself is offered.
  // Billings also carry payrec's outcome column (registry/outcome.ts outcomeAdder).
  const fields = reads.flatMap((e) => [...schemaFields(e.record), ...(outcomeAdder(e) ? [OUTCOME_FIELD] : [])]);
  return [...new Set(fields.map((f) => f.replace(/\.\*$/, '')))];
}

export function allNodes(node: CompletionNode): CompletionNode[] {
  return [node, ...node.children.flatMap(allNodes)];
}
