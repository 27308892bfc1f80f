import type { Command } from 'commander';
import { UsageError } from '../core/runtime/errors.js';
import { productAliases, productDescriptions } from '../registry/products.js';
import { PRODUCTS } from '../registry/types.js';

// Where commands hang in the tree: the top-level names, aliases and one-line
// descriptions (all that `payrec --help` needs), and the lookups command modules use
// to find their parent. It imports no command module, so none of them imports back.

export interface TopLevelEntry {
  name: string;
  alias?: string;
  description: string;
  /** Not listed by --help or completion (reached as `payrec help reference`). */
  hidden?: boolean;
}

export const TOP_LEVEL: readonly TopLevelEntry[] = [
  ...PRODUCTS.map((p) => ({ name: p, alias: productAliases[p], description: productDescriptions[p] })),
  { name: 'transfers', description: 'Every product\'s transfers, fixed-recurring billings included, in one list merged by time (--product to narrow)' },
  { name: 'emulator', description: 'Run the built-in emulator of the API (for trying payrec and for tests)' },
  { name: 'auth', description: 'Log in with an API key, check it, log out' },
  { name: 'config', description: 'Show and change stored profiles (precedence: flag > environment > profile > default)' },
  { name: 'sync', description: 'Keep a local mirror (DuckDB) of every record up to date: incremental, resumable, exact' },
  { name: 'sql', description: 'Query the local mirror with SQL (read-only): exact totals, exports, what failed since yesterday' },
  { name: 'db', description: "A team's mirror on PostgreSQL: its DDL for a DBA (db init --print-sql), read access for a BI role (db grant-reader)" },
  { name: 'verify', description: "Check the mirror's records against the chain's own events; verdicts kept in chain_verdicts, exit 9 when any is bad" },
  { name: 'rates', description: 'The rates --currency values with: the mirror\'s rates table (sync from Chainlink, import a rates file, list), the feeds per token, the auditor\'s re-check' },
  { name: 'subscriptions', description: 'Who is active, past due, lapsed or cancelled: one row per subscription, from the mirror' },
  { name: 'metrics', description: 'MRR, churn and failed billings per month (or day, week, quarter, year) and token, from the mirror' },
  { name: 'close', description: 'The month-end close in one file: cover, metrics, movements, ledger, billings, transfers and dunning of a period (-o FILE.xlsx, or FILE.html: a page with MRR waterfalls)' },
  { name: 'api', description: 'Send an authenticated request to any API path below /v1/<chain>/ and print the JSON' },
  { name: 'doctor', description: 'Check the config, key, service, clock, folders, mirror and completion; exit with the code of the first problem' },
  { name: 'completion', description: 'Print the shell completion script for bash, zsh or fish' },
  { name: 'reference', description: 'Print every command and flag as Markdown (payrec help reference)', hidden: true },
];

/** The top-level command `name`: the one already in `program`, or a new one with its name, alias and description. */
export function topCommand(program: Command, name: string): Command {
  const existing = program.commands.find((c) => c.name() === name);
  if (existing) return existing;
  const entry = TOP_LEVEL.find((t) => t.name === name);
  if (!entry) throw new Error(`no top-level command "${name}"`);
  const cmd = program.command(name, { hidden: entry.hidden }).description(entry.description);
  return entry.alias ? cmd.alias(entry.alias) : cmd;
}

/** Groups made by commandAt: described from their subcommands once the tree is built (describeGroups). */
const groups = new WeakSet<Command>();

/** The command at `words` below `parent`, created as a plain group where missing. */
export function commandAt(parent: Command, words: string[]): Command {
  let cmd = parent;
  for (const word of words) {
    let next = cmd.commands.find((c) => c.name() === word);
    if (!next) groups.add((next = cmd.command(word)));
    cmd = next;
  }
  return cmd;
}

/**
 * Describes each group below a product from its names and its subcommands, so a new
 * endpoint in the registry shows up in its group's line: "One-time payments: list, get".
 */
export function describeGroups(program: Command): void {
  const walk = (cmd: Command, product: string) => {
    for (const c of cmd.commands) {
      if (groups.has(c)) {
        const what = `${product} ${c.name().replaceAll('-', ' ')}`;
        const subcommands = c.commands.map((s) => s.name()).filter((n) => n !== 'help');
        c.description(`${what[0].toUpperCase()}${what.slice(1)}: ${subcommands.join(', ')}`);
      }
      walk(c, product);
    }
  };
  for (const top of program.commands) walk(top, top.name());
}

/**
 * Every command with flags of its own and subcommands (`payrec rates`, `payrec verify`,
 * `payrec fr plans`): commander parses its flags wherever they stand, so a subcommand
 * gets them only when it has a flag of the same name (read with optsWithGlobals). One it
 * lacks is exit 2, not a flag silently dropped: `rates sync --token BNB` would sync every
 * token, `fr plans add ID --count` would add and print no count. Applied to the whole
 * tree once it is built, so a new command of that shape cannot miss it.
 */
export function refuseOwnFlagsInSubcommands(program: Command): void {
  const walk = (cmd: Command) => {
    for (const c of cmd.commands) {
      if (c.options.length && c.commands.length) refuseInSubcommands(c);
      walk(c);
    }
  };
  walk(program);
}

function refuseInSubcommands(parent: Command): void {
  parent.hook('preSubcommand', (_, sub) => {
    for (const o of parent.options) {
      const key = o.attributeName();
      if (parent.getOptionValueSource(key) === 'cli' && !sub.options.some((x) => x.attributeName() === key)) {
        const name = commandPath(parent);
        throw new UsageError(`${o.long} is a flag of ${name} itself, not of ${name} ${sub.name()}; see ${name} ${sub.name()} --help`);
      }
    }
  });
}

/** "payrec fixed-recurring plans": the words that reach `cmd`. */
function commandPath(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}
