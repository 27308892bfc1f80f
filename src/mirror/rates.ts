import type { Field } from './fields.js';

// The mirror's `rates` table (DESIGN.md "Values in one currency"), declared here once for
// every engine (each maps these fields to its types: duckdb/rates.ts, postgres/rates.ts):
// the rates --currency reads from the mirror, after --rates FILE and before a live read
// of Chainlink. A row is one of
//   - a Chainlink round `payrec rates sync` read: its feed (the proxy), phase, roundId,
//     answer, decimals (of its phase) and description; time is its updatedAt, rate its
//     answer ÷ 10^decimals (empty when the answer is ≤ 0: never a rate, but the round
//     was in force), source `chainlink:CHAIN:FEED:round=ID`; token is the mirror's token
//     it was read for (WBNB reads BNB / USD);
//   - a line of a rates file `payrec rates import` stored as written (time, chain,
//     token, currency, rate, source, address, note), with its provenance: the file's
//     name, the line and the file's sha256.
// Rates are exact decimal text (a rate of a file may hold more digits than any SQL
// decimal); payrec computes values, never SQL. `payrec sql` joins the table by token and time.

export const RATES_TABLE = 'rates';

const text = { kind: 'text' } as const;
const time = { kind: 'time' } as const;
const integer = { kind: 'integer' } as const;

/** The table's columns, in order. */
export const RATE_FIELDS: readonly Field[] = [
  { name: 'chain', type: text },
  { name: 'token', type: text },
  { name: 'currency', type: text },
  { name: 'time', type: time },
  { name: 'rate', type: text },
  { name: 'source', type: text },
  { name: 'feed', type: text },
  { name: 'description', type: text },
  { name: 'phase', type: integer },
  { name: 'roundId', type: text },
  { name: 'answer', type: text },
  { name: 'decimals', type: integer },
  { name: 'file', type: text },
  { name: 'line', type: integer },
  { name: 'sha256', type: text },
  { name: 'address', type: text },
  { name: 'note', type: text },
  // When the row was stored (the engine's clock).
  { name: 'storedAt', type: time },
];

/** The columns payrec writes (storedAt is the engine's). */
export const WRITTEN_RATE_FIELDS = RATE_FIELDS.filter((f) => f.name !== 'storedAt');

/** A row of `rates` as payrec reads and writes it. */
export interface StoredRate {
  /** A chain; for a file's row also `*` (every chain) or `fiat`. */
  chain: string;
  token: string;
  currency: string;
  /** Unix seconds: a round's updatedAt, a row's time; null for a constant (`*`) row. */
  time: number | null;
  /** Exact decimal text; null for a round whose answer is ≤ 0. */
  rate: string | null;
  source: string;
  feed: string | null;
  description: string | null;
  phase: number | null;
  roundId: string | null;
  /** A round's answer (an int256) as decimal text. */
  answer: string | null;
  decimals: number | null;
  file: string | null;
  line: number | null;
  sha256: string | null;
  address: string | null;
  note: string | null;
}

/** Which stored rates to read. */
export interface RateFilter {
  /** Rows of this chain, and a file's rows of every chain (`*`) and between currencies (`fiat`). */
  chain?: string;
  token?: string;
  /** Rows with a time in [from, to] (Unix seconds); constant rows always. */
  from?: number;
  to?: number;
}

/** The token of a table's records, and their first and last timestamps (Unix seconds). */
export interface TokenSpan {
  token: string;
  first: number;
  last: number;
}

/** The column holding a collection's token (transfers' token, executions' input token), when its records also have a timestamp. */
export function tokenColumnOf(fields: readonly Field[]): string | undefined {
  const token = fields.find((f) => (f.name === 'token' || f.name === 'inputToken') && f.type.kind === 'text');
  return token && fields.some((f) => f.name === 'timestamp' && f.type.kind === 'time') ? token.name : undefined;
}

/**
 * Where the mirror holds a feed's rounds whole for a token: every round written in
 * [from, to], and the round in force at `from`. The round in force at any t in the span
 * is then a stored one; after `to` the mirror cannot tell (a later round may exist).
 * Kept in the mirror's meta, written in the same transaction as the rounds.
 */
export interface RoundCoverage {
  from: number;
  to: number;
}

export const coverageKey = (chain: string, token: string, feed: string): string => `rates coverage ${chain} ${token} ${feed.toLowerCase()}`;

export function parseCoverage(value: string | undefined): RoundCoverage | undefined {
  const m = value === undefined ? null : /^(\d+) (\d+)$/.exec(value);
  return m ? { from: Number(m[1]), to: Number(m[2]) } : undefined;
}

export const coverageText = (c: RoundCoverage): string => `${c.from} ${c.to}`;

/** The prefix of every coverage key of a chain: how the leg source finds them. */
export const coveragePrefix = (chain: string): string => `rates coverage ${chain} `;
