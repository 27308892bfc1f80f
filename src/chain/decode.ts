import { decodeEventLog, keccak256, stringToHex, toEventSelector, type AbiEvent, type Address, type Hex } from 'viem';
import { NodeAnswerError, type Block, type Log, type Receipt, type Transaction } from './answers.js';
import { CONTRACTS, EVENTS, FORMER_BILLERS, PAYMENT_TYPE_NAMES, type ChainSlug, type Contracts } from './model.js';
import { listedAddress, NATIVE } from './tokens.js';
import type { VERIFIABLE } from './verifiable.js';

// The pure decoder: a transaction's receipt (and block, and for the native coin the
// transaction) read with ONCHAIN.md's model, as the facts one API record can be held
// against (§2, §7). Logs count only from the contract that emits them for 8pay, keyed
// by chain (§3); the same event from any other address is a look-alike (`spoofed`).
// One transaction can bill several subscriptions: logs are matched by subscriptionId
// (and receiver, schedule, strategy), never by position alone. viem decodes every log;
// nothing here parses ABI words or hex by hand. No field is compared here: verdict.ts
// holds these facts against the API record.

/** What the chain says about one field of the API record, named as ONCHAIN.md §9 names it. */
export type Fact =
  /** An amount in base units, held against the API's decimal text in the decimals of the token named at `token` (an API path). */
  | { field: string; kind: 'amount'; chain: bigint; token: string }
  /** An address, a bytes32, a string; `token`: a token's address, held against the API's symbol. */
  | { field: string; kind: 'address' | 'bytes32' | 'text' | 'token'; chain: string }
  /** keccak256 of the API's UTF-8 text (a one-time payment's tag). */
  | { field: string; kind: 'tag'; chain: string }
  | { field: string; kind: 'number'; chain: bigint }
  | { field: string; kind: 'boolean'; chain: boolean }
  /** The length of an API array (receivers, swaps). */
  | { field: string; kind: 'count'; chain: number }
  /** A value the model expects whatever the API says (a leg's paymentType). */
  | { field: string; kind: 'expected'; chain: string; expected: string };

/** An event the record's transaction must carry: from 8pay's contract (`yes`), only from another address (`spoofed`), or not at all. */
export interface ExpectedEvent {
  name: string;
  found: 'yes' | 'spoofed' | 'absent';
  /** Spoofed: 8pay's contract that should have emitted it, and the look-alike that did (lower case). */
  emitter?: { expected: Address; chain: Address };
}

export interface ChainView {
  /** null: the node has no receipt (pending in the mempool, or no such transaction). */
  receipt: null | { blockNumber: bigint; blockHash: Hex; status: 'success' | 'reverted' };
  /** Without a receipt: whether the node has the transaction (pending in its mempool); undefined when not asked. */
  transactionAtNode?: boolean;
  /** The hash of the canonical block at the receipt's height; null when the node has none there. */
  canonicalHash: Hex | null;
  events: ExpectedEvent[];
  facts: Fact[];
}

/** One thing to verify: an API record of a collection; a wallet-to-wallet payment is one per receiver (each its own transaction). */
export interface Subject {
  /** The registry's collection, such as `one-time/transfers`. */
  collection: string;
  record: Record<string, unknown>;
  /** wallet-to-wallet payments: the index of the receiver in `record.receivers`. */
  receiver?: number;
  /** The plan of the route the record was read through (billings, cancellations and requests carry none). */
  planId?: string;
  /** One-time transfers: the tag of the payment its oneTimeId names (§7), null when no such payment is known; undefined: not looked up. */
  paymentTag?: string | null;
  /** Why paymentTag is null, said beside the tag difference (the API knows no such payment; the mirror lacks it). */
  noPayment?: string;
}

export interface Evidence {
  receipt: Receipt | null;
  /** The canonical block at the receipt's height (null: the node has none; undefined: not read). */
  block?: Block | null;
  /** The transaction itself, read for the native coin (its `value` and `to`). */
  transaction?: Transaction | null;
}

