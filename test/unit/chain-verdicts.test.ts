import { describe, expect, it } from 'vitest';
import { keccak256, stringToHex } from 'viem';
import { parseBlock, parseReceipt, parseTransaction } from '../../src/chain/answers.js';
import { decode, valueAt, type ChainContext, type Subject } from '../../src/chain/decode.js';
import type { ResolvedToken } from '../../src/chain/tokens.js';
import { baseUnits, judge, worst, type Judgement } from '../../src/chain/verdict.js';
import { combine } from '../../src/chain/verifier.js';
import * as f from './chain-fixtures.js';

// The decoder and the verdict rules against receipts written by hand (chain-fixtures.ts),
// one record per collection and verdict. Each expected verdict and difference is read
// off ONCHAIN.md §9 by hand, never computed by the code under test.

const { BSC, ALICE, BOB, CAROL, KEEPER, E18, id32, txHash } = f;

const usdt: ResolvedToken = { listed: 'USDT', address: BSC.usdt, decimals: 18, native: false, chainDecimals: 18 };
const busd: ResolvedToken = { listed: 'BUSD', address: BSC.busd, decimals: 18, native: false, chainDecimals: 18 };
const bnb: ResolvedToken = { listed: 'BNB', address: f.NATIVE as `0x${string}`, decimals: 18, native: true };
const eightPay: ResolvedToken = { listed: '8PAY v2', address: BSC.eightPayV2, decimals: 18, native: false, chainDecimals: 18 };
const BOOK = new Map<string, ResolvedToken | null>([
  ['USDT', usdt],
  ['BUSD', busd],
  ['BNB', bnb],
  ['8PAY', eightPay],
  ['FOO', null],
]);

/** keccak256("SCHEDULED_PAYMENTS") and keccak256("DOLLAR_COST_AVERAGE"), as the contracts' PAYMENT_TYPE() would answer. */
const SP_TYPE = keccak256(stringToHex('SCHEDULED_PAYMENTS'));
const DCA_TYPE = keccak256(stringToHex('DOLLAR_COST_AVERAGE'));

const ctx = (book = BOOK, paymentTypes: ChainContext['paymentTypes'] = { scheduledPayments: SP_TYPE, dollarCostAverage: DCA_TYPE }): ChainContext => ({
  chain: 'bsc',
  feeCollector: f.FEE_COLLECTOR,
  paymentTypes,
  tokenAddress: (s) => (typeof s === 'string' ? book.get(s)?.address : undefined) ?? undefined,
});

interface Case {
  subject: Subject;
  receipt: ReturnType<typeof f.receipt> | null;
  block?: ReturnType<typeof f.block> | null;
  tx?: ReturnType<typeof f.transaction> | null;
  head?: number;
  book?: Map<string, ResolvedToken | null>;
  /** PAYMENT_TYPE() of ScheduledPayments and DollarCostAverage as the contracts answered (default: both answered). */
  paymentTypes?: ChainContext['paymentTypes'];
}

const BLOCK = 1000;
const TIME = 1_760_000_000;

/** Parses the node's answers as the client does, decodes and judges (15 confirmations needed). */
function verdictOf(c: Case): Judgement {
  const hash = String(c.subject.receiver === undefined ? c.subject.record.transactionHash : (c.subject.record.receivers as any[])[c.subject.receiver].transactionHash);
  const receipt = parseReceipt(c.receipt, hash);
  const block = c.block === undefined ? f.block(BLOCK, TIME) : c.block;
  const parsedBlock = receipt && block ? parseBlock(block, receipt.blockNumber) : null;
  const tx = c.tx ? parseTransaction(c.tx, hash) : c.tx;
  const view = decode(c.subject, { receipt, block: parsedBlock, transaction: tx }, ctx(c.book, c.paymentTypes));
  return judge(c.subject, view, { chain: 'bsc', head: BigInt(c.head ?? BLOCK + 14), confirmations: 15, tokens: c.book ?? BOOK });
}

// ---------------------------------------------------------------------------
// Fixed-recurring billings.

const PLAN = id32(1, 'aa');
const SUB = id32(2, 'cc');
const CYCLE_END = TIME + 30 * 86400 - 1;

function billingRecord(over: Record<string, unknown> = {}) {
  return {
    subscriptionId: SUB,
    success: 1,
    amount: '9.99',
    fee: '0.0999',
    token: 'USDT',
    receiver: BOB,
    timestamp: TIME,
    cycleStart: TIME,
    cycleEnd: CYCLE_END,
    triggeredBy: KEEPER,
    transactionHash: txHash(1),
    transactionStatus: 'confirmed',
    ...over,
  };
}

const billingLeg = (over: Partial<f.Leg> = {}) =>
  f.leg({ token: BSC.usdt, sender: ALICE, receiver: BOB, amount: 999n * E18 / 100n, pct: 100n, paymentType: f.PAYMENT_TYPE.fixedRecurring, metadata: SUB, ...over });

function billingReceipt(o: { logs?: f.LogSpec[]; status?: '0x1' | '0x0'; blockHash?: string; from?: string; to?: string } = {}) {
  return f.receipt({
    hash: txHash(1),
    block: BLOCK,
    blockHash: o.blockHash,
    from: o.from ?? KEEPER,
    to: o.to ?? BSC.frManagement,
    status: o.status,
    logs: o.logs ?? [...billingLeg(), f.fixedBilling(BSC.frManagement, PLAN, SUB, TIME, CYCLE_END)],
  });
}

const billing = (over: Record<string, unknown> = {}, planId: string | undefined = PLAN): Subject => ({ collection: 'fixed-recurring/billings', record: billingRecord(over), planId });

