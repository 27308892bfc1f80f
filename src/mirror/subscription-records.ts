import { UsageError } from '../core/runtime/errors.js';
import { SubscriptionRecords } from '../subscriptions/engine.js';
import { STORE_SCHEMA } from './layout.js';
import { ident } from './schema.js';
import { CURSOR_TABLE } from './state.js';
import type { Json } from './duckdb.js';
import type { MirrorDb } from './store.js';

// What `payrec subscriptions` and `payrec metrics` read of the mirror: the
// fixed-recurring billings and cancellations of the plans synced, fed to the engine.
// A plan counts only when both of its lists were synced: billings without their
// cancellations would show cancelled subscriptions as active, a quiet wrong answer.

const BILLINGS = `${STORE_SCHEMA}.${ident('fixed_recurring_billings')}`;
const CANCELLATIONS = `${STORE_SCHEMA}.${ident('fixed_recurring_cancellations')}`;

export interface Coverage {
  /** Plans whose billings and cancellations were both synced, in id order. */
  plans: string[];
  /** The oldest of those lists' cursors (Unix seconds): every record stamped up to it is in the mirror. */
  syncedUpTo?: number;
}

/** Plans and how far their lists were synced, for the chain; refuses a plan given but not synced, or synced halfway. */
export async function subscriptionCoverage(db: MirrorDb, chain: string, wanted: readonly string[]): Promise<Coverage> {
  const rows = await db.rows(
    `SELECT collection, scope, cursor FROM ${CURSOR_TABLE}
     WHERE chain = $1 AND collection IN ('fixed-recurring/billings', 'fixed-recurring/cancellations') AND scope LIKE 'planId=%'`,
    [chain],
  );
  const cursors = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const plan = String(r.scope).slice('planId='.length);
    if (!cursors.has(plan)) cursors.set(plan, new Map());
    cursors.get(plan)!.set(String(r.collection), Number(r.cursor));
  }
  const plans = wanted.length > 0 ? [...wanted] : [...cursors.keys()].sort();
  let syncedUpTo: number | undefined;
  for (const plan of plans) {
    const lists = cursors.get(plan);
    const missing = ['fixed-recurring/billings', 'fixed-recurring/cancellations'].filter((c) => lists?.get(c) === undefined);
    if (missing.length > 0) {
      throw new UsageError(
        `the mirror has not synced the ${missing.map((c) => c.slice('fixed-recurring/'.length)).join(' and ')} of plan ${plan} (chain ${chain}): its subscriptions cannot be told`,
        `sync them first: payrec sync fr/billings fr/cancellations --plan-id ${plan} (or add --sync)`,
      );
    }
    for (const cursor of lists!.values()) syncedUpTo = syncedUpTo === undefined ? cursor : Math.min(syncedUpTo, cursor);
  }
  return { plans, syncedUpTo };
}

/** A DECIMAL's text without the zeros DuckDB pads it with (9.990000000000000000 → 9.99). */
function decimalText(value: Json): string {
  const text = String(value);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** What the service sent where the mirror could keep no DECIMAL: its JSON value as it was (a text, a number, null). */
function sentValue(json: Json): unknown {
  return json === null ? null : JSON.parse(String(json));
}

/**
 * The billings and cancellations of `plans` on `chain`, as the engine keeps them. An
 * amount the mirror could not store exactly reaches the engine as the text the service
 * sent, so the figures fail naming it (exit 6) rather than leave it out.
 */
export async function readSubscriptionRecords(db: MirrorDb, chain: string, plans: readonly string[]): Promise<SubscriptionRecords> {
  const records = new SubscriptionRecords();
  if (plans.length === 0) return records;
  const inPlans = `planId IN (${plans.map((_, i) => `$${i + 2}`).join(', ')})`;
  const billings = await db.rows(
    `SELECT subscriptionId, planId, success, amount::VARCHAR AS amount, inexact_amounts -> 'amount' AS sent, token,
            epoch(timestamp)::BIGINT AS timestamp, epoch(cycleStart)::BIGINT AS cycleStart, epoch(cycleEnd)::BIGINT AS cycleEnd, transactionStatus, transactionHash
     FROM ${BILLINGS} WHERE chain = $1 AND ${inPlans}`,
    [chain, ...plans],
  );
  for (const b of billings) {
    records.addBilling({
      subscriptionId: String(b.subscriptionId),
      planId: String(b.planId),
      success: b.success as number,
      amount: b.amount === null ? (sentValue(b.sent) as string) : decimalText(b.amount),
      token: String(b.token),
      timestamp: integer(b.timestamp),
      cycleStart: integer(b.cycleStart),
      cycleEnd: integer(b.cycleEnd),
      transactionStatus: String(b.transactionStatus),
      transactionHash: String(b.transactionHash),
    });
  }
  const cancellations = await db.rows(
    `SELECT subscriptionId, planId, epoch(timestamp)::BIGINT AS timestamp, forced, transactionStatus, transactionHash FROM ${CANCELLATIONS} WHERE chain = $1 AND ${inPlans}`,
    [chain, ...plans],
  );
  for (const c of cancellations) {
    records.addCancellation({
      subscriptionId: String(c.subscriptionId),
      planId: String(c.planId),
      timestamp: integer(c.timestamp),
      forced: c.forced === true,
      transactionStatus: String(c.transactionStatus),
      transactionHash: String(c.transactionHash),
    });
  }
  return records;
}

/** BIGINTs come as numbers or, beyond a double, as strings; NULL stays what the engine refuses. */
const integer = (v: unknown): number => (v === null || v === undefined ? (v as unknown as number) : Number(v));
