import type { Command } from 'commander';
import type { ListQuery } from '../core/lists/list-query.js';
import { parseStatusFlags, STATUSES } from '../core/lists/status.js';
import { UsageError } from '../core/runtime/errors.js';

// The list flags that pick and gate records (DESIGN.md "Answers finance and ops can
// sign"): --status/--failed where records carry a status, and --count, --fail-if-any,
// --jq on every list.

export interface GateFlags {
  status?: string;
  failed?: boolean;
  count?: boolean;
  failIfAny?: boolean;
  jq?: string;
}

/** `withStatus`: the list's records carry a `transactionStatus` (status.ts hasStatus). */
export function addGateOptions(cmd: Command, withStatus: boolean, billing: boolean): void {
  if (withStatus) {
    cmd
      .option('--status <list>', `only records with these statuses: ${STATUSES.join(', ')} (comma-separated)`)
      .option('--failed', billing ? 'only failed billings (success is not 1 or status failed)' : 'only failed records (--status failed)');
  }
  addCountOptions(cmd, 'records');
  addJqOption(cmd);
}

/** --jq: on every list, and on the commands whose rows payrec computes (subscriptions, metrics). */
export function addJqOption(cmd: Command): void {
  cmd.option('--jq <expr>', 'run a jq expression on the JSON that -f json would print (strings printed raw), like gh --jq');
}

/** --count and --fail-if-any: also on `payrec sql`, where they count rows. */
export function addCountOptions(cmd: Command, what: 'records' | 'rows'): void {
  cmd
    .option('--count', `print only the number of matching ${what}`)
    .option('--fail-if-any', `exit 9 when at least one ${what.slice(0, -1)} matches (0 when none): a CI gate`);
}

/** The gate part of a ListQuery; the jq expression is compiled later (it loads jq). */
export function parseGateFlags(flags: GateFlags): Pick<ListQuery, 'statuses' | 'count' | 'failIfAny'> & { jq?: string } {
  const statuses = parseStatusFlags(flags.status, flags.failed);
  if (flags.count && flags.jq !== undefined) throw new UsageError('give either --count or --jq, not both (--jq length counts too)');
  if (flags.jq !== undefined && flags.jq.trim() === '') throw new UsageError('the --jq expression is empty', 'give a jq expression, such as ".[0]" or "map(.amount)"');
  return { statuses, count: flags.count, failIfAny: flags.failIfAny, jq: flags.jq };
}
