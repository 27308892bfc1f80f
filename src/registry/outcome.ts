import type { Endpoint } from './types.js';
import { recordShape } from './record-shape.js';

// What a billing's outcome is (DESIGN.md "Answers finance and ops can sign"), read from
// the registry's record schemas: the one meaning that --status, --failed, --summary, the
// `outcome` column of exports and of the mirror's `transfers` view, and the subscription
// engine all use. A billing carries two signals (`success`, `transactionStatus`): it
// failed when `success` is not 1 or its status is `failed`; it paid when `success` is 1
// and its status `confirmed`; else it is pending.

/** The column billing exports carry besides the API's fields: paid, failed or pending. */
export const OUTCOME_FIELD = 'outcome';

/** A billing's two signals, as the API sends them (a number may come as text: schema drift). */
export interface BillingSignals {
  success: number;
  transactionStatus: string;
}

/** Lists whose records carry a `transactionStatus`: they take --status and --failed. */
export function hasStatus(endpoint: Pick<Endpoint, 'record'>): boolean {
  return 'transactionStatus' in recordShape(endpoint.record);
}

/** Records with a `success` signal besides their status (billings). */
export function hasSuccess(endpoint: Pick<Endpoint, 'record'>): boolean {
  return 'success' in recordShape(endpoint.record);
}

/** Failed: success not 1 or status failed (the one meaning of --failed and --summary). */
export function failedBilling(b: BillingSignals): boolean {
  return (b.success !== undefined && b.success !== null && Number(b.success) !== 1) || b.transactionStatus === 'failed';
}

/** Paid: success 1 and confirmed. Neither paid nor failed (pending) counts as neither. */
export function paidBilling(b: BillingSignals): boolean {
  return Number(b.success) === 1 && b.transactionStatus === 'confirmed';
}

/** How a billing counts, for a subscription's history (`payrec subscriptions ID`) and the `outcome` column. */
export function billingOutcome(b: BillingSignals): 'paid' | 'failed' | 'pending' {
  return failedBilling(b) ? 'failed' : paidBilling(b) ? 'paid' : 'pending';
}

/**
 * For lists of billings (a `success` signal besides the status): the record with its
 * `outcome`, so a spreadsheet filter on it gives the revenue --summary gives. Undefined
 * for other lists. In a list of several kinds of record (`payrec transfers`), only
 * billings have one.
 */
export function outcomeAdder(endpoint: Pick<Endpoint, 'record'>): ((record: Record<string, unknown>) => Record<string, unknown>) | undefined {
  if (!hasSuccess(endpoint) || !hasStatus(endpoint)) return undefined;
  const mixed = endpoint.record.type !== 'object';
  return (r) => (mixed && !('success' in r) ? r : { ...r, [OUTCOME_FIELD]: billingOutcome(r as unknown as BillingSignals) });
}
