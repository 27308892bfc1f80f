import { formatUnits, parseUnits } from 'viem';

// Token amounts as the chain holds them: integers in the token's smallest unit. The
// emulator's records say no more than that, and their fees are what 8pay's contract takes,
// fee = floor(amount × feePercentage / 10000); a record added by hand can say otherwise
// (a USDT amount with 18 decimals where USDT has 6), and the chain then differs.

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

