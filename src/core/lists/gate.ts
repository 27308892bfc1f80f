import { GateMatched, InterruptedError } from '../runtime/errors.js';
import type { Session } from '../runtime/session.js';
import { Progress } from '../output/progress.js';
import type { PageWindow, Page } from './paginate.js';
import { grouped } from '../output/grouped.js';

// The third step of a list (walk → enrich → gate → render): --limit counts the records
// kept and cuts the walk; the run then says when fewer records were shown than the
// window holds, and --fail-if-any exits 9 when any matched.

/** What the walk gave the output: records taken, the list's latest total, whether --limit cut it. */
export interface Taken {
  count: number;
  total: number;
  /** The walk stopped at --limit before the list ended: more records may match. */
  cut: boolean;
}

/**
 * Takes records from `pages` up to the window's limit, handing each to `take`, with a
 * progress line. `filtered`: some records were dropped before (walk.ts, enrich.ts), so
 * progress counts the records read (`read()`), and --limit counts those kept.
 */
export async function takeRecords(
  session: Session,
  pages: AsyncIterable<Page>,
  w: PageWindow,
  o: { filtered: boolean; read: () => number },
  take: (record: Record<string, unknown>) => void | Promise<void>,
): Promise<Taken> {
  const progress = new Progress(session, w.limit === Infinity);
  let total = 0;
  let count = 0;
  let cut = false;
  try {
    walking: for await (const page of pages) {
      total = page.total;
      for (const r of page.records) {
        if (count >= w.limit) {
          cut = true;
          break walking;
        }
        // Only wait when the output asks to (backpressure): no microtask per record.
        const waiting = take(r);
        if (waiting) await waiting;
        count++;
      }
      const read = o.read();
      await progress.update(o.filtered ? read : count, o.filtered ? Math.max(read, total - w.offset) : Math.min(w.limit, Math.max(0, total - w.offset)));
      if (session.ctx.signal.aborted) throw new InterruptedError();
      if (o.filtered && count >= w.limit) {
        cut = true;
        break;
      }
    }
  } finally {
    progress.stop();
  }
  // Only --limit cuts a list short: a whole walk (--all) that read everything of its
  // window may still count fewer records than the latest total, which holds arrivals.
  cut ||= !o.filtered && count >= w.limit;
  return { count, total, cut };
}

/**
 * After the output is written: a list never prints fewer records than its window holds
 * without saying so (on a terminal or not; -q silences it); an empty list is said to a
 * person; --fail-if-any exits 9 when a record matched. `shown`: what the output did
 * with the records (`showing`, `summarised`, `charted`, or `counted`).
 */
export function afterTheGates(session: Session, taken: Taken, o: { shown: 'showing' | 'summarised' | 'charted' | 'counted'; filtered: boolean; offset: number; failIfAny?: boolean }): void {
  const verb = o.shown === 'counted' ? 'showing' : o.shown;
  const n = grouped(taken.count);
  const available = Math.max(0, taken.total - o.offset);
  if (o.filtered) {
    if (taken.cut) session.note(`${verb} the first ${n} matching records; more may match: --all for every record`);
  } else if (taken.cut && taken.count < available) {
    session.note(`${verb} ${n} of ${grouped(available)}; --all for every record`);
  }
  if (o.shown === 'showing' && taken.count === 0) session.noteEmpty('no records match');
  if (o.failIfAny && taken.count > 0) throw new GateMatched(taken.count, 'record');
}
