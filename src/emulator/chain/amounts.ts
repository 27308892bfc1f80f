import { formatUnits, parseUnits } from 'viem';

// Token amounts as the chain holds them: integers in the token's smallest unit. The API's
// decimal strings can say more than that (a USDT amount with 18 decimals where USDT has 6),
// and its fees are drawn at random, not computed: 8pay's contract takes
// fee = floor(amount × feePercentage / 10000), and a fee drawn at random is rarely one of
// those values. So the chain's feePercentage is chosen per record to reproduce the API's
// fee where some integer does, and to come nearest to it where none does.

/** Hundredths of a percent: 10000 takes the whole amount, the most a transfer can. */
const WHOLE = 10_000n;

/** The number of digits after the point of a decimal string. */
function fractionDigits(value: string): number {
  const point = value.indexOf('.');
  return point < 0 ? 0 : value.length - point - 1;
}

/** Whether `value` is a whole number of the token's smallest unit. */
export function representable(value: string, decimals: number): boolean {
  return fractionDigits(value.includes('.') ? value.replace(/0+$/, '') : value) <= decimals;
}

/** `value` in the token's smallest unit (rounded to it when it says more). */
export function toUnits(value: string, decimals: number): bigint {
  return parseUnits(value, decimals);
}

export function fromUnits(units: bigint, decimals: number): string {
  return formatUnits(units, decimals);
}

export function feeOf(amount: bigint, feePercentage: bigint): bigint {
  return (amount * feePercentage) / WHOLE;
}

/**
 * The feePercentage whose fee on `amount` is `fee`, or the one whose fee comes nearest
 * (the larger on a tie), never more than the whole amount.
 */
export function feePercentageFor(amount: bigint, fee: bigint): bigint {
  if (amount === 0n) return 0n;
  const up = (fee * WHOLE + amount - 1n) / amount;
  if (up >= WHOLE) return WHOLE;
  if (up === 0n) return 0n;
  const down = up - 1n;
  return fee - feeOf(amount, down) < feeOf(amount, up) - fee ? down : up;
}
