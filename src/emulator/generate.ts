import { DOC_NOTIFICATION } from './doc-examples.js';
import type { Random } from './prng.js';
import type { StoredRecord } from './store.js';
import { fromUnits, toUnits } from './chain/amounts.js';
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
 * An amount of `token` and the fee 8pay's contract takes on it: the amount in the
 * token's decimals on this chain, the fee floor(amount × feePercentage / 10000) at the
 * fee account's feePercentage (the base fee without one), as the chain will say.
 */
function payment(world: World, r: Random, token: string, feeAccount?: string): { amount: string; fee: string } {
  const decimals = world.decimals(token);
  const amount = val.amount(r, decimals);
  val.skipFeeDraws(r);
  return { amount, fee: val.contractFee(amount, decimals, world.feePercentage(feeAccount)) };
}

/**
 * The fields every transfer has, then the product's own. Built with Object.assign
 * rather than spreads: a spread in the middle of a literal is several times slower,
 * and a million records are generated at once.
 */
function transfer<T extends object>(world: World, r: Random, index: number, token: string, timestamp: number, own: T, feeAccount?: string) {
  const description = val.freeText(r, val.DESCRIPTIONS);
  const { amount, fee } = payment(world, r, token, feeAccount);
  const common = {
    description,
    amount,
    fee,
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
      record: transfer(world, r, index, plan.token, timestamp, { sender: sub.subscriber, receiver: plan.receiver, planId: plan.id, subscriptionId: sub.id }, plan.receiver),
    };
  };
}

function oneTimePayment({ world, r, index, timestamp }: RecordContext) {
  const description = val.freeText(r, val.DESCRIPTIONS);
  const sender = r.pick(world.payers);
  const token = r.pick(world.tokens);
  return {
    record: {
      id: world.oneTimePaymentId(index),
      description,
      sender,
      token,
      category: val.freeText(r, val.CATEGORIES),
      tag: val.tag(r),
      timestamp,
      transactionHash: val.uniqueHexId(r, index),
      transactionStatus: val.transactionStatus(r),
      // A one-time payment has no fee account: each receiver pays the base fee (ONCHAIN.md §2).
      receivers: Array.from({ length: r.int(1, 3) }, () => ({ user: r.pick(world.merchants), ...payment(world, r, token) })),
    },
  };
}

function oneTimeTransfer({ world, r, index, timestamp }: RecordContext) {
  return {
    record: transfer(world, r, index, r.pick(world.tokens), timestamp, {
      sender: r.pick(world.payers),
      receiver: r.pick(world.merchants),
      oneTimeId: world.oneTimePaymentId(r.int(0, world.options.records - 1)),
    }),
  };
}

/**
 * A receiver's time: `lag` seconds after the payment, but a payment of the starting set
 * never has one after the data's end (the anchor), a block the chain has not reached. A
 * record added later (live, or POST /_emulator/records) is placed, and placing it moves
 * the chain's clock to its receivers (chain/network.ts): its lag is never cut, so the
 * same seed gives the same receivers whatever second the wall clock is at, a late record
 * stamped before the anchor included.
 */
function receiverTime(world: World, index: number, payment: number, lag: number): number {
  const end = world.options.now;
  return index < world.options.records && payment <= end ? Math.min(payment + lag, end) : payment + lag;
}

function walletToWalletPayment({ world, r, index, timestamp }: RecordContext) {
  const email = r.pick(val.EMAILS);
  const description = val.freeText(r, val.DESCRIPTIONS);
  const token = r.pick(world.tokens);
  return {
    record: {
      id: world.walletToWalletPaymentId(index),
      description,
      email: val.HIDDEN_EMAIL,
      token,
      category: val.freeText(r, val.CATEGORIES),
      tag: val.tag(r),
      timestamp,
      serviceFee: val.serviceFee(r),
      receivers: Array.from({ length: r.int(1, 3) }, () => ({
        user: r.pick(world.merchants),
        ...payment(world, r, token),
        // Sent up to 30 s after the payment.
        timestamp: receiverTime(world, index, timestamp, r.int(0, 30)),
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
    record: transfer(world, r, index, r.pick(world.tokens), timestamp, {
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
    record: transfer(world, r, index, schedule.token, timestamp, { sender: schedule.sender, receiver: schedule.receiver, scheduleId: schedule.id }),
  };
}

function execution({ world, r, index, timestamp }: RecordContext) {
  const strategy = r.pick(world.strategies);
  const inputDecimals = world.decimals(strategy.inputToken);
  const record = {
    strategyId: strategy.id,
    timestamp,
    transactionHash: val.uniqueHexId(r, index),
    transactionStatus: val.transactionStatus(r),
    inputToken: strategy.inputToken,
    fee: '',
    swaps: [] as { inputAmount: string; outputAmount: string; outputToken: string }[],
  };
  val.skipFeeDraws(r);
  record.swaps = Array.from({ length: r.int(1, 3) }, () => {
    const inputAmount = val.amount(r, inputDecimals);
    const outputAmount = val.amount(r);
    const outputToken = r.pick(world.tokens.filter((t) => t !== strategy.inputToken));
    return { inputAmount, outputAmount: val.inDecimals(outputAmount, world.decimals(outputToken)), outputToken };
  });
  // The fee is taken on the sum of the swaps' inputs (ONCHAIN.md §8); a strategy names no fee account.
  const total = record.swaps.reduce((sum, s) => sum + toUnits(s.inputAmount, inputDecimals), 0n);
  record.fee = val.contractFee(fromUnits(total, inputDecimals), inputDecimals, world.feePercentage());
  return { record };
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