/** What the chain's contracts answered once per run (eth_call). */
export interface ChainContext {
  chain: ChainSlug;
  /** Transfers.feeCollector(): where every non-zero fee goes. */
  feeCollector?: Address;
  /** PAYMENT_TYPE() of the product contracts whose paymentType §8 only presumes. */
  paymentTypes: { scheduledPayments?: Hex; dollarCostAverage?: Hex };
  /** The contract of an API token symbol by 8pay's list (NATIVE for the native coin); undefined when the list does not know it. */
  tokenAddress(symbol: unknown): Address | undefined;
}

export function decode(subject: Subject, evidence: Evidence, ctx: ChainContext): ChainView {
  const { receipt } = evidence;
  if (!receipt) return { receipt: null, transactionAtNode: evidence.transaction === undefined ? undefined : evidence.transaction !== null, canonicalHash: null, events: [], facts: [] };
  const base = {
    receipt: { blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, status: receipt.status },
    canonicalHash: evidence.block ? evidence.block.hash : null,
  };
  // A reverted transaction has no logs (§6): only who sent it to which contract can be held against a failed record (§9 rule 5).
  if (receipt.status === 'reverted') return { ...base, events: [], facts: sentBy(subject, receipt, ctx) };
  const reader = DECODERS[subject.collection as (typeof VERIFIABLE)[number]];
  if (!reader) throw new Error(`no decoder for ${subject.collection}`);
  const out = new Out();
  const r = new Reading(receipt, ctx, out);
  reader(subject, r, evidence);
  if (evidence.block) out.fact({ field: subject.receiver === undefined ? 'timestamp' : `receivers[${subject.receiver}].timestamp`, kind: 'number', chain: evidence.block.timestamp });
  return { ...base, events: out.events, facts: out.facts };
}

// ---------------------------------------------------------------------------
// A reverted transaction (§9 rule 5): a failed record's own only when it was sent to
// 8pay's contract of that collection (§7's "from → to"), by the record's triggeredBy
// or, for one-time payments, its sender. Another reverted transaction proves nothing.

type ContractsOf = (c: Record<keyof Contracts, Address>, chain: ChainSlug) => readonly Address[];
const billed = (c: Record<keyof Contracts, Address>, chain: ChainSlug) => [c.biller, ...FORMER_BILLERS[chain].map((a) => a.toLowerCase() as Address)];

/** The contracts a transaction of each collection is sent to (§7); wallet-to-wallet: the token's (or, native, the user). */
const SENT_TO: Record<Exclude<(typeof VERIFIABLE)[number], `wallet-to-wallet/${string}`>, ContractsOf> = {
  'fixed-recurring/billings': (c, chain) => [c.fixedRecurringManagement, c.fixedRecurringSubscriptions, ...billed(c, chain)],
  'fixed-recurring/cancellations': (c) => [c.fixedRecurringSubscriptions, c.fixedRecurringManagement],
  'variable-recurring/cancellations': (c) => [c.variableRecurringManagement],
  'variable-recurring/cancellation-requests': (c) => [c.variableRecurringSubscriptions],
  'variable-recurring/transfers': (c, chain) => [c.variableRecurringManagement, ...billed(c, chain)],
  'on-demand/transfers': (c, chain) => [c.onDemandManagement, ...billed(c, chain)],
  'one-time/payments': (c) => [c.oneTime],
  'one-time/transfers': (c) => [c.oneTime],
  'scheduled-payments/transfers': (c) => [c.scheduledPayments],
  'dollar-cost-average/executions': (c) => [c.dollarCostAverage],
};

