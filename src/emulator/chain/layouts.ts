import { concatHex, encodeAbiParameters, getAddress, keccak256, parseAbi, stringToHex, toFunctionSelector, zeroHash, type AbiFunction, type Address, type Hex } from 'viem';
import { PAYMENT_TYPE_NAMES, type ChainSlug, type Contracts } from '../../chain/model.js';
import type { Subscription as Lifecycle } from '../lifecycles.js';
import type { SubscriptionProduct, World } from '../world.js';
import { BASE_FEE_PERCENTAGE } from '../values.js';
import { feeOf, toUnits } from './amounts.js';
import type { EventName, Log } from './logs.js';
import { tokenOf, type ChainToken } from './tokens.js';
import type { Transcript } from './transcript.js';

// The transaction of each API record, as ONCHAIN.md §7 lays it out per collection: who
// sent it to which contract, with what value, and the logs its receipt carries. Every API
// field that reaches the chain is taken through the Transcript (by its §9 name), which
// hands back the chain's value and notes any difference. What the API does not say (a
// billing's payer, the keeper that ran a scheduled payment, a wallet-to-wallet payment's
// intermediary wallet, the other subscriptions an autobilled transaction bills) is
// derived from the record, so it is the same on every run.

type Rec = Record<string, any>;

export interface Draft {
  from: Address;
  to: Address;
  value: bigint;
  input: Hex;
  /** The block's timestamp (the record's, unless a seeded difference moves it). */
  timestamp: number;
  logs: Log[];
  /** The API's transactionStatus: pending has no receipt, failed a reverted one. */
  status: string;
}

export interface LayoutContext {
  chain: ChainSlug;
  world: World;
  contracts: Contracts;
  feeCollector: Address;
  t: Transcript;
  /** A number in [0, 2^32) drawn for this transaction and `label`, the same on every run. */
  roll(label: string): number;
  /** A log of `name` with `args` from `address` (encoded, or not when only the differences are wanted). */
  log(address: Address, name: EventName, args: Record<string, unknown>): Log;
  /** The tag of the chain's one-time payment `id` (the API's); undefined when there is none. */
  paymentTag(id: string): string | undefined;
}

/** A record's transaction; `receiver`: which receiver's, for a wallet-to-wallet payment (one transaction each). */
type Layout = (r: Rec, x: LayoutContext, receiver: number) => Draft;

const DAY = 86_400;
/** Share of billings and subscription transfers run by the Biller for several subscriptions at once. */
const AUTOBILLED_SHARE = 0.3;
/** The base fee (1 %): of a one-time payment and of what names no fee account (ONCHAIN.md §2). */
const BASE_FEE = BASE_FEE_PERCENTAGE;

export const PAYMENT_TYPES = Object.fromEntries(
  Object.entries(PAYMENT_TYPE_NAMES).map(([key, name]) => [key, keccak256(stringToHex(name))]),
) as Record<keyof typeof PAYMENT_TYPE_NAMES, Hex>;

const CALLS = parseAbi([
  'function subscribe(bytes32 planId)',
  'function bill(bytes32 subscriptionId)',
  'function cancel(bytes32 subscriptionId)',
  'function terminate(bytes32 subscriptionId)',
  'function requestCancellation(bytes32 subscriptionId)',
  'function billPlan(bytes32 planId, bytes32[] subscriptionIds)',
  'function pay(bytes32 tag, address token, uint256 amount)',
  'function execute(bytes32 id)',
  'function transfer(address to, uint256 amount)',
]);

/** Each function's selector, hashed once. */
const SELECTORS = new Map<string, { fn: AbiFunction; selector: Hex }>(CALLS.map((fn) => [fn.name, { fn, selector: toFunctionSelector(fn) }]));

/** A transaction's input: the called function's selector and its ABI-encoded arguments (viem's encodeFunctionData, selector cached). */
function call(functionName: (typeof CALLS)[number]['name'], args: readonly unknown[]): Hex {
  const { fn, selector } = SELECTORS.get(functionName)!;
  return concatHex([selector, encodeAbiParameters(fn.inputs, args)]);
}

