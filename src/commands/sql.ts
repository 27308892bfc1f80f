import type { Command } from 'commander';
import { readFile, stat } from 'node:fs/promises';
import type { CommandAction } from '../core/runtime/action.js';
import { GateMatched, InterruptedError, UsageError } from '../core/runtime/errors.js';
import { optionSchemas, parseOption } from '../core/runtime/options.js';
import { readAll } from '../core/runtime/prompt.js';
import { stdinBringsInput } from '../core/runtime/stdin.js';
import type { Session } from '../core/runtime/session.js';
import { printable } from '../core/output/sanitize.js';
import { createWriter } from '../core/output/writer.js';
import { formatRow } from '../core/output/formats.js';
import { topCommand } from './tree.js';
import { addRowGateOptions, gatedSink, parseRowGates, type RowGates } from '../core/lists/list-gates.js';
import { mirrorExists, mirrorLocation, MIRROR_DB_FLAG, mirrorDbHelp } from '../mirror/location.js';
import type { MirrorStore } from '../mirror/engine.js';
import { openMirror } from '../mirror/open.js';
import { chainDiffText } from '../chain/differences-text.js';
import { grouped } from '../core/output/grouped.js';

// `payrec sql [QUERY]`: one read-only query over the mirror, printed through the usual
// output module (table, tab-separated when piped, json, jsonl, csv; -o atomically).
// The query comes from its argument, --file FILE, or stdin (`-`, or a pipe, a file or a
// socket with no argument, as psql and DuckDB's CLI read it). Without a query it lists the tables
// with their row counts and columns.

/** Rows a terminal table shows unless --limit or --all says (DuckDB's CLI shows 40). */
const TERMINAL_ROWS = 40;

export function addSqlCommand(program: Command, action: CommandAction): void {
  const sql = topCommand(program, 'sql')
    .argument('[query]', 'one SQL query (read-only); - reads it from stdin, as does a pipe, a file or a socket (Node\'s spawn, execa) with no query; without any, the tables, their row counts and columns')
    .option('--file <file>', 'read the query from FILE (- for stdin), as psql -f')
    .option(MIRROR_DB_FLAG, mirrorDbHelp())
    .option('--limit <n>', `most rows to print (default: every row, but the first ${TERMINAL_ROWS} in a terminal table)`)
    .option('--all', `every row, also in a terminal table`)
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
        `  $ payrec sql "SELECT token, SUM(amount) AS total FROM transfers GROUP BY token" --jq 'map({(.token): .total}) | add'`,
        '  $ payrec sql --file month-end.sql -o month-end.csv',
        `  $ echo "SELECT count(*) FROM transfers" | payrec sql`,
        '',
        `On a terminal a table shows its first ${TERMINAL_ROWS} rows and says on stderr how many more there are (--all, --limit N, or -f csv for all).`,
        'Amounts are DECIMAL(38,18) (SUM, ORDER BY and comparisons are exact), times TIMESTAMP WITH TIME ZONE shown in UTC.',
        'A total over an amount DECIMAL(38,18) cannot hold fails rather than leave it out: see SELECT * FROM inexact_amounts.',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => runSql(session, cmd), { output: true }));
  addRowGateOptions(sql);
}

interface SqlFlags {
  count?: boolean;
  failIfAny?: boolean;
  jq?: string;
  file?: string;
  db?: string;
  limit?: string;
  all?: boolean;
}

async function runSql(session: Session, cmd: Command): Promise<void> {
  const gate = cmd.opts() as SqlFlags;
  if (gate.all && gate.limit !== undefined) throw new UsageError('give either --limit or --all, not both');
  const limit = gate.limit === undefined ? undefined : parseOption(optionSchemas.limit, gate.limit, '--limit');
  const query = await queryText(session, cmd.args[0] as string | undefined, gate.file);
  if (query === undefined && (gate.count || gate.failIfAny || gate.jq !== undefined)) throw new UsageError('--count, --fail-if-any and --jq work on the rows of a query: give one');
  const gates = await parseRowGates(gate, session.format);
  const location = await mirrorLocation(session, gate.db);
  if (location.isDefault && !mirrorExists(location)) {
    throw new UsageError(`there is no mirror at ${printable(location.file)} yet`, `create it with: payrec ${session.flags.emulator ? '--emulator ' : ''}sync`);
  }
  let rows = 0;
  const target = await session.openOutput();
  // Times print, and date_trunc counts days and months, in --tz; the subscriptions view's
  // now is this command's clock (pinned with PAYREC_EMULATOR_NOW).
  const db = await openMirror(session, location, 'read', { timeZone: session.zone, now: Math.floor(session.ctx.now() / 1000) });
  try {
    if (query === undefined) {
      const output = session.output('list', ['table', 'kind', 'rows', 'columns']);
      const writer = createWriter(target.stream, output);
      for (const t of await db.describe()) await writer.write({ ...t });
      await writer.end();
    } else {
      rows = await runQuery(session, db, query, target.stream, { gates, limit, all: gate.all === true });
    }
  } finally {
    db.close();
  }
  await target.commit();
  if (gate.failIfAny && rows > 0) throw new GateMatched(rows, 'row');
}

