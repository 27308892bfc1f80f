import type { Command } from 'commander';
import { BAD_VERDICTS, VERDICTS, type Verdict } from './verdict-names.js';
import { UsageError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import { verifyEnricher, type VerifyQuery } from './list-verification.js';
import type { EnricherFlags } from '../core/lists/list-flags.js';

// --verify, --verdict and --confirmations: on every list of records that are
// transactions (DESIGN.md "On-chain verification"), and --fail-if-any's verdicts of
// payrec verify. `bad` stands for mismatch, missing, reverted, spoofed and reorged.

export interface VerifyFlags {
  verify?: boolean;
  verdict?: string;
  confirmations?: string;
}

export function addVerifyOptions(cmd: Command): void {
  cmd
    .option('--verify', "check each record against the chain's own events (adds verdict, confirmations, blockNumber, chainDiff; needs --rpc, PAYREC_RPC_URL or config set rpc)")
    .option('--verdict <list>', `with --verify: only records with these verdicts, comma-separated: ${VERDICTS.join(', ')}, or bad (${BAD_VERDICTS.join(', ')})`)
    .option('--confirmations <n>', 'confirmations a record needs to be verified (default: 15 bsc, 12 ethereum, 128 polygon, 15 sandbox)');
}

/** Verdict names, comma-separated; `bad` for the bad ones. `flag` names the flag in messages. */
export function parseVerdicts(raw: string, flag: string): Set<Verdict> {
  const out = new Set<Verdict>();
  for (const word of raw.split(',').map((w) => w.trim().toLowerCase())) {
    if (word === 'bad') BAD_VERDICTS.forEach((v) => out.add(v));
    else if ((VERDICTS as readonly string[]).includes(word)) out.add(word as Verdict);
    else throw new UsageError(`invalid ${flag} "${printable(word)}": expected verdicts, comma-separated: ${VERDICTS.join(', ')}, or bad`);
  }
  return out;
}

export function parseConfirmations(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1 || n > 100_000) {
    throw new UsageError(`invalid --confirmations "${printable(raw)}": expected a whole number from 1 to 100000`);
  }
  return n;
}

export function parseVerifyFlags(flags: VerifyFlags): VerifyQuery | undefined {
  if (!flags.verify) {
    const stray = flags.verdict !== undefined ? '--verdict' : flags.confirmations !== undefined ? '--confirmations' : undefined;
    if (stray) throw new UsageError(`${stray} goes with --verify`);
    return undefined;
  }
  return {
    verdicts: flags.verdict !== undefined ? parseVerdicts(flags.verdict, '--verdict') : undefined,
    confirmations: flags.confirmations !== undefined ? parseConfirmations(flags.confirmations) : undefined,
  };
}

/** --verify, --verdict and --confirmations as the enricher flags of a list (core/lists/list-flags.ts). */
export const VERIFY_FLAGS: EnricherFlags = {
  add: addVerifyOptions,
  parse(flags, follow) {
    const verify = parseVerifyFlags(flags as VerifyFlags);
    if (!verify) return [];
    if (follow) throw new UsageError('--verify checks a window of records, and --follow never ends: give a --from/--to window instead');
    return [verifyEnricher(verify)];
  },
};

