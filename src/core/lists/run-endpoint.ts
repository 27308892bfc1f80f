import type { Endpoint } from '../../registry/types.js';
import { recordShape } from '../../registry/schemas.js';
import { terminalJson } from '../output/sanitize.js';
import { createWriter, validateColumns } from '../output/writer.js';
import type { OutputOptions } from '../output/options.js';
import { schemaFields, validateFlatten } from '../output/schema-fields.js';
import { checkRecord, recordChecker } from './records.js';
import type { Session } from '../runtime/session.js';
import { OUTCOME_FIELD, outcomeAdder } from '../../registry/outcome.js';
import { statusLabeller } from './status.js';
import { compileJq } from '../output/jq.js';
import { follow } from './follow.js';
import { refuseCountToFile, type ListQuery, type MergedList, type WalkWindow } from './list-query.js';
import { endpointWalk, fillPath, keptByPayrec, keptWalk } from './walk.js';
import { startEnrichers, type RecordEnricher } from './enrich.js';
import { afterTheGates, takeRecords } from './gate.js';
import { ListRender } from './render.js';

export type { ListQuery, MergedList } from './list-query.js';

// Runs one registry endpoint: fills the path, sends the query, checks what comes back
// and streams it to the chosen output. A list is walk → enrich → gate → render
// (walk.ts, enrich.ts, gate.ts, render.ts); this file puts them together.

export async function runEndpoint(
  session: Session,
  endpoint: Endpoint | MergedList,
  pathValues: Record<string, string>,
  filters: Record<string, string>,
  list?: ListQuery,
): Promise<void> {
  refuseCountToFile(list?.count, session.format);
  const enrichers = list?.enrichers ?? [];
  const outputOptions = listOutput(session, endpoint, enrichers);
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
  // walk: --status keeps records here, after the paginator has made the walk exact and
  // free of repeats (the API has no status filter, API-SPEC.md); the walk itself is
  // never cut by --limit, which counts the records kept.
  const kept = keptByPayrec(endpoint, q.statuses);
  // enrich: each enricher is ready (a chain's node checked) before the API is asked for anything.
  const started = await startEnrichers(enrichers, {
    session,
    collectionOf: 'walk' in endpoint ? (r) => endpoint.collectionOf(r) : () => endpoint.collection,
    collection: 'walk' in endpoint ? undefined : endpoint.collection,
    pathValues,
    asJson: jq !== undefined || session.format === 'json' || session.format === 'jsonl',
  });
  const filtered = kept !== undefined || started.some((e) => e.keep !== undefined);
  const exact: WalkWindow = 'walk' in endpoint ? endpoint.walk(client) : endpointWalk(client, endpoint, path, filters);
  /** Records read before the filters: what the progress line counts. */
  let read = 0;
  const walk = keptWalk(exact, kept, started, filtered, (n) => (read += n));

  if (q.follow) {
    await follow(session, endpoint, walk, q, outputOptions, client.window);
    return;
  }

  // gate, then render. Pages in flight: --concurrency, or as many as the client's window lets go while it finds the pace.
  const w = { ...q.window, concurrency: client.window };
  const pages = walk(w, q.from, q.to, q.sort);
  const render = await ListRender.open(session, endpoint, q, outputOptions, jq, started);
  const checked = recordChecker(endpoint, session);
  const outcome = outcomeAdder(endpoint);
  const check = outcome ? (r: Record<string, unknown>) => outcome(checked(r)) : checked;
  const taken = await takeRecords(session, pages, w, { filtered, read: () => read }, (r) => render.add(check(r)));
  for (const e of started) e.finish?.();
  await render.end(taken.count);
  afterTheGates(session, taken, { shown: render.shown, filtered, offset: q.window.offset, failIfAny: q.failIfAny });
}

/** The output options of a list or record: its columns, with the outcome and each enricher's fields; --columns and --flatten checked (exit 2 before any request). */
function listOutput(session: Session, endpoint: Endpoint | MergedList, enrichers: readonly RecordEnricher[]): OutputOptions {
  const added = enrichers.flatMap((e) => e.fields);
  const columns = enrichers.reduce<readonly string[]>((cols, e) => e.tableColumns(cols), endpoint.columns);
  const outputOptions = session.output(endpoint.kind, columns);
  if ('fields' in endpoint) outputOptions.fields = [...endpoint.fields, ...added];
  else outputOptions.emptyHeader = [...Object.keys(recordShape(endpoint.record)), ...added];
  outputOptions.statusLabel = statusLabeller(endpoint);
  const outcome = outcomeAdder(endpoint);
  if (outcome && outputOptions.emptyHeader) outputOptions.emptyHeader = [...outputOptions.emptyHeader, OUTCOME_FIELD];
  if (outputOptions.columns) validateColumns(outputOptions.columns, [...schemaFields(endpoint.record), ...(outcome ? [OUTCOME_FIELD] : []), ...added]);
  if (outputOptions.flatten !== undefined) validateFlatten(outputOptions.flatten, endpoint.record);
  return outputOptions;
}
