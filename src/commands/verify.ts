import type { Command } from 'commander';
import { offerColumns } from '../command-reference/declared-columns.js';
import type { CommandAction } from '../core/runtime/action.js';
import { EXIT, PayrecError, UsageError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { createWriter, validateColumns } from '../core/output/writer.js';
import { printable } from '../core/output/sanitize.js';
import { BAD_VERDICTS, VERDICTS, type Verdict } from '../chain/verdict-names.js';
import { verifiable } from '../chain/verifiable.js';
import { CATALOG, resolveCollections } from '../mirror/catalog.js';
import { mirrorExists, mirrorLocation } from '../mirror/location.js';
import { openMirror } from '../mirror/open.js';
import { topCommand } from './tree.js';
import { parseConfirmations, parseVerdicts } from '../chain/verify-flags.js';

// `payrec verify [COLLECTION…]`: the mirror's records checked against the chain, their
// verdicts kept in the mirror's `chain_verdicts` (joinable in payrec sql), counted per
// collection; exit 9 when any is bad (--fail-if-any changes which verdicts fail).

const REPORT_COLUMNS = ['collection', 'checked', 'newlyReorged', ...VERDICTS];

interface VerifyCommandFlags {
  db?: string;
  failIfAny?: string;
  confirmations?: string;
}

export function addVerifyCommand(program: Command, action: CommandAction): void {
  offerColumns(topCommand(program, 'verify'), REPORT_COLUMNS)
    .argument('[collection...]', 'product/collection to verify, such as ot/transfers or fr/billings (default: every mirrored collection of transactions)')
    .option('--db <file>', 'the mirror file (env PAYREC_DB; default <XDG data dir>/payrec/<profile>.duckdb, emulator.duckdb with --emulator)')
    .option('--fail-if-any <verdicts>', `exit 9 when any record has one of these verdicts (default bad: ${BAD_VERDICTS.join(', ')})`)
    .option('--confirmations <n>', 'confirmations a record needs to be final (default: 15 bsc, 12 ethereum, 128 polygon, 15 sandbox)')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ payrec sync && payrec verify',
        '  $ payrec verify ot/transfers fr/billings --fail-if-any mismatch,spoofed',
        "  $ payrec sql \"SELECT t.*, v.verdict FROM one_time_transfers t JOIN chain_verdicts v USING (transactionHash) WHERE v.verdict <> 'verified'\"",
        '',
        'The node comes from --rpc, PAYREC_RPC_URL or payrec config set rpc. A second run asks the',
        'chain only about records not yet final (pending, unconfirmed, missing, or changed since),',
        'and marks reorged a final record whose block hash changed.',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => runVerify(session, cmd), { output: true }));
}

async function runVerify(session: Session, cmd: Command): Promise<void> {
  const flags = cmd.opts() as VerifyCommandFlags;
  const collections = (cmd.args.length > 0 ? resolveCollections(cmd.args) : CATALOG).filter((c) => verifiable(c.name));
  if (collections.length === 0) throw new UsageError('none of these collections holds transactions to verify', 'short urls have none; name transfers, billings, payments, cancellations or executions');
  const failOn: Set<Verdict> = flags.failIfAny !== undefined ? parseVerdicts(flags.failIfAny, '--fail-if-any') : new Set(BAD_VERDICTS);
  const confirmations = flags.confirmations !== undefined ? parseConfirmations(flags.confirmations) : undefined;
  const output = session.output('list', REPORT_COLUMNS);
  if (output.columns) validateColumns(output.columns, REPORT_COLUMNS);
  const location = await mirrorLocation(session, flags.db);
  if (!mirrorExists(location)) throw new UsageError(`there is no mirror at ${printable(location.file)}`, 'create it with: payrec sync (or give --db FILE)');
  const target = await session.openOutput();
  const { openVerifier } = await import('../chain/open-verifier.js');
  const verifier = await openVerifier(session, confirmations);
  const db = await openMirror(session, location, 'write');
  let reports;
  try {
    await db.transaction(() => db.layout());
    reports = await db.verify(verifier, {
      chain: verifier.chain,
      collections,
      signal: session.ctx.signal,
      progress: (n) => session.notice(`verified ${n.toLocaleString('en-US')} records…`),
    });
  } finally {
    db.close();
  }
  const writer = createWriter(target.stream, { ...output, literalColumns: true });
  for (const r of reports) await writer.write({ collection: r.collection, checked: r.checked, newlyReorged: r.newlyReorged, ...Object.fromEntries(VERDICTS.map((v) => [v, r.verdicts[v] ?? 0])) });
  await writer.end();
  await target.commit();
  const failing = reports.reduce((n, r) => n + [...failOn].reduce((m, v) => m + (r.verdicts[v] ?? 0), 0), 0);
  if (failing > 0) {
    throw new PayrecError(`${failing.toLocaleString('en-US')} record${failing === 1 ? '' : 's'} ${failing === 1 ? 'is' : 'are'} ${[...failOn].join(', ')} (--fail-if-any)`, EXIT.gate, `list them: payrec sql "SELECT * FROM chain_verdicts WHERE verdict IN (${[...failOn].map((v) => `'${v}'`).join(', ')})"`);
  }
}
