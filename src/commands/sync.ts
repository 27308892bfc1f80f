import type { Command } from 'commander';
import { offerColumns } from '../command-reference/declared-columns.js';
import { dirname } from 'node:path';
import type { CommandAction } from '../core/runtime/action.js';
import { UsageError } from '../core/runtime/errors.js';
import { CONCURRENCY_HELP, optionSchemas, parseOption } from '../core/runtime/options.js';
import { parseDuration, parseTime } from '../core/runtime/time.js';
import type { Session } from '../core/runtime/session.js';
import { createWriter, validateColumns } from '../core/output/writer.js';
import { hexId } from '../registry/validators.js';
import { printable } from '../core/output/sanitize.js';
import { topCommand } from './tree.js';
import { resolveCollections, SCOPE_PARAMS, type ScopeParam } from '../mirror/catalog.js';
import { MIRROR_KEEPER, mirrorExists, mirrorLocation, parquetTarget, MIRROR_DB_FLAG, mirrorDbHelp } from '../mirror/location.js';
import { makeKeptFolder } from '../core/runtime/trust.js';
import { openMirror } from '../mirror/open.js';
import { serviceOf } from '../mirror/service.js';
import { refuseForNewMirror, syncMirror, type CollectionReport } from '../mirror/sync.js';
import { addedPlans, statedPlans } from '../core/config/added-plans.js';

// `payrec sync [COLLECTION…]`: brings the local mirror up to date and reports, per
// collection, what it fetched and what changed. Every flag is checked, and the mirror
// opened, before the first request.

const REPORT_COLUMNS = ['table', 'fetched', 'new', 'updated', 'unchanged', 'deleted', 'requests', 'seconds', 'note'] satisfies (keyof CollectionReport)[];

/** The most a lookback may reach back: a year (a longer one is a --full). */
const MAX_LOOKBACK = 366 * 86_400;

interface SyncFlags {
  planId?: string[];
  strategyId?: string[];
  db?: string;
  lookback?: string;
  from?: string;
  full?: boolean;
  concurrency?: string;
  parquet?: string;
  wait?: string | true;
}

const collect = (value: string, previous: string[] = []) => [...previous, ...value.split(',')];

export function addSyncCommand(program: Command, action: CommandAction): void {
  offerColumns(topCommand(program, 'sync'), ['collection', ...REPORT_COLUMNS])
    .argument('[collection...]', 'product/collection to sync, such as ot/transfers or fr/billings (default: every list that needs no id, plus the lists of plans and strategies given now or before)')
    .option('--plan-id <id>', 'also keep the lists of this plan (billings, cancellations, cancellation requests); repeatable, remembered by the mirror (payrec fr plans add keeps one in the profile instead)', collect)
    .option('--strategy-id <id>', 'with dca/executions: read only the executions of this strategy (repeatable; without it, every execution)', collect)
    .option(MIRROR_DB_FLAG, mirrorDbHelp())
    .option('--lookback <duration>', 're-read this far before each cursor, for late records and changed statuses (default 1h)')
    .option('--from <time>', "where a collection's first sync starts: Unix seconds, ISO 8601 date (midnight in --tz) or date-time, or an age (default: its first record)")
    .option('--full', 're-read every record, not only what is new since the last sync')
    .option('--concurrency <n>', CONCURRENCY_HELP)
    .option('--parquet <dir>', 'also write the mirror as Hive-partitioned Parquet into DIR, rewriting only partitions that changed')
    .option('--wait [duration]', 'when another sync is writing the mirror, wait for it (at most DURATION, such as 10m; no limit without one) instead of exit 10')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ payrec --emulator sync',
        '  $ payrec sync ot/transfers w2w/payments --from 2026-01-01',
        '  $ payrec sync --plan-id 0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7 --parquet ./warehouse',
        '  $ PAYREC_API_KEY=… payrec sync --db mirror.duckdb -f json',
        '  $ payrec sync --wait 10m    # in cron: wait for a sync still running',
        '',
        'Each run reads from where the last one ended (minus --lookback), commits as it goes,',
        'and can be interrupted and run again. Query the mirror with: payrec sql',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => runSync(session, cmd), { output: true }));
}

/** The most --wait may ask for: a day (a sync that runs longer is stuck, not busy). */
const MAX_WAIT = 86_400;

/**
 * --wait's optional DURATION. Commander gives an optional value whatever follows the
 * flag, so `sync --wait ot/transfers` hands the collection to --wait: a value that is no
 * duration but a collection's name is taken back as one (what the user meant).
 */
