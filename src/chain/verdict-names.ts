// The verdicts of ONCHAIN.md §9, in the order their rules apply. Kept apart from the
// rules (verdict.ts loads viem): list commands parse --verdict at start-up.

export const VERDICTS = ['pending', 'missing', 'reorged', 'unconfirmed', 'reverted', 'spoofed', 'mismatch', 'verified'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** `--verdict bad`: what a CI gate fails on. */
export const BAD_VERDICTS: readonly Verdict[] = ['mismatch', 'missing', 'reverted', 'spoofed', 'reorged'];

/** Verdicts checked again by the next `payrec verify`: the chain may still change its answer. */
export const OPEN_VERDICTS: readonly Verdict[] = ['pending', 'unconfirmed', 'missing'];
