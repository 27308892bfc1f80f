import { ApiError, UsageError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { createWriter } from '../core/output/writer.js';
import { printable } from '../core/output/sanitize.js';
import { formatLocal } from '../core/runtime/zone.js';
import { endpointWalk, fillPath } from '../core/lists/walk.js';
import { endpoints } from '../registry/endpoints.js';
import { mirrorExists, mirrorLocation } from '../mirror/location.js';
import { openMirror } from '../mirror/open.js';
import { billingOutcome, history, type BillingInput, type CancellationInput, type StateChange, type SubscriptionState } from '../subscriptions/engine.js';

// `payrec subscriptions ID`: one subscription's story as of --at. ID is its id, a
// billing's transactionHash or a prefix of its id (8 hex characters or more) that the
// mirror knows; the records come from the mirror when it holds the subscription (with
// its plan), else from the API (its billings and cancellation). The story is one table in
// time order: each attempt with its cycle and outcome, its cancellation, and each change
// of state with its date (started, past due since, lapsed, reactivated, renewed late,
// cancelled, ended), then what comes next unless a record arrives (past due on, lapses
// on, ends on).

const BILLINGS = endpoints.find((e) => e.path === '/fixed-recurring/subscriptions/:subscriptionId/billings')!;
const CANCELLATION = endpoints.find((e) => e.path === '/fixed-recurring/subscriptions/:subscriptionId/cancellation')!;
const SUMMARY_COLUMNS = ['subscriptionId', 'planId', 'state', 'token', 'amount', 'period', 'mrr', 'started', 'paidThrough', 'lastAttempt', 'failedAttempts', 'cancelledAt', 'forced', 'endsAt', 'daysPastDue'];
const ATTEMPT_COLUMNS = ['timestamp', 'cycleStart', 'cycleEnd', 'outcome', 'success', 'transactionStatus', 'amount', 'token', 'transactionHash'];
const STORY_COLUMNS = ['timestamp', 'event', 'state', 'outcome', 'cycleStart', 'cycleEnd', 'amount', 'token', 'transactionHash'];
const DAY = 86_400;
/** A full id or hash: 0x and 64 hex characters. */
const FULL = /^0x[0-9a-f]{64}$/;
/** A prefix the mirror can look up: 8 hex characters or more, 0x optional. */
const PREFIX = /^(0x)?[0-9a-f]{8,64}$/;

/** Checks ID before anything is read: a full id or hash, or a prefix of 8 hex characters or more. */
export function parseSubscriptionArgument(text: string): string {
  const id = text.toLowerCase();
  if (!PREFIX.test(id)) throw new UsageError(`invalid SUBSCRIPTION_ID "${printable(text)}": expected a subscription id or a billing's transactionHash (0x and 64 hex characters), or the first 8 hex characters or more of an id`);
  return id.startsWith('0x') ? id : `0x${id}`;
}

export async function showSubscription(session: Session, named: string, at: number, graceSeconds: number, db?: string): Promise<void> {
  const found = await fromMirror(session, named, db);
  if (!found && !FULL.test(named)) {
    throw new ApiError(`no subscription in the mirror has an id beginning with ${named}, or a billing with that transactionHash`, 404, 'mirror', 'sync the mirror (payrec sync), or give the whole subscription id to read it from the API');
  }
  const { subscriptionId, billings, cancellations, source } = found ?? { subscriptionId: named, ...(await fromApi(session, named, at)), source: 'the API' };
  const seen = billings.filter((b) => (b.timestamp as number) < at);
  const cancellation = cancellations.find((c) => (c.timestamp as number) < at);
  if (seen.length === 0 && cancellation === undefined) {
    throw new ApiError(`subscription ${subscriptionId} has no billing before ${formatLocal(at, session.zone)} ${session.zone} and no cancellation`, 404, BILLINGS.path, 'check the id, and --chain: records are per chain');
  }
  const planId = (seen.find((b) => typeof b.planId === 'string')?.planId as string | undefined) ?? null;
  const input = {
    billings: seen.map((b) => ({ ...b, planId: planId ?? '' }) as unknown as BillingInput),
    cancellations: cancellations.map((c) => ({ ...c, planId: planId ?? '' }) as unknown as CancellationInput),
  };
  const told = history(input, subscriptionId, { at, graceSeconds })!;
  const summary = told.row ? { ...pick(told.row, SUMMARY_COLUMNS), planId } : { subscriptionId, planId, state: 'not started (no paid billing)' };
  const attempts = seen.map((b) => ({ ...pick(b, ATTEMPT_COLUMNS), outcome: billingOutcome(b as unknown as BillingInput) }));
  const story = storyOf(attempts, cancellation, told.changes, told.next, graceSeconds);
  session.note(`subscription ${subscriptionId}: from ${source}`);

  const target = await session.openOutput();
  if (session.format === 'json') {
    const whole = { ...summary, story, attempts, cancellation: cancellation ?? null };
    const writer = createWriter(target.stream, session.output('single', Object.keys(whole)));
    await writer.write(whole);
    await writer.end();
  } else {
    // On a terminal the terms above the story; piped or exported, the story alone: one table a script can parse.
    if (session.format === 'table' && session.ctx.stdoutIsTTY && !session.flags.output) {
      const head = createWriter(target.stream, session.output('single', Object.keys(summary)));
      await head.write(summary);
      await head.end();
      target.stream.write('\n');
    } else {
      session.note(told.row ? `${told.row.state}, paid through ${formatLocal(told.row.paidThrough, session.zone)} ${session.zone}, plan ${planId ?? 'unknown (read from the API)'}` : 'not started (no paid billing)');
    }
    // Its rows differ by kind (a billing has no state, a change no amount): every export holds every column, whichever row comes first.
    // Stryker disable next-line StringLiteral: the writer tells only 'single' apart; any other kind is a list.
    const writer = createWriter(target.stream, { ...session.output('list', STORY_COLUMNS), fields: STORY_COLUMNS });
    for (const row of story) await writer.write(row);
    await writer.end();
  }
  await target.commit();
}

/** The subscription the mirror knows by `named`, with its records; undefined when there is no mirror or it names none. Several: exit 2 naming them. */
async function fromMirror(session: Session, named: string, db: string | undefined): Promise<{ subscriptionId: string; billings: Record<string, unknown>[]; cancellations: Record<string, unknown>[]; source: string } | undefined> {
  const location = await mirrorLocation(session, db);
  if (!mirrorExists(location)) return undefined;
  const { chain } = await session.settings();
  const mirror = await openMirror(session, location, 'read');
  try {
    const ids = await mirror.subscriptionsNamed(chain, named);
    if (ids.length === 0) return undefined;
    if (ids.length > 1) {
      const shown = ids.slice(0, 10).join(', ');
      throw new UsageError(`${named} begins the ids of ${ids.length > 10 ? 'more than 10' : ids.length} subscriptions in the mirror: ${shown}${ids.length > 10 ? ', …' : ''}`, 'give more of the id');
    }
    return { subscriptionId: ids[0], ...(await mirror.subscriptionRecordsOf(chain, ids[0])), source: 'the mirror' };
  } finally {
    mirror.close();
  }
}

/** Its billings stamped before --at and its cancellation, from the API. */
async function fromApi(session: Session, subscriptionId: string, at: number): Promise<{ billings: Record<string, unknown>[]; cancellations: Record<string, unknown>[] }> {
  const client = await session.client();
  const values = { subscriptionId };
  // Oldest first (the paginator keeps the walk exact while billings arrive).
  const billings: Record<string, unknown>[] = [];
  const walk = endpointWalk(client, BILLINGS, fillPath(BILLINGS, values), {});
  // Stryker disable next-line ArithmeticOperator: a billing stamped at --at or later, read by a later bound, is left out of the story as unseen.
  for await (const page of walk({ limit: Infinity, pageSize: 1000, offset: 0, concurrency: 1 }, 0, at - 1, 'asc')) billings.push(...page.records);
  try {
    return { billings, cancellations: [(await client.json({ method: 'GET', path: fillPath(CANCELLATION, values) })) as Record<string, unknown>] };
  } catch (err) {
    // No cancellation: the subscription was never cancelled.
    if (!(err instanceof ApiError && err.status === 404)) throw err;
    return { billings, cancellations: [] };
  }
}

/** Attempts, the cancellation and the changes of state, in time order (a record before the change it makes, a second later). */
function storyOf(attempts: Record<string, unknown>[], cancellation: Record<string, unknown> | undefined, changes: StateChange[], next: StateChange | undefined, grace: number): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = attempts.map((a) => ({ timestamp: a.timestamp, event: 'billing', ...pick(a, ['outcome', 'cycleStart', 'cycleEnd', 'amount', 'token', 'transactionHash']) }));
  if (cancellation) {
    const by = cancellation.forced === true ? 'forced by the plan' : 'by the customer';
    rows.push({ timestamp: cancellation.timestamp, event: 'cancellation', outcome: cancellation.transactionStatus === 'confirmed' ? by : `${by}, ${String(cancellation.transactionStatus)}`, transactionHash: cancellation.transactionHash });
  }
  const late = lateRenewals(attempts, changes, grace);
  let before: SubscriptionState | undefined;
  for (const c of changes) {
    if (late.folded.has(c)) continue;
    const seconds = late.renewals.get(c);
    const event = seconds === undefined ? changeName(before, c.state, cancellation) : `renewed late (${inWords(seconds)} after the cycle ended, within the ${grace / DAY}-day grace)`;
    rows.push({ timestamp: c.time, event, state: c.state });
    before = c.state;
  }
  if (next) rows.push({ timestamp: next.time, event: next.state === 'cancelled' ? 'ends on' : next.state === 'lapsed' ? 'lapses on' : 'past due on', state: next.state });
  // Stable: at one instant, records keep their order and come before the changes.
  return rows.sort((a, b) => (a.timestamp as number) - (b.timestamp as number));
}

