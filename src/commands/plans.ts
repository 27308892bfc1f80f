import type { Command } from 'commander';
import type { CommandAction } from '../core/runtime/action.js';
import type { Session } from '../core/runtime/session.js';
import { commandAt, topCommand } from './tree.js';
import { offerColumns } from '../completion/declared-columns.js';

// `payrec fr plans`: every fixed-recurring plan id payrec knows, so a --plan-id is
// found rather than guessed. The mirror (and DuckDB) is loaded only when it runs.

/** The columns of `payrec fr plans` (here, not in plans-list.ts: completion reads them without loading DuckDB). */
export const PLAN_COLUMNS = ['planId', 'token', 'amount', 'period', 'subscriptions', 'counted', 'seenIn'];

export function addPlansCommand(program: Command, action: CommandAction): void {
  const plans = commandAt(topCommand(program, 'fixed-recurring'), []).command('plans');
  offerColumns(plans, PLAN_COLUMNS);
  plans
    .description('Every plan id the mirror knows (from short urls, billings, cancellations and plans synced), with its terms and subscriptions')
    .option('--db <file>', 'the mirror file (env PAYREC_DB; default <XDG data dir>/payrec/<profile>.duckdb, emulator.duckdb with --emulator)')
    .addHelpText(
      'after',
      [
        '',
        "A plan's token, amount and period come from its billings (sync them: payrec sync",
        'fr/billings --plan-id ID); subscriptions counts those that ever paid, counted those',
        'active or past due now (30 days of grace). Plans named by records but not synced',
        'show where they were seen, and empty terms.',
        '',
        'Examples:',
        '  $ payrec --emulator sync -q && payrec --emulator fr plans',
        '  $ payrec fr plans -f csv --columns planId',
        '',
      ].join('\n'),
    )
    .action(action(async (session: Session, cmd: Command) => (await import('./plans-list.js')).listPlans(session, cmd.opts() as { db?: string }), { output: true }));
}
