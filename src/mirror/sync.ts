import { ApiError, InterruptedError, UsageError } from '../core/runtime/errors.js';
import { flagOf } from '../core/runtime/options.js';
import { fillPath } from '../core/lists/walk.js';
import { identityOf, paginate, type Page, type PageRequest } from '../core/lists/paginate.js';
import { checkEnvelope } from '../core/lists/records.js';
import { Progress } from '../core/output/progress.js';
import { firstOf } from '../core/output/sanitize.js';
import { stopNote } from '../core/runtime/report-error.js';
import type { Session } from '../core/runtime/session.js';
import type { Endpoint } from '../registry/types.js';
import { CATALOG, namesScopes, scopeKey, type MirroredCollection, type ScopeParam } from './catalog.js';
import { checkService, stampService, type Service } from './service.js';
import type { CollectionWriter, CommitPlan, MirrorStore, UpsertCounts, WriteBatch } from './engine.js';
import { grouped } from '../core/output/grouped.js';

// The sync engine: one loop over the registry's collections, whatever engine stores
// them (it talks to the MirrorStore interface, engine.ts). A list with a time window
// is walked oldest first from its cursor minus the lookback up to the moment the sync
// began (the paginator keeps such a walk exact while records arrive), and every batch
// is upserted together with the cursor it reached, in one transaction: however the run
// ends, the records and the cursor agree, and the next run goes on from there. A list
// without a time window (short urls) is read whole in one transaction, and the records
// it no longer lists are removed.

export interface SyncRequest {
  /** Collections named on the command line; undefined: the default set. */
  collections?: MirroredCollection[];
  /** Plan and strategy ids given now (remembered for later syncs). */
  ids: Record<ScopeParam, string[]>;
  /**
   * Fixed-recurring plan ids added to the profile (`payrec fr plans add`): their lists
   * are synced like those of remembered plans, but the mirror does not remember them,
   * so that `fr plans remove` takes them out again.
   */
  added?: readonly string[];
  /** Seconds re-read before each cursor, for records that arrive late or change. */
  lookback: number;
  /** Where a collection's first sync starts (Unix seconds; default the beginning). */
  from?: number;
  /** Re-read everything from `from`, whatever the cursors say. */
  full: boolean;
  /** Pages at once (--concurrency); undefined: as many as the client's window lets go while it finds the pace. */
  concurrency?: number;
}

export interface CollectionReport {
  collection: string;
  table: string;
  fetched: number;
  new: number;
  updated: number;
  unchanged: number;
  /** Records the service no longer lists (lists without a time window only). */
  deleted: number;
  requests: number;
  seconds: number;
  /** What kept a part of the collection from being synced (a plan's list the service refused, no plan known), or ''. */
  note: string;
}

/** A list to walk: a collection as a whole, or one plan's or strategy's part of it. */
interface Target {
  collection: MirroredCollection;
  endpoint: Endpoint;
  param?: ScopeParam;
  id?: string;
  /** Given on this command line: a failure ends the sync. Remembered or discovered ids are skipped with a note instead. */
  given?: boolean;
}

/** Pages of a list with a time window: 128 of them make one of DuckDB's row groups. */
const PAGE_SIZE = 960;
/** Pages of a list without one (short urls): the largest the API allows, read in one transaction. */
const WHOLE_LIST_PAGE_SIZE = 1000;
/**
 * Records are written to the store (one statement) once a second, or at this many: 4 batches
 * make one of DuckDB's row groups. DuckDB's part of a first sync took 8-9 % less CPU than with half as
 * many (each statement reads its file anew), and no less with twice as many.
 */
const BATCH_RECORDS = 30_720;
const BATCH_MS = 1000;
/** Batches handed to the store and not yet written, at most: pages keep coming while it works through them. */
const WRITES_QUEUED = 2;

/**
 * Syncs the lists `req` names, a report per collection in `reports` as each ends. When one
 * fails, `reports` still accounts for the run before the error goes on: each collection
 * synced, the one that failed (what it committed, and why it stopped, in its note), and
 * those not reached; a run refused before its first request leaves it empty.
 */
