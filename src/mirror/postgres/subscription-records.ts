import { MalformedResponseError } from '../../core/runtime/errors.js';
import { printable } from '../../core/output/sanitize.js';
import { SubscriptionRecords } from '../../subscriptions/engine.js';
import { withoutPaddingZeros } from '../result-text.js';
import type { PgConnection } from './connection.js';

// What `payrec subscriptions` and `payrec metrics` read of a mirror on PostgreSQL: the
// fixed-recurring billings and cancellations of the plans synced, fed to the engine as
// the API sent them. An amount kept only as text (inexact_amounts) reaches the engine
// as the value the service sent, so the figures fail naming it (exit 6) rather than
// leave it out.

const BILLING_COLUMNS = `"subscriptionId", "planId", success::FLOAT8 AS success, amount::TEXT AS amount, inexact_amounts -> 'amount' AS sent, token,
  extract(epoch FROM "timestamp")::FLOAT8 AS "timestamp", extract(epoch FROM "cycleStart")::FLOAT8 AS "cycleStart", extract(epoch FROM "cycleEnd")::FLOAT8 AS "cycleEnd", "transactionHash", "transactionStatus"`;
const CANCELLATION_COLUMNS = `"subscriptionId", "planId", extract(epoch FROM "timestamp")::FLOAT8 AS "timestamp", forced, "transactionHash", "transactionStatus"`;

type Row = Record<string, string | null>;

/** A billing row as the API sent it: numbers as numbers, the amount as its text (or what was sent where no decimal was). */
function billing(r: Row): Record<string, unknown> {
  return {
    subscriptionId: r.subscriptionId,
    planId: r.planId,
    success: r.success === null ? null : Number(r.success),
    amount: r.amount === null ? (r.sent === null ? null : JSON.parse(r.sent)) : withoutPaddingZeros(r.amount),
    token: r.token,
    timestamp: Number(r.timestamp),
    cycleStart: r.cycleStart === null ? null : Number(r.cycleStart),
    cycleEnd: r.cycleEnd === null ? null : Number(r.cycleEnd),
    transactionHash: r.transactionHash,
    transactionStatus: r.transactionStatus,
  };
}

function cancellation(r: Row): Record<string, unknown> {
  return { subscriptionId: r.subscriptionId, planId: r.planId, timestamp: Number(r.timestamp), forced: r.forced === 't', transactionHash: r.transactionHash, transactionStatus: r.transactionStatus };
}

export class PgSubscriptions {
  constructor(
    private readonly db: PgConnection,
    /** The stored tables of billings and cancellations, qualified. */
    private readonly billings: string,
    private readonly cancellations: string,
  ) {}

  /** The billings and cancellations of `plans` on `chain`, as the engine keeps them. */
  async records(chain: string, plans: readonly string[]): Promise<SubscriptionRecords> {
    const records = new SubscriptionRecords();
    if (plans.length === 0) return records;
    const billings = await this.db.rows(`SELECT ${BILLING_COLUMNS} FROM ${this.billings} WHERE chain = $1 AND "planId" = ANY($2) ORDER BY "subscriptionId", "timestamp"`, [chain, plans]);
    records.reserve(billings.length);
    for (const r of billings) {
      if (r.subscriptionId === null) throw new MalformedResponseError(`a billing has no subscriptionId (transactionHash ${printable(String(r.transactionHash))}): no subscription figure can be told without it`);
      records.addBilling(billing(r) as unknown as Parameters<SubscriptionRecords['addBilling']>[0]);
    }
    const cancellations = await this.db.rows(`SELECT ${CANCELLATION_COLUMNS} FROM ${this.cancellations} WHERE chain = $1 AND "planId" = ANY($2)`, [chain, plans]);
    for (const r of cancellations) records.addCancellation(cancellation(r) as unknown as Parameters<SubscriptionRecords['addCancellation']>[0]);
    return records;
  }

  /** The subscriptions `text` names: its id, a billing's transactionHash, or an id's prefix (lower case). */
  async named(chain: string, text: string): Promise<string[]> {
    const rows = await this.db.rows(
      `SELECT DISTINCT "subscriptionId" AS id FROM (
         SELECT "subscriptionId", "transactionHash" FROM ${this.billings} WHERE chain = $1
         UNION ALL SELECT "subscriptionId", "transactionHash" FROM ${this.cancellations} WHERE chain = $1) AS r
       WHERE "subscriptionId" IS NOT NULL AND (starts_with(lower("subscriptionId"), $2) OR lower("transactionHash") = $2)
       ORDER BY id LIMIT 11`,
      [chain, text],
    );
    return rows.map((r) => r.id!);
  }

  /** One subscription's billings and cancellations, whole, oldest first. */
  async of(chain: string, subscriptionId: string): Promise<{ billings: Record<string, unknown>[]; cancellations: Record<string, unknown>[] }> {
    const read = (table: string, columns: string) => this.db.rows(`SELECT ${columns} FROM ${table} WHERE chain = $1 AND "subscriptionId" = $2 ORDER BY "timestamp", "transactionHash"`, [chain, subscriptionId]);
    const [billings, cancellations] = await Promise.all([read(this.billings, BILLING_COLUMNS), read(this.cancellations, CANCELLATION_COLUMNS)]);
    return { billings: billings.map(billing), cancellations: cancellations.map(cancellation) };
  }
}
