import type { Command } from 'commander';
import type { CommandAction } from '../core/action.js';
import { productAliases, productDescriptions } from '../registry/products.js';
import { PRODUCTS } from '../registry/types.js';

// The top-level commands, with just what `payrec --help` lists about them. Their
// subcommands, flags and actions live in modules that are imported only when a
// command is named on the command line: loading zod, undici and the registry costs
// several times Node's own start-up, and `--help` or `auth status` need none of it.

type Define = (program: Command, action: CommandAction) => void;

interface TopLevel {
  name: string;
  alias?: string;
  description: string;
  /** Imports the module(s) that add this command's subcommands, flags and actions. */
  load: () => Promise<Define>;
  /** Its action reads the whole command tree (completion scripts). */
  wholeTree?: boolean;
}

// Every product command comes from the same modules: the registry entries, and the
// hand-written commands beside them (in this order, which is the order of --help).
const loadProducts = async (): Promise<Define> => {
  const [registry, shortUrls, webhookSet, notifications, listen] = await Promise.all([
    import('./registry-commands.js'),
    import('./short-url-write.js'),
    import('./webhook-set.js'),
    import('./webhook-notifications.js'),
    import('./listen.js'),
  ]);
  return (program, action) => {
    registry.addRegistryCommands(program, action);
    shortUrls.addShortUrlWriteCommands(program, action, 'fixed-recurring');
    shortUrls.addShortUrlWriteCommands(program, action, 'on-demand');
    webhookSet.addWebhookSetCommand(program, action);
    notifications.addWebhookNotificationCommands(program, action);
    listen.addListenCommand(program, action);
  };
};

export const TOP_LEVEL: readonly TopLevel[] = [
  ...PRODUCTS.map((p) => ({ name: p, alias: productAliases[p], description: productDescriptions[p], load: loadProducts })),
  {
    name: 'emulator',
    description: 'Run the built-in emulator of the API (for trying payrec and for tests)',
    load: async () => (await import('./emulator.js')).addEmulatorCommands,
  },
  {
    name: 'auth',
    description: 'Log in with an API key, check it, log out',
    load: async () => (await import('./auth.js')).addAuthCommands,
  },
  {
    name: 'config',
    description: 'Show and change stored profiles (precedence: flag > environment > profile > default)',
    load: async () => (await import('./config.js')).addConfigCommands,
  },
  {
    name: 'api',
    description: 'Send an authenticated request to any API path below /v1/<chain>/ and print the JSON',
    load: async () => (await import('./api.js')).addApiCommand,
  },
  {
    name: 'completion',
    description: 'Print the shell completion script for bash, zsh or fish',
    load: async () => (await import('./completion.js')).addCompletionCommand,
    wholeTree: true,
  },
];

/** The top-level command `name`: the one already in `program`, or a new one with its name, alias and description. */
export function topCommand(program: Command, name: string): Command {
  const existing = program.commands.find((c) => c.name() === name);
  if (existing) return existing;
  const entry = TOP_LEVEL.find((t) => t.name === name);
  if (!entry) throw new Error(`no top-level command "${name}"`);
  const cmd = program.command(name).description(entry.description);
  return entry.alias ? cmd.alias(entry.alias) : cmd;
}

/**
 * Adds every top-level command to `program`, and the full subtree of those that
 * `words` name (every one when `words` is undefined). A word that happens to be a
 * command name elsewhere on the line (an option value) only loads a little more.
 */
export async function addTopLevelCommands(program: Command, action: CommandAction, words?: readonly string[]): Promise<void> {
  for (const t of TOP_LEVEL) topCommand(program, t.name);
  const named = (t: TopLevel) => words === undefined || words.includes(t.name) || (t.alias !== undefined && words.includes(t.alias));
  const everything = words === undefined || TOP_LEVEL.some((t) => t.wholeTree && named(t));
  const loaders = new Set(TOP_LEVEL.filter((t) => everything || named(t)).map((t) => t.load));
  const defines = await Promise.all([...loaders].map((load) => load()));
  for (const define of defines) define(program, action);
}
