import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import { parseDuration } from '../core/runtime/time.js';
import type { Session } from '../core/runtime/session.js';
import { parseCurrency } from './currency.js';
import type { RateRow } from './rates-file.js';
import type { AgeLimits } from './resolve.js';

// --currency, --rates, --rate-max-age and --rates-missing on every list of amounts and on
// `payrec transfers` (DESIGN.md "Values in one currency"). Each is checked, and the rates
// file read whole, before any request: a malformed line is exit 2 naming the file and line.
// What values need (csv-parse, big.js, the chain's client) is loaded only with --currency.
// Here, below the commands, so that every command and the close (src/close/) read them
// alike; the rate source they open is mirror/rate-source.ts (the
// rates file, the mirror's rates table, then Chainlink).

export interface CurrencyFlags {
  currency?: string;
  rates?: string;
  rateMaxAge?: string;
  ratesMissing?: string;
  /** The mirror whose `rates` table is read (transfers, subscriptions, metrics have --db; other lists use PAYREC_DB or the profile's). */
  db?: string;
}

export function addCurrencyOptions(cmd: Command, currency = 'add each record\'s value in this ISO 4217 currency (USD, EUR) at the rate in force at its timestamp: value, feeValue, rate, rateTime, rateSource'): void {
  cmd
    .option('--currency <code>', currency)
    .option('--rates <file>', 'with --currency: the team\'s rates file (CSV: time,chain,token,currency,rate,source), first before the mirror\'s rates and Chainlink')
    .option('--rate-max-age <duration>', 'with --currency: how old a token\'s rate may be (default 25h; currency-to-currency rates 5d)')
    .option('--rates-missing <what>', 'with --currency: fail (default: exit 11 naming what is missing) or blank (an empty value, said on stderr)');
}

/** The most a rate may be old: a year. */
const MAX_AGE_LIMIT = 366 * 86_400;

/** A rates file read and checked now: exit 2 before any request. */
export async function readRatesFile(path: string, flag = '--rates'): Promise<{ rows: RateRow[]; name: string; text: string }> {
  const { parseRatesFile } = await import('./rates-file.js');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${flag} "${printable(path)}": ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (code ?? 'unreadable')}`);
  }
  const name = basename(path);
  return { rows: parseRatesFile(text, name), name, text };
}

/** --currency and its companions, checked (and the rates file read) before any request; undefined without a currency. */
export interface CurrencyChoice {
  currency: string;
  blank: boolean;
  limits: AgeLimits;
  file?: { rows: RateRow[]; name: string };
  /** --db, for the mirror's rates. */
  db?: string;
}

/** Checks --currency (or the profile's currency), --rates, --rate-max-age and --rates-missing (exit 2), and reads the rates file whole. */
export async function parseCurrencyFlags(flags: CurrencyFlags, session: Session): Promise<CurrencyChoice | undefined> {
  const stray = flags.rates !== undefined ? '--rates' : flags.rateMaxAge !== undefined ? '--rate-max-age' : flags.ratesMissing !== undefined ? '--rates-missing' : undefined;
  const code = flags.currency ?? session.stored.defaults.currency;
  if (code === undefined) {
    if (stray) throw new UsageError(`${stray} goes with --currency`);
    return undefined;
  }
  const currency = parseCurrency(code, flags.currency !== undefined ? '--currency' : `currency of profile ${session.stored.profile}`);
  if (flags.ratesMissing !== undefined && !['fail', 'blank'].includes(flags.ratesMissing)) {
    throw new UsageError(`invalid --rates-missing "${printable(flags.ratesMissing)}": expected fail or blank`);
  }
  const { DEFAULT_LIMITS } = await import('./resolve.js');
  const limits: AgeLimits = { ...DEFAULT_LIMITS };
  if (flags.rateMaxAge !== undefined) {
    limits.token = parseDuration(flags.rateMaxAge, '--rate-max-age');
    if (limits.token < 1 || limits.token > MAX_AGE_LIMIT) throw new UsageError(`invalid --rate-max-age "${printable(flags.rateMaxAge)}": expected from 1s to 366d`);
  }
  const file = flags.rates !== undefined ? await readRatesFile(flags.rates) : undefined;
  return { currency, blank: flags.ratesMissing === 'blank', limits, ...(file ? { file } : {}), ...(flags.db !== undefined ? { db: flags.db } : {}) };
}
