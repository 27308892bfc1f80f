import { CommanderError, type Command } from 'commander';
import { configureInheritedHelp, PayrecCommand } from './core/runtime/help.js';
import { makeAction } from './core/runtime/action.js';
import type { StartEmulator } from './core/runtime/session.js';
import { processContext, type Context } from './core/runtime/context.js';
import { EXIT, EXIT_MEANINGS, InterruptedError } from './core/runtime/errors.js';
import { addTopLevelCommands } from './commands/top-level.js';
import { commandNamed, findUnknownCommand, groupOptionHint, unknownCommandError } from './commands/unknown-command.js';
import { describeGroups, refuseOwnFlagsInSubcommands } from './commands/tree.js';
import { FORMAT_TABLE, FORMATS, namesOr } from './core/output/formats.js';
import pkg from '../package.json' with { type: 'json' };

// The command tree: the global flags, then the top-level commands (generated from
// the registry, and the hand-written ones beside them), and the run of one argv.

/** --emulator's emulator, handed to each session (core never imports src/emulator/); loaded only when --emulator starts it. */
const startEmulator: StartEmulator = async (options) => (await import('./emulator/index.js')).startEmulator(options);

/**
 * The command tree. Only the top-level commands that `words` name get their
 * subcommands and flags (see top-level.ts); without `words`, every command does
 * (completion scripts and the README reference walk the whole tree).
 */
export async function buildProgram(ctx: Context, words?: readonly string[]): Promise<Command> {
  const program = new PayrecCommand('payrec')
    .description('Query subscription and payment records (billings, transfers, payments, executions), manage short urls and plan webhooks, verify webhook notifications.')
    .version(pkg.version, '-V, --version')
    .option('--profile <name>', 'stored profile to use (env PAYREC_PROFILE)')
    .option('--chain <chain>', 'chain: bsc, ethereum, polygon, sandbox… (env PAYREC_CHAIN; default bsc)')
    .option('--base-url <url>', 'API base URL (env PAYREC_BASE_URL; default https://api.8pay.network)')
    .option('--rpc <url>', "the chain's JSON-RPC URL for --verify and payrec verify (env PAYREC_RPC_URL; payrec config set rpc); a secret: shown masked")
    .option('--emulator', 'run the command against a built-in emulator with demo data (no account needed)')
    .option('-f, --format <format>', `${namesOr(FORMATS)} (${FORMAT_TABLE.filter((f) => f.needsFile).map((f) => f.name).join(', ')} only with -o; env PAYREC_FORMAT; default: from -o's extension, else table)`)
    .option('--columns <list>', 'fields to show, in order, comma-separated (dotted paths for nested fields)')
    .option('--flatten <field>', 'one row per element of an array field (receivers, swaps)')
    .option('-o, --output <file>', 'write records or results to FILE atomically instead of stdout (a pipe or device is written into); its extension picks the format without -f (.xlsx, .csv, .tsv, .json, .jsonl/.ndjson); lists, get, sql, sync, subscriptions, metrics, close, fr plans, api, short-urls create/update')
    .option('--tz <zone>', 'IANA time zone of calendar days (--period, date-only --from/--to, --chart) and of times shown (env PAYREC_TZ; default UTC)')
    .option('--time-format <form>', 'unix or iso for times in every format (default: unix in json, jsonl and piped tables; a date-time in --tz in csv and terminal tables)')
    .option('--wide', 'terminal tables show every value whole (ids, JSON), however wide; by default whole when they fit')
    .option('--csv-raw', 'do not neutralise spreadsheet formulas in CSV cells')
    .option('--bom', 'begin CSV with the UTF-8 byte-order mark (Excel needs it to read non-ASCII text)')
    .option('--strict', 'fail (exit 6) when a response does not match the documented schema, instead of warning')
    .option('-q, --quiet', 'no progress, hints or warnings on stderr')
    .option('--debug', 'print HTTP requests and responses to stderr (the key is redacted)')
    .option('--no-color', 'no colour (also NO_COLOR, TERM=dumb)')
    .option('--timeout <seconds>', 'per-request timeout (env PAYREC_TIMEOUT; default 30)')
    .option('--retries <n>', 'retries of failed safe requests (env PAYREC_RETRIES; default 3)')
    .option('--dry-run', 'print each request as a curl command instead of sending it')
    .showSuggestionAfterError(true)
    .addHelpText('after', `\nExamples:\n  $ payrec --emulator one-time transfers --limit 5\n  $ payrec one-time transfers --from 30d --all -f csv -o transfers.csv\n  $ payrec fr billings --plan-id 0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7 --summary\n\nEvery command has --help with its flags and examples; the whole reference:\npayrec help reference (also man payrec).\n\n${exitCodes()}`);

  configureInheritedHelp(program);
  program.exitOverride();
  program.configureOutput({
    writeOut: (s) => ctx.stdout.write(s),
    writeErr: (s) => ctx.stderr.write(s),
  });
  await addTopLevelCommands(program, makeAction(ctx, startEmulator), words);
  describeGroups(program);
  refuseOwnFlagsInSubcommands(program);
  applyToTree(program, (c) => {
    c.exitOverride();
    c.configureOutput({ writeOut: (s) => ctx.stdout.write(s), writeErr: (s) => ctx.stderr.write(s) });
  });
  return program;
}

