import type { Command } from 'commander';
import { extname } from 'node:path';
import type { CommandAction } from '../core/runtime/action.js';
import { EXIT, PayrecError, UsageError } from '../core/runtime/errors.js';
import { parsePeriod, PERIOD_FORMS } from '../core/runtime/period.js';
import type { Session } from '../core/runtime/session.js';
import { formatLocal } from '../core/runtime/zone.js';
import { printable } from '../core/output/sanitize.js';
import { addMirrorOptions, noteAt, parseMirrorFlags, type MirrorFlags } from '../mirror/subscription-source.js';
import { composeClose } from '../close/compose.js';
import { NoRateError } from '../values/missing.js';
import { addCurrencyOptions, parseCurrencyFlags, type CurrencyFlags } from '../values/currency-flags.js';
import { parseVerifyFlags, type VerifyFlags } from '../chain/verify-flags.js';
import { topCommand } from './tree.js';

// `payrec close PERIOD -o FILE.xlsx|FILE.html`: the month-end close in one file
// (DESIGN.md "The month-end close in one command"). The close room composes it
// (src/close/); this file checks the flags, and writes the file atomically.

/** What the close writes, by -o's extension. */
const CLOSE_FILES = ['.xlsx', '.html'];

interface CloseFlags extends MirrorFlags, CurrencyFlags, Pick<VerifyFlags, 'verify' | 'confirmations'> {
  failIfAny?: boolean;
}

export function addCloseCommand(program: Command, action: CommandAction): void {
  const cmd = addMirrorOptions(topCommand(program, 'close'));
  cmd
    .argument('<period>', `the calendar period to close: ${PERIOD_FORMS}`)
    .option('--verify', "check every transfer against the chain's own events, as transfers --verify does (verdicts on the transfers, the bad ones on a sheet of their own and counted on the cover; needs --rpc, PAYREC_RPC_URL or config set rpc)")
    .option('--confirmations <n>', 'with --verify: confirmations a transfer needs to be verified (default: 15 bsc, 12 ethereum, 128 polygon, 15 sandbox)')
    .option('--fail-if-any', 'exit 9 when the close is incomplete (a period not synced to its end, not over yet, plans known only from short urls, bad verdicts with --verify); the file is written all the same');
  addCurrencyOptions(cmd, "every money figure also in this ISO 4217 currency (USD, EUR), as metrics, subscriptions and transfers --currency give it: metrics across tokens with mrr_fx, values beside amounts, and one waterfall in the currency with its fx bar");
  cmd
    .addHelpText(
      'after',
      [
        '',
        'One file a finance team hands over: a cover (the period and its instants in --tz, as of,',
        'synced up to, the plans covered and where they were found, payrec version), then the',
        "period's metrics by token and by plan, who moved (metrics --movements), the ledger at the",
        "period's end, the billings with their outcome, every transfer, and the dunning cases; each",
        'part the same rows as the command its sheet names prints. Read from the mirror (sync first,',
        'or --sync) and, for transfers, from the API. What the close cannot cover is said on the',
        'cover and on stderr.',
        '-o FILE.html writes one self-contained, printable page instead: the cover, an MRR waterfall',
        'per token (start, new, reactivated, churned, end, with exact figures; with --currency one in',
        'the currency, with the fx bar) and the same tables. A missing rate is exit 11, naming it.',
        '',
        'Examples:',
        '  $ payrec --emulator close 2025-12 --sync -o december.xlsx',
        '  $ payrec close last-month --tz Europe/Berlin -o close.html   # a page with MRR waterfalls',
        '  $ payrec close 2026-Q3 -o q3.xlsx --fail-if-any     # CI: fail when anything is left out',
        '  $ payrec close 2026-10 --currency USD --verify -o october.html   # in USD, checked on chain',
        '',
      ].join('\n'),
    )
    .action(action((session, cmd) => runClose(session, cmd), { output: true }));
}

async function runClose(session: Session, cmd: Command): Promise<void> {
  const flags = cmd.opts() as CloseFlags;
  const periodText = cmd.args[0] as string;
  const file = session.flags.output;
  if (file === undefined) throw new UsageError('payrec close writes a file: give -o FILE.xlsx or -o FILE.html', 'such as: payrec close 2026-10 -o close-2026-10.xlsx');
  const ext = extname(file).toLowerCase();
  if (!CLOSE_FILES.includes(ext)) throw new UsageError(`payrec close writes ${CLOSE_FILES.join(' or ')} files, not -o "${printable(file)}"`, `give -o a file name that ends in ${CLOSE_FILES.join(' or ')}`);
  if (session.flags.format !== undefined) throw new UsageError('payrec close takes its format from -o\'s extension: leave out -f');
  const { plans, at, graceSeconds } = parseMirrorFlags(session, flags);
  const currency = await parseCurrencyFlags(flags, session);
  const verify = parseVerifyFlags({ verify: flags.verify, confirmations: flags.confirmations });
  const period = parsePeriod(periodText, Math.floor(session.ctx.now() / 1000), session.zone);
  if (!period) throw new UsageError(`invalid period "${printable(periodText)}": expected ${PERIOD_FORMS}`);
  if (period.start >= at) throw new UsageError(`the period ${printable(periodText)} begins after ${flags.at === undefined ? 'now' : '--at'} (${formatLocal(at, session.zone)} ${session.zone}): nothing of it is known`);
  // Opened first: an unwritable -o fails before anything is read; written under a temporary name, renamed when whole.
  const target = await session.openOutput();
  // A workbook's transfers are rendered as its sheets' XML while they are walked (close/workbook.ts); the page reads them back as JSON.
  const ahead = ext === '.xlsx' ? await (await import('../close/workbook.js')).renderAhead({ timeZone: session.zone }) : undefined;
  const report = await composeClose(session, { periodText, period, at, graceSeconds, plans, flags, currency, verify, spoolAs: ahead?.spoolAs }).catch((err: unknown) => {
    // A missing rate stops the close before its file is written (the temporary one goes with it).
    throw err instanceof NoRateError ? err.instead('no file was written') : err;
  });
  noteAt(session, flags, at);
  try {
    if (ext === '.html') await (await import('../close/page.js')).writePage(target.stream, report);
    else await (await import('../close/workbook.js')).writeWorkbook(target.stream, report, { warn: (m) => session.warn(m) }, ahead);
  } finally {
    report.discard();
  }
  await target.commit();
  for (const line of report.incomplete) session.warn(`incomplete: ${line}`);
  if (flags.failIfAny && report.incomplete.length > 0) throw new PayrecError(`the close of ${printable(periodText)} is incomplete in ${report.incomplete.length} ${report.incomplete.length === 1 ? 'way' : 'ways'} (--fail-if-any); the file was written`, EXIT.gate);
}
