import { isRate, type Rate, type RateAnswer, type RateQuery, type RateSource } from '../values/rate.js';
import type { MissingRates } from '../values/missing.js';
import { readDecimal } from './exact.js';
import type { ExactRate, RateOf } from './rates.js';

// The engine's rates from a rate source of values/ (DESIGN.md "Values in one currency"),
// each answer read into an exact fraction with its evidence beside it, and each question
// with no usable answer counted in `missing`, which the caller reports (exit 11, or
// blank). Two ways: rates at hand (a rates file) are looked up as the engine asks, with
// no batch; else the instants a computation asks for (rateNeeds) are asked of the source
// in one batch (a chain's feeds), and the engine is handed a lookup of the answers.

/** A rate of values/ as the engine takes it: its exact fraction, with the evidence beside it. */
export interface EvidencedRate extends ExactRate {
  evidence: Rate;
}

/** A source answers many instants with one rate (a file's row): each is read into a fraction once, and is the same object each time, which the engine's caches key on. */
class Evidence {
  private readonly evidenced = new Map<Rate, EvidencedRate>();
  private readonly fractions = new Map<string, ExactRate>();

  of(answer: Rate): EvidencedRate {
    let rate = this.evidenced.get(answer);
    if (!rate) {
      const key = `${answer.numerator}/${answer.denominator}`;
      let fraction = this.fractions.get(key);
      if (!fraction) this.fractions.set(key, (fraction = fractionOf(answer)));
      this.evidenced.set(answer, (rate = { ...fraction, evidence: answer }));
    }
    return rate;
  }
}

/**
 * The lookup of rates at hand: each (token, instant) asked of the source when the engine
 * asks it. Undefined when the rates of one of `tokens` are not at hand: prepare them in
 * a batch then (prepareRates). An instant whose rate must be read (beyond the rounds the
 * mirror holds) is noted: `readUnread` reads those in one batch, and the engine runs again.
 */
export function ratesAtHand(source: RateSource, chain: string, currency: string, tokens: readonly string[]): RatesAtHand | undefined {
  const lookups = new Map<string, (at: number) => RateAnswer | undefined>();
  for (const token of tokens) {
    const lookup = source.atHand?.(chain, token, currency);
    if (!lookup) return undefined;
    lookups.set(token, lookup);
  }
  return new RatesAtHand(lookups, chain, currency);
}

export class RatesAtHand {
  private readonly evidence = new Evidence();
  /** Per token, each instant asked that had no usable answer, and why. */
  private readonly lacking = new Map<string, Map<number, string>>();
  /** Per token, the instants whose rates had to be read (not at hand), and once read, their answers. */
  private readonly read = new Map<string, Map<number, RateAnswer | undefined>>();
  private unread = 0;

  constructor(
    private readonly lookups: ReadonlyMap<string, (at: number) => RateAnswer | undefined>,
    private readonly chain: string,
    private readonly currency: string,
  ) {}

  readonly rates: RateOf<EvidencedRate> = (token, t) => {
    const lookup = this.lookups.get(token);
    if (!lookup) throw new Error(`ratesAtHand: a rate of ${token} was asked, which no billing is in`);
    const answer = lookup(t) ?? this.readAnswer(token, t);
    if (answer === undefined) return undefined;
    if (isRate(answer)) return this.evidence.of(answer);
    let lacking = this.lacking.get(token);
    if (!lacking) this.lacking.set(token, (lacking = new Map()));
    if (!lacking.has(t)) lacking.set(t, answer.missing);
    return undefined;
  };

  /** An instant not at hand: its answer once read, else noted to be read (undefined meanwhile). */
  private readAnswer(token: string, t: number): RateAnswer | undefined {
    let read = this.read.get(token);
    if (!read) this.read.set(token, (read = new Map()));
    if (!read.has(t)) {
      read.set(t, undefined);
      this.unread++;
    }
    return read.get(t);
  }

  /** Reads the rates noted as not at hand, in one batch; false when there were none (the engine's figures are final). */
  async readUnread(source: RateSource): Promise<boolean> {
    if (this.unread === 0) return false;
    const queries: RateQuery[] = [];
    for (const [token, read] of this.read) for (const [at, answer] of read) if (answer === undefined) queries.push({ chain: this.chain, token, currency: this.currency, at });
    const answers = await source.rates(queries);
    queries.forEach((q, i) => this.read.get(q.token)!.set(q.at, answers[i]));
    this.unread = 0;
    return true;
  }

  /** The instants asked with no usable answer, once each, by token then time: as prepareRates counts rateNeeds' instants. */
  countMissing(missing: MissingRates): void {
    for (const token of [...this.lacking.keys()].sort()) {
      const lacking = this.lacking.get(token)!;
      for (const t of [...lacking.keys()].sort((a, b) => a - b)) missing.add({ chain: this.chain, token, currency: this.currency, at: t }, lacking.get(t)!);
    }
  }
}

export async function prepareRates(needs: ReadonlyMap<string, readonly number[]>, source: RateSource, chain: string, currency: string, missing: MissingRates): Promise<RateOf<EvidencedRate>> {
  const queries: RateQuery[] = [];
  for (const [token, times] of needs) for (const at of times) queries.push({ chain, token, currency, at });
  const answers = await source.rates(queries);
  // Per token, its instants (rateNeeds gives them ascending and distinct) and the rate of each, found by binary search:
  // a million billings ask for a few hundred thousand instants, and a Map of them was most of the run.
  const table = new Map<string, { times: readonly number[]; rates: (EvidencedRate | undefined)[] }>();
  const evidence = new Evidence();
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
      rates[k] = evidence.of(answer);
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