describe('fixed-recurring billings: each verdict of §9', () => {
  it('verified: its Billing and leg from 8pay, 15 confirmations, every field the same', () => {
    expect(verdictOf({ subject: billing(), receipt: billingReceipt() })).toEqual({
      verdict: 'verified',
      confirmations: 15,
      blockNumber: BLOCK,
      blockHash: f.blockHash(BLOCK),
      differences: [],
    });
  });

  it('unconfirmed: 14 of 15 confirmations', () => {
    const j = verdictOf({ subject: billing(), receipt: billingReceipt(), head: BLOCK + 13 });
    expect(j.verdict).toBe('unconfirmed');
    expect(j.confirmations).toBe(14);
  });

  it('pending: the API says pending, whatever the chain has', () => {
    expect(verdictOf({ subject: billing({ transactionStatus: 'pending' }), receipt: billingReceipt() })).toEqual({
      verdict: 'pending',
      confirmations: null,
      blockNumber: null,
      blockHash: null,
      differences: [],
    });
  });

  it('missing: no receipt', () => {
    expect(verdictOf({ subject: billing(), receipt: null }).verdict).toBe('missing');
  });

  it('reorged: the receipt names a block that is not the canonical one at its height', () => {
    const j = verdictOf({ subject: billing(), receipt: billingReceipt(), block: f.block(BLOCK, TIME, 'c') });
    expect(j.verdict).toBe('reorged');
  });

  it('reorged: the node has no block at the receipt height', () => {
    expect(verdictOf({ subject: billing(), receipt: billingReceipt(), block: null }).verdict).toBe('reorged');
  });

  it('reorged comes before unconfirmed, and lists differences too', () => {
    const j = verdictOf({ subject: billing({ amount: '9.98' }), receipt: billingReceipt(), block: f.block(BLOCK, TIME, 'c'), head: BLOCK });
    expect(j.verdict).toBe('reorged');
    // Its reason first: the receipt's block hash and the canonical one at its height.
    expect(j.differences).toEqual([
      { field: 'blockHash', api: f.blockHash(BLOCK), chain: f.blockHash(BLOCK, 'c'), note: `the receipt's block is not the canonical one at height ${BLOCK}` },
      { field: 'amount', api: '9.98', chain: '9.99' },
    ]);
  });

  it('reverted: status 0x0 while the API says confirmed', () => {
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ status: '0x0' }) }).verdict).toBe('reverted');
  });

  it('verified: status 0x0 while the API says failed', () => {
    expect(verdictOf({ subject: billing({ transactionStatus: 'failed' }), receipt: billingReceipt({ status: '0x0' }) })).toMatchObject({ verdict: 'verified', differences: [] });
  });

  describe('a failed record and a reverted transaction (§9 rule 5)', () => {
    const failed = billing({ transactionStatus: 'failed' });
    it('verified when sent to FR Management, FR Subscriptions or the Biller (the current or the former bsc one) by triggeredBy', () => {
      for (const to of [BSC.frManagement, BSC.frSubscriptions, BSC.biller, '0xd89817cb4109461a42278e6400be49de7d7716c1']) {
        expect(verdictOf({ subject: failed, receipt: billingReceipt({ status: '0x0', to }) }), to).toMatchObject({ verdict: 'verified', differences: [] });
      }
    });
    it('mismatch naming `to` when the reverted transaction went to another contract (another 8pay one too)', () => {
      for (const to of [f.LOOKALIKE, BSC.odManagement]) {
        expect(verdictOf({ subject: failed, receipt: billingReceipt({ status: '0x0', to }) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'to', api: BSC.frManagement, chain: to }] });
      }
    });
    it('mismatch naming triggeredBy when someone else sent it', () => {
      expect(verdictOf({ subject: failed, receipt: billingReceipt({ status: '0x0', from: CAROL }) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'triggeredBy', api: KEEPER, chain: CAROL }] });
    });
    it('a one-time transfer: sent to OneTime by its sender', () => {
      const transfer: Subject = { collection: 'one-time/transfers', record: { sender: ALICE, receiver: BOB, amount: '5', fee: '0.05', token: 'USDT', transactionHash: txHash(1), transactionStatus: 'failed' } };
      const sent = (from: string, to: string) => f.receipt({ hash: txHash(1), block: BLOCK, from, to, status: '0x0' });
      expect(verdictOf({ subject: transfer, receipt: sent(ALICE, BSC.oneTime) }).verdict).toBe('verified');
      expect(verdictOf({ subject: transfer, receipt: sent(BOB, BSC.oneTime) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'sender', api: ALICE, chain: BOB }] });
      expect(verdictOf({ subject: transfer, receipt: sent(ALICE, BSC.transfers) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'to', api: BSC.oneTime, chain: BSC.transfers }] });
    });
    it('a wallet-to-wallet transfer: sent to the token\'s contract (native: to the user)', () => {
      const w2w = (token: string): Subject => ({ collection: 'wallet-to-wallet/transfers', record: { receiver: BOB, amount: '5', token, transactionHash: txHash(1), transactionStatus: 'failed' } });
      const sent = (to: string) => f.receipt({ hash: txHash(1), block: BLOCK, from: CAROL, to, status: '0x0' });
      expect(verdictOf({ subject: w2w('USDT'), receipt: sent(BSC.usdt) }).verdict).toBe('verified');
      expect(verdictOf({ subject: w2w('USDT'), receipt: sent(BSC.busd) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'to', api: BSC.usdt, chain: BSC.busd }] });
      expect(verdictOf({ subject: w2w('BNB'), receipt: sent(BOB) }).verdict).toBe('verified');
    });
  });

  describe('each bad verdict says why, first in its differences', () => {
    it('missing: no receipt, and whether the node has the transaction at all', () => {
      const pending = f.transaction({ hash: txHash(1), from: KEEPER, to: BSC.frManagement, value: 0n, block: null });
      expect(verdictOf({ subject: billing(), receipt: null, tx: null }).differences).toEqual([{ field: 'receipt', api: 'mined', chain: null, note: 'no receipt, no transaction at the node' }]);
      expect(verdictOf({ subject: billing(), receipt: null, tx: pending }).differences).toEqual([{ field: 'receipt', api: 'mined', chain: null, note: 'no receipt: the node has the transaction, not yet mined' }]);
    });
    it('reverted: the receipt\'s status', () => {
      expect(verdictOf({ subject: billing(), receipt: billingReceipt({ status: '0x0' }) }).differences).toEqual([{ field: 'transactionStatus', api: 'confirmed', chain: 'reverted', note: "the receipt's status is 0x0" }]);
    });
    it('unconfirmed: the confirmations seen against those needed', () => {
      expect(verdictOf({ subject: billing(), receipt: billingReceipt(), head: BLOCK + 9 }).differences).toEqual([{ field: 'confirmations', api: 15, chain: 10, note: 'fewer than the 15 a record needs' }]);
    });
    it('reorged: the node has no block at the height', () => {
      expect(verdictOf({ subject: billing(), receipt: billingReceipt(), block: null }).differences[0]).toMatchObject({ field: 'blockHash', api: f.blockHash(BLOCK), chain: null });
    });
  });

  it('mismatch: the API says failed but the transaction succeeded', () => {
    const j = verdictOf({ subject: billing({ transactionStatus: 'failed' }), receipt: billingReceipt() });
    expect(j).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'transactionStatus', api: 'failed', chain: 'confirmed' }] });
  });

  it('mismatch: a status the rules do not know is never verified', () => {
    expect(verdictOf({ subject: billing({ transactionStatus: 'dropped' }), receipt: billingReceipt() }).differences).toEqual([{ field: 'transactionStatus', api: 'dropped', chain: 'confirmed' }]);
  });

  it('spoofed: the Billing comes only from a look-alike address', () => {
    const logs = [...billingLeg(), f.fixedBilling(f.LOOKALIKE, PLAN, SUB, TIME, CYCLE_END)];
    // Its reason: the look-alike that emitted the Billing, beside 8pay's FR Management.
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) })).toMatchObject({ verdict: 'spoofed', differences: [{ field: 'Billing emitter', api: BSC.frManagement, chain: f.LOOKALIKE }] });
  });

  it('spoofed: the money event comes from a look-alike Transfers', () => {
    const logs = [...billingLeg({ transfers: f.LOOKALIKE }), f.fixedBilling(BSC.frManagement, PLAN, SUB, TIME, CYCLE_END)];
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) }).verdict).toBe('spoofed');
  });

  it('spoofed: a Billing from another 8pay contract (on-demand Management) is not the fixed-recurring one', () => {
    const logs = [...billingLeg(), f.fixedBilling(BSC.odManagement, PLAN, SUB, TIME, CYCLE_END)];
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) }).verdict).toBe('spoofed');
  });

  it('the genuine event wins over a look-alike copy beside it', () => {
    const logs = [...billingLeg(), f.fixedBilling(f.LOOKALIKE, PLAN, SUB, TIME, CYCLE_END + 5), f.fixedBilling(BSC.frManagement, PLAN, SUB, TIME, CYCLE_END)];
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) }).verdict).toBe('verified');
  });

  it('mismatch: no Billing at all, from anyone', () => {
    const j = verdictOf({ subject: billing(), receipt: billingReceipt({ logs: billingLeg() }) });
    expect(j).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'event', api: 'Billing', chain: null }] });
  });

  it.each([
    ['amount', { amount: '9.98' }, { field: 'amount', api: '9.98', chain: '9.99' }],
    ['fee', { fee: '0.1' }, { field: 'fee', api: '0.1', chain: '0.0999' }],
    ['receiver', { receiver: CAROL }, { field: 'receiver', api: CAROL, chain: BOB }],
    ['cycleStart', { cycleStart: TIME + 1 }, { field: 'cycleStart', api: TIME + 1, chain: TIME }],
    ['cycleEnd', { cycleEnd: CYCLE_END + 1 }, { field: 'cycleEnd', api: CYCLE_END + 1, chain: CYCLE_END }],
    ['triggeredBy', { triggeredBy: ALICE }, { field: 'triggeredBy', api: ALICE, chain: KEEPER }],
    ['timestamp', { timestamp: TIME - 3 }, { field: 'timestamp', api: TIME - 3, chain: TIME }],
    ['token', { token: 'BUSD' }, { field: 'token', api: 'BUSD', chain: BSC.usdt, note: 'USDT' }],
    ['a token the list does not know', { token: 'FOO' }, { field: 'token', api: 'FOO', chain: BSC.usdt, note: 'USDT' }],
    ['an amount finer than the token', { amount: '9.9900000000000000001' }, { field: 'amount', api: '9.9900000000000000001', chain: '9.99' }],
  ])('mismatch: %s', (_name, over, difference) => {
    const j = verdictOf({ subject: billing(over), receipt: billingReceipt() });
    expect(j.verdict).toBe('mismatch');
    expect(j.differences).toEqual([difference]);
  });

  it('amounts compare as numbers: 9.990 is 9.99', () => {
    expect(verdictOf({ subject: billing({ amount: '9.990', fee: '0.09990' }), receipt: billingReceipt() }).verdict).toBe('verified');
  });

  it('mismatch: the plan of the route differs; with no route plan, planId is not compared', () => {
    const other = id32(9, 'aa');
    expect(verdictOf({ subject: billing({}, other), receipt: billingReceipt() }).differences).toEqual([{ field: 'planId', api: other, chain: PLAN }]);
    expect(verdictOf({ subject: billing({}, undefined), receipt: billingReceipt() }).verdict).toBe('verified');
  });

  it('mismatch: the API subscription has no Billing in a transaction that bills another one', () => {
    const other = id32(3, 'cc');
    const logs = [...billingLeg({ metadata: other }), f.fixedBilling(BSC.frManagement, PLAN, other, TIME, CYCLE_END)];
    const j = verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) });
    expect(j.verdict).toBe('mismatch');
    expect(j.differences).toContainEqual({ field: 'subscriptionId', api: SUB, chain: other });
  });

  it('mismatch: decimals() of the token disagrees with the list', () => {
    const book = new Map(BOOK).set('USDT', { ...usdt, chainDecimals: 6 });
    expect(verdictOf({ subject: billing(), receipt: billingReceipt(), book }).differences).toEqual([{ field: 'token decimals', api: 18, chain: 6 }]);
  });

  it('mismatch: a token whose decimals() does not answer is never taken as agreeing with the list', () => {
    const book = new Map(BOOK).set('USDT', { ...usdt, chainDecimals: null });
    expect(verdictOf({ subject: billing(), receipt: billingReceipt(), book })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'token decimals', api: 18, chain: null }] });
  });

  it('mismatch: the net Transfer moves 1 wei less than amount − fee (the token\'s own event is held to the leg\'s figures)', () => {
    // 9.99 USDT at 1 %: fee 0.0999, net 9.8901, written in wei; the net Transfer says one wei less.
    const [fee, net] = [99_900_000_000_000_000n, 9_890_100_000_000_000_000n];
    const token = (to: string, value: bigint): f.LogSpec => ({ address: BSC.usdt, topics: [f.TOPIC.erc20Transfer, `0x${f.addr(ALICE)}`, `0x${f.addr(to)}`], words: [f.uint(value)] });
    const success = billingLeg().at(-1)!;
    const logs = (n: bigint) => [token(f.FEE_COLLECTOR, fee), token(BOB, n), success, f.fixedBilling(BSC.frManagement, PLAN, SUB, TIME, CYCLE_END)];
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs: logs(net) }) }).verdict).toBe('verified');
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs: logs(net - 1n) }) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'event', api: 'Transfer (net, token)', chain: null }] });
  });

  it('mismatch: the leg has no token Transfer to the receiver (TransferSuccessful alone moves nothing)', () => {
    const logs = [...billingLeg().filter((l) => !(l.address === BSC.usdt && l.topics[2] === `0x${f.addr(BOB)}`)), f.fixedBilling(BSC.frManagement, PLAN, SUB, TIME, CYCLE_END)];
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) }).differences).toEqual([{ field: 'event', api: 'Transfer (net, token)', chain: null }]);
  });

  it('spoofed: the net Transfer is emitted by a look-alike token contract', () => {
    const logs = [
      ...billingLeg().filter((l) => !(l.address === BSC.usdt && l.topics[2] === `0x${f.addr(BOB)}`)),
      f.erc20Transfer(f.LOOKALIKE, ALICE, BOB, 999n * E18 / 100n - 999n * E18 / 10000n),
      f.fixedBilling(BSC.frManagement, PLAN, SUB, TIME, CYCLE_END),
    ];
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) }).verdict).toBe('spoofed');
  });

  it('mismatch: the fee goes elsewhere than Transfers.feeCollector()', () => {
    const logs = [...billingLeg({ feeCollector: CAROL }), f.fixedBilling(BSC.frManagement, PLAN, SUB, TIME, CYCLE_END)];
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) }).differences).toEqual([{ field: 'event', api: 'Transfer (fee, token)', chain: null }]);
  });

  it('mismatch: a leg of another paymentType', () => {
    const logs = [...billingLeg({ paymentType: f.PAYMENT_TYPE.onDemand }), f.fixedBilling(BSC.frManagement, PLAN, SUB, TIME, CYCLE_END)];
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) }).differences).toEqual([{ field: 'paymentType', api: f.PAYMENT_TYPE.fixedRecurring, chain: f.PAYMENT_TYPE.onDemand }]);
  });

  it('logs a reorg removed, or of another transaction, are not the receipt\'s', () => {
    const raw = billingReceipt();
    raw.logs[3].removed = true;
    expect(verdictOf({ subject: billing(), receipt: raw }).differences).toEqual([{ field: 'event', api: 'Billing', chain: null }]);
    const other = billingReceipt();
    other.logs[3].transactionHash = txHash(2);
    expect(verdictOf({ subject: billing(), receipt: other }).verdict).toBe('mismatch');
    // A log stamped with another block than its receipt's (a node mixing two forks) is none of its either.
    const forked = billingReceipt();
    forked.logs[3].blockHash = f.blockHash(BLOCK, 'c');
    expect(verdictOf({ subject: billing(), receipt: forked }).differences).toEqual([{ field: 'event', api: 'Billing', chain: null }]);
  });

  it('mismatch: the net and fee Transfers come from another address than the leg\'s sender', () => {
    // The leg says ALICE pays; the token's Transfers move CAROL's money.
    const logs = billingLeg().map((l) => (l.topics[0] === f.TOPIC.erc20Transfer ? { ...l, topics: [l.topics[0], `0x${f.addr(CAROL)}`, l.topics[2]] } : l));
    const receipt = billingReceipt({ logs: [...logs, f.fixedBilling(BSC.frManagement, PLAN, SUB, TIME, CYCLE_END)] });
    expect(verdictOf({ subject: billing(), receipt })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'event', api: 'Transfer (net, token)', chain: null }, { field: 'event', api: 'Transfer (fee, token)', chain: null }] });
  });

  it('verified: the subscribe, billed by FR Subscriptions with its Subscription event', () => {
    const logs = [...billingLeg(), f.subscriptionEvent(f.TOPIC.subscription, BSC.frSubscriptions, PLAN, SUB), f.fixedBilling(BSC.frSubscriptions, PLAN, SUB, TIME, CYCLE_END)];
    // Subscription has a third indexed topic (the account): add it by hand.
    logs[3].topics.push(`0x${f.addr(ALICE)}`);
    expect(verdictOf({ subject: billing({ triggeredBy: ALICE }), receipt: billingReceipt({ logs, from: ALICE }) }).verdict).toBe('verified');
  });

  describe('autobilled: one Biller transaction bills three subscriptions of a plan', () => {
    const subs = [id32(11, 'cc'), id32(12, 'cc'), id32(13, 'cc')];
    const amounts = [5n * E18, 7n * E18, 9n * E18];
    const logs = [
      ...subs.flatMap((s, i) => [...billingLeg({ metadata: s, amount: amounts[i], sender: [ALICE, CAROL, BOB][i] }), f.fixedBilling(BSC.frManagement, PLAN, s, TIME, CYCLE_END)]),
      f.billEvent(BSC.biller, KEEPER, PLAN, subs),
    ];
    const raw = () => f.receipt({ hash: txHash(1), block: BLOCK, from: KEEPER, to: BSC.biller, logs });

    it('each billing is verified by its own subscription\'s leg and Billing', () => {
      expect(verdictOf({ subject: billing({ subscriptionId: subs[1], amount: '7', fee: '0.07' }), receipt: raw() }).verdict).toBe('verified');
      expect(verdictOf({ subject: billing({ subscriptionId: subs[2], amount: '9', fee: '0.09' }), receipt: raw() }).verdict).toBe('verified');
    });

    it('another subscription\'s amount is a mismatch, not a match by position', () => {
      const j = verdictOf({ subject: billing({ subscriptionId: subs[1], amount: '5', fee: '0.05' }), receipt: raw() });
      expect(j.differences).toEqual([
        { field: 'amount', api: '5', chain: '7' },
        { field: 'fee', api: '0.05', chain: '0.07' },
      ]);
    });

    it('a subscription the transaction does not bill is a missing Billing', () => {
      expect(verdictOf({ subject: billing({ subscriptionId: id32(14, 'cc'), amount: '5', fee: '0.05' }), receipt: raw() }).differences).toContainEqual({ field: 'event', api: 'Billing', chain: null });
    });

    // One subscription billed, the record's own failed: the record's BillingFailed decides, not the only Billing there (another's).
    const paid = subs[0];
    const mixed = [
      ...billingLeg({ metadata: paid, amount: amounts[0] }),
      f.fixedBilling(BSC.frManagement, PLAN, paid, TIME, CYCLE_END),
      f.transferFailed({ token: BSC.usdt, sender: CAROL, receiver: BOB, amount: amounts[1], paymentType: f.PAYMENT_TYPE.fixedRecurring, metadata: subs[1] }),
      f.fixedBillingFailed(BSC.frManagement, PLAN, subs[1]),
      f.billEvent(BSC.biller, KEEPER, PLAN, [paid, subs[1]]),
    ];
    const mixedReceipt = () => f.receipt({ hash: txHash(1), block: BLOCK, from: KEEPER, to: BSC.biller, logs: mixed });

    it('a failed billing beside another subscription\'s paid one: verified by its own BillingFailed', () => {
      expect(verdictOf({ subject: billing({ subscriptionId: subs[1], success: 0, amount: '7', fee: '0.07' }), receipt: mixedReceipt() })).toMatchObject({ verdict: 'verified', differences: [] });
    });

    it('the paid one beside it is verified by its own Billing; the failed one said paid is a difference of success', () => {
      expect(verdictOf({ subject: billing({ subscriptionId: paid, amount: '5', fee: '0.05' }), receipt: mixedReceipt() })).toMatchObject({ verdict: 'verified', differences: [] });
      expect(verdictOf({ subject: billing({ subscriptionId: subs[1], amount: '7', fee: '0.07' }), receipt: mixedReceipt() }).differences).toEqual([{ field: 'success', api: 1, chain: 0 }]);
    });
  });

  describe('a failed billing: TransferFailed and BillingFailed', () => {
    const logs = [f.transferFailed({ token: BSC.usdt, sender: ALICE, receiver: BOB, amount: 999n * E18 / 100n, paymentType: f.PAYMENT_TYPE.fixedRecurring, metadata: SUB }), f.fixedBillingFailed(BSC.frManagement, PLAN, SUB)];

    it('verified when the API says success 0 (the fee is not compared)', () => {
      expect(verdictOf({ subject: billing({ success: 0, fee: '123' }), receipt: billingReceipt({ logs }) }).verdict).toBe('verified');
    });

    it('mismatch when the API says success 1', () => {
      const j = verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) });
      expect(j.differences).toEqual([{ field: 'success', api: 1, chain: 0 }]);
    });

    it('mismatch when the API says success 0 but the chain billed', () => {
      expect(verdictOf({ subject: billing({ success: 0 }), receipt: billingReceipt() }).differences).toEqual([{ field: 'success', api: 0, chain: 1 }]);
    });
  });
});

