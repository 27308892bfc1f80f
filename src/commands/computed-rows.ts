import type { Session } from '../core/runtime/session.js';
import { GateMatched } from '../core/runtime/errors.js';
import { createWriter, type OutputOptions } from '../core/output/writer.js';
import type { JqFilter } from '../core/output/jq.js';
import { TextSink } from '../core/output/text-sink.js';

// Rows that payrec computes (the subscriptions ledger, metrics) answered as a list's
// records are (DESIGN.md "Answers finance and ops can sign"): printed in the format
// asked, or counted (--count), or run through jq (--jq, over the document -f json would
// print); --fail-if-any exits 9 when there is any.

export interface RowAnswer {
  count?: boolean;
  failIfAny?: boolean;
  jq?: JqFilter;
  /** What a row is, for the gate's message ("subscription"). */
  what: string;
  /** How the table (terminal or piped) shows a row, when not as the other formats do (percentages, an interval's name). */
  table?: (row: Record<string, unknown>) => Record<string, unknown>;
}

export async function answerRows(session: Session, rows: Record<string, unknown>[], output: OutputOptions, a: RowAnswer): Promise<void> {
  const target = await session.openOutput();
  if (a.count) target.stream.write(`${rows.length}\n`);
  else if (a.jq) {
    const sink = new TextSink();
    const writer = createWriter(sink, { ...output, format: 'json', tty: false });
    for (const r of rows) await writer.write(r);
    await writer.end();
    target.stream.write(a.jq.run(sink.text(), output.tty));
  } else {
    const shown = output.format === 'table' && a.table ? a.table : (r: Record<string, unknown>) => r;
    const writer = createWriter(target.stream, output);
    for (const r of rows) await writer.write(shown(r));
    await writer.end();
  }
  await target.commit();
  if (a.failIfAny && rows.length > 0) throw new GateMatched(rows.length, a.what);
}
