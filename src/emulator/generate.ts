import { DOC_NOTIFICATION } from './doc-examples.js';
import type { Random } from './prng.js';
import type { StoredRecord } from './store.js';
import * as val from './values.js';
import type { World } from './world.js';

// Data generators, one per collection of the registry. A generator builds the index-th
// record of a collection from its own seeded Random, so generation is deterministic and
// independent of order. Field order follows API-SPEC.md so the JSON reads like the docs.

export interface RecordContext {
  world: World;
  r: Random;
  index: number;
  timestamp: number;
}

export interface CollectionSpec {
  /** Builds the index-th of the `records` records that the collection starts with. */
  generate?: (g: RecordContext) => Omit<StoredRecord, 'timestamp'>;
  /** The whole starting set at once, in timestamp order (records that depend on each other). */
  whole?: (world: World) => Iterable<StoredRecord>;
  /** A record added after start (live traffic, POST /_emulator/records); default: `generate`. */
  more?: (g: RecordContext) => Omit<StoredRecord, 'timestamp'>;
  /** A fixed starting set, for collections whose size does not follow `records`. */
  initial?: (world: World) => StoredRecord[];
  /** Records belong to the key that created them (internal field `owner`). */
  owned?: boolean;
}

function cancellation({ world, r, index, timestamp }: RecordContext) {
  const sub = r.pick(world.subscriptions['variable-recurring']);
  const forced = r.chance(0.3);
  return {
    record: {
      subscriptionId: sub.id,
      timestamp,
      forced,
      triggeredBy: forced ? r.pick(world.operators) : sub.subscriber,
      transactionHash: val.uniqueHexId(r, index),
      transactionStatus: val.transactionStatus(r),
    },
    internal: { planId: sub.planId },
  };
}

function cancellationRequest({ world, r, index, timestamp }: RecordContext) {
  const sub = r.pick(world.subscriptions['variable-recurring']);
  return {
    record: { subscriptionId: sub.id, timestamp, transactionHash: val.uniqueHexId(r, index), transactionStatus: val.transactionStatus(r) },
    internal: { planId: sub.planId },
  };
}

/**
 * The fields every transfer has, then the product's own. Built with Object.assign
 * rather than spreads: a spread in the middle of a literal is several times slower,
 * and a million records are generated at once.
 */
function transfer<T extends object>(r: Random, index: number, token: string, timestamp: number, own: T) {
  const common = {
    description: val.freeText(r, val.DESCRIPTIONS),
    amount: val.amount(r),
    fee: val.fee(r),
    token,
    category: val.freeText(r, val.CATEGORIES),
    timestamp,
    transactionHash: val.uniqueHexId(r, index),
    transactionStatus: val.transactionStatus(r),
  };
  return Object.assign(common, own);
}

function subscriptionTransfer(product: 'variable-recurring' | 'on-demand') {
  return ({ world, r, index, timestamp }: RecordContext) => {
    const sub = r.pick(world.subscriptions[product]);
    const plan = world.plan(sub.planId)!;
    return {
      record: transfer(r, index, plan.token, timestamp, { sender: sub.subscriber, receiver: plan.receiver, planId: plan.id, subscriptionId: sub.id }),
    };
  };
}

function oneTimePayment({ world, r, index, timestamp }: RecordContext) {
  return {
    record: {
      id: world.oneTimePaymentId(index),
      description: val.freeText(r, val.DESCRIPTIONS),
      sender: r.pick(world.payers),
      token: r.pick(world.tokens),
      category: val.freeText(r, val.CATEGORIES),
      tag: val.tag(r),
      timestamp,
      transactionHash: val.uniqueHexId(r, index),
      transactionStatus: val.transactionStatus(r),
      receivers: Array.from({ length: r.int(1, 3) }, () => ({ user: r.pick(world.merchants), amount: val.amount(r), fee: val.fee(r) })),
    },
  };
}

function oneTimeTransfer({ world, r, index, timestamp }: RecordContext) {
  return {
    record: transfer(r, index, r.pick(world.tokens), timestamp, {
      sender: r.pick(world.payers),
      receiver: r.pick(world.merchants),
      oneTimeId: world.oneTimePaymentId(r.int(0, world.options.records - 1)),
    }),
  };
}