// ---------------------------------------------------------------------------
// Cancellations and requests.

describe('cancellations and cancellation requests', () => {
  const record = (over: Record<string, unknown> = {}) => ({ subscriptionId: SUB, timestamp: TIME, forced: false, triggeredBy: ALICE, transactionHash: txHash(5), transactionStatus: 'confirmed', ...over });
  const raw = (logs: f.LogSpec[], from = ALICE) => f.receipt({ hash: txHash(5), block: BLOCK, from, to: BSC.frSubscriptions, logs });

  it('fixed-recurring, not forced: SubscriptionCancelled from FR Subscriptions', () => {
    const subject = { collection: 'fixed-recurring/cancellations', record: record(), planId: PLAN };
    expect(verdictOf({ subject, receipt: raw([f.subscriptionEvent(f.TOPIC.subscriptionCancelled, BSC.frSubscriptions, PLAN, SUB)]) }).verdict).toBe('verified');
  });

  it('fixed-recurring, forced: SubscriptionTerminated from FR Management; the API saying not forced is a difference', () => {
    const logs = [f.subscriptionEvent(f.TOPIC.subscriptionTerminated, BSC.frManagement, PLAN, SUB)];
    expect(verdictOf({ subject: { collection: 'fixed-recurring/cancellations', record: record({ forced: true, triggeredBy: KEEPER }) }, receipt: raw(logs, KEEPER) }).verdict).toBe('verified');
    expect(verdictOf({ subject: { collection: 'fixed-recurring/cancellations', record: record({ triggeredBy: KEEPER }) }, receipt: raw(logs, KEEPER) }).differences).toEqual([{ field: 'forced', api: false, chain: true }]);
  });

  it('fixed-recurring: SubscriptionCancelled from FR Management is not 8pay\'s cancellation (spoofed)', () => {
    const logs = [f.subscriptionEvent(f.TOPIC.subscriptionCancelled, BSC.frManagement, PLAN, SUB)];
    expect(verdictOf({ subject: { collection: 'fixed-recurring/cancellations', record: record() }, receipt: raw(logs) }).verdict).toBe('spoofed');
  });

  it.each([
    ['subscriptionId', id32(4, 'cc'), SUB],
    ['triggeredBy', KEEPER, ALICE],
    ['timestamp', TIME + 9, TIME],
  ] as const)('fixed-recurring cancellation: %s differs', (field, value, chain) => {
    const subject = { collection: 'fixed-recurring/cancellations', record: record({ [field]: value }), planId: PLAN };
    expect(verdictOf({ subject, receipt: raw([f.subscriptionEvent(f.TOPIC.subscriptionCancelled, BSC.frSubscriptions, PLAN, SUB)]) }).differences).toEqual([{ field, api: value, chain }]);
  });

  it('a cancellation event of no kind at all: the one the API names is missing', () => {
    expect(verdictOf({ subject: { collection: 'fixed-recurring/cancellations', record: record({ forced: true }) }, receipt: raw([]) }).differences).toEqual([{ field: 'event', api: 'SubscriptionTerminated', chain: null }]);
    expect(verdictOf({ subject: { collection: 'fixed-recurring/cancellations', record: record() }, receipt: raw([]) }).differences).toEqual([{ field: 'event', api: 'SubscriptionCancelled', chain: null }]);
    const request = { collection: 'variable-recurring/cancellation-requests', record: { subscriptionId: SUB, timestamp: TIME, transactionHash: txHash(5), transactionStatus: 'confirmed' } };
    expect(verdictOf({ subject: request, receipt: raw([]) }).differences).toEqual([{ field: 'event', api: 'SubscriptionCancellationRequested', chain: null }]);
  });

  it('variable-recurring: both kinds come from VR Management', () => {
    const cancelled = [f.subscriptionEvent(f.TOPIC.subscriptionCancelled, BSC.vrManagement, PLAN, SUB)];
    const terminated = [f.subscriptionEvent(f.TOPIC.subscriptionTerminated, BSC.vrManagement, PLAN, SUB)];
    const subject = (forced: boolean) => ({ collection: 'variable-recurring/cancellations', record: record({ forced }), planId: PLAN });
    expect(verdictOf({ subject: subject(false), receipt: raw(cancelled) }).verdict).toBe('verified');
    expect(verdictOf({ subject: subject(true), receipt: raw(terminated) }).verdict).toBe('verified');
    expect(verdictOf({ subject: subject(false), receipt: raw([f.subscriptionEvent(f.TOPIC.subscriptionCancelled, BSC.frSubscriptions, PLAN, SUB)]) }).verdict).toBe('spoofed');
  });

  it('variable-recurring cancellation requests: SubscriptionCancellationRequested from VR Subscriptions', () => {
    const subject = { collection: 'variable-recurring/cancellation-requests', record: { subscriptionId: SUB, timestamp: TIME, transactionHash: txHash(5), transactionStatus: 'confirmed' }, planId: PLAN };
    const logs = [f.subscriptionEvent(f.TOPIC.subscriptionCancellationRequested, BSC.vrSubscriptions, PLAN, SUB)];
    expect(verdictOf({ subject, receipt: raw(logs) }).verdict).toBe('verified');
    const otherPlan = { ...subject, planId: id32(7, 'aa') };
    expect(verdictOf({ subject: otherPlan, receipt: raw(logs) }).differences).toEqual([{ field: 'planId', api: id32(7, 'aa'), chain: PLAN }]);
  });
});

// ---------------------------------------------------------------------------
// Variable-recurring, on-demand and scheduled transfers.

describe('subscription and scheduled transfers', () => {
  const record = (over: Record<string, unknown> = {}) => ({
    description: 'x',
    amount: '2.5',
    fee: '0.025',
    token: 'USDT',
    category: 'c',
    timestamp: TIME,
    transactionHash: txHash(6),
    transactionStatus: 'confirmed',
    sender: ALICE,
    receiver: BOB,
    planId: PLAN,
    subscriptionId: SUB,
    ...over,
  });
  const amount = 25n * E18 / 10n;

  it('variable-recurring: leg (VARIABLE_RECURRING, metadata = subscriptionId) and VR Billing', () => {
    const logs = [...f.leg({ token: BSC.usdt, sender: ALICE, receiver: BOB, amount, pct: 100n, paymentType: f.PAYMENT_TYPE.variableRecurring, metadata: SUB }), f.variableBilling(BSC.vrManagement, PLAN, SUB, amount, TIME - 86400, TIME - 1)];
    const r = f.receipt({ hash: txHash(6), block: BLOCK, from: KEEPER, to: BSC.vrManagement, logs });
    expect(verdictOf({ subject: { collection: 'variable-recurring/transfers', record: record() }, receipt: r }).verdict).toBe('verified');
    expect(verdictOf({ subject: { collection: 'variable-recurring/transfers', record: record({ sender: CAROL }) }, receipt: r }).differences).toEqual([{ field: 'sender', api: CAROL, chain: ALICE }]);
    // An on-demand Billing has other arguments, so another topic0: this receipt has none.
    expect(verdictOf({ subject: { collection: 'on-demand/transfers', record: record() }, receipt: r }).differences).toEqual([
      { field: 'event', api: 'Billing', chain: null },
      { field: 'paymentType', api: f.PAYMENT_TYPE.onDemand, chain: f.PAYMENT_TYPE.variableRecurring },
    ]);
  });

  it('on-demand: leg (ON_DEMAND) and OD Billing', () => {
    const logs = [...f.leg({ token: BSC.usdt, sender: ALICE, receiver: BOB, amount, pct: 100n, paymentType: f.PAYMENT_TYPE.onDemand, metadata: SUB }), f.onDemandBilling(BSC.odManagement, PLAN, SUB, amount)];
    const r = f.receipt({ hash: txHash(6), block: BLOCK, from: KEEPER, to: BSC.odManagement, logs });
    expect(verdictOf({ subject: { collection: 'on-demand/transfers', record: record() }, receipt: r }).verdict).toBe('verified');
    expect(verdictOf({ subject: { collection: 'on-demand/transfers', record: record({ planId: id32(8, 'aa') }) }, receipt: r }).differences).toEqual([{ field: 'planId', api: id32(8, 'aa'), chain: PLAN }]);
  });

  it('scheduled payments: leg with PAYMENT_TYPE() and metadata = scheduleId, then ScheduleExecuted', () => {
    const schedule = id32(21, 'dd');
    const rec = { ...record(), scheduleId: schedule, planId: undefined, subscriptionId: undefined };
    const logs = [...f.leg({ token: BSC.usdt, sender: ALICE, receiver: BOB, amount, pct: 100n, paymentType: SP_TYPE, metadata: schedule }), f.scheduleExecuted(BSC.scheduledPayments, schedule)];
    const r = f.receipt({ hash: txHash(6), block: BLOCK, from: KEEPER, to: BSC.scheduledPayments, logs });
    expect(verdictOf({ subject: { collection: 'scheduled-payments/transfers', record: rec }, receipt: r }).verdict).toBe('verified');
    const other = id32(22, 'dd');
    const j = verdictOf({ subject: { collection: 'scheduled-payments/transfers', record: { ...rec, scheduleId: other } }, receipt: r });
    expect(j.differences).toContainEqual({ field: 'scheduleId', api: other, chain: schedule });
    for (const [field, value, chain] of [
      ['sender', CAROL, ALICE],
      ['receiver', CAROL, BOB],
      ['amount', '2.4', '2.5'],
      ['fee', '0.02', '0.025'],
      ['token', 'BUSD', BSC.usdt],
    ] as const) {
      const d = verdictOf({ subject: { collection: 'scheduled-payments/transfers', record: { ...rec, [field]: value } }, receipt: r }).differences;
      // A token difference names the chain's token by its list symbol.
      expect(d, field).toEqual([{ field, api: value, chain, ...(field === 'token' ? { note: 'USDT' } : {}) }]);
    }
    // Without the contract's PAYMENT_TYPE() a leg of another paymentType is told apart.
    const wrong = [...f.leg({ token: BSC.usdt, sender: ALICE, receiver: BOB, amount, pct: 100n, paymentType: f.PAYMENT_TYPE.onDemand, metadata: schedule }), f.scheduleExecuted(BSC.scheduledPayments, schedule)];
    expect(verdictOf({ subject: { collection: 'scheduled-payments/transfers', record: rec }, receipt: f.receipt({ hash: txHash(6), block: BLOCK, from: KEEPER, to: BSC.scheduledPayments, logs: wrong }) }).differences).toEqual([{ field: 'paymentType', api: SP_TYPE, chain: f.PAYMENT_TYPE.onDemand }]);
  });

  it.each([
    ['receiver', CAROL, BOB],
    ['amount', '2.4', '2.5'],
    ['fee', '0.02', '0.025'],
    ['token', 'BUSD', BSC.usdt],
    ['subscriptionId', id32(9, 'cc'), SUB],
  ] as const)('variable-recurring transfer: %s differs', (field, value, chain) => {
    const note = field === 'token' ? { note: 'USDT' } : {};
    const logs = [...f.leg({ token: BSC.usdt, sender: ALICE, receiver: BOB, amount, pct: 100n, paymentType: f.PAYMENT_TYPE.variableRecurring, metadata: SUB }), f.variableBilling(BSC.vrManagement, PLAN, SUB, amount, TIME - 86400, TIME - 1)];
    const r = f.receipt({ hash: txHash(6), block: BLOCK, from: KEEPER, to: BSC.vrManagement, logs });
    expect(verdictOf({ subject: { collection: 'variable-recurring/transfers', record: record({ [field]: value }) }, receipt: r }).differences).toContainEqual({ field, api: value, chain, ...note });
  });
});

