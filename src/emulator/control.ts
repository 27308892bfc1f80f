import { KNOWN_CHAINS } from '../registry/validators.js';
import { endpoints } from '../registry/endpoints.js';
import { nowSeconds } from './api-route.js';
import type { Datasets } from './datasets.js';
import type { Deliverer } from './delivery.js';
import { FaultInjector, parseFaultOptions } from './faults.js';
import type { RateLimit } from './rate-limit.js';
import { fixturesOf } from './fixtures.js';
import { groundTruthJson, subscriptionTruth, unknownTarget } from './ground-truth.js';
import type { LiveTraffic } from './live.js';
import { InvalidLiveOptions, type LiveOptions } from './live-options.js';
import { buildNotification, parseTrigger } from './notifications.js';
import type { Random } from './prng.js';
import { HttpError, json, type Reply } from './reply.js';
import { Router } from './router.js';
import { authenticate } from './auth.js';
import { currentWebhook } from './webhooks.js';
import { chainRoutes } from './chain/control.js';
import type { EmulatorChains } from './chain/network.js';
import type { RpcServer } from './chain/rpc.js';

// Control routes under /_emulator/: not part of the API, never logged or faulted; no
// key needed, except to fire an event (POST /trigger takes the chain's demo key: a page
// in the user's browser must not make the emulator post to the user's webhooks) and to
// add records (POST /records, the same). They let tests and users look inside (fixtures, request log, deliveries) and
// act on the emulator (fire events, inject faults, add records, run live traffic).

export const CONTROL_PREFIX = '/_emulator';

export interface RequestLogEntry {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  /** The client's port: requests that share it came over one keep-alive connection. */
  connection: number;
  /**
   * The insertion counter when the request was answered. The emulator is single-threaded,
   * so a record whose arrival is <= seq (see GET /_emulator/records) was visible to it.
   */
  seq: number;
  /** When it was answered (Date.now(), ms). */
  at: number;
  /**
   * When it arrived and when its answer was sent, in ms on the emulator's own monotonic
   * clock (only differences and order mean anything): the requests in flight at a moment
   * are those received before it and answered after it.
   */
  received: number;
  answered: number;
}

export interface ControlState {
  datasets: Datasets;
  deliverer: Deliverer;
  faults: FaultInjector;
  /** How far away the API seems: every API request waits this long before it is handled. */
  latencyMs: number;
  /** Requests a second beyond which the API answers 429 (none: no limit). */
  rateLimit?: RateLimit;
  live: LiveTraffic;
  requests: RequestLogEntry[];
  /** Drives notification content, so a run of triggers is reproducible. */
  random: Random;
  /** The chains of the records, and their JSON-RPC (/rpc/<chain>). */
  chains: EmulatorChains;
  rpc: RpcServer;
}

export interface ControlRequest {
  query: URLSearchParams;
  body: Record<string, unknown>;
  /** The Authorization header. */
  authorization?: string;
}

type ControlHandler = (req: ControlRequest) => Reply;

const isKnownChain = (chain: unknown): chain is string => typeof chain === 'string' && (KNOWN_CHAINS as readonly string[]).includes(chain);

