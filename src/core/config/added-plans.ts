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