// ---------------------------------------------------------------------------
// One-time payments and transfers.

describe('one-time payments and transfers', () => {
  const TAG = 'order_1001';
  const tagHash = keccak256(stringToHex(TAG));
  const amounts = [10n * E18, 25n * E18 / 10n];
  const payment = (over: Record<string, unknown> = {}) => ({
    id: id32(31, 'ee'),
    description: 'Café ☕ & croissant 🥐',
    sender: ALICE,
    token: 'USDT',
    category: 'Food & Drink',
    tag: TAG,
    timestamp: TIME,
    transactionHash: txHash(7),
    transactionStatus: 'confirmed',
    receivers: [
      { user: BOB, amount: '10', fee: '0.1' },
      { user: CAROL, amount: '2.5', fee: '0.025' },
    ],
    ...over,
  });
  const legs = (token: string) => [BOB, CAROL].flatMap((user, i) => f.leg({ token, sender: ALICE, receiver: user, amount: amounts[i], pct: 100n, paymentType: f.PAYMENT_TYPE.oneTime, metadata: `0x${'0'.repeat(64)}` }));
  const oneTimeLogs = (token: string, description = 'Café ☕ & croissant 🥐') => [
    ...legs(token),
    f.payment(BSC.oneTime, ALICE, tagHash, token, description, 'Food & Drink'),
    f.receiverEvent(BSC.oneTime, BOB, amounts[0]),
    f.receiverEvent(BSC.oneTime, CAROL, amounts[1]),
  ];
  const raw = (logs: f.LogSpec[]) => f.receipt({ hash: txHash(7), block: BLOCK, from: ALICE, to: BSC.oneTime, logs });
  const subject = (over: Record<string, unknown> = {}): Subject => ({ collection: 'one-time/payments', record: payment(over) });

  it('verified: legs, Payment (with UTF-8 strings) and a Receiver per receiver', () => {
    expect(verdictOf({ subject: subject(), receipt: raw(oneTimeLogs(BSC.usdt)) }).verdict).toBe('verified');
  });

  it.each([
    ['receivers[1].amount', { receivers: [{ user: BOB, amount: '10', fee: '0.1' }, { user: CAROL, amount: '2.4', fee: '0.025' }] }, { field: 'receivers[1].amount', api: '2.4', chain: '2.5' }],
    ['receivers[0].user', { receivers: [{ user: CAROL, amount: '10', fee: '0.1' }, { user: CAROL, amount: '2.5', fee: '0.025' }] }, { field: 'receivers[0].user', api: CAROL, chain: BOB }],
    ['receivers[1].fee', { receivers: [{ user: BOB, amount: '10', fee: '0.1' }, { user: CAROL, amount: '2.5', fee: '0.03' }] }, { field: 'receivers[1].fee', api: '0.03', chain: '0.025' }],
    ['description', { description: 'Cafe' }, { field: 'description', api: 'Cafe', chain: 'Café ☕ & croissant 🥐' }],
    ['category', { category: 'Shop' }, { field: 'category', api: 'Shop', chain: 'Food & Drink' }],
    ['tag', { tag: 'order_1002' }, { field: 'tag', api: keccak256(stringToHex('order_1002')), chain: tagHash }],
    ['sender', { sender: CAROL }, { field: 'sender', api: CAROL, chain: ALICE }],
  ])('mismatch: %s', (_name, over, difference) => {
    expect(verdictOf({ subject: subject(over), receipt: raw(oneTimeLogs(BSC.usdt)) }).differences).toEqual([difference]);
  });

  it('mismatch: the API lists a third receiver the chain does not pay', () => {
    const receivers = [...payment().receivers, { user: KEEPER, amount: '1', fee: '0.01' }];
    expect(verdictOf({ subject: subject({ receivers }), receipt: raw(oneTimeLogs(BSC.usdt)) }).differences).toEqual([{ field: 'receivers', api: 3, chain: 2 }]);
  });

  it('mismatch, not spoofed: no Receiver event at all, from anyone', () => {
    const logs = oneTimeLogs(BSC.usdt).filter((l) => l.topics[0] !== f.TOPIC.receiver);
    expect(verdictOf({ subject: subject(), receipt: raw(logs) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'event', api: 'Receiver', chain: null }, { field: 'receivers', api: 2, chain: 0 }] });
  });

  it('spoofed: Receiver events from a look-alike OneTime', () => {
    const logs = oneTimeLogs(BSC.usdt).map((l) => (l.topics[0] === f.TOPIC.receiver ? { ...l, address: f.LOOKALIKE } : l));
    expect(verdictOf({ subject: subject(), receipt: raw(logs) }).verdict).toBe('spoofed');
  });

  describe('native coin: no Transfer logs, the value pays the receivers (§5)', () => {
    const bnbPayment = () => subject({ token: 'BNB' });
    const tx = (value: bigint) => f.transaction({ hash: txHash(7), from: ALICE, to: BSC.oneTime, value, block: BLOCK });

    it('verified when the value is the sum of the amounts', () => {
      expect(verdictOf({ subject: bnbPayment(), receipt: raw(oneTimeLogs(f.NATIVE)), tx: tx(amounts[0] + amounts[1]) }).verdict).toBe('verified');
    });

    it('mismatch when the value falls short', () => {
      expect(verdictOf({ subject: bnbPayment(), receipt: raw(oneTimeLogs(f.NATIVE)), tx: tx(amounts[0]) }).differences).toEqual([{ field: 'event', api: 'value = Σ Receiver amounts', chain: null }]);
    });

    it('mismatch when the value exceeds the sum by 1 wei (§5 is an equality)', () => {
      // 10 + 2.5 BNB written out in wei, plus one.
      const over = 12_500_000_000_000_000_001n;
      expect(verdictOf({ subject: bnbPayment(), receipt: raw(oneTimeLogs(f.NATIVE)), tx: tx(over) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'event', api: 'value = Σ Receiver amounts', chain: null }] });
    });
  });

  it('one-time transfer: the payment\'s leg, Payment and Receiver of its receiver', () => {
    const transfer = { description: 'Café ☕ & croissant 🥐', amount: '2.5', fee: '0.025', token: 'USDT', category: 'Food & Drink', timestamp: TIME, transactionHash: txHash(7), transactionStatus: 'confirmed', sender: ALICE, receiver: CAROL, oneTimeId: id32(31, 'ee') };
    const s = (over: Record<string, unknown> = {}): Subject => ({ collection: 'one-time/transfers', record: { ...transfer, ...over } });
    expect(verdictOf({ subject: s(), receipt: raw(oneTimeLogs(BSC.usdt)) }).verdict).toBe('verified');
    expect(verdictOf({ subject: s({ fee: '0.0251' }), receipt: raw(oneTimeLogs(BSC.usdt)) }).differences).toEqual([{ field: 'fee', api: '0.0251', chain: '0.025' }]);
    expect(verdictOf({ subject: s({ amount: '10' }), receipt: raw(oneTimeLogs(BSC.usdt)) }).differences).toEqual([{ field: 'amount', api: '10', chain: '2.5' }]);
    for (const [field, value, chain] of [
      ['sender', KEEPER, ALICE],
      ['description', 'x', 'Café ☕ & croissant 🥐'],
      ['category', 'Shop', 'Food & Drink'],
      ['token', 'BUSD', BSC.usdt],
    ] as const) {
      expect(verdictOf({ subject: s({ [field]: value }), receipt: raw(oneTimeLogs(BSC.usdt)) }).differences, field).toEqual([{ field, api: value, chain, ...(field === 'token' ? { note: 'USDT' } : {}) }]);
    }
    // A receiver the payment does not pay.
    expect(verdictOf({ subject: s({ receiver: KEEPER }), receipt: raw(oneTimeLogs(BSC.usdt)) }).verdict).toBe('mismatch');
  });

  describe('the leg moves what the record says: its TransferSuccessful amount (and the token Transfer it pays) is held against the API amount, not only the Receiver event', () => {
    // CAROL's Receiver says 2.5 USDT, as the API does; her leg (and its token Transfers) moves one wei more,
    // whose fee floor(amount × 100 / 10000) is still 0.025: only the amount tells them apart.
    const over = amounts[1] + 1n;
    const logsPayingCarol = (amount: bigint) => [
      ...f.leg({ token: BSC.usdt, sender: ALICE, receiver: CAROL, amount, pct: 100n, paymentType: f.PAYMENT_TYPE.oneTime, metadata: `0x${'0'.repeat(64)}` }),
      f.payment(BSC.oneTime, ALICE, tagHash, BSC.usdt, 'Café ☕ & croissant 🥐', 'Food & Drink'),
      f.receiverEvent(BSC.oneTime, CAROL, amounts[1]),
    ];
    const transfer = { description: 'Café ☕ & croissant 🥐', amount: '2.5', fee: '0.025', token: 'USDT', category: 'Food & Drink', timestamp: TIME, transactionHash: txHash(7), transactionStatus: 'confirmed', sender: ALICE, receiver: CAROL, oneTimeId: id32(31, 'ee') };

    it('a one-time transfer whose leg moves 1 wei more than its amount is a mismatch naming the amount', () => {
      const s: Subject = { collection: 'one-time/transfers', record: transfer };
      expect(verdictOf({ subject: s, receipt: raw(logsPayingCarol(amounts[1])) })).toMatchObject({ verdict: 'verified', differences: [] });
      expect(verdictOf({ subject: s, receipt: raw(logsPayingCarol(over)) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'amount', api: '2.5', chain: '2.500000000000000001' }] });
    });

    it('a one-receiver payment whose only leg moves 1 wei more than its receiver\'s amount is a mismatch', () => {
      const s: Subject = { collection: 'one-time/payments', record: payment({ receivers: [{ user: CAROL, amount: '2.5', fee: '0.025' }] }) };
      expect(verdictOf({ subject: s, receipt: raw(logsPayingCarol(amounts[1])) }).verdict).toBe('verified');
      expect(verdictOf({ subject: s, receipt: raw(logsPayingCarol(over)) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'receivers[0].amount', api: '2.5', chain: '2.500000000000000001' }] });
    });

    it('an API amount that differs from both the Receiver and the leg is one difference, said once', () => {
      const s: Subject = { collection: 'one-time/transfers', record: { ...transfer, amount: '2.4' } };
      expect(verdictOf({ subject: s, receipt: raw(logsPayingCarol(amounts[1])) }).differences).toEqual([{ field: 'amount', api: '2.4', chain: '2.5' }]);
    });
  });

  it('one-time transfer: its Payment\'s tag is its payment\'s, by oneTimeId (§7); another payment\'s, or a payment nobody knows, is a tag difference', () => {
    const transfer = { description: 'Café ☕ & croissant 🥐', amount: '2.5', fee: '0.025', token: 'USDT', category: 'Food & Drink', timestamp: TIME, transactionHash: txHash(7), transactionStatus: 'confirmed', sender: ALICE, receiver: CAROL, oneTimeId: id32(31, 'ee') };
    const s = (paymentTag: string | null): Subject => ({ collection: 'one-time/transfers', record: transfer, paymentTag });
    // The hash the chain holds is keccak256("order_1001"), written here as viem hashes it.
    expect(verdictOf({ subject: s(TAG), receipt: raw(oneTimeLogs(BSC.usdt)) })).toMatchObject({ verdict: 'verified', differences: [] });
    expect(verdictOf({ subject: s('order_2002'), receipt: raw(oneTimeLogs(BSC.usdt)) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'tag', api: keccak256(stringToHex('order_2002')), chain: tagHash }] });
    expect(verdictOf({ subject: s(null), receipt: raw(oneTimeLogs(BSC.usdt)) })).toEqual(expect.objectContaining({ verdict: 'mismatch', differences: [{ field: 'tag', api: null, chain: tagHash }] }));
    // Why there is no tag (the mirror lacks the payment) is said beside the difference, and only there.
    const why = 'payment 0x… is not in the mirror';
    expect(verdictOf({ subject: { ...s(null), noPayment: why }, receipt: raw(oneTimeLogs(BSC.usdt)) }).differences).toEqual([{ field: 'tag', api: null, chain: tagHash, note: why }]);
    expect(verdictOf({ subject: { ...s(TAG), noPayment: why }, receipt: raw(oneTimeLogs(BSC.usdt)) }).differences).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
// Wallet-to-wallet: no 8pay contract, one token Transfer per receiver.

describe('wallet-to-wallet', () => {
  const INTERMEDIARY = '0x5555555555555555555555555555555555555555';
  const payment = (token = 'USDT') => ({
    id: '123e4567-e89b-12d3-a456-426614174000',
    description: 'd',
    email: 'x',
    token,
    category: 'c',
    tag: 't',
    timestamp: TIME - 10,
    serviceFee: '0.1',
    receivers: [
      { user: BOB, amount: '3', fee: '0.03', timestamp: TIME - 5, transactionHash: txHash(40), transactionStatus: 'confirmed' },
      { user: CAROL, amount: '4', fee: '0.04', timestamp: TIME, transactionHash: txHash(41), transactionStatus: 'confirmed' },
    ],
  });
  const raw = (logs: f.LogSpec[]) => f.receipt({ hash: txHash(41), block: BLOCK, from: INTERMEDIARY, to: BSC.usdt, logs });

  it('each receiver is its own transaction: receiver 1 verified by its Transfer', () => {
    const s: Subject = { collection: 'wallet-to-wallet/payments', record: payment(), receiver: 1 };
    expect(verdictOf({ subject: s, receipt: raw([f.erc20Transfer(BSC.usdt, INTERMEDIARY, CAROL, 4n * E18)]) }).verdict).toBe('verified');
    expect(verdictOf({ subject: s, receipt: raw([f.erc20Transfer(BSC.usdt, INTERMEDIARY, CAROL, 3n * E18)]) }).differences).toEqual([{ field: 'receivers[1].amount', api: '4', chain: '3' }]);
    // Receiver 0's timestamp is TIME - 5: the block of receiver 1 says TIME.
    const s0: Subject = { collection: 'wallet-to-wallet/payments', record: { ...payment(), receivers: [{ ...payment().receivers[0], transactionHash: txHash(41) }] }, receiver: 0 };
    expect(verdictOf({ subject: s0, receipt: raw([f.erc20Transfer(BSC.usdt, INTERMEDIARY, BOB, 3n * E18)]) }).differences).toEqual([{ field: 'receivers[0].timestamp', api: TIME - 5, chain: TIME }]);
  });

  it('spoofed: the Transfer comes from a look-alike token contract', () => {
    const s: Subject = { collection: 'wallet-to-wallet/payments', record: payment(), receiver: 1 };
    expect(verdictOf({ subject: s, receipt: raw([f.erc20Transfer(f.LOOKALIKE, INTERMEDIARY, CAROL, 4n * E18)]) }).verdict).toBe('spoofed');
  });

  it('mismatch, not spoofed: another token of 8pay\'s list paid the user', () => {
    const s: Subject = { collection: 'wallet-to-wallet/payments', record: payment(), receiver: 1 };
    expect(verdictOf({ subject: s, receipt: raw([f.erc20Transfer(BSC.busd, INTERMEDIARY, CAROL, 4n * E18)]) }).differences).toEqual([{ field: 'token', api: 'USDT', chain: BSC.busd, note: 'BUSD' }]);
  });

  it('native: the transaction sends the user the amount as its value, with no log', () => {
    const s: Subject = { collection: 'wallet-to-wallet/payments', record: payment('BNB'), receiver: 1 };
    const tx = (to: string, value: bigint) => f.transaction({ hash: txHash(41), from: INTERMEDIARY, to, value, block: BLOCK });
    const r = f.receipt({ hash: txHash(41), block: BLOCK, from: INTERMEDIARY, to: CAROL, logs: [] });
    expect(verdictOf({ subject: s, receipt: r, tx: tx(CAROL, 4n * E18) }).verdict).toBe('verified');
    expect(verdictOf({ subject: s, receipt: r, tx: tx(BOB, 4n * E18) }).differences).toEqual([{ field: 'receivers[1].user', api: CAROL, chain: BOB }]);
    // The value is the amount paid: one wei less is a difference of the amount (4 BNB less 1e-18, written out).
    expect(verdictOf({ subject: s, receipt: r, tx: tx(CAROL, 4n * E18 - 1n) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'receivers[1].amount', api: '4', chain: '3.999999999999999999' }] });
  });

  it('transfers: receiver, amount and token of one Transfer', () => {
    const record = { description: 'd', amount: '4', fee: '0', token: 'USDT', category: 'c', timestamp: TIME, transactionHash: txHash(41), transactionStatus: 'confirmed', email: 'x', receiver: CAROL, payment_id: 'p' };
    expect(verdictOf({ subject: { collection: 'wallet-to-wallet/transfers', record }, receipt: raw([f.erc20Transfer(BSC.usdt, INTERMEDIARY, CAROL, 4n * E18)]) }).verdict).toBe('verified');
    expect(verdictOf({ subject: { collection: 'wallet-to-wallet/transfers', record: { ...record, token: 'BUSD' } }, receipt: raw([f.erc20Transfer(BSC.usdt, INTERMEDIARY, CAROL, 4n * E18)]) }).differences).toEqual([{ field: 'token', api: 'BUSD', chain: BSC.usdt, note: 'USDT' }]);
    expect(verdictOf({ subject: { collection: 'wallet-to-wallet/transfers', record }, receipt: raw([f.erc20Transfer(f.LOOKALIKE, INTERMEDIARY, CAROL, 4n * E18)]) }).verdict).toBe('spoofed');
    expect(verdictOf({ subject: { collection: 'wallet-to-wallet/transfers', record: { ...record, receiver: BOB } }, receipt: raw([f.erc20Transfer(BSC.usdt, INTERMEDIARY, CAROL, 4n * E18)]) }).differences).toEqual([{ field: 'receiver', api: BOB, chain: CAROL }]);
    expect(verdictOf({ subject: { collection: 'wallet-to-wallet/transfers', record: { ...record, amount: '5' } }, receipt: raw([f.erc20Transfer(BSC.usdt, INTERMEDIARY, CAROL, 4n * E18)]) }).differences).toEqual([{ field: 'amount', api: '5', chain: '4' }]);
    // Two Transfers from the token: the one to the receiver counts.
    expect(verdictOf({ subject: { collection: 'wallet-to-wallet/transfers', record }, receipt: raw([f.erc20Transfer(BSC.usdt, INTERMEDIARY, BOB, 1n), f.erc20Transfer(BSC.usdt, INTERMEDIARY, CAROL, 4n * E18)]) }).verdict).toBe('verified');
    expect(verdictOf({ subject: { collection: 'wallet-to-wallet/transfers', record }, receipt: raw([]) }).differences).toEqual([{ field: 'event', api: 'Transfer (token)', chain: null }]);
  });
});