/**
 * The renewals paid within the grace, each with how late it came (from the first unpaid
 * second, cycle end + 1, as daysPastDue counts), and the past-due changes they fold: a
 * renewal paid a few minutes after its cycle ended is not news. A past-due spell begins
 * the second after the cycle end; its renewal is the first paid billing stamped after
 * that end whose sight (a second after its stamp) makes the subscription active. One
 * stamped after cycle end + grace came once it had lapsed: it stays told as such.
 */
function lateRenewals(attempts: Record<string, unknown>[], changes: StateChange[], grace: number): { folded: Set<StateChange>; renewals: Map<StateChange, number> } {
  const folded = new Set<StateChange>();
  const renewals = new Map<StateChange, number>();
  for (const c of changes) {
    if (c.state !== 'past_due') continue;
    const cycleEnd = c.time - 1;
    for (const a of attempts) {
      const stamped = a.timestamp as number;
      const renewed = a.outcome === 'paid' && stamped > cycleEnd ? changes.find((d) => d.time === stamped + 1 && d.state === 'active') : undefined;
      if (!renewed) continue;
      if (stamped <= cycleEnd + grace) {
        folded.add(c);
        renewals.set(renewed, stamped - c.time);
      }
      break;
    }
  }
  return { folded, renewals };
}

