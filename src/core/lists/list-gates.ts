import type { Command } from 'commander';
import { refuseCountToFile, type ListQuery } from './list-query.js';
import { parseStatusFlags, STATUSES } from './status.js';
import { GateMatched, UsageError } from '../runtime/errors.js';
import type { Session } from '../runtime/session.js';
import type { JqFilter } from '../output/jq.js';
import { TextSink } from '../output/text-sink.js';
import { formatNamed } from '../output/formats.js';
import { createWriter } from '../output/writer.js';
import type { OutputOptions } from '../output/options.js';

// The list flags that pick and gate records (DESIGN.md "Answers finance and ops can
// sign"): --status/--failed where records carry a status, and --count, --fail-if-any,
// --jq on every list and every command that prints rows of its own (sql, fr plans,
// subscriptions, metrics).

export interface GateFlags {
  status?: string;
  failed?: boolean;
  count?: boolean;
  failIfAny?: boolean;
  jq?: string;
}

/**
 * `withStatus`: the list's records carry a `transactionStatus` (registry/outcome.ts hasStatus);
 * `billings`: all of them are billings, some (`payrec transfers`), or none.
 */
export function addGateOptions(cmd: Command, withStatus: boolean, billings: 'all' | 'some' | 'none'): void {
  const failed = {
    all: 'only failed billings (success is not 1 or status failed)',
    some: 'only failed records (--status failed; a billing also when its success is not 1)',
    none: 'only failed records (--status failed)',
  };
  if (withStatus) {
    cmd.option('--status <list>', `only records with these statuses: ${STATUSES.join(', ')} (comma-separated)`).option('--failed', failed[billings]);
  }
  addCountOptions(cmd, 'records');
  addJqOption(cmd);
}

/** --jq: on every list, and on the commands whose rows payrec computes (subscriptions, metrics). */
export function addJqOption(cmd: Command): void {
  cmd.option('--jq <expr>', 'run a jq expression on the JSON that -f json would print (strings printed raw), like gh --jq');
}

/** --count and --fail-if-any: also on `payrec sql`, where they count rows. */
export function addCountOptions(cmd: Command, what: 'records' | 'rows'): void {
  cmd
    .option('--count', `print only the number of matching ${what}`)
    .option('--fail-if-any', `exit 9 when at least one ${what.slice(0, -1)} matches (0 when none): a CI gate`);
}

/** The gate part of a ListQuery; the jq expression is compiled later (it loads jq). */
export function parseGateFlags(flags: GateFlags): Pick<ListQuery, 'statuses' | 'count' | 'failIfAny'> & { jq?: string } {
  const statuses = parseStatusFlags(flags.status, flags.failed);
  if (flags.count && flags.jq !== undefined) throw new UsageError('give either --count or --jq, not both (--jq length counts too)');
  if (flags.jq !== undefined && flags.jq.trim() === '') throw new UsageError('the --jq expression is empty', 'give a jq expression, such as ".[0]" or "map(.amount)"');
  return { statuses, count: flags.count, failIfAny: flags.failIfAny, jq: flags.jq };
}

/** --count, --fail-if-any and --jq on a command that prints rows of its own. */
export function addRowGateOptions(cmd: Command): Command {
  addCountOptions(cmd, 'rows');
  addJqOption(cmd);
  return cmd;
}

/** The gates of a command that prints its own rows, checked (and --jq compiled: it loads jq) before its work begins. */
export interface RowGates {
  count: boolean;
  failIfAny: boolean;
  jq?: JqFilter;
}

export async function parseRowGates(flags: GateFlags, format: string): Promise<RowGates> {
  const { count, failIfAny, jq } = parseGateFlags(flags);
  refuseCountToFile(count, format);
  if (jq !== undefined && formatNamed(format)?.needsFile) throw new UsageError(`--jq prints what jq answers: -f ${format} does not apply`, `leave out -f ${format}, or drop --jq to export the rows`);
  return { count: Boolean(count), failIfAny: Boolean(failIfAny), jq: jq === undefined ? undefined : await (await import('../output/jq.js')).compileJq(jq) };
}

/**
 * Where rows go under the gates: `out` with the command's output options, or, with
 * --jq, a buffer of the JSON document that -f json would print; `finish` prints jq's
 * answer over it once every row is written.
 */
export function gatedSink(gates: RowGates, out: NodeJS.WritableStream, output: OutputOptions): { stream: NodeJS.WritableStream; output: OutputOptions; finish(): void } {
  if (!gates.jq) return { stream: out, output, finish: () => {} };
  const json = new TextSink();
  const jq = gates.jq;
  return { stream: json, output: { ...output, format: 'json', tty: false }, finish: () => out.write(jq.run(json.text(), output.tty)) };
}

/**
 * Prints a command's rows through the gates (`payrec fr plans`, `subscriptions`,
 * `metrics`): the rows (to stdout or -o), their number (--count) or jq's answer over
 * the document -f json would print (--jq); then exits 9 with --fail-if-any when there
 * was any. `what` names a row in that message (`plan`); `table`, how a table (on a
 * terminal or piped) shows a row when not as the other formats do (percentages, an
 * interval's name). Returns how many rows there were.
 */
export async function printRows(
  session: Session,
  output: OutputOptions,
  gates: RowGates,
  rows: Iterable<Record<string, unknown>>,
  what: string,
  table?: (row: Record<string, unknown>) => Record<string, unknown>,
): Promise<number> {
  const target = await session.openOutput();
  let n = 0;
  if (gates.count) {
    for (const _ of rows) n++;
    target.stream.write(`${n}\n`);
  } else {
    const sink = gatedSink(gates, target.stream, output);
    const shown = sink.output.format === 'table' && table ? table : (r: Record<string, unknown>) => r;
    const writer = createWriter(sink.stream, sink.output);
    for (const r of rows) {
      await writer.write(shown(r));
      n++;
    }
    await writer.end();
    sink.finish();
  }
  await target.commit();
  if (gates.failIfAny && n > 0) throw new GateMatched(n, what);
  return n;
}
