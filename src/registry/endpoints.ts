import * as s from './schemas.js';
import * as v from './validators.js';
import type { Endpoint, Filter, PathParam, Product } from './types.js';

// The endpoint registry: one entry per API endpoint (API-SPEC.md "Endpoints").
// Commands, the HTTP request, response validation, emulator routes, completions
// and the README reference are all derived from these entries.

// Names stay literal types, so the library can type path parameters (`{ planId }`).
const flag = <N extends string>(name: N, schema: PathParam['schema'], help: string) => ({ name, as: 'flag' as const, schema, help }) satisfies PathParam;
const arg = <N extends string>(name: N, schema: PathParam['schema'], help: string) => ({ name, as: 'argument' as const, schema, help }) satisfies PathParam;

const planId = flag('planId', v.hexId, 'plan id (0x + 64 hex)');
const subscriptionFlag = flag('subscriptionId', v.hexId, 'subscription id (0x + 64 hex)');
const subscriptionArg = arg('subscriptionId', v.hexId, 'subscription id (0x + 64 hex)');

/** Filters keep the wide Filter type: the emulator reads the optional `field`. */
const filter = (x: Filter): Filter => x;

const f = {
  triggeredBy: filter({ name: 'triggeredBy', schema: v.address, help: 'only records triggered by this wallet address' }),
  sender: filter({ name: 'sender', schema: v.address, help: 'only records sent by this wallet address' }),
  receiver: filter({ name: 'receiver', schema: v.address, help: 'only records received by this wallet address' }),
  receiverOfPayment: filter({
    name: 'receiver',
    schema: v.address,
    help: 'only payments with this wallet address among the receivers',
    field: 'receivers[].user',
  }),
  token: filter({ name: 'token', schema: v.token, help: 'only records in this token (symbol)' }),
  tag: filter({ name: 'tag', schema: v.text, help: 'only records with this tag' }),
  email: filter({ name: 'email', schema: v.email, help: 'only records of this email address' }),
  planId: filter({ name: 'planId', schema: v.hexId, help: 'only records of this plan' }),
  scheduleId: filter({ name: 'scheduleId', schema: v.hexId, help: 'only transfers of this schedule' }),
  transactionHash: filter({ name: 'transactionHash', schema: v.txHash, help: 'only the payment with this transaction hash' }),
};

// Table columns, most telling first: a narrow terminal drops columns from the right.
const transferColumns = ['timestamp', 'amount', 'token', 'transactionStatus', 'sender', 'receiver', 'description', 'transactionHash', 'fee'];

/** Short url reads exist for fixed-recurring and on-demand, with identical shapes. */
function shortUrlReads<P extends Product>(product: P) {
  const common = {
    product,
    method: 'GET' as const,
    filters: [],
    timeWindow: false,
    record: s.shortUrl,
    identity: ['path'],
    columns: ['path', 'name', 'planId', 'link', 'updatedAt'],
    collection: `${product}/short-urls`,
  };
  return [
    {
      ...common,
      id: `${product}.short-urls.list`,
      command: ['short-urls', 'list'],
      path: `/${product}/short-urls`,
      params: [],
      kind: 'list',
      summary: 'List the short urls you created (all plans, or one with --plan-id)',
      examples: [`payrec ${product} short-urls list`, `payrec ${product} short-urls list --plan-id 0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7 --all -f json`],
    },
    {
      ...common,
      id: `${product}.short-urls.list-by-plan`,
      command: ['short-urls', 'list'],
      path: `/${product}/plans/:planId/short-urls`,
      params: [planId],
      kind: 'list',
      summary: 'List the short urls of a plan',
      examples: [],
    },
    {
      ...common,
      id: `${product}.short-urls.get`,
      command: ['short-urls', 'get'],
      path: `/${product}/short-urls/:path`,
      params: [arg('path', v.shortUrlPath, 'short url code, the last segment of its link')],
      kind: 'single',
      summary: 'Show one short url',
      examples: [`payrec ${product} short-urls get f9yth`],
    },
    {
      ...common,
      id: `${product}.short-urls.delete`,
      command: ['short-urls', 'delete'],
      method: 'DELETE',
      path: `/${product}/short-urls/:path`,
      params: [arg('path', v.shortUrlPath, 'short url code, the last segment of its link')],
      kind: 'single',
      record: s.deletion,
      confirm: true,
      summary: 'Delete a short url (asks first on a terminal; --yes otherwise)',
      examples: [`payrec ${product} short-urls delete f9yth`, `payrec ${product} short-urls delete f9yth --yes`],
    },
  ] as const satisfies readonly Endpoint[];
}

