import { divHalfEven, PLACES } from './exact.js';

// Values in one currency, as the engine takes them (DESIGN.md "Values in one currency",
// MRR in one currency): the engine never fetches a rate. It is handed a function that
// answers the rate in force for a token at an instant, exactly, with whatever evidence
// the caller keeps beside it (its time and source), or nothing when there is none. A
// caller whose rates come from somewhere slow learns first which instants the figures
// will ask for (rateNeeds), prepares them in one batch, then hands over a lookup.

/** 1 token = num / den of the currency, exactly (a cross rate through USD can be a fraction with no finite decimal). den > 0. */
export interface ExactRate {
  num: bigint;
  den: bigint;
}

/** The rate in force for `token` at instant `t` (Unix seconds), or undefined when none is known. */
export type RateOf<R extends ExactRate = ExactRate> = (token: string, t: number) => R | undefined;

const ONE = 10n ** BigInt(PLACES);

/** amount × rate in units of 10^-18, rounded half-even once; the amount is the exact fraction num/den. */
export function valueAtto(amount: { num: bigint; den: bigint }, rate: ExactRate): bigint {
  return divHalfEven(amount.num * rate.num * ONE, amount.den * rate.den);
}

/** A figure already in units of 10^-18 (an MRR) × rate, in units of 10^-18, rounded half-even once. */
export function scaleAtto(atto: bigint, rate: ExactRate): bigint {
  return divHalfEven(atto * rate.num, rate.den);
}

const UNIT: ExactRate = { num: 1n, den: 1n };

/**
 * The instants, per token, at which `compute` asks its rate function, ascending and
 * distinct: `compute` is run once with a rate of 1 that records each question. Running
 * the very computation that will use the rates is what keeps the list exact (no rate
 * prepared in vain, none forgotten).
 */
export function rateNeeds(compute: (rates: RateOf) => unknown): Map<string, number[]> {
  // Every question is written down (a repeat of the one before skipped), then sorted and made distinct once:
  // a Set of a million instants was slower than the computation it records.
  const asked = new Map<string, number[]>();
  let lastToken: string | undefined;
  let list: number[] = [];
  compute((token, t) => {
    if (token !== lastToken) {
      lastToken = token;
      let l = asked.get(token);
      if (!l) asked.set(token, (l = []));
      list = l;
    }
    if (list[list.length - 1] !== t) list.push(t);
    return UNIT;
  });
  const out = new Map<string, number[]>();
  for (const token of [...asked.keys()].sort()) {
    const sorted = Float64Array.from(asked.get(token)!).sort();
    const distinct: number[] = [];
    for (const t of sorted) if (distinct.length === 0 || distinct[distinct.length - 1] !== t) distinct.push(t);
    out.set(token, distinct);
  }
  return out;
}
