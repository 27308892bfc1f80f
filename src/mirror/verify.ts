import { InterruptedError } from '../core/runtime/errors.js';
import type { Subject } from '../chain/decode.js';
import { withPaymentTags } from '../chain/payment-tags.js';
import { verifiable } from '../chain/verifiable.js';
import { combine, subjectsOf, type Verifier } from '../chain/verifier.js';
import type { MirroredCollection } from './catalog.js';
import type { VerifyOptions, VerifyReport, VerifyScope } from './engine.js';

// `payrec verify` on the mirror, whatever the engine: every record not yet final is
// checked against the chain, a batch at a time, and its verdict stored in
// `chain_verdicts` beside the records, committed batch by batch (an interrupted run keeps
// what it verified). Before that, the blocks of final records above the node's
// `finalized` (or `safe`) block are read again: one whose hash changed is reorged, and its
// receipt read again in the same run. The engine's part (verdict stores: DuckDB's
// duckdb/verdicts.ts, PostgreSQL's postgres/verdicts.ts) is storage: which records are not
// final, writing verdicts, counting them; the rules of what is final are theirs in SQL.

/** Records verified per batch: one commit each. */
export const VERIFY_BATCH = 1000;

/** A record read for verifying, as the API wrote it. */
export interface VerifyRow {
  key: string;
  /** The record's timestamp in microseconds (batches are read in time order). */
  time: number;
  record: Record<string, unknown>;
  planId?: string;
  /** One-time transfers: the mirror's tag of the payment its oneTimeId names. */
  paymentTag?: string;
}

/** One verdict to store: a record's, or a wallet-to-wallet payment's receiver's (`<id> receivers[i]`). */
export interface VerdictLine {
  chain: string;
  collection: string;
  record: string;
  transactionHash: string | null;
  verdict: string;
  blockNumber: number | null;
  blockHash: string | null;
  confirmations: number | null;
  /** The differences found, as JSON text. */
  chainDiff: string;
}

/** What one run knows of the chain: its final block (none when the node tells none), its head, and the run's instant (ISO 8601). */
export interface VerifyRun {
  final: bigint | undefined;
  head: bigint;
  runAt: string;
}

/** The storage of verdicts that verifyMirror needs of an engine. */
export interface VerdictStore {
  /** Makes chain_verdicts and chain_acks where they are missing. */
  ensure(): Promise<void>;
  /** Up to VERIFY_BATCH records of the collection not yet final (in the scope's window), in time order, after `after`. */
  readBatch(c: MirroredCollection, chain: string, scope: VerifyScope, after: { time: number; key: string } | undefined): Promise<VerifyRow[]>;
  /** Stores a batch's verdicts in one transaction (final or not, and since when each verdict stands). */
  store(lines: VerdictLine[], run: VerifyRun): Promise<void>;
  /** Final verdicts of the collection (in the window) whose block is above the final block and at most the head: their record, block number (text) and hash. */
  judgedBlocks(c: MirroredCollection, chain: string, scope: VerifyScope, run: VerifyRun): Promise<{ record: string; n: string; h: string }[]>;
  /** Marks these records' verdicts reorged and not final. */
  markReorged(chain: string, collection: string, records: string[], run: VerifyRun): Promise<void>;
  /** The collection's verdicts (of the window) by verdict: all, new in this run, acknowledged, and acknowledged news. */
  count(c: MirroredCollection, chain: string, scope: VerifyScope, runAt: string): Promise<Pick<VerifyReport, 'verdicts' | 'news' | 'acked' | 'ackedNews'>>;
  /** Between batches: lets waiting readers in (DuckDB's file). */
  letReadersIn(): Promise<void>;
}

