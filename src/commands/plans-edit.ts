import { addedPlans, saveAddedPlans } from '../core/config/added-plans.js';
import { parseOption } from '../core/runtime/options.js';
import type { Session } from '../core/runtime/session.js';
import { hexId } from '../registry/validators.js';
import { payrecCommand } from '../mirror/plan-coverage.js';

// `payrec fr plans add|remove ID…`: the plans of the profile that nothing else names.
// Every id is checked before the config is touched: one bad id changes nothing (exit 2).

export async function editPlans(session: Session, args: string[], verb: 'add' | 'remove'): Promise<void> {
  const ids = [...new Set(args.map((id) => parseOption(hexId, id, 'PLAN_ID').toLowerCase()))];
  const before = await addedPlans(session);
  const { chain } = await session.settings();
  const where = `chain ${chain}${session.flags.emulator ? " (--emulator's demo data)" : ''}`;
  const already = ids.filter((id) => before.includes(id) === (verb === 'add'));
  const changed = ids.filter((id) => !already.includes(id));
  const after = verb === 'add' ? [...before, ...changed] : before.filter((id) => !changed.includes(id));
  const profile = changed.length > 0 ? await saveAddedPlans(session, after) : (await session.settings()).profile;
  const say = (text: string) => session.ctx.stderr.write(`${text}\n`);
  const plans = (n: number) => `${n} ${n === 1 ? 'plan' : 'plans'}`;
  if (changed.length > 0) say(`${verb === 'add' ? 'Added' : 'Removed'} ${plans(changed.length)} ${verb === 'add' ? 'to' : 'from'} profile ${profile}, ${where}: ${after.length} added in all`);
  for (const id of already) say(verb === 'add' ? `${id} was added already` : `${id} was not added (a plan given to sync --plan-id stays remembered by the mirror)`);
  const payrec = payrecCommand(session);
  if (verb === 'add' && changed.length > 0) say(`sync their billings and cancellations: ${payrec}sync (or ${payrec}metrics --sync)`);
}