/**
 * An address of the emulator's world as the chain holds it. The API's are in mixed case
 * at random (not checksums): lower case is what viem takes as unchecked and nodes answer.
 */
export const wallet = (address: string): Address => address.toLowerCase() as Address;

/** One of `items`, picked by a roll. */
const pick = <T>(items: readonly T[], roll: number): T => items[roll % items.length];

/** A wallet derived from `text`: one nobody else uses (a payment's intermediary). */
const walletOf = (text: string): Address => getAddress(`0x${keccak256(stringToHex(`payrec emulator wallet ${text}`)).slice(26)}`);

/** The logs of one payment through Transfers (ONCHAIN.md §2): fee and net ERC-20 Transfers, then TransferSuccessful. */
function leg(x: LayoutContext, p: { token: ChainToken; sender: Address; receiver: Address; amount: bigint; feePercentage: bigint; paymentType: Hex; metadata: Hex }): Log[] {
  const logs: Log[] = [];
  const fee = feeOf(p.amount, p.feePercentage);
  if (!p.token.native) {
    if (fee > 0n) logs.push(x.log(p.token.address, 'erc20Transfer', { from: p.sender, to: x.feeCollector, value: fee }));
    logs.push(x.log(p.token.address, 'erc20Transfer', { from: p.sender, to: p.receiver, value: p.amount - fee }));
  }
  const { token, sender, receiver, amount, feePercentage, paymentType, metadata } = p;
  logs.push(x.log(x.contracts.transfers, 'transferSuccessful', { token: token.address, sender, receiver, amount, feePercentage, paymentType, metadata }));
  return logs;
}

function failedLeg(x: LayoutContext, p: { token: ChainToken; sender: Address; receiver: Address; amount: bigint; paymentType: Hex; metadata: Hex }): Log {
  const { token, sender, receiver, amount, paymentType, metadata } = p;
  return x.log(x.contracts.transfers, 'transferFailed', { token: token.address, sender, receiver, amount, paymentType, metadata });
}

// World lookups, built once per world.
const vrOdSubscriptions = new WeakMap<World, Map<string, { id: string; planId: string; subscriber: string }>>();
function subscriptionOf(world: World, id: string) {
  let byId = vrOdSubscriptions.get(world);
  if (!byId) {
    byId = new Map();
    for (const product of ['variable-recurring', 'on-demand'] as const) for (const s of world.subscriptions[product]) byId.set(s.id.toLowerCase(), s);
    vrOdSubscriptions.set(world, byId);
  }
  const sub = byId.get(id.toLowerCase());
  if (!sub) throw new Error(`no subscription ${id} in the emulator's world`);
  return sub;
}

function lifecycleOf(world: World, id: string): Lifecycle {
  const sub = world.lifecycles.get(id);
  if (!sub) throw new Error(`no fixed-recurring subscription ${id} in the emulator's world`);
  return sub;
}

/** A subscribe is a subscription's first billing: it starts the first cycle. */
function isSubscribe(sub: Lifecycle, r: Rec): boolean {
  const first = (sub.billings[0]?.timestamp ?? sub.added.billings[0]?.timestamp) as number | undefined;
  return r.timestamp === first && r.cycleStart === r.timestamp;
}

/** Subscription ids per product and plan (lower case), once per world. */
const byPlan = new WeakMap<World, Map<string, string[]>>();
function subscriptionsOfPlan(world: World, product: SubscriptionProduct, planId: string): string[] {
  let plans = byPlan.get(world);
  if (!plans) byPlan.set(world, (plans = new Map()));
  const key = `${product} ${planId.toLowerCase()}`;
  let ids = plans.get(key);
  if (!ids) {
    const all = product === 'fixed-recurring' ? world.lifecycles.subscriptions.map((s) => ({ id: s.id, planId: s.plan.id })) : world.subscriptions[product];
    ids = all.filter((s) => s.planId.toLowerCase() === planId.toLowerCase()).map((s) => s.id);
    plans.set(key, ids);
  }
  return ids;
}

/**
 * Subscriptions of the same plan billed in the same autobilled transaction besides the
 * record's own, and where the record's own comes among them. Those of the subscriptions
 * that existed when the world was made: a later one is never billed alongside.
 */
