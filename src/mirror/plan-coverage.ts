import { dirname } from 'node:path';
import type { ApiClient } from '../core/http/client.js';
import { endpointWalk } from '../core/lists/walk.js';
import { hexId } from '../registry/validators.js';
import { addedPlans, statedPlans } from '../core/config/added-plans.js';
import { UsageError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { makeKeptFolder } from '../core/runtime/trust.js';
import { CATALOG, resolveCollections } from './catalog.js';
import { MIRROR_KEEPER, mirrorExists, mirrorLocation, type MirrorLocation } from './location.js';
import type { PlansOf } from '../core/lists/merged-transfers.js';
import { printable } from '../core/output/sanitize.js';
import type { MirrorStore } from './engine.js';
import { openMirror } from './open.js';
import { serviceOf } from './service.js';
import { syncMirror } from './sync.js';
import { grouped } from '../core/output/grouped.js';

// Which fixed-recurring plans payrec knows, and from where (DESIGN.md "Subscriptions and
// revenue metrics": plan coverage is never silent). The API lists no plans: a plan is
// known when a short url names it, when the mirror remembers it (given once to
// `sync --plan-id`, or named by a record synced before), or when it was added to the
// profile (`payrec fr plans add`). A plan with none of these is unseen, and every figure
// over subscriptions would leave it out, so each command that reads them says how many
// plans it covers, from which sources, and how to add one.

/** `earlier`: the mirror holds the plan's lists, but no source names it now (removed from the profile). */
export type PlanSource = 'short url' | 'stated' | 'synced' | 'added' | 'earlier';

/** What each source means, in the order a plan is counted under the first that names it. */
const SOURCE_WORDS: Record<PlanSource, string> = {
  'short url': 'named by short urls',
  stated: 'stated by PAYREC_PLANS',
  added: 'added with fr plans add',
  synced: 'remembered from sync --plan-id',
  earlier: 'synced earlier, named by nothing now',
};

/**
 * Every known fixed-recurring plan of `chain` with its sources, in id order: from the
 * mirror (`db`, when there is one) and from the profile (`added`).
 */
export async function knownPlans(db: MirrorStore | undefined, chain: string, added: readonly string[], stated: readonly string[] = []): Promise<Map<string, PlanSource[]>> {
  const sources = new Map<string, Set<PlanSource>>();
  const found = (id: string, source: PlanSource) => {
    if (!sources.has(id)) sources.set(id, new Set());
    sources.get(id)!.add(source);
  };
  const mirrored = db ? await db.planSources(chain) : { named: [], remembered: [], synced: [] };
  for (const id of mirrored.named) found(id, 'short url');
  for (const id of mirrored.remembered) found(id, 'synced');
  for (const id of added) found(id, 'added');
  for (const id of stated) found(id, 'stated');
  for (const id of mirrored.synced) if (!sources.has(id)) found(id, 'earlier');
  const order = Object.keys(SOURCE_WORDS) as PlanSource[];
  return new Map([...sources].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, s]) => [id, order.filter((x) => s.has(x))]));
}

/** The list of every fixed-recurring short url (no path parameter). */
const SHORT_URLS = CATALOG.find((c) => c.name === 'fixed-recurring/short-urls')!.whole!;

/**
 * The plans the fixed-recurring short urls name now, read online in one walk of their
 * list (the list a sync mirrors, where discoveredScopes finds them): lower case, and
 * only well-formed ids (they go into request paths).
 */
export async function shortUrlPlans(client: ApiClient): Promise<string[]> {
  const ids = new Set<string>();
  const whole = { limit: Infinity, pageSize: 1000, offset: 0, concurrency: 1 };
  for await (const page of endpointWalk(client, SHORT_URLS, SHORT_URLS.path, {})(whole, undefined, undefined, undefined)) {
    for (const r of page.records) {
      const id = String(r.planId).toLowerCase();
      if (hexId.safeParse(id).success) ids.add(id);
    }
  }
  return [...ids];
}

