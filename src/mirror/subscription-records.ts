import { MalformedResponseError, UsageError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import { listValue } from './duckdb.js';
import { SubscriptionRecords } from '../subscriptions/engine.js';
import { STORE_SCHEMA } from './layout.js';
import { ident } from './schema.js';
import { CURSOR_TABLE, readSince } from './state.js';
import type { MirrorDb } from './store.js';

// What `payrec subscriptions` and `payrec metrics` read of the mirror: the
// fixed-recurring billings and cancellations of the plans synced, fed to the engine.
// A plan counts only when both of its lists were synced: billings without their
// cancellations would show cancelled subscriptions as active, a quiet wrong answer.

const BILLINGS = `${STORE_SCHEMA}.${ident('fixed_recurring_billings')}`;
const CANCELLATIONS = `${STORE_SCHEMA}.${ident('fixed_recurring_cancellations')}`;
/** A temporary table of this connection: each subscription id once, numbered. */
const SUBSCRIPTION_CODES = 'payrec_subscription_codes';
/** Another: each (token, amount, status) of the billings once, numbered. */
const TERM_CODES = 'payrec_term_codes';

export interface Coverage {
  /** Plans whose billings and cancellations were both synced, in id order. */
  plans: string[];
  /** The oldest of those lists' cursors (Unix seconds): every record stamped up to it is in the mirror. */
  syncedUpTo?: number;
  /** Per plan, where its lists' records begin (the latest `sync --from` of the two; 0: from the first record). */
  since: Map<string, number>;
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
  const since = new Map<string, number>();
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
    const scope = `planId=${plan}`;
    since.set(plan, Math.max(await readSince(db, chain, 'fixed-recurring/billings', scope), await readSince(db, chain, 'fixed-recurring/cancellations', scope)));
  }
  return { plans, syncedUpTo, since };
}

/** A DECIMAL's text without the zeros DuckDB pads it with (9.990000000000000000 → 9.99). */
function decimalText(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** What the service sent where the mirror could keep no DECIMAL: its JSON value as it was (a text, a number, null). */
function sentValue(json: string | null): unknown {
  return json === null ? null : JSON.parse(json);
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
  const params = [chain, ...plans];
  // Reading a million billings costs most in decoding their text: the two ids (66
  // characters each) come as numbers, a subscription's place in a list read once and a
  // plan's place in `plans`, and each billing gets the one string object of its id.
  // Times come as DOUBLE (whole seconds, a JS number); the hash only where the engine
  // may have to name the billing (an amount or time it cannot read).
  await db.run(
    `CREATE OR REPLACE TEMP TABLE ${SUBSCRIPTION_CODES} AS SELECT subscriptionId AS id, (row_number() OVER (ORDER BY subscriptionId) - 1)::DOUBLE AS k
     FROM (SELECT DISTINCT subscriptionId FROM ${BILLINGS} WHERE chain = $1 AND ${inPlans} AND subscriptionId IS NOT NULL)`,
    params,
  );
  const names: string[] = [];
  for await (const [ids] of db.columnChunks(`SELECT id FROM ${SUBSCRIPTION_CODES} ORDER BY k`, [])) names.push(...(ids as string[]));
  // A plan's billings share one token and amount: those texts are numbered too.
  await db.run(
    `CREATE OR REPLACE TEMP TABLE ${TERM_CODES} AS SELECT token, amount, transactionStatus, (row_number() OVER () - 1)::DOUBLE AS k
     FROM (SELECT DISTINCT token, amount::VARCHAR AS amount, transactionStatus FROM ${BILLINGS} WHERE chain = $1 AND ${inPlans})`,
    params,
  );
  const terms: { token: string; amount: string | null; status: string }[] = [];
  for await (const [token, amount, status, k] of db.columnChunks(`SELECT token, amount, transactionStatus, k FROM ${TERM_CODES}`, [])) {
    for (let i = 0; i < token.length; i++) terms[k[i] as number] = { token: token[i] as string, amount: amount[i] === null ? null : decimalText(amount[i] as string), status: status[i] as string };
  }
  const billings = db.columnChunks(
    `SELECT c.k AS sub, (list_position($${plans.length + 2}::VARCHAR[], b.planId) - 1)::DOUBLE AS plan, t.k AS term, success::DOUBLE AS success,
            CASE WHEN b.amount IS NULL THEN (inexact_amounts -> 'amount')::VARCHAR END AS sent,
            epoch(timestamp) AS timestamp, epoch(cycleStart) AS cycleStart, epoch(cycleEnd) AS cycleEnd,
            CASE WHEN c.k IS NULL OR b.amount IS NULL OR timestamp IS NULL OR cycleStart IS NULL OR cycleEnd IS NULL OR cycleEnd < cycleStart THEN transactionHash END AS hash
     FROM ${BILLINGS} AS b LEFT JOIN ${SUBSCRIPTION_CODES} AS c ON c.id = b.subscriptionId
       JOIN ${TERM_CODES} AS t ON t.token IS NOT DISTINCT FROM b.token AND t.amount IS NOT DISTINCT FROM b.amount::VARCHAR AND t.transactionStatus IS NOT DISTINCT FROM b.transactionStatus
     WHERE chain = $1 AND ${inPlans}`,
    [...params, listValue(plans)],
  );
  for await (const [sub, plan, term, success, sent, time, start, end, hash] of billings) {
    for (let i = 0; i < sub.length; i++) {
      if (sub[i] === null) throw new MalformedResponseError(`a billing has no subscriptionId (transactionHash ${printable(String(hash[i]))}): no subscription figure can be told without it`);
      const t = terms[term[i] as number];
      records.addBilling({
        subscriptionId: names[sub[i] as number],
        planId: plans[plan[i] as number],
        success: success[i] as number,
        amount: t.amount === null ? (sentValue(sent[i] as string | null) as string) : t.amount,
        token: t.token,
        timestamp: time[i] as number,
        cycleStart: start[i] as number,
        cycleEnd: end[i] as number,
        transactionStatus: t.status,
        transactionHash: hash[i] as string,
      });
    }
  }
  const cancellations = db.columnChunks(
    `SELECT subscriptionId, planId, epoch(timestamp) AS timestamp, forced, transactionStatus, transactionHash FROM ${CANCELLATIONS} WHERE chain = $1 AND ${inPlans}`,
    params,
  );
  for await (const [sub, plan, time, forced, status, hash] of cancellations) {
    for (let i = 0; i < sub.length; i++) {
      records.addCancellation({
        subscriptionId: sub[i] as string,
        planId: plan[i] as string,
        timestamp: time[i] as number,
        forced: forced[i] === true,
        transactionStatus: status[i] as string,
        transactionHash: hash[i] as string,
      });
    }
  }
  return records;
}