function batchOf(x: LayoutContext, product: SubscriptionProduct, own: string, plan: string): { ids: string[]; at: number } {
  const others = subscriptionsOfPlan(x.world, product, plan).filter((id) => id.toLowerCase() !== own.toLowerCase());
  const count = Math.min(others.length, 1 + (x.roll('batch size') % 3));
  const start = x.roll('batch') % Math.max(1, others.length);
  const ids = Array.from({ length: count }, (_, i) => others[(start + i) % others.length]);
  return { ids, at: x.roll('batch position') % (count + 1) };
}

/** Most seconds a seeded difference of `timestamp` moves a transaction's block before the record's second. */
export const MOVED_MAX_S = 600;

/** The record's block time; a seeded difference puts its transaction in a block up to ten minutes earlier. */
const blockTime = (x: LayoutContext, r: Rec): number => x.t.number('timestamp', r.timestamp, -(1 + (x.roll('moved') % MOVED_MAX_S)));

/** The fields of a transfer record that its leg carries, as the chain holds them; `feePercentage`: the fee account's. */
function transferFields(x: LayoutContext, r: Rec, feePercentage: bigint) {
  const { t } = x;
  const token = t.token('token', r.token);
  const amount = t.amount('amount', r.amount, token);
  const charged = t.feePercentage('fee', r.fee, amount, token, feePercentage);
  return { token, amount, feePercentage: charged, sender: t.address('sender', r.sender), receiver: t.address('receiver', r.receiver) };
}

const autobilled = (x: LayoutContext): boolean => x.roll('autobilled') / 2 ** 32 < AUTOBILLED_SHARE;

/** The Biller's transaction: each subscription's logs in turn (the record's at its place), then `Bill`. */
function billerLogs(x: LayoutContext, from: Address, planId: Hex, own: { id: Hex; logs: Log[] }, others: { id: Hex; logs: Log[] }[], at: number): Log[] {
  const batch = [...others.slice(0, at), own, ...others.slice(at)];
  const subscriptionIds = batch.map((b) => b.id);
  const bill = x.log(x.contracts.biller, 'bill', { executor: from, planId, subscriptionIds, gasUsed: 90_000n * BigInt(batch.length), gasFee: 3_000_000_000n * 90_000n * BigInt(batch.length) });
  return [...batch.flatMap((b) => b.logs), bill];
}

const fixedRecurringBilling: Layout = (r, x) => {
  const { t } = x;
  const sub = lifecycleOf(x.world, r.subscriptionId);
  const planId = t.id('planId', sub.plan.id);
  const subscriptionId = t.id('subscriptionId', r.subscriptionId);
  const success = t.number('success', r.success, r.success === 1 ? -1 : 1);
  const token = t.token('token', r.token);
  const amount = t.amount('amount', r.amount, token);
  // The plan's admin is the fee account. A failed transfer takes no fee (TransferFailed has no feePercentage).
  const planFee = x.world.feePercentage(sub.plan.receiver);
  const feePercentage = success === 1 ? t.feePercentage('fee', r.fee, amount, token, planFee) : 0n;
  const receiver = t.address('receiver', r.receiver);
  const cycleStart = BigInt(t.number('cycleStart', r.cycleStart, DAY));
  const cycleEnd = BigInt(t.number('cycleEnd', r.cycleEnd, DAY));
  const from = t.address('triggeredBy', r.triggeredBy);
  const timestamp = blockTime(x, r);
  const sender = wallet(sub.subscriber);
  const money = { token, sender, receiver, amount, paymentType: PAYMENT_TYPES.fixedRecurring, metadata: subscriptionId };
  const base = { from, value: 0n, timestamp, status: r.transactionStatus as string };

  if (isSubscribe(sub, r)) {
    const c = x.contracts.fixedRecurringSubscriptions;
    const logs = [
      ...leg(x, { ...money, feePercentage }),
      x.log(c, 'subscription', { planId, subscriptionId, account: sender }),
      x.log(c, 'fixedBilling', { planId, subscriptionId, cycleStart, cycleEnd }),
    ];
    return { ...base, to: c, input: call('subscribe', [planId]), logs };
  }
  const m = x.contracts.fixedRecurringManagement;
  const own =
    success === 1
      ? [...leg(x, { ...money, feePercentage }), x.log(m, 'fixedBilling', { planId, subscriptionId, cycleStart, cycleEnd })]
      : [failedLeg(x, money), x.log(m, 'fixedBillingFailed', { planId, subscriptionId })];
  if (!autobilled(x)) return { ...base, to: m, input: call('bill', [subscriptionId]), logs: own };
  const { ids, at } = batchOf(x, 'fixed-recurring', r.subscriptionId, sub.plan.id);
  const others = ids.map((id) => {
    const other = lifecycleOf(x.world, id);
    const otherId = id as Hex;
    const logs = [
      ...leg(x, { ...money, sender: wallet(other.subscriber), metadata: otherId, feePercentage: planFee }),
      x.log(m, 'fixedBilling', { planId, subscriptionId: otherId, cycleStart: BigInt(timestamp), cycleEnd: BigInt(timestamp + sub.plan.period - 1) }),
    ];
    return { id: otherId, logs };
  });
  return { ...base, to: x.contracts.biller, input: call('billPlan', [planId, [...ids, subscriptionId]]), logs: billerLogs(x, from, planId, { id: subscriptionId, logs: own }, others, at) };
};