// ---------------------------------------------------------------------------
// Dollar-cost-average executions.

describe('dollar-cost-average executions', () => {
  const STRATEGY = id32(51, 'ff');
  const inputs = [3n * E18, 2n * E18];
  const outputs = [15n * E18 / 1000n, 4n * E18];
  const record = (over: Record<string, unknown> = {}) => ({
    strategyId: STRATEGY,
    timestamp: TIME,
    transactionHash: txHash(8),
    transactionStatus: 'confirmed',
    inputToken: 'USDT',
    fee: '0.05',
    swaps: [
      { inputAmount: '3', outputAmount: '0.015', outputToken: '8PAY' },
      { inputAmount: '2', outputAmount: '4', outputToken: 'BUSD' },
    ],
    ...over,
  });
  const logs = [
    ...f.leg({ token: BSC.usdt, sender: ALICE, receiver: BSC.dollarCostAverage, amount: inputs[0] + inputs[1], pct: 100n, paymentType: DCA_TYPE, metadata: STRATEGY }),
    f.strategyExecuted(BSC.dollarCostAverage, STRATEGY, BSC.usdt, inputs, [BSC.eightPayV2, BSC.busd], outputs),
  ];
  const raw = () => f.receipt({ hash: txHash(8), block: BLOCK, from: KEEPER, to: BSC.dollarCostAverage, logs });

  it('verified: StrategyExecuted\'s swaps, the fee on the sum of inputs; 8PAY found as 8PAY v2', () => {
    expect(verdictOf({ subject: { collection: 'dollar-cost-average/executions', record: record() }, receipt: raw() }).verdict).toBe('verified');
  });

  it('mismatch: a leg that pays other than the sum of the swaps\' inputs (§7: amount = Σ inputAmount)', () => {
    // 3 + 2 USDT in the swaps; the leg takes one wei more (its fee floor(amount / 100) is still 0.05).
    const more = [
      ...f.leg({ token: BSC.usdt, sender: ALICE, receiver: BSC.dollarCostAverage, amount: 5n * E18 + 1n, pct: 100n, paymentType: DCA_TYPE, metadata: STRATEGY }),
      f.strategyExecuted(BSC.dollarCostAverage, STRATEGY, BSC.usdt, inputs, [BSC.eightPayV2, BSC.busd], outputs),
    ];
    const receipt = f.receipt({ hash: txHash(8), block: BLOCK, from: KEEPER, to: BSC.dollarCostAverage, logs: more });
    expect(verdictOf({ subject: { collection: 'dollar-cost-average/executions', record: record() }, receipt })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'event', api: 'leg amount = Σ swaps\' inputAmount', chain: null }] });
  });

  it('mismatch: another strategy\'s execution', () => {
    const other = id32(52, 'ff');
    expect(verdictOf({ subject: { collection: 'dollar-cost-average/executions', record: record({ strategyId: other }) }, receipt: raw() }).differences).toEqual([{ field: 'strategyId', api: other, chain: STRATEGY }]);
  });

  it.each([
    ['swaps[1].outputAmount', { swaps: [{ inputAmount: '3', outputAmount: '0.015', outputToken: '8PAY' }, { inputAmount: '2', outputAmount: '4.5', outputToken: 'BUSD' }] }, { field: 'swaps[1].outputAmount', api: '4.5', chain: '4' }],
    ['swaps[0].outputToken', { swaps: [{ inputAmount: '3', outputAmount: '0.015', outputToken: 'BUSD' }, { inputAmount: '2', outputAmount: '4', outputToken: 'BUSD' }] }, { field: 'swaps[0].outputToken', api: 'BUSD', chain: BSC.eightPayV2, note: '8PAY v2' }],
    ['fee', { fee: '0.06' }, { field: 'fee', api: '0.06', chain: '0.05' }],
    ['swaps', { swaps: [{ inputAmount: '3', outputAmount: '0.015', outputToken: '8PAY' }] }, { field: 'swaps', api: 1, chain: 2 }],
    ['swaps[0].inputAmount', { swaps: [{ inputAmount: '3.1', outputAmount: '0.015', outputToken: '8PAY' }, { inputAmount: '2', outputAmount: '4', outputToken: 'BUSD' }] }, { field: 'swaps[0].inputAmount', api: '3.1', chain: '3' }],
    ['inputToken', { inputToken: 'BUSD', fee: '0.05' }, { field: 'inputToken', api: 'BUSD', chain: BSC.usdt, note: 'USDT' }],
  ])('mismatch: %s', (_name, over, difference) => {
    expect(verdictOf({ subject: { collection: 'dollar-cost-average/executions', record: record(over) }, receipt: raw() }).differences).toEqual([difference]);
  });
});

