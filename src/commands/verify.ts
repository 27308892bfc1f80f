import type { Command } from 'commander';
import { userInfo } from 'node:os';
import { offerColumns } from '../command-reference/declared-columns.js';
import type { CommandAction } from '../core/runtime/action.js';
import { EXIT, PayrecError, UsageError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { createWriter, validateColumns } from '../core/output/writer.js';
import { printable } from '../core/output/sanitize.js';
import { BAD_VERDICTS, VERDICTS, type Verdict } from '../chain/verdict-names.js';
import { verifiable } from '../chain/verifiable.js';
import { CATALOG, resolveCollections } from '../mirror/catalog.js';
import { mirrorExists, mirrorLocation, type MirrorLocation, MIRROR_DB_FLAG, MIRROR_DB_HELP_NO_EMULATOR, mirrorDbHelp } from '../mirror/location.js';
import { openMirror } from '../mirror/open.js';
import type { VerifyReport } from '../mirror/engine.js';
import { topCommand } from './tree.js';
import { windowOf } from '../core/lists/list-flags.js';
import { PERIOD_FORMS } from '../core/runtime/period.js';
import { parseConfirmations, parseVerdicts } from '../chain/verify-flags.js';
import { grouped } from '../core/output/grouped.js';

// `payrec verify [COLLECTION…]`: the mirror's records checked against the chain, their
// verdicts kept in the mirror's `chain_verdicts` (joinable in payrec sql), counted per
// collection; exit 9 when any is bad (--fail-if-any changes which verdicts fail, --new
// counts only verdicts first seen or changed by this run, and acknowledged ones never
// fail). `payrec verify ack HASH… --reason TEXT` acknowledges reviewed discrepancies
// (table `chain_acks`), `payrec verify acks` lists them.

const REPORT_COLUMNS = ['collection', 'checked', 'newlyReorged', 'new', 'acked', ...VERDICTS, 'note'];
const ACK_COLUMNS = ['transactionHash', 'verdict', 'collection', 'reason', 'ackedBy', 'ackedAt'];

interface VerifyCommandFlags {
  db?: string;
  failIfAny?: string;
  confirmations?: string;
  new?: boolean;
  recheck?: string;
  from?: string;
  to?: string;
  period?: string;
}

export function addVerifyCommand(program: Command, action: CommandAction): void {
  const verify = offerColumns(topCommand(program, 'verify'), REPORT_COLUMNS)
    .argument('[collection...]', 'product/collection to verify, such as ot/transfers or fr/billings (default: every mirrored collection of transactions)')
    .option(MIRROR_DB_FLAG, mirrorDbHelp())
    .option('--fail-if-any <verdicts>', `exit 9 when any record not acknowledged has one of these verdicts (default bad: ${BAD_VERDICTS.join(', ')})`)
    .option('--new', 'with the gate: count only verdicts first seen or changed by this run (a CI gate on news, not on history)')
    .option('--recheck <verdicts>', 'judge records with these verdicts again even when final (such as reorged,mismatch after a node misbehaved)')
    .option('--from <time>', "only the mirror's records from this time: Unix seconds, ISO 8601 date or date-time, or an age (7d)")
    .option('--to <time>', 'only records up to this time, same forms; a date alone includes that whole day')
    .option('--period <period>', `only the records of a calendar period in --tz: ${PERIOD_FORMS}`)
    .option('--confirmations <n>', 'confirmations a record needs to be final (default: 15 bsc, 12 ethereum, 128 polygon, 15 sandbox)')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ payrec sync && payrec verify',
        '  $ payrec verify ot/transfers fr/billings --fail-if-any mismatch,spoofed',
        '  $ payrec verify --new --period last-month',
        '  $ payrec verify ack 0x9c0a59c877da011ec733115b2a0e721711352c16c02cb26dc2240266d4f76f6b --reason "refund booked by hand, ticket FIN-112"',
        "  $ payrec sql \"SELECT t.*, v.verdict FROM one_time_transfers t JOIN chain_verdicts v USING (transactionHash) WHERE v.verdict <> 'verified'\"",
        '',
        'The node comes from --rpc, PAYREC_RPC_URL or payrec config set rpc. A second run asks the',
        "chain only about records not yet final (pending, unconfirmed, missing, reorged, or changed",
        "since) and reads again only the blocks above the node's finalized block, marking reorged a",
        'final record whose block hash changed (and reading its receipt again).',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => runVerify(session, cmd), { output: true }));
  offerColumns(verify.command('ack'), ACK_COLUMNS)
    .description('Acknowledge reviewed discrepancies: they stay in every report but fail no gate (table chain_acks)')
    .argument('<hash...>', 'transaction hashes (0x + 64 hex)')
    .requiredOption('--reason <text>', 'why the discrepancy is accepted (kept with who and when)')
    .option('--by <name>', 'who reviewed it (default: the user running payrec)')
    .option(MIRROR_DB_FLAG, MIRROR_DB_HELP_NO_EMULATOR)
    .action(action((session, cmd) => runAck(session, cmd), { output: true }));
  offerColumns(verify.command('acks'), ACK_COLUMNS)
    .description('List the acknowledged discrepancies with their current verdicts')
    .option(MIRROR_DB_FLAG, MIRROR_DB_HELP_NO_EMULATOR)
    .action(action((session, cmd) => runAcks(session, cmd), { output: true }));
}

