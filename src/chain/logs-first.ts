import { toEventSelector, type Address } from 'viem';
import type { EventLog, Receipt } from './answers.js';
import { SPAN_TERMS } from './canonical-blocks.js';
import { valueAt, type Subject } from './decode.js';
import type { Wanted } from './event-spans.js';
import { EVENTS } from './model.js';
import type { Judgement } from './verdict.js';

// Logs first: a record's 8pay events read from eth_getLogs over the span of blocks its
// neighbours lie in, rather than from its own receipt (a call per record). Sound because a
// log eth_getLogs returns lies in the node's canonical block at its height, and only a
// transaction that succeeded has logs: a transaction whose expected events are in the
// spans, from 8pay's own addresses, is mined (not missing), in the canonical block (not
// reorged), not reverted and not spoofed; its confirmations come from its logs' height,
// its timestamp from their blockTimestamp (or the block). The spans' logs of a
// transaction are a subset of its receipt's; the filters make them every log decode.ts
// picks from for the collections below (see LOGS_FIRST), so a record they show verified
// its receipt shows verified too. Only that judgement is kept: `verified` or
// `unconfirmed` with no difference. Every other record (no log of its transaction in the
// spans, a field that differs, an event absent or from a look-alike, a block the node
// refused) goes through its receipt as before, so its verdict and differences are the
// receipt's, and bad records cost what they did.

const TRANSFER = toEventSelector(EVENTS.erc20Transfer);

/**
 * The collections judged by their logs, and why the spans hold every log decode.ts reads
 * for them. Two filters ask each span: every log of 8pay's contracts on the chain (no
 * topic: any event), and every ERC-20 `Transfer` whose `from` (topic1) is a record's API
 * `sender`, from any address. decode.ts picks 8pay's events only among 8pay's emitters
 * (all there), and a leg's token `Transfer`s only from the leg's sender (there whenever
 * the chain's sender is the API's; when not, the `sender` fact or the absent Transfer is
 * a difference, and the receipt judges). Their decoders read nothing of the receipt but
 * its logs, block and status: not `from`. Left out: fixed-recurring billings and
 * cancellations (`triggeredBy` is the receipt's `from`: a transaction read would cost
 * what the receipt does), wallet-to-wallet (no 8pay contract: its evidence is any
 * token's `Transfer` from a wallet the API does not name) and dollar-cost-average
 * executions (the leg's sender, the strategy's owner, is not in the API record).
 */
export const LOGS_FIRST: ReadonlySet<string> = new Set([
  // Payment, Receiver (OneTime), a leg per receiver: TransferSuccessful (Transfers), the token's Transfers from the sender.
  'one-time/payments',
  'one-time/transfers',
  // Billing (the product's Management), the leg from the API's sender.
  'variable-recurring/transfers',
  'on-demand/transfers',
  // ScheduleExecuted (ScheduledPayments), the leg from the API's sender.
  'scheduled-payments/transfers',
  // SubscriptionCancellationRequested (VR Subscriptions): no leg.
  'variable-recurring/cancellation-requests',
]);

/** Blocks a second before any is learnt: only how records are grouped depends on it, never a verdict. */
export const GUESSED_BLOCKS_PER_SECOND = 1;

/** The smallest group worth reading by logs: its first and last records' receipts give its heights. */
export const GROUP_MIN = 3;

/** The API's timestamp of a subject, when it is a whole number of seconds. */
export function secondOf(s: Subject): number | undefined {
  const t = valueAt(s.record, 'timestamp');
  return typeof t === 'number' && Number.isSafeInteger(t) ? t : undefined;
}

/**
 * Subjects sorted by their API timestamps and cut where two neighbours lie further apart
 * than a span of `spanBlocks` (at `blocksPerSecond`): a group's blocks are then read in
 * spans that each hold records. Groups too small to be worth it are left out.
 */
export function groups(subjects: readonly Subject[], blocksPerSecond: number, spanBlocks: bigint): Subject[][] {
  const timed = subjects.flatMap((s) => {
    const t = secondOf(s);
    return t === undefined ? [] : [{ s, t }];
  });
  timed.sort((a, b) => a.t - b.t);
  const out: Subject[][] = [];
  let group: Subject[] = [];
  timed.forEach(({ s, t }, i) => {
    if (i > 0 && (t - timed[i - 1].t) * blocksPerSecond > Number(spanBlocks)) {
      out.push(group);
      group = [];
    }
    group.push(s);
  });
  out.push(group);
  return out.filter((g) => g.length >= GROUP_MIN);
}

/** The two filters of LOGS_FIRST: 8pay's contracts whole, and the Transfers from these senders (SPAN_TERMS a filter). */
export function wantedFor(contracts: readonly string[], subjects: readonly Subject[]): Wanted[] {
  const senders = [...new Set(subjects.map((s) => valueAt(s.record, 'sender')).filter((v): v is string => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v)))];
  const topics = senders.map((a) => `0x${'0'.repeat(24)}${a.slice(2).toLowerCase()}`);
  const wanted: Wanted[] = [{ address: contracts }];
  for (let i = 0; i < topics.length; i += SPAN_TERMS) wanted.push({ topics: [TRANSFER, topics.slice(i, i + SPAN_TERMS)] });
  return wanted;
}

/**
 * A transaction as its spans' logs show it: mined in their block, succeeded. `from` is
 * not known from logs: no decoder of LOGS_FIRST reads it, and it is the zero address so
 * that one that did would find a difference, never a match.
 */
export function receiptOf(hash: string, logs: readonly EventLog[]): Receipt {
  const first = logs[0];
  return { transactionHash: hash as Receipt['transactionHash'], blockHash: first.blockHash, blockNumber: first.blockNumber, from: ZERO_ADDRESS, to: null, status: 'success', logs: [...logs] };
}

const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000';

/** A logs-first judgement kept: no difference (an unconfirmed one's only entry is its reason), and nothing a receipt could say worse (see the top of this file). */
export function kept(j: Judgement): boolean {
  return (j.verdict === 'verified' && j.differences.length === 0) || (j.verdict === 'unconfirmed' && j.differences.length === 1);
}
