import { getAddress, keccak256, stringToHex, type Address } from 'viem';

// Seeded discrepancies: on a few percent of confirmed records the chain disagrees with the
// API, in every way ONCHAIN.md §9 tells apart. Which records, and how, follows from the
// seed and the transaction hash alone, so every run (and every emulator with the same
// seed) has the same ones, and the API's records never change.

export const DISCREPANCY_KINDS = ['mismatch', 'missing', 'reverted', 'spoofed', 'reorged'] as const;
export type DiscrepancyKind = (typeof DISCREPANCY_KINDS)[number];

/** Share of confirmed records given a discrepancy. */
export const DISCREPANCY_SHARE = 0.04;

/**
 * How a confirmed record's transaction differs, from a uniform 32-bit roll: undefined for
 * most. A field differs in two of six; a missing receipt, a reverted one, events from a
 * look-alike contract and a reorged block in one of six each.
 */
export function discrepancyOf(roll: number): DiscrepancyKind | undefined {
  const share = roll / 2 ** 32;
  if (share >= DISCREPANCY_SHARE) return undefined;
  const slot = Math.floor((share / DISCREPANCY_SHARE) * 6);
  return (['mismatch', 'mismatch', 'missing', 'reverted', 'spoofed', 'reorged'] as const)[slot];
}

/**
 * An address that looks like `real` at a glance (the same first six and last four hex
 * digits, as vanity look-alikes of a contract are made) and is another contract.
 */
export function lookAlike(real: string): Address {
  const middle = keccak256(stringToHex(`payrec emulator look-alike ${real.toLowerCase()}`)).slice(2, 32);
  return getAddress(`${real.slice(0, 8)}${middle}${real.slice(-4)}`);
}
