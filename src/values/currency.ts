import { UsageError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';

// `--currency CODE`: an ISO 4217 code, as the runtime's own currency data (ICU, which
// follows CLDR and ISO 4217) knows it, and its minor unit for tables. No list of our own.

let codes: ReadonlySet<string> | undefined;

/** The ISO 4217 codes in use (USD, EUR, JPY…). */
function known(): ReadonlySet<string> {
  return (codes ??= new Set(Intl.supportedValuesOf('currency')));
}

/** `value` as an upper-case ISO 4217 code; anything else is exit 2 naming `flag`. */
export function parseCurrency(value: string, flag = '--currency'): string {
  const problem = currencyProblem(value);
  if (problem !== undefined) throw new UsageError(`invalid ${flag} "${printable(value)}": ${problem}`);
  return value.trim().toUpperCase();
}

/** What is wrong with `value` as an ISO 4217 code, or undefined when it is one. */
export function currencyProblem(value: string): string | undefined {
  const code = value.trim().toUpperCase();
  if (known().has(code)) return undefined;
  return /^[A-Z]{3,5}$/.test(code) ? `${code} is not an ISO 4217 currency (a token's value is asked in a currency: USD, EUR, GBP…)` : 'expected an ISO 4217 code such as USD or EUR';
}

/** Places of the currency's minor unit (2 for USD and EUR, 0 for JPY, 3 for KWD). */
export function minorDigits(code: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
}
