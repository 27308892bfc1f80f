import type { Command } from 'commander';

// The fields --columns takes on a command that prints its own rows (sync's report, the
// ledger, metrics, plans, doctor) rather than a registry endpoint's records: the command
// declares them where it defines its output, and completion offers them.

const declared = new WeakMap<Command, readonly string[]>();

export function offerColumns(cmd: Command, columns: readonly string[]): Command {
  declared.set(cmd, columns);
  return cmd;
}

export function declaredColumns(cmd: Command): readonly string[] | undefined {
  return declared.get(cmd);
}