/** `known` (knownPlans) with the plans the short urls name now (shortUrlPlans): known from a short url first, and no longer "synced earlier". */
export function withShortUrlPlans(known: ReadonlyMap<string, readonly PlanSource[]>, named: readonly string[]): Map<string, PlanSource[]> {
  const out = new Map([...known].map(([id, s]) => [id, [...s]]));
  for (const id of named) out.set(id, ['short url', ...(known.get(id) ?? []).filter((s) => s !== 'short url' && s !== 'earlier')]);
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** `payrec [--emulator] ` for hints: a command under --emulator is run with it again. */
export const payrecCommand = (session: Session): string => `payrec ${session.flags.emulator ? '--emulator ' : ''}`;

/** How to make a plan known: the end of every coverage line. */
export function unseenHint(session: Session): string {
  return `a plan that no short url names is unseen until added: ${payrecCommand(session)}fr plans add PLAN_ID`;
}

/**
 * `plans` counted by where each was found, each under its first source: "5 named by
 * short urls, 6 added with fr plans add"; plans no source names now (removed from the
 * profile after a sync) are "synced earlier".
 */
export function sourceCounts(plans: readonly string[], known: ReadonlyMap<string, readonly PlanSource[]>): string {
  const counts = new Map<PlanSource, number>();
  for (const plan of plans) {
    const first = known.get(plan)?.[0] ?? 'earlier';
    counts.set(first, (counts.get(first) ?? 0) + 1);
  }
  return (Object.keys(SOURCE_WORDS) as PlanSource[]).filter((s) => counts.has(s)).map((s) => `${counts.get(s)} ${SOURCE_WORDS[s]}`).join(', ');
}

const plansWord = (n: number) => `${grouped(n)} fixed-recurring ${n === 1 ? 'plan' : 'plans'}`;

/** A figure's plan coverage: whether no plan is stated (only short urls name them), how many known plans are left out unsynced, and where each known plan was found (nothing when --plan-id named them). */
export interface PlanCoverage {
  onlyShortUrls: boolean;
  leftOut: number;
  known: ReadonlyMap<string, readonly PlanSource[]>;
}

/**
 * Says on stderr which plans a figure over subscriptions covers (`covered`: the plans
 * whose billings and cancellations the mirror holds and the command reads), from which
 * sources, which known plans it leaves out for want of a sync, and how to add an unseen
 * one. `given`: the command named its plans (--plan-id), and covers only those.
 * Returns what a gate must know of that coverage, and where each known plan was found.
 */
export async function notePlanCoverage(session: Session, db: MirrorStore, chain: string, covered: readonly string[], given: readonly string[]): Promise<PlanCoverage> {
  if (given.length > 0) {
    session.note(`covering ${plansWord(covered.length)}: those given with --plan-id`);
    return { onlyShortUrls: false, leftOut: 0, known: new Map() };
  }
  const known = await knownPlans(db, chain, await addedPlans(session), statedPlans(session));
  const unsynced = [...known.keys()].filter((plan) => !covered.includes(plan));
  const left =
    unsynced.length === 0
      ? ''
      : `; ${plansWord(unsynced.length)} known but not synced yet, so left out (${unsynced.map((p) => `${p.slice(0, 10)}…`).join(', ')}): ${payrecCommand(session)}sync, or --sync`;
  session.note(`covering ${plansWord(covered.length)} (${sourceCounts(covered, known) || 'none'})${left}; ${unseenHint(session)}`);
  // Whether no plan is stated by the job (PAYREC_PLANS, fr plans add, or a sync --plan-id: a synced plan no short url names):
  // a plan no short url names would be unseen, and a gate blind to it.
  const stated = (sources: readonly PlanSource[]) => sources.includes('stated') || sources.includes('added') || (sources.includes('synced') && !sources.includes('short url'));
  return { onlyShortUrls: ![...known.values()].some(stated), leftOut: unsynced.length, known };
}

/**
 * In CI (env CI set, as CI services do), a gate (--fail-if-any) that leaves known plans
 * out (not synced) is exit 2; one over plans that only short urls name could pass while
 * a plan nobody named is late: exit 2 too, unless the job
 * states its plans (PAYREC_PLANS, fr plans add, --plan-id) or says it accepts that
 * coverage with --short-url-plans (DESIGN.md "Subscriptions and revenue metrics").
 */
export function refuseBlindGate(session: Session, gate: boolean, coverage: { onlyShortUrls: boolean; leftOut: number }, accepted: boolean | undefined): void {
  const ci = session.ctx.env.CI;
  if (!gate || ci === undefined || ci === '' || ci === 'false' || ci === '0') return;
  // Known plans the mirror has not synced are left out of the gate: never silently.
  if (coverage.leftOut > 0) throw new UsageError(`in CI, a --fail-if-any gate would leave out ${plansWord(coverage.leftOut)} known but not synced`, 'add --sync (or run payrec sync first)');
  if (!coverage.onlyShortUrls || accepted) return;
  throw new UsageError(
    'in CI, a --fail-if-any gate over plans that only short urls name would pass while a plan no short url names is late',
    'state the plans in the repository: PAYREC_PLANS=@plans.txt (one plan id a line) or PAYREC_PLANS=ID,ID; or accept short urls alone with --short-url-plans',
  );
}

/**
 * Says on stderr whose billings `payrec transfers` includes: the known plans (`known`),
 * counted by source, and how to add an unseen one; or the one plan given with --plan-id.
 */
export function noteBilledPlans(session: Session, known: ReadonlyMap<string, readonly PlanSource[]>, given: string | undefined): void {
  if (given !== undefined) {
    session.note(`including the billings of ${plansWord(1)}: the one given with --plan-id`);
    return;
  }
  const plans = [...known.keys()];
  session.note(`including the billings of ${plansWord(plans.length)} (${sourceCounts(plans, known) || 'none known'}); ${unseenHint(session)}`);
}

/**
 * `--sync` of `payrec subscriptions` and `payrec metrics`: the fixed-recurring short urls
 * (they name plans), then the billings and cancellations of every known plan (of
 * `given` only when given), and nothing else of the mirror. Returns what it fetched.
 */
export async function syncPlans(session: Session, location: MirrorLocation, given: readonly string[]): Promise<{ fetched: number; new: number; updated: number }> {
  if (location.isDefault) await makeKeptFolder(dirname(location.file), MIRROR_KEEPER);
  // The engine (DuckDB: a native addon) loads only here: `payrec transfers` counts plans without it.
  const db = await openMirror(session, location, 'write', { syncs: true });
  try {
    const collections = resolveCollections(given.length > 0 ? ['fr/billings', 'fr/cancellations'] : ['fr/short-urls', 'fr/billings', 'fr/cancellations']);
    const added = given.length > 0 ? [] : [...(await addedPlans(session)), ...statedPlans(session)];
    // No concurrency: the client's window finds the pace, as `payrec sync` does.
    const reports = await syncMirror(session, db, await serviceOf(session), { collections, ids: { planId: [...given], strategyId: [] }, added, lookback: 3600, full: false });
    const sum = (k: 'fetched' | 'new' | 'updated') => reports.reduce((n, r) => n + r[k], 0);
    return { fetched: sum('fetched'), new: sum('new'), updated: sum('updated') };
  } finally {
    db.close();
  }
}

/**
 * The plans whose billings `payrec transfers` reads: the one given with --plan-id, else
 * every known plan (plan-coverage.ts knownPlans): the profile's and the mirror's (read
 * now, so a bad --db is exit 2 before any request), and those the short urls name,
 * read online with the first walk. Said on stderr once.
 */
export async function billedPlans(session: Session, dbFlag: string | undefined, given: string | undefined): Promise<PlansOf> {
  if (given !== undefined) {
    return async () => {
      noteBilledPlans(session, new Map(), given);
      return [given];
    };
  }
  const known = await localPlans(session, dbFlag);
  let found: Promise<string[]> | undefined;
  return (client) =>
    (found ??= (async () => {
      const all = withShortUrlPlans(known, await shortUrlPlans(client));
      noteBilledPlans(session, all, undefined);
      return [...all.keys()];
    })());
}

/** The plans the profile and the mirror know (none from a mirror that does not exist, unless --db named it). */
async function localPlans(session: Session, dbFlag: string | undefined): Promise<Map<string, PlanSource[]>> {
  const { chain } = await session.settings();
  const added = await addedPlans(session);
  const stated = statedPlans(session);
  const location = await mirrorLocation(session, dbFlag);
  if (!mirrorExists(location)) {
    if (dbFlag !== undefined) throw new UsageError(`there is no mirror at ${printable(location.file)}`, `give --db the mirror ${payrecCommand(session)}sync fills, or leave --db out`);
    return knownPlans(undefined, chain, added, stated);
  }
  // The engine (DuckDB: a native addon, most of a second to load) only when there is a mirror to read.
  const db = await openMirror(session, location, 'read');
  try {
    if (!(await db.isMirror())) throw new UsageError(`${printable(location.file)} is not a payrec mirror: it holds none of payrec's tables`, `give another --db, or fill it with: ${payrecCommand(session)}sync`);
    return await knownPlans(db, chain, added, stated);
  } finally {
    db.close();
  }
}
