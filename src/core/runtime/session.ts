import chalk from 'chalk';
import { openOutputFile } from '../output/atomic-file.js';
import { chooseFormat, formatGivenAs, refuseOutputName } from '../output/format-choice.js';
import { formatRow } from '../output/formats.js';
import { ConfigStore, type ConfigFileError, type RunDefaults } from '../config/config-store.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import type { ApiClient, ClientOptions } from '../http/client.js';
import { optionSchemas, parseOption } from './options.js';
import type { OutputOptions } from '../output/options.js';
import { requireKey, resolveSettings, type Settings } from '../config/settings.js';
import { canonicalZone, UTC } from './zone.js';
import { hasControlCharacters, neutraliseTerminal, printable } from '../output/sanitize.js';
import { maskSecrets } from './secrets.js';

// One run of one command: the global options, parsed once, and what they lead to
// (settings, the HTTP client, where output goes). Commands get everything from here.

/** Global flags as commander hands them over (strings, before validation). */
export interface GlobalFlags {
  profile?: string;
  chain?: string;
  baseUrl?: string;
  rpc?: string;
  format?: string;
  columns?: string;
  flatten?: string;
  output?: string;
  quiet?: boolean;
  debug?: boolean;
  color?: boolean;
  timeout?: string;
  retries?: string;
  dryRun?: boolean;
  emulator?: boolean;
  csvRaw?: boolean;
  bom?: boolean;
  strict?: boolean;
  tz?: string;
  timeFormat?: string;
  wide?: boolean;
}

/** --emulator's in-process emulator, as a session uses it. */
export interface InProcessEmulator {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  /** The demo key of a chain. */
  keyFor(chain: string): string;
  /** The JSON-RPC URL of a chain's node. */
  rpcUrl(chain: string): string;
  close(): Promise<void>;
}

/**
 * Starts --emulator's emulator on an ephemeral loopback port (`now`: its anchor, when
 * pinned). program.ts hands it in: src/emulator/ sits above core, which never imports it.
 */
export type StartEmulator = (options: { port: 0; now?: number }) => Promise<InProcessEmulator>;