function sentBy(s: Subject, receipt: Receipt, ctx: ChainContext): Fact[] {
  const facts: Fact[] = [];
  const to = receipt.to ?? '(none)';
  const contracts = Object.fromEntries(Object.entries(CONTRACTS[ctx.chain]).map(([k, a]) => [k, a.toLowerCase()])) as Record<keyof Contracts, Address>;
  let allowed: readonly string[];
  if (s.collection.startsWith('wallet-to-wallet/')) {
    const token = ctx.tokenAddress(s.record.token);
    // A token the list does not know: the contract the transaction went to is the token (as a mined Transfer's emitter is), a difference.
    if (token === undefined) facts.push({ field: 'token', kind: 'token', chain: to });
    const user = lower(valueAt(s.record, s.receiver === undefined ? 'receiver' : `receivers[${s.receiver}].user`));
    allowed = token === NATIVE ? (user ? [user] : []) : token ? [token] : [];
  } else {
    allowed = SENT_TO[s.collection as keyof typeof SENT_TO](contracts, ctx.chain);
  }
  // The first allowed contract names what was expected, unless the transaction went to another allowed one.
  if (allowed.length > 0) facts.push({ field: 'to', kind: 'expected', chain: to, expected: allowed.includes(to) ? to : allowed[0] });
  const by = s.record.triggeredBy !== undefined ? 'triggeredBy' : s.collection.startsWith('one-time/') ? 'sender' : undefined;
  if (by) facts.push({ field: by, kind: 'address', chain: receipt.from });
  return facts;
}

// ---------------------------------------------------------------------------
// Reading a receipt's logs.

class Out {
  readonly events: ExpectedEvent[] = [];
  readonly facts: Fact[] = [];
  event(name: string, found: ExpectedEvent['found'], emitter?: ExpectedEvent['emitter']): void {
    this.events.push(emitter ? { name, found, emitter } : { name, found });
  }
  fact(f: Fact): void {
    this.facts.push(f);
  }
}

type Args = Record<string, unknown>;

interface Found {
  found: ExpectedEvent['found'];
  args?: Args;
  emitter?: ExpectedEvent['emitter'];
}

const lower = (v: unknown): string | undefined => (typeof v === 'string' ? v.toLowerCase() : undefined);
const same = (a: unknown, b: unknown): boolean => lower(a) !== undefined && lower(a) === lower(b);
const ZERO32 = `0x${'0'.repeat(64)}` as Hex;
const paymentType = (name: string) => keccak256(stringToHex(name));
const PAYMENT_TYPES = {
  oneTime: paymentType(PAYMENT_TYPE_NAMES.oneTime),
  fixedRecurring: paymentType(PAYMENT_TYPE_NAMES.fixedRecurring),
  variableRecurring: paymentType(PAYMENT_TYPE_NAMES.variableRecurring),
  onDemand: paymentType(PAYMENT_TYPE_NAMES.onDemand),
  scheduledPayments: paymentType(PAYMENT_TYPE_NAMES.scheduledPayments),
  dollarCostAverage: paymentType(PAYMENT_TYPE_NAMES.dollarCostAverage),
};
const SELECTORS = new Map<AbiEvent, Hex>(Object.values(EVENTS).map((e) => [e as AbiEvent, toEventSelector(e as AbiEvent)]));

class Reading {
  /** The receipt's own logs (a log of another transaction or block, or one removed by a reorg, is none of its). */
  private readonly logs: Log[];
  readonly contracts: Record<keyof Contracts, Address>;

  constructor(
    readonly receipt: Receipt,
    readonly ctx: ChainContext,
    readonly out: Out,
  ) {
    this.logs = receipt.logs.filter(
      (l) => l.removed !== true && (l.transactionHash === null || l.transactionHash === receipt.transactionHash) && (l.blockHash === null || l.blockHash === receipt.blockHash),
    );
    this.contracts = Object.fromEntries(Object.entries(CONTRACTS[ctx.chain]).map(([k, a]) => [k, a.toLowerCase()])) as Record<keyof Contracts, Address>;
  }

  /** Every log of `event`, decoded, with its emitter, in log order. Undecodable logs from others are noise; from 8pay's own emitter, a node fault. */
  all(event: AbiEvent, emitters: readonly Address[]): { address: Address; args: Args }[] {
    const topic0 = SELECTORS.get(event)!;
    const found: { address: Address; args: Args }[] = [];
    for (const log of this.logs) {
      if (log.topics[0] !== topic0) continue;
      const args = this.decoded(log, event);
      if (args) found.push({ address: log.address, args });
      else if (emitters.includes(log.address)) throw new NodeAnswerError(`a ${event.name} log from 8pay's contract ${log.address} that does not decode (transaction ${this.receipt.transactionHash})`);
    }
    return found;
  }

