import { parseRowGates, printRows, type GateFlags } from '../core/lists/list-gates.js';
import { addedPlans, statedPlans } from '../core/config/added-plans.js';
import { UsageError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { printable } from '../core/output/sanitize.js';
import { validateColumns } from '../core/output/writer.js';
import { mirrorExists, mirrorLocation } from '../mirror/location.js';
import { knownPlans, payrecCommand, sourceCounts, unseenHint, type PlanSource } from '../mirror/plan-coverage.js';
import { openMirror } from '../mirror/open.js';
import { ledger } from '../subscriptions/engine.js';

// The work of `payrec fr plans` (plans.ts defines the command): every known plan with
// where it was found (plan-coverage.ts), and the terms and subscription counts of those
// whose billings were synced.

const GRACE = 30 * 86_400;

/** `columns`: the command's (plans.ts PLAN_COLUMNS, kept there so that completion reads them without loading DuckDB). */
export async function listPlans(session: Session, flags: { db?: string } & GateFlags, columns: string[]): Promise<void> {
  const output = session.output('list', columns);
  if (output.columns) validateColumns(output.columns, columns);
  const gates = await parseRowGates(flags, session.format);
  const location = await mirrorLocation(session, flags.db);
  const { chain } = await session.settings();
  const added = await addedPlans(session);
  const stated = statedPlans(session);
  const mirrored = mirrorExists(location);
  if (!mirrored && added.length === 0 && stated.length === 0) {
    throw new UsageError(`there is no mirror at ${printable(location.file)} yet`, `create it with: ${payrecCommand(session)}sync (short urls name their plans), or add plans: ${payrecCommand(session)}fr plans add PLAN_ID`);
  }
  const db = mirrored ? await openMirror(session, location, 'read') : undefined;
  let known: Map<string, PlanSource[]>;
  let rows: Record<string, unknown>[];
  try {
    known = await knownPlans(db, chain, added, stated);
    const ids = [...known.keys()];
    const ledgerRows = db ? ledger(await db.subscriptionRecords(chain, ids), { at: Math.floor(session.ctx.now() / 1000), graceSeconds: GRACE }) : [];
    rows = ids.map((planId) => {
      const subs = ledgerRows.filter((r) => r.planId === planId);
      const terms = subs[0];
      return {
        planId,
        token: terms?.token ?? null,
        amount: terms?.amount ?? null,
        period: terms?.period ?? null,
        subscriptions: subs.length,
        counted: subs.filter((r) => r.state === 'active' || r.state === 'past_due').length,
        seenIn: known.get(planId)!.join(', '),
      };
    });
  } finally {
    db?.close();
  }
  await printRows(session, output, gates, rows, 'plan');
  const n = rows.length;
  session.note(`${n} fixed-recurring ${n === 1 ? 'plan' : 'plans'} known on chain ${chain}${n > 0 ? ` (${sourceCounts([...known.keys()], known)})` : ''}; ${unseenHint(session)}`);
}
