import type { Endpoint } from '../../registry/types.js';
import { recordShape } from '../../registry/schemas.js';
import { ChartBuilder } from './chart.js';
import { GateMatched, InterruptedError } from '../runtime/errors.js';
import { terminalJson } from '../output/sanitize.js';
import { createWriter, validateColumns } from '../output/writer.js';
import { schemaFields, validateFlatten } from '../output/schema-fields.js';
import { identityOf, paginate } from './paginate.js';
import { Progress } from '../output/progress.js';
import { checkEnvelope, checkRecord, recordChecker } from './records.js';
import type { Session } from '../runtime/session.js';
import { amountFields, Summariser } from './summary.js';
import { OUTCOME_FIELD, outcomeAdder, statusLabeller, statusReader } from './status.js';
import { compileJq } from '../output/jq.js';
import { TextSink } from '../output/text-sink.js';
import type { Format } from '../output/writer.js';
import { follow } from './follow.js';
import { refuseCountWorkbook, type ListQuery, type MergedList, type WalkWindow } from './list-query.js';
import type { ApiClient } from '../http/client.js';
import { startListVerification, VERIFY_COLUMNS, verifyColumns } from '../../chain/list-verification.js';

export type { ListQuery, MergedList } from './list-query.js';

// Runs one registry endpoint: fills the path, sends the query, checks what comes
// back and streams it to the chosen output (records, a summary or a chart).

export function fillPath(endpoint: Endpoint, values: Record<string, string>): string {
  return endpoint.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(values[name]));
}

/** Records kept by both tests (either may be absent). */
function both(a: RecordTest | undefined, b: RecordTest | undefined): RecordTest | undefined {
  return a && b ? (r) => a(r) && b(r) : (a ?? b);
}
type RecordTest = (record: Record<string, unknown>) => boolean;

/** A walk of [from, to] of an endpoint's list with the command's filters; exact while records arrive when the list has a time window. */
export function endpointWalk(client: ApiClient, endpoint: Endpoint, path: string, filters: Record<string, string>): WalkWindow {
  const identity = identityOf(endpoint);
  return (window, from, to, sort) =>
    paginate(
      async ({ offset, limit, ...range }) => {
        const query = { ...filters, from: range.from ?? from, to: range.to ?? to, sort, limit, offset };
        return checkEnvelope(endpoint, await client.json({ method: 'GET', path, query }));
      },
      window,
      endpoint.timeWindow ? { sort: sort ?? 'desc', from: from ?? 0, to: to ?? Number.MAX_SAFE_INTEGER, identity } : { identity },
    );
}

