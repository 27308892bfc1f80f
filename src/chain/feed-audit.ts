import type { Address } from 'viem';
import { decimalOf } from './feed-legs.js';
import { pairOf } from './feed-model.js';
import type { FeedReader, FeedRound, OpenFeed } from './feeds.js';
import { FIAT, type RateRow } from '../values/rates-file.js';
import { isoTime } from '../values/selection.js';
import { plainDecimal } from '../values/valuation.js';

// The auditor's re-check (`payrec rates check`, docs/values.md "The auditor's re-check"):
// every Chainlink rate of a rates file is read again on chain, its round and the round
// after it, which proves until when it was in force. A rate is the same when the round
// answers it (answer ÷ 10^decimals of its phase, > 0), was written at the row's time, by
// the feed of the row's token, and no later round of the same second replaced it.

/** A Chainlink rateSource: `chainlink:bsc:0x0567…:round=18446744073709552617`. */
const SOURCE = /^chainlink:([a-z0-9-]+):(0x[0-9a-fA-F]{40}):round=(\d{1,30})$/;
const AGGREGATOR_ROUND = 0xffffffffffffffffn;

export interface AuditedRate {
  /** The rates file's line. */
  line: number;
  chain: string;
  token: string;
  currency: string;
  feed: string;
  round: string;
  rate: string;
  time: number | null;
  /** The next round's updatedAt: the end of this round's validity; undefined for the feed's latest round. */
  until?: number;
  /** same, differs, or not checked (a rate of another chain's feed: this run's node serves one chain). */
  verdict: 'same' | 'differs' | 'not checked';
  /** What differs (or why not checked); empty when the same. */
  problem: string;
}

export interface Audit {
  rates: AuditedRate[];
  /** Rows whose source is not a Chainlink round (a team's rate, a peg): nothing on chain to re-read. */
  others: number;
}

/** Re-reads every Chainlink rate of `rows` on the reader's chain, in one batch per feed. */
export async function auditRates(reader: FeedReader, rows: readonly RateRow[]): Promise<Audit> {
  const rates: AuditedRate[] = [];
  // By feed and the pair its rows say it is (a row naming another token's feed is refused as that token's).
  const byFeed = new Map<string, { address: Address; row: RateRow; audited: AuditedRate; id: bigint }[]>();
  let others = 0;
  for (const row of rows) {
    if (!row.source.startsWith('chainlink:')) {
      others++;
      continue;
    }
    const m = SOURCE.exec(row.source);
    const audited: AuditedRate = { line: row.line, chain: row.chain, token: row.token, currency: row.currency, feed: m?.[2].toLowerCase() ?? '', round: m?.[3] ?? '', rate: row.rate, time: row.time, verdict: 'differs', problem: '' };
    rates.push(audited);
    if (!m) audited.problem = 'the source is not one round of a feed (chainlink:CHAIN:ADDRESS:round=ID)';
    else if (m[1] !== reader.chain) Object.assign(audited, { verdict: 'not checked', problem: `a feed of ${m[1]}: check it with --chain ${m[1]} and a node of that chain` });
    else if (row.chain !== m[1] && row.chain !== FIAT) audited.problem = `the row is on ${row.chain}, its source a feed of ${m[1]}`;
    else if (row.currency !== 'USD') audited.problem = `a Chainlink feed of payrec's gives USD, not ${row.currency}`;
    else if (row.time === null) audited.problem = 'a constant (*) row is no round of a feed';
    else {
      const address = audited.feed as Address;
      const key = `${address} ${pairOf(row.token)}`;
      const list = byFeed.get(key) ?? [];
      list.push({ address, row, audited, id: BigInt(m[3]) });
      byFeed.set(key, list);
    }
  }
  await Promise.all(
    [...byFeed.values()].map(async (items) => {
      const { address } = items[0];
      const feed = await reader.open(address, pairOf(items[0].row.token));
      if ('refused' in feed) {
        for (const { audited } of items) audited.problem = feed.refused;
        return;
      }
      // Each round and the one after it in its phase, read in one batch.
      const phaseOf = (id: bigint) => feed.phases.find((p) => BigInt(p.phaseId) === id >> 64n);
      const ids = [...new Set(items.flatMap(({ id }) => (phaseOf(id) ? [id, id + 1n] : [])))];
      const read = await reader.client.each(ids, (id) => reader.round(address, id, phaseOf(id)!.decimals));
      const rounds = new Map(ids.map((id, i) => [id, read[i]]));
      for (const { row, audited, id } of items) audited.problem = problemOf(feed, row, id, rounds, audited);
      for (const { audited } of items) if (audited.problem === '') audited.verdict = 'same';
    }),
  );
  return { rates, others };
}

/** What differs between the row and the chain, or '' (and `audited.until` set) when nothing does. */
function problemOf(feed: OpenFeed, row: RateRow, id: bigint, rounds: ReadonlyMap<bigint, FeedRound | null>, audited: AuditedRate): string {
  const phase = feed.phases.find((p) => BigInt(p.phaseId) === id >> 64n);
  if (!phase || (id & AGGREGATOR_ROUND) === 0n) return `the feed has no round ${id} (no phase ${id >> 64n})`;
  const round = rounds.get(id);
  if (!round) return `round ${id} is absent: it reverts or answers zeros`;
  // The round after it: the next of its phase, else the first of the next phase; none for the latest.
  const next = rounds.get(id + 1n) ?? feed.phases.find((p) => p.phaseId > phase.phaseId)?.first;
  if (round.answer <= 0n) return `round ${id} answers ${round.answer}, never a rate`;
  const rate = decimalOf(round.answer, round.decimals);
  if (plainDecimal(rate) !== plainDecimal(row.rate)) return `round ${id} answers ${rate} (${round.answer} ÷ 10^${round.decimals}), not ${row.rate}`;
  const time = row.time!;
  if (next && next.updatedAt <= time) return `round ${id} was not in force at ${isoTime(time)}: round ${next.roundId} replaced it at ${isoTime(next.updatedAt)}`;
  if (round.updatedAt !== time) return `round ${id} was written at ${isoTime(round.updatedAt)}, not at ${isoTime(time)}`;
  audited.until = next?.updatedAt;
  return '';
}
