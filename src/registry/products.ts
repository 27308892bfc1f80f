import type { Product } from './types.js';

// What the root command lists about each product. Kept apart from the endpoint
// entries (and their zod schemas) so that `payrec --help` stays fast.

/** Short aliases of the product commands (DESIGN.md). */
export const productAliases: Record<Product, string> = {
  'fixed-recurring': 'fr',
  'variable-recurring': 'vr',
  'on-demand': 'od',
  'one-time': 'ot',
  'wallet-to-wallet': 'w2w',
  'scheduled-payments': 'sp',
  'dollar-cost-average': 'dca',
  'webhook-notifications': 'wn',
};

export const productDescriptions: Record<Product, string> = {
  'fixed-recurring': 'Fixed-recurring plans: short urls, billings, cancellations, plan webhooks',
  'variable-recurring': 'Variable-recurring plans: cancellations, cancellation requests, transfers',
  'on-demand': 'On-demand plans: short urls, transfers',
  'one-time': 'One-time payments and their transfers',
  'wallet-to-wallet': 'Wallet-to-wallet payments and their transfers',
  'scheduled-payments': 'Scheduled payment transfers',
  'dollar-cost-average': 'Dollar-cost-average strategy executions',
  'webhook-notifications': 'Fetch, verify and receive webhook notifications',
};
