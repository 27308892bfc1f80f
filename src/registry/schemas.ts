import { z } from 'zod';

// Record schemas from API-SPEC.md "Resources and their fields". Objects are loose:
// fields the service adds later are kept and printed, never dropped. Statuses are
// plain strings because the service may send values beyond `confirmed`.

/** Amounts and fees: decimal strings, never floats (the mirror keeps them exact by this schema). */
export const decimal = z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal string');
/** Times: Unix seconds (the mirror keeps them as TIMESTAMP WITH TIME ZONE by this schema). */
export const timestamp = z.number().int().nonnegative();

export { recordShape } from './record-shape.js';

const hex = z.string().regex(/^0x[0-9a-fA-F]*$/, 'expected 0x-prefixed hex');

const chainOperation = {
  transactionHash: hex,
  transactionStatus: z.string(),
};

export const shortUrl = z.looseObject({
  path: z.string(),
  name: z.string(),
  planId: hex,
  createdAt: timestamp,
  updatedAt: timestamp,
  params: z.looseObject({
    callbackSuccess: z.string().optional(),
    callbackError: z.string().optional(),
    extra: z.record(z.string(), z.string()).optional(),
  }),
  link: z.string(),
});

export const billing = z.looseObject({
  subscriptionId: hex,
  success: z.number(),
  amount: decimal,
  fee: decimal,
  token: z.string(),
  receiver: hex,
  timestamp,
  cycleStart: timestamp,
  cycleEnd: timestamp,
  triggeredBy: hex,
  ...chainOperation,
});

export const execution = z.looseObject({
  strategyId: hex,
  timestamp,
  ...chainOperation,
  inputToken: z.string(),
  fee: decimal,
  swaps: z.array(
    z.looseObject({ inputAmount: decimal, outputAmount: decimal, outputToken: z.string() }),
  ),
});

export const walletToWalletPayment = z.looseObject({
  id: z.string(),
  description: z.string(),
  email: z.string(),
  token: z.string(),
  category: z.string(),
  tag: z.string(),
  timestamp,
  serviceFee: decimal,
  receivers: z.array(
    z.looseObject({
      user: hex,
      amount: decimal,
      fee: decimal,
      timestamp,
      ...chainOperation,
    }),
  ),
});

export const oneTimePayment = z.looseObject({
  id: z.string(),
  description: z.string(),
  sender: hex,
  token: z.string(),
  category: z.string(),
  tag: z.string(),
  timestamp,
  ...chainOperation,
  receivers: z.array(z.looseObject({ user: hex, amount: decimal, fee: decimal })),
});

export const cancellation = z.looseObject({
  subscriptionId: hex,
  timestamp,
  forced: z.boolean(),
  triggeredBy: hex,
  ...chainOperation,
});

export const cancellationRequest = z.looseObject({
  subscriptionId: hex,
  timestamp,
  ...chainOperation,
});

const transferCommon = {
  description: z.string(),
  amount: decimal,
  fee: decimal,
  token: z.string(),
  category: z.string(),
  timestamp,
  ...chainOperation,
};

export const subscriptionTransfer = z.looseObject({
  ...transferCommon,
  sender: hex,
  receiver: hex,
  planId: hex,
  subscriptionId: hex,
});

export const oneTimeTransfer = z.looseObject({
  ...transferCommon,
  sender: hex,
  receiver: hex,
  oneTimeId: hex,
});

export const walletToWalletTransfer = z.looseObject({
  ...transferCommon,
  email: z.string(),
  receiver: hex,
  payment_id: z.string(),
});

export const scheduledTransfer = z.looseObject({
  ...transferCommon,
  sender: hex,
  receiver: hex,
  scheduleId: hex,
});

export const webhookSetting = z.looseObject({ webhook: z.string() });

export const notification = z.looseObject({
  id: z.string(),
  type: z.string(),
  event: z.string(),
  timestamp,
  ...chainOperation,
  data: z.record(z.string(), z.unknown()),
  extra: z.record(z.string(), z.unknown()).optional(),
});

/** What a DELETE answers: not documented, so anything goes (an empty body too). */
export const deletion = z.looseObject({}).nullable();

/** The list envelope every list endpoint answers with. */
export const envelope = z.looseObject({
  data: z.array(z.unknown()),
  limit: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
});

/** The API's documented error body. */
export const errorBody = z.object({
  error: z.looseObject({ code: z.number(), message: z.string() }),
});

export type ShortUrl = z.infer<typeof shortUrl>;
export type Billing = z.infer<typeof billing>;
export type Execution = z.infer<typeof execution>;
export type WalletToWalletPayment = z.infer<typeof walletToWalletPayment>;
export type OneTimePayment = z.infer<typeof oneTimePayment>;
export type Cancellation = z.infer<typeof cancellation>;
export type CancellationRequest = z.infer<typeof cancellationRequest>;
export type Notification = z.infer<typeof notification>;
export type Envelope = z.infer<typeof envelope>;