export interface OutputTarget {
  stream: NodeJS.WritableStream;
  /** Nothing reaches the user before commit (a temporary file renamed over -o's): a run that fails leaves nothing half-written. */
  atomic: boolean;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export class Session {
  readonly store: ConfigStore;
  readonly format: OutputOptions['format'];
  /** How the format was chosen, for messages: `-f csv`, `PAYREC_FORMAT=csv` or `-o "x.csv" (csv)`. */
  readonly formatGivenAs: string;
  readonly columns?: string[];
  readonly quiet: boolean;
  readonly color: boolean;
  /** --tz or PAYREC_TZ: the IANA zone of calendar days and of the times people read. */
  readonly zone: string;
  readonly timeFormat?: 'unix' | 'iso';
  /** --timeout, per request (the API's and the chain node's). */
  readonly timeoutMs: number;
  /** --retries of failed safe requests. */
  readonly retries: number;
  /** The most requests at once when payrec finds the pace (the profile's `concurrency`; --concurrency fixes it instead). */
  readonly concurrencyCeiling?: number;
  private settingsP?: Promise<Settings>;
  private clientP?: Promise<ApiClient>;
  private cleanups: (() => Promise<void>)[] = [];
  private warned = new Set<string>();

  constructor(
    readonly ctx: Context,
    readonly flags: GlobalFlags,
    /** The profile's run defaults (payrec config set), below flags and variables. */
    readonly stored: { profile: string; defaults: RunDefaults } = { profile: '', defaults: {} },
    /** --emulator's start (program.ts); a session without it cannot run --emulator. */
    private readonly startEmulator?: StartEmulator,
  ) {
    this.store = new ConfigStore(ctx.env);
    const inProfile = (key: keyof RunDefaults) => (stored.defaults[key] === undefined ? undefined : { value: stored.defaults[key], source: `${key} of profile ${stored.profile}` });
    this.format = chooseFormat(flags.format, ctx.env, flags.output, inProfile('format'));
    this.formatGivenAs = formatGivenAs(flags.format, ctx.env, flags.output, this.format);
    this.columns = flags.columns === undefined ? undefined : parseColumns(flags.columns);
    this.quiet = Boolean(flags.quiet);
    // --no-color, NO_COLOR (not empty: no-color.org), TERM=dumb and a non-terminal all turn colour off.
    this.color = flags.color !== false && !ctx.env.NO_COLOR && !isDumbTerminal(ctx.env) && ctx.stdoutIsTTY;
    chalk.level = this.color ? chalk.level || 1 : 0;
    this.zone = parseZone(flags.tz, ctx.env, inProfile('tz'));
    this.timeFormat = flags.timeFormat === undefined ? undefined : parseOption(optionSchemas.timeFormat, flags.timeFormat, '--time-format');
    this.timeoutMs = parseOption(optionSchemas.timeout, ...flagOrEnv(flags.timeout, '--timeout', ctx.env, 'PAYREC_TIMEOUT', '30', inProfile('timeout'))) * 1000;
    this.retries = parseOption(optionSchemas.retries, ...flagOrEnv(flags.retries, '--retries', ctx.env, 'PAYREC_RETRIES', '3', inProfile('retries')));
    const ceiling = inProfile('concurrency');
    if (ceiling) this.concurrencyCeiling = parseOption(optionSchemas.concurrency, ceiling.value, ceiling.source);
    if (flags.output !== undefined && (flags.output === '' || hasControlCharacters(flags.output))) {
      throw new UsageError(`invalid --output "${printable(flags.output)}": expected a file path without control characters`);
    }
    if (flags.output !== undefined) refuseOutputName(flags.output);
    const row = formatRow(this.format);
    // A file format (a workbook is a zip) is binary that a terminal or a pipe has no use for.
    if (row.needsFile && flags.output === undefined) {
      const fromEnv = this.formatGivenAs.startsWith('PAYREC_FORMAT');
      throw new UsageError(
        `${this.formatGivenAs} writes ${row.noun} to a file: give -o FILE${row.extensions[0]}`,
        fromEnv ? 'for a terminal or a pipe, set PAYREC_FORMAT to csv, json or jsonl (or unset it)' : 'for a terminal or a pipe, use -f csv, json or jsonl',
      );
    }
    if (flags.bom && this.format !== 'csv') {
      throw new UsageError(`--bom is for -f csv (the format is ${this.format})`, row.needsFile ? `${row.noun} needs no byte-order mark` : undefined);
    }
  }

  /**
   * The settings in effect. `repair`: for the commands that must work while the config
   * file cannot be used (`config list`), which then only warns and leaves it out, as
   * --emulator does (it needs no stored key).
   */
  settings(o: { repair?: boolean } = {}): Promise<Settings> {
    this.settingsP ??= this.loadSettings(Boolean(o.repair || this.flags.emulator));
    return this.settingsP;
  }

  private async loadSettings(repair: boolean): Promise<Settings> {
    const s = await resolveSettings(this.flags, this.ctx.env, this.store, repair ? (problem) => this.warnConfig(problem) : undefined);
    if (!this.flags.emulator) return s;
    // --emulator: an in-process emulator on an ephemeral loopback port, with its demo key.
    if (!this.startEmulator) throw new Error('--emulator given to a session without the emulator handed in');
    const { emulatorAnchor } = await import('./emulator-clock.js');
    // An anchor not pinned is today's midnight, which the emulator takes by itself.
    const anchor = emulatorAnchor(this.ctx.env, this.ctx.now());
    const emulator = await this.startEmulator({ port: 0, ...(anchor.pinned ? { now: anchor.seconds } : {}) });
    this.cleanups.push(() => emulator.close());
    // Its chain too, unless --rpc names another node.
    const rpc = s.sources.rpcUrl === 'flag' ? { rpcUrl: s.rpcUrl, source: s.sources.rpcUrl } : { rpcUrl: emulator.rpcUrl(s.chain), source: '--emulator' as const };
    return { ...s, baseUrl: emulator.url, apiKey: emulator.keyFor(s.chain), rpcUrl: rpc.rpcUrl, sources: { ...s.sources, baseUrl: '--emulator', apiKey: '--emulator', rpcUrl: rpc.source } };
  }

  /**
   * The HTTP client of this run; `concurrency`: --concurrency, requests (pages) at once,
   * or undefined: the client's window finds the pace, up to `concurrencyCeiling` (16 by
   * default); `smallHeap`: keep V8's heap small (heap.ts tuneHeap), false for a sync and a
   * workbook.
   */
  client(concurrency?: number, smallHeap = !formatRow(this.format).growsHeap): Promise<ApiClient> {
    this.clientP ??= this.settings().then(async (s) => {
      this.ctx.tuneHeap?.(smallHeap);
      const { AdaptiveWindow, FixedWindow } = await import('../http/request-window.js');
      const window = concurrency === undefined ? new AdaptiveWindow(this.concurrencyCeiling) : new FixedWindow(concurrency);
      const client = await this.newClient(s, this.flags.dryRun ? '' : requireKey(s), window);
      this.cleanups.push(() => client.close());
      return client;
    });
    return this.clientP;
  }

  /** A client with this run's --timeout, --retries, --debug and --dry-run, for `apiKey` (auth checks a key before it is stored); the caller closes it. */
  async newClient(s: Pick<Settings, 'baseUrl' | 'chain'>, apiKey: string, window?: ClientOptions['window'], onResponse?: ClientOptions['onResponse']): Promise<ApiClient> {
    // Loaded here, not with the session: commands that read only the mirror or files
    // never parse undici (a megabyte of JavaScript, about 40 ms of start-up).
    const { ApiClient } = await import('../http/client.js');
    return new ApiClient({
      onResponse,
      baseUrl: s.baseUrl,
      chain: s.chain,
      apiKey,
      timeoutMs: this.timeoutMs,
      retries: this.retries,
      window,
      signal: this.ctx.signal,
      debug: this.flags.debug ? (line) => this.ctx.stderr.write(`debug: ${neutraliseTerminal(maskSecrets(line))}\n`) : undefined,
      onRetry: (m) => this.notice(m),
      dryRun: this.flags.dryRun ? (curl) => this.ctx.stdout.write(curl + '\n') : undefined,
    });
  }

  /** Output options for the chosen format; --columns are validated by the caller. */
  output(kind: 'list' | 'single', defaultColumns: readonly string[]): OutputOptions {
    return {
      format: this.format,
      kind,
      columns: this.columns,
      defaultColumns: [...defaultColumns],
      flatten: this.flags.flatten,
      csvRaw: Boolean(this.flags.csvRaw),
      bom: Boolean(this.flags.bom),
      warn: (message) => this.warn(message),
      tty: this.ctx.stdoutIsTTY && !this.flags.output,
      dumb: isDumbTerminal(this.ctx.env),
      color: this.color && !this.flags.output,
      width: this.ctx.columns,
      wide: Boolean(this.flags.wide),
      zone: this.zone,
      timeFormat: this.timeFormat,
    };
  }

  /** stdout, or --output FILE written atomically. */
  async openOutput(): Promise<OutputTarget> {
    const file = this.flags.output;
    if (!file) {
      return { stream: this.ctx.stdout, atomic: false, commit: async () => {}, abort: async () => {} };
    }
    try {
      const target = await openOutputFile(file);
      this.cleanups.unshift(() => target.abort());
      return target;
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`cannot write --output "${printable(file)}": ${(err as NodeJS.ErrnoException).code ?? String(err)}`, 'give -o a path in a folder you can write');
    }
  }

