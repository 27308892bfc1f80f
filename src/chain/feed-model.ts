import type { ChainSlug } from './model.js';

// Chainlink's price feeds as ../shared/ONCHAIN.md §10 states them: pure data. The feed
// reader (feeds.ts) and the emulator's chain (src/emulator/chain/feeds.ts) both read it.

/** A proxy's round id: (phaseId << 64) | the aggregator's round id. */
export const PHASE_OFFSET = 64n;
export const proxyRoundId = (phase: number, aggregatorRound: number | bigint): bigint => (BigInt(phase) << PHASE_OFFSET) | BigInt(aggregatorRound);

/** Every /USD feed has 8 decimals. */
export const USD_FEED_DECIMALS = 8;

export interface FeedSpec {
  /** The API's token symbols this feed prices (a wrapped native coin redeems 1:1 and uses the native coin's feed). */
  tokens: readonly string[];
  /** What description() answers: `BNB / USD`. */
  pair: string;
  addresses: Partial<Record<ChainSlug, `0x${string}`>>;
}

export const FEEDS: readonly FeedSpec[] = [
  { tokens: ['BNB', 'WBNB'], pair: 'BNB / USD', addresses: { bsc: '0x0567F2323251f0Aab15c8dFb1967E4e8A7D42aeE', ethereum: '0x14e613AC84a31f709eadbdF89C6CC390fDc9540A', polygon: '0x82a6c4AF830caa6c97bb504425f6A66165C2c26e' } },
  { tokens: ['ETH', 'WETH'], pair: 'ETH / USD', addresses: { bsc: '0x9ef1B8c0E4F7dc8bF5719Ea496883DC6401d5b2e', ethereum: '0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419', polygon: '0xF9680D99D6C9589e2a93a78A04A279e509205945' } },
  { tokens: ['MATIC', 'WMATIC'], pair: 'MATIC / USD', addresses: { bsc: '0x7CA57b0cA6367191c94C8914d7Df09A57655905f', ethereum: '0x7bAC85A8a13A4BcD8abb3eB7d6b4d632c5a57676', polygon: '0xAB594600376Ec9fD91F8e885dADF0CE036862dE0' } },
  { tokens: ['USDT'], pair: 'USDT / USD', addresses: { bsc: '0xB97Ad0E74fa7d920791E90258A6E2085088b4320', ethereum: '0x3E7d1eAB13ad0104d2750B8863b489D65364e32D', polygon: '0x0A6513e40db6EB1b165753AD52E80663aeA50545' } },
  { tokens: ['USDC'], pair: 'USDC / USD', addresses: { bsc: '0x51597f405303C4377E36123cBc172b13269EA163', ethereum: '0x8fFfFfd4AfB6115b954Bd326cbe7B4BA576818f6', polygon: '0xfE4A8cc5b5B2366C1B58Bea3858e81843581b2F7' } },
  { tokens: ['BUSD'], pair: 'BUSD / USD', addresses: { bsc: '0xcBb98864Ef56E9042e7d2efef76141f15731B82f', polygon: '0xE0dC07D5ED74741CeeDA61284eE56a2A0f7A4Cc9' } },
  { tokens: ['DAI'], pair: 'DAI / USD', addresses: { bsc: '0x132d3C0B1D2cEa0BC552588063bdBb210FDeecfA', ethereum: '0xAed0c38402a5d19df6E4c03F4E2DceD6e29c1ee9', polygon: '0x4746DeC9e833A82EC7C2C1356372CcF2cfcD2F3D' } },
  { tokens: ['USDD'], pair: 'USDD / USD', addresses: { bsc: '0x51c78c299C42b058Bf11d47FbB74aC437C6a0c8C' } },
  { tokens: ['CAKE'], pair: 'CAKE / USD', addresses: { bsc: '0xB6064eD41d4f67e353768aA239cA86f4F73665a1' } },
  { tokens: ['DOGE'], pair: 'DOGE / USD', addresses: { bsc: '0x3AB0A0d137D4F946fBB19eecc6e92E64660231C8' } },
  { tokens: ['WBTC'], pair: 'WBTC / USD', addresses: { polygon: '0xDE31F8bFBD8c84b5360CFACCa3539B938dd78ae6' } },
  // A currency's feed: the fiat leg of a cross through USD.
  { tokens: ['EUR'], pair: 'EUR / USD', addresses: { ethereum: '0xb49f677943BC038e9857d61E7d053CaA2C1734C1', polygon: '0x73366Fe0AA0Ded304479862808e02506FE556a98' } },
];

/** The feed of a token (or of a currency, for its /USD rate) on a chain by ONCHAIN §10, if any. */
export function feedOf(chain: string, token: string): { address: `0x${string}`; pair: string } | undefined {
  const spec = FEEDS.find((f) => f.tokens.includes(token));
  const address = spec?.addresses[chain as ChainSlug];
  return spec && address ? { address, pair: spec.pair } : undefined;
}

/** The pair a feed of `token` describes itself as: `BNB / USD` (a wrapped coin's feed is its native coin's). */
export function pairOf(token: string): string {
  return FEEDS.find((f) => f.tokens.includes(token))?.pair ?? `${token} / USD`;
}
