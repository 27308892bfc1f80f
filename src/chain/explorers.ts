import type { ChainSlug } from './model.js';

// Where a person reads a transaction: the block explorer of each chain (none for the
// sandbox, BNB testnet, which 8pay's docs name no explorer for).
const EXPLORERS: Record<ChainSlug, string | undefined> = {
  bsc: 'https://bscscan.com/tx/',
  ethereum: 'https://etherscan.io/tx/',
  polygon: 'https://polygonscan.com/tx/',
  sandbox: undefined,
};

/** The explorer's page of a transaction; null without an explorer or a hash. */
export function explorerUrl(chain: ChainSlug, hash: unknown): string | null {
  const base = EXPLORERS[chain];
  return base && typeof hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(hash) ? `${base}${hash.toLowerCase()}` : null;
}
