import type { Address } from 'viem';
import { NATIVE_TOKEN, TOKENS, type ChainSlug, type Token } from './model.js';

// The API names tokens by symbol; the chain by address. 8pay's token list (ONCHAIN.md
// §4) maps one to the other: the API's `8PAY` is the current token, listed `8PAY v2`
// (never found by `symbol()`: v2 answers `8PAY v2`, the migrated v1 answers `8PAY`). A
// symbol the list does not spell is looked up by calling `symbol()` on the list's own
// current tokens (never on a migrated one, nor any other contract), and a symbol
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

/** The API's names the list spells otherwise (§4): the API's `8PAY` is the current token, 8PAY v2, on every chain. */
const API_NAMES: Readonly<Record<string, string>> = { '8PAY': '8PAY v2' };

/** The list's token of an API symbol: spelled exactly so, else by the API's name for it (`8PAY` → `8PAY v2`), if any. */
export function listedSymbol(chain: ChainSlug, symbol: string): ResolvedToken | undefined {
  const spelled = (name: string | undefined) => TOKENS[chain].find((x) => x.symbol === name);
  const t = spelled(symbol) ?? (Object.hasOwn(API_NAMES, symbol) ? spelled(API_NAMES[symbol]) : undefined);
  return t && resolved(t);
}

/** The list's token at `address` (any case), if any. */
export function listedAddress(chain: ChainSlug, address: string): ResolvedToken | undefined {
  const a = address.toLowerCase();
  const t = TOKENS[chain].find((x) => x.address.toLowerCase() === a);
  return t && resolved(t);
}

/**
 * The list's contracts that `symbol()` may be asked: every current token but the native
 * coin. A migrated token never is: payments carry the latest address (§2), so the API
 * never names one, and its `symbol()` (v1's `8PAY`) would name the wrong token.
 */
export function symbolCandidates(chain: ChainSlug): Address[] {
  return TOKENS[chain].filter((t) => t.address !== NATIVE_TOKEN && !t.migrated).map((t) => t.address.toLowerCase() as Address);
}

/**
 * The token of an API symbol the list does not spell, from what `symbol()` answered at
 * the candidates' addresses: the only one whose answer is exactly the symbol; none or
 * several is unknown.
 */
export function bySymbolCall(chain: ChainSlug, symbol: string, answers: ReadonlyMap<Address, string>): ResolvedToken | null {
  const candidates = new Set(symbolCandidates(chain));
  const matches = TOKENS[chain].filter((t) => candidates.has(t.address.toLowerCase() as Address) && answers.get(t.address.toLowerCase() as Address) === symbol);
  return matches.length === 1 ? resolved(matches[0]) : null;
}