  /** Each log decoded once (a leg asks for the same ERC-20 Transfers twice): null when it does not decode as `event`. */
  private readonly decodedLogs = new Map<Log, { event: AbiEvent; args: Args | null }>();
  private decoded(log: Log, event: AbiEvent): Args | null {
    const kept = this.decodedLogs.get(log);
    if (kept?.event === event) return kept.args;
    let args: Args | null;
    try {
      args = decodeEventLog({ abi: [event], data: log.data, topics: log.topics as [Hex, ...Hex[]], strict: true }).args as Args;
    } catch {
      args = null;
    }
    this.decodedLogs.set(log, { event, args });
    return args;
  }

  /**
   * The record's own `event`: the one from 8pay's `emitters` that `mine` picks; failing
   * that, `spoofed` when another address emitted one that `mine` picks (§9 puts spoofed
   * before mismatch); failing that (unless `exact`), the only one 8pay's emitted (its
   * fields then tell what differs), else `absent`. Said as an expected event of the record.
   */
  find(name: string, event: AbiEvent, emitters: readonly Address[], mine: (args: Args) => boolean, exact = false): Found {
    const found = this.peek(event, emitters, mine, exact);
    this.out.event(name, found.found, found.emitter);
    return found;
  }

  /** Like find, without saying anything yet: for events of which one of two is expected. */
  peek(event: AbiEvent, emitters: readonly Address[], mine: (args: Args) => boolean, exact = false): Found {
    const all = this.all(event, emitters);
    const own = all.filter((x) => emitters.includes(x.address));
    const picked = own.find((x) => mine(x.args));
    if (picked) return { found: 'yes', args: picked.args };
    const lookAlike = all.find((x) => mine(x.args));
    if (lookAlike) return { found: 'spoofed', emitter: { expected: emitters[0], chain: lookAlike.address } };
    return own.length === 1 && !exact ? { found: 'yes', args: own[0].args } : { found: 'absent' };
  }

  fact(f: Fact): void {
    this.out.fact(f);
  }
}

// ---------------------------------------------------------------------------
// The leg every payment makes through Transfers (§2): [fee Transfer], net Transfer,
// TransferSuccessful; or TransferFailed, which moves nothing.

interface LegFields {
  amount?: string;
  fee?: string;
  token?: string;
  sender?: string;
  receiver?: string;
  /** The API path of the token whose decimals the amount and fee take (default `token`). */
  decimalsOf?: string;
}

function leg(r: Reading, o: { mine: (args: Args) => boolean; paymentType: Hex | undefined; failed?: boolean; fields: LegFields }): Args | undefined {
  const event = o.failed ? EVENTS.transferFailed : EVENTS.transferSuccessful;
  const found = r.find(event.name, event, [r.contracts.transfers], o.mine);
  const args = found.args;
  if (!args) return undefined;
  const f = o.fields;
  const decimalsOf = f.decimalsOf ?? 'token';
  const amount = args.amount as bigint;
  if (f.amount) r.fact({ field: f.amount, kind: 'amount', chain: amount, token: decimalsOf });
  if (f.token) r.fact({ field: f.token, kind: 'token', chain: lower(args.token)! });
  if (f.sender) r.fact({ field: f.sender, kind: 'address', chain: lower(args.sender)! });
  if (f.receiver) r.fact({ field: f.receiver, kind: 'address', chain: lower(args.receiver)! });
  if (o.paymentType) r.fact({ field: 'paymentType', kind: 'expected', chain: lower(args.paymentType)!, expected: o.paymentType.toLowerCase() });
  if (o.failed) return args;
  const fee = (amount * (args.feePercentage as bigint)) / 10_000n;
  // Stryker disable next-line ConditionalExpression: every leg that pays names its fee's field (only a failed leg has none, and it returned above)
  if (f.fee) r.fact({ field: f.fee, kind: 'amount', chain: fee, token: decimalsOf });
  tokenMoves(r, args, fee);
  return args;
}