export async function syncMirror(session: Session, db: MirrorStore, service: Service, req: SyncRequest, reports: CollectionReport[] = []): Promise<CollectionReport[]> {
  const { chain } = await session.settings();
  // Everything that can refuse the run does so before the first request.
  const { targets, notice, emptied } = await db.transaction(async () => {
    const notice = await db.layout();
    const emptied = await checkService(db, service);
    return { targets: await planTargets(db, chain, req), notice, emptied };
  });
  if (notice) session.warn(notice);
  if (emptied) session.note(emptied);
  // The service is written with the first records or cursor, in their transaction: a sync
  // that fetched nothing (a mistyped --base-url) leaves a mirror any service can fill.
  const stamp = () => stampService(db, service);
  const client = await session.client(req.concurrency, false);
  const nowMs = session.ctx.now();
  const run: Run = { session, db, chain, req, runAt: new Date(nowMs).toISOString(), to: Math.floor(nowMs / 1000), client, stamp };

  for (const [i, collection] of targets.collections.entries()) {
    const started = performance.now();
    const report = emptyReport(collection);
    const notes: string[] = [];
    let upserter: CollectionWriter;
    try {
      upserter = await db.writer(collection, chain, run.runAt);
      // Lists of plans are found now: the records synced before them (short urls, transfers) name their plans.
      const mine = collection.whole ? targets.fixed.filter((t) => t.collection === collection) : await scopedTargets(db, chain, req, collection, notes);
      for (const target of mine) {
        await db.letReadersIn();
        upserter.scope(target.param, target.id);
        // Another runner on this list (a server's mirror) makes this one busy, or wait; other lists go on in parallel.
        const release = await db.lockScope(service.id, chain, collection.name, scopeKey(target.param, target.id));
        try {
          await (collection.endpoint.timeWindow ? walkWindow : walkWhole)(run, target, upserter, report);
        } catch (err) {
          // A plan the service does not show (gone, another account's): the other plans go on, and the report says so.
          if (target.given || !(err instanceof ApiError) || err.status < 400 || err.status >= 500 || err.status === 401 || err.status === 429) throw err;
          notes.push(`${flagOf(target.param!)} ${target.id}: ${err.message}`);
        } finally {
          await release();
        }
      }
    } catch (err) {
      // The account of a run stopped here: what this collection committed and why it stopped, then those not reached.
      const why = stopNote(err);
      if (why !== undefined) {
        reports.push({ ...report, seconds: secondsSince(started), note: [...notes, `stopped: ${why}`].join('; ') });
        for (const later of targets.collections.slice(i + 1)) reports.push({ ...emptyReport(later), note: `not synced: the sync stopped at ${collection.table}` });
      }
      throw err;
    }
    report.note = notes.join('; ');
    if (report.note) session.warn(`${collection.table}: not synced: ${report.note}`);
    report.seconds = secondsSince(started);
    reports.push(report);
    warnAbout(run, collection, upserter);
  }
  return reports;
}

function emptyReport(collection: MirroredCollection): CollectionReport {
  return { collection: collection.name, table: collection.table, fetched: 0, new: 0, updated: 0, unchanged: 0, deleted: 0, requests: 0, seconds: 0, note: '' };
}

const secondsSince = (started: number) => Math.round((performance.now() - started) / 10) / 100;

/** What a report says is stored: put back as it was at the last commit when a transaction was rolled back. */
type Stored = Pick<CollectionReport, 'new' | 'updated' | 'unchanged' | 'deleted'>;
const storedOf = ({ new: n, updated, unchanged, deleted }: CollectionReport): Stored => ({ new: n, updated, unchanged, deleted });