export async function runEndpoint(
  session: Session,
  endpoint: Endpoint | MergedList,
  pathValues: Record<string, string>,
  filters: Record<string, string>,
  list?: ListQuery,
): Promise<void> {
  refuseCountWorkbook(list?.count, session.format);
  // --verify adds its columns to every record.
  const verifying = list?.verify ? VERIFY_COLUMNS : [];
  const outputOptions = session.output(endpoint.kind, verifying.length ? verifyColumns(endpoint.columns) : endpoint.columns);
  if ('fields' in endpoint) outputOptions.fields = [...endpoint.fields, ...verifying];
  else outputOptions.emptyHeader = [...Object.keys(recordShape(endpoint.record)), ...verifying];
  outputOptions.statusLabel = statusLabeller(endpoint);
  const outcome = outcomeAdder(endpoint);
  if (outcome && outputOptions.emptyHeader) outputOptions.emptyHeader = [...outputOptions.emptyHeader, OUTCOME_FIELD];
  if (outputOptions.columns) validateColumns(outputOptions.columns, [...schemaFields(endpoint.record), ...(outcome ? [OUTCOME_FIELD] : []), ...verifying]);
  if (outputOptions.flatten !== undefined) validateFlatten(outputOptions.flatten, endpoint.record);
  const client = await session.client(list?.window.concurrency);
  const path = 'walk' in endpoint ? endpoint.path : fillPath(endpoint, pathValues);

  if (endpoint.method === 'DELETE') {
    const body = await client.json({ method: 'DELETE', path });
    // The answer to a delete is undocumented: show it only to scripts that asked for data.
    if (body !== null && (outputOptions.format === 'json' || outputOptions.format === 'jsonl')) {
      session.ctx.stdout.write(terminalJson(body) + '\n');
    }
    if (!session.quiet) session.ctx.stderr.write(`Deleted ${path.replace(/^\//, '')}\n`);
    return;
  }

  if (endpoint.kind === 'single') {
    // Opened first: an unwritable --output must fail before anything is sent.
    const target = await session.openOutput();
    const body = await client.json({ method: endpoint.method, path });
    const record = checkRecord(endpoint, body, session);
    const writer = createWriter(target.stream, outputOptions);
    await writer.write(record);
    await writer.end();
    await target.commit();
    return;
  }

  const q = list!;
  // Compiled first: a bad expression is exit 2 before any request.
  const jq = q.jq !== undefined ? await compileJq(q.jq) : undefined;
  const byStatus = both(q.statuses ? matcher(endpoint, q.statuses) : undefined, 'keep' in endpoint ? endpoint.keep : undefined);
  // The chain's node is checked (its chain id) before the API is asked for anything.
  const verification = q.verify ? await startListVerification(session, endpoint, q.verify, pathValues, jq !== undefined || session.format === 'json' || session.format === 'jsonl') : undefined;
  const keep = byStatus ?? verification?.keep;
  const exact: WalkWindow = 'walk' in endpoint ? endpoint.walk(client) : endpointWalk(client, endpoint, path, filters);
  // --status: the API has no status filter (API-SPEC.md), so records are kept or dropped
  // here, after the paginator has made the walk exact and free of repeats; the walk
  // itself is never cut by --limit, which counts the records kept.
  /** Records read before the filter: what the progress line counts. */
  let read = 0;
  // --verify checks the records --status kept, then --verdict keeps some of them.
  const walk: WalkWindow =
    keep || verification
      ? async function* (window, from, to, sort) {
          for await (const page of exact(keep ? { ...window, limit: Infinity } : window, from, to, sort)) {
            read += page.records.length;
            let records = byStatus ? page.records.filter(byStatus) : page.records;
            if (verification) records = await verification.page(records);
            if (verification?.keep) records = records.filter(verification.keep);
            yield { records, total: page.total };
          }
        }
      : exact;

  if (q.follow) {
    await follow(session, endpoint, walk, q, outputOptions);
    return;
  }

  const w = q.window;
  const pages = walk(w, q.from, q.to, q.sort);
  const summary = q.summary ? new Summariser(endpoint) : undefined;
  const chart = q.chart ? new ChartBuilder(q.chart.period, q.chart.token, q.chart.zone, amountFields(endpoint.record)) : undefined;
  const target = await session.openOutput();
  // --jq reads the document -f json would print, then prints jq's answer in its place.
  const json = jq ? new TextSink() : undefined;
  // A node that fails half-way leaves nothing half printed: verified output is held until the walk ends.
  const held = verification && !json ? new TextSink() : undefined;
  const out = json ?? held ?? target.stream;
  const options = jq ? { ...outputOptions, format: 'json' as const, tty: false } : outputOptions;
  const writer = summary || chart || q.count ? undefined : createWriter(out, options);
  const progress = new Progress(session, w.limit === Infinity);
  const checked = recordChecker(endpoint, session);
  const check = outcome ? (r: Record<string, unknown>) => outcome(checked(r)) : checked;
  let total = 0;
  let count = 0;
  /** The walk stopped at --limit before the list ended: more records may match. */
  let cut = false;
  try {
    walking: for await (const page of pages) {
      total = page.total;
      for (const r of page.records) {
        if (count >= w.limit) {
          cut = true;
          break walking;
        }
        const record = check(r);
        if (summary) summary.add(record);
        else if (chart) chart.add(record);
        else if (writer) {
          // Only wait when the output asks to (backpressure): no microtask per record.
          const draining = writer.write(record);
          if (draining) await draining;
        }
        count++;
      }
      await progress.update(keep ? read : count, keep ? Math.max(read, total - w.offset) : Math.min(w.limit, Math.max(0, total - w.offset)));
      if (session.ctx.signal.aborted) throw new InterruptedError();
      if (keep && count >= w.limit) {
        cut = true;
        break;
      }
    }
  } finally {
    progress.stop();
  }
  if (writer) await writer.end();
  if (summary) await writeSummary(session, out, summary, jq ? 'json' : session.format, verification?.counts);
  if (chart) await writeChart(session, out, chart, jq ? 'json' : session.format, outputOptions.tty);
  if (q.count) out.write(`${count}\n`);
  if (jq) target.stream.write(jq.run(json!.text(), outputOptions.tty));
  if (held) target.stream.write(held.bytes());
  await target.commit();
  // Only --limit cuts a list short: a whole walk (--all) that read everything of its
  // window may still count fewer records than the latest total, which holds arrivals.
  cut ||= keep === undefined && count >= w.limit;
  noticeTruncation(session, { summary, chart, count, cut, filtered: keep !== undefined, available: Math.max(0, total - w.offset) });
  if (writer && count === 0) session.noteEmpty('no records match');
  if (q.failIfAny && count > 0) throw new GateMatched(count, 'record');
}