const fixedRecurringCancellation: Layout = (r, x) => {
  const { t } = x;
  const sub = lifecycleOf(x.world, r.subscriptionId);
  const planId = t.id('planId', sub.plan.id);
  const subscriptionId = t.id('subscriptionId', r.subscriptionId);
  const forced = t.flag('forced', r.forced);
  const from = t.address('triggeredBy', r.triggeredBy);
  const timestamp = blockTime(x, r);
  const c = forced ? x.contracts.fixedRecurringManagement : x.contracts.fixedRecurringSubscriptions;
  const log = x.log(c, forced ? 'subscriptionTerminated' : 'subscriptionCancelled', { planId, subscriptionId });
  return { from, to: c, value: 0n, input: call(forced ? 'terminate' : 'cancel', [subscriptionId]), timestamp, logs: [log], status: r.transactionStatus };
};

const variableRecurringCancellation: Layout = (r, x) => {
  const { t } = x;
  const sub = subscriptionOf(x.world, r.subscriptionId);
  const plan = x.world.plan(sub.planId)!;
  const planId = t.id('planId', sub.planId);
  const subscriptionId = t.id('subscriptionId', r.subscriptionId);
  const forced = t.flag('forced', r.forced);
  const from = t.address('triggeredBy', r.triggeredBy);
  const timestamp = blockTime(x, r);
  const m = x.contracts.variableRecurringManagement;
  const base = { from, to: m, value: 0n, timestamp, status: r.transactionStatus as string };
  if (forced) return { ...base, input: call('terminate', [subscriptionId]), logs: [x.log(m, 'subscriptionTerminated', { planId, subscriptionId })] };
  // Not forced: the cycle in progress is billed, then the subscription ends.
  const token = tokenOf(x.chain, plan.token);
  const amount = toUnits(plan.amount, token.decimals);
  const logs = [
    ...leg(x, { token, sender: wallet(sub.subscriber), receiver: wallet(plan.receiver), amount, feePercentage: x.world.feePercentage(plan.receiver), paymentType: PAYMENT_TYPES.variableRecurring, metadata: subscriptionId }),
    x.log(m, 'variableBilling', { planId, subscriptionId, amount, cycleStart: BigInt(timestamp - plan.period + 1), cycleEnd: BigInt(timestamp) }),
    x.log(m, 'subscriptionCancelled', { planId, subscriptionId }),
  ];
  return { ...base, input: call('cancel', [subscriptionId]), logs };
};