interface Run {
  session: Session;
  db: MirrorStore;
  chain: string;
  req: SyncRequest;
  runAt: string;
  /** The walks' end: the moment the sync began (Unix seconds), so no walk chases new records forever. */
  to: number;
  client: Awaited<ReturnType<Session['client']>>;
  /** Notes the service in the mirror (in each transaction that writes). */
  stamp: () => Promise<void>;
}

/** What a sync walks: collections in order, and the lists of those that have a list of every record. */
interface Plan {
  /** Collections with a list of every record first, then those kept per plan or strategy (whose ids the first name). */
  collections: MirroredCollection[];
  fixed: Target[];
}

/**
 * The lists to walk: the named collections, or by default every collection. A
 * collection that has a list of every record is read through that list, which holds
 * every scope; named with ids of its scope, only those scopes are read. A collection
 * kept only per plan or strategy is walked once per id (see scopedTargets), after the
 * others. Checked before the first request: a named collection kept per plan with no
 * plan known is a UsageError.
 */
async function planTargets(db: MirrorStore, chain: string, req: SyncRequest): Promise<Plan> {
  const fixed: Target[] = [];
  const whole: MirroredCollection[] = [];
  const scoped: MirroredCollection[] = [];
  for (const collection of req.collections ?? CATALOG) {
    const scopes = Object.entries(collection.scoped) as [ScopeParam, Endpoint][];
    if (!collection.whole) {
      for (const [param] of scopes) await db.rememberScopes(chain, collection.name, param, req.ids[param]);
      if (req.collections && !foundInRun(req, collection) && (await knownScopes(db, chain, collection, req)).length === 0) throw noScopeKnown(collection);
      scoped.push(collection);
      continue;
    }
    whole.push(collection);
    const narrowed = req.collections !== undefined && scopes.some(([param]) => req.ids[param].length > 0);
    if (!narrowed) fixed.push({ collection, endpoint: collection.whole });
    else for (const [param, endpoint] of scopes) for (const id of req.ids[param]) fixed.push({ collection, endpoint, param, id, given: true });
  }
  return { collections: [...whole, ...scoped], fixed };
}

/** Ids may still be found by a collection synced before it in this run (short urls name plans). */
function foundInRun(req: SyncRequest, collection: MirroredCollection): boolean {
  const params = Object.keys(collection.scoped) as ScopeParam[];
  return req.collections?.some((other) => params.some((param) => namesScopes(other, collection, param))) ?? false;
}

function noScopeKnown(collection: MirroredCollection): UsageError {
  const flags = Object.keys(collection.scoped).map((param) => flagOf(param)).join(' or ');
  return new UsageError(
    `${collection.name} is kept per plan or strategy, and the mirror knows none: give ${flags} (the mirror remembers ids once given)`,
    `or sync the lists that name plans first (short urls, transfers): payrec sync`,
  );
}

/**
 * planTargets' refusal for a mirror that does not exist yet, which knows only the ids
 * given and the plans added to the profile (knownScopes): made before the file is
 * created, so that a sync refused as bad input leaves nothing behind (no mirror, no lock).
 */
export function refuseForNewMirror(req: SyncRequest): void {
  for (const collection of req.collections ?? []) {
    if (collection.whole) continue;
    const params = Object.keys(collection.scoped) as ScopeParam[];
    const added = collection.product === 'fixed-recurring' && params.includes('planId') && (req.added ?? []).length > 0;
    if (!added && params.every((param) => req.ids[param].length === 0) && !foundInRun(req, collection)) throw noScopeKnown(collection);
  }
}

/**
 * The ids a collection kept per plan or strategy is synced for: remembered ones, those
 * its product's records name, and (fixed-recurring) the plans added to the profile;
 * `added`: only added, so not to be remembered.
 */
