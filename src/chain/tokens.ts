import type { Address } from 'viem';
import { NATIVE_TOKEN, TOKENS, type ChainSlug, type Token } from './model.js';

// The API names tokens by symbol; the chain by address. 8pay's token list (ONCHAIN.md
// §4) maps one to the other: a symbol the list does not spell is looked up by calling
// `symbol()` on the list's own addresses (never on any other contract), and a symbol
// neither finds is a difference, never a guess. Decimals come from the list and are
// checked against `decimals()` on chain.

export interface ResolvedToken {
  /** The list's symbol (`8PAY v2`), which may differ from the API's (`8PAY`). */
  listed: string;
  /** Lower case; NATIVE_TOKEN (lower case) for the native coin. */
  address: Address;
  decimals: number;
  native: boolean;
  /** What `decimals()` answered: null when the contract did not answer it; undefined for the native coin. */
  chainDecimals?: number | null;
}

/** API symbol → its token, or null when the list does not know it (a difference). */
export type TokenBook = ReadonlyMap<string, ResolvedToken | null>;

export const NATIVE = NATIVE_TOKEN.toLowerCase() as Address;

function resolved(t: Token): ResolvedToken {
  const address = t.address.toLowerCase() as Address;
  return { listed: t.symbol, address, decimals: t.decimals, native: address === NATIVE };
}

/** The list's token spelled exactly `symbol`, if any. */
export function listedSymbol(chain: ChainSlug, symbol: string): ResolvedToken | undefined {
  const t = TOKENS[chain].find((x) => x.symbol === symbol);
  return t && resolved(t);
}

/** The list's token at `address` (any case), if any. */
export function listedAddress(chain: ChainSlug, address: string): ResolvedToken | undefined {
  const a = address.toLowerCase();
  const t = TOKENS[chain].find((x) => x.address.toLowerCase() === a);
  return t && resolved(t);
}

/** The list's contracts that `symbol()` may be asked: every listed token but the native coin. */
export function symbolCandidates(chain: ChainSlug): Address[] {
  return TOKENS[chain].filter((t) => t.address !== NATIVE_TOKEN).map((t) => t.address.toLowerCase() as Address);
}

/**
 * The token of an API symbol the list does not spell, from what `symbol()` answered at
 * the list's addresses: the one whose answer is exactly the symbol; among several, the
 * one not migrated away (8PAY v1 → v2: payments carry the latest address); none or
 * still several is unknown.
 */
export function bySymbolCall(chain: ChainSlug, symbol: string, answers: ReadonlyMap<Address, string>): ResolvedToken | null {
  const matches = TOKENS[chain].filter((t) => answers.get(t.address.toLowerCase() as Address) === symbol);
  const current = matches.length > 1 ? matches.filter((t) => !t.migrated) : matches;
  return current.length === 1 ? resolved(current[0]) : null;
}