const cancellationRequest: Layout = (r, x) => {
  const { t } = x;
  const sub = subscriptionOf(x.world, r.subscriptionId);
  const planId = t.id('planId', sub.planId);
  const subscriptionId = t.id('subscriptionId', r.subscriptionId);
  const timestamp = blockTime(x, r);
  const c = x.contracts.variableRecurringSubscriptions;
  const logs = [x.log(c, 'subscriptionCancellationRequested', { planId, subscriptionId })];
  return { from: wallet(sub.subscriber), to: c, value: 0n, input: call('requestCancellation', [subscriptionId]), timestamp, logs, status: r.transactionStatus };
};

/** A variable-recurring or on-demand transfer: a keeper bills the subscription (alone, or with others of its plan through the Biller). */
function subscriptionTransfer(product: 'variable-recurring' | 'on-demand'): Layout {
  return (r, x) => {
    const { t } = x;
    const plan = x.world.plan(r.planId)!;
    const planFee = x.world.feePercentage(plan.receiver);
    const { token, amount, feePercentage, sender, receiver } = transferFields(x, r, planFee);
    const planId = t.id('planId', r.planId);
    const subscriptionId = t.id('subscriptionId', r.subscriptionId);
    const timestamp = blockTime(x, r);
    const from = wallet(pick(x.world.operators, x.roll('keeper')));
    const variable = product === 'variable-recurring';
    const m = variable ? x.contracts.variableRecurringManagement : x.contracts.onDemandManagement;
    const paymentType = variable ? PAYMENT_TYPES.variableRecurring : PAYMENT_TYPES.onDemand;
    // A variable-recurring billing covers the cycle that just ended.
    const billing = (id: Hex, value: bigint): Log =>
      variable
        ? x.log(m, 'variableBilling', { planId, subscriptionId: id, amount: value, cycleStart: BigInt(timestamp - plan.period), cycleEnd: BigInt(timestamp - 1) })
        : x.log(m, 'onDemandBilling', { planId, subscriptionId: id, amount: value });
    const own = [...leg(x, { token, sender, receiver, amount, feePercentage, paymentType, metadata: subscriptionId }), billing(subscriptionId, amount)];
    const base = { from, value: 0n, timestamp, status: r.transactionStatus as string };
    if (!autobilled(x)) return { ...base, to: m, input: call('bill', [subscriptionId]), logs: own };
    const { ids, at } = batchOf(x, product, r.subscriptionId, r.planId);
    const others = ids.map((id) => {
      const other = subscriptionOf(x.world, id);
      const value = toUnits(plan.amount, token.decimals);
      const otherId = id as Hex;
      const logs = [
        ...leg(x, { token, sender: wallet(other.subscriber), receiver, amount: value, feePercentage: planFee, paymentType, metadata: otherId }),
        billing(otherId, value),
      ];
      return { id: otherId, logs };
    });
    return { ...base, to: x.contracts.biller, input: call('billPlan', [planId, [...ids, subscriptionId]]), logs: billerLogs(x, from, planId, { id: subscriptionId, logs: own }, others, at) };
  };
}

interface OneTimeShape {
  receivers: { user: string; amount: string; fee: string }[];
  /** The §9 names of receiver i's fields. */
  names: (i: number) => { user: string; amount: string; fee: string };
  /** A payment lists its receivers (their count is a field); a transfer is one. */
  listed: boolean;
  /** The payment's tag (a transfer's is its payment's, by oneTimeId). */
  tag: string;
}

