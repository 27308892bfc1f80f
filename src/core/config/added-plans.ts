import { readFileSync } from 'node:fs';
import { hexId } from '../../registry/validators.js';
import { UsageError } from '../runtime/errors.js';
import { printable } from '../output/sanitize.js';
import type { Session } from '../runtime/session.js';

// Fixed-recurring plans added by hand (`payrec fr plans add`), kept in the profile. The
// API lists no plans, and a plan that no short url names is seen nowhere else: this is
// how a merchant tells payrec about it. Kept per chain (a plan lives on one chain) and,
// for --emulator, apart from the profile's own service: the demo data's plans are not
// the merchant's.

/** The profile this run uses, and the key its added plans are kept under. */
async function where(session: Session): Promise<{ profile: string; key: string }> {
  const { profile, chain } = await session.settings();
  return { profile, key: session.flags.emulator ? `emulator:${chain}` : chain };
}

/** The plan ids added to this run's profile for its chain (none when the config file is left out of the run). */
export async function addedPlans(session: Session): Promise<string[]> {
  const { profile, key } = await where(session);
  if (await session.store.problem()) return [];
  return [...((await session.store.profile(profile))?.plans?.[key] ?? [])];
}

/** Stores the profile's added plans for this run's chain (in id order); returns the profile's name. */
export async function saveAddedPlans(session: Session, ids: readonly string[]): Promise<string> {
  const { profile, key } = await where(session);
  const stored = (await session.store.profile(profile)) ?? {};
  const plans = { ...stored.plans, [key]: [...new Set(ids)].sort() };
  if (plans[key].length === 0) delete plans[key];
  const { plans: _old, ...rest } = stored;
  await session.store.saveProfile(profile, Object.keys(plans).length > 0 ? { ...rest, plans } : rest);
  return profile;
}

/**
 * The plans a job states in its repository (DESIGN.md "Subscriptions and revenue
 * metrics"): `PAYREC_PLANS`, plan ids separated by commas, spaces or new lines, or
 * `@FILE`, a plans file (one id a line, `#` comments, blank lines). Known like added
 * plans, for this run only; a malformed id or an unreadable file is exit 2.
 */
export function statedPlans(session: Session): string[] {
  const raw = session.ctx.env.PAYREC_PLANS;
  if (raw === undefined || raw.trim() === '') return [];
  let text = raw;
  let where = 'PAYREC_PLANS';
  if (raw.trim().startsWith('@')) {
    const file = raw.trim().slice(1);
    where = `the plans file ${printable(file)}`;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${where} (PAYREC_PLANS): ${(err as NodeJS.ErrnoException).code ?? String(err)}`, 'PAYREC_PLANS=@FILE names a file of plan ids, one a line');
    }
  }
  const ids: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const word of line.replace(/#.*/, '').split(/[\s,]+/).filter(Boolean)) {
      if (!hexId.safeParse(word).success) throw new UsageError(`invalid plan id "${printable(word)}" in ${where}${where === 'PAYREC_PLANS' ? '' : `, line ${i + 1}`}: expected 0x and 64 hex digits`);
      ids.push(word.toLowerCase());
    }
  });
  return [...new Set(ids)];
}