/**
 * The query: its argument, --file FILE, or stdin (`-`, `--file -`, or a pipe or file
 * redirected into it with no argument); undefined lists the tables. A pipe that brings
 * nothing lists them too.
 */
async function queryText(session: Session, argument: string | undefined, file: string | undefined): Promise<string | undefined> {
  const { ctx } = session;
  if (argument !== undefined && file !== undefined) throw new UsageError('give the query either as an argument or with --file, not both');
  const source = file ?? argument;
  // A pipe, a file, or a socket that brings something (stdin.ts): Node's spawn and execa give a socket.
  const fromStdin = source === '-' || (source === undefined && (await stdinBringsInput(ctx)));
  let text: string | undefined;
  if (fromStdin) {
    if (ctx.stdinIsTTY) throw new UsageError('- reads the query from stdin, which is a terminal', 'pipe the query in (payrec sql - < query.sql), or give it as an argument or with --file');
    text = await readAll(ctx.stdin).catch((err: Error) => {
      throw new UsageError(`cannot read the query from stdin: ${err.message}`);
    });
    if (source === undefined && text.trim() === '') return undefined;
  } else if (file !== undefined) {
    // A named pipe would be waited on for ever (Ctrl-C too): a query file is a file; a pipe comes in on stdin.
    const found = await stat(file).catch(() => undefined);
    if (found && !found.isFile()) throw new UsageError(`--file "${printable(file)}" is not a regular file (a pipe, a device or a folder)`, 'give a file, or pipe the query in: payrec sql - < query.sql');
    text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read --file "${printable(file)}": ${err.code ?? err.message}`);
    });
  } else {
    text = argument;
  }
  if (text !== undefined && text.trim() === '') {
    const where = fromStdin ? ' (stdin brought none)' : file !== undefined ? ` (${printable(file)} holds none)` : '';
    throw new UsageError(`the query is empty${where}`, 'give one SQL query, or none to list the tables');
  }
  return text;
}

/**
 * Runs the query to its end before printing a row (MirrorStore.query): a query
 * that fails prints nothing and leaves no -o file; Ctrl-C stops it within moments,
 * also while the engine works inside one call (an aggregate), and prints nothing.
 * Prints the result (or, with `countOnly`, the number of its rows); returns that number.
 */
async function runQuery(
  session: Session,
  db: MirrorStore,
  query: string,
  out: NodeJS.WritableStream,
  o: { gates: RowGates; limit?: number; all: boolean },
): Promise<number> {
  const { signal } = session.ctx;
  const stop = () => db.interrupt();
  signal.addEventListener('abort', stop, { once: true });
  try {
    const result = await db.query(query);
    const { rows } = result;
    if (signal.aborted) throw new InterruptedError();
    if (o.gates.count) {
      out.write(`${rows}\n`);
      return rows;
    }
    const { columns } = result;
    // Column names are the query's own (`sum(t.x)`, `r.user`): never dotted paths.
    // --jq reads the JSON document -f json would print, and prints its answer instead.
    const sink = gatedSink(o.gates, out, session.output('list', columns));
    const options = sink.output;
    // A format of typed cells (a workbook) holds each column as its type says.
    const workbook = formatRow(options.format).load !== undefined;
    const writer = createWriter(sink.stream, { ...options, literalColumns: true, bigInts: true, cellKinds: workbook ? result.cellKinds() : undefined });
    // A terminal table shows its first rows (a person reads them; DuckDB's CLI does the same).
    const terminalTable = options.format === 'table' && options.tty;
    const shown = o.all ? rows : Math.min(rows, o.limit ?? (terminalTable ? TERMINAL_ROWS : rows));
    let read = 0;
    // Errors in reading the result are the query's (the engine's UsageError); an error in writing it is payrec's own.
    const chunks = result.records(session.zone, workbook);
    // chain_verdicts' chainDiff reads in CSV, tables and workbooks as --verify writes it there (`amount 9.99 → 9.98; …`).
    const diffAsText = options.format !== 'json' && options.format !== 'jsonl' && columns.includes('chainDiff');
    while (read < shown) {
      const next = await chunks.next();
      if (next.done) break;
      for (const r of next.value.slice(0, shown - read)) {
        if (diffAsText) r.chainDiff = chainDiffText(r.chainDiff);
        const draining = writer.write(r);
        if (draining) await draining;
      }
      read += Math.min(next.value.length, shown - read);
    }
    if (signal.aborted) throw new InterruptedError();
    // The library ends a stream quietly on an error: a result is whole only when every row came.
    if (read !== shown) throw new UsageError(`the query's result ended after ${read} of its ${rows} rows; nothing more was printed`);
    await writer.end();
    sink.finish();
    if (rows === 0 && !o.gates.jq) session.noteEmpty('no rows');
    // Never silently partial: what was left out is said on stderr, with the ways to get it.
    if (shown < rows) {
      const more = grouped(rows - shown);
      const ways = o.limit === undefined ? '--all, --limit N, or -f csv for every row' : '--all for every row';
      session.note(`showing ${grouped(shown)} of ${grouped(rows)} rows (${more} more); ${ways}`);
    }
    return rows;
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
