import type { Endpoint } from '../../registry/types.js';
import { ChartBuilder } from './chart.js';
import { InterruptedError } from '../runtime/errors.js';
import { terminalJson } from '../output/sanitize.js';
import { createWriter, schemaFields, validateColumns, validateFlatten } from '../output/writer.js';
import { identityOf, paginate } from './paginate.js';
import { Progress } from '../output/progress.js';
import { checkEnvelope, checkRecord, recordChecker } from './records.js';
import type { Session } from '../runtime/session.js';
import { Summariser } from './summary.js';
import { follow } from './follow.js';
import type { ListQuery, MergedList, WalkWindow } from './list-query.js';
import type { ApiClient } from '../http/client.js';

export type { ListQuery, MergedList } from './list-query.js';

// Runs one registry endpoint: fills the path, sends the query, checks what comes
// back and streams it to the chosen output (records, a summary or a chart).

export function fillPath(endpoint: Endpoint, values: Record<string, string>): string {
  return endpoint.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(values[name]));
}

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
  const outputOptions = session.output(endpoint.kind, endpoint.columns);
  if ('fields' in endpoint) outputOptions.fields = endpoint.fields;
  if (outputOptions.columns) validateColumns(outputOptions.columns, schemaFields(endpoint.record));
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
  const walk: WalkWindow = 'walk' in endpoint ? endpoint.walk(client) : endpointWalk(client, endpoint, path, filters);

  if (q.follow) {
    await follow(session, endpoint, walk, q, outputOptions);
    return;
  }

  const w = q.window;
  const pages = walk(w, q.from, q.to, q.sort);
  const summary = q.summary ? new Summariser() : undefined;
  const chart = q.chart ? new ChartBuilder(q.chart.period, q.chart.token) : undefined;
  const target = await session.openOutput();
  const writer = summary || chart ? undefined : createWriter(target.stream, outputOptions);
  const progress = new Progress(session, w.limit === Infinity);
  const check = recordChecker(endpoint, session);
  let total = 0;
  let count = 0;
  try {
    for await (const page of pages) {
      total = page.total;
      for (const r of page.records) {
        if (count >= w.limit) break;
        const record = check(r);
        if (summary) summary.add(record);
        else if (chart) chart.add(record);
        else {
          // Only wait when the output asks to (backpressure): no microtask per record.
          const draining = writer!.write(record);
          if (draining) await draining;
        }
        count++;
      }
      await progress.update(count, Math.min(w.limit, Math.max(0, total - w.offset)));
      if (session.ctx.signal.aborted) throw new InterruptedError();
    }
  } finally {
    progress.stop();
  }
  if (writer) await writer.end();
  if (summary) await writeSummary(session, target.stream, summary);
  if (chart) target.stream.write(chart.render(session.ctx.columns, session.color && outputOptions.tty));
  await target.commit();
  const available = Math.max(0, total - w.offset);
  if (count < available) {
    const verb = summary ? 'summarised' : chart ? 'charted' : 'showing';
    session.notice(`${verb} ${count.toLocaleString('en-US')} of ${available.toLocaleString('en-US')} (use --limit N or --all for more)`);
  }
}

async function writeSummary(session: Session, out: NodeJS.WritableStream, s: Summariser): Promise<void> {
  const result = s.result();
  const format = session.format;
  if (format === 'json' || format === 'jsonl') {
    // Token names are the server's text: escaped like every JSON we print.
    out.write(terminalJson(result, format === 'json' ? 2 : undefined) + '\n');
    return;
  }
  // Other formats: one flat field/value record through the output module.
  const flat: Record<string, unknown> = { count: result.count };
  if (result.firstTimestamp !== undefined) {
    // Named so that tables show them as dates.
    flat['first.timestamp'] = result.firstTimestamp;
    flat['last.timestamp'] = result.lastTimestamp;
  }
  for (const [status, n] of Object.entries(result.statuses)) flat[`status.${status}`] = n;
  if (result.succeeded !== undefined) Object.assign(flat, { succeeded: result.succeeded, failed: result.failed });
  if (result.forced !== undefined) flat.forced = result.forced;
  for (const [token, fields] of Object.entries(result.totals)) {
    for (const [field, value] of Object.entries(fields)) flat[`total.${token}.${field}`] = value;
  }
  const options = session.output('single', Object.keys(flat));
  const writer = createWriter(out, { ...options, columns: undefined, flatten: undefined });
  await writer.write(flat);
  await writer.end();
}
