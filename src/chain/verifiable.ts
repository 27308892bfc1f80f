// The collections whose records are transactions the decoder reads (ONCHAIN.md §7).
// Kept free of viem: list commands decide at start-up whether to offer --verify.

export const VERIFIABLE = [
  'fixed-recurring/billings',
  'fixed-recurring/cancellations',
  'variable-recurring/cancellations',
  'variable-recurring/cancellation-requests',
  'variable-recurring/transfers',
  'on-demand/transfers',
  'one-time/payments',
  'one-time/transfers',
  'wallet-to-wallet/payments',
  'wallet-to-wallet/transfers',
  'scheduled-payments/transfers',
  'dollar-cost-average/executions',
] as const;

export function verifiable(collection: string): boolean {
  return (VERIFIABLE as readonly string[]).includes(collection);
}
