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
  const table = new Map<string, Map<number, EvidencedRate>>();
  // A rate is read into a fraction once per distinct numerator and denominator.
  const fractions = new Map<string, ExactRate>();
  answers.forEach((answer, i) => {
    const q = queries[i];
    if (!isRate(answer)) return missing.add(q, answer.missing);
    const key = `${answer.numerator}/${answer.denominator}`;
    let fraction = fractions.get(key);
    if (!fraction) fractions.set(key, (fraction = fractionOf(answer)));
    let byTime = table.get(q.token);
    if (!byTime) table.set(q.token, (byTime = new Map()));
    byTime.set(q.at, { ...fraction, evidence: answer });
  });
  return (token, t) => table.get(token)?.get(t);
}

/** numerator ÷ denominator (two plain decimals) as one exact fraction. */
function fractionOf(rate: Rate): ExactRate {
  const n = readDecimal(rate.numerator);
  const d = readDecimal(rate.denominator);
  if (!n || !d || d.num <= 0n) throw new Error(`a rate of values/ is not two plain decimals: ${rate.numerator}/${rate.denominator}`);
  return { num: n.num * d.den, den: n.den * d.num };
}
