import { UsageError } from '../core/runtime/errors.js';
import type { Coverage } from './engine.js';

// Which plans payrec subscriptions and metrics can tell, whatever the engine: a plan
// counts only when both of its lists (billings, cancellations) were synced, as their
// cursors show. Billings without their cancellations would show cancelled
// subscriptions as active, a quiet wrong answer.

/**
 * The coverage of `chain` from the cursors of its plans' billings and cancellations
 * (`rows`, scope `planId=…`), and where each list begins (`readSince`); refuses a plan
 * `wanted` but not synced, or synced halfway.
 */
export async function coverageOf(
  rows: readonly { collection: string; scope: string; cursor: number }[],
  chain: string,
  wanted: readonly string[],
  readSince: (collection: string, scope: string) => Promise<number>,
): Promise<Coverage> {
  const cursors = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const plan = r.scope.slice('planId='.length);
    if (!cursors.has(plan)) cursors.set(plan, new Map());
    cursors.get(plan)!.set(r.collection, r.cursor);
  }
  const plans = wanted.length > 0 ? [...wanted] : [...cursors.keys()].sort();
  let syncedUpTo: number | undefined;
  const since = new Map<string, number>();
  for (const plan of plans) {
    const lists = cursors.get(plan);
    const missing = ['fixed-recurring/billings', 'fixed-recurring/cancellations'].filter((c) => lists?.get(c) === undefined);
    if (missing.length > 0) {
      throw new UsageError(
        `the mirror has not synced the ${missing.map((c) => c.slice('fixed-recurring/'.length)).join(' and ')} of plan ${plan} (chain ${chain}): its subscriptions cannot be told`,
        `sync them first: payrec sync fr/billings fr/cancellations --plan-id ${plan} (or add --sync)`,
      );
    }
    for (const cursor of lists!.values()) syncedUpTo = syncedUpTo === undefined ? cursor : Math.min(syncedUpTo, cursor);
    const scope = `planId=${plan}`;
    since.set(plan, Math.max(await readSince('fixed-recurring/billings', scope), await readSince('fixed-recurring/cancellations', scope)));
  }
  return { plans, syncedUpTo, since };
}
