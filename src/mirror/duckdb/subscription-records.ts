import { MalformedResponseError } from '../../core/runtime/errors.js';
import { coverageOf } from '../coverage.js';
import { printable } from '../../core/output/sanitize.js';
import { doubles, integers } from './chunks.js';
import type { DuckDBValue } from './node-api.js';
import { outcomeCode, SubscriptionRecords, type BillingInput } from '../../subscriptions/engine.js';
import { STORE_SCHEMA } from './layout.js';
import { ident } from './ident.js';
import { CURSOR_TABLE, readSince } from './state.js';
import type { MirrorDb } from './connection.js';
import type { Coverage } from '../engine.js';

// What `payrec subscriptions` and `payrec metrics` read of the mirror: the
// fixed-recurring billings and cancellations of the plans synced, fed to the engine.
// A plan counts only when both of its lists were synced: billings without their
// cancellations would show cancelled subscriptions as active, a quiet wrong answer.

const BILLINGS = `${STORE_SCHEMA}.${ident('fixed_recurring_billings')}`;
const CANCELLATIONS = `${STORE_SCHEMA}.${ident('fixed_recurring_cancellations')}`;
/** A temporary table of this connection: each subscription id once, numbered. */
const SUBSCRIPTION_CODES = 'payrec_subscription_codes';
/** Another: each (plan, token, amount, status, success) of the billings once, numbered: their labels and outcomes. */
const LABEL_CODES = 'payrec_label_codes';

