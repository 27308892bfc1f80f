import type { Endpoint } from '../../registry/types.js';
import type { ApiClient } from '../http/client.js';
import type { MergedList, WalkWindow } from './list-query.js';
import { identityOf, paginate } from './paginate.js';
import { checkEnvelope } from './records.js';
import { statusReader } from './status.js';
import { enrichPage, type PageEnricher } from './enrich.js';

// The first step of a list (walk → enrich → gate → render): the pages of records the
// API holds in the window, exact while records arrive (the paginator), the records
// payrec keeps itself before anything else sees them (--status: the API has no status
// filter; a merged list's own filter), and each page through the enrichers (enrich.ts).

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

export type RecordTest = (record: Record<string, unknown>) => boolean;

/**
 * The records payrec keeps of those walked, before any enricher sees them: those whose
 * status is one of `statuses` (--status, --failed), and those a merged list keeps
 * itself (a filter one of its lists lacks in the API). Undefined when it keeps all.
 */
export function keptByPayrec(endpoint: Endpoint | MergedList, statuses: Set<string> | undefined): RecordTest | undefined {
  return both(statuses ? matcher(endpoint, statuses) : undefined, 'keep' in endpoint ? endpoint.keep : undefined);
}

/** Records kept by both tests (either may be absent). */
function both(a: RecordTest | undefined, b: RecordTest | undefined): RecordTest | undefined {
  return a && b ? (r) => a(r) && b(r) : (a ?? b);
}

/** Keeps the records whose status is one of `statuses`. */
function matcher(endpoint: Pick<Endpoint, 'record'>, statuses: Set<string>): RecordTest {
  const statusOf = statusReader(endpoint);
  return (r) => statuses.has(statusOf(r));
}

/**
 * The walk the gates read: `exact` with payrec's own filter (`kept`) and the enrichers
 * applied to each page; `read` is told how many records each page held before either.
 * `filtered`: some records are dropped (by `kept` or an enricher's keep), so the walk is
 * never cut by --limit, which counts the records kept (gate.ts).
 */
export function keptWalk(exact: WalkWindow, kept: RecordTest | undefined, enrichers: readonly PageEnricher[], filtered: boolean, read: (n: number) => void): WalkWindow {
  if (!kept && enrichers.length === 0) return exact;
  return async function* (window, from, to, sort) {
    for await (const page of exact(filtered ? { ...window, limit: Infinity } : window, from, to, sort)) {
      read(page.records.length);
      const records = await enrichPage(kept ? page.records.filter(kept) : page.records, enrichers);
      yield { records, total: page.total };
    }
  };
}