async function knownScopes(db: MirrorStore, chain: string, collection: MirroredCollection, req: SyncRequest): Promise<{ param: ScopeParam; id: string; added: boolean }[]> {
  const out: { param: ScopeParam; id: string; added: boolean }[] = [];
  for (const param of Object.keys(collection.scoped) as ScopeParam[]) {
    const seen = new Set(await db.rememberedScopes(chain, collection.name, param));
    for (const id of await db.discoveredScopes(chain, collection, param)) seen.add(id);
    for (const id of seen) out.push({ param, id, added: false });
    if (collection.product !== 'fixed-recurring' || param !== 'planId') continue;
    for (const id of req.added ?? []) if (!seen.has(id)) out.push({ param, id, added: true });
  }
  return out;
}

/** The walks of a collection kept per plan or strategy; remembers the ids found in records, and notes when there is none. */
async function scopedTargets(db: MirrorStore, chain: string, req: SyncRequest, collection: MirroredCollection, notes: string[]): Promise<Target[]> {
  const known = await knownScopes(db, chain, collection, req);
  const targets: Target[] = [];
  for (const { param, id, added } of known) {
    if (!added) await db.rememberScopes(chain, collection.name, param, [id]);
    targets.push({ collection, endpoint: collection.scoped[param]!, param, id, given: req.ids[param].includes(id) });
  }
  if (targets.length === 0) {
    const flags = Object.keys(collection.scoped).map((p) => flagOf(p)).join(' or ');
    const added = collection.product === 'fixed-recurring' ? ', none added with payrec fr plans add' : '';
    notes.push(`no plan or strategy known (none given with ${flags}, none named by the records synced${added})`);
  }
  return targets;
}

/** Fetches pages of a target's list, counting requests. */
function pageFetcher(run: Run, target: Target, report: CollectionReport, window?: { from: number; to: number }) {
  const path = fillPath(target.endpoint, target.param ? { [target.param]: target.id! } : {});
  return async ({ offset, limit, ...range }: PageRequest) => {
    report.requests++;
    const query = window ? { from: range.from ?? window.from, to: range.to ?? window.to, sort: 'asc', limit, offset } : { limit, offset };
    const { value, body } = await run.client.jsonAndBody({ method: 'GET', path, query });
    // The bytes travel with the page: an engine may take its records from them as they are (DuckDB's upsert.ts).
    return { ...checkEnvelope(target.endpoint, value), body };
  };
}

/** A list with a time window: from the cursor minus the lookback to the run's start, committed as it goes. */
async function walkWindow(run: Run, target: Target, upserter: CollectionWriter, report: CollectionReport): Promise<void> {
  const { db, chain, req } = run;
  const scope = scopeKey(target.param, target.id);
  const name = target.collection.name;
  const cursor = req.full ? undefined : await db.readCursor(chain, name, scope);
  const from = Math.min(run.to, cursor !== undefined ? Math.max(0, cursor - req.lookback) : (req.from ?? 0));
  const pages = paginate(pageFetcher(run, target, report, { from, to: run.to }), { limit: Infinity, pageSize: PAGE_SIZE, offset: 0, concurrency: req.concurrency ?? run.client.window }, {
    sort: 'asc',
    from,
    to: run.to,
    identity: identityOf(target.endpoint),
  });
  const tx = new Committer(db);
  // What the report says is stored, as of the last commit (a rollback puts it back).
  let kept = storedOf(report);
  const commitNow = async () => {
    await tx.close();
    kept = storedOf(report);
  };
  await upserter.beginWalk();
  // What the window holds no more (a transaction dropped) is removed at the end, when the
  // walk saw the window whole: every page told the same total and that many records came.
  // A first walk has nothing to remove; a reader let in closes the connection, and the
  // identities seen (a temporary table) with it: the next sync removes them then.
  let seenWhole = !upserter.appendsOnly;
  if (seenWhole) await upserter.startSeen();
  const totals = new Set<number>();
  let read = 0;
  const counted = observed(pages, (page) => {
    totals.add(page.total);
    read += page.records.length;
  });
  try {
    await inBatches(run, target, counted, upserter, report, db.commitPlan(upserter.appendsOnly), async (batch, commit) => {
      await tx.open();
      await run.stamp();
      add(report, await upserter.write(batch, { remember: seenWhole }));
      // Ascending walk: the last record is the newest written; the cursor travels in the same transaction.
      await db.writeCursor(chain, name, scope, batch.last!.timestamp as number);
      if (cursor === undefined) await db.writeSince(chain, name, scope, from);
      // A reader waiting for the file gets it now, with what is committed (see MirrorStore.letReadersIn).
      const readers = db.readersWaiting();
      if (commit || readers) await commitNow();
      if (readers) {
        await db.letReadersIn();
        seenWhole = false;
      }
    });
    // The whole window is in: the next sync starts from the moment this one began.
    await tx.open();
    await run.stamp();
    const [total] = totals;
    if (seenWhole && totals.size <= 1 && read === (total ?? 0)) report.deleted += await upserter.removeUnseenBetween(from, run.to);
    await db.writeCursor(chain, name, scope, run.to);
    if (cursor === undefined) await db.writeSince(chain, name, scope, from);
    await tx.close();
  } catch (err) {
    // Stopped between batches (Ctrl-C, a network error): what was written is whole, with its cursor.
    if (!(await tx.keep())) Object.assign(report, kept);
    throw err;
  }
}

