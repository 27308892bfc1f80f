import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import type { CommandAction } from '../core/runtime/action.js';
import { GateMatched, InterruptedError, UsageError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { neutraliseTerminal, printable } from '../core/output/sanitize.js';
import { createWriter } from '../core/output/writer.js';
import { topCommand } from './tree.js';
import { addCountOptions } from './list-gates.js';
import { refuseCountWorkbook } from '../core/lists/list-query.js';
import { mirrorLocation } from '../mirror/location.js';
import { describeMirror } from '../mirror/describe.js';
import { cellKinds, resultRecords } from '../mirror/results.js';
import { MirrorDb, openOptions } from '../mirror/store.js';

// `payrec sql [QUERY]`: one read-only query over the mirror, printed through the usual
// output module (table, tab-separated when piped, json, jsonl, csv; -o atomically).
// Without a query it lists the tables with their row counts and columns.

export function addSqlCommand(program: Command, action: CommandAction): void {
  const sql = topCommand(program, 'sql')
    .argument('[query]', 'one SQL query (read-only); without it, the tables, their row counts and columns')
    .option('--db <file>', 'the mirror file (env PAYREC_DB; default <XDG data dir>/payrec/<profile>.duckdb, emulator.duckdb with --emulator)')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ payrec sql',
        `  $ payrec sql "SELECT token, count(*) AS n, SUM(amount) AS total FROM transfers GROUP BY token ORDER BY token"`,
        `  $ payrec sql "SELECT planId, date_trunc('month', timestamp) AS month, count(*) FILTER (WHERE success <> 1 OR transactionStatus = 'failed') AS failed FROM fixed_recurring_billings GROUP BY ALL ORDER BY ALL"`,
        `  $ payrec sql "SELECT * FROM transfers WHERE transactionStatus = 'failed'" -f csv -o failed.csv`,
        `  $ payrec sql "SELECT * FROM transfers WHERE transactionStatus = 'failed'" --fail-if-any --count`,
        '',
        'Amounts are DECIMAL(38,18) (SUM, ORDER BY and comparisons are exact), times TIMESTAMP WITH TIME ZONE shown in UTC.',
        'A total over an amount DECIMAL(38,18) cannot hold fails rather than leave it out: see SELECT * FROM inexact_amounts.',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => runSql(session, cmd), { output: true }));
  addCountOptions(sql, 'rows');
}

async function runSql(session: Session, cmd: Command): Promise<void> {
  const query = cmd.args[0] as string | undefined;
  if (query !== undefined && query.trim() === '') throw new UsageError('the query is empty', 'give one SQL query, or none to list the tables');
  const gate = cmd.opts() as { count?: boolean; failIfAny?: boolean };
  if (query === undefined && (gate.count || gate.failIfAny)) throw new UsageError('--count and --fail-if-any count the rows of a query: give one');
  refuseCountWorkbook(gate.count, session.format);
  const location = await mirrorLocation(session, (cmd.opts() as { db?: string }).db);
  if (location.isDefault && !existsSync(location.file)) {
    throw new UsageError(`there is no mirror at ${printable(location.file)} yet`, `create it with: payrec ${session.flags.emulator ? '--emulator ' : ''}sync`);
  }
  let rows = 0;
  const target = await session.openOutput();
  // Times print, and date_trunc counts days and months, in --tz.
  const db = await MirrorDb.open(location.file, 'read', { ...openOptions(session), timeZone: session.zone });
  try {
    if (query === undefined) {
      const output = session.output('list', ['table', 'kind', 'rows', 'columns']);
      const writer = createWriter(target.stream, output);
      for (const t of await describeMirror(db)) await writer.write({ ...t });
      await writer.end();
    } else {
      rows = await runQuery(session, db, query, target.stream, gate.count === true);
    }
  } finally {
    db.close();
  }
  await target.commit();
  if (gate.failIfAny && rows > 0) throw new GateMatched(rows, 'row');
}

/**
 * Runs the query to its end before printing a row (MirrorDb.completeResult): a query
 * that fails prints nothing and leaves no -o file; Ctrl-C stops it within moments,
 * also while DuckDB works inside one call (an aggregate), and prints nothing.
 * Prints the result (or, with `countOnly`, the number of its rows); returns that number.
 */
async function runQuery(session: Session, db: MirrorDb, query: string, out: NodeJS.WritableStream, countOnly: boolean): Promise<number> {
  const { signal } = session.ctx;
  const stop = () => db.interrupt();
  signal.addEventListener('abort', stop, { once: true });
  try {
    const { result, rows } = await asUsage(async () => db.completeResult(query, await db.readKind(query)), signal);
    if (signal.aborted) throw new InterruptedError();
    if (countOnly) {
      out.write(`${rows}\n`);
      return rows;
    }
    const columns = result.deduplicatedColumnNames();
    // Column names are the query's own (`sum(t.x)`, `r.user`): never dotted paths.
    const options = session.output('list', columns);
    const workbook = options.format === 'xlsx';
    const writer = createWriter(out, { ...options, literalColumns: true, bigInts: true, cellKinds: workbook ? cellKinds(result, columns) : undefined });
    let read = 0;
    // Only reading the result is DuckDB's: an error in writing it is payrec's own, never "the query failed".
    const chunks = resultRecords(result, columns, session.zone, workbook);
    for (;;) {
      const next = await asUsage(() => chunks.next(), signal);
      if (next.done) break;
      for (const r of next.value) {
        const draining = writer.write(r);
        if (draining) await draining;
      }
      read += next.value.length;
    }
    if (signal.aborted) throw new InterruptedError();
    // The library ends a stream quietly on an error: a result is whole only when every row came.
    if (read !== rows) throw new UsageError(`the query's result ended after ${read} of its ${rows} rows; nothing more was printed`);
    await writer.end();
    if (rows === 0) session.noteEmpty('no rows');
    return rows;
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/** DuckDB's errors about the query become exit 2 with its message (a write says the mirror is read-only here). */
async function asUsage<T>(work: () => Promise<T>, signal: AbortSignal): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof UsageError || err instanceof InterruptedError) throw err;
    if (signal.aborted) throw new InterruptedError();
    const message = err instanceof Error ? err.message : String(err);
    if (/read-only mode|file system operations are disabled/i.test(message)) {
      throw new UsageError(`payrec sql only reads: ${neutraliseTerminal(message.split('\n')[0])}`, 'the mirror changes only through payrec sync; export results with -o FILE');
    }
    if (/interrupted/i.test(message)) throw new InterruptedError();
    throw new UsageError(`the query failed: ${neutraliseTerminal(message.split('\n')[0])}`, firstHint(message));
  }
}

/** DuckDB's LINE/caret lines are useful for syntax errors: keep the hint short. */
function firstHint(message: string): string | undefined {
  if (/No function matches the given name and argument types 'sum\(VARCHAR\)'|exact_sum|_exact/.test(message)) {
    return 'amounts are DECIMAL(38,18): total them with SUM(amount) (a mirror made by an older payrec becomes so at its next payrec sync)';
  }
  return undefined;
}
