import type { Command } from 'commander';
import { offerColumns } from '../command-reference/declared-columns.js';
import type { CommandAction } from '../core/runtime/action.js';
import { rpcInEffect } from '../core/config/settings.js';
import { EXIT, PayrecError, UsageError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { validateColumns } from '../core/output/writer.js';
import type { FeedReader } from '../chain/feeds.js';
import { addRowGateOptions, parseRowGates, printRows, type GateFlags } from '../core/lists/list-gates.js';
import { createHash } from 'node:crypto';
import { readRatesFile } from '../values/currency-flags.js';
import { printable } from '../core/output/sanitize.js';
import { createWriter } from '../core/output/writer.js';
import { parseTime } from '../core/runtime/time.js';
import { mirrorDbHelp, mirrorExists, mirrorLocation, MIRROR_DB_FLAG, type MirrorLocation } from '../mirror/location.js';
import { openMirror } from '../mirror/open.js';
import type { StoredRate } from '../mirror/rates.js';
import type { RateRow } from '../values/rates-file.js';
import { isoTime } from '../values/selection.js';
import { topCommand } from './tree.js';
import { grouped } from '../core/output/grouped.js';

// `payrec rates …` (DESIGN.md "Values in one currency"): the rates --currency reads.
// Without a subcommand it lists the mirror's `rates` table (`-f csv` is a rates file);
// `sync` reads the feeds of the mirror's tokens into it, `import FILE` stores a rates
// file in it; `feeds` shows the Chainlink feed of each token on the chain and what it
// answers now; `check [FILE]` is the auditor's re-check of every Chainlink rate of a
// rates file, or of the mirror's table.

const FEED_COLUMNS = ['token', 'pair', 'feed', 'status', 'description', 'decimals', 'phase', 'round', 'rate', 'updatedAt', 'problem'] as const;
const CHECK_COLUMNS = ['line', 'token', 'currency', 'time', 'rate', 'feed', 'round', 'until', 'verdict', 'problem'] as const;

/** The list's columns: a rates file's (what -f csv writes), then where each row came from. */
const FILE_COLUMNS = ['time', 'chain', 'token', 'currency', 'rate', 'source', 'address', 'note'] as const;
const LIST_COLUMNS = [...FILE_COLUMNS, 'feed', 'description', 'phase', 'roundId', 'answer', 'decimals', 'file', 'line', 'sha256'] as const;
const SYNC_COLUMNS = ['token', 'feed', 'pair', 'from', 'to', 'read', 'stored', 'status', 'problem'] as const;

const NODE_HINT = 'give --rpc URL, set PAYREC_RPC_URL, or store it for this profile and chain: payrec config set rpc URL (try it with: payrec --emulator rates feeds)';

export function addRatesCommands(program: Command, action: CommandAction): void {
  const rates = offerColumns(topCommand(program, 'rates'), LIST_COLUMNS)
    .option('--token <symbol>', 'only the rates of this token (BNB, USDT; a currency for fiat rows)')
    .option('--from <time>', 'only rates from this time on (constant rows always)')
    .option('--to <time>', 'only rates up to this time (constant rows always)')
    .option(MIRROR_DB_FLAG, mirrorDbHelp())
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ payrec rates --token BNB --from 2025-12-01',
        '  $ payrec rates -f csv -o rates.csv        # a rates file: --rates rates.csv reads it back',
        '  $ payrec sql "SELECT t.*, r.rate FROM one_time_transfers t ASOF JOIN rates r ON r.chain = t.chain AND r.token = t.token AND r.currency = \'USD\' AND t.timestamp >= r.time"',
        '',
        "Lists the mirror's rates table: the Chainlink rounds payrec rates sync read, the rates files payrec",
        'rates import stored. --currency reads them after --rates FILE and before the feeds read live.',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => listRates(session, cmd.opts() as ListFlags), { output: true }));
  addRowGateOptions(rates);
  rates
    .command('sync')
    .description("Read the Chainlink rounds of the mirror's tokens over the mirror's time span into its rates table: incremental, one transaction per feed")
    .option('--currency <code>', 'also the feed of this currency against USD (EUR / USD), for values in it')
    .option('--from <time>', 'from this time (default: the first record of each token)')
    .option('--to <time>', 'up to this time (default: the last record of each token)')
    .option(MIRROR_DB_FLAG, mirrorDbHelp())
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ payrec rates sync',
        '  $ payrec rates sync --currency EUR --from 2025-01-01',
        '',
        'A second sync reads only the rounds written since (and before, when --from reaches further back).',
        'A feed that does not answer as the pair it should be (another description, zeros) is refused and',
        'nothing of it is written (exit 6). The node comes from --rpc, PAYREC_RPC_URL or payrec config set rpc.',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => syncRatesCommand(session, cmd.optsWithGlobals() as SyncFlags), { output: true }));
  rates
    .command('import')
    .description("Store a rates file (CSV: time,chain,token,currency,rate,source) in the mirror's rates table, each row with its file, line and the file's sha256")
    .argument('<file>', 'a rates file; an import of a file of the same name replaces the rows it stored')
    .option(MIRROR_DB_FLAG, mirrorDbHelp())
    .addHelpText('after', ['', 'Examples:', '  $ payrec rates import rates-2025-12.csv', '', 'Every line is checked first: a malformed one is exit 2 naming the file and line, and nothing is stored.', ''].join('\n'))
    .action(action((session, cmd) => importRates(session, cmd.args[0] as string, cmd.optsWithGlobals() as { db?: string })));
  const feeds = offerColumns(rates.command('feeds'), FEED_COLUMNS)
    .description("The Chainlink feed of each token on --chain (ONCHAIN §10, or config set feed), checked and read now: its description, decimals and latest round")
    .addHelpText('after', ['', 'Examples:', '  $ payrec rates feeds', '  $ payrec --chain ethereum rates feeds -f json', '', 'The node comes from --rpc, PAYREC_RPC_URL or payrec config set rpc (--emulator needs none).', ''].join('\n'))
    .action(action((session, cmd) => listFeeds(session, cmd.optsWithGlobals() as GateFlags), { output: true }));
  addRowGateOptions(feeds);
  const check = offerColumns(rates.command('check'), CHECK_COLUMNS)
    .description("Re-read on chain every Chainlink rate of a rates file, or of the mirror's rates table: its round, and the round after it that ends its validity; exit 9 on any difference")
    .argument('[file]', "a rates file (CSV: time,chain,token,currency,rate,source) whose Chainlink rates name their round in source (default: the mirror's rates table)")
    .option(MIRROR_DB_FLAG, mirrorDbHelp())
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ payrec rates check',
        '  $ payrec rates check rates.csv',
        '  $ payrec --chain ethereum rates check rates.csv -f csv -o checked.csv',
        '',
        'A rate is the same when its round answers it (answer ÷ 10^decimals of its phase), was written',
        'at the row\'s time, and no later round had replaced it by then; until is when the next round',
        'replaced it (empty for the latest). Rows of another chain\'s feeds need that chain\'s node',
        '(--chain); rows from elsewhere than Chainlink (a team\'s rate, a peg) have nothing on chain to check.',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => checkRates(session, cmd.args[0] as string | undefined, cmd.optsWithGlobals() as GateFlags & { db?: string }), { output: true }));
  addRowGateOptions(check);
}