/** A walk's transactions: opened by the first write after a commit. */
class Committer {
  private inTransaction = false;

  constructor(private readonly db: MirrorStore) {}

  async open(): Promise<void> {
    if (this.inTransaction) return;
    await this.db.begin();
    this.inTransaction = true;
  }

  async close(): Promise<void> {
    if (!this.inTransaction) return;
    this.inTransaction = false;
    await this.db.commit();
  }

  /** Commits what was written; when a failed statement left the transaction unusable, rolls it back (false). */
  async keep(): Promise<boolean> {
    if (!this.inTransaction) return true;
    this.inTransaction = false;
    return this.db.commit().then(
      () => true,
      async () => {
        await this.db.rollback();
        return false;
      },
    );
  }
}

/**
 * A list without a time window: read whole in one transaction; what it no longer lists
 * is removed, but only when the walk saw the list whole. Such a list (short urls) can
 * gain and lose records while it is read, and offsets shift when it does: a record that
 * moved across a page boundary is not read, and must not be taken for deleted. So
 * records are removed only when every page reported the same total and the walk read
 * that many; otherwise the next sync that reads the list unchanged removes them.
 */
async function walkWhole(run: Run, target: Target, upserter: CollectionWriter, report: CollectionReport): Promise<void> {
  const totals = new Set<number>();
  let read = 0;
  const walk = paginate(pageFetcher(run, target, report), { limit: Infinity, pageSize: WHOLE_LIST_PAGE_SIZE, offset: 0, concurrency: run.req.concurrency ?? run.client.window }, { identity: identityOf(target.endpoint) });
  const pages = observed(walk, (page) => {
    totals.add(page.total);
    read += page.records.length;
  });
  // One transaction: a failed walk stores nothing of it, and its report says so.
  const before = storedOf(report);
  try {
    await run.db.transaction(async () => {
      await run.stamp();
      await upserter.startSeen();
      await inBatches(run, target, pages, upserter, report, undefined, async (batch) => add(report, await upserter.write(batch, { remember: true })));
      // Only a list of every record can tell what is gone; a plan's list shows a part.
      if (target.param) return;
      const [total] = totals;
      if (totals.size <= 1 && read === (total ?? 0)) report.deleted += await upserter.removeUnseen();
      else run.session.warn(`${target.collection.table}: the list changed while it was read; records it no longer lists are removed at the next sync`);
    });
  } catch (err) {
    Object.assign(report, before);
    throw err;
  }
}

/** The pages of `pages`, each shown to `see` first. */
async function* observed(pages: AsyncGenerator<Page>, see: (page: Page) => void): AsyncGenerator<Page> {
  for await (const page of pages) {
    see(page);
    yield page;
  }
}