/** An ERC-20 leg's money moves by the token's own Transfer events: the net to the receiver, the fee to the fee collector. The native coin has none (§5). */
function tokenMoves(r: Reading, args: Args, fee: bigint): void {
  const token = lower(args.token) as Address;
  if (token === NATIVE) return;
  const moved = (to: unknown, value: bigint) => (a: Args) => same(a.from, args.sender) && same(a.to, to) && a.value === value;
  r.find('Transfer (net, token)', EVENTS.erc20Transfer, [token], moved(args.receiver, (args.amount as bigint) - fee), true);
  if (fee > 0n) r.find('Transfer (fee, token)', EVENTS.erc20Transfer, [token], moved(r.ctx.feeCollector, fee), true);
}

// ---------------------------------------------------------------------------
// One reader per collection (§7).

type Reader = (s: Subject, r: Reading, e: Evidence) => void;

const subscriptionOf = (s: Subject) => (a: Args) => same(a.subscriptionId, s.record.subscriptionId);

/** Facts of a Billing-like event: its subscription and plan. */
function keys(r: Reading, args: Args | undefined): void {
  if (!args) return;
  r.fact({ field: 'subscriptionId', kind: 'bytes32', chain: lower(args.subscriptionId)! });
  r.fact({ field: 'planId', kind: 'bytes32', chain: lower(args.planId)! });
}

const triggeredBy = (r: Reading) => r.fact({ field: 'triggeredBy', kind: 'address', chain: r.receipt.from });

/**
 * Which of two kinds of event is the record's (paid or failed, terminated or cancelled): its
 * own from 8pay; failing that, its own from a look-alike (spoofed: §9 puts it before mismatch);
 * failing that, another record's that is the only one of its kind; failing that, what the API says.
 */
function firstIsOwn(mine: (a: Args) => boolean, first: Found, second: Found, apiSaysFirst: boolean): boolean {
  const rank = (x: Found) => (x.found === 'spoofed' ? 2 : x.found === 'absent' ? 0 : mine(x.args!) ? 3 : 1);
  return rank(first) > rank(second) || (rank(first) === rank(second) && apiSaysFirst);
}

const fixedBilling: Reader = (s, r) => {
  const c = r.contracts;
  const mine = subscriptionOf(s);
  const emitters = [c.fixedRecurringManagement, c.fixedRecurringSubscriptions];
  const paid = r.peek(EVENTS.fixedBilling, emitters, mine);
  const unpaid = r.peek(EVENTS.fixedBillingFailed, [c.fixedRecurringManagement], mine);
  const metadata = (a: Args) => same(a.metadata, s.record.subscriptionId);
  const fields = { amount: 'amount', token: 'token', receiver: 'receiver' };
  triggeredBy(r);
  // An autobilled transaction bills several subscriptions: paid or failed by the record's own event.
  const isPaid = firstIsOwn(mine, paid, unpaid, s.record.success !== 0);
  if (isPaid) {
    r.out.event('Billing', paid.found, paid.emitter);
    if (paid.found !== 'yes') return;
    r.fact({ field: 'success', kind: 'number', chain: 1n });
    keys(r, paid.args);
    r.fact({ field: 'cycleStart', kind: 'number', chain: paid.args!.cycleStart as bigint });
    r.fact({ field: 'cycleEnd', kind: 'number', chain: paid.args!.cycleEnd as bigint });
    leg(r, { mine: metadata, paymentType: PAYMENT_TYPES.fixedRecurring, fields: { ...fields, fee: 'fee' } });
    return;
  }
  r.out.event('BillingFailed', unpaid.found, unpaid.emitter);
  if (unpaid.found !== 'yes') return;
  r.fact({ field: 'success', kind: 'number', chain: 0n });
  keys(r, unpaid.args);
  leg(r, { mine: metadata, paymentType: PAYMENT_TYPES.fixedRecurring, failed: true, fields });
};