/** "Exit codes: 0 ok, 2 bad input, …", in lines that fit an 80-column terminal. */
function exitCodes(): string {
  const lines = ['Exit codes:'];
  const shown = EXIT_MEANINGS.filter((e) => e.code !== EXIT.internal);
  for (const [i, e] of shown.entries()) {
    const item = ` ${e.code} ${e.short}${i === shown.length - 1 ? '.' : ','}`;
    if (lines.at(-1)!.length + item.length > 80) lines.push(item.trimStart());
    else lines[lines.length - 1] += item;
  }
  return lines.join('\n');
}

function applyToTree(cmd: Command, fn: (c: Command) => void): void {
  fn(cmd);
  for (const c of cmd.commands) applyToTree(c, fn);
}

/** Runs payrec with `argv` (without node and script) and returns the exit code. */
export async function run(given: string[], ctx: Context): Promise<number> {
  // `payrec help fr billings` is `payrec fr billings --help` (commander's help command takes one word).
  const argv = given[0] === 'help' && given.length > 2 ? [...given.slice(1), '--help'] : given;
  const program = await buildProgram(ctx, argv);
  try {
    const unknown = findUnknownCommand(program, argv);
    if (unknown) throw await unknownCommandError(unknown, () => buildProgram(ctx));
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander printed its own message already (help, version, or a usage error).
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
      // A group run without its subcommand (`payrec`, `payrec ot`): its help went to stderr, and
      // nothing was done, so a script with an empty variable in its command line fails.
      if (err.code === 'commander.help') return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      if (err.code === 'commander.executeSubCommandAsync') return EXIT.ok;
      if (err.code === 'commander.unknownOption') {
        const hint = groupOptionHint(commandNamed(program, argv)) ?? formatOptionHint(err.message);
        if (hint) ctx.stderr.write(`hint: ${hint}\n`);
      }
      return EXIT.usage;
    }
    // Imported on an error only: --help and every command that succeeds never load it.
    const { reportError } = await import('./core/runtime/report-error.js');
    return reportError(err, ctx, argv.includes('--debug'), argv.includes('--emulator'));
  }
}

/**
 * Other CLIs' spellings: `--json`, `--csv`… of a format (gh's --json takes fields;
 * payrec's formats are -f), and `--watch`/`-w` (kubectl's) of --follow.
 */
function formatOptionHint(message: string): string | undefined {
  if (/unknown option '(--watch|-w)'/.test(message)) return 'to keep printing new records as they come, use --follow (Ctrl-C to stop)';
  const m = new RegExp(`unknown option '--(${[...FORMATS, 'tsv'].join('|')})'`).exec(message);
  return m ? `formats are chosen with -f: -f ${m[1] === 'tsv' ? 'table (tab-separated when piped)' : m[1]}` : undefined;
}

/** The whole process: signals, a reader that leaves early, the exit code. */
export async function runProcess(argv: string[]): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  // process.exit runs the 'exit' listeners, among them the one that removes -o's unfinished temporary files.
  const stopNow = () => process.exit(EXIT.interrupted);
  const onSignal = () => {
    interrupts++;
    controller.abort(new InterruptedError());
    if (interrupts > 1) stopNow();
    // Work stops at the abort within moments; whatever has not (a bug waiting on a
    // promise that never settles) must not outlive a SIGTERM from timeout, CI or systemd.
    else setTimeout(stopNow, 5000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // `payrec … | head`: the reader left; stop quietly like other Unix tools.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(EXIT.ok);
  });
  const ctx = processContext(controller.signal);
  const code = await run(argv, ctx);
  process.exitCode = controller.signal.aborted ? EXIT.interrupted : code;
}
