import { isRate, type Rate, type RateQuery, type RateSource } from '../values/rate.js';
import type { MissingRates } from '../values/missing.js';
import { readDecimal } from './exact.js';
import type { ExactRate, RateOf } from './rates.js';

// The engine's rates prepared from a rate source of values/ (DESIGN.md "Values in one
// currency"): the instants a computation asks for (rateNeeds) are asked of the source in
// one batch, and the engine is handed a lookup of the answers. A question with no usable
// answer is counted in `missing`, which the caller reports (exit 11, or blank).

/** A rate of values/ as the engine takes it: its exact fraction, with the evidence beside it. */
export interface EvidencedRate extends ExactRate {
  evidence: Rate;
}

export async function prepareRates(needs: ReadonlyMap<string, readonly number[]>, source: RateSource, chain: string, currency: string, missing: MissingRates): Promise<RateOf<EvidencedRate>> {
  const queries: RateQuery[] = [];
  for (const [token, times] of needs) for (const at of times) queries.push({ chain, token, currency, at });
  const answers = await source.rates(queries);
  // Per token, its instants (rateNeeds gives them ascending and distinct) and the rate of each, found by binary search:
  // a million billings ask for a few hundred thousand instants, and a Map of them was most of the run.
  const table = new Map<string, { times: readonly number[]; rates: (EvidencedRate | undefined)[] }>();
  // A source answers many instants with one rate (a file's row): each is read into a fraction once.
  const evidenced = new Map<Rate, EvidencedRate>();
  const fractions = new Map<string, ExactRate>();
  let i = 0;
  for (const [token, times] of needs) {
    const rates = new Array<EvidencedRate | undefined>(times.length);
    for (let k = 0; k < times.length; k++, i++) {
      if (k > 0 && !(times[k] > times[k - 1])) throw new Error(`prepareRates: the instants of ${token} are not ascending and distinct (rateNeeds gives them so)`);
      const answer = answers[i];
      if (!isRate(answer)) {
        missing.add(queries[i], answer.missing);
        continue;
      }
      let rate = evidenced.get(answer);
      if (!rate) {
        const key = `${answer.numerator}/${answer.denominator}`;
        let fraction = fractions.get(key);
        if (!fraction) fractions.set(key, (fraction = fractionOf(answer)));
        evidenced.set(answer, (rate = { ...fraction, evidence: answer }));
      }
      rates[k] = rate;
    }
    table.set(token, { times, rates });
  }
  return (token, t) => {
    const series = table.get(token);
    if (!series) return undefined;
    const { times, rates } = series;
    let lo = 0;
    let hi = times.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const m = times[mid];
      if (m === t) return rates[mid];
      if (m < t) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  };
}

/** numerator ÷ denominator (two plain decimals) as one exact fraction. */
function fractionOf(rate: Rate): ExactRate {
  const n = readDecimal(rate.numerator);
  const d = readDecimal(rate.denominator);
  if (!n || !d || d.num <= 0n) throw new Error(`a rate of values/ is not two plain decimals: ${rate.numerator}/${rate.denominator}`);
  return { num: n.num * d.den, den: n.den * d.num };
}
