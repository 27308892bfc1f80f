import type { Command } from 'commander';
import { UsageError } from '../core/runtime/errors.js';
import { parseOption } from '../core/runtime/options.js';
import type { Session } from '../core/runtime/session.js';
import { parseTime } from '../core/runtime/time.js';
import { formatLocal } from '../core/runtime/zone.js';
import { printable } from '../core/output/sanitize.js';
import { hexId } from '../registry/validators.js';
import type { SubscriptionRecords } from '../subscriptions/engine.js';
import { mirrorExists, mirrorLocation, MIRROR_DB_FLAG, mirrorDbHelp } from './location.js';
import { openMirror } from './open.js';
import { notePlanCoverage, syncPlans, type PlanCoverage } from './plan-coverage.js';

// The subscriptions of the mirror as `payrec subscriptions` and `payrec metrics` read
// them (and the close report will): the flags that say which and as of when (--plan-id,
// --at, --grace, --db, --sync, --short-url-plans), checked before the mirror is touched, and the records of
// the plans covered, with what the reader must know about their reach said on stderr.

const DAY = 86_400;
/** A date alone (2026-10-31), which --at reads as the end of that day. */
// Stryker disable next-line Regex: without ^ only text before a date would match, and parseTime refuses such an --at first
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export interface MirrorFlags {
  planId?: string[];
  at?: string;
  grace?: string;
  db?: string;
  sync?: boolean;
  shortUrlPlans?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, ...value.split(',')];

/** --plan-id, --at, --grace, --db, --sync and --short-url-plans: how `subscriptions`, `metrics` (and the close) read the mirror's subscriptions. */
export function addMirrorOptions(cmd: Command): Command {
  return cmd
    .option('--plan-id <id>', 'only these plans (repeatable; default: every plan whose billings and cancellations the mirror holds)', collect)
    .option('--at <time>', 'what is known: records stamped before this instant (Unix seconds, ISO 8601 date-time, an age, or a date: the end of that day in --tz; default: now)')
    .option('--grace <days>', 'days a subscription stays past due after its paid time ends, before it lapses (default 30)')
    .option(MIRROR_DB_FLAG, mirrorDbHelp())
    .option('--sync', 'first bring the fixed-recurring billings and cancellations of the mirror up to date (payrec sync)')
    .option('--short-url-plans', 'in CI (env CI), let --fail-if-any gate over plans that only short urls name (else exit 2: state the plans with PAYREC_PLANS)');
}

/** The flags both commands share, checked before the mirror is touched. */
export function parseMirrorFlags(session: Session, flags: MirrorFlags): { plans: string[]; at: number; graceSeconds: number } {
  const plans = [...new Set((flags.planId ?? []).map((id) => parseOption(hexId, id, '--plan-id').toLowerCase()))];
  const now = Math.floor(session.ctx.now() / 1000);
  // What is known at --at: records stamped before it. A date alone is the end of that day in
  // --tz, as --to reads it: --at 2026-10-31 sees every record of October 31.
  const at = flags.at === undefined ? now : parseTime(flags.at, session.ctx.now(), '--at', session.zone, true) + (DATE_ONLY.test(flags.at) ? 1 : 0);
  // States after now would assume that nobody pays from here on: a guess, not a record.
  if (at > now) {
    throw new UsageError(`--at "${printable(flags.at!)}" is after now (${formatLocal(now, session.zone)} ${session.zone}): states are known up to now`, 'leave --at out for the states as of now');
  }
  const grace = flags.grace ?? '30';
  if (!/^\d+$/.test(grace) || Number(grace) > 3660) {
    throw new UsageError(`invalid --grace "${printable(grace)}": expected a whole number of days from 0 to 3660`);
  }
  return { plans, at, graceSeconds: Number(grace) * DAY };
}

/** The instant the figures are as of, said on stderr: a date alone in --at is easy to read as its start. */
export function noteAt(session: Session, flags: MirrorFlags, at: number): void {
  const when = `${formatLocal(at, session.zone)} ${session.zone}`;
  if (flags.at === undefined) session.note(`as of now, ${when}: records stamped before it`);
  else session.note(`as of ${when}${DATE_ONLY.test(flags.at) ? ` (the end of ${flags.at})` : ''}: records stamped before it (--at)`);
}