/** Plans and how far their lists were synced, for the chain (../coverage.ts). */
export async function subscriptionCoverage(db: MirrorDb, chain: string, wanted: readonly string[]): Promise<Coverage> {
  const rows = await db.rows(
    `SELECT collection, scope, cursor FROM ${CURSOR_TABLE}
     WHERE chain = $1 AND collection IN ('fixed-recurring/billings', 'fixed-recurring/cancellations') AND scope LIKE 'planId=%'`,
    [chain],
  );
  return coverageOf(rows.map((r) => ({ collection: String(r.collection), scope: String(r.scope), cursor: Number(r.cursor) })), chain, wanted, (collection, scope) => readSince(db, chain, collection, scope));
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
 * A billing the engine can take as numbers: it has a subscriptionId and an amount the
 * mirror kept, and its times are whole seconds with the cycle not ending before it
 * starts. Any other is read whole, so that the engine reads its amount from the text
 * sent or names it in its error.
 */
const REGULAR = `coalesce(subscriptionId IS NOT NULL AND amount IS NOT NULL AND cycleEnd >= cycleStart
  AND ${['timestamp', 'cycleStart', 'cycleEnd'].map((c) => `epoch_us(${c}) % 1000000 = 0 AND abs(epoch_us(${c})) <= ${Number.MAX_SAFE_INTEGER}`).join(' AND ')}, false)`;

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
  const billings = `(SELECT *, ${REGULAR} AS regular FROM ${BILLINGS} WHERE chain = $1 AND ${inPlans})`;
  // A million billings are read as numbers only, copied from DuckDB's chunks into the
  // engine's typed arrays with no JS value per billing (chunks.ts): a subscription's
  // place in a list of its ids read once, a label's place in a list of the distinct
  // (plan, token, amount, status, success) read once, and times as DOUBLE microseconds
  // (epoch_us: DuckDB takes about three times as long for epoch's seconds). No
  // text column is read per billing: besides costing time to decode, DuckDB held
  // about 40 MB more while a read carried the hashes (even as NULLs).
  await db.run(
    `CREATE OR REPLACE TEMP TABLE ${SUBSCRIPTION_CODES} AS SELECT subscriptionId AS id, (row_number() OVER (ORDER BY subscriptionId) - 1)::INTEGER AS k
     FROM (SELECT DISTINCT subscriptionId FROM ${BILLINGS} WHERE chain = $1 AND ${inPlans} AND subscriptionId IS NOT NULL)`,
    params,
  );
  // As one JSON text: a JS string made per id by the binding took about 100 ms for 28,000 ids.
  const [{ ids }] = await db.rows(`SELECT coalesce(to_json(list(id ORDER BY k)), '[]')::VARCHAR AS ids FROM ${SUBSCRIPTION_CODES}`, []);
  const subNumbers = (JSON.parse(ids as string) as string[]).map((id) => records.subscriptionNumber(id));
  await db.run(
    `CREATE OR REPLACE TEMP TABLE ${LABEL_CODES} AS SELECT *, (row_number() OVER () - 1)::INTEGER AS k
     FROM (SELECT DISTINCT planId, token, amount, transactionStatus, success FROM ${BILLINGS} WHERE chain = $1 AND ${inPlans} AND amount IS NOT NULL)`,
    params,
  );
  const labelNumbers: number[] = [];
  const outcomes: number[] = [];
  for await (const [k, planId, token, amount, status, success] of db.columnChunks(`SELECT k, planId, token, amount::VARCHAR, transactionStatus, success FROM ${LABEL_CODES}`, [])) {
    for (let i = 0; i < k.length; i++) {
      labelNumbers[k[i] as number] = records.labelNumber(token[i] as string, planId[i] as string, decimalText(amount[i] as string));
      outcomes[k[i] as number] = outcomeCode({ success: success[i] as number, transactionStatus: status[i] as string });
    }
  }
  // Every regular billing gives one row below (each joins one code of each kind), counted
  // first: a read that ends short of it fails (dataChunks) instead of leaving billings out.
  const [count] = await db.rows(`SELECT count(*) FILTER (WHERE regular)::DOUBLE AS regular, count(*) FILTER (WHERE NOT regular)::DOUBLE AS irregular FROM ${billings}`, params);
  if (count.irregular !== 0) for (const b of await readIrregular(db, billings, params)) records.addBilling(b);
  // In subscription and time order: the engine then reads each subscription's billings
  // side by side and in order, where it spent more than DuckDB's sort (about 0.4 s over
  // 1,000,000 billings) gathering and sorting them (records.ts). Billings of one
  // subscription stamped the same second may come in either order: no figure depends on
  // it (the state at t counts all of them or none, and a plan's terms never change).
  const { rows, chunks } = await db.dataChunks(
    `SELECT c.k AS sub, l.k AS label, epoch_us(b.timestamp)::DOUBLE AS time, epoch_us(b.cycleStart)::DOUBLE AS cycleStart, epoch_us(b.cycleEnd)::DOUBLE AS cycleEnd
     FROM ${billings} AS b
       JOIN ${SUBSCRIPTION_CODES} AS c ON c.id = b.subscriptionId
       JOIN ${LABEL_CODES} AS l ON l.planId = b.planId AND l.token IS NOT DISTINCT FROM b.token AND l.amount = b.amount
         AND l.transactionStatus IS NOT DISTINCT FROM b.transactionStatus AND l.success IS NOT DISTINCT FROM b.success
     WHERE b.regular
     ORDER BY sub, time`,
    params,
    count.regular as number,
  );
  records.reserve(rows);
  for await (const chunk of chunks) {
    const [sub, label, time, start, end] = [integers(chunk, 0), integers(chunk, 1), doubles(chunk, 2), doubles(chunk, 3), doubles(chunk, 4)];
    // rowCount is a call into the binding: read once, not at every row.
    for (let i = 0, n = chunk.rowCount; i < n; i++) {
      // A regular billing holds a value in every column read here (never NULL), and the
      // engine takes it: were it ever to refuse one, the figures would miss it, so stop.
      // Its times are whole seconds within ±2^53 µs (REGULAR): µs / 10^6 is exact.
      if (!records.addBillingNumbers(subNumbers[sub[i]], labelNumbers[label[i]], outcomes[label[i]], time[i] / 1e6, start[i] / 1e6, end[i] / 1e6)) {
        throw new Error(`the engine refused billing ${sub[i]}/${label[i]}/${time[i]}/${start[i]}/${end[i]}, which the mirror holds as regular`);
      }
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

/**
 * The billings that are not regular, whole, by their row. Read only when there are any:
 * this read scans every billing's texts, which costs about 40 MB more of DuckDB's memory.
 */
async function readIrregular(db: MirrorDb, billings: string, params: DuckDBValue[]): Promise<BillingInput[]> {
  const others: BillingInput[] = [];
  const rows = db.columnChunks(
    `SELECT subscriptionId, planId, success::DOUBLE, amount::VARCHAR, (inexact_amounts -> 'amount')::VARCHAR AS sent, token,
            epoch(timestamp) AS timestamp, epoch(cycleStart) AS cycleStart, epoch(cycleEnd) AS cycleEnd, transactionStatus, transactionHash
     FROM ${billings} WHERE NOT regular`,
    params,
  );
  for await (const [sub, plan, success, amount, sent, token, time, start, end, status, hash] of rows) {
    for (let i = 0; i < sub.length; i++) {
      if (sub[i] === null) throw new MalformedResponseError(`a billing has no subscriptionId (transactionHash ${printable(String(hash[i]))}): no subscription figure can be told without it`);
      others.push({
        subscriptionId: sub[i] as string,
        planId: plan[i] as string,
        success: success[i] as number,
        amount: amount[i] === null ? (sentValue(sent[i] as string | null) as string) : decimalText(amount[i] as string),
        token: token[i] as string,
        timestamp: time[i] as number,
        cycleStart: start[i] as number,
        cycleEnd: end[i] as number,
        transactionStatus: status[i] as string,
        transactionHash: hash[i] as string,
      });
    }
  }
  return others;
}


/**
 * The subscriptions of the mirror that `text` names (`payrec subscriptions ID`): the one
 * whose id it is, the one a billing of that transactionHash belongs to, or those whose
 * id begins with it (a prefix, in lower case).
 */
export async function subscriptionsNamed(db: MirrorDb, chain: string, text: string): Promise<string[]> {
  const rows = await db.rows(
    `SELECT DISTINCT subscriptionId AS id FROM (
       SELECT subscriptionId, transactionHash FROM ${BILLINGS} WHERE chain = $1
       UNION ALL SELECT subscriptionId, transactionHash FROM ${CANCELLATIONS} WHERE chain = $1)
     WHERE subscriptionId IS NOT NULL AND (starts_with(lower(subscriptionId), $2) OR lower(transactionHash) = $2)
     ORDER BY id LIMIT 11`,
    [chain, text],
  );
  return rows.map((r) => String(r.id));
}

/** One subscription's billings and cancellations in the mirror, whole, oldest first (with the plan the API's own list of them lacks). */
export async function subscriptionRecordsOf(db: MirrorDb, chain: string, subscriptionId: string): Promise<{ billings: Record<string, unknown>[]; cancellations: Record<string, unknown>[] }> {
  const read = (table: string, columns: string) =>
    db.rows(`SELECT ${columns} FROM ${table} WHERE chain = $1 AND subscriptionId = $2 ORDER BY timestamp, transactionHash`, [chain, subscriptionId]);
  const [billings, cancellations] = await Promise.all([
    read(BILLINGS, `subscriptionId, planId, success::DOUBLE AS success, amount::VARCHAR AS amount, (inexact_amounts -> 'amount')::VARCHAR AS sent, token, epoch(timestamp) AS timestamp, epoch(cycleStart) AS cycleStart, epoch(cycleEnd) AS cycleEnd, transactionHash, transactionStatus`),
    read(CANCELLATIONS, `subscriptionId, planId, epoch(timestamp) AS timestamp, forced, transactionHash, transactionStatus`),
  ]);
  // An amount the mirror could not keep as a DECIMAL is the value the service sent.
  const amounts = ({ sent, ...b }: Record<string, unknown>) => ({ ...b, amount: b.amount === null ? sentValue(sent as string | null) : decimalText(b.amount as string) });
  return { billings: billings.map(amounts), cancellations };
}