describe('answers the node cannot give', () => {
  it.each([
    ['a blockNumber that is not hex', (r: any) => (r.blockNumber = '0xzz')],
    ['a status other than 0x0 and 0x1', (r: any) => (r.status = '0x2')],
    ['log data of odd length', (r: any) => (r.logs[0].data = '0x123')],
    ['an address of 19 bytes', (r: any) => (r.from = '0x' + '1'.repeat(38))],
    ['a hash of 31 bytes', (r: any) => (r.blockHash = '0x' + 'b'.repeat(62))],
  ])('a receipt with %s is refused (exit 6), never read', (_name, spoil) => {
    const r = billingReceipt();
    spoil(r);
    expect(() => parseReceipt(r, txHash(1))).toThrow(/the chain's node sent a receipt of .* payrec cannot use/);
  });

  it('the receipt of another transaction is refused', () => {
    expect(() => parseReceipt(billingReceipt(), txHash(2))).toThrow(/the receipt of 0x7+0+1 when asked for 0x7+0+2/);
  });

  it('a block of another height is refused', () => {
    expect(() => parseBlock(f.block(BLOCK + 1, TIME), BigInt(BLOCK))).toThrow(/block 1001 when asked for block 1000/);
  });

  it('an 8pay event whose data does not decode is refused', () => {
    const logs = [...billingLeg(), { ...f.fixedBilling(BSC.frManagement, PLAN, SUB, TIME, CYCLE_END), words: [f.uint(TIME)] }];
    expect(() => verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) })).toThrow(/a Billing log from 8pay's contract .* that does not decode/);
  });

  it('a look-alike log that does not decode is noise', () => {
    const logs = [...billingLeg(), { ...f.fixedBilling(f.LOOKALIKE, PLAN, SUB, TIME, CYCLE_END), words: [f.uint(TIME)] }, f.fixedBilling(BSC.frManagement, PLAN, SUB, TIME, CYCLE_END)];
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) }).verdict).toBe('verified');
  });
});

describe('a record verified in parts (a wallet-to-wallet payment)', () => {
  it('takes the worst of its receivers\' verdicts: bad before unconfirmed before pending before verified', () => {
    expect(worst(['verified', 'pending'])).toBe('pending');
    expect(worst(['pending', 'unconfirmed'])).toBe('unconfirmed');
    expect(worst(['unconfirmed', 'mismatch', 'verified'])).toBe('mismatch');
    expect(worst(['spoofed', 'missing'])).toBe('missing');
    expect(worst(['verified', 'verified'])).toBe('verified');
  });

  it('every bad verdict before the next, in the order a reader acts on: missing, reorged, reverted, spoofed, mismatch', () => {
    // Each pair both ways round, so no verdict is found by its place in the list.
    const order = ['missing', 'reorged', 'reverted', 'spoofed', 'mismatch', 'unconfirmed', 'pending', 'verified'] as const;
    for (let i = 0; i < order.length; i++) {
      for (let j = i + 1; j < order.length; j++) {
        expect(worst([order[i], order[j]])).toBe(order[i]);
        expect(worst([order[j], order[i]])).toBe(order[i]);
      }
    }
  });
});

describe('a wallet-to-wallet payment judged by its receivers (combine)', () => {
  const part = (verdict: Judgement['verdict'], confirmations: number | null, blockNumber: number | null): Judgement => ({ verdict, confirmations, blockNumber, blockHash: null, differences: [] });
  it('the record\'s confirmations are the fewest of its receivers\', its block the latest', () => {
    // Receivers paid at blocks 980 and 996 of a head at 1000: 21 and 5 confirmations.
    expect(combine([part('verified', 21, 980), part('unconfirmed', 5, 996)])).toMatchObject({ verdict: 'unconfirmed', confirmations: 5, blockNumber: 996 });
    expect(combine([part('unconfirmed', 5, 996), part('verified', 21, 980)])).toMatchObject({ confirmations: 5, blockNumber: 996 });
    // A receiver with no receipt has no count: the others' fewest.
    expect(combine([part('missing', null, null), part('verified', 30, 971)])).toMatchObject({ verdict: 'missing', confirmations: 30, blockNumber: 971 });
  });
});

describe('the pieces the rules stand on', () => {
  it('a receipt above the head (a node behind its own receipts) has 0 confirmations, not a negative count', () => {
    const j = verdictOf({ subject: billing(), receipt: billingReceipt(), head: BLOCK - 5 });
    expect(j).toMatchObject({ verdict: 'unconfirmed', confirmations: 0 });
  });

  it('an API amount is a plain decimal, whole: text around it, or more decimals than the token, is no amount', () => {
    expect(baseUnits('9.99', 18)).toBe(999n * 10n ** 16n);
    expect(baseUnits('-1.5', 6)).toBe(-1_500_000n);
    expect(baseUnits('x9.99', 18)).toBeUndefined();
    expect(baseUnits('9.99x', 18)).toBeUndefined();
    expect(baseUnits('9.', 18)).toBeUndefined();
    expect(baseUnits('0.0000001', 6)).toBeUndefined();
  });

  it('a path reads nested fields and any index, and nothing below a null or a text', () => {
    const record = { receivers: Array.from({ length: 12 }, (_, i) => ({ amount: String(i) })), token: 'USDT', none: null };
    expect(valueAt(record, 'receivers[11].amount')).toBe('11');
    expect(valueAt(record, 'receivers[12].amount')).toBeUndefined();
    expect(valueAt(record, 'none.amount')).toBeUndefined();
    expect(valueAt(record, 'token.length')).toBeUndefined();
    expect(valueAt(record, 'receivers.x[0]')).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------
// The rules again, each across every collection it holds for (issue 48: the decoder's
// mutation survivors that could change a verdict). Receipts by hand as above; the verdict
// each expects is read off ONCHAIN.md §7 and §9.

describe('§9 rule 5 for every collection: a failed record\'s reverted transaction is its own only when sent to that collection\'s contract by its sender', () => {
  const FORMER_BILLER = '0xd89817cb4109461a42278e6400be49de7d7716c1';
  const sub = { subscriptionId: SUB, forced: false };
  const paid = { sender: ALICE, receiver: BOB, amount: '2.5', fee: '0.025', token: 'USDT', subscriptionId: SUB };
  // [collection, the record's own fields, who sent it (the field the rule names), §7's "to" (the first named when another is found)]
  const rows: [string, Record<string, unknown>, 'triggeredBy' | 'sender' | undefined, string[]][] = [
    ['fixed-recurring/cancellations', { ...sub, triggeredBy: ALICE }, 'triggeredBy', [BSC.frSubscriptions, BSC.frManagement]],
    ['variable-recurring/cancellations', { ...sub, triggeredBy: ALICE }, 'triggeredBy', [BSC.vrManagement]],
    ['variable-recurring/cancellation-requests', { subscriptionId: SUB }, undefined, [BSC.vrSubscriptions]],
    ['variable-recurring/transfers', paid, undefined, [BSC.vrManagement, BSC.biller, FORMER_BILLER]],
    ['on-demand/transfers', paid, undefined, [BSC.odManagement, BSC.biller, FORMER_BILLER]],
    ['one-time/payments', { sender: ALICE, token: 'USDT', receivers: [{ user: BOB, amount: '2.5', fee: '0.025' }] }, 'sender', [BSC.oneTime]],
    ['scheduled-payments/transfers', { ...paid, subscriptionId: undefined, scheduleId: id32(21, 'dd') }, undefined, [BSC.scheduledPayments]],
    ['dollar-cost-average/executions', { strategyId: id32(51, 'ff'), inputToken: 'USDT', fee: '0.05', swaps: [] }, undefined, [BSC.dollarCostAverage]],
  ];
  const failed = (collection: string, own: Record<string, unknown>): Subject => ({ collection, record: { ...own, timestamp: TIME, transactionHash: txHash(1), transactionStatus: 'failed' } });
  const sent = (from: string, to: string) => f.receipt({ hash: txHash(1), block: BLOCK, from, to, status: '0x0' });

  it.each(rows)('%s', (collection, own, by, contracts) => {
    const s = failed(collection, own);
    // A keeper sends the transactions of the collections whose rule names no sender (a VR transfer's sender is the subscriber, not who sent it).
    const from = by ? ALICE : KEEPER;
    for (const to of contracts) expect(verdictOf({ subject: s, receipt: sent(from, to) }), to).toMatchObject({ verdict: 'verified', differences: [] });
    // A look-alike, or 8pay's contract of another collection, is not the record's.
    for (const to of [f.LOOKALIKE, collection === 'one-time/payments' ? BSC.frManagement : BSC.oneTime]) {
      expect(verdictOf({ subject: s, receipt: sent(from, to) }), to).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'to', api: contracts[0], chain: to }] });
    }
    if (by) expect(verdictOf({ subject: s, receipt: sent(CAROL, contracts[0]) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: by, api: ALICE, chain: CAROL }] });
  });

  describe('wallet-to-wallet: sent to the token\'s contract, or for the native coin to the user (§7)', () => {
    const w2wPayment = (token: string): Subject => ({
      collection: 'wallet-to-wallet/payments',
      record: { token, receivers: [{ user: BOB, amount: '3', transactionHash: txHash(9), transactionStatus: 'confirmed' }, { user: CAROL, amount: '4', transactionHash: txHash(1), transactionStatus: 'failed' }] },
      receiver: 1,
    });
    const w2wTransfer = (token: string): Subject => failed('wallet-to-wallet/transfers', { receiver: BOB, amount: '5', token });

    it('a payment\'s receiver: its own user, not another receiver\'s', () => {
      expect(verdictOf({ subject: w2wPayment('BNB'), receipt: sent(ALICE, CAROL) })).toMatchObject({ verdict: 'verified', differences: [] });
      expect(verdictOf({ subject: w2wPayment('BNB'), receipt: sent(ALICE, BOB) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'to', api: CAROL, chain: BOB }] });
      expect(verdictOf({ subject: w2wPayment('USDT'), receipt: sent(ALICE, BSC.usdt) })).toMatchObject({ verdict: 'verified', differences: [] });
      expect(verdictOf({ subject: w2wPayment('USDT'), receipt: sent(ALICE, CAROL) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'to', api: BSC.usdt, chain: CAROL }] });
    });

    it('a native transfer sent to another than its receiver', () => {
      expect(verdictOf({ subject: w2wTransfer('BNB'), receipt: sent(ALICE, CAROL) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'to', api: BOB, chain: CAROL }] });
    });

    it('a token the list does not know: the contract the transaction went to is the token, a difference (never verified on a contract nobody named)', () => {
      expect(verdictOf({ subject: w2wTransfer('FOO'), receipt: sent(ALICE, f.LOOKALIKE) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'token', api: 'FOO', chain: f.LOOKALIKE, note: "not in 8pay's token list" }] });
      expect(verdictOf({ subject: w2wTransfer('FOO'), receipt: sent(ALICE, BSC.busd) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'token', api: 'FOO', chain: BSC.busd, note: 'BUSD' }] });
    });
  });
});

describe('a leg\'s fee Transfer (§7: [Transfer to the fee collector if fee > 0])', () => {
  it('mismatch: a fee owed with no fee Transfer, the net Transfer the only one of the token (never taken for the fee)', () => {
    const logs = [...billingLeg().filter((l) => l.topics[2] !== `0x${f.addr(f.FEE_COLLECTOR)}`), f.fixedBilling(BSC.frManagement, PLAN, SUB, TIME, CYCLE_END)];
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'event', api: 'Transfer (fee, token)', chain: null }] });
  });

  it('verified: a fee that floors to 0 (99 wei at 1 %) has no fee Transfer', () => {
    const logs = [...billingLeg({ amount: 99n }), f.fixedBilling(BSC.frManagement, PLAN, SUB, TIME, CYCLE_END)];
    expect(logs.filter((l) => l.topics[0] === f.TOPIC.erc20Transfer)).toHaveLength(1);
    expect(verdictOf({ subject: billing({ amount: '0.000000000000000099', fee: '0' }), receipt: billingReceipt({ logs }) })).toMatchObject({ verdict: 'verified', differences: [] });
  });
});