/**
 * Feeds the records of `pages` to `write` in batches (see BATCH_RECORDS), with a
 * progress line, telling it after which batches to commit (`plan`; none: the caller's
 * one transaction). Batches are written while the next ones are fetched: the engine works
 * on its own threads (DuckDB's do), so the writing overlaps the network and the parsing of pages.
 * Writes still run one after another, in order.
 */
async function inBatches(
  run: Run,
  target: Target,
  pages: AsyncGenerator<Page>,
  upserter: CollectionWriter,
  report: CollectionReport,
  plan: CommitPlan | undefined,
  write: (batch: WriteBatch, commit: boolean) => Promise<void>,
): Promise<void> {
  const label = target.id ? `${target.collection.table} (${flagOf(target.param!)} ${target.id.slice(0, 10)}…)` : target.collection.table;
  const progress = new Progress(run.session, true, label);
  let batch = upserter.newBatch();
  let fetched = 0;
  let started = performance.now();
  // Writes run one after another, each chained to the one before; `queued` are those not yet done.
  let writing: Promise<void> = Promise.resolve();
  let writeFailed = false;
  const queued: Promise<void>[] = [];
  const flush = async () => {
    if (queued.length >= WRITES_QUEUED) await queued.shift();
    const full = batch;
    batch = upserter.newBatch();
    started = performance.now();
    const commit = plan?.take(full.size) ?? false;
    writing = writing.then(() => write(full, commit));
    // Its failure surfaces at a later flush or at the end, not as an unhandled rejection.
    writing.catch(() => (writeFailed = true));
    queued.push(writing);
  };
  try {
    for await (const page of pages) {
      fetched += page.records.length;
      report.fetched += page.records.length;
      upserter.add(batch, page);
      // A reader waiting for the file gets it after this batch (see walkWindow), not a second later.
      const due = batch.size >= BATCH_RECORDS || plan?.fillsCommit(batch.size) || performance.now() - started >= BATCH_MS || (plan !== undefined && run.db.readersWaiting());
      if (batch.size > 0 && due) await flush();
      await progress.update(fetched, Math.max(fetched, page.total));
      if (run.session.ctx.signal.aborted) throw new InterruptedError();
    }
    if (batch.size > 0) await flush();
    await writing;
  } catch (err) {
    // Stopped while fetching (Ctrl-C, a lost network): the pages fetched so far are written
    // too, for the caller to commit, so the next sync does not ask for them again.
    if (!writeFailed && batch.size > 0) await flush().catch(() => {});
    // The transaction is the caller's to commit or roll back, once no write is running in it.
    await writing.catch(() => {});
    throw err;
  } finally {
    progress.stop();
  }
}

function add(report: CollectionReport, counts: UpsertCounts): void {
  report.new += counts.new;
  report.updated += counts.updated;
  report.unchanged += counts.unchanged;
}

/** Warnings about what this run stored: fields beyond the schema, amounts kept only as text. */
function warnAbout(run: Run, collection: MirroredCollection, upserter: CollectionWriter): void {
  if (upserter.drift.size > 0) {
    const paths = firstOf([...upserter.drift].map(([path, n]) => `${path} (${grouped(n)})`));
    run.session.warn(`${collection.table}: fields the documented schema does not have, or values of another type: ${paths}; kept in extra_fields`);
  }
  if (upserter.repaired.length > 0) {
    run.session.warn(
      `${collection.table}: ${grouped(upserter.repaired.length)} record(s) held text that is not valid Unicode (a lone UTF-16 surrogate), stored with U+FFFD in its place: ${firstOf(upserter.repaired)}`,
    );
  }
  const n = upserter.inexact;
  if (n > 0) {
    run.session.warn(
      `${collection.table}: ${grouped(n)} amounts DECIMAL(38,18) cannot hold exactly (not a decimal string, or none at all, or more than 20 integer or 18 fraction digits): ` +
        'their text is kept, and a total, sort or comparison over them fails rather than leave them out; list them with: payrec sql "SELECT * FROM inexact_amounts"',
    );
  }
}