/** The chain's feeds read through its node: exit 2 when none is set. */
async function openReader(session: Session): Promise<FeedReader> {
  const s = await session.settings();
  const { url } = await rpcInEffect(s, session.store);
  if (!url) throw new UsageError(`reading Chainlink's feeds needs a ${s.chain} JSON-RPC node: none is set`, NODE_HINT);
  return (await import('../chain/open-verifier.js')).openFeedReader(session, url);
}

async function listFeeds(session: Session, flags: GateFlags): Promise<void> {
  const output = session.output('list', FEED_COLUMNS);
  if (output.columns) validateColumns(output.columns, [...FEED_COLUMNS]);
  const gates = await parseRowGates(flags, session.format);
  const reader = await openReader(session);
  const { feedRows } = await import('../chain/feed-status.js');
    // Old as the chain counts: from its latest block's time.
  const head = await reader.client.block('latest');
  const now = head ? Number(head.timestamp) : Math.floor(session.ctx.now() / 1000);
  await printRows(session, output, gates, (await feedRows(reader, now)).map((r) => ({ ...r })), 'feed');
}

async function checkRates(session: Session, path: string | undefined, flags: GateFlags & { db?: string }): Promise<void> {
  const output = session.output('list', CHECK_COLUMNS);
  if (output.columns) validateColumns(output.columns, [...CHECK_COLUMNS]);
  const gates = await parseRowGates(flags, session.format);
  if (path !== undefined && flags.db !== undefined) throw new UsageError('rates check reads a FILE or the mirror (--db), not both');
  const file = path !== undefined ? await readRatesFile(path, 'rates check') : await storedRatesFile(session, flags.db);
  const reader = await openReader(session);
  const { auditRates } = await import('../chain/feed-audit.js');
  const audit = await auditRates(reader, file.rows);
  const rows = audit.rates.map((r) => ({ line: r.line, token: r.token, currency: r.currency, time: r.time, rate: r.rate, feed: r.feed, round: r.round, until: r.until ?? null, verdict: r.verdict, problem: r.problem }));
  await printRows(session, output, gates, rows, 'rate');
  const unchecked = audit.rates.filter((r) => r.verdict === 'not checked');
  if (audit.others > 0) session.note(`${grouped(audit.others)} row${audit.others === 1 ? ' is' : 's are'} not a Chainlink rate (a team's rate, a peg): nothing on chain to check`);
  if (unchecked.length > 0) session.note(`${grouped(unchecked.length)} Chainlink rate${unchecked.length === 1 ? ' is' : 's are'} of another chain's feeds, not checked: ${[...new Set(unchecked.map((r) => r.problem))].join('; ')}`);
  const differing = audit.rates.filter((r) => r.verdict === 'differs');
  if (differing.length > 0) {
    const [first] = differing;
    const more = differing.length - 1;
    throw new PayrecError(
      `${grouped(differing.length)} rate${differing.length === 1 ? ' differs' : 's differ'} from the chain: ${file.name}:${first.line}: ${first.problem}${more > 0 ? `; and ${differing.slice(1, 11).map((r) => `${file.name}:${r.line}`).join(', ')}${more > 10 ? ` and ${more - 10} more` : ''}` : ''}`,
      EXIT.gate,
      'the problem column says what differs on each line',
    );
  }
  if (audit.rates.length === 0) session.note(`${file.name} holds no Chainlink rate: nothing was checked`);
}

