import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import { parseDuration } from '../core/runtime/time.js';
import type { Session } from '../core/runtime/session.js';
import type { EnricherFlags } from '../core/lists/list-flags.js';
import { rpcInEffect } from '../core/config/settings.js';
import { minorDigits, parseCurrency } from '../values/currency.js';
import type { RateRow } from '../values/rates-file.js';
import type { AgeLimits } from '../values/resolve.js';
import type { LegSource } from '../values/selection.js';
import type { RateSource } from '../values/rate.js';

// --currency, --rates, --rate-max-age and --rates-missing on every list of amounts and on
// `payrec transfers` (DESIGN.md "Values in one currency"). Each is checked, and the rates
// file read whole, before any request: a malformed line is exit 2 naming the file and line.
// What values need (csv-parse, big.js, the chain's client) is loaded only with --currency.

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
  const { parseRatesFile } = await import('../values/rates-file.js');
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
  const { DEFAULT_LIMITS } = await import('../values/resolve.js');
  const limits: AgeLimits = { ...DEFAULT_LIMITS };
  if (flags.rateMaxAge !== undefined) {
    limits.token = parseDuration(flags.rateMaxAge, '--rate-max-age');
    if (limits.token < 1 || limits.token > MAX_AGE_LIMIT) throw new UsageError(`invalid --rate-max-age "${printable(flags.rateMaxAge)}": expected from 1s to 366d`);
  }
  const file = flags.rates !== undefined ? await readRatesFile(flags.rates) : undefined;
  return { currency, blank: flags.ratesMissing === 'blank', limits, ...(file ? { file } : {}), ...(flags.db !== undefined ? { db: flags.db } : {}) };
}

/** The rate source of a choice: its rates file first, then the mirror's rates (when there is a mirror), then Chainlink. */
export async function rateSourceOf(session: Session, choice: CurrencyChoice): Promise<RateSource> {
  const { RowBook } = await import('../values/selection.js');
  return openRateSource(session, choice.file && new RowBook(choice.file.rows, choice.file.name), choice.limits, { db: choice.db });
}

/**
 * --currency, --rates, --rate-max-age and --rates-missing as the enricher flags of a list
 * (core/lists/list-flags.ts), after --verify's: checked (exit 2) and the rates file read
 * once the list's own flags are parsed, and the profile's currency values a list too.
 */
export const CURRENCY_FLAGS: EnricherFlags = {
  add: (cmd) => addCurrencyOptions(cmd),
  async prepare(flags, list, session) {
    const choice = await parseCurrencyFlags(flags as CurrencyFlags, session);
    if (!choice) return [];
    const { currencyEnricher } = await import('../values/list-values.js');
    const table = session.format === 'table' && !list.summary;
    return [currencyEnricher({ currency: choice.currency, blank: choice.blank, minorDigits: table ? minorDigits(choice.currency) : undefined }, (s) => rateSourceOf(s, choice))];
  },
};

/**
 * The rates of this run, in order of precedence: the rates file, then the mirror's rates
 * table (read whole now, when the mirror at --db, PAYREC_DB or the profile's place exists;
 * `mirror: false` leaves it out), then Chainlink's feeds through the chain's node (checked
 * to serve --chain first: another chain's node is exit 2, as for --verify). With no node
 * set, every feed's leg is missing and says why.
 */
export async function openRateSource(session: Session, file: LegSource | undefined, limits: AgeLimits, o: { db?: string; mirror?: false } = {}): Promise<RateSource> {
  const s = await session.settings();
  const { url } = await rpcInEffect(s, session.store);
  const [{ ChainlinkLegs }, { Rates }] = await Promise.all([import('../chain/feed-legs.js'), import('../values/resolve.js')]);
  const feeds = (await session.store.profile(s.profile))?.feeds?.[s.chain] ?? {};
  // The node's chain id is checked now, before the API is asked for anything (the chain's client loaded only when a node is set).
  const reader = url ? await (await import('../chain/open-verifier.js')).openFeedReader(session, url) : undefined;
  const none = `no JSON-RPC node of ${s.chain} is set to read Chainlink's feeds (--rpc, PAYREC_RPC_URL or payrec config set rpc)`;
  const chainlink = new ChainlinkLegs(s.chain, async () => reader ?? none, feeds);
  const stored = o.mirror === false ? [] : await mirrorRates(session, s.chain, o.db, chainlink);
  return new Rates([...(file ? [file] : []), ...stored, chainlink], limits);
}

/** The mirror's rates of `chain` as leg sources (src/mirror/rate-legs.ts), read whole; none when there is no mirror. */
async function mirrorRates(session: Session, chain: string, db: string | undefined, live: LegSource): Promise<LegSource[]> {
  const [{ mirrorExists, mirrorLocation }, { openMirror }, { mirrorLegs }] = await Promise.all([import('../mirror/location.js'), import('../mirror/open.js'), import('../mirror/rate-legs.js')]);
  const location = await mirrorLocation(session, db);
  if (!mirrorExists(location)) return [];
  const store = await openMirror(session, location, 'read');
  try {
    return await mirrorLegs(store, chain, live);
  } finally {
    store.close();
  }
}