/** A one-time payment: one leg per receiver, then Payment and a Receiver per receiver (ONCHAIN.md §7). */
function oneTime(x: LayoutContext, r: Rec, shape: OneTimeShape): Omit<Draft, 'status'> {
  const { t } = x;
  const { receivers } = shape;
  const sender = t.address('sender', r.sender);
  const token = t.token('token', r.token);
  const tag = t.tag('tag', shape.tag);
  const description = t.text('description', r.description);
  const category = t.text('category', r.category);
  const count = shape.listed ? t.count('receivers', receivers.length) : receivers.length;
  const paid: { user: Address; amount: bigint; feePercentage: bigint }[] = [];
  for (let i = 0; i < count; i++) {
    if (i < receivers.length) {
      const names = shape.names(i);
      const amount = t.amount(names.amount, receivers[i].amount, token);
      paid.push({ user: t.address(names.user, receivers[i].user), amount, feePercentage: t.feePercentage(names.fee, receivers[i].fee, amount, token, BASE_FEE) });
    } else {
      // A receiver the API does not list (a seeded difference of the count).
      paid.push({ user: walletOf(`receiver ${r.transactionHash}`), amount: toUnits('1', token.decimals), feePercentage: BASE_FEE });
    }
  }
  const timestamp = blockTime(x, r);
  const c = x.contracts.oneTime;
  const legs = paid.flatMap((p) =>
    leg(x, { token, sender, receiver: p.user, amount: p.amount, feePercentage: p.feePercentage, paymentType: PAYMENT_TYPES.oneTime, metadata: zeroHash }),
  );
  const logs = [
    ...legs,
    x.log(c, 'payment', { sender, tag, token: token.address, description, category }),
    ...paid.map((p) => x.log(c, 'receiver', { account: p.user, amount: p.amount })),
  ];
  const total = paid.reduce((sum, p) => sum + p.amount, 0n);
  return { from: sender, to: c, value: token.native ? total : 0n, input: call('pay', [tag, token.address, total]), timestamp, logs };
}

const oneTimePayment: Layout = (r, x) => {
  const names = (i: number) => ({ user: `receivers[${i}].user`, amount: `receivers[${i}].amount`, fee: `receivers[${i}].fee` });
  return { ...oneTime(x, r, { receivers: r.receivers, names, listed: true, tag: r.tag }), status: r.transactionStatus };
};

// A transfer is a one-receiver payment with its payment's tag (ONCHAIN.md §7): its oneTimeId names the payment.
// One that names no payment of the chain (a record posted so) carries an empty tag, noted as a difference.
const oneTimeTransfer: Layout = (r, x) => {
  const names = () => ({ user: 'receiver', amount: 'amount', fee: 'fee' });
  const tag = x.paymentTag(String(r.oneTimeId));
  if (tag === undefined) x.t.unknownPayment('tag', String(r.oneTimeId), keccak256(stringToHex('')));
  return { ...oneTime(x, r, { receivers: [{ user: r.receiver, amount: r.amount, fee: r.fee }], names, listed: false, tag: tag ?? '' }), status: r.transactionStatus };
};

/** A wallet-to-wallet payment to one receiver: the payment's intermediary wallet sends it the gross amount, no 8pay contract involved. */
function walletToWallet(x: LayoutContext, paymentId: string, symbol: string, user: { field: string; api: string }, amountOf: { field: string; api: string }, timestamp: number, status: string): Draft {
  const { t } = x;
  const token = t.token('token', symbol);
  const to = t.address(user.field, user.api);
  const amount = t.amount(amountOf.field, amountOf.api, token);
  const from = walletOf(`intermediary ${paymentId.toLowerCase()}`);
  if (token.native) return { from, to, value: amount, input: '0x', timestamp, logs: [], status };
  const logs = [x.log(token.address, 'erc20Transfer', { from, to, value: amount })];
  return { from, to: token.address, value: 0n, input: call('transfer', [to, amount]), timestamp, logs, status };
}

const walletToWalletPayment: Layout = (r, x, i) => {
  const receiver = r.receivers[i];
  return walletToWallet(x, r.id, r.token, { field: `receivers[${i}].user`, api: receiver.user }, { field: `receivers[${i}].amount`, api: receiver.amount }, receiver.timestamp, receiver.transactionStatus);
};

const walletToWalletTransfer: Layout = (r, x) => {
  const timestamp = blockTime(x, r);
  return walletToWallet(x, r.payment_id, r.token, { field: 'receiver', api: r.receiver }, { field: 'amount', api: r.amount }, timestamp, r.transactionStatus);
};

const scheduledTransfer: Layout = (r, x) => {
  const { t } = x;
  const { token, amount, feePercentage, sender, receiver } = transferFields(x, r, BASE_FEE);
  const scheduleId = t.id('scheduleId', r.scheduleId);
  const timestamp = blockTime(x, r);
  const c = x.contracts.scheduledPayments;
  const logs = [
    ...leg(x, { token, sender, receiver, amount, feePercentage, paymentType: PAYMENT_TYPES.scheduledPayments, metadata: scheduleId }),
    x.log(c, 'scheduleExecuted', { id: scheduleId }),
  ];
  return { from: wallet(pick(x.world.operators, x.roll('keeper'))), to: c, value: 0n, input: call('execute', [scheduleId]), timestamp, logs, status: r.transactionStatus };
};