/** Puts an amount the table could not hold back in its place, as its text (inexact_amounts keeps it by path). */
export function restore(record: Record<string, unknown>, path: string, text: unknown): void {
  const parts = path.split(/\.|(?=\[)/).map((p) => /^\[(\d+)\]$/.exec(p)?.[1] ?? p);
  let at: unknown = record;
  for (const part of parts.slice(0, -1)) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined;
  if (at !== null && typeof at === 'object') (at as Record<string, unknown>)[parts.at(-1)!] = text;
}

/** Verifies the chain's records of `collections` not yet final; returns a report per collection. */
export async function verifyMirror(store: VerdictStore, verifier: Verifier, o: VerifyOptions): Promise<VerifyReport[]> {
  await store.ensure();
  // One instant names this run's news (verdictSince); checkedAt stays each batch's own commit time.
  const run: VerifyRun = { runAt: new Date().toISOString(), final: await verifier.finalHeight(), head: await verifier.client.blockNumber() };
  const reports: VerifyReport[] = [];
  let done = 0;
  for (const c of o.collections.filter((x) => verifiable(x.name))) {
    // Reorgs first: a final record found reorged is judged again below, by its receipt, in this run.
    const newlyReorged = await noticeReorgs(store, verifier, o.chain, c, o.scope, run);
    let checked = 0;
    let after: { time: number; key: string } | undefined;
    for (;;) {
      const rows = await store.readBatch(c, o.chain, o.scope, after);
      if (rows.length === 0) break;
      after = { time: rows.at(-1)!.time, key: rows.at(-1)!.key };
      const subjects = rows.map((r) => subjectsOf(c.name, r.record, r.planId));
      for (const r of rows) if (r.paymentTag !== undefined) o.tags.add(String(r.record.oneTimeId), r.paymentTag);
      await withPaymentTags(subjects.flat(), o.tags);
      const judged = await verifier.verify(subjects.flat());
      await store.store(verdictLines(o.chain, c.name, rows, subjects, judged), run);
      checked += judged.length;
      done += rows.length;
      o.progress?.(done);
      await store.letReadersIn();
      if (o.signal.aborted) throw new InterruptedError();
    }
    reports.push({ collection: c.name, checked, newlyReorged, ...(await store.count(c, o.chain, o.scope, run.runAt)) });
  }
  return reports;
}

/** A batch's verdicts, one per subject (a record, or each receiver of a wallet-to-wallet payment); a record with none gets combine([])'s. */
function verdictLines(chain: string, collection: string, rows: VerifyRow[], subjects: Subject[][], judged: Awaited<ReturnType<Verifier['verify']>>): VerdictLine[] {
  const lines: VerdictLine[] = [];
  let k = 0;
  rows.forEach((row, i) => {
    for (const s of subjects[i]) {
      const j = judged[k++];
      const receiver = s.receiver;
      const hash = receiver === undefined ? row.record.transactionHash : (row.record.receivers as Record<string, unknown>[])[receiver].transactionHash;
      lines.push({
        chain,
        collection,
        record: receiver === undefined ? row.key : `${row.key} receivers[${receiver}]`,
        transactionHash: typeof hash === 'string' ? hash : null,
        verdict: j.verdict,
        blockNumber: j.blockNumber,
        blockHash: j.blockHash,
        confirmations: j.confirmations,
        chainDiff: JSON.stringify(j.differences),
      });
    }
    if (subjects[i].length === 0) {
      const j = combine([]);
      lines.push({ chain, collection, record: row.key, transactionHash: null, verdict: j.verdict, blockNumber: null, blockHash: null, confirmations: null, chainDiff: JSON.stringify(j.differences) });
    }
  });
  return lines;
}

/**
 * Final verdicts whose block is no longer the canonical one at its height become
 * reorged, not final (their receipts are read again in this run); returns how many.
 * Only blocks above the node's final block are read: one at or below it cannot change.
 * A height above the node's head is a node that lags, not a reorg: left as it is.
 */
async function noticeReorgs(store: VerdictStore, verifier: Verifier, chain: string, c: MirroredCollection, scope: VerifyScope, run: VerifyRun): Promise<number> {
  const judged = await store.judgedBlocks(c, chain, scope, run);
  if (judged.length === 0) return 0;
  const canonical = await verifier.canonicalHashes([...new Set(judged.map((b) => BigInt(b.n)))]);
  const moved = judged.filter((b) => canonical.get(BigInt(b.n)) !== b.h).map((b) => b.record);
  if (moved.length > 0) await store.markReorged(chain, c.name, moved, run);
  return moved.length;
}