function walletToWalletPayment({ world, r, index, timestamp }: RecordContext) {
  const email = r.pick(val.EMAILS);
  return {
    record: {
      id: world.walletToWalletPaymentId(index),
      description: val.freeText(r, val.DESCRIPTIONS),
      email: val.HIDDEN_EMAIL,
      token: r.pick(world.tokens),
      category: val.freeText(r, val.CATEGORIES),
      tag: val.tag(r),
      timestamp,
      serviceFee: val.fee(r),
      receivers: Array.from({ length: r.int(1, 3) }, () => ({
        user: r.pick(world.merchants),
        amount: val.amount(r),
        fee: val.fee(r),
        timestamp: timestamp + r.int(0, 30),
        transactionHash: val.hexId(r),
      transactionStatus: val.transactionStatus(r),
      })),
    },
    internal: { email },
  };
}

function walletToWalletTransfer({ world, r, index, timestamp }: RecordContext) {
  const email = r.pick(val.EMAILS);
  return {
    record: transfer(r, index, r.pick(world.tokens), timestamp, {
      email: val.HIDDEN_EMAIL,
      receiver: r.pick(world.merchants),
      payment_id: world.walletToWalletPaymentId(r.int(0, world.options.records - 1)),
    }),
    internal: { email },
  };
}

function scheduledTransfer({ world, r, index, timestamp }: RecordContext) {
  const schedule = r.pick(world.schedules);
  return {
    record: transfer(r, index, schedule.token, timestamp, { sender: schedule.sender, receiver: schedule.receiver, scheduleId: schedule.id }),
  };
}

function execution({ world, r, index, timestamp }: RecordContext) {
  const strategy = r.pick(world.strategies);
  return {
    record: {
      strategyId: strategy.id,
      timestamp,
      transactionHash: val.uniqueHexId(r, index),
      transactionStatus: val.transactionStatus(r),
      inputToken: strategy.inputToken,
      fee: val.fee(r),
      swaps: Array.from({ length: r.int(1, 3) }, () => ({
        inputAmount: val.amount(r),
        outputAmount: val.amount(r),
        outputToken: r.pick(world.tokens.filter((t) => t !== strategy.inputToken)),
      })),
    },
  };
}

function shortUrls(product: 'fixed-recurring' | 'on-demand') {
  return (world: World): StoredRecord[] =>
    world.shortUrls
      .filter((s) => s.product === product)
      .map((s) => ({ timestamp: s.record.createdAt, record: s.record, internal: { owner: s.owner } }));
}

/** Keyed by the registry's `collection`. A registry collection missing here starts empty. */
export const collectionSpecs: Record<string, CollectionSpec> = {
  'fixed-recurring/short-urls': { initial: shortUrls('fixed-recurring'), owned: true },
  'on-demand/short-urls': { initial: shortUrls('on-demand'), owned: true },
  'fixed-recurring/billings': {
    whole: (world) => world.lifecycles.billingRecords(),
    more: ({ world, r, timestamp }) => world.lifecycles.addBilling(r, timestamp),
  },
  'fixed-recurring/cancellations': {
    whole: (world) => world.lifecycles.cancellationRecords(),
    more: ({ world, r, timestamp }) => world.lifecycles.addCancellation(r, timestamp),
  },
  'variable-recurring/cancellations': { generate: cancellation },
  'variable-recurring/cancellation-requests': { generate: cancellationRequest },
  'variable-recurring/transfers': { generate: subscriptionTransfer('variable-recurring') },
  'on-demand/transfers': { generate: subscriptionTransfer('on-demand') },
  'one-time/payments': { generate: oneTimePayment },
  'one-time/transfers': { generate: oneTimeTransfer },
  'wallet-to-wallet/payments': { generate: walletToWalletPayment },
  'wallet-to-wallet/transfers': { generate: walletToWalletTransfer },
  'scheduled-payments/transfers': { generate: scheduledTransfer },
  'dollar-cost-average/executions': { generate: execution },
  'webhook-notifications': {
    initial: () => [{ timestamp: DOC_NOTIFICATION.timestamp, record: DOC_NOTIFICATION, internal: { notificationId: DOC_NOTIFICATION.id } }],
  },
};