/** Cancellations read the same way on fixed-recurring and variable-recurring. */
function cancellationReads<P extends Product>(product: P) {
  const common = {
    product,
    method: 'GET' as const,
    record: s.cancellation,
    identity: ['subscriptionId', 'transactionHash'],
    columns: ['timestamp', 'forced', 'transactionStatus', 'subscriptionId', 'triggeredBy', 'transactionHash'],
    collection: `${product}/cancellations`,
  };
  return [
    {
      ...common,
      id: `${product}.cancellations`,
      command: ['cancellations'],
      path: `/${product}/plans/:planId/cancellations`,
      params: [planId],
      filters: [f.triggeredBy],
      kind: 'list',
      timeWindow: true,
      summary: 'List the cancellations of a plan’s subscriptions',
      examples: [`payrec ${product} cancellations --plan-id 0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7 --from 30d`],
    },
    {
      ...common,
      id: `${product}.cancellation`,
      command: ['cancellation'],
      path: `/${product}/subscriptions/:subscriptionId/cancellation`,
      params: [subscriptionArg],
      filters: [],
      kind: 'single',
      timeWindow: false,
      summary: 'Show the cancellation of a subscription',
      examples: [`payrec ${product} cancellation 0x30f3df5c614f6f445eaa4a11f8730d3a5f8e4a1aa96d7162e6b0ad374289c4e0`],
    },
  ] as const satisfies readonly Endpoint[];
}

function transfers<P extends Product, R extends Endpoint['record']>(product: P, filters: readonly Filter[], record: R, columns: readonly string[] = transferColumns) {
  return {
    id: `${product}.transfers`,
    product,
    command: ['transfers'],
    method: 'GET',
    path: `/${product}/transfers`,
    params: [],
    filters,
    kind: 'list',
    timeWindow: true,
    record,
    identity: ['transactionHash'],
    columns,
    collection: `${product}/transfers`,
    transfers: true,
    summary: `List ${product} transfers`,
    examples: [
      `payrec ${product} transfers --from 7d --format csv -o transfers.csv`,
      `payrec ${product} transfers --token USDT --summary`,
      `payrec ${product} transfers --from 24h --failed --fail-if-any --count`,
    ],
  } as const satisfies Endpoint;
}

const billingCommon = {
  product: 'fixed-recurring' as const,
  command: ['billings'],
  method: 'GET' as const,
  kind: 'list' as const,
  timeWindow: true,
  record: s.billing,
  identity: ['transactionHash'],
  // outcome: payrec's reading of success and transactionStatus (outcome.ts outcomeAdder).
  columns: ['timestamp', 'amount', 'token', 'success', 'transactionStatus', 'outcome', 'subscriptionId', 'triggeredBy', 'transactionHash', 'fee'],
  collection: 'fixed-recurring/billings',
};

const executionCommon = {
  product: 'dollar-cost-average' as const,
  command: ['executions'],
  method: 'GET' as const,
  filters: [],
  kind: 'list' as const,
  timeWindow: true,
  record: s.execution,
  identity: ['transactionHash'],
  columns: ['timestamp', 'inputToken', 'transactionStatus', 'strategyId', 'swaps', 'fee', 'transactionHash'],
  collection: 'dollar-cost-average/executions',
};

const oneTimePaymentCommon = {
  product: 'one-time' as const,
  method: 'GET' as const,
  record: s.oneTimePayment,
  identity: ['id'],
  columns: ['timestamp', 'token', 'transactionStatus', 'description', 'id', 'sender', 'tag', 'receivers'],
  collection: 'one-time/payments',
};

const walletToWalletPaymentCommon = {
  product: 'wallet-to-wallet' as const,
  method: 'GET' as const,
  record: s.walletToWalletPayment,
  identity: ['id'],
  columns: ['timestamp', 'token', 'serviceFee', 'description', 'id', 'tag', 'receivers'],
  collection: 'wallet-to-wallet/payments',
};

