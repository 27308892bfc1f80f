import { createHash } from 'node:crypto';
import type { Random } from './prng.js';
import { HttpError } from './reply.js';
import * as val from './values.js';
import type { SubscriptionProduct, World } from './world.js';

// Webhook notifications as the emulator fires them: event names per type from
// API-FACTS.md, `data` shaped after the records of the same event, and an `id` that is
// the sha256 of the notification without its id, serialised with JSON.stringify in the
// documented field order (so a client's integrity check can say "matches").

export const EVENTS_BY_TYPE: Record<string, readonly string[]> = {
  'fixed-recurring': ['Subscription', 'Billing', 'BillingFailed', 'SubscriptionCancelled', 'SubscriptionTerminated'],
  'variable-recurring': [
    'Subscription', 'Billing', 'BillingFailed', 'SubscriptionCancellationRequested', 'SubscriptionCancelled', 'SubscriptionTerminated',
  ],
  'one-time': ['Payment'],
};

export interface Notification {
  id: string;
  type: string;
  event: string;
  timestamp: number;
  transactionHash: string;
  transactionStatus: string;
  data: Record<string, unknown>;
  extra: Record<string, string>;
}

export interface TriggerRequest {
  chain: string;
  event: string;
  planId: string;
  type: string;
}

/** Checks a trigger body; the type defaults to the plan's product, else to the event's only product. */
export function parseTrigger(body: Record<string, unknown>, worldOf: (chain: string) => World | undefined): TriggerRequest {
  const { chain, event, planId, type } = body;
  if (typeof chain !== 'string') throw new HttpError(400, 'Missing chain: expected {"chain": "bsc", …}');
  const world = worldOf(chain);
  if (!world) throw new HttpError(404, `Unknown chain ${chain}`);
  if (typeof planId !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(planId)) {
    throw new HttpError(400, 'Invalid planId: expected 0x followed by 64 hex characters');
  }
  if (typeof event !== 'string') throw new HttpError(400, 'Missing event: expected for example {"event": "Billing"}');
  if (type !== undefined && (typeof type !== 'string' || !(type in EVENTS_BY_TYPE))) {
    throw new HttpError(400, `Unknown type ${String(type)}: expected one of ${Object.keys(EVENTS_BY_TYPE).join(', ')}`);
  }
  const resolved = type ?? defaultType(world, planId, event);
  if (!EVENTS_BY_TYPE[resolved].includes(event)) {
    throw new HttpError(400, `Unknown event ${event} for ${resolved}: expected one of ${EVENTS_BY_TYPE[resolved].join(', ')}`);
  }
  return { chain, event, planId, type: resolved };
}

function defaultType(world: World, planId: string, event: string): string {
  if (event === 'Payment') return 'one-time';
  if (event === 'SubscriptionCancellationRequested') return 'variable-recurring';
  const lower = planId.toLowerCase();
  return world.plans['variable-recurring'].some((p) => p.id === lower) ? 'variable-recurring' : 'fixed-recurring';
}

export function notificationId(n: Omit<Notification, 'id'>): string {
  const { type, event, timestamp, transactionHash, transactionStatus, data, extra } = n;
  const canonical = JSON.stringify({ type, event, timestamp, transactionHash, transactionStatus, data, extra });
  return createHash('sha256').update(canonical).digest('hex');
}

export function buildNotification(world: World, r: Random, t: TriggerRequest, extra: Record<string, string>, timestamp: number): Notification {
  const body = {
    type: t.type,
    event: t.event,
    timestamp,
    transactionHash: val.hexId(r),
    transactionStatus: t.event === 'BillingFailed' ? 'failed' : 'confirmed',
    data: eventData(world, r, t, timestamp),
    extra,
  };
  return { id: notificationId(body), ...body };
}

function eventData(world: World, r: Random, t: TriggerRequest, timestamp: number): Record<string, unknown> {
  if (t.event === 'Payment') {
    const sender = r.pick(world.payers);
    const description = val.freeText(r, val.DESCRIPTIONS);
    const token = r.pick(world.tokens);
    const category = r.pick(val.CATEGORIES);
    const tag = val.tag(r);
    const user = r.pick(world.merchants);
    const decimals = world.decimals(token);
    const amount = val.amount(r, decimals);
    val.skipFeeDraws(r);
    // A one-time payment pays the base fee (no fee account, ONCHAIN.md §2).
    return { sender, description, token, category, tag, receivers: [{ user, amount, fee: val.contractFee(amount, decimals, world.feePercentage()) }] };
  }
  const product = t.type as SubscriptionProduct;
  const plan = world.plan(t.planId.toLowerCase());
  const known = world.subscriptionsOf(product).filter((s) => s.planId === plan?.id);
  const sub = known.length > 0 ? r.pick(known) : { id: val.hexId(r), subscriber: r.pick(world.payers) };
  const token = plan?.token ?? r.pick(world.tokens);
  const amount = plan?.amount ?? val.amount(r, world.decimals(token));
  // cycleEnd is inclusive, as on billings.
  const cycle = { cycleStart: timestamp, cycleEnd: timestamp + (plan?.period ?? 30 * 86400) - 1 };
  const common = { subscriptionId: sub.id, planId: t.planId };
  switch (t.event) {
    case 'Subscription':
      return { ...common, subscriber: sub.subscriber, amount, token };
    case 'Billing':
      val.skipFeeDraws(r);
      return { ...common, success: 1, amount, fee: val.contractFee(amount, world.decimals(token), world.feePercentage(plan?.receiver)), token, receiver: plan?.receiver ?? r.pick(world.merchants), ...cycle, triggeredBy: sub.subscriber };
    case 'BillingFailed':
      return {
        ...common, success: 0, amount, token, ...cycle, triggeredBy: r.pick(world.operators),
        reason: r.pick(['insufficient funds', 'token not enabled', 'spending limit too low']),
      };
    case 'SubscriptionCancellationRequested':
      return { ...common, subscriber: sub.subscriber };
    case 'SubscriptionCancelled':
      return { ...common, forced: false, triggeredBy: sub.subscriber };
    default: // SubscriptionTerminated
      return { ...common, forced: true, triggeredBy: r.pick(world.operators) };
  }
}
