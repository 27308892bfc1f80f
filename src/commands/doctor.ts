import type { Command } from 'commander';
import { offerColumns } from '../command-reference/declared-columns.js';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { topCommand } from './tree.js';
import { productAliases } from '../registry/products.js';
import type { CommandAction } from '../core/runtime/action.js';
import { DryRunComplete, EXIT, InterruptedError, PayrecError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { effectiveSettings } from '../core/config/effective.js';
import { checkKey, type KeyCheck } from '../core/http/key-check.js';
import { createWriter } from '../core/output/writer.js';
import { checkKeptFolder, shellWord, type Keeper } from '../core/runtime/trust.js';
import { dataDir, MIRROR_KEEPER, mirrorLocation, type MirrorLocation } from '../mirror/location.js';
import type { CursorState } from '../mirror/engine.js';
import { stateDir } from '../listener/forwarded.js';
import { completionModel } from '../command-reference/model.js';
import { SHELLS, type Shell } from '../command-reference/scripts.js';
import { installedCompletion } from '../command-reference/installed.js';

// `payrec doctor`: everything a run depends on, checked in the order a run meets it,
// one row per check. Every check runs (a broken config does not hide a dead network);
// the exit code is that of the first problem, which is also said on stderr with its fix.

type Status = 'ok' | 'warn' | 'fail';

interface Row {
  check: string;
  status: Status;
  detail: string;
}

/** A problem: its row, and the error that ends the run when it is the first. */
interface Problem {
  error: PayrecError;
}

/** A server's Date that could be now: a date before or after these years is a broken clock of its own, never a measure of this one's. */
const PLAUSIBLE_YEARS = [2000, 2099];

/** A Date header in milliseconds, when it is an RFC 9110 date (weekday and all) of a plausible year; otherwise undefined. */
export function httpDate(header: string): number | undefined {
  const t = new Date(Date.parse(header));
  // toUTCString writes RFC 9110's IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`): a header that
  // does not read back the same is another form, a wrong weekday, 31 Feb or 24:00 carried over.
  if (t.toUTCString() !== header) return undefined;
  const year = t.getUTCFullYear();
  return year >= PLAUSIBLE_YEARS[0] && year <= PLAUSIBLE_YEARS[1] ? t.getTime() : undefined;
}

/** The clock is a problem beyond this (a --period today or a subscription's state would be off), worth a warning beyond SKEW_WARN_S. */
const SKEW_FAIL_S = 60;
const SKEW_WARN_S = 5;

/**
 * This machine's clock against the service's Date header (`date`, ms), read from a request
 * sent at `sentAt` (local ms) that took `ms`. The header is whole seconds, cut: the service's
 * time lies in [date, date + 1 s) when it answered, taken as half way through the request.
 */
export function clockCheck(date: number, sentAt: number, ms: number): { status: Status; said: string } {
  const skew = Math.round((date + 500 - (sentAt + ms / 2)) / 1000);
  const slack = Math.max(1, Math.ceil(ms / 2000));
  const off = Math.abs(skew);
  // Within what the measure can tell (whole seconds, half the round trip) the clocks agree.
  // Stryker disable next-line EqualityOperator: equivalent; a skew of 0 is within the slack, never said ahead or behind
  const said = off <= slack ? `in step with the service (within ${slack} s)` : `${off} s ${skew > 0 ? 'behind' : 'ahead of'} the service (± ${slack} s)`;
  return { status: off > SKEW_FAIL_S ? 'fail' : off > SKEW_WARN_S ? 'warn' : 'ok', said };
}

const COLUMNS = ['check', 'status', 'detail'] as const;

export function addDoctorCommand(program: Command, action: CommandAction): void {
  offerColumns(topCommand(program, 'doctor'), COLUMNS)
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ payrec doctor',
        '  $ payrec doctor --profile ci -f json',
        '',
        'Checks, in order: the config file (found, parsed, private), each setting and where it',
        'comes from, the key (one request to the chain), the service (reachable, latency), the',
        "clock (against the service's Date header), the chain's node when one is set (chain id,",
        'head age), the config, data and state folders',
        '(writable, yours), the mirror (size, age of each cursor), the fixed-recurring plans',
        'known (subscriptions and metrics read nothing without one) and shell completion.',
        'Exit 0 when all is well (warnings too), else the exit code of the first problem:',
        '2 config, folders, mirror or clock, 3 key, 6 or 7 service.',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => runDoctor(session, cmd)));
}

