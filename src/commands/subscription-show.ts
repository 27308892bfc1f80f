import { ApiError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { createWriter } from '../core/output/writer.js';
import { formatLocal } from '../core/runtime/zone.js';
import { endpointWalk, fillPath } from '../core/lists/run-endpoint.js';
import { endpoints } from '../registry/endpoints.js';
import { billingOutcome, ledger, type BillingInput, type CancellationInput } from '../subscriptions/engine.js';

// `payrec subscriptions SUBSCRIPTION_ID`: one subscription whole, read from the API
// (its billings and its cancellation), no mirror needed: its terms and state as of
// --at, every billing attempt in order with the cycle it tried and its outcome, and
// its cancellation.

const BILLINGS = endpoints.find((e) => e.path === '/fixed-recurring/subscriptions/:subscriptionId/billings')!;
const CANCELLATION = endpoints.find((e) => e.path === '/fixed-recurring/subscriptions/:subscriptionId/cancellation')!;
const SUMMARY_COLUMNS = ['subscriptionId', 'state', 'token', 'amount', 'period', 'mrr', 'started', 'paidThrough', 'lastAttempt', 'failedAttempts', 'cancelledAt', 'forced'];
const ATTEMPT_COLUMNS = ['timestamp', 'cycleStart', 'cycleEnd', 'outcome', 'success', 'transactionStatus', 'amount', 'token', 'transactionHash'];

export async function showSubscription(session: Session, subscriptionId: string, at: number, graceSeconds: number): Promise<void> {
  const client = await session.client();
  const values = { subscriptionId };
  // Every billing stamped before --at (what the state as of --at reads), oldest first (the paginator keeps the walk exact while billings arrive).
  const billings: Record<string, unknown>[] = [];
  const walk = endpointWalk(client, BILLINGS, fillPath(BILLINGS, values), {});
  for await (const page of walk({ limit: Infinity, pageSize: 1000, offset: 0, concurrency: 1 }, 0, at - 1, 'asc')) billings.push(...page.records);
  let cancellation: Record<string, unknown> | undefined;
  try {
    cancellation = (await client.json({ method: 'GET', path: fillPath(CANCELLATION, values) })) as Record<string, unknown>;
  } catch (err) {
    // No cancellation: the subscription was never cancelled.
    if (!(err instanceof ApiError && err.status === 404)) throw err;
  }
  if (billings.length === 0 && cancellation === undefined) {
    throw new ApiError(`subscription ${subscriptionId} has no billing before ${formatLocal(at, session.zone)} ${session.zone} and no cancellation`, 404, BILLINGS.path, 'check the id, and --chain: records are per chain');
  }
  // The API's billings of a subscription do not name its plan; the state needs none.
  const input = {
    billings: billings.map((b) => ({ ...b, planId: '' }) as unknown as BillingInput),
    cancellations: cancellation ? [{ ...cancellation, planId: '' } as unknown as CancellationInput] : [],
  };
  const [row] = ledger(input, { at, graceSeconds });
  const attempts = billings.map((b) => ({ ...pick(b, ATTEMPT_COLUMNS), outcome: billingOutcome(b as unknown as BillingInput) }));
  const target = await session.openOutput();
  if (session.format === 'json') {
    const whole = { subscriptionId, ...(row ? pick(row, SUMMARY_COLUMNS) : { state: 'not started' }), attempts, cancellation: cancellation ?? null };
    const writer = createWriter(target.stream, session.output('single', Object.keys(whole)));
    await writer.write(whole);
    await writer.end();
  } else {
    if (session.format === 'table') {
      const summary = row ? pick(row, SUMMARY_COLUMNS) : { subscriptionId, state: 'not started (no paid billing)' };
      const head = createWriter(target.stream, session.output('single', Object.keys(summary)));
      await head.write(summary);
      await head.end();
      target.stream.write('\n');
    } else {
      session.note(row ? `subscription ${subscriptionId}: ${row.state}, paid through ${formatLocal(row.paidThrough, session.zone)} ${session.zone}` : `subscription ${subscriptionId}: not started (no paid billing)`);
    }
    const writer = createWriter(target.stream, session.output('list', ATTEMPT_COLUMNS));
    for (const a of attempts) await writer.write(a);
    await writer.end();
  }
  await target.commit();
  if (cancellation && session.format !== 'json') session.note(`cancelled at ${formatLocal(Number(cancellation.timestamp), session.zone)} ${session.zone} (${cancellation.forced ? 'forced by the plan' : 'by the customer'}), transaction ${cancellation.transactionHash}, ${cancellation.transactionStatus}`);
}

function pick(record: object, keys: readonly string[]): Record<string, unknown> {
  const r = record as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => k in r).map((k) => [k, r[k]]));
}
