import type { Command } from 'commander';
import type { CommandAction } from '../core/runtime/action.js';
import { PRODUCTS } from '../registry/types.js';
import { TOP_LEVEL, topCommand } from './tree.js';

// The top-level commands' subcommands, flags and actions live in modules that are
// imported only when a command is named on the command line: loading zod, undici and
// the registry costs several times Node's own start-up, and `--help` or `auth status`
// need none of it. The names and descriptions `--help` lists come from tree.ts.

type Define = (program: Command, action: CommandAction) => void;

interface Loader {
  /** Imports the module(s) that add this command's subcommands, flags and actions. */
  load: () => Promise<Define>;
  /** Its action reads the whole command tree (completion scripts). */
  wholeTree?: boolean;
}

// Every product command comes from the same modules: the registry entries, and the
// hand-written commands beside them (in this order, which is the order of --help).
const loadProducts = async (): Promise<Define> => {
  const [registry, shortUrls, webhookSet, notifications, listen, plans] = await Promise.all([
    import('./registry-commands.js'),
    import('./short-url-write.js'),
    import('./webhook-set.js'),
    import('./webhook-notifications.js'),
    import('./listen.js'),
    import('./plans.js'),
  ]);
  return (program, action) => {
    registry.addRegistryCommands(program, action);
    shortUrls.addShortUrlWriteCommands(program, action, 'fixed-recurring');
    shortUrls.addShortUrlWriteCommands(program, action, 'on-demand');
    webhookSet.addWebhookSetCommand(program, action);
    notifications.addWebhookNotificationCommands(program, action);
    listen.addListenCommand(program, action);
    plans.addPlansCommand(program, action);
  };
};

// Both read the mirror through the subscription engine: one module.
const loadSubscriptions = async (): Promise<Define> => (await import('./subscriptions.js')).addSubscriptionCommands;

const LOADERS: Record<string, Loader> = {
  ...Object.fromEntries(PRODUCTS.map((p) => [p, { load: loadProducts }])),
  transfers: { load: async () => (await import('./transfers.js')).addTransfersCommand },
  emulator: { load: async () => (await import('./emulator.js')).addEmulatorCommands },
  auth: { load: async () => (await import('./auth.js')).addAuthCommands },
  config: { load: async () => (await import('./config.js')).addConfigCommands },
  // The mirror's commands load DuckDB (a native addon) only when one of them runs.
  sync: { load: async () => (await import('./sync.js')).addSyncCommand },
  sql: { load: async () => (await import('./sql.js')).addSqlCommand },
  db: { load: async () => (await import('./db.js')).addDbCommands },
  verify: { load: async () => (await import('./verify.js')).addVerifyCommand },
  rates: { load: async () => (await import('./rates.js')).addRatesCommands },
  subscriptions: { load: loadSubscriptions },
  metrics: { load: loadSubscriptions },
  close: { load: async () => (await import('./close.js')).addCloseCommand },
  api: { load: async () => (await import('./api.js')).addApiCommand },
  // It compares an installed completion script with the current one: the whole tree.
  doctor: { load: async () => (await import('./doctor.js')).addDoctorCommand, wholeTree: true },
  completion: { load: async () => (await import('./completion.js')).addCompletionCommand, wholeTree: true },
  reference: { load: async () => (await import('./reference.js')).addReferenceCommand, wholeTree: true },
};

/**
 * Adds every top-level command to `program`, and the full subtree of those that
 * `words` name (every one when `words` is undefined). A word that happens to be a
 * command name elsewhere on the line (an option value) only loads a little more.
 */
export async function addTopLevelCommands(program: Command, action: CommandAction, words?: readonly string[]): Promise<void> {
  for (const t of TOP_LEVEL) topCommand(program, t.name);
  const named = (t: (typeof TOP_LEVEL)[number]) => words === undefined || words.includes(t.name) || (t.alias !== undefined && words.includes(t.alias));
  const everything = words === undefined || TOP_LEVEL.some((t) => LOADERS[t.name].wholeTree && named(t));
  const loaders = new Set(TOP_LEVEL.filter((t) => everything || named(t)).map((t) => LOADERS[t.name].load));
  const defines = await Promise.all([...loaders].map((load) => load()));
  for (const define of defines) define(program, action);
}
