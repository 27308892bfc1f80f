// The rule of a chain's name, apart from validators.ts: every command's settings check
// it (settings.ts), and loading zod for one regular expression cost each run ~20 ms.

/** Chains are an open list: any lower-case slug. */
export const CHAIN_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;

export const CHAIN_NAME_EXPECTED = 'expected a lower-case chain name such as bsc, ethereum, polygon or sandbox';

/** The chains payrec knows 8pay's contracts on (others are accepted as names). */
export const KNOWN_CHAINS = ['bsc', 'ethereum', 'polygon', 'sandbox'] as const;