describe('paid or failed, terminated or cancelled: which event is the record\'s when 8pay emitted none of its own', () => {
  it('spoofed: a failed billing whose BillingFailed comes only from a look-alike', () => {
    const logs = [
      f.transferFailed({ token: BSC.usdt, sender: ALICE, receiver: BOB, amount: 999n * E18 / 100n, paymentType: f.PAYMENT_TYPE.fixedRecurring, metadata: SUB }),
      f.fixedBillingFailed(f.LOOKALIKE, PLAN, SUB),
    ];
    expect(verdictOf({ subject: billing({ success: 0 }), receipt: billingReceipt({ logs }) })).toMatchObject({ verdict: 'spoofed', differences: [{ field: 'BillingFailed emitter', api: BSC.frManagement, chain: f.LOOKALIKE }] });
  });

  // §9 puts spoofed before mismatch: the record's own event from a look-alike says more than another subscription's beside it.
  const other = id32(3, 'cc');
  const othersPaid = [...billingLeg({ metadata: other, sender: CAROL }), f.fixedBilling(BSC.frManagement, PLAN, other, TIME, CYCLE_END)];
  const ownFailed = f.transferFailed({ token: BSC.usdt, sender: ALICE, receiver: BOB, amount: 999n * E18 / 100n, paymentType: f.PAYMENT_TYPE.fixedRecurring, metadata: SUB });

  it('spoofed: a paid billing whose Billing comes from a look-alike, beside another subscription\'s Billing from 8pay', () => {
    const logs = [...billingLeg(), f.fixedBilling(f.LOOKALIKE, PLAN, SUB, TIME, CYCLE_END), ...othersPaid];
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) })).toMatchObject({ verdict: 'spoofed', differences: [{ field: 'Billing emitter', api: BSC.frManagement, chain: f.LOOKALIKE }] });
  });

  it('spoofed: a failed billing whose BillingFailed comes from a look-alike, beside another subscription\'s Billing from 8pay', () => {
    const logs = [ownFailed, f.fixedBillingFailed(f.LOOKALIKE, PLAN, SUB), ...othersPaid];
    expect(verdictOf({ subject: billing({ success: 0 }), receipt: billingReceipt({ logs }) })).toMatchObject({ verdict: 'spoofed', differences: [{ field: 'BillingFailed emitter', api: BSC.frManagement, chain: f.LOOKALIKE }] });
  });

  it('verified: its own Billing from 8pay, whatever a look-alike says it failed', () => {
    const logs = [...billingLeg(), f.fixedBilling(BSC.frManagement, PLAN, SUB, TIME, CYCLE_END), f.fixedBillingFailed(f.LOOKALIKE, PLAN, SUB)];
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs }) })).toMatchObject({ verdict: 'verified', differences: [] });
    const failedLogs = [ownFailed, f.fixedBillingFailed(BSC.frManagement, PLAN, SUB), f.fixedBilling(f.LOOKALIKE, PLAN, SUB, TIME, CYCLE_END)];
    expect(verdictOf({ subject: billing({ success: 0 }), receipt: billingReceipt({ logs: failedLogs }) })).toMatchObject({ verdict: 'verified', differences: [] });
  });

  it('mismatch: another subscription\'s Billing, the only event there, tells what differs from a record said failed', () => {
    expect(verdictOf({ subject: billing({ success: 0 }), receipt: billingReceipt({ logs: othersPaid }) }).differences).toEqual([
      { field: 'success', api: 0, chain: 1 },
      { field: 'subscriptionId', api: SUB, chain: other },
    ]);
  });

  it('mismatch: neither event at all: the one the API names is missing', () => {
    expect(verdictOf({ subject: billing({ success: 0 }), receipt: billingReceipt({ logs: [] }) }).differences).toEqual([{ field: 'event', api: 'BillingFailed', chain: null }]);
    expect(verdictOf({ subject: billing(), receipt: billingReceipt({ logs: [] }) }).differences).toEqual([{ field: 'event', api: 'Billing', chain: null }]);
  });

  it('a cancellation the same way: its own event from a look-alike is spoofed beside another subscription\'s of the other kind from 8pay', () => {
    const raw = (logs: f.LogSpec[]) => f.receipt({ hash: txHash(5), block: BLOCK, from: ALICE, to: BSC.frManagement, logs });
    const cancellation = (forced: boolean): Subject => ({ collection: 'fixed-recurring/cancellations', record: { subscriptionId: SUB, timestamp: TIME, forced, triggeredBy: ALICE, transactionHash: txHash(5), transactionStatus: 'confirmed' } });
    const cancelledByLookAlike = [f.subscriptionEvent(f.TOPIC.subscriptionCancelled, f.LOOKALIKE, PLAN, SUB), f.subscriptionEvent(f.TOPIC.subscriptionTerminated, BSC.frManagement, PLAN, other)];
    expect(verdictOf({ subject: cancellation(false), receipt: raw(cancelledByLookAlike) })).toMatchObject({ verdict: 'spoofed', differences: [{ field: 'SubscriptionCancelled emitter', api: BSC.frSubscriptions, chain: f.LOOKALIKE }] });
    const terminatedByLookAlike = [f.subscriptionEvent(f.TOPIC.subscriptionTerminated, f.LOOKALIKE, PLAN, SUB), f.subscriptionEvent(f.TOPIC.subscriptionCancelled, BSC.frSubscriptions, PLAN, other)];
    expect(verdictOf({ subject: cancellation(true), receipt: raw(terminatedByLookAlike) })).toMatchObject({ verdict: 'spoofed', differences: [{ field: 'SubscriptionTerminated emitter', api: BSC.frManagement, chain: f.LOOKALIKE }] });
    // Its own from 8pay decides, whatever the API says of forced.
    const own = [f.subscriptionEvent(f.TOPIC.subscriptionTerminated, BSC.frManagement, PLAN, SUB), f.subscriptionEvent(f.TOPIC.subscriptionCancelled, BSC.frSubscriptions, PLAN, other)];
    expect(verdictOf({ subject: cancellation(false), receipt: raw(own) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'forced', api: false, chain: true }] });
  });

  it('spoofed, in any collection: the record\'s own event from a look-alike beside another record\'s from 8pay (a VR Billing)', () => {
    const amount = 25n * E18 / 10n;
    const logs = [
      ...f.leg({ token: BSC.usdt, sender: ALICE, receiver: BOB, amount, pct: 100n, paymentType: f.PAYMENT_TYPE.variableRecurring, metadata: SUB }),
      f.variableBilling(f.LOOKALIKE, PLAN, SUB, amount, TIME - 86400, TIME - 1),
      f.variableBilling(BSC.vrManagement, PLAN, other, amount, TIME - 86400, TIME - 1),
    ];
    const record = { sender: ALICE, receiver: BOB, amount: '2.5', fee: '0.025', token: 'USDT', subscriptionId: SUB, planId: PLAN, timestamp: TIME, transactionHash: txHash(6), transactionStatus: 'confirmed' };
    const receipt = f.receipt({ hash: txHash(6), block: BLOCK, from: KEEPER, to: BSC.vrManagement, logs });
    expect(verdictOf({ subject: { collection: 'variable-recurring/transfers', record }, receipt })).toMatchObject({ verdict: 'spoofed', differences: [{ field: 'Billing emitter', api: BSC.vrManagement, chain: f.LOOKALIKE }] });
  });
});

describe('the record\'s own event where one transaction holds several (§7: matched by subscriptionId, scheduleId, strategyId or receiver, never by position)', () => {
  // Two of each in one transaction, the record's the second: [id, sender, amount] differ, so the other's would show.
  const ids = [id32(61, 'cc'), id32(62, 'cc')];
  const senders = [ALICE, CAROL];
  const amounts = [25n * E18 / 10n, 4n * E18];
  const second = { sender: CAROL, receiver: BOB, amount: '4', fee: '0.04', token: 'USDT', timestamp: TIME, transactionHash: txHash(6), transactionStatus: 'confirmed' };
  const legOf = (i: number, paymentType: string, receiver = BOB) => f.leg({ token: BSC.usdt, sender: senders[i], receiver, amount: amounts[i], pct: 100n, paymentType, metadata: ids[i] });
  const raw = (to: string, logs: f.LogSpec[]) => f.receipt({ hash: txHash(6), block: BLOCK, from: KEEPER, to, logs });

  it.each([
    ['variable-recurring/transfers', f.PAYMENT_TYPE.variableRecurring, (i: number) => f.variableBilling(BSC.vrManagement, PLAN, ids[i], amounts[i], TIME - 86400, TIME - 1)],
    ['on-demand/transfers', f.PAYMENT_TYPE.onDemand, (i: number) => f.onDemandBilling(BSC.odManagement, PLAN, ids[i], amounts[i])],
  ])('%s: autobilled, two subscriptions by the Biller', (collection, paymentType, billingOf) => {
    const receipt = raw(BSC.biller, [...[0, 1].flatMap((i) => [...legOf(i, paymentType), billingOf(i)]), f.billEvent(BSC.biller, KEEPER, PLAN, ids)]);
    const s = (over: Record<string, unknown> = {}): Subject => ({ collection, record: { ...second, planId: PLAN, subscriptionId: ids[1], ...over } });
    expect(verdictOf({ subject: s(), receipt })).toMatchObject({ verdict: 'verified', differences: [] });
    expect(verdictOf({ subject: s({ sender: ALICE, amount: '2.5', fee: '0.025' }), receipt })).toMatchObject({
      verdict: 'mismatch',
      differences: [
        { field: 'amount', api: '2.5', chain: '4' },
        { field: 'sender', api: ALICE, chain: CAROL },
        { field: 'fee', api: '0.025', chain: '0.04' },
      ],
    });
  });

  it('scheduled payments: two schedules executed in one transaction', () => {
    const receipt = raw(BSC.scheduledPayments, [0, 1].flatMap((i) => [...legOf(i, SP_TYPE), f.scheduleExecuted(BSC.scheduledPayments, ids[i])]));
    const s = (over: Record<string, unknown> = {}): Subject => ({ collection: 'scheduled-payments/transfers', record: { ...second, scheduleId: ids[1], ...over } });
    expect(verdictOf({ subject: s(), receipt })).toMatchObject({ verdict: 'verified', differences: [] });
    expect(verdictOf({ subject: s({ sender: ALICE }), receipt }).differences).toEqual([{ field: 'sender', api: ALICE, chain: CAROL }]);
  });

  it('dollar-cost average: two strategies executed in one transaction', () => {
    // Strategy i swaps its whole leg (2.5 or 4 USDT) for one BUSD figure.
    const outputs = [3n * E18, 5n * E18];
    const receipt = raw(BSC.dollarCostAverage, [0, 1].flatMap((i) => [...legOf(i, DCA_TYPE, BSC.dollarCostAverage), f.strategyExecuted(BSC.dollarCostAverage, ids[i], BSC.usdt, [amounts[i]], [BSC.busd], [outputs[i]])]));
    const s = (over: Record<string, unknown> = {}): Subject => ({
      collection: 'dollar-cost-average/executions',
      record: { strategyId: ids[1], timestamp: TIME, transactionHash: txHash(6), transactionStatus: 'confirmed', inputToken: 'USDT', fee: '0.04', swaps: [{ inputAmount: '4', outputAmount: '5', outputToken: 'BUSD' }], ...over },
    });
    expect(verdictOf({ subject: s(), receipt })).toMatchObject({ verdict: 'verified', differences: [] });
    expect(verdictOf({ subject: s({ fee: '0.025' }), receipt }).differences).toEqual([{ field: 'fee', api: '0.025', chain: '0.04' }]);
  });

  describe('one-time: each receiver\'s leg pays that account that amount, with metadata 0', () => {
    const TAG = 'order_1001';
    const legTo = (user: string, amount: bigint, over: Partial<f.Leg> = {}) => f.leg({ token: BSC.usdt, sender: ALICE, receiver: user, amount, pct: 100n, paymentType: f.PAYMENT_TYPE.oneTime, metadata: `0x${'0'.repeat(64)}`, ...over });
    const paying = (legs: f.LogSpec[], receivers: [string, bigint][]) =>
      f.receipt({ hash: txHash(7), block: BLOCK, from: ALICE, to: BSC.oneTime, logs: [...legs, f.payment(BSC.oneTime, ALICE, keccak256(stringToHex(TAG)), BSC.usdt, 'd', 'c'), ...receivers.map(([u, a]) => f.receiverEvent(BSC.oneTime, u, a))] });
    const common = { description: 'd', category: 'c', sender: ALICE, token: 'USDT', timestamp: TIME, transactionHash: txHash(7), transactionStatus: 'confirmed' };
    const payment = (receivers: { user: string; amount: string; fee: string }[]): Subject => ({ collection: 'one-time/payments', record: { ...common, tag: TAG, receivers } });
    const ten = 10n * E18;

    it('one account paid twice: each Receiver by its leg of that amount', () => {
      const receipt = paying([...legTo(BOB, ten), ...legTo(BOB, amounts[0])], [[BOB, ten], [BOB, amounts[0]]]);
      expect(verdictOf({ subject: payment([{ user: BOB, amount: '10', fee: '0.1' }, { user: BOB, amount: '2.5', fee: '0.025' }]), receipt })).toMatchObject({ verdict: 'verified', differences: [] });
    });

    it('mismatch: two Receivers of 10, both legs paying the first account (the second was never paid)', () => {
      const receipt = paying([...legTo(BOB, ten), ...legTo(BOB, ten)], [[BOB, ten], [CAROL, ten]]);
      expect(verdictOf({ subject: payment([{ user: BOB, amount: '10', fee: '0.1' }, { user: CAROL, amount: '10', fee: '0.1' }]), receipt })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'event', api: 'TransferSuccessful', chain: null }] });
    });

    it('a leg to the same account with a subscription\'s metadata beside it is not the payment\'s (payment and transfer)', () => {
      const other = legTo(BOB, ten, { metadata: SUB, paymentType: f.PAYMENT_TYPE.fixedRecurring });
      const receipt = paying([...other, ...legTo(BOB, ten)], [[BOB, ten]]);
      expect(verdictOf({ subject: payment([{ user: BOB, amount: '10', fee: '0.1' }]), receipt })).toMatchObject({ verdict: 'verified', differences: [] });
      const transfer: Subject = { collection: 'one-time/transfers', record: { ...common, receiver: BOB, amount: '10', fee: '0.1' } };
      expect(verdictOf({ subject: transfer, receipt })).toMatchObject({ verdict: 'verified', differences: [] });
    });
  });
});