async function runDoctor(session: Session, cmd: Command): Promise<void> {
  const rows: Row[] = [];
  const problems: Problem[] = [];
  // Values go through the output module, which makes them safe for a terminal.
  const add = (check: string, status: Status, detail: string) => rows.push({ check, status, detail });
  const fail = (check: string, error: PayrecError) => {
    add(check, 'fail', error.message);
    problems.push({ error });
  };

  await configFile(session, add, fail);
  const settings = await settingsRows(session, add, fail);
  if (settings) await service(session, settings, add, fail);
  if (settings) await chainNode(session, add, fail);
  await folders(session, add, fail);
  await mirror(session, add, fail);
  if (settings) await plans(session, settings.chain, add);
  await completion(session, cmd, add);

  // Stryker disable next-line StringLiteral: equivalent; any kind but 'single' prints a list
  const writer = createWriter(session.ctx.stdout, session.output('list', COLUMNS));
  for (const r of rows) await writer.write({ ...r });
  await writer.end();
  const [first] = problems;
  if (first) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''} in the report)` : '';
    throw new PayrecError(`${first.error.message}${more}`, first.error.exitCode, first.error.hint);
  }
}

/** An error doctor reports in its row; anything else (a bug, Ctrl-C, --dry-run's stop after printing the request) ends the run as it ends any command. */
function reportable(err: unknown): PayrecError {
  if (err instanceof PayrecError && !(err instanceof InterruptedError) && !(err instanceof DryRunComplete)) return err;
  throw err;
}

type Add = (check: string, status: Status, detail: string) => void;
type Fail = (check: string, error: PayrecError) => void;

async function configFile(session: Session, add: Add, fail: Fail): Promise<void> {
  const path = await session.store.path();
  const s = await stat(path).catch(() => undefined);
  if (!s) return add('config file', 'ok', `none at ${path} (flags, environment and defaults apply)`);
  const problem = await session.store.problem();
  if (problem) return fail('config file', problem);
  add('config file', 'ok', `${path} (parsed, mode ${(s.mode & 0o777).toString(8).padStart(4, '0')})`);
}

interface Effective {
  baseUrl: string;
  chain: string;
  apiKey?: string;
  profile: string;
  keySource: string;
}

async function settingsRows(session: Session, add: Add, fail: Fail): Promise<Effective | undefined> {
  try {
    for (const [name, [value, source]] of Object.entries(await effectiveSettings(session))) {
      if (name !== 'config-file') add(`setting ${name}`, 'ok', source && source !== 'none' ? `${value} (${source})` : value);
    }
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent; effectiveSettings loaded them (repaired), and a session loads them once
    const s = await session.settings({ repair: true });
    // Stryker disable next-line StringLiteral: equivalent; the source is read only of a key, and a key always has one
    return { baseUrl: s.baseUrl, chain: s.chain, apiKey: s.apiKey, profile: s.profile, keySource: s.sources.apiKey ?? 'none' };
  } catch (err) {
    fail('settings', reportable(err));
    return undefined;
  }
}

/** One request: whether the key works for the chain, how long the service took, and how its clock compares. */
async function service(session: Session, s: Effective, add: Add, fail: Fail): Promise<void> {
  if (!s.apiKey) fail('key', new PayrecError(`no API key for profile ${s.profile} (chain ${s.chain})`, EXIT.auth, 'run payrec auth login, or set PAYREC_API_KEY'));
  let check: KeyCheck;
  try {
    // Without a key the request still tells whether the service answers (with 401).
    // Stryker disable next-line StringLiteral: equivalent; any key but the right one is answered 401
    check = await checkKey(session, s, s.apiKey ?? '');
  } catch (err) {
    const problem = reportable(err);
    if (s.apiKey) add('key', 'warn', 'not checked: the service did not answer');
    fail('service', problem);
    return;
  }
  if (s.apiKey && check.ok) {
    add('key', 'ok', `works for chain ${s.chain} (key from ${s.keySource})`);
  } else if (s.apiKey) {
    fail('key', new PayrecError(`the key (from ${s.keySource}) was rejected by ${s.baseUrl} for chain ${s.chain}`, EXIT.auth, 'keys are per chain: check --chain, or run payrec auth login'));
  }
  const answer = check.answer;
  // Stryker disable next-line OptionalChaining,StringLiteral: equivalent; checkKey returns only after an answer (a 401 is one)
  add('service', 'ok', `${s.baseUrl} answered in ${answer?.ms ?? '?'} ms`);
  clock(session, answer, add, fail);
}

/** The chain's node, when one is set (--rpc, PAYREC_RPC_URL, config set rpc): reachable, its chain id, its head's age. */
async function chainNode(session: Session, add: Add, fail: Fail): Promise<void> {
  const { nodeCheck } = await import('../chain/node-check.js');
  const r = await nodeCheck(session);
  if (r instanceof PayrecError) fail('chain node', r);
  else if (r) add('chain node', r.status, r.detail);
}

function clock(session: Session, answer: KeyCheck['answer'], add: Add, fail: Fail): void {
  if (session.flags.emulator) return add('clock', 'ok', "not compared: the built-in emulator runs on this machine's clock");
  if (!answer || answer.date === undefined) return add('clock', 'warn', 'not compared: the service sent no Date header');
  const date = httpDate(answer.date);
  if (date === undefined) return add('clock', 'warn', `not compared: the service's clock cannot be read (its Date header "${answer.date.slice(0, 40)}" is not an HTTP date of the years ${PLAUSIBLE_YEARS.join(' to ')})`);
  const { status, said } = clockCheck(date, answer.sentAt, answer.ms);
  if (status !== 'fail') return add('clock', status, said);
  fail('clock', new PayrecError(`this machine's clock is ${said}: windows relative to now and subscription states would be off`, EXIT.usage, 'set the clock (timedatectl set-ntp true)'));
}

