import { getAddress, keccak256, stringToHex } from 'viem';
import { NATIVE_TOKEN, TOKENS, type ChainSlug, type Token } from '../../chain/model.js';
import { TOKENS_BY_CHAIN } from '../values.js';

// The tokens the emulator's records name, as contracts of its chain. The API names a
// token by symbol; the chain by address (8pay's token list, ONCHAIN.md §4). `8PAY` is the
// current 8PAY token, the list's `8PAY v2`, whose contract's symbol() answers `8PAY v2`
// as the real one does; the migrated v1's answers `8PAY` (a verifier that looks `8PAY`
// up by symbol() finds v1). A symbol the list lacks (USDC on sandbox) is paid in a token
// made up for it, outside the list, whose symbol() answers that symbol all the same.

export interface ChainToken extends Token {
  native: boolean;
  /** In 8pay's token list. */
  listed: boolean;
  /** What the contract's symbol() answers. */
  onChainSymbol: string;
}

const chainTokens = new Map<string, Map<string, ChainToken>>();

function tokensOf(chain: ChainSlug): Map<string, ChainToken> {
  let bySymbol = chainTokens.get(chain);
  if (bySymbol) return bySymbol;
  bySymbol = new Map();
  for (const t of TOKENS[chain]) {
    const plain = t.symbol.replace(/ v\d+$/, '');
    // The migrated v1 kept its contract's old symbol(); v2's is its full name.
    bySymbol.set(t.symbol, { ...t, native: t.address === NATIVE_TOKEN, listed: true, onChainSymbol: t.migrated ? plain : t.symbol });
    // The API's plain `8PAY` is the token that has not been migrated away.
    if (plain !== t.symbol && !t.migrated) bySymbol.set(plain, bySymbol.get(t.symbol)!);
  }
  for (const symbol of TOKENS_BY_CHAIN[chain] ?? []) {
    if (!bySymbol.has(symbol)) bySymbol.set(symbol, madeUp(chain, symbol));
  }
  chainTokens.set(chain, bySymbol);
  return bySymbol;
}

function madeUp(chain: string, symbol: string): ChainToken {
  const address = getAddress(`0x${keccak256(stringToHex(`payrec emulator token ${chain} ${symbol}`)).slice(26)}`);
  return { symbol, address, decimals: 18, native: false, listed: false, onChainSymbol: symbol };
}

/** The token a record's symbol names on `chain` (a made-up one, outside the list, for a symbol the list lacks). */
export function tokenOf(chain: ChainSlug, symbol: string): ChainToken {
  const bySymbol = tokensOf(chain);
  let token = bySymbol.get(symbol);
  if (!token) {
    token = madeUp(chain, symbol);
    bySymbol.set(symbol, token);
  }
  return token;
}

/** Another listed token of the same decimals, native or not alike: a seeded difference of `token`. */
export function otherToken(chain: ChainSlug, token: ChainToken, roll: number): ChainToken {
  const others = TOKENS[chain].filter(
    (t) => !t.migrated && t.decimals === token.decimals && (t.address === NATIVE_TOKEN) === token.native && t.address !== token.address,
  );
  // Only one native coin per chain: a native payment's token differs by being a listed ERC-20 then.
  const pool = others.length > 0 ? others : TOKENS[chain].filter((t) => !t.migrated && t.address !== NATIVE_TOKEN && t.decimals === token.decimals);
  const t = pool[roll % pool.length];
  return tokenOf(chain, t.symbol);
}

/** The token contract at `address`, for eth_call (symbol(), decimals()); undefined for any other address. */
export function tokenAt(chain: ChainSlug, address: string): ChainToken | undefined {
  const wanted = address.toLowerCase();
  for (const t of tokensOf(chain).values()) if (!t.native && t.address.toLowerCase() === wanted) return t;
  return undefined;
}