/** Keeps the records whose status is one of `statuses`. */
function matcher(endpoint: Pick<Endpoint, 'record'>, statuses: Set<string>): (r: Record<string, unknown>) => boolean {
  const statusOf = statusReader(endpoint);
  return (r) => statuses.has(statusOf(r));
}

/** A list never prints fewer records than its window holds without saying so (on a terminal or not; -q silences it). */
function noticeTruncation(
  session: Session,
  o: { summary?: Summariser; chart?: ChartBuilder; count: number; cut: boolean; filtered: boolean; available: number },
): void {
  const verb = o.summary ? 'summarised' : o.chart ? 'charted' : 'showing';
  const n = o.count.toLocaleString('en-US');
  if (o.filtered) {
    if (o.cut) session.note(`${verb} the first ${n} matching records; more may match: --all for every record`);
  } else if (o.cut && o.count < o.available) {
    session.note(`${verb} ${n} of ${o.available.toLocaleString('en-US')}; --all for every record`);
  }
}

/** Rows of payrec's own making (a summary's, a chart's) in `format`, their columns as named. */
async function writeRows(session: Session, out: NodeJS.WritableStream, format: Format, records: Record<string, unknown>[], kind: 'list' | 'single', columns: string[]): Promise<void> {
  const writer = createWriter(out, { ...session.output(kind, columns), format, columns: undefined, flatten: undefined, literalColumns: true });
  for (const r of records) await writer.write(r);
  await writer.end();
}

/** A chart: bars in a table's place (a terminal or a pipe), its series as rows in every other format. */
async function writeChart(session: Session, out: NodeJS.WritableStream, chart: ChartBuilder, format: Format, tty: boolean): Promise<void> {
  if (format === 'table') out.write(chart.render(session.ctx.columns, session.color && tty));
  else await writeRows(session, out, format, chart.series(), 'list', chart.columns());
}

/**
 * Prints a summary. json/jsonl: the whole summary (totals as rows). csv, xlsx: the totals,
 * one row per token and status with the endpoint's fixed columns. table: the counts
 * as field/value lines, then the totals as a table whose status column says what
 * each total holds.
 */
async function writeSummary(session: Session, out: NodeJS.WritableStream, s: Summariser, format: Format, verdicts?: Record<string, number>): Promise<void> {
  const result = verdicts ? { ...s.result(), verdicts } : s.result();
  const columns = ['token', 'status', 'count', ...s.fields];
  if (format === 'json' || format === 'jsonl') {
    // Token names are the server's text: escaped like every JSON we print.
    out.write(terminalJson(result, format === 'json' ? 2 : undefined) + '\n');
    return;
  }
  const rows = (records: Record<string, unknown>[], kind: 'list' | 'single', cols: string[]) => writeRows(session, out, format, records, kind, cols);
  // A file format holds one table: the totals.
  if (format === 'csv' || format === 'xlsx') return rows(result.totals, 'list', columns);
  const overview: Record<string, unknown> = { count: result.count };
  if (result.firstTimestamp !== undefined) {
    // Named so that tables show them as dates.
    overview['first.timestamp'] = result.firstTimestamp;
    overview['last.timestamp'] = result.lastTimestamp;
  }
  for (const [status, n] of Object.entries(result.statuses)) overview[`status.${status}`] = n;
  if (result.forced !== undefined) overview.forced = result.forced;
  for (const [verdict, n] of Object.entries(verdicts ?? {})) overview[`verdict.${verdict}`] = n;
  await rows([overview], 'single', Object.keys(overview));
  if (result.totals.length === 0) return;
  out.write(`\nexact totals per token and status${s.successSignal ? ' (a billing failed: success is not 1 or status failed)' : ''}:\n`);
  await rows(result.totals, 'list', columns);
}