describe('an event the record needs that is not there is a mismatch naming it, never a crash (exit 1)', () => {
  const ok = { timestamp: TIME, transactionStatus: 'confirmed' };
  const amount = 25n * E18 / 10n;

  it('one-time payment and transfer with no Payment event', () => {
    const logs = [...f.leg({ token: BSC.usdt, sender: ALICE, receiver: BOB, amount, pct: 100n, paymentType: f.PAYMENT_TYPE.oneTime, metadata: `0x${'0'.repeat(64)}` }), f.receiverEvent(BSC.oneTime, BOB, amount)];
    const receipt = f.receipt({ hash: txHash(7), block: BLOCK, from: ALICE, to: BSC.oneTime, logs });
    const common = { ...ok, sender: ALICE, token: 'USDT', description: 'd', category: 'c', transactionHash: txHash(7) };
    const payment: Subject = { collection: 'one-time/payments', record: { ...common, tag: 't', receivers: [{ user: BOB, amount: '2.5', fee: '0.025' }] } };
    const transfer: Subject = { collection: 'one-time/transfers', record: { ...common, receiver: BOB, amount: '2.5', fee: '0.025' } };
    for (const s of [payment, transfer]) expect(verdictOf({ subject: s, receipt }), s.collection).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'event', api: 'Payment', chain: null }] });
  });

  it('a native wallet-to-wallet transfer whose transaction the node does not have', () => {
    const s: Subject = { collection: 'wallet-to-wallet/transfers', record: { ...ok, receiver: BOB, amount: '5', token: 'BNB', transactionHash: txHash(41) } };
    const receipt = f.receipt({ hash: txHash(41), block: BLOCK, from: CAROL, to: BOB, logs: [] });
    expect(verdictOf({ subject: s, receipt, tx: null })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'event', api: 'value to the user', chain: null }] });
  });

  describe('scheduled payments and dollar-cost average', () => {
    const SCHEDULE = id32(21, 'dd');
    const STRATEGY = id32(51, 'ff');
    const scheduled: Subject = { collection: 'scheduled-payments/transfers', record: { ...ok, scheduleId: SCHEDULE, sender: ALICE, receiver: BOB, amount: '2.5', fee: '0.025', token: 'USDT', transactionHash: txHash(6) } };
    const scheduledLeg = f.leg({ token: BSC.usdt, sender: ALICE, receiver: BOB, amount, pct: 100n, paymentType: SP_TYPE, metadata: SCHEDULE });
    const scheduledAt = (logs: f.LogSpec[]) => f.receipt({ hash: txHash(6), block: BLOCK, from: KEEPER, to: BSC.scheduledPayments, logs });
    const execution = (swaps: { inputAmount: string; outputAmount: string; outputToken: string }[]): Subject => ({
      collection: 'dollar-cost-average/executions',
      record: { ...ok, strategyId: STRATEGY, inputToken: 'USDT', fee: '0.025', swaps, transactionHash: txHash(8) },
    });
    const swaps = [
      { inputAmount: '1.5', outputAmount: '3', outputToken: 'BUSD' },
      { inputAmount: '1', outputAmount: '0.5', outputToken: '8PAY' },
    ];
    const dcaLeg = f.leg({ token: BSC.usdt, sender: ALICE, receiver: BSC.dollarCostAverage, amount, pct: 100n, paymentType: DCA_TYPE, metadata: STRATEGY });
    const executed = (outputTokens: string[], outputs: bigint[]) => f.strategyExecuted(BSC.dollarCostAverage, STRATEGY, BSC.usdt, [15n * E18 / 10n, E18], outputTokens, outputs);
    const dcaAt = (logs: f.LogSpec[]) => f.receipt({ hash: txHash(8), block: BLOCK, from: KEEPER, to: BSC.dollarCostAverage, logs });

    it('no ScheduleExecuted; no StrategyExecuted; no leg of the strategy', () => {
      expect(verdictOf({ subject: scheduled, receipt: scheduledAt(scheduledLeg) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'event', api: 'ScheduleExecuted', chain: null }] });
      expect(verdictOf({ subject: execution(swaps), receipt: dcaAt(dcaLeg) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'event', api: 'StrategyExecuted', chain: null }] });
      const whole = executed([BSC.busd, BSC.eightPayV2], [3n * E18, E18 / 2n]);
      expect(verdictOf({ subject: execution(swaps), receipt: dcaAt([...dcaLeg, whole]) })).toMatchObject({ verdict: 'verified', differences: [] });
      expect(verdictOf({ subject: execution(swaps), receipt: dcaAt([whole]) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'event', api: 'TransferSuccessful', chain: null }] });
    });

    it('a StrategyExecuted with fewer outputs than inputs: the swaps it makes whole are counted, and the API\'s second is not verified', () => {
      const short = executed([BSC.busd], [3n * E18]);
      expect(verdictOf({ subject: execution(swaps), receipt: dcaAt([...dcaLeg, short]) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'swaps', api: 2, chain: 1 }] });
      const oneToken = executed([BSC.busd], [3n * E18, E18 / 2n]);
      expect(verdictOf({ subject: execution(swaps), receipt: dcaAt([...dcaLeg, oneToken]) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'swaps', api: 2, chain: 1 }] });
      const noOutputs = executed([BSC.busd, BSC.eightPayV2], []);
      expect(verdictOf({ subject: execution(swaps), receipt: dcaAt([...dcaLeg, noOutputs]) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'swaps', api: 2, chain: 0 }] });
    });

    it('a contract whose PAYMENT_TYPE() did not answer: the leg\'s paymentType is not compared', () => {
      const receipt = scheduledAt([...scheduledLeg, f.scheduleExecuted(BSC.scheduledPayments, SCHEDULE)]);
      expect(verdictOf({ subject: scheduled, receipt, paymentTypes: {} })).toMatchObject({ verdict: 'verified', differences: [] });
      const whole = executed([BSC.busd, BSC.eightPayV2], [3n * E18, E18 / 2n]);
      expect(verdictOf({ subject: execution(swaps), receipt: dcaAt([...dcaLeg, whole]), paymentTypes: {} })).toMatchObject({ verdict: 'verified', differences: [] });
    });
  });
});

describe('what only one event says is held against the API too', () => {
  const TAG = 'order_1001';
  const amount = 25n * E18 / 10n;
  const zero = `0x${'0'.repeat(64)}`;
  const common = { description: 'd', category: 'c', sender: ALICE, token: 'USDT', timestamp: TIME, transactionHash: txHash(7), transactionStatus: 'confirmed' };
  const oneTime = (o: { legTo?: string; legAmount?: bigint; receiverOf?: string; receiverAmount?: bigint; paymentBy?: string; extra?: f.LogSpec[] } = {}) =>
    f.receipt({
      hash: txHash(7),
      block: BLOCK,
      from: ALICE,
      to: BSC.oneTime,
      logs: [
        ...f.leg({ token: BSC.usdt, sender: ALICE, receiver: o.legTo ?? BOB, amount: o.legAmount ?? amount, pct: 100n, paymentType: f.PAYMENT_TYPE.oneTime, metadata: zero }),
        f.payment(BSC.oneTime, o.paymentBy ?? ALICE, keccak256(stringToHex(TAG)), BSC.usdt, 'd', 'c'),
        f.receiverEvent(BSC.oneTime, o.receiverOf ?? BOB, o.receiverAmount ?? amount),
        ...(o.extra ?? []),
      ],
    });
  const payment: Subject = { collection: 'one-time/payments', record: { ...common, tag: TAG, receivers: [{ user: BOB, amount: '2.5', fee: '0.025' }] } };
  const transfer = (over: Record<string, unknown> = {}): Subject => ({ collection: 'one-time/transfers', record: { ...common, receiver: BOB, amount: '2.5', fee: '0.025', ...over } });

  it('a Receiver that says 1 wei more than its leg moved and the API says: a mismatch of the amount (payment and transfer)', () => {
    const receipt = oneTime({ receiverAmount: amount + 1n });
    expect(verdictOf({ subject: payment, receipt })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'receivers[0].amount', api: '2.5', chain: '2.500000000000000001' }] });
    expect(verdictOf({ subject: transfer(), receipt })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'amount', api: '2.5', chain: '2.500000000000000001' }] });
  });

  it('a one-time transfer whose only Receiver and leg pay another account than its receiver: a mismatch of the receiver', () => {
    expect(verdictOf({ subject: transfer(), receipt: oneTime({ legTo: CAROL, receiverOf: CAROL }) })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'receiver', api: BOB, chain: CAROL }] });
  });

  it('spoofed: the record\'s Payment (by its sender) from a look-alike, beside OneTime\'s Payment by another', () => {
    const lookAlike = f.payment(f.LOOKALIKE, ALICE, keccak256(stringToHex(TAG)), BSC.usdt, 'd', 'c');
    expect(verdictOf({ subject: transfer(), receipt: oneTime({ paymentBy: CAROL, extra: [lookAlike] }) })).toMatchObject({ verdict: 'spoofed', differences: [{ field: 'Payment emitter', api: BSC.oneTime, chain: f.LOOKALIKE }] });
  });

  it('spoofed names the look-alike that emitted the Receivers', () => {
    const receipt = oneTime({ extra: [] });
    receipt.logs = receipt.logs.map((l) => (l.topics[0] === f.TOPIC.receiver ? { ...l, address: f.LOOKALIKE } : l));
    expect(verdictOf({ subject: payment, receipt })).toMatchObject({ verdict: 'spoofed', differences: [{ field: 'Receiver emitter', api: BSC.oneTime, chain: f.LOOKALIKE }] });
  });

  it('a native payment whose transaction the node does not have: its value is unknown, a mismatch', () => {
    const native = { ...payment, record: { ...payment.record, token: 'BNB' } };
    const logs = [...f.leg({ token: f.NATIVE, sender: ALICE, receiver: BOB, amount, pct: 100n, paymentType: f.PAYMENT_TYPE.oneTime, metadata: zero }), f.payment(BSC.oneTime, ALICE, keccak256(stringToHex(TAG)), f.NATIVE, 'd', 'c'), f.receiverEvent(BSC.oneTime, BOB, amount)];
    const receipt = f.receipt({ hash: txHash(7), block: BLOCK, from: ALICE, to: BSC.oneTime, logs });
    expect(verdictOf({ subject: native, receipt, tx: null })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'event', api: 'value = Σ Receiver amounts', chain: null }] });
  });

  it('logs a node sends without their transaction or block hash are the receipt\'s own', () => {
    const receipt = billingReceipt();
    for (const l of receipt.logs as { transactionHash: string | null; blockHash: string | null }[]) [l.transactionHash, l.blockHash] = [null, null];
    expect(verdictOf({ subject: billing(), receipt })).toMatchObject({ verdict: 'verified', differences: [] });
  });

  describe('wallet-to-wallet', () => {
    const w2w = (token: string): Subject => ({ collection: 'wallet-to-wallet/transfers', record: { receiver: BOB, amount: '5', token, timestamp: TIME, transactionHash: txHash(41), transactionStatus: 'confirmed' } });
    const raw = (logs: f.LogSpec[]) => f.receipt({ hash: txHash(41), block: BLOCK, from: CAROL, to: BSC.usdt, logs });

    it('spoofed: a look-alike pays the user beside two USDT Transfers to others (neither taken by position); its emitter named', () => {
      const logs = [f.erc20Transfer(BSC.usdt, CAROL, KEEPER, 5n * E18), f.erc20Transfer(BSC.usdt, CAROL, ALICE, 5n * E18), f.erc20Transfer(f.LOOKALIKE, CAROL, BOB, 5n * E18)];
      expect(verdictOf({ subject: w2w('USDT'), receipt: raw(logs) })).toMatchObject({ verdict: 'spoofed', differences: [{ field: 'Transfer (token) emitter', api: BSC.usdt, chain: f.LOOKALIKE }] });
    });

    it('a native transaction that creates a contract (no `to`) pays no user: a mismatch of the receiver', () => {
      const tx = { ...f.transaction({ hash: txHash(41), from: CAROL, to: BOB, value: 5n * E18, block: BLOCK }), to: null } as unknown as ReturnType<typeof f.transaction>;
      expect(verdictOf({ subject: w2w('BNB'), receipt: raw([]), tx })).toMatchObject({ verdict: 'mismatch', differences: [{ field: 'receiver', api: BOB, chain: '(none)' }] });
    });
  });
});