/** A cancellation: SubscriptionCancelled (forced false) or SubscriptionTerminated (forced true), each from its contract. */
function cancellation(cancelledBy: (c: Record<keyof Contracts, Address>) => Address, terminatedBy: (c: Record<keyof Contracts, Address>) => Address): Reader {
  return (s, r) => {
    const mine = subscriptionOf(s);
    const cancelled = r.peek(EVENTS.subscriptionCancelled, [cancelledBy(r.contracts)], mine);
    const terminated = r.peek(EVENTS.subscriptionTerminated, [terminatedBy(r.contracts)], mine);
    triggeredBy(r);
    const forced = firstIsOwn(mine, terminated, cancelled, s.record.forced === true);
    const chosen = forced ? terminated : cancelled;
    r.out.event(forced ? 'SubscriptionTerminated' : 'SubscriptionCancelled', chosen.found, chosen.emitter);
    if (chosen.found !== 'yes') return;
    r.fact({ field: 'forced', kind: 'boolean', chain: forced });
    keys(r, chosen.args);
  };
}

const cancellationRequest: Reader = (s, r) => {
  const found = r.find('SubscriptionCancellationRequested', EVENTS.subscriptionCancellationRequested, [r.contracts.variableRecurringSubscriptions], subscriptionOf(s));
  keys(r, found.args);
};

function subscriptionTransfer(kind: 'variableRecurring' | 'onDemand'): Reader {
  return (s, r) => {
    const management = kind === 'variableRecurring' ? r.contracts.variableRecurringManagement : r.contracts.onDemandManagement;
    const billing = r.find('Billing', kind === 'variableRecurring' ? EVENTS.variableBilling : EVENTS.onDemandBilling, [management], subscriptionOf(s));
    keys(r, billing.args);
    leg(r, {
      mine: (a) => same(a.metadata, s.record.subscriptionId),
      paymentType: PAYMENT_TYPES[kind],
      fields: { amount: 'amount', fee: 'fee', token: 'token', sender: 'sender', receiver: 'receiver' },
    });
  };
}

/** The OneTime events of a payment: Payment, then a Receiver per receiver (§7). */
function oneTimeEvents(r: Reading, sender: unknown) {
  const oneTime = r.contracts.oneTime;
  const payment = r.find('Payment', EVENTS.payment, [oneTime], (a) => same(a.sender, sender));
  const all = r.all(EVENTS.receiver, [oneTime]);
  const receivers = all.filter((x) => x.address === oneTime).map((x) => x.args);
  r.out.event('Receiver', receivers.length > 0 ? 'yes' : all.length > 0 ? 'spoofed' : 'absent', receivers.length === 0 && all.length > 0 ? { expected: oneTime, chain: all[0].address } : undefined);
  if (payment.args) {
    const p = payment.args;
    r.fact({ field: 'sender', kind: 'address', chain: lower(p.sender)! });
    r.fact({ field: 'token', kind: 'token', chain: lower(p.token)! });
    r.fact({ field: 'description', kind: 'text', chain: p.description as string });
    r.fact({ field: 'category', kind: 'text', chain: p.category as string });
  }
  return { payment: payment.args, receivers };
}

/** The native coin moves as the transaction's value (§5): it must pay what the Receiver events say. */
function nativeValue(r: Reading, payment: Args | undefined, receivers: Args[], e: Evidence): void {
  if (!payment || lower(payment.token) !== NATIVE) return;
  const paid = receivers.reduce((sum, a) => sum + (a.amount as bigint), 0n);
  r.out.event('value = Σ Receiver amounts', e.transaction?.value === paid ? 'yes' : 'absent');
}

const oneTimePayment: Reader = (s, r, e) => {
  const { payment, receivers } = oneTimeEvents(r, s.record.sender);
  if (payment) r.fact({ field: 'tag', kind: 'tag', chain: lower(payment.tag)! });
  r.fact({ field: 'receivers', kind: 'count', chain: receivers.length });
  receivers.forEach((rec, i) => {
    r.fact({ field: `receivers[${i}].user`, kind: 'address', chain: lower(rec.account)! });
    r.fact({ field: `receivers[${i}].amount`, kind: 'amount', chain: rec.amount as bigint, token: 'token' });
    // Each receiver's leg pays that account (feePercentage 100, paymentType ONE_TIME, metadata 0),
    // and its amount is the money moved: held against the API's too (the only leg is picked by
    // position, and a Receiver event can say what the leg did not move).
    leg(r, {
      mine: (a) => same(a.receiver, rec.account) && a.amount === rec.amount && lower(a.metadata) === ZERO32,
      paymentType: PAYMENT_TYPES.oneTime,
      fields: { amount: `receivers[${i}].amount`, fee: `receivers[${i}].fee` },
    });
  });
  nativeValue(r, payment, receivers, e);
};

