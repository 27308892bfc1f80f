import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseBlock, parseReceipt } from '../../src/chain/answers.js';
import { decode, type Subject } from '../../src/chain/decode.js';
import type { ResolvedToken } from '../../src/chain/tokens.js';
import { judge } from '../../src/chain/verdict.js';
import * as f from './chain-fixtures.js';

// Properties: random records encoded into receipts by hand (chain-fixtures.ts, from
// ONCHAIN.md §6) and read back by the decoder and the rules. A record the chain says
// the same of is verified; changing one field of the API record makes exactly that
// field the difference.

const usdt: ResolvedToken = { listed: 'USDT', address: f.BSC.usdt, decimals: 18, native: false, chainDecimals: 18 };
const tokens = new Map([['USDT', usdt]]);
const ctx = { chain: 'bsc' as const, feeCollector: f.FEE_COLLECTOR as `0x${string}`, paymentTypes: {}, tokenAddress: (s: unknown) => (s === 'USDT' ? usdt.address : undefined) };

/** An amount in base units as the API writes it: a decimal string of 18 decimals at most, no padding zeros. */
function text(units: bigint): string {
  const digits = units.toString().padStart(19, '0');
  const fraction = digits.slice(-18).replace(/0+$/, '');
  return fraction ? `${digits.slice(0, -18)}.${fraction}` : digits.slice(0, -18);
}

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString('hex')}`);
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `0x${Buffer.from(b).toString('hex')}`);

const billing = fc.record({
  amount: fc.bigInt({ min: 1n, max: 10n ** 30n }),
  pct: fc.bigInt({ min: 0n, max: 10000n }),
  sender: address,
  receiver: address,
  keeper: address,
  planId: bytes32,
  subscriptionId: bytes32,
  cycleStart: fc.integer({ min: 1, max: 2 ** 40 }),
  period: fc.integer({ min: 1, max: 2 ** 30 }),
  block: fc.integer({ min: 1, max: 2 ** 31 }),
  confirmations: fc.integer({ min: 1, max: 500 }),
});

type Billing = typeof billing extends fc.Arbitrary<infer T> ? T : never;

function encoded(b: Billing) {
  const hash = f.txHash(1);
  const cycleEnd = b.cycleStart + b.period - 1;
  const raw = f.receipt({
    hash,
    block: b.block,
    from: b.keeper,
    to: f.BSC.frManagement,
    logs: [
      ...f.leg({ token: f.BSC.usdt, sender: b.sender, receiver: b.receiver, amount: b.amount, pct: b.pct, paymentType: f.PAYMENT_TYPE.fixedRecurring, metadata: b.subscriptionId }),
      f.fixedBilling(f.BSC.frManagement, b.planId, b.subscriptionId, b.cycleStart, cycleEnd),
    ],
  });
  const record = {
    subscriptionId: b.subscriptionId,
    success: 1,
    amount: text(b.amount),
    fee: text((b.amount * b.pct) / 10000n),
    token: 'USDT',
    receiver: b.receiver,
    timestamp: b.cycleStart,
    cycleStart: b.cycleStart,
    cycleEnd,
    triggeredBy: b.keeper,
    transactionHash: hash,
    transactionStatus: 'confirmed',
  };
  return { raw, record, block: f.block(b.block, b.cycleStart) };
}

function judged(b: Billing, record: Record<string, unknown>, raw: ReturnType<typeof f.receipt>, block: ReturnType<typeof f.block>) {
  const subject: Subject = { collection: 'fixed-recurring/billings', record, planId: b.planId };
  const receipt = parseReceipt(raw, f.txHash(1));
  const view = decode(subject, { receipt, block: parseBlock(block, BigInt(b.block)) }, ctx);
  return judge(subject, view, { chain: 'bsc', head: BigInt(b.block + b.confirmations - 1), confirmations: b.confirmations, tokens });
}

describe('random billings encoded by hand and read back', () => {
  it('are verified when the API says what the chain says', () => {
    fc.assert(
      fc.property(billing, (b) => {
        const { raw, record, block } = encoded(b);
        expect(judged(b, record, raw, block)).toMatchObject({ verdict: 'verified', differences: [], blockNumber: b.block, confirmations: b.confirmations });
      }),
    );
  });

  it('are a mismatch naming exactly the field the API changed', () => {
    const change = fc.constantFrom('amount', 'fee', 'receiver', 'cycleStart', 'cycleEnd', 'triggeredBy', 'timestamp');
    fc.assert(
      fc.property(billing, change, (b, field) => {
        const { raw, record, block } = encoded(b);
        const r = record as Record<string, unknown>;
        const changed: Record<string, unknown> = { ...r };
        if (field === 'amount' || field === 'fee') changed[field] = `${r[field]}1`.includes('.') ? `${r[field]}1` : `${r[field]}.1`;
        else if (typeof r[field] === 'number') changed[field] = (r[field] as number) + 1;
        else changed[field] = `0x${'f'.repeat(40)}` === r[field] ? `0x${'e'.repeat(40)}` : `0x${'f'.repeat(40)}`;
        const j = judged(b, changed, raw, block);
        expect(j.verdict).toBe('mismatch');
        expect(j.differences.map((d) => d.field)).toEqual([field]);
      }),
    );
  });

  it('are unconfirmed one block short of the confirmations asked', () => {
    fc.assert(
      fc.property(billing.filter((b) => b.confirmations > 1), (b) => {
        const { raw, record, block } = encoded(b);
        const subject: Subject = { collection: 'fixed-recurring/billings', record, planId: b.planId };
        const view = decode(subject, { receipt: parseReceipt(raw, f.txHash(1)), block: parseBlock(block, BigInt(b.block)) }, ctx);
        expect(judge(subject, view, { chain: 'bsc', head: BigInt(b.block + b.confirmations - 2), confirmations: b.confirmations, tokens }).verdict).toBe('unconfirmed');
      }),
    );
  });
});
