import { existsSync } from 'node:fs';
import { PLAN_COLUMNS } from './plans.js';
import { UsageError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { printable } from '../core/output/sanitize.js';
import { createWriter, validateColumns } from '../core/output/writer.js';
import { LAYOUTS } from '../mirror/layout.js';
import { mirrorLocation } from '../mirror/location.js';
import { CHAIN_COLUMN, ident } from '../mirror/schema.js';
import { SCOPE_TABLE } from '../mirror/state.js';
import { MirrorDb, openOptions } from '../mirror/store.js';
import { readSubscriptionRecords } from '../mirror/subscription-records.js';
import { ledger } from '../subscriptions/engine.js';

// The work of `payrec fr plans` (plans.ts defines the command): plan ids from every
// mirrored record that names one, and from the ids given to sync, with the terms and
// subscription counts of those whose billings were synced.

const GRACE = 30 * 86_400;

export async function listPlans(session: Session, flags: { db?: string }): Promise<void> {
  const output = session.output('list', PLAN_COLUMNS);
  if (output.columns) validateColumns(output.columns, PLAN_COLUMNS);
  const location = await mirrorLocation(session, flags.db);
  if (!existsSync(location.file)) {
    throw new UsageError(`there is no mirror at ${printable(location.file)} yet`, `create it with: payrec ${session.flags.emulator ? '--emulator ' : ''}sync (short urls and transfers name their plans)`);
  }
  const { chain } = await session.settings();
  const db = await MirrorDb.open(location.file, 'read', openOptions(session));
  const plans = new Map<string, Set<string>>();
  const seen = (id: unknown, where: string) => {
    const key = String(id).toLowerCase();
    if (!plans.has(key)) plans.set(key, new Set());
    plans.get(key)!.add(where);
  };
  let rows: Record<string, unknown>[];
  try {
    // Fixed-recurring plans only: other products' plans have no billings.
    for (const { collection, storage, fields, scopes } of LAYOUTS) {
      if (collection.product !== 'fixed-recurring') continue;
      if (!fields.some((f) => f.name === 'planId') && !scopes.includes('planId')) continue;
      const found = await db.rows(`SELECT DISTINCT planId AS id FROM ${storage} WHERE ${ident(CHAIN_COLUMN)} = $1 AND planId IS NOT NULL`, [chain]);
      for (const r of found) seen(r.id, collection.table);
    }
    for (const r of await db.rows(`SELECT DISTINCT id FROM ${SCOPE_TABLE} WHERE chain = $1 AND param = 'planId' AND collection LIKE 'fixed-recurring/%'`, [chain])) seen(r.id, 'synced');
    const ids = [...plans.keys()].sort();
    const ledgerRows = ledger(await readSubscriptionRecords(db, chain, ids), { at: Math.floor(session.ctx.now() / 1000), graceSeconds: GRACE });
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
        seenIn: [...plans.get(planId)!].sort().join(' '),
      };
    });
  } finally {
    db.close();
  }
  const target = await session.openOutput();
  const writer = createWriter(target.stream, output);
  for (const r of rows) await writer.write(r);
  await writer.end();
  await target.commit();
  if (rows.length === 0) session.note(`the mirror names no fixed-recurring plan of chain ${chain}: sync short urls and transfers (payrec sync), or give sync --plan-id`);
}