  /**
   * A warning for the user: stderr, once per distinct text, silenced by --quiet.
   * Warnings name what a server sent (fields, messages), so they are neutralised.
   */
  warn(message: string): void {
    if (this.quiet || this.warned.has(message)) return;
    this.warned.add(message);
    this.ctx.stderr.write(`warning: ${neutraliseTerminal(maskSecrets(message))}\n`);
  }

  /** Progress and hints: only for a person at a terminal (they may quote a server: a retried status, a link). */
  notice(message: string): void {
    if (this.quiet || !this.ctx.stderrIsTTY) return;
    this.ctx.stderr.write(neutraliseTerminal(maskSecrets(message)) + '\n');
  }

  /** Tells what is wrong with the config file (`leftOut`: and that this run does without it), and how to fix it. */
  warnConfig(problem: ConfigFileError, leftOut = true): void {
    this.warn(leftOut ? `${problem.message}; it is left out of this run` : problem.message);
    if (!this.quiet) this.ctx.stderr.write(`hint: ${problem.hint}\n`);
  }

  /** What a reader must not miss (a list shorter than its window): stderr on a terminal or not; only --quiet silences it. */
  note(message: string): void {
    if (this.quiet) return;
    this.ctx.stderr.write(neutraliseTerminal(message) + '\n');
  }