async function existingMirror(session: Session, db: string | undefined): Promise<MirrorLocation> {
  const location = await mirrorLocation(session, db);
  if (!mirrorExists(location)) throw new UsageError(`there is no mirror at ${printable(location.file)}`, 'create it with: payrec sync (or give --db FILE)');
  return location;
}

async function runVerify(session: Session, cmd: Command): Promise<void> {
  const flags = cmd.opts() as VerifyCommandFlags;
  const collections = (cmd.args.length > 0 ? resolveCollections(cmd.args) : CATALOG).filter((c) => verifiable(c.name));
  if (collections.length === 0) throw new UsageError('none of these collections holds transactions to verify', 'short urls have none; name transfers, billings, payments, cancellations or executions');
  const failOn: Set<Verdict> = flags.failIfAny !== undefined ? parseVerdicts(flags.failIfAny, '--fail-if-any') : new Set(BAD_VERDICTS);
  const recheck: Set<Verdict> = flags.recheck !== undefined ? parseVerdicts(flags.recheck, '--recheck') : new Set();
  const confirmations = flags.confirmations !== undefined ? parseConfirmations(flags.confirmations) : undefined;
  const windowed = flags.period !== undefined || flags.from !== undefined || flags.to !== undefined;
  const window = windowed ? windowOf(flags, session.ctx.now(), session.zone) : {};
  const output = session.output('list', REPORT_COLUMNS);
  if (output.columns) validateColumns(output.columns, REPORT_COLUMNS);
  const location = await existingMirror(session, flags.db);
  const target = await session.openOutput();
  const { openVerifier } = await import('../chain/open-verifier.js');
  const verifier = await openVerifier(session, confirmations);
  const db = await openMirror(session, location, 'write');
  const reports: VerifyReport[] = [];
  // A node that fails half-way (exit 7) leaves what was verified in the mirror, and the
  // report of it is printed before the error: each collection's counts so far, the one
  // it stopped in and those not reached said in their notes.
  let failure: { err: unknown } | undefined;
  try {
    await db.transaction(() => db.layout());
    await db.verify(verifier, {
      chain: verifier.chain,
      collections,
      scope: { recheck, ...window },
      signal: session.ctx.signal,
      progress: (n) => session.notice(`verified ${grouped(n)} records…`),
      reports,
    });
  } catch (err) {
    failure = { err };
  } finally {
    db.close();
  }
  if (failure && reports.length === 0) throw failure.err;
  const sum = (counts: Partial<Record<Verdict, number>>, verdicts: Iterable<Verdict> = VERDICTS) => [...verdicts].reduce((n, v) => n + (counts[v] ?? 0), 0);
  const writer = createWriter(target.stream, { ...output, literalColumns: true });
  for (const r of reports) {
    await writer.write({ collection: r.collection, checked: r.checked, newlyReorged: r.newlyReorged, new: sum(r.news), acked: sum(r.acked), ...Object.fromEntries(VERDICTS.map((v) => [v, r.verdicts[v] ?? 0])), note: r.note });
  }
  await writer.end();
  await target.commit();
  if (failure) throw failure.err;
  const total = (k: 'verdicts' | 'news' | 'acked' | 'ackedNews') => reports.reduce((n, r) => n + sum(r[k], failOn), 0);
  const failing = flags.new ? total('news') - total('ackedNews') : total('verdicts') - total('acked');
  const acked = flags.new ? total('ackedNews') : total('acked');
  const verdicts = [...failOn].join(', ');
  if (failing > 0) {
    const what = `${grouped(failing)} record${failing === 1 ? '' : 's'} ${failing === 1 ? 'is' : 'are'} ${flags.new ? 'newly ' : ''}${verdicts} (--fail-if-any${flags.new ? ' --new' : ''})`;
    throw new PayrecError(
      `${what}${acked > 0 ? `; ${grouped(acked)} acknowledged, not counted` : ''}`,
      EXIT.gate,
      `list them: payrec sql "SELECT * FROM chain_verdicts WHERE verdict IN (${[...failOn].map((v) => `'${v}'`).join(', ')})"; accept a reviewed one: payrec verify ack HASH --reason TEXT`,
    );
  }
  if (acked > 0) session.note(`${grouped(acked)} acknowledged record${acked === 1 ? '' : 's'} ${acked === 1 ? 'is' : 'are'} ${verdicts}: not counted (payrec verify acks lists them)`);
}