/** A span in its two largest units, rounded down: 2 hours 55 minutes, 3 days, 40 seconds. */
function inWords(seconds: number): string {
  const units = [['day', DAY], ['hour', 3600], ['minute', 60], ['second', 1]] as const;
  const i = Math.max(0, units.findIndex(([, size]) => seconds >= size));
  const parts = units.slice(i, i + 2).map(([name, size], k) => [name, k === 0 ? Math.floor(seconds / size) : Math.floor((seconds % units[i][1]) / size)] as const);
  return parts.filter(([, n], k) => k === 0 || n > 0).map(([name, n]) => `${n} ${name}${n === 1 ? '' : 's'}`).join(' ');
}

function changeName(before: SubscriptionState | undefined, after: SubscriptionState, cancellation: Record<string, unknown> | undefined): string {
  if (after === 'active') return before === undefined ? 'started' : before === 'past_due' ? 'paid again' : 'reactivated';
  if (after === 'past_due') return 'past due since';
  if (after === 'lapsed') return 'lapsed';
  // Stryker disable next-line OptionalChaining: a subscription is cancelled only by a cancellation, so it is there.
  return cancellation?.forced === true ? 'cancelled' : 'ended';
}

function pick(record: object, keys: readonly string[]): Record<string, unknown> {
  const r = record as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => k in r).map((k) => [k, r[k]]));
}
