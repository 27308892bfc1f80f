import type { Session } from '../core/runtime/session.js';
import type { CellKind } from '../core/output/document.js';
import { rateNeeds, type MovementRow, type RateOf, type SubscriptionRecords, type ValuedSubscriptionRow } from './engine.js';
import { prepareRates, ratesAtHand, type EvidencedRate } from './prepared-rates.js';
import { minorDigits } from '../values/currency.js';
import { settleMissing, sourceOf } from '../values/list-values.js';
import { MissingRates } from '../values/missing.js';
import { MISSING_SOURCE, type RateSource } from '../values/rate.js';
import { shownValue } from '../values/valuation.js';
import type { CurrencyChoice } from '../values/currency-flags.js';

// `payrec metrics --currency`, `payrec subscriptions --currency` and the close's figures in
// a currency (DESIGN.md "MRR in one currency"): the rates the engine's figures ask for come
// from the rate source handed in (the rates file, the mirror's rates and Chainlink, mirror/rate-source.ts), a
// missing one is exit 11 or, with --rates-missing blank, said; the rows gain the currency, mrr_fx, and for lists each value's evidence
// (rate, rateTime, rateSource), as every list's --currency does.

/**
 * `compute` (the ledger, metrics or movements) in the currency, its rates from `source`: exit 11 when a rate it
 * asks for is missing (unless --rates-missing blank). Rates at hand (a rates file) are
 * looked up as it asks; else the rates it will ask for are listed first (rateNeeds) and
 * prepared in one batch (a chain's feeds), and it runs again with them.
 */
export async function valued<T>(session: Session, choice: CurrencyChoice, source: RateSource, records: SubscriptionRecords, compute: (rates: RateOf<EvidencedRate>) => T): Promise<T> {
  const { chain } = await session.settings();
  const missing = new MissingRates();
  const atHand = ratesAtHand(source, chain, choice.currency, records.tokens());
  let result: T;
  if (atHand) {
    result = compute(atHand.rates);
    // Rates beyond those at hand (past the rounds the mirror holds) are read in one batch, then it runs again with them.
    if (await atHand.readUnread(source)) result = compute(atHand.rates);
    atHand.countMissing(missing);
  } else {
    // The run that lists the instants is handed a rate of 1 with no evidence, and its result is dropped.
    const needs = rateNeeds(compute as (rates: RateOf) => unknown);
    result = compute(await prepareRates(needs, source, chain, choice.currency, missing));
  }
  settleMissing(session, missing, choice.blank);
  return result;
}

/** Metrics' columns in a currency: the currency after the row's key, mrr_fx after mrr_churned. */
export function valuedMetricsColumns(columns: readonly string[]): string[] {
  return columns.flatMap((c) => (c === 'mrr_churned' ? [c, 'mrr_fx'] : c === 'subscriptions_start' ? ['currency', c] : [c]));
}

/** A metrics row in a currency: `currency` after its key (interval, token, plan). */
export function valuedMetricsRow(row: Record<string, unknown>, currency: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (k === 'subscriptions_start') out.currency = currency;
    out[k] = v;
  }
  return out;
}

/** The evidence of a value, as lists print it: the rate's text, its time and source (`missing` when there is none). */
function evidence(rate: EvidencedRate | null | undefined): Record<string, unknown> {
  if (!rate) return { rate: '', rateTime: undefined, rateSource: MISSING_SOURCE };
  return { rate: rate.evidence.rate, rateTime: rate.evidence.rateTime ?? undefined, rateSource: sourceOf(rate.evidence) };
}

export const MOVEMENT_VALUE_COLUMNS = ['value', 'rate', 'rateTime', 'rateSource'];

export function valuedMovement(m: MovementRow<EvidencedRate>): Record<string, unknown> {
  const { value, rate, ...rest } = m;
  return { ...rest, value: value ?? '', ...evidence(rate) };
}

/** The ledger's columns in a currency: value after mrr, the evidence at the end. */
export function valuedLedgerColumns(columns: readonly string[]): string[] {
  return [...columns.flatMap((c) => (c === 'mrr' ? [c, 'value'] : [c])), 'rate', 'rateTime', 'rateSource'];
}

export function valuedLedgerRow(r: ValuedSubscriptionRow<EvidencedRate>): Record<string, unknown> {
  const { value, rate, ...row } = r;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    out[k] = v;
    if (k === 'mrr') out.value = value ?? '';
  }
  return { ...out, ...evidence(rate) };
}

/** In xlsx, values are numbers beside their exact text and rate times are date cells. */
export const VALUE_CELLS: ReadonlyArray<[string, CellKind]> = [
  ['value', 'amount'],
  ['mrr_fx', 'amount'],
  ['rateTime', 'time'],
];

/** Tables show money in the currency's minor unit, marked ~ where rounded (every other format keeps 18 places). */
export function tableMoney(currency: string, columns: readonly string[]): (row: Record<string, unknown>) => Record<string, unknown> {
  const places = minorDigits(currency);
  return (row) => {
    const out = { ...row };
    for (const c of columns) if (typeof out[c] === 'string' && out[c] !== '') out[c] = shownValue(out[c] as string, places);
    return out;
  };
}