/** What loadRecords read: the records, the plans they cover, what a gate must know of that coverage (where each plan was found too), and the instant the mirror is synced up to. */
export interface LoadedRecords {
  records: SubscriptionRecords;
  plans: string[];
  planCoverage: PlanCoverage;
  syncedUpTo: number;
}

/** The subscription records of the mirror (synced first with --sync), and what the reader must know about their reach. */
export async function loadRecords(session: Session, flags: MirrorFlags, plans: string[], at: number, windowStart?: number): Promise<LoadedRecords> {
  const location = await mirrorLocation(session, flags.db);
  const sync = `payrec ${session.flags.emulator ? '--emulator ' : ''}sync`;
  if (flags.sync) {
    const synced = await syncPlans(session, location, plans);
    session.notice(`synced: ${synced.fetched} records fetched, ${synced.new} new, ${synced.updated} updated`);
  } else if (!mirrorExists(location)) {
    throw new UsageError(`there is no mirror at ${printable(location.file)} yet`, `create it with: ${sync} (or add --sync)`);
  }
  const { chain } = await session.settings();
  const db = await openMirror(session, location, 'read');
  try {
    // A database payrec never synced into (a sync refused before its first write, another tool's database).
    if (!(await db.isMirror())) {
      throw new UsageError(`${printable(location.file)} is not a payrec mirror: it holds none of payrec's tables`, `fill it with: ${sync} (or add --sync), or give another --db`);
    }
    const coverage = await db.subscriptionCoverage(chain, plans);
    if (coverage.plans.length === 0) {
      throw new UsageError(`the mirror holds no fixed-recurring plan of chain ${chain}`, `${sync} --plan-id ID (or add --sync); plan ids are in payrec fr short-urls list and payrec transfers --columns planId`);
    }
    // Records before a plan's synced start were never read: figures over them would be partial.
    const late = [...coverage.since].filter(([, since]) => since > 0);
    // Stryker disable next-line ConditionalExpression: undefined < since is false as well; the guard is the type checker's
    const cut = late.find(([, since]) => windowStart !== undefined && windowStart < since);
    if (cut) {
      throw new UsageError(
        `the mirror holds plan ${cut[0]} only from ${formatLocal(cut[1], session.zone)} ${session.zone} (sync --from), after the report's start ${formatLocal(windowStart!, session.zone)}: its figures would leave records out`,
        `start the report later (--from, --period), or read the plan whole: ${sync} fr/billings fr/cancellations --plan-id ${cut[0]} --full`,
      );
    }
    if (windowStart === undefined && late.length > 0) {
      session.warn(`${late.length === 1 ? 'a plan was' : `${late.length} plans were`} synced with sync --from (${late.map(([p, t]) => `${p} from ${formatLocal(t, session.zone)}`).join(', ')}): subscriptions that began earlier show only what followed`);
    }
    const planCoverage = await notePlanCoverage(session, db, chain, coverage.plans, plans);
    // Every plan covered has both lists' cursors (subscriptionCoverage refuses one without), so there is a time.
    const upTo = coverage.syncedUpTo!;
    const plural = coverage.plans.length === 1 ? 'plan' : 'plans';
    // --emulator's data end at its anchor: a mirror synced at or after it misses nothing newer.
    const newest = session.flags.emulator ? (await import('../core/runtime/emulator-clock.js')).emulatorAnchor(session.ctx.env, session.ctx.now()).seconds : at;
    session.note(
      `from the mirror: ${coverage.plans.length} ${plural}, billings and cancellations synced up to ${formatLocal(upTo, session.zone)} ${session.zone}` +
        (Math.min(at, newest) > upTo + 1 ? `; as of ${formatLocal(at, session.zone)}, so records since then are not counted (${sync}, or --sync)` : ''),
    );
    return { records: await db.subscriptionRecords(chain, coverage.plans), plans: coverage.plans, planCoverage, syncedUpTo: upTo };
    // Stryker disable next-line BlockStatement: equivalent; a read closes nothing the process's end does not (its spill folder is removed at exit)
  } finally {
    db.close();
  }
}
