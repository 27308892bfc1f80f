import chalk from 'chalk';
import { setFlagsFromString } from 'node:v8';
import { openAtomic } from '../output/atomic-file.js';
import { ConfigStore } from '../config/config-store.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import { ApiClient } from '../http/client.js';
import { optionSchemas, parseOption } from './options.js';
import { parseTime } from './time.js';
import type { OutputOptions } from '../output/writer.js';
import { requireKey, resolveSettings, type Settings } from '../config/settings.js';
import { hasControlCharacters, neutraliseTerminal, printable } from '../output/sanitize.js';

// One run of one command: the global options, parsed once, and what they lead to
// (settings, the HTTP client, where output goes). Commands get everything from here.

/** Global flags as commander hands them over (strings, before validation). */
export interface GlobalFlags {
  profile?: string;
  chain?: string;
  baseUrl?: string;
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
  strict?: boolean;
}

export interface OutputTarget {
  stream: NodeJS.WritableStream;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export class Session {
  readonly store: ConfigStore;
  readonly format: OutputOptions['format'];
  readonly columns?: string[];
  readonly quiet: boolean;
  readonly color: boolean;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private settingsP?: Promise<Settings>;
  private clientP?: Promise<ApiClient>;
  private cleanups: (() => Promise<void>)[] = [];
  private warned = new Set<string>();

  constructor(
    readonly ctx: Context,
    readonly flags: GlobalFlags,
  ) {
    this.store = new ConfigStore(ctx.env);
    const envFormat = ctx.env.PAYREC_FORMAT;
    this.format = parseOption(optionSchemas.format, flags.format ?? envFormat ?? 'table', '--format');
    this.columns = flags.columns === undefined ? undefined : parseColumns(flags.columns);
    this.quiet = Boolean(flags.quiet);
    // --no-color, NO_COLOR (any value) and a non-terminal all turn colour off.
    this.color = flags.color !== false && !('NO_COLOR' in ctx.env) && ctx.stdoutIsTTY;
    chalk.level = this.color ? chalk.level || 1 : 0;
    this.timeoutMs = parseOption(optionSchemas.timeout, flags.timeout ?? '30', '--timeout') * 1000;
    this.retries = parseOption(optionSchemas.retries, flags.retries ?? '3', '--retries');
    if (flags.output !== undefined && (flags.output === '' || hasControlCharacters(flags.output))) {
      throw new UsageError(`invalid --output "${printable(flags.output)}": expected a file path without control characters`);
    }
  }

  settings(): Promise<Settings> {
    this.settingsP ??= this.loadSettings();
    return this.settingsP;
  }

  private async loadSettings(): Promise<Settings> {
    const s = await resolveSettings(this.flags, this.ctx.env, this.store);
    if (!this.flags.emulator) return s;
    // --emulator: an in-process emulator on an ephemeral loopback port, with its demo key.
    const { startEmulator } = await import('../../emulator/index.js');
    // PAYREC_EMULATOR_NOW anchors its data at a fixed day, so examples print the same every day.
    const anchor = this.ctx.env.PAYREC_EMULATOR_NOW;
    const now = anchor === undefined ? undefined : parseTime(anchor, this.ctx.now(), 'PAYREC_EMULATOR_NOW');
    const emulator = await startEmulator({ port: 0, now });
    this.cleanups.push(() => emulator.close());
    return { ...s, baseUrl: emulator.url, apiKey: emulator.keyFor(s.chain), sources: { ...s.sources, baseUrl: 'flag', apiKey: 'flag' } };
  }

  /**
   * The HTTP client of this run; `connections`: pages fetched at once (lists with --all);
   * `smallHeap`: keep V8's heap small (see tuneMemory), false for a sync.
   */
  client(connections?: number, smallHeap = true): Promise<ApiClient> {
    this.clientP ??= this.settings().then((s) => {
      tuneMemory(smallHeap);
      const client = new ApiClient({
        baseUrl: s.baseUrl,
        chain: s.chain,
        apiKey: this.flags.dryRun ? '' : requireKey(s),
        timeoutMs: this.timeoutMs,
        retries: this.retries,
        connections,
        signal: this.ctx.signal,
        debug: this.flags.debug ? (line) => this.ctx.stderr.write(`debug: ${neutraliseTerminal(line)}\n`) : undefined,
        onRetry: (m) => this.notice(m),
        dryRun: this.flags.dryRun ? (curl) => this.ctx.stdout.write(curl + '\n') : undefined,
      });
      this.cleanups.push(() => client.close());
      return client;
    });
    return this.clientP;
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
      tty: this.ctx.stdoutIsTTY && !this.flags.output,
      color: this.color && !this.flags.output,
      width: this.ctx.columns,
    };
  }

  /** stdout, or --output FILE written atomically. */
  async openOutput(): Promise<OutputTarget> {
    const file = this.flags.output;
    if (!file) {
      return { stream: this.ctx.stdout, commit: async () => {}, abort: async () => {} };
    }
    try {
      const target = await openAtomic(file);
      this.cleanups.unshift(() => target.abort());
      return target;
    } catch (err) {
      throw new UsageError(`cannot write --output "${printable(file)}": ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  }

  /**
   * A warning for the user: stderr, once per distinct text, silenced by --quiet.
   * Warnings name what a server sent (fields, messages), so they are neutralised.
   */
  warn(message: string): void {
    if (this.quiet || this.warned.has(message)) return;
    this.warned.add(message);
    this.ctx.stderr.write(`warning: ${neutraliseTerminal(message)}\n`);
  }

  /** Progress and hints: only for a person at a terminal (they may quote a server: a retried status, a link). */
  notice(message: string): void {
    if (this.quiet || !this.ctx.stderrIsTTY) return;
    this.ctx.stderr.write(neutraliseTerminal(message) + '\n');
  }

  async close(): Promise<void> {
    for (const c of this.cleanups.splice(0)) await c().catch(() => {});
  }
}

function parseColumns(raw: string): string[] {
  const cols = raw.split(',').map((c) => c.trim());
  if (cols.length === 0 || cols.some((c) => !/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(c))) {
    throw new UsageError(`invalid --columns "${printable(raw)}": expected field names separated by commas, such as timestamp,amount,token`);
  }
  return cols;
}

/**
 * Peak memory of a long `--all` export (measured by test/bench: 1,000,000 records).
 * V8's optimising compiler takes ~35 MB to compile undici's WebAssembly HTTP parser,
 * more than the export itself; the baseline compiler parses pages as fast here. And
 * the records of each page die young, but V8 lets the old generation grow far past
 * the small live set (~20 MB) between full collections; a growth of 20 % keeps the
 * peak flat at no measurable CPU cost to an export. Not for a sync: its memory is
 * DuckDB's, and the extra full collections cost a first sync of 300,000 transfers
 * about 0.25 s (test/bench/mirror.mjs). Set before the first request compiles the parser.
 */
function tuneMemory(smallHeap: boolean): void {
  setFlagsFromString('--liftoff-only');
  if (smallHeap) setFlagsFromString('--heap-growing-percent=20');
}
