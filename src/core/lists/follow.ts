import type { Endpoint } from '../../registry/types.js';
import type { Envelope } from '../../registry/schemas.js';
import { InterruptedError } from '../runtime/errors.js';
import { createWriter, type OutputOptions, type RecordWriter } from '../output/writer.js';
import { paginate } from './paginate.js';
import { checkRecord } from './records.js';
import type { ListQuery } from './list-query.js';
import type { Session } from '../runtime/session.js';

// --follow: poll for new records and print each one once (like `stripe logs tail`).
// Each poll asks for everything from the newest timestamp seen (inclusive, oldest
// first); records already printed are recognised by their identity fields.

type FetchPage = (query: Record<string, string | number | undefined>, offset: number, limit: number) => Promise<Envelope>;

export async function follow(session: Session, endpoint: Endpoint, fetchPage: FetchPage, q: ListQuery, options: OutputOptions): Promise<void> {
  const { ctx } = session;
  let cursor = q.from ?? Math.floor(ctx.now() / 1000);
  /** Identities printed at the cursor's second or later: a later poll may repeat them. */
  let seen = new Map<string, number>();
  const identity = (r: Record<string, unknown>) => endpoint.identity.map((f) => JSON.stringify(r[f])).join('|');

  const target = await session.openOutput();
  // A table on a terminal is drawn per batch; other formats stream into one document.
  const perBatch = options.format === 'table' && options.tty;
  let writer: RecordWriter | undefined = perBatch ? undefined : createWriter(target.stream, options);
  session.notice(`Waiting for new ${endpoint.command.join(' ')} since ${new Date(cursor * 1000).toISOString()} (every ${q.follow!.intervalMs / 1000} s; Ctrl-C to stop)`);

  try {
    while (!ctx.signal.aborted) {
      const to = Math.floor(ctx.now() / 1000);
      const pages = paginate(({ offset, limit }) => fetchPage({ from: cursor, to, sort: 'asc' }, offset, limit), {
        limit: Infinity,
        pageSize: 1000,
        offset: 0,
        concurrency: 1,
      });
      const fresh: Record<string, unknown>[] = [];
      for await (const page of pages) {
        for (const raw of page.records) {
          const r = checkRecord(endpoint, raw, session);
          const id = identity(r);
          if (seen.has(id)) continue;
          seen.set(id, typeof r.timestamp === 'number' ? r.timestamp : cursor);
          fresh.push(r);
        }
      }
      if (fresh.length) {
        const batch = perBatch ? createWriter(target.stream, options) : writer!;
        for (const r of fresh) await batch.write(r);
        if (perBatch) await batch.end();
        cursor = Math.max(cursor, ...fresh.map((r) => (typeof r.timestamp === 'number' ? r.timestamp : cursor)));
        seen = new Map([...seen].filter(([, ts]) => ts >= cursor));
      }
      await sleep(q.follow!.intervalMs, ctx.signal);
    }
  } catch (err) {
    if (!(err instanceof InterruptedError) && !ctx.signal.aborted) throw err;
  }
  // Ctrl-C is how following ends: close the document, keep what was written.
  if (writer) await writer.end();
  await target.commit();
  writer = undefined;
  throw new InterruptedError();
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}