function waitOf(value: string | true | undefined): { wait?: number; extra: string[] } {
  if (value === undefined) return { extra: [] };
  if (value === true) return { wait: Infinity, extra: [] };
  if (!/^\d/.test(value) && value.includes('/')) return { wait: Infinity, extra: [value] };
  const seconds = parseDuration(value, '--wait');
  if (seconds > MAX_WAIT) throw new UsageError(`invalid --wait "${printable(value)}": expected at most 1d (or --wait alone, without a limit)`);
  return { wait: seconds, extra: [] };
}

async function runSync(session: Session, cmd: Command): Promise<void> {
  const flags = cmd.opts() as SyncFlags;
  const { wait, extra } = waitOf(flags.wait);
  const names = [...extra, ...cmd.args];
  const collections = names.length > 0 ? resolveCollections(names) : undefined;
  const ids = {} as Record<ScopeParam, string[]>;
  for (const param of SCOPE_PARAMS) {
    const flag = param === 'planId' ? '--plan-id' : '--strategy-id';
    // Ids are hex: one case, so an id given twice in two cases is one scope.
    ids[param] = [...new Set((flags[param] ?? []).map((id) => parseOption(hexId, id, flag).toLowerCase()))];
  }
  const lookback = parseDuration(flags.lookback ?? '1h', '--lookback');
  if (lookback > MAX_LOOKBACK) throw new UsageError(`invalid --lookback "${printable(flags.lookback!)}": expected at most 366d (to re-read everything, use --full)`);
  const from = flags.from !== undefined ? parseTime(flags.from, session.ctx.now(), '--from', session.zone) : undefined;
  const concurrency = flags.concurrency === undefined ? undefined : parseOption(optionSchemas.concurrency, flags.concurrency, '--concurrency');
  const output = session.output('list', REPORT_COLUMNS);
  if (output.columns) validateColumns(output.columns, ['collection', ...REPORT_COLUMNS]);
  const location = await mirrorLocation(session, flags.db);
  if (flags.parquet !== undefined && location.server) {
    throw new UsageError('--parquet writes a mirror file as Parquet, and this mirror is on a PostgreSQL server (--db postgres://…): nothing was sent', 'read the server from Spark, Trino or pandas, or sync a mirror file with --parquet');
  }
  const parquet = flags.parquet !== undefined ? await parquetTarget(flags.parquet) : undefined;
  // --dry-run sends nothing and writes nothing: it prints the requests of a first sync
  // against a mirror in memory, and leaves the mirror file as it was (or absent).
  const dryRun = Boolean(session.flags.dryRun);
  // The profile's plans and those the job states (PAYREC_PLANS).
  const added = [...(await addedPlans(session)), ...statedPlans(session)];
  // Bad input creates nothing: what a new mirror would refuse is refused before it exists.
  if (!dryRun && !mirrorExists(location)) refuseForNewMirror({ collections, ids, added, lookback, from, full: Boolean(flags.full), concurrency });
  if (location.isDefault && !dryRun) await makeKeptFolder(dirname(location.file), MIRROR_KEEPER);
  const service = await serviceOf(session);
  const target = await session.openOutput();
  // The HTTP client (undici, about a megabyte of JavaScript to compile) is made while
  // the mirror opens and is laid out (DuckDB's own thread); the sync takes this one. A
  // failure surfaces there, in its turn.
  session.client(concurrency, false).catch(() => {});
  const db = await openMirror(session, dryRun ? 'memory' : location, 'write', { waitForSync: wait, syncs: true });
  const reports: CollectionReport[] = [];
  // A run that fails after some lists were synced still prints its report (each list's row,
  // the failed one's note saying why) before the error and its exit code: a job can parse what was done.
  let failure: { err: unknown } | undefined;
  try {
    await syncMirror(session, db, service, { collections, ids, added, lookback, from, full: Boolean(flags.full), concurrency }, reports);
    if (parquet) {
      await db.useAllCores();
      const written = await db.exportParquet(parquet, session.ctx.signal);
      session.notice(`Parquet in ${parquet}: ${written.written} partitions written, ${written.unchanged} unchanged, ${written.removed} removed`);
    }
  } catch (err) {
    failure = { err };
  } finally {
    db.close();
  }
  if (failure && reports.length === 0) throw failure.err;
  const writer = createWriter(target.stream, output);
  for (const r of reports) await writer.write({ ...r });
  await writer.end();
  await target.commit();
  if (failure) throw failure.err;
}
