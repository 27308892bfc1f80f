import type { Endpoint } from '../../registry/types.js';
import { InterruptedError } from '../runtime/errors.js';
import type { Session } from '../runtime/session.js';
import { formatDuration } from '../runtime/time.js';
import { formatIso } from '../runtime/zone.js';
import { createWriter } from '../output/writer.js';
import type { OutputOptions } from '../output/options.js';
import type { ListQuery, MergedList, WalkWindow } from './list-query.js';
import { identityOf, type Concurrency } from './paginate.js';
import { checkRecord } from './records.js';
import { outcomeAdder } from '../../registry/outcome.js';

// --follow: poll for new records and print each one once (like `stripe logs tail`).
//
// Records can appear late: indexed after their block, with a timestamp already in
// the past (up to the lookback). So each poll re-reads, oldest first and exactly (the
// paginator's guarantee), everything from `lookback` before the previous poll began up
// to now; a record that appeared since then, however late its timestamp, is in that
// window. Identities already printed are remembered with their timestamp and
// forgotten once they fall out of every future window, so memory stays bounded by
// the records of one lookback, however long it runs.
//
// Without --from, what was stamped before following started is not new: the first
// poll only learns it. A record stamped at or after the start is new even when the
// first poll already sees it (it arrived while payrec was starting or while that poll
// ran). Times are whole seconds, so "at or after" is the start's second: a record of
// that second that existed a moment before the start is printed too, never one missed.
// With --from, the first poll prints the records since then as well.

/** `pace`: the client's window (--concurrency fixed, or finding the pace), as every list's walk. */
export async function follow(session: Session, endpoint: Endpoint | MergedList, walk: WalkWindow, q: ListQuery, options: OutputOptions, pace: Concurrency): Promise<void> {
  const { ctx } = session;
  const { intervalMs, lookbackSeconds, startedAt } = q.follow!;
  const identity = identityOf(endpoint);
  const outcome = outcomeAdder(endpoint);
  /** Identity → timestamp of every record printed (or known at the start) that a later poll may see again. */
  const seen = new Map<string, number>();
  const target = await session.openOutput();
  // One document however long it runs: on a terminal, one table that grows a line per record.
  const writer = createWriter(target.stream, { ...options, growing: true });
  session.notice(
    `Following ${'title' in endpoint ? endpoint.title : `${endpoint.product} ${endpoint.command.join(' ')}`}${q.from === undefined ? '' : ` since ${formatIso(q.from, session.zone)}`}: ` +
      `each new record once, late ones up to ${formatDuration(lookbackSeconds)} old (every ${intervalMs / 1000} s; Ctrl-C to stop)`,
  );

  // The in-process emulator serves the data of its start, and nothing arrives after it.
  if (session.flags.emulator) {
    session.note('--emulator runs an emulator without live traffic: no new record will come; for records that keep arriving, run payrec emulator start --live 20 and follow it (see its PAYREC_BASE_URL)');
  }

  let previousPoll: number | undefined;
  try {
    while (!ctx.signal.aborted) {
      const pollStarted = Math.floor(ctx.now() / 1000);
      const from = previousPoll === undefined ? (q.from ?? pollStarted - lookbackSeconds) : Math.max(q.from ?? 0, previousPoll - lookbackSeconds);
      const learnOnly = previousPoll === undefined && q.from === undefined;
      const fresh: Record<string, unknown>[] = [];
      for await (const page of walk({ limit: Infinity, pageSize: 1000, offset: 0, concurrency: pace }, from, pollStarted, 'asc')) {
        for (const raw of page.records) {
          const r = checkRecord(endpoint, raw, session);
          const id = identity(r);
          if (seen.has(id)) continue;
          seen.set(id, r.timestamp as number);
          if (!learnOnly || (r.timestamp as number) >= startedAt) fresh.push(outcome ? outcome(r) : r);
        }
      }
      for (const r of fresh) await writer.write(r);
      // The next poll starts at or after this one: nothing older than its window comes back.
      const nextFrom = Math.max(q.from ?? 0, pollStarted - lookbackSeconds);
      for (const [id, ts] of seen) if (ts < nextFrom) seen.delete(id);
      previousPoll = pollStarted;
      await sleep(intervalMs, ctx.signal);
    }
  } catch (err) {
    if (!(err instanceof InterruptedError) && !ctx.signal.aborted) throw err;
  }
  // Ctrl-C is how following ends: close the document, keep what was written.
  await writer.end();
  await target.commit();
  throw new InterruptedError();
}

/** Waits `ms`, or less when interrupted; leaves no listener behind on the signal either way. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