async function folders(session: Session, add: Add, fail: Fail): Promise<void> {
  const { env } = session.ctx;
  const configDir = dirname(await session.store.path());
  const db = (await mirrorOf(session))?.file;
  const places: [string, string, Keeper][] = [
    ['config folder', configDir, { role: 'the config', moveWith: 'PAYREC_CONFIG_DIR' }],
    ['data folder', db ? dirname(db) : dataDir(env), MIRROR_KEEPER],
    ['state folder', stateDir(env), { role: "the listener's memory of forwarded notifications", moveWith: 'XDG_STATE_HOME' }],
  ];
  for (const [check, dir, keeper] of places) {
    const problem = await folderProblem(dir, keeper);
    if (problem) fail(check, problem);
    else add(check, 'ok', (await stat(dir).catch(() => undefined)) ? `${dir} (writable)` : `${dir} (to be made; its parent is writable)`);
  }
}

/** Why payrec could not keep its files in a folder: not writable (nor creatable), or others could change it. */
async function folderProblem(dir: string, keeper: Keeper): Promise<PayrecError | undefined> {
  let existing = dir;
  while (!(await stat(existing).catch(() => undefined))) {
    // Stryker disable next-line ConditionalExpression: equivalent while the root exists; the walk up ends there
    if (dirname(existing) === existing) break;
    existing = dirname(existing);
  }
  const s = await stat(existing).catch(() => undefined);
  // Stryker disable next-line OptionalChaining,ArrowFunction: equivalent; the walk above ends on a path that exists, and undefined is as false as false
  const writable = s?.isDirectory() && (await access(existing, constants.W_OK).then(() => true).catch(() => false));
  if (!writable) {
    const what = existing === dir ? `${dir} is not a folder payrec can write` : `${dir} cannot be made: ${existing} is not writable`;
    return new PayrecError(`${keeper.role} cannot be kept: ${what}`, EXIT.usage, `set ${keeper.moveWith} to a folder you can write`);
  }
  // A folder to be made has nothing to trust yet (checkKeptFolder passes it).
  return checkKeptFolder(dir, keeper).then(() => undefined, reportable);
}

/** The mirror as the mirror commands find it, or undefined when its settings are unusable (said by the mirror row). */
async function mirrorOf(session: Session): Promise<MirrorLocation | undefined> {
  return mirrorLocation(session, undefined).catch(() => undefined);
}

