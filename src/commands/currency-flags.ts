import type { EnricherFlags } from '../core/lists/list-flags.js';
import { minorDigits } from '../values/currency.js';
import { addCurrencyOptions, parseCurrencyFlags, type CurrencyFlags } from '../values/currency-flags.js';
import { rateSourceOf } from '../mirror/rate-source.js';

// --currency and its companions as the enricher flags of every list (the flags are
// parsed in values/currency-flags.ts, the rates opened by mirror/rate-source.ts).

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