interface ListFlags extends GateFlags {
  token?: string;
  from?: string;
  to?: string;
  db?: string;
}

interface SyncFlags {
  currency?: string;
  from?: string;
  to?: string;
  db?: string;
}

/** The mirror at --db (or PAYREC_DB, the profile's): exit 2 when there is none yet. */
async function existingMirror(session: Session, db: string | undefined): Promise<MirrorLocation> {
  const location = await mirrorLocation(session, db);
  if (!mirrorExists(location)) throw new UsageError(`there is no mirror at ${printable(location.file)}`, 'create it with: payrec sync (or give --db FILE)');
  return location;
}

/** --from and --to as Unix seconds in the session's zone; undefined where not given. */
function bounds(session: Session, flags: { from?: string; to?: string }): { from?: number; to?: number } {
  const now = session.ctx.now();
  const from = flags.from !== undefined ? parseTime(flags.from, now, '--from', session.zone) : undefined;
  const to = flags.to !== undefined ? parseTime(flags.to, now, '--to', session.zone, true) : undefined;
  if (from !== undefined && to !== undefined && from > to) throw new UsageError('--from is after --to');
  return { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
}

/** A stored rate as the list shows it: a rates file's line, then where it came from. */
function listed(r: StoredRate, csv: boolean): Record<string, unknown> {
  const line = { time: r.time === null ? '*' : isoTime(r.time), chain: r.chain, token: r.token, currency: r.currency, rate: r.rate ?? '', source: r.source, address: r.address ?? '', note: r.note ?? '' };
  if (csv) return line;
  return { ...line, address: r.address, note: r.note, feed: r.feed, description: r.description, phase: r.phase, roundId: r.roundId, answer: r.answer, decimals: r.decimals, file: r.file, line: r.line, sha256: r.sha256 };
}

async function listRates(session: Session, flags: ListFlags): Promise<void> {
  const csv = session.format === 'csv';
  const output = { ...session.output('list', csv ? FILE_COLUMNS : LIST_COLUMNS), literalColumns: true };
  if (output.columns) validateColumns(output.columns, [...LIST_COLUMNS]);
  const gates = await parseRowGates(flags, session.format);
  const window = bounds(session, flags);
  const location = await existingMirror(session, flags.db);
  const store = await openMirror(session, location, 'read');
  let rows: StoredRate[];
  try {
    rows = await store.rates({ ...(flags.token !== undefined ? { token: flags.token } : {}), ...window });
  } finally {
    store.close();
  }
  // A round whose answer is ≤ 0 has no rate: a rates file cannot hold it (its rate would be missing, never zero).
  const unrated = rows.filter((r) => r.rate === null);
  if (csv && unrated.length > 0) {
    session.note(`${grouped(unrated.length)} round${unrated.length === 1 ? '' : 's'} answering ≤ 0 (never a rate) left out of the rates file: ${unrated.slice(0, 3).map((r) => r.source).join(', ')}${unrated.length > 3 ? ', …' : ''}`);
  }
  await printRows(session, output, gates, (csv ? rows.filter((r) => r.rate !== null) : rows).map((r) => listed(r, csv)), 'rate');
}

/** The mirror's rates of the session's chain as a rates file, numbered as payrec rates -f csv writes them (header: line 1). */
async function storedRatesFile(session: Session, db: string | undefined): Promise<{ rows: RateRow[]; name: string }> {
  const location = await existingMirror(session, db);
  const { chain } = await session.settings();
  const store = await openMirror(session, location, 'read');
  let stored: StoredRate[];
  try {
    stored = (await store.rates({})).filter((r) => r.rate !== null);
  } finally {
    store.close();
  }
  const rows = stored.flatMap((r, i): RateRow[] => (r.chain === chain || r.chain === '*' || r.chain === 'fiat' ? [{ line: i + 2, time: r.time, chain: r.chain, token: r.token, currency: r.currency, rate: r.rate!, source: r.source }] : []));
  return { rows, name: "the mirror's rates (payrec rates -f csv)" };
}

async function syncRatesCommand(session: Session, flags: SyncFlags): Promise<void> {
  const output = session.output('list', SYNC_COLUMNS);
  if (output.columns) validateColumns(output.columns, [...SYNC_COLUMNS]);
  const currencies = flags.currency !== undefined ? [(await import('../values/currency.js')).parseCurrency(flags.currency, '--currency')] : [];
  const window = bounds(session, flags);
  const location = await existingMirror(session, flags.db);
  const target = await session.openOutput();
  const reader = await openReader(session);
  const head = await reader.client.block('latest');
  const now = head ? Number(head.timestamp) : Math.floor(session.ctx.now() / 1000);
  const store = await openMirror(session, location, 'write');
  const { Progress } = await import('../core/output/progress.js');
  const progress = new Progress(session, true, 'rates', 'rounds');
  let report;
  try {
    await store.transaction(() => store.layout());
    const { syncRates } = await import('../mirror/rates-sync.js');
    report = await syncRates(store, reader, {
      chain: reader.chain,
      currencies,
      ...window,
      head: now,
      signal: session.ctx.signal,
      progress: (done, total) => void progress.update(done, total),
    });
  } finally {
    progress.stop();
    store.close();
  }
  const writer = createWriter(target.stream, { ...output, literalColumns: true });
  for (const r of report) await writer.write({ ...r, from: isoTime(r.from), to: isoTime(r.to) });
  await writer.end();
  await target.commit();
  const stored = report.reduce((n, r) => n + r.stored, 0);
  const synced = report.filter((r) => r.status === 'synced').length;
  session.note(synced === 0 ? 'every feed was up to date: nothing read' : `stored ${grouped(stored)} new round${stored === 1 ? '' : 's'} of ${synced} feed${synced === 1 ? '' : 's'}`);
  const refused = report.filter((r) => r.status === 'refused');
  if (refused.length > 0) {
    throw new PayrecError(`${refused.length} feed${refused.length === 1 ? ' was' : 's were'} refused, nothing of ${refused.length === 1 ? 'it' : 'them'} stored: ${refused.map((r) => `${r.token}: ${r.problem}`).join('; ')}`, EXIT.server, 'check the node (--rpc) and the feed (payrec rates feeds)');
  }
}

async function importRates(session: Session, path: string, flags: { db?: string }): Promise<void> {
  // Every line checked before the mirror is opened: a malformed one stores nothing.
  const file = await readRatesFile(path, 'rates import');
  const location = await existingMirror(session, flags.db);
  const sha256 = createHash('sha256').update(file.text).digest('hex');
  const rows: StoredRate[] = file.rows.map((r) => ({
    chain: r.chain,
    token: r.token,
    currency: r.currency,
    time: r.time,
    rate: r.rate,
    source: r.source,
    feed: null,
    description: null,
    phase: null,
    roundId: null,
    answer: null,
    decimals: null,
    file: file.name,
    line: r.line,
    sha256,
    address: r.address ?? null,
    note: r.note ?? null,
  }));
  const store = await openMirror(session, location, 'write');
  let replaced: number;
  try {
    await store.transaction(() => store.layout());
    replaced = await store.transaction(async () => {
      const n = await store.dropImport(file.name);
      await store.storeRates(rows);
      return n;
    });
  } finally {
    store.close();
  }
  session.note(`imported ${grouped(rows.length)} rate${rows.length === 1 ? '' : 's'} of ${file.name} (sha256 ${sha256})${replaced > 0 ? `, in place of the ${grouped(replaced)} an earlier import of ${file.name} stored` : ''}`);
}
