import type { z } from 'zod';
import { ApiClient } from './core/http/client.js';
import { AdaptiveWindow } from './core/http/request-window.js';
import { UsageError } from './core/runtime/errors.js';
import { identityOf, paginate } from './core/lists/paginate.js';
import { endpoints, type AnyEndpoint, type EndpointId } from './registry/endpoints.js';
import { envelope } from './registry/schemas.js';
import { MalformedResponseError } from './core/runtime/errors.js';

// The typed library: `import { createClient } from 'payrec'`. The same registry and
// HTTP client as the CLI; record types are inferred from the registry's zod schemas.

export type { EndpointId } from './registry/endpoints.js';
export { PayrecError, ApiError, NetworkError, MalformedResponseError, UsageError } from './core/runtime/errors.js';

type ById<Id extends EndpointId> = Extract<AnyEndpoint, { id: Id }>;
/** The record type of an endpoint, e.g. `RecordOf<'one-time.transfers'>`. */
export type RecordOf<Id extends EndpointId> = z.infer<ById<Id>['record']>;
export type ListEndpointId = Extract<AnyEndpoint, { kind: 'list' }>['id'];
export type GetEndpointId = Extract<AnyEndpoint, { kind: 'single'; method: 'GET' }>['id'];
/** Path parameters by name, e.g. `{ planId: '0x…' }`. */
export type PathParams<Id extends EndpointId> = { [K in ById<Id>['params'][number]['name']]: string };

export interface ClientConfig {
  apiKey: string;
  /** Default `bsc`. Keys are per chain. */
  chain?: string;
  /** Default `https://api.8pay.network`. */
  baseUrl?: string;
  timeoutMs?: number;
  retries?: number;
  signal?: AbortSignal;
}

export interface ListOptions<Id extends EndpointId> {
  params?: PathParams<Id>;
  /** Query filters by API name, e.g. `{ token: 'USDT' }`. */
  filters?: Record<string, string>;
  /** Unix seconds, inclusive. */
  from?: number;
  to?: number;
  sort?: 'asc' | 'desc';
  /** Most records to yield; default every record. */
  limit?: number;
  pageSize?: number;
  concurrency?: number;
}

function endpointOf(id: string): AnyEndpoint {
  const e = endpoints.find((x) => x.id === id);
  if (!e) throw new UsageError(`unknown endpoint "${id}"`);
  return e;
}

function fill(e: AnyEndpoint, params: Record<string, string> = {}): string {
  for (const p of e.params) {
    const r = p.schema.safeParse(params[p.name]);
    if (!r.success) throw new UsageError(`invalid ${p.name} "${params[p.name]}": ${r.error.issues[0].message}`);
  }
  return e.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name]));
}

/** The types promise the schema's shape, so a record that breaks it is an error, not a warning as in the CLI. */
function checked(e: AnyEndpoint, record: unknown): unknown {
  const r = e.record.safeParse(record);
  if (r.success) return record;
  const issue = r.error.issues[0];
  throw new MalformedResponseError(`${e.method} ${e.path}: field "${issue.path.join('.')}": ${issue.message}`);
}

export function createClient(config: ClientConfig) {
  const http = new ApiClient({
    apiKey: config.apiKey,
    chain: config.chain ?? 'bsc',
    baseUrl: config.baseUrl ?? 'https://api.8pay.network',
    timeoutMs: config.timeoutMs ?? 30_000,
    retries: config.retries ?? 3,
    signal: config.signal ?? new AbortController().signal,
    // Pages in flight find the pace, as in the CLI; a list's `concurrency` fixes them.
    window: new AdaptiveWindow(),
  });

  return {
    /** Every record of a list endpoint, page after page, in order. */
    async *list<Id extends ListEndpointId>(id: Id, options: ListOptions<Id> = {}): AsyncGenerator<RecordOf<Id>> {
      const e = endpointOf(id);
      const path = fill(e, options.params as Record<string, string> | undefined);
      for (const f of e.filters) {
        const value = options.filters?.[f.name];
        if (value !== undefined && !f.schema.safeParse(value).success) throw new UsageError(`invalid filter ${f.name} "${value}"`);
      }
      const to = options.to ?? (e.timeWindow ? Math.floor(Date.now() / 1000) : undefined);
      const query = { ...options.filters, from: options.from, to, sort: options.sort };
      // Lists with a time window are walked exactly: no record twice, none of the window missed, while records arrive;
      // the others yield a record once even when a shift brings it back.
      const ordering = e.timeWindow ? { sort: options.sort ?? 'desc', from: options.from ?? 0, to: to!, identity: identityOf(e) } : { identity: identityOf(e) };
      const pages = paginate(
        async ({ offset, limit, ...range }) => {
          const r = envelope.safeParse(await http.json({ method: 'GET', path, query: { ...query, from: range.from ?? query.from, to: range.to ?? query.to, offset, limit } }));
          if (!r.success) throw new MalformedResponseError(`GET ${e.path}: not a list envelope`);
          return r.data;
        },
        { limit: options.limit ?? Infinity, pageSize: options.pageSize ?? 1000, offset: 0, concurrency: options.concurrency ?? http.window },
        ordering,
      );
      let n = 0;
      for await (const page of pages) {
        for (const record of page.records) {
          if (n++ >= (options.limit ?? Infinity)) return;
          yield checked(e, record) as RecordOf<Id>;
        }
      }
    },

    /** One record. */
    async get<Id extends GetEndpointId>(id: Id, params: PathParams<Id>): Promise<RecordOf<Id>> {
      const e = endpointOf(id);
      return checked(e, await http.json({ method: 'GET', path: fill(e, params as Record<string, string>) })) as RecordOf<Id>;
    },

    /** Closes the kept-alive connections. */
    close: () => http.close(),
  };
}

export type PayrecClient = ReturnType<typeof createClient>;