interface AckFlags {
  reason: string;
  by?: string;
  db?: string;
}

const HASH = /^0x[0-9a-fA-F]{64}$/;

async function runAck(session: Session, cmd: Command): Promise<void> {
  // --db may be read by `verify` itself, before the subcommand (commander's positional options are off).
  const flags = cmd.optsWithGlobals() as AckFlags;
  const hashes = cmd.args.map((h) => h.trim());
  const bad = hashes.find((h) => !HASH.test(h));
  if (bad !== undefined) throw new UsageError(`invalid transaction hash "${printable(bad)}": expected 0x and 64 hex digits`);
  if (flags.reason.trim() === '') throw new UsageError('--reason is empty: say why the discrepancy is accepted');
  const by = flags.by ?? (session.ctx.env.USER || session.ctx.env.USERNAME || userInfo().username);
  const { chain } = await session.settings();
  const location = await existingMirror(session, flags.db);
  const lower = hashes.map((h) => h.toLowerCase());
  const db = await openMirror(session, location, 'write');
  let rows;
  try {
    await db.transaction(() => db.acknowledge(chain, lower, flags.reason, by));
    rows = await db.acknowledged(chain, lower);
  } finally {
    db.close();
  }
  const unknown = rows.filter((r) => r.verdict === null).length;
  if (unknown > 0) session.note(`${unknown} of these hashes ${unknown === 1 ? 'has' : 'have'} no verdict in this mirror yet (chain ${chain}): acknowledged all the same`);
  await writeAcks(session, rows);
}

async function runAcks(session: Session, cmd: Command): Promise<void> {
  const flags = cmd.optsWithGlobals() as { db?: string };
  const { chain } = await session.settings();
  const location = await existingMirror(session, flags.db);
  const db = await openMirror(session, location, 'write');
  let rows;
  try {
    rows = await db.transaction(() => db.acknowledged(chain));
  } finally {
    db.close();
  }
  await writeAcks(session, rows);
}

async function writeAcks(session: Session, rows: readonly object[]): Promise<void> {
  const output = session.output('list', ACK_COLUMNS);
  if (output.columns) validateColumns(output.columns, ACK_COLUMNS);
  const target = await session.openOutput();
  const writer = createWriter(target.stream, { ...output, literalColumns: true });
  for (const r of rows) await writer.write(r as Record<string, unknown>);
  await writer.end();
  await target.commit();
}
