import { DOC_PLAN_ID, DOC_RECEIVER, DOC_SENDER, DOC_SHORT_URL } from './doc-examples.js';
import { Random, hashString, mixSeed } from './prng.js';
import { Lifecycles, fixedRecurringPlans, type Plan } from './lifecycles.js';
import type { ChainSlug } from '../chain/model.js';
import { tokenOf } from './chain/tokens.js';
import * as val from './values.js';

// The small, fixed cast of one chain: plans, subscriptions, strategies, schedules and
// wallets. Every generated record picks from it, so filters such as --plan-id or
// --sender find records. Fixed-recurring subscriptions are not in the cast: they are
// lifecycles (lifecycles.ts), simulated on first use.

export const SUBSCRIPTION_PRODUCTS = ['fixed-recurring', 'variable-recurring', 'on-demand'] as const;
export type SubscriptionProduct = (typeof SUBSCRIPTION_PRODUCTS)[number];

const PLANS_PER_PRODUCT = 5;
const SUBSCRIPTIONS_PER_PRODUCT = 40;
/** Custom fees some plan admins have (hundredths of a percent), instead of the base fee. */
const CUSTOM_FEES = [50n, 75n, 150n] as const;

export interface Subscription {
  id: string;
  planId: string;
  subscriber: string;
}

export interface Strategy {
  id: string;
  inputToken: string;
}

export interface Schedule {
  id: string;
  sender: string;
  receiver: string;
  token: string;
}

/** A short url present from the start; `owner` is the user part of the key ('' = the demo key). */
export interface SeedShortUrl {
  product: 'fixed-recurring' | 'on-demand';
  owner: string;
  record: ShortUrlRecord;
}

export interface ShortUrlRecord {
  path: string;
  name: string;
  planId: string;
  createdAt: number;
  updatedAt: number;
  params: { callbackSuccess?: string; callbackError?: string; extra?: Record<string, string> };
  link: string;
}

export interface WorldOptions {
  seed: number;
  records: number;
  /** Unix seconds: generated timestamps lie in the 365 days before it. */
  now: number;
  /** The chain's feeds write a round each hour (EmulatorOptions.hourlyFeeds). */
  hourlyFeeds?: boolean;
}

export class World {
  readonly tokens: readonly string[];
  readonly plans = {} as Record<SubscriptionProduct, Plan[]>;
  /** Of variable-recurring and on-demand; fixed-recurring ones are `lifecycles`. */
  readonly subscriptions = {} as Record<Exclude<SubscriptionProduct, 'fixed-recurring'>, Subscription[]>;
  readonly strategies: Strategy[] = [];
  readonly schedules: Schedule[] = [];
  /** Customers: senders of payments, subscribers. */
  readonly payers: string[];
  /** Merchants and plan admins: receivers. */
  readonly merchants: string[];
  /** Operational accounts: trigger billings and forced cancellations. */
  readonly operators: string[];
  readonly shortUrls: SeedShortUrl[] = [];
  private readonly planById = new Map<string, Plan>();
  private readonly base: number;
  private simulated: Lifecycles | undefined;

  constructor(
    readonly chain: string,
    readonly options: WorldOptions,
  ) {
    this.base = mixSeed(options.seed, hashString(chain));
    const r = new Random(mixSeed(this.base, hashString('world')));
    this.tokens = val.TOKENS_BY_CHAIN[chain] ?? val.TOKENS_BY_CHAIN.bsc;
    this.payers = [DOC_SENDER, ...Array.from({ length: 23 }, () => val.address(r))];
    this.merchants = [DOC_RECEIVER, ...Array.from({ length: 7 }, () => val.address(r))];
    this.operators = Array.from({ length: 3 }, () => val.address(r));

    for (const product of SUBSCRIPTION_PRODUCTS) {
      // Fixed-recurring draws its plans as before and sets them aside for its own: the
      // stream goes on unchanged, so every other product's data stays as it was.
      const plans = Array.from({ length: PLANS_PER_PRODUCT }, (_, i) => ({
        id: product === 'fixed-recurring' && i === 0 ? DOC_PLAN_ID : val.hexId(r),
        token: r.pick(this.tokens),
        amount: String(r.pick([5, 9.99, 10, 25, 49.5, 100])),
        receiver: this.merchants[i % this.merchants.length],
        period: r.pick([7, 30, 30, 365]) * 86400,
      }));
      const subscriptions = Array.from({ length: SUBSCRIPTIONS_PER_PRODUCT }, (_, i) => ({
        id: val.hexId(r),
        planId: plans[i % plans.length].id,
        subscriber: r.pick(this.payers),
      }));
      if (product === 'fixed-recurring') {
        const own = new Random(mixSeed(this.base, hashString('fixed-recurring/plans')));
        this.plans[product] = fixedRecurringPlans(own, this.tokens, this.merchants, DOC_PLAN_ID, (token) => this.decimals(token));
      } else {
        this.plans[product] = plans;
        this.subscriptions[product] = subscriptions;
      }
      for (const plan of this.plans[product]) this.planById.set(plan.id, plan);
    }
    for (let i = 0; i < 10; i++) this.strategies.push({ id: val.hexId(r), inputToken: r.pick(this.tokens) });
    for (let i = 0; i < 10; i++) {
      this.schedules.push({ id: val.hexId(r), sender: r.pick(this.payers), receiver: r.pick(this.merchants), token: r.pick(this.tokens) });
    }
    this.seedShortUrls(r);
  }