  /** After a write (create, update, delete, set): --emulator's in-process emulator forgets it when the command ends, and says so. */
  wrote(): void {
    if (this.flags.emulator && !this.flags.dryRun) {
      this.note('note: --emulator starts a fresh emulator for each command, so this change is gone when it ends; to keep changes, run payrec emulator start and use its --base-url');
    }
  }

  /**
   * An empty result, said to a person (as gh does): on stderr when stdout is a terminal,
   * or when -o writes a file while one watches; a pipe gets its empty document silently.
   */
  noteEmpty(message: string): void {
    if (this.ctx.stdoutIsTTY || (this.flags.output !== undefined && this.ctx.stderrIsTTY)) this.note(message);
  }

  async close(): Promise<void> {
    for (const c of this.cleanups.splice(0)) await c().catch(() => {});
  }
}

/** --tz, else PAYREC_TZ, else UTC; the message quotes what was given and where. */
function parseZone(flag: string | undefined, env: NodeJS.ProcessEnv, stored?: StoredSetting): string {
  const [given, source] = flagOrEnv(flag, '--tz', env, 'PAYREC_TZ', UTC, stored);
  const zone = canonicalZone(given);
  if (zone === undefined) {
    throw new UsageError(`invalid ${source} "${printable(given)}": expected an IANA time zone name such as UTC, Europe/Berlin or America/New_York`);
  }
  return zone;
}

/** A terminal that shows text only: no colour, no box drawing, no cursor movement. */
export function isDumbTerminal(env: NodeJS.ProcessEnv): boolean {
  return env.TERM === 'dumb';
}

/**
 * A flag's value, else its environment variable's (an empty one is unset), else the
 * default; with the name to quote when the value is invalid: what the user typed it as.
 */
/** A setting kept in a profile, and how messages name it (`tz of profile work`). */
export interface StoredSetting {
  value: string;
  source: string;
}

/** flag > environment > profile > default; with the name a message gives the one used. */
function flagOrEnv(flag: string | undefined, flagName: string, env: NodeJS.ProcessEnv, variable: string, fallback: string, stored?: StoredSetting): [string, string] {
  if (flag !== undefined) return [flag, flagName];
  if (env[variable]) return [env[variable], variable];
  if (stored) return [stored.value, stored.source];
  return [fallback, flagName];
}

function parseColumns(raw: string): string[] {
  const cols = raw.split(',').map((c) => c.trim());
  if (cols.length === 0 || cols.some((c) => !/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(c))) {
    throw new UsageError(`invalid --columns "${printable(raw)}": expected field names separated by commas, such as timestamp,amount,token`);
  }
  return cols;
}