export const endpoints = [
  ...shortUrlReads('fixed-recurring'),
  {
    ...billingCommon,
    id: 'fixed-recurring.billings.by-plan',
    path: '/fixed-recurring/plans/:planId/billings',
    params: [planId],
    filters: [f.triggeredBy],
    // The subscription revenue: `payrec transfers` reads it once per known plan.
    transfers: true,
    summary: 'List the billings of a plan (--plan-id) or of a subscription (--subscription-id)',
    examples: [
      'payrec fixed-recurring billings --plan-id 0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7 --from 2026-01-01 --to 2026-02-01',
      'payrec fr billings --subscription-id 0x30f3df5c614f6f445eaa4a11f8730d3a5f8e4a1aa96d7162e6b0ad374289c4e0 --sort asc --all -f csv',
    ],
  },
  {
    ...billingCommon,
    id: 'fixed-recurring.billings.by-subscription',
    path: '/fixed-recurring/subscriptions/:subscriptionId/billings',
    params: [subscriptionFlag],
    filters: [],
    summary: 'List the billings of a subscription',
    examples: [],
  },
  ...cancellationReads('fixed-recurring'),
  {
    id: 'fixed-recurring.webhook.get',
    product: 'fixed-recurring',
    command: ['webhook', 'get'],
    method: 'GET',
    path: '/fixed-recurring/plans/:planId/webhook',
    params: [planId],
    filters: [],
    kind: 'single',
    timeWindow: false,
    record: s.webhookSetting,
    identity: ['webhook'],
    columns: ['webhook'],
    collection: 'fixed-recurring/webhooks',
    summary: 'Show the webhook URL of a plan',
    examples: ['payrec fixed-recurring webhook get --plan-id 0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7'],
  },
  {
    id: 'fixed-recurring.webhook.delete',
    product: 'fixed-recurring',
    command: ['webhook', 'delete'],
    method: 'DELETE',
    path: '/fixed-recurring/plans/:planId/webhook',
    params: [planId],
    filters: [],
    kind: 'single',
    timeWindow: false,
    record: s.deletion,
    identity: ['webhook'],
    columns: ['webhook'],
    collection: 'fixed-recurring/webhooks',
    confirm: true,
    summary: 'Remove the webhook of a plan (asks first on a terminal; --yes otherwise; pending deliveries stop)',
    examples: ['payrec fixed-recurring webhook delete --plan-id 0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7', 'payrec fixed-recurring webhook delete --plan-id 0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7 --yes'],
  },

  ...cancellationReads('variable-recurring'),
  {
    id: 'variable-recurring.cancellation-requests',
    product: 'variable-recurring',
    command: ['cancellation-requests'],
    method: 'GET',
    path: '/variable-recurring/plans/:planId/cancellation-requests',
    params: [planId],
    filters: [],
    kind: 'list',
    timeWindow: true,
    record: s.cancellationRequest,
    identity: ['subscriptionId', 'transactionHash'],
    columns: ['timestamp', 'transactionStatus', 'subscriptionId', 'transactionHash'],
    collection: 'variable-recurring/cancellation-requests',
    summary: 'List the cancellation requests of a plan’s subscriptions',
    examples: ['payrec variable-recurring cancellation-requests --plan-id 0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7'],
  },
  {
    id: 'variable-recurring.cancellation-request',
    product: 'variable-recurring',
    command: ['cancellation-request'],
    method: 'GET',
    path: '/variable-recurring/subscriptions/:subscriptionId/cancellation-request',
    params: [subscriptionArg],
    filters: [],
    kind: 'single',
    timeWindow: false,
    record: s.cancellationRequest,
    identity: ['subscriptionId', 'transactionHash'],
    columns: ['timestamp', 'transactionStatus', 'subscriptionId', 'transactionHash'],
    collection: 'variable-recurring/cancellation-requests',
    summary: 'Show the cancellation request of a subscription',
    examples: ['payrec vr cancellation-request 0xd2141b6cccda971d1d71a624d4fe075890152a6431072b2651aab2d6034e7060'],
  },
  transfers('variable-recurring', [f.planId, f.sender, f.receiver, f.token], s.subscriptionTransfer),

  ...shortUrlReads('on-demand'),
  transfers('on-demand', [f.planId, f.sender, f.receiver, f.token], s.subscriptionTransfer),

  {
    ...oneTimePaymentCommon,
    id: 'one-time.payments.list',
    command: ['payments', 'list'],
    path: '/one-time',
    params: [],
    filters: [f.transactionHash, f.tag, f.sender, f.receiverOfPayment, f.token],
    kind: 'list',
    timeWindow: true,
    summary: 'List one-time payments',
    examples: ['payrec one-time payments list --tag ebook_859294', 'payrec ot payments list --flatten receivers --all -f csv -o receivers.csv'],
  },
  {
    ...oneTimePaymentCommon,
    id: 'one-time.payments.get',
    command: ['payments', 'get'],
    path: '/one-time/:id',
    params: [arg('id', v.hexId, 'payment id (0x + 64 hex)')],
    filters: [],
    kind: 'single',
    timeWindow: false,
    summary: 'Show one one-time payment',
    examples: ['payrec one-time payments get 0x9c0a59c877da011ec733115b2a0e721711352c16c02cb26dc2240266d4f76f6b'],
  },
  transfers('one-time', [f.tag, f.sender, f.receiver, f.token], s.oneTimeTransfer),

  {
    ...walletToWalletPaymentCommon,
    id: 'wallet-to-wallet.payments.list',
    command: ['payments', 'list'],
    path: '/wallet-to-wallet/payments',
    params: [],
    filters: [f.tag, f.receiverOfPayment, f.token, f.email],
    kind: 'list',
    timeWindow: true,
    summary: 'List wallet-to-wallet payments',
    examples: ['payrec wallet-to-wallet payments list --token USDT', 'payrec w2w payments list --flatten receivers -f csv -o receivers.csv'],
  },
  {
    ...walletToWalletPaymentCommon,
    id: 'wallet-to-wallet.payments.get',
    command: ['payments', 'get'],
    path: '/wallet-to-wallet/payments/:id',
    params: [arg('id', v.uuid, 'payment id (a UUID)')],
    filters: [],
    kind: 'single',
    timeWindow: false,
    summary: 'Show one wallet-to-wallet payment',
    examples: ['payrec w2w payments get 123e4567-e89b-12d3-a456-426614174000'],
  },
  transfers('wallet-to-wallet', [f.email, f.token], s.walletToWalletTransfer, [
    'timestamp', 'amount', 'token', 'transactionStatus', 'receiver', 'description', 'payment_id', 'transactionHash', 'fee',
  ]),

  transfers('scheduled-payments', [f.scheduleId, f.sender, f.receiver, f.token], s.scheduledTransfer),

  {
    ...executionCommon,
    id: 'dollar-cost-average.executions',
    path: '/dollar-cost-average/executions',
    params: [],
    summary: 'List strategy executions (all, or one strategy with --strategy-id)',
    examples: ['payrec dollar-cost-average executions --from 7d', 'payrec dca executions --flatten swaps --all -f csv'],
  },
  {
    ...executionCommon,
    id: 'dollar-cost-average.executions.by-strategy',
    path: '/dollar-cost-average/strategies/:strategyId/executions',
    params: [flag('strategyId', v.hexId, 'strategy id (0x + 64 hex)')],
    summary: 'List the executions of a strategy',
    examples: [],
  },

  {
    id: 'webhook-notifications.get',
    product: 'webhook-notifications',
    command: ['get'],
    method: 'GET',
    path: '/webhook-notifications/:notificationId',
    params: [arg('notificationId', v.notificationId, 'notification id (64 hex)')],
    filters: [],
    kind: 'single',
    timeWindow: false,
    record: s.notification,
    identity: ['id'],
    columns: ['id', 'type', 'event', 'timestamp', 'transactionStatus', 'transactionHash'],
    collection: 'webhook-notifications',
    summary: 'Show a stored webhook notification',
    examples: ['payrec webhook-notifications get 5ccf8bdc7707a8effa371d01452644d3a388b975290b968874d0a44ec0219226'],
  },
] as const satisfies readonly Endpoint[];

export type AnyEndpoint = (typeof endpoints)[number];
export type EndpointId = AnyEndpoint['id'];

// Product names, aliases and descriptions live in a zod-free module so that
// `payrec --help` can list the products without loading the schemas.
export { productAliases, productDescriptions } from './products.js';