  plan(id: string): Plan | undefined {
    return this.planById.get(id);
  }

  /** The fixed-recurring subscriptions, simulated on first use (a million billings take a moment). */
  get lifecycles(): Lifecycles {
    this.simulated ??= new Lifecycles(this);
    return this.simulated;
  }

  /** Subscriptions of a product (id, plan, subscriber). */
  subscriptionsOf(product: SubscriptionProduct): { id: string; planId: string; subscriber: string }[] {
    if (product !== 'fixed-recurring') return this.subscriptions[product];
    return this.lifecycles.subscriptions.map((s) => ({ id: s.id, planId: s.plan.id, subscriber: s.subscriber }));
  }

  /** The decimals of the token `symbol` names on this chain (USDT: 18 on bsc, 6 on ethereum; ONCHAIN.md §4). */
  decimals(symbol: string): number {
    return tokenOf(this.chain as ChainSlug, symbol).decimals;
  }

  /**
   * The feePercentage 8pay's Transfers charges when `account` is the fee account (a
   * recurring plan's admin; none for one-time and the others): its custom fee, which
   * about one account in four has, else the base fee (ONCHAIN.md §2). Derived from the
   * address, so the world's own draws are untouched.
   */
  feePercentage(account?: string): bigint {
    if (account === undefined) return val.BASE_FEE_PERCENTAGE;
    const h = mixSeed(this.base, hashString(`fee ${account.toLowerCase()}`));
    return h % 4 === 0 ? CUSTOM_FEES[(h >>> 2) % CUSTOM_FEES.length] : val.BASE_FEE_PERCENTAGE;
  }

  /** Seed of the record at `index` of a collection: records are generated independently. */
  recordSeed(collection: string, index: number): number {
    return mixSeed(this.base, hashString(collection), index);
  }

  /** Seed of a whole collection (its timestamps). */
  collectionSeed(collection: string): number {
    return mixSeed(this.base, hashString(collection), 0xffffffff);
  }

  /**
   * Id of the index-th one-time payment. A separate stream from the record itself, so
   * transfers and fixtures can name payments without generating the collection.
   */
  oneTimePaymentId(index: number): string {
    return val.uniqueHexId(new Random(this.recordSeed('one-time/payments#id', index)), index);
  }

  walletToWalletPaymentId(index: number): string {
    return val.uuid(new Random(this.recordSeed('wallet-to-wallet/payments#id', index)), index);
  }

  private seedShortUrls(r: Random): void {
    this.shortUrls.push({ product: 'fixed-recurring', owner: '', record: structuredClone(DOC_SHORT_URL) });
    const taken = new Set([DOC_SHORT_URL.path]);
    for (const product of ['fixed-recurring', 'on-demand'] as const) {
      for (let i = 0; i < 7; i++) {
        let path = shortPath(r);
        while (taken.has(path)) path = shortPath(r);
        taken.add(path);
        const createdAt = this.options.now - r.int(1, 365 * 86400);
        const extra: Record<string, string> = r.chance(0.7) ? { campaign: r.pick(['spring', 'launch', 'retarget']), source: r.pick(['twitter', 'newsletter', 'qr']) } : {};
        this.shortUrls.push({
          product,
          // The last two belong to another user: lists must not show them to the demo key.
          owner: i < 5 ? '' : 'other',
          record: {
            path,
            name: val.freeText(r, ['Twitter bio', 'Newsletter footer', 'QR code at the counter', 'Partner site', 'Launch promo']),
            planId: r.pick(this.plans[product]).id,
            createdAt,
            updatedAt: createdAt + r.int(0, 86400),
            params: { callbackSuccess: 'https://shop.example.com/thanks', callbackError: 'https://shop.example.com/sorry', extra },
            link: `https://8pay.me/${path}`,
          },
        });
      }
    }
  }
}

const PATH_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A 5-character short url code. */
export function shortPath(r: Random): string {
  let path = '';
  for (let i = 0; i < 5; i++) path += PATH_ALPHABET[r.int(0, PATH_ALPHABET.length - 1)];
  return path;
}