async function mirror(session: Session, add: Add, fail: Fail): Promise<void> {
  let location: MirrorLocation;
  try {
    location = await mirrorLocation(session, undefined);
  } catch (err) {
    return fail('mirror', reportable(err));
  }
  const { file } = location;
  const s = await stat(file).catch(() => undefined);
  if (!s) return add('mirror', 'ok', `none yet at ${file} (payrec sync makes it)`);
  // The engine (DuckDB) loads only when there is a mirror to read.
  const { openMirror } = await import('../mirror/open.js');
  let cursors: CursorState[];
  try {
    const db = await openMirror(session, location, 'read');
    try {
      cursors = await db.cursors();
      // Stryker disable next-line BlockStatement: equivalent; the process's exit closes the file too
    } finally {
      db.close();
    }
  } catch (err) {
    return fail('mirror', reportable(err));
  }
  add('mirror', 'ok', `${file} (${size(s.size)})`);
  if (cursors.length === 0) return add('mirror cursors', 'warn', 'none: nothing was synced into it yet (payrec sync)');
  // Ages by DuckDB's clock, which stamped synced_at: an --emulator run's pinned clock would say nothing of when a sync ran.
  for (const c of cursors) {
    // Stryker disable next-line Regex: equivalent; a scope is one name=value, so its name always starts it
    const scope = String(c.scope) ? ` ${String(c.scope).replace(/^(\w+)=/, (_, p: string) => (p === 'planId' ? 'plan ' : 'strategy '))}` : '';
    const upTo = new Date(Number(c.cursor) * 1000).toISOString().replace('.000Z', 'Z');
    add(`cursor ${shortName(String(c.collection))}`, 'ok', `${c.chain}${scope}: synced ${age(Number(c.age))} ago, records up to ${upTo}`);
  }
}

/**
 * The fixed-recurring plans known (the mirror's and the profile's): without any,
 * subscriptions and metrics have nothing to read, and a plan no short url names stays
 * unseen until added. A mirror that cannot be read is the mirror row's to report.
 */
async function plans(session: Session, chain: string, add: Add): Promise<void> {
  const { knownPlans, sourceCounts, unseenHint } = await import('../mirror/plan-coverage.js');
  const { addedPlans, statedPlans } = await import('../core/config/added-plans.js');
  const location = await mirrorOf(session);
  let known: Awaited<ReturnType<typeof knownPlans>>;
  try {
    const { openMirror } = await import('../mirror/open.js');
    const db = location && (await stat(location.file).catch(() => undefined)) ? await openMirror(session, location, 'read') : undefined;
    try {
      // A mirror nothing was ever synced into has no state tables yet: it knows no plan.
      const laidOut = db && (await db.isMirror());
      known = await knownPlans(laidOut ? db : undefined, chain, await addedPlans(session), statedPlans(session));
      // Stryker disable next-line BlockStatement: equivalent; the process's exit closes the file too
    } finally {
      db?.close();
    }
  } catch (err) {
    return add('plans', 'warn', `not counted: ${reportable(err).message}`);
  }
  const ids = [...known.keys()];
  if (ids.length === 0) {
    return add('plans', 'warn', `no fixed-recurring plan is known on chain ${chain}: subscriptions and metrics have nothing to read; sync the short urls that name them (payrec sync), or ${unseenHint(session)}`);
  }
  add('plans', 'ok', `${ids.length} fixed-recurring ${ids.length === 1 ? 'plan' : 'plans'} known on chain ${chain} (${sourceCounts(ids, known)})`);
}

async function completion(session: Session, cmd: Command, add: Add): Promise<void> {
  const { env } = session.ctx;
  // Stryker disable next-line StringLiteral: equivalent; no shell's name is the fallback, so every shell is looked at
  const own = basename(env.SHELL ?? '');
  const shells = (own in SHELLS ? [own] : Object.keys(SHELLS)) as Shell[];
  const model = completionModel(rootOf(cmd));
  for (const shell of shells) {
    const found = await installedCompletion(shell, env, SHELLS[shell](model));
    if (!found) {
      add(`completion ${shell}`, 'warn', `not installed (payrec completion --help says how)`);
    } else if (!found.current) {
      add(`completion ${shell}`, 'warn', `out of date in ${found.path} (another payrec version): payrec completion ${shell} > ${shellWord(found.path)}`);
    } else {
      add(`completion ${shell}`, 'ok', found.kind === 'script' ? `installed in ${found.path}` : `sourced by ${found.path}`);
    }
  }
}

function rootOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

/** A collection as sync takes it: one-time/transfers → ot/transfers. */
function shortName(collection: string): string {
  const [product, rest] = collection.split('/');
  const alias = (productAliases as Record<string, string | undefined>)[product];
  return alias && rest ? `${alias}/${rest}` : collection;
}

export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = bytes / 1024;
  let i = 0;
  for (; v >= 1024 && i < units.length - 1; i++) v /= 1024;
  return `${v.toFixed(1)} ${units[i]}`;
}

/** A rough age for people: 45 s, 12 min, 5 h, 3 d. */
export function age(seconds: number): string {
  const s = Math.max(0, seconds);
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}
