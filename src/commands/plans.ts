import type { Command } from 'commander';
import type { CommandAction } from '../core/runtime/action.js';
import type { Session } from '../core/runtime/session.js';
import { commandAt, topCommand } from './tree.js';
import { offerColumns } from '../command-reference/declared-columns.js';
import { addRowGateOptions, type GateFlags } from '../core/lists/list-gates.js';
import { MIRROR_DB_FLAG, mirrorDbHelp } from '../mirror/location.js';

// `payrec fr plans`: every fixed-recurring plan payrec knows and where it was found, so a
// --plan-id is found rather than guessed, and `fr plans add|remove` for the plans nothing
// names (the API lists no plans). The mirror (and DuckDB) is loaded only when it runs.

/** The columns of `payrec fr plans` (here, not in plans-list.ts: completion reads them without loading DuckDB). */
export const PLAN_COLUMNS = ['planId', 'token', 'amount', 'period', 'periodInWords', 'subscriptions', 'counted', 'seenIn'];

export function addPlansCommand(program: Command, action: CommandAction): void {
  const plans = commandAt(topCommand(program, 'fixed-recurring'), []).command('plans');
  offerColumns(plans, PLAN_COLUMNS);
  addRowGateOptions(
    plans
      .description('Every fixed-recurring plan payrec knows (from short urls, plans given to sync, plans added), with its terms and subscriptions')
      .option(MIRROR_DB_FLAG, mirrorDbHelp()),
  )
    .addHelpText(
      'after',
      [
        '',
        'The API lists no plans: payrec knows a plan when a short url names it (seenIn: short url),',
        'when it was given to payrec sync --plan-id (synced: the mirror remembers it), or when it',
        'was added to the profile with payrec fr plans add (added). A plan with none of these is',
        'unseen: payrec subscriptions and payrec metrics leave it out until it is added.',
        "A plan's token, amount and period come from its billings (sync them: payrec sync);",
        'subscriptions counts those that ever paid, counted those active or past due now (30',
        'days of grace). Known plans not synced yet show empty terms.',
        '',
        'Examples:',
        '  $ payrec --emulator sync -q && payrec --emulator fr plans',
        '  $ payrec fr plans add 0x1e8c5d5b0f17800d29eb86463fb85656bbbda7c77267422da5926c6fb3efe958',
        '  $ payrec fr plans -f csv --columns planId',
        '',
      ].join('\n'),
    )
    .action(action(async (session: Session, cmd: Command) => (await import('./plans-list.js')).listPlans(session, cmd.opts() as { db?: string } & GateFlags, PLAN_COLUMNS), { output: true }));

  plans
    .command('add')
    .description('Add plan ids to the profile (per chain): synced, and covered by subscriptions and metrics, though no short url names them')
    .argument('<planId...>', 'plan ids (0x + 64 hex)')
    .addHelpText(
      'after',
      "\nExamples:\n  $ payrec fr plans add 0x1e8c5d5b0f17800d29eb86463fb85656bbbda7c77267422da5926c6fb3efe958\n  $ payrec --emulator fr plans add 0x6c6e26619e7d5a681e218896eec00d3abbb99856f2a7937f81d1c8e6ae0bad80    # the demo data's plans, kept apart\n",
    )
    .action(action(async (session, cmd) => (await import('./plans-edit.js')).editPlans(session, cmd.args, 'add')));

  plans
    .command('remove')
    .description('Take plan ids added with fr plans add out of the profile')
    .argument('<planId...>', 'plan ids (0x + 64 hex)')
    .addHelpText('after', '\nExamples:\n  $ payrec fr plans remove 0x1e8c5d5b0f17800d29eb86463fb85656bbbda7c77267422da5926c6fb3efe958\n')
    .action(action(async (session, cmd) => (await import('./plans-edit.js')).editPlans(session, cmd.args, 'remove')));
}
