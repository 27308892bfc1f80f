import type { Endpoint } from '../registry/types.js';
import { schemaFields, validateColumns, createWriter } from './output.js';
import { paginate, type PageWindow } from './paginate.js';
import { checkEnvelope, checkRecord } from './records.js';
import type { Session } from './session.js';

// Runs one registry endpoint: fills the path, sends the query, checks what comes
// back and streams it to the chosen output.

export interface ListQuery {
  window: PageWindow;
  from?: number;
  to?: number;
  sort?: 'asc' | 'desc';
}

export function fillPath(endpoint: Endpoint, values: Record<string, string>): string {
  return endpoint.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(values[name]));
}

export async function runEndpoint(
  session: Session,
  endpoint: Endpoint,
  pathValues: Record<string, string>,
  filters: Record<string, string>,
  list?: ListQuery,
): Promise<void> {
  const outputOptions = session.output(endpoint.kind, endpoint.columns);
  if (outputOptions.columns) validateColumns(outputOptions.columns, schemaFields(endpoint.record));
  const client = await session.client();
  const path = fillPath(endpoint, pathValues);

  if (endpoint.method === 'DELETE') {
    const body = await client.json({ method: 'DELETE', path });
    // The answer to a delete is undocumented: show it only to scripts that asked for data.
    if (body !== null && (outputOptions.format === 'json' || outputOptions.format === 'jsonl')) {
      session.ctx.stdout.write(JSON.stringify(body) + '\n');
    }
    if (!session.quiet) session.ctx.stderr.write(`Deleted ${path.replace(/^\//, '')}\n`);
    return;
  }

  if (endpoint.kind === 'single') {
    const body = await client.json({ method: endpoint.method, path });
    const record = checkRecord(endpoint, body, session);
    const target = await session.openOutput();
    const writer = createWriter(target.stream, outputOptions);
    await writer.write(record);
    await writer.end();
    await target.commit();
    return;
  }

  const w = list!.window;
  const query = { ...filters, from: list!.from, to: list!.to, sort: list!.sort };
  const pages = paginate(
    async ({ offset, limit }) => checkEnvelope(endpoint, await client.json({ method: 'GET', path, query: { ...query, limit, offset } })),
    w,
  );
  const target = await session.openOutput();
  const writer = createWriter(target.stream, outputOptions);
  let total = 0;
  let count = 0;
  for await (const page of pages) {
    total = page.total;
    for (const r of page.records) {
      if (count >= w.limit) break;
      await writer.write(checkRecord(endpoint, r, session));
      count++;
    }
  }
  await writer.end();
  await target.commit();
  const available = Math.max(0, total - w.offset);
  if (count < available) {
    session.notice(`showing ${count.toLocaleString('en-US')} of ${available.toLocaleString('en-US')} (use --limit N or --all for more)`);
  }
}