const oneTimeTransfer: Reader = (s, r, e) => {
  const { payment, receivers } = oneTimeEvents(r, s.record.sender);
  // Its Payment carries its payment's tag (§7): a transfer linked to another payment differs here.
  if (payment) r.fact({ field: 'tag', kind: 'tag', chain: lower(payment.tag)! });
  const rec = receivers.find((a) => same(a.account, s.record.receiver)) ?? (receivers.length === 1 ? receivers[0] : undefined);
  if (rec) {
    r.fact({ field: 'receiver', kind: 'address', chain: lower(rec.account)! });
    r.fact({ field: 'amount', kind: 'amount', chain: rec.amount as bigint, token: 'token' });
  }
  // The leg's amount is the money moved: held against the API's amount as the Receiver's is.
  leg(r, {
    mine: (a) => same(a.receiver, s.record.receiver) && lower(a.metadata) === ZERO32,
    paymentType: PAYMENT_TYPES.oneTime,
    fields: { amount: 'amount', fee: 'fee' },
  });
  nativeValue(r, payment, receivers, e);
};

/**
 * Wallet-to-wallet: no 8pay contract (§7, §8). An ERC-20 is one Transfer from the token's
 * own contract to the user, the gross amount; the native coin is the transaction's
 * value, sent to the user.
 */
function walletToWallet(paths: (s: Subject) => { user: string; amount: string }): Reader {
  return (s, r, e) => {
    const p = paths(s);
    const user = valueAt(s.record, p.user);
    const expected = r.ctx.tokenAddress(s.record.token);
    if (expected === NATIVE) {
      const tx = e.transaction;
      r.out.event('value to the user', tx ? 'yes' : 'absent');
      if (!tx) return;
      // Stryker disable next-line StringLiteral: the API's token named the native coin to come here, so this fact can never differ
      r.fact({ field: 'token', kind: 'token', chain: NATIVE });
      // A transaction with no `to` creates a contract: it pays no user.
      r.fact({ field: p.user, kind: 'address', chain: tx.to ?? '(none)' });
      r.fact({ field: p.amount, kind: 'amount', chain: tx.value, token: 'token' });
      return;
    }
    // A symbol the list does not know: the token is whatever contract emitted the Transfer (the verdict names the symbol as a difference).
    const all = r.all(EVENTS.erc20Transfer, expected ? [expected] : []);
    const toUser = (x: { args: Args }) => same(x.args.to, user);
    const own = expected ? all.filter((x) => x.address === expected) : all;
    // Another token of 8pay's list paid the user: the wrong token (a difference), not a look-alike.
    const picked = own.find(toUser) ?? (own.length === 1 ? own[0] : undefined) ?? all.find((x) => toUser(x) && listedAddress(r.ctx.chain, x.address));
    const lookAlike = picked ? undefined : all.find(toUser);
    r.out.event('Transfer (token)', picked ? 'yes' : lookAlike ? 'spoofed' : 'absent', lookAlike && expected ? { expected, chain: lookAlike.address } : undefined);
    if (!picked) return;
    r.fact({ field: 'token', kind: 'token', chain: picked.address });
    r.fact({ field: p.user, kind: 'address', chain: lower(picked.args.to)! });
    r.fact({ field: p.amount, kind: 'amount', chain: picked.args.value as bigint, token: 'token' });
  };
}

