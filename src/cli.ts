import { Command, CommanderError } from 'commander';
import { makeAction } from './core/action.js';
import { processContext, type Context } from './core/context.js';
import { reportError } from './core/report-error.js';
import { EXIT, InterruptedError } from './core/errors.js';
import { removePendingFiles } from './core/atomic-file.js';
import { addRegistryCommands } from './commands/registry-commands.js';
import { addEmulatorCommands } from './commands/emulator.js';
import { addCompletionCommand } from './commands/completion.js';
import { addAuthCommands } from './commands/auth.js';
import { addShortUrlWriteCommands } from './commands/short-url-write.js';
import { addWebhookSetCommand } from './commands/webhook-set.js';
import { addWebhookNotificationCommands } from './commands/webhook-notifications.js';
import { addListenCommand } from './commands/listen.js';
import { addApiCommand } from './commands/api.js';
import { addConfigCommands } from './commands/config.js';
import pkg from '../package.json' with { type: 'json' };

// Assembles the command tree: global flags, commands generated from the registry,
// and the hand-written commands beside them.

export function buildProgram(ctx: Context): Command {
  const program = new Command('payrec')
    .description('Query subscription and payment records (billings, transfers, payments, executions), manage short urls and plan webhooks, verify webhook notifications.')
    .version(pkg.version, '-V, --version')
    .option('--profile <name>', 'stored profile to use (env PAYREC_PROFILE)')
    .option('--chain <chain>', 'chain: bsc, ethereum, polygon, sandbox… (env PAYREC_CHAIN; default bsc)')
    .option('--base-url <url>', 'API base URL (env PAYREC_BASE_URL; default https://api.8pay.network)')
    .option('--emulator', 'run the command against a built-in emulator with demo data (no account needed)')
    .option('-f, --format <format>', 'table, json, jsonl or csv (default table)')
    .option('--columns <list>', 'fields to show, in order, comma-separated (dotted paths for nested fields)')
    .option('--flatten <field>', 'one row per element of an array field (receivers, swaps)')
    .option('-o, --output <file>', 'write to FILE atomically instead of stdout')
    .option('--csv-raw', 'do not neutralise spreadsheet formulas in CSV cells')
    .option('--strict', 'fail (exit 6) when a response does not match the documented schema, instead of warning')
    .option('-q, --quiet', 'no progress, hints or warnings on stderr')
    .option('--debug', 'print HTTP requests and responses to stderr (the key is redacted)')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--timeout <seconds>', 'per-request timeout (default 30)')
    .option('--retries <n>', 'retries of failed safe requests (default 3)')
    .option('--dry-run', 'print the requests as curl commands instead of sending them')
    .showSuggestionAfterError(true)
    .addHelpText('after', `\nExamples:\n  $ payrec --emulator one-time transfers --limit 5\n  $ payrec one-time transfers --from 30d --all -f csv -o transfers.csv\n  $ payrec fr billings --plan-id 0x57b2…6bf7 --summary\n\nDocs: https://github.com/payrec/payrec#readme`);

  program.exitOverride();
  program.configureOutput({
    writeOut: (s) => ctx.stdout.write(s),
    writeErr: (s) => ctx.stderr.write(s),
  });
  const action = makeAction(ctx);
  addRegistryCommands(program, action);
  addShortUrlWriteCommands(program, action, 'fixed-recurring');
  addShortUrlWriteCommands(program, action, 'on-demand');
  addWebhookSetCommand(program, action);
  addWebhookNotificationCommands(program, action);
  addListenCommand(program, action);
  addEmulatorCommands(program, action);
  addAuthCommands(program, action);
  addConfigCommands(program, action);
  addApiCommand(program, action);
  addCompletionCommand(program, action);
  applyToTree(program, (c) => {
    c.exitOverride();
    c.configureOutput({ writeOut: (s) => ctx.stdout.write(s), writeErr: (s) => ctx.stderr.write(s) });
  });
  return program;
}

function applyToTree(cmd: Command, fn: (c: Command) => void): void {
  fn(cmd);
  for (const c of cmd.commands) applyToTree(c, fn);
}

/** Runs payrec with `argv` (without node and script) and returns the exit code. */
export async function run(argv: string[], ctx: Context): Promise<number> {
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander printed its own message already (help, version, or a usage error).
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.ok;
      if (err.code === 'commander.executeSubCommandAsync') return EXIT.ok;
      return EXIT.usage;
    }
    return reportError(err, ctx, argv.includes('--debug'));
  }
}

export async function main(): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    controller.abort(new InterruptedError());
    if (interrupts > 1) {
      removePendingFiles();
      process.exit(EXIT.interrupted);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', removePendingFiles);
  // `payrec … | head`: the reader left; stop quietly like other Unix tools.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    removePendingFiles();
    process.exit(EXIT.ok);
  });
  const ctx = processContext(controller.signal);
  const code = await run(process.argv.slice(2), ctx);
  process.exitCode = controller.signal.aborted ? EXIT.interrupted : code;
}