/** A strategy's owner: the API does not say; one of the payers, the same for every execution of it. */
const ownerOf = (x: LayoutContext, strategyId: string): Address =>
  wallet(pick(x.world.payers, Number.parseInt(keccak256(stringToHex(strategyId.toLowerCase())).slice(2, 10), 16)));

const execution: Layout = (r, x) => {
  const { t } = x;
  const strategyId = t.id('strategyId', r.strategyId);
  const input = t.token('inputToken', r.inputToken);
  const count = t.count('swaps', r.swaps.length);
  const inputAmounts: bigint[] = [];
  const outputTokens: Address[] = [];
  const outputAmounts: bigint[] = [];
  for (let i = 0; i < count; i++) {
    const swap = r.swaps[i] ?? r.swaps[0];
    const extra = i >= r.swaps.length;
    const outputToken = extra ? tokenOf(x.chain, swap.outputToken) : t.token(`swaps[${i}].outputToken`, swap.outputToken);
    inputAmounts.push(extra ? toUnits(swap.inputAmount, input.decimals) : t.amount(`swaps[${i}].inputAmount`, swap.inputAmount, input));
    outputTokens.push(outputToken.address);
    outputAmounts.push(extra ? toUnits(swap.outputAmount, outputToken.decimals) : t.amount(`swaps[${i}].outputAmount`, swap.outputAmount, outputToken));
  }
  // The fee is taken on the sum of the swaps' inputs (ONCHAIN.md §8).
  const amount = inputAmounts.reduce((sum, a) => sum + a, 0n);
  const feePercentage = t.feePercentage('fee', r.fee, amount, input, BASE_FEE);
  const timestamp = blockTime(x, r);
  const c = x.contracts.dollarCostAverage;
  const logs = [
    ...leg(x, { token: input, sender: ownerOf(x, r.strategyId), receiver: c, amount, feePercentage, paymentType: PAYMENT_TYPES.dollarCostAverage, metadata: strategyId }),
    x.log(c, 'strategyExecuted', { id: strategyId, inputToken: input.address, inputAmounts, outputTokens, outputAmounts }),
  ];
  return { from: wallet(pick(x.world.operators, x.roll('keeper'))), to: c, value: 0n, input: call('execute', [strategyId]), timestamp, logs, status: r.transactionStatus };
};

/** Every collection whose records are transactions, keyed by the registry's `collection`. */
export const LAYOUTS: Record<string, Layout> = {
  'fixed-recurring/billings': fixedRecurringBilling,
  'fixed-recurring/cancellations': fixedRecurringCancellation,
  'variable-recurring/cancellations': variableRecurringCancellation,
  'variable-recurring/cancellation-requests': cancellationRequest,
  'variable-recurring/transfers': subscriptionTransfer('variable-recurring'),
  'on-demand/transfers': subscriptionTransfer('on-demand'),
  'one-time/payments': oneTimePayment,
  'one-time/transfers': oneTimeTransfer,
  'wallet-to-wallet/payments': walletToWalletPayment,
  'wallet-to-wallet/transfers': walletToWalletTransfer,
  'scheduled-payments/transfers': scheduledTransfer,
  'dollar-cost-average/executions': execution,
};

export const TRANSACTION_COLLECTIONS = Object.keys(LAYOUTS);

/**
 * The transactions of a record: its own, or one per receiver for a wallet-to-wallet
 * payment (each receiver is paid by a transaction of its own).
 */
export function transactionsOf(collection: string, r: Rec): { hash: string; receiver: number }[] {
  if (collection === 'wallet-to-wallet/payments') return (r.receivers as Rec[]).map((x, receiver) => ({ hash: x.transactionHash as string, receiver }));
  return [{ hash: r.transactionHash as string, receiver: 0 }];
}
