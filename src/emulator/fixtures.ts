import { DOC_NOTIFICATION } from './doc-examples.js';
import * as val from './values.js';
import type { SubscriptionProduct, World } from './world.js';

// The ids and values that exist in a chain's generated data, for tests and README
// examples: every list here names records that the matching filter returns.

export interface Fixtures {
  chain: string;
  /** The demo key of the chain. */
  apiKey: string;
  plans: Record<SubscriptionProduct, string[]>;
  subscriptions: Record<SubscriptionProduct, string[]>;
  strategies: string[];
  schedules: string[];
  /** The first (up to) ten ids of each payment collection. */
  oneTimePayments: string[];
  walletToWalletPayments: string[];
  /** Paths of the demo key's own short urls, per product. */
  shortUrls: { 'fixed-recurring': string[]; 'on-demand': string[] };
  emails: string[];
  tags: string[];
  tokens: string[];
  categories: string[];
  addresses: { senders: string[]; receivers: string[]; triggeredBy: string[] };
  notifications: string[];
}

export const demoKey = (chain: string, user?: string): string => (user ? `prk_demo_${chain}_${user}` : `prk_demo_${chain}`);

export function fixturesOf(world: World): Fixtures {
  const mapProducts = <T>(pick: (p: SubscriptionProduct) => T) => ({
    'fixed-recurring': pick('fixed-recurring'),
    'variable-recurring': pick('variable-recurring'),
    'on-demand': pick('on-demand'),
  });
  const sample = Array.from({ length: Math.min(10, world.options.records) }, (_, i) => i);
  const ownShortUrls = (product: 'fixed-recurring' | 'on-demand') =>
    world.shortUrls.filter((s) => s.product === product && s.owner === '').map((s) => s.record.path);
  return {
    chain: world.chain,
    apiKey: demoKey(world.chain),
    plans: mapProducts((p) => world.plans[p].map((plan) => plan.id)),
    // Fixed-recurring ones in the order they were made (the first has billings), at most 1000.
    subscriptions: mapProducts((p) => world.subscriptionsOf(p).slice(0, 1000).map((s) => s.id)),
    strategies: world.strategies.map((s) => s.id),
    schedules: world.schedules.map((s) => s.id),
    oneTimePayments: sample.map((i) => world.oneTimePaymentId(i)),
    walletToWalletPayments: sample.map((i) => world.walletToWalletPaymentId(i)),
    shortUrls: { 'fixed-recurring': ownShortUrls('fixed-recurring'), 'on-demand': ownShortUrls('on-demand') },
    emails: [...val.EMAILS],
    tags: [...val.TAGS, ...val.HOSTILE_TAGS],
    tokens: [...world.tokens],
    categories: [...val.CATEGORIES],
    addresses: {
      senders: [...world.payers, ...world.schedules.map((s) => s.sender)].filter(unique),
      receivers: [...world.merchants],
      triggeredBy: [...world.payers, ...world.operators],
    },
    notifications: [DOC_NOTIFICATION.id],
  };
}

function unique<T>(value: T, index: number, all: T[]): boolean {
  return all.indexOf(value) === index;
}