export function controlRouter(state: ControlState): Router<ControlHandler> {
  const router = new Router<ControlHandler>();
  const route = (method: string, path: string, handler: ControlHandler) => router.add(method, `${CONTROL_PREFIX}${path}`, handler);

  route('GET', '/fixtures', ({ query }) => {
    const chain = query.get('chain');
    if (chain === null) throw new HttpError(400, `Missing chain: expected ?chain=${KNOWN_CHAINS.join('|')}`);
    if (!isKnownChain(chain)) throw new HttpError(404, `Unknown chain ${chain}`);
    return json(200, fixturesOf(state.datasets.world(chain)));
  });

  route('GET', '/requests', () => json(200, state.requests));
  route('DELETE', '/requests', () => {
    state.requests.length = 0;
    return json(200, { cleared: true });
  });

  route('GET', '/deliveries', () => json(200, state.deliverer.attempts));
  route('DELETE', '/deliveries', () => {
    state.deliverer.attempts.length = 0;
    return json(200, { cleared: true });
  });

  route('GET', '/faults', () => json(200, state.faults.current ?? null));
  route('POST', '/faults', ({ body }) => {
    state.faults.configure(parseFaultOptions(body));
    return json(200, state.faults.current);
  });
  route('DELETE', '/faults', () => {
    state.faults.configure(undefined);
    return json(200, { cleared: true });
  });

  route('POST', '/trigger', ({ body, authorization }) => {
    if (isKnownChain(body.chain)) authenticate(authorization, body.chain);
    return json(200, trigger(state, body));
  });

  route('POST', '/records', ({ body, authorization }) => {
    const { chain, collection, count = 1, timestamp = nowSeconds() } = body;
    if (!isKnownChain(chain)) throw new HttpError(400, `Invalid chain: expected one of ${KNOWN_CHAINS.join(', ')}`);
    // The chain's demo key, as /trigger: a page in a browser (or another user's script) cannot add records unasked.
    authenticate(authorization, chain);
    if (typeof collection !== 'string' || !state.datasets.canAppend(collection)) {
      const names = [...new Set(endpoints.map((e) => e.collection))].filter((c) => state.datasets.canAppend(c));
      throw new HttpError(400, `Invalid collection: expected one of ${names.join(', ')}`);
    }
    if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > 100_000) {
      throw new HttpError(400, 'Invalid count: expected an integer from 1 to 100000');
    }
    if (!Number.isInteger(timestamp) || (timestamp as number) < 0) throw new HttpError(400, 'Invalid timestamp: expected Unix seconds');
    const total = state.datasets.append(chain, collection, count as number, timestamp as number);
    return json(201, { appended: count, total });
  });

  // The ground truth: a collection's complete current records, as tests compare them.
  route('GET', '/records', ({ query }) => {
    const chain = query.get('chain');
    const collection = query.get('collection');
    if (chain === null || collection === null) {
      throw new HttpError(400, `Missing ${chain === null ? 'chain' : 'collection'}: expected ?chain=bsc&collection=one-time/transfers`);
    }
    const unknown = unknownTarget(chain, collection);
    if (unknown !== undefined) throw new HttpError(404, unknown);
    return { status: 200, body: groundTruthJson(state.datasets, chain, collection) };
  });

  // The fixed-recurring subscriptions' facts (terms, start, cancellation, billings): ground truth of states and metrics.
  route('GET', '/subscriptions', ({ query }) => {
    const chain = query.get('chain');
    if (chain === null) throw new HttpError(400, `Missing chain: expected ?chain=${KNOWN_CHAINS.join('|')}`);
    if (!isKnownChain(chain)) throw new HttpError(404, `Unknown chain ${chain}`);
    const filter = { planId: query.get('planId') ?? undefined, subscriptionId: query.get('subscriptionId') ?? undefined };
    return json(200, subscriptionTruth(state.datasets, chain, filter));
  });

  for (const [method, path, handler] of chainRoutes(state)) route(method, path, handler);

  route('GET', '/live', () => json(200, state.live.status()));
  route('POST', '/live', ({ body }) => {
    try {
      state.live.start(body as unknown as LiveOptions);
    } catch (err) {
      if (err instanceof InvalidLiveOptions) throw new HttpError(400, err.message);
      throw err;
    }
    return json(200, state.live.status());
  });
  route('DELETE', '/live', () => {
    state.live.stop();
    return json(200, state.live.status());
  });

  return router;
}

/**
 * Fires an event: stores the notification (GET /v1/:chain/webhook-notifications/:id) and,
 * when the plan has a webhook, delivers it in the background. The answer does not wait:
 * `delivered` is "pending" then, and GET /_emulator/deliveries shows the attempts.
 */
function trigger(state: ControlState, body: Record<string, unknown>) {
  const request = parseTrigger(body, (chain) => (isKnownChain(chain) ? state.datasets.world(chain) : undefined));
  const { datasets } = state;
  const world = datasets.world(request.chain);
  const timestamp = nowSeconds();
  const notification = buildNotification(world, state.random, request, planExtra(datasets, request.chain, request.planId), timestamp);
  datasets.insert(request.chain, 'webhook-notifications', {
    timestamp,
    record: notification,
    internal: { notificationId: notification.id },
  });
  const target = () => currentWebhook(datasets, request.chain, request.planId);
  if (target() === undefined) return { notification, delivered: false };
  void state.deliverer.deliver({
    notificationId: notification.id,
    chain: request.chain,
    planId: request.planId,
    body: JSON.stringify(notification),
    target,
  });
  return { notification, delivered: 'pending' as const };
}

/** The extra parameters of the plan's most recent short url that has some (any owner, any product). */
function planExtra(datasets: Datasets, chain: string, planId: string): Record<string, string> {
  const collections = new Set(endpoints.filter((e) => e.collection.endsWith('/short-urls')).map((e) => e.collection));
  for (const collection of collections) {
    const store = datasets.store(chain, collection);
    for (const pos of store.findAll([{ field: 'planId', value: planId }]).reverse()) {
      const extra = (JSON.parse(store.body(pos)) as { params?: { extra?: Record<string, string> } }).params?.extra;
      if (extra && Object.keys(extra).length > 0) return extra;
    }
  }
  return {};
}
