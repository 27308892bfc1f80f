// Rates as evidence, not numbers (STYLE.md "Values"): a rate says what it is exactly,
// when it was in force from, and where it came from, so every value payrec prints can be
// traced to one round of a feed or one line of a file and re-checked by hand.

/** What a rate converts: one unit of `token` on `chain` into `currency`, at the instant `at`. */
export interface RateQuery {
  /** A chain name (bsc, ethereum, …). */
  chain: string;
  /** The API's token symbol (BNB, USDT, 8PAY). */
  token: string;
  /** An ISO 4217 code (USD, EUR). */
  currency: string;
  /** Unix seconds: the record's timestamp. A rate from after it is never used. */
  at: number;
}

/**
 * The rate in force: value = amount × numerator ÷ denominator, exactly. A direct rate
 * has denominator "1"; a cross through USD whose second leg is an inverted rate (the
 * EUR/USD feed, a `fiat,EUR,USD,…` row) has that leg's rate as its denominator.
 */
export interface Rate {
  /** Exact text: a plain decimal, or `numerator/denominator` when the quotient has no finite decimal. */
  rate: string;
  numerator: string;
  denominator: string;
  /** Unix seconds the rate was written (a round's updatedAt, a row's time); null for a constant (`*`) row. For a cross, the older leg's. */
  rateTime: number | null;
  /** `chainlink:bsc:0x0567…:round=…`, `file:rates.csv:12`, `peg:…`; a cross joins its legs with ` × `. */
  rateSource: string;
  /** A rate written as `0` (never taken from a feed): used, and flagged. */
  zero: boolean;
}

/** Why no rate could be given for a query: said to the user with the (chain, token, currency) it concerns. */
export interface NoRate {
  missing: string;
}

export type RateAnswer = Rate | NoRate;

export const isRate = (a: RateAnswer): a is Rate => 'rateSource' in a;

/**
 * Where rates come from: a rates file, the mirror's `rates` table, Chainlink feeds read
 * through verification's node, or these in order of precedence. Queries are answered in
 * one batch (the same order), so a page or a whole mirror is prepared at once: a feed is
 * read at most twice per distinct (feed, day) it is asked for.
 */
export interface RateSource {
  rates(queries: readonly RateQuery[]): Promise<RateAnswer[]>;
  /**
   * The rates of one (chain, token, currency) as a function of the instant, answered at
   * once (no request, no batch) where every source that decides them has them at hand (a
   * rates file, the mirror's rates); undefined for an instant whose rate must be read (a
   * feed read live beyond the rounds the mirror holds): ask `rates` for it in a batch.
   * Undefined when one must always be read (Chainlink). Each instant answered gets the
   * answer `rates` would give it.
   */
  atHand?(chain: string, token: string, currency: string): ((at: number) => RateAnswer | undefined) | undefined;
}

/** The rateSource written for a record no rate could be given for (`--rates-missing blank`). */
export const MISSING_SOURCE = 'missing';
