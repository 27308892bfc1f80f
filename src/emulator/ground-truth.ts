import { endpoints } from '../registry/endpoints.js';
import { KNOWN_CHAINS } from '../registry/validators.js';
import type { Datasets } from './datasets.js';
import type { PlanTerms, SubscriptionFacts } from './lifecycles.js';

// What a collection really holds at one moment: the yardstick that tests of exact paging
// (and of a mirror) compare payrec's output against, computed by the emulator and never
// by the code under test.

export interface GroundTruth {
  chain: string;
  collection: string;
  /** The insertion counter when the snapshot was taken. */
  seq: number;
  /** The complete current records, exactly as the API serves them, in store order (timestamp, then arrival). */
  records: Record<string, unknown>[];
  /** arrivals[i]: the counter's value when records[i] was inserted (0 for the data generated at start). */
  arrivals: number[];
}

const COLLECTIONS = [...new Set(endpoints.map((e) => e.collection))];

/** Why (chain, collection) names nothing, or undefined when it is a known collection of a known chain. */
export function unknownTarget(chain: string, collection: string): string | undefined {
  if (!(KNOWN_CHAINS as readonly string[]).includes(chain)) return `Unknown chain ${chain}: expected one of ${KNOWN_CHAINS.join(', ')}`;
  if (!COLLECTIONS.includes(collection)) return `Unknown collection ${collection}: expected one of ${COLLECTIONS.join(', ')}`;
  return undefined;
}

export function groundTruth(datasets: Datasets, chain: string, collection: string): GroundTruth {
  const unknown = unknownTarget(chain, collection);
  if (unknown !== undefined) throw new RangeError(unknown);
  const { seq, bodies, arrivals } = datasets.snapshot(chain, collection);
  return { chain, collection, seq, records: bodies.map((b) => JSON.parse(b) as Record<string, unknown>), arrivals };
}

/** The same as JSON text, joined from the stored bodies: a 300,000-record collection is not parsed to be sent. */
export function groundTruthJson(datasets: Datasets, chain: string, collection: string): string {
  const { seq, bodies, arrivals } = datasets.snapshot(chain, collection);
  return `{"chain":${JSON.stringify(chain)},"collection":${JSON.stringify(collection)},"seq":${seq},"records":[${bodies.join(',')}],"arrivals":[${arrivals.join(',')}]}`;
}

/** The fixed-recurring subscriptions of a chain, whole: what tests of subscription states and metrics compare with. */
export interface SubscriptionTruth {
  chain: string;
  /** The emulator's anchor: every generated record is stamped before it. */
  now: number;
  /** The insertion counter when the snapshot was taken (records added later are in it). */
  seq: number;
  plans: PlanTerms[];
  subscriptions: SubscriptionFacts[];
}

export interface SubscriptionFilter {
  planId?: string;
  subscriptionId?: string;
}

export function subscriptionTruth(datasets: Datasets, chain: string, filter: SubscriptionFilter = {}): SubscriptionTruth {
  const unknown = unknownTarget(chain, 'fixed-recurring/billings');
  if (unknown !== undefined) throw new RangeError(unknown);
  const world = datasets.world(chain);
  const { lifecycles } = world;
  const planId = filter.planId?.toLowerCase();
  const subscriptionId = filter.subscriptionId?.toLowerCase();
  const subs = subscriptionId !== undefined ? [lifecycles.get(subscriptionId)].filter((s) => s !== undefined) : lifecycles.subscriptions;
  return {
    chain,
    now: datasets.options.now,
    seq: datasets.seq,
    plans: world.plans['fixed-recurring'].map((p) => ({ planId: p.id, token: p.token, amount: p.amount, period: p.period })),
    subscriptions: subs.filter((s) => planId === undefined || s.plan.id === planId).map((s) => lifecycles.facts(s)),
  };
}