const scheduledTransfer: Reader = (s, r) => {
  const executed = r.find('ScheduleExecuted', EVENTS.scheduleExecuted, [r.contracts.scheduledPayments], (a) => same(a.id, s.record.scheduleId));
  if (executed.args) r.fact({ field: 'scheduleId', kind: 'bytes32', chain: lower(executed.args.id)! });
  leg(r, {
    mine: (a) => same(a.metadata, s.record.scheduleId),
    paymentType: r.ctx.paymentTypes.scheduledPayments,
    fields: { amount: 'amount', fee: 'fee', token: 'token', sender: 'sender', receiver: 'receiver' },
  });
};

const execution: Reader = (s, r) => {
  const executed = r.find('StrategyExecuted', EVENTS.strategyExecuted, [r.contracts.dollarCostAverage], (a) => same(a.id, s.record.strategyId));
  const a = executed.args;
  if (a) {
    r.fact({ field: 'strategyId', kind: 'bytes32', chain: lower(a.id)! });
    r.fact({ field: 'inputToken', kind: 'token', chain: lower(a.inputToken)! });
    const inputs = a.inputAmounts as readonly bigint[];
    const tokens = a.outputTokens as readonly string[];
    const outputs = a.outputAmounts as readonly bigint[];
    // A swap is an input, an output token and an output amount: one the event leaves without its output is none (the API's is never verified on it).
    r.fact({ field: 'swaps', kind: 'count', chain: Math.min(inputs.length, tokens.length, outputs.length) });
    inputs.forEach((input, i) => {
      r.fact({ field: `swaps[${i}].inputAmount`, kind: 'amount', chain: input, token: 'inputToken' });
      if (i < outputs.length) r.fact({ field: `swaps[${i}].outputAmount`, kind: 'amount', chain: outputs[i], token: `swaps[${i}].outputToken` });
      if (i < tokens.length) r.fact({ field: `swaps[${i}].outputToken`, kind: 'token', chain: lower(tokens[i])! });
    });
  }
  const paid = leg(r, {
    mine: (x) => same(x.metadata, s.record.strategyId),
    paymentType: r.ctx.paymentTypes.dollarCostAverage,
    fields: { fee: 'fee', decimalsOf: 'inputToken' },
  });
  // The leg pays the swaps' inputs (§7: amount = Σ inputAmount): no API field holds the sum.
  if (a && paid) r.out.event('leg amount = Σ swaps\' inputAmount', paid.amount === (a.inputAmounts as readonly bigint[]).reduce((sum, x) => sum + x, 0n) ? 'yes' : 'absent');
};

const DECODERS: Record<(typeof VERIFIABLE)[number], Reader> = {
  'fixed-recurring/billings': fixedBilling,
  'fixed-recurring/cancellations': cancellation((c) => c.fixedRecurringSubscriptions, (c) => c.fixedRecurringManagement),
  'variable-recurring/cancellations': cancellation((c) => c.variableRecurringManagement, (c) => c.variableRecurringManagement),
  'variable-recurring/cancellation-requests': cancellationRequest,
  'variable-recurring/transfers': subscriptionTransfer('variableRecurring'),
  'on-demand/transfers': subscriptionTransfer('onDemand'),
  'one-time/payments': oneTimePayment,
  'one-time/transfers': oneTimeTransfer,
  'wallet-to-wallet/payments': walletToWallet((s) => ({ user: `receivers[${s.receiver}].user`, amount: `receivers[${s.receiver}].amount` })),
  'wallet-to-wallet/transfers': walletToWallet(() => ({ user: 'receiver', amount: 'amount' })),
  'scheduled-payments/transfers': scheduledTransfer,
  'dollar-cost-average/executions': execution,
};

/** The value at an API path such as `receivers[0].amount`. */
export function valueAt(record: unknown, path: string): unknown {
  let v: unknown = record;
  for (const part of path.split(/\.|(?=\[)/)) {
    if (v === null || typeof v !== 'object') return undefined;
    const index = /^\[(\d+)\]$/.exec(part);
    v = index ? (Array.isArray(v) ? v[Number(index[1])] : undefined) : Object.hasOwn(v, part) ? (v as Record<string, unknown>)[part] : undefined;
  }
  return v;
}
