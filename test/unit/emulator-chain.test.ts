import { keccak256, stringToHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Datasets } from '../../src/emulator/datasets.js';
import { DOC_RECEIVER, DOC_SENDER } from '../../src/emulator/doc-examples.js';
import { ChainClock } from '../../src/emulator/chain/clock.js';
import { EmulatorChains } from '../../src/emulator/chain/network.js';
import type { Emulator } from '../../src/emulator/index.js';
import { NOW, start } from './emulator-helpers.js';

// The emulator's chain, held against ONCHAIN.md written out by hand: topic0s and
// paymentTypes are the literal hex of §1 and §2, contract and token addresses those of
// §3 and §4, words assembled here from §6's rules (a 32-byte word per static argument,
// addresses left-padded, amounts in the token's decimals). Nothing here comes from the
// emulator's layouts or from the verifier's decoder; keccak256 of a tag is viem's.

type Rec = Record<string, any>;

const TOPIC = {
  transferSuccessful: '0x9b46a0da5f707b77c9f201c809b13b51a23d0021661ca2507170f77ae89bfebe',
  transferFailed: '0x4c45cd22b4e3b4b88e39845093858a0064500f2a543cdc3b91181ac966eff1e9',
  frBilling: '0xa530b3e43f715d084eabc295a416ae25757b7f75ad9d81a209c9bc0cf28463b9',
  frBillingFailed: '0x55769d96845a5c40b83d8ca6036bb7d1a182e2633f14d92a6b3f7b3f68eac623',
  vrBilling: '0x3cfc0270c3135212fc493e5a32244d716bf1bfba21bb295b4e38b9d973cca158',
  odBilling: '0xe4f50b3e15d66caedd294c40aef73b7e87d592db16b11a3a274654bfbb44bf14',
  subscription: '0x86fe43349a633ff023a522ef3cd854877f6e5c664947884e9d7a8379071971f7',
  cancelled: '0x86f9401de1df2759428332a7c86a348e95dd52d5f5c83f2fdba9f2cf2048c526',
  terminated: '0xfab974090a7215cfde543a61c468e6ba008fce968dbccf5b258d8c7c0c8a9c20',
  cancellationRequested: '0x9c2484b2b70bc26564f1f8e5c9af20a90d83745ab8667195e111261b2edf4e91',
  payment: '0x6c461725b272d4f54c97a2dae69ba41c8e36a30b7e8af20fd64fdf0da2051341',
  receiver: '0x06fe3d87908d219dd2a21804fbb17f09c7e5b035f267faa393203a44fde23e96',
  scheduleExecuted: '0xba9b5086e80f9b5280dc213cdd4a1e7e413540c6d24e73b6dc6e2044aab95b0c',
  strategyExecuted: '0x6f2b183583d5697cbe5e30beeb11a0ccf05e8a98443527b52c0851fae92048f0',
  bill: '0x126e167c526042e2058a830e5cf4045cbbcb5c5be4d9b86759052382fe9cac61',
  erc20Transfer: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
};

const PAYMENT_TYPE = {
  oneTime: '321ceed4f135cef15526301774886b328eb3aaa7d23b372d0b5be8ca3acd3909',
  fixedRecurring: '02c1718384fdbb9852ba9053f128f835f2854848826d2f4ff6f9c500bd70ceef',
  variableRecurring: 'b8a122b9b26509d151d228bc909b2a694e59def8f9ed5e5a5f103ad5358d843a',
  onDemand: '2cdc6bad2365278be0013133b2edc3920d79217f94f79017e41b3eff0702b3ee',
};

/** 8pay on bsc (ONCHAIN.md §3), lower case as a node answers. */
const BSC = {
  transfers: '0x3a6da478e5c7d2abc3856d49fd99e1bbdef7c5a3',
  oneTime: '0x77a7540a9bb53fdd4ce759a531ba0296863a825c',
  frSubscriptions: '0x9cc66ed97e500b760500946af0ddb076f19d56c8',
  frManagement: '0x89fd6db2fea9b01be5c33a0a56e3636820c292cd',
  vrSubscriptions: '0x51d0c6f8562b21cb20e37afa71218799a6408f18',
  vrManagement: '0x8911d7b99716fdd7a39b5fc2f97077bd261319a4',
  odManagement: '0x2df3cf8c1771f4a7c89f597b05547ce72849af71',
  scheduledPayments: '0xdc371651b4b2d5c31250f2c23ed566f1b4a5e8b8',
  dollarCostAverage: '0xb655f311fcff2e0bd898a13e6412fe6bb6f617a3',
  biller: '0x5ce851daccba1be5e7c98690dd506d6f162f4ebd',
};

/** The API's symbols on bsc (§4): all 18 decimals; BNB is the native sentinel. */
const BSC_TOKENS: Record<string, string> = {
  USDT: '0x55d398326f99059ff775485246999027b3197955',
  USDC: '0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d',
  BUSD: '0xe9e7cea3dedca5984780bafc599bd69add087d56',
  '8PAY': '0x6eadc05928acd93efb3fa0dfbc644d96c6aa1df8',
  BNB: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
};
const NATIVE = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';

const word = (hex: string) => hex.replace(/^0x/, '').toLowerCase().padStart(64, '0');
const words = (data: string) => data.slice(2).match(/.{64}/g) ?? [];
const topicOf = (address: string) => `0x${word(address)}`;
/** A decimal string in units of 10^-decimals, cut (never rounded) the way a test can see. */
function units(value: string, decimals = 18): bigint {
  const [whole, fraction = ''] = value.split('.');
  return BigInt(whole + fraction.padEnd(decimals, '0').slice(0, decimals));
}
const hex = (n: bigint | number) => BigInt(n).toString(16);

let emu: Emulator;
const rpcCalls = async (calls: [string, unknown[]][], chain = 'bsc'): Promise<Rec[]> => {
  const res = await fetch(emu.rpcUrl(chain), {
    method: 'POST',
    body: JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params }))),
  });
  return ((await res.json()) as Rec[]).sort((a, b) => a.id - b.id);
};
const receiptOf = async (hash: string) => (await rpcCalls([['eth_getTransactionReceipt', [hash]]]))[0].result as Rec | null;
const txOf = async (hash: string) => (await rpcCalls([['eth_getTransactionByHash', [hash]]]))[0].result as Rec | null;

/** Hashes with a seeded discrepancy: the records a structural check must skip. */
let seeded: Set<string>;
const plain = (collection: string, ok: (r: Rec) => boolean = () => true): Rec[] =>
  (emu.records('bsc', collection).records as Rec[]).filter((r) => r.transactionStatus === 'confirmed' && !seeded.has(r.transactionHash) && ok(r));

beforeAll(async () => {
  emu = await start({ records: 250, seed: 1 });
  seeded = new Set(emu.chain.discrepancies('bsc').filter((d) => d.seeded).map((d) => d.transactionHash));
});
afterAll(() => emu.close());

/** Checks a leg (§2): [fee Transfer if fee > 0], net Transfer, TransferSuccessful; returns its feePercentage. */
function expectLeg(logs: Rec[], at: number, leg: { token: string; sender: string; receiver: string; amount: bigint; paymentType: string; metadata: string }): { next: number; fee: bigint } {
  const native = leg.token === NATIVE;
  // TransferSuccessful comes after the Transfers of its leg: find its word 5 (feePercentage) first.
  const successAt = native ? at : logs.findIndex((l, i) => i >= at && l.topics[0] === TOPIC.transferSuccessful);
  const ts = logs[successAt];
  expect(ts.address).toBe(BSC.transfers);
  expect(ts.topics).toEqual([TOPIC.transferSuccessful]);
  const w = words(ts.data);
  expect(w).toHaveLength(7);
  const feePercentage = BigInt(`0x${w[4]}`);
  expect(w.slice(0, 4)).toEqual([word(leg.token), word(leg.sender), word(leg.receiver), word(hex(leg.amount))]);
  expect(w.slice(5)).toEqual([word(leg.paymentType), word(leg.metadata)]);
  const fee = (leg.amount * feePercentage) / 10000n;
  if (native) {
    expect(successAt).toBe(at);
    return { next: at + 1, fee };
  }
  const transfers = logs.slice(at, successAt);
  const expected = [
    ...(fee > 0n ? [{ to: '', value: fee }] : []),
    { to: leg.receiver, value: leg.amount - fee },
  ];
  expect(transfers).toHaveLength(expected.length);
  transfers.forEach((t, i) => {
    expect(t.address).toBe(leg.token);
    expect(t.topics[0]).toBe(TOPIC.erc20Transfer);
    expect(t.topics[1]).toBe(topicOf(leg.sender));
    if (expected[i].to !== '') expect(t.topics[2]).toBe(topicOf(expected[i].to));
    expect(words(t.data)).toEqual([word(hex(expected[i].value))]);
  });
  return { next: successAt + 1, fee };
}

describe('the §6 example, built by the chain from a hand-made record', () => {
  it('5 8PAY one-time at 1 %: fee Transfer 0xb1a2bc2ec50000, net 0x44b1eec6162f0000, TransferSuccessful, Payment, Receiver', () => {
    const datasets = new Datasets({ seed: 1, records: 0, now: NOW });
    const chain = new EmulatorChains(datasets, 1).of('bsc');
    const record = {
      id: `0x${'1'.repeat(64)}`,
      description: 'Ebook',
      sender: DOC_SENDER,
      token: '8PAY',
      category: 'Shop',
      tag: 'ebook_859294',
      timestamp: NOW - 100,
      transactionHash: '0xb0f21bf5d722d981330d45d8625568cd0b356e8c7c464857131a6ebf99eadf80',
      transactionStatus: 'confirmed',
      receivers: [{ user: DOC_RECEIVER, amount: '5', fee: '0.05' }],
    };
    const built = chain.build('one-time/payments', record, 0);
    expect(built.kind).toBeUndefined();
    expect(built.differences).toEqual([]);
    const sender = '000000000000000000000000e42fd8a58a82fdf624a8a94da03a0e44f9934dff';
    const receiver = '000000000000000000000000b2e9f6f9414ea12a33302923a55b9b4cf99ccd90';
    const token = '0000000000000000000000006eadc05928acd93efb3fa0dfbc644d96c6aa1df8';
    const [fee, net, success, payment, recv] = built.draft.logs;
    expect(built.draft.logs).toHaveLength(5);
    expect(fee.address.toLowerCase()).toBe('0x6eadc05928acd93efb3fa0dfbc644d96c6aa1df8');
    expect(fee.topics.slice(0, 2)).toEqual([TOPIC.erc20Transfer, `0x${sender}`]);
    expect(fee.topics[2]).toBe(`0x${word(chain.feeCollector)}`);
    expect(fee.data).toBe(`0x${'0'.repeat(50)}b1a2bc2ec50000`);
    expect(net.topics).toEqual([TOPIC.erc20Transfer, `0x${sender}`, `0x${receiver}`]);
    expect(net.data).toBe(`0x${'0'.repeat(48)}44b1eec6162f0000`);
    expect(success.address.toLowerCase()).toBe(BSC.transfers);
    expect(success.topics).toEqual([TOPIC.transferSuccessful]);
    expect(success.data.length).toBe(450);
    expect(words(success.data)).toEqual([token, sender, receiver, `${'0'.repeat(48)}4563918244f40000`, `${'0'.repeat(62)}64`, PAYMENT_TYPE.oneTime, '0'.repeat(64)]);
    expect(payment.address.toLowerCase()).toBe(BSC.oneTime);
    expect(payment.topics).toEqual([TOPIC.payment, `0x${sender}`, keccak256(stringToHex('ebook_859294'))]);
    const ascii = (s: string) => Buffer.from(s).toString('hex').padEnd(64, '0');
    expect(words(payment.data)).toEqual([token, word('60'), word('a0'), word('5'), ascii('Ebook'), word('4'), ascii('Shop')]);
    expect(recv.topics).toEqual([TOPIC.receiver, `0x${receiver}`]);
    expect(words(recv.data)).toEqual([`${'0'.repeat(48)}4563918244f40000`]);
  });
});

describe('receipts of the emulator records, collection by collection (ONCHAIN.md §7)', () => {
  it('fixed-recurring billings: the subscribe (leg, Subscription, Billing from FR Subscriptions), a later one from FR Management, success 0, failed, pending', async () => {
    const facts = emu.subscriptions('bsc').subscriptions;
    const firstOf = new Map(facts.map((s) => [s.subscriptionId, s.billings[0].transactionHash as string]));
    const subscriberOf = new Map(facts.map((s) => [s.subscriptionId, s.subscriber.toLowerCase()]));
    const planOf = new Map(facts.map((s) => [s.subscriptionId, s.planId.toLowerCase()]));
    const nonNative = (r: Rec) => r.token !== 'BNB';

    const subscribe = plain('fixed-recurring/billings', (r) => nonNative(r) && firstOf.get(r.subscriptionId) === r.transactionHash)[0];
    const rs = (await receiptOf(subscribe.transactionHash))!;
    expect(rs.status).toBe('0x1');
    expect(rs.to).toBe(BSC.frSubscriptions);
    expect(rs.from).toBe(subscribe.triggeredBy.toLowerCase());
    /** A billing's leg: its subscriber pays the plan's receiver, metadata = the subscription. */
    const legOf = (r: Rec) => ({
      token: BSC_TOKENS[r.token],
      sender: subscriberOf.get(r.subscriptionId)!,
      receiver: r.receiver.toLowerCase(),
      amount: units(r.amount),
      paymentType: PAYMENT_TYPE.fixedRecurring,
      metadata: r.subscriptionId,
    });
    const { next } = expectLeg(rs.logs, 0, legOf(subscribe));
    const [sub, billing] = rs.logs.slice(next);
    expect(rs.logs).toHaveLength(next + 2);
    expect([sub.address, billing.address]).toEqual([BSC.frSubscriptions, BSC.frSubscriptions]);
    expect(sub.topics).toEqual([TOPIC.subscription, planOf.get(subscribe.subscriptionId), subscribe.subscriptionId, topicOf(subscriberOf.get(subscribe.subscriptionId)!)]);
    expect(sub.data).toBe('0x');
    expect(billing.topics).toEqual([TOPIC.frBilling, planOf.get(subscribe.subscriptionId), subscribe.subscriptionId]);
    expect(words(billing.data)).toEqual([word(hex(subscribe.cycleStart)), word(hex(subscribe.cycleEnd))]);

    // A later billing, alone (an autobilled one ends in Bill: checked below).
    const later = [];
    for (const r of plain('fixed-recurring/billings', (r) => nonNative(r) && r.success === 1 && firstOf.get(r.subscriptionId) !== r.transactionHash)) {
      const receipt = (await receiptOf(r.transactionHash))!;
      if (receipt.to === BSC.frManagement) later.push({ r, receipt });
      if (later.length > 0) break;
    }
    const { r, receipt } = later[0];
    const leg = expectLeg(receipt.logs, 0, legOf(r));
    expect(receipt.logs.slice(leg.next).map((l: Rec) => [l.address, l.topics[0]])).toEqual([[BSC.frManagement, TOPIC.frBilling]]);

    // success 0, confirmed: TransferFailed (6 words, no feePercentage) and BillingFailed.
    const refused = plain('fixed-recurring/billings', (r) => r.success === 0)[0];
    const rf = (await receiptOf(refused.transactionHash))!;
    expect(rf.status).toBe('0x1');
    const failed = rf.logs.filter((l: Rec) => l.topics[0] === TOPIC.transferFailed);
    expect(failed).toHaveLength(1);
    expect(words(failed[0].data)).toHaveLength(6);
    expect(words(failed[0].data).slice(1, 6)).toEqual([
      word(subscriberOf.get(refused.subscriptionId)!),
      word(refused.receiver),
      word(hex(units(refused.amount))),
      PAYMENT_TYPE.fixedRecurring,
      word(refused.subscriptionId),
    ]);
    const billingFailed = rf.logs.find((l: Rec) => l.topics[0] === TOPIC.frBillingFailed && l.topics[2] === refused.subscriptionId);
    expect(billingFailed).toMatchObject({ address: BSC.frManagement, data: '0x' });
    expect(rf.logs.some((l: Rec) => l.topics[0] === TOPIC.transferSuccessful && words(l.data)[6] === word(refused.subscriptionId))).toBe(false);

    // status failed: a reverted receipt (status 0x0, no logs).
    const reverted = (emu.records('bsc', 'fixed-recurring/billings').records as Rec[]).find((r) => r.transactionStatus === 'failed')!;
    expect(await receiptOf(reverted.transactionHash)).toMatchObject({ status: '0x0', logs: [], from: reverted.triggeredBy.toLowerCase() });

    // pending: no receipt; the transaction is known, in no block yet.
    const pending = (emu.records('bsc', 'fixed-recurring/billings').records as Rec[]).find((r) => r.transactionStatus === 'pending')!;
    expect(await receiptOf(pending.transactionHash)).toBeNull();
    expect(await txOf(pending.transactionHash)).toMatchObject({ hash: pending.transactionHash, blockHash: null, blockNumber: null, transactionIndex: null });
  });

  it('autobilled: one Biller transaction bills several subscriptions of the plan, the record among them, ended by Bill', async () => {
    const found: { r: Rec; receipt: Rec; collection: string }[] = [];
    for (const collection of ['variable-recurring/transfers', 'on-demand/transfers']) {
      for (const r of plain(collection, (r) => r.token !== 'BNB')) {
        const receipt = (await receiptOf(r.transactionHash))!;
        if (receipt.to === BSC.biller) {
          found.push({ r, receipt, collection });
          break;
        }
      }
    }
    expect(found.map((f) => f.collection)).toEqual(['variable-recurring/transfers', 'on-demand/transfers']);
    for (const { r, receipt, collection } of found) {
      const management = collection === 'on-demand/transfers' ? BSC.odManagement : BSC.vrManagement;
      const billingTopic = collection === 'on-demand/transfers' ? TOPIC.odBilling : TOPIC.vrBilling;
      const bill = receipt.logs.at(-1);
      expect(bill.address).toBe(BSC.biller);
      expect(bill.topics).toEqual([TOPIC.bill, topicOf(receipt.from), r.planId]);
      // Bill's data: offset of subscriptionIds (0x60), gasUsed, gasFee, then the array.
      const w = words(bill.data);
      expect(w[0]).toBe(word('60'));
      const count = Number(BigInt(`0x${w[3]}`));
      const ids = w.slice(4, 4 + count).map((x) => `0x${x}`);
      expect(count).toBeGreaterThan(1);
      expect(ids).toContain(r.subscriptionId);
      const billings = receipt.logs.filter((l: Rec) => l.topics[0] === billingTopic);
      expect(billings.map((l: Rec) => l.topics[2])).toEqual(ids);
      expect(billings.every((l: Rec) => l.address === management && l.topics[1] === r.planId)).toBe(true);
      // The record's own leg: the TransferSuccessful whose metadata is its subscription.
      const own = receipt.logs.filter((l: Rec) => l.topics[0] === TOPIC.transferSuccessful && words(l.data)[6] === word(r.subscriptionId));
      expect(own).toHaveLength(1);
      expect(words(own[0].data).slice(0, 4)).toEqual([word(BSC_TOKENS[r.token]), word(r.sender), word(r.receiver), word(hex(units(r.amount)))]);
      const ownBilling = billings.find((l: Rec) => l.topics[2] === r.subscriptionId);
      expect(words(ownBilling.data)[0]).toBe(word(hex(units(r.amount))));
    }
  });

  it('cancellations and cancellation requests: Cancelled (not forced) / Terminated (forced) from the right contract, triggeredBy as from', async () => {
    const fr = plain('fixed-recurring/cancellations');
    for (const forced of [false, true]) {
      const r = fr.find((x) => x.forced === forced)!;
      const receipt = (await receiptOf(r.transactionHash))!;
      const contract = forced ? BSC.frManagement : BSC.frSubscriptions;
      expect(receipt).toMatchObject({ from: r.triggeredBy.toLowerCase(), to: contract, status: '0x1' });
      expect(receipt.logs).toHaveLength(1);
      expect(receipt.logs[0].address).toBe(contract);
      expect(receipt.logs[0].topics.slice(0, 1).concat(receipt.logs[0].topics[2])).toEqual([forced ? TOPIC.terminated : TOPIC.cancelled, r.subscriptionId]);
      expect(receipt.logs[0].data).toBe('0x');
    }
    const vr = plain('variable-recurring/cancellations', (r) => r.forced);
    const terminated = (await receiptOf(vr[0].transactionHash))!;
    expect(terminated.logs.map((l: Rec) => [l.address, l.topics[0], l.topics[2]])).toEqual([[BSC.vrManagement, TOPIC.terminated, vr[0].subscriptionId]]);
    // Not forced: the last billing (leg + VR Billing), then SubscriptionCancelled, all from VR Management.
    const cancelled = plain('variable-recurring/cancellations', (r) => !r.forced)[0];
    const rc = (await receiptOf(cancelled.transactionHash))!;
    const tail = rc.logs.slice(-3).map((l: Rec) => [l.address, l.topics[0], l.topics[2] ?? null]);
    expect(tail).toEqual([
      [BSC.transfers, TOPIC.transferSuccessful, null],
      [BSC.vrManagement, TOPIC.vrBilling, cancelled.subscriptionId],
      [BSC.vrManagement, TOPIC.cancelled, cancelled.subscriptionId],
    ]);
    expect(words(rc.logs.at(-3).data)[6]).toBe(word(cancelled.subscriptionId));

    const request = plain('variable-recurring/cancellation-requests')[0];
    const rr = (await receiptOf(request.transactionHash))!;
    expect(rr.to).toBe(BSC.vrSubscriptions);
    expect(rr.logs.map((l: Rec) => [l.address, l.topics[0], l.topics[2], l.data])).toEqual([[BSC.vrSubscriptions, TOPIC.cancellationRequested, request.subscriptionId, '0x']]);
  });

  it('one-time payments: a leg per receiver, Payment, a Receiver per receiver; the native coin has no Transfer logs and value = Σ amounts', async () => {
    for (const native of [false, true]) {
      const r = plain('one-time/payments', (x) => (x.token === 'BNB') === native && x.receivers.length > 1)[0];
      const receipt = (await receiptOf(r.transactionHash))!;
      expect(receipt).toMatchObject({ from: r.sender.toLowerCase(), to: BSC.oneTime, status: '0x1' });
      let at = 0;
      for (const x of r.receivers) {
        at = expectLeg(receipt.logs, at, { token: BSC_TOKENS[r.token], sender: r.sender.toLowerCase(), receiver: x.user.toLowerCase(), amount: units(x.amount), paymentType: PAYMENT_TYPE.oneTime, metadata: '0' }).next;
      }
      const [payment, ...receivers] = receipt.logs.slice(at);
      expect(payment.topics).toEqual([TOPIC.payment, topicOf(r.sender), keccak256(stringToHex(r.tag))]);
      expect(receivers.map((l: Rec) => [l.topics[0], l.topics[1], words(l.data)[0]])).toEqual(r.receivers.map((x: Rec) => [TOPIC.receiver, topicOf(x.user), word(hex(units(x.amount)))]));
      const tx = (await txOf(r.transactionHash))!;
      const total = r.receivers.reduce((s: bigint, x: Rec) => s + units(x.amount), 0n);
      expect(BigInt(tx.value)).toBe(native ? total : 0n);
      if (native) expect(receipt.logs.some((l: Rec) => l.topics[0] === TOPIC.erc20Transfer)).toBe(false);
    }
  });

  it('wallet-to-wallet: one transaction per receiver from the payment\'s intermediary, an ERC-20 Transfer of the gross amount, or value for the native coin', async () => {
    const payments = (emu.records('bsc', 'wallet-to-wallet/payments').records as Rec[]).filter((p) => p.receivers.length > 1 && p.receivers.every((x: Rec) => x.transactionStatus === 'confirmed' && !seeded.has(x.transactionHash)));
    for (const native of [false, true]) {
      const p = payments.find((x) => (x.token === 'BNB') === native)!;
      const froms = new Set<string>();
      for (const x of p.receivers) {
        const receipt = (await receiptOf(x.transactionHash))!;
        const tx = (await txOf(x.transactionHash))!;
        froms.add(receipt.from);
        const block = (await rpcCalls([['eth_getBlockByNumber', [receipt.blockNumber, false]]]))[0].result;
        expect(Number(block.timestamp)).toBe(x.timestamp);
        if (native) {
          expect(receipt).toMatchObject({ to: x.user.toLowerCase(), logs: [] });
          expect(BigInt(tx.value)).toBe(units(x.amount));
        } else {
          expect(receipt.to).toBe(BSC_TOKENS[p.token]);
          expect(receipt.logs.map((l: Rec) => [l.address, l.topics[0], l.topics[1], l.topics[2], l.data])).toEqual([
            [BSC_TOKENS[p.token], TOPIC.erc20Transfer, topicOf(receipt.from), topicOf(x.user), `0x${word(hex(units(x.amount)))}`],
          ]);
        }
      }
      // A fresh intermediary per payment, the same for each of its receivers; never an 8pay contract.
      expect(froms.size).toBe(1);
      expect(Object.values(BSC)).not.toContain([...froms][0]);
    }
  });

  it('scheduled payments and DCA: a leg with metadata = the schedule/strategy id, then ScheduleExecuted / StrategyExecuted', async () => {
    const s = plain('scheduled-payments/transfers', (r) => r.token !== 'BNB')[0];
    const rs = (await receiptOf(s.transactionHash))!;
    expect(rs.to).toBe(BSC.scheduledPayments);
    const leg = expectLeg(rs.logs, 0, { token: BSC_TOKENS[s.token], sender: s.sender.toLowerCase(), receiver: s.receiver.toLowerCase(), amount: units(s.amount), paymentType: keccak256(stringToHex('SCHEDULED_PAYMENTS')), metadata: s.scheduleId });
    expect(rs.logs.slice(leg.next).map((l: Rec) => [l.address, ...l.topics, l.data])).toEqual([[BSC.scheduledPayments, TOPIC.scheduleExecuted, s.scheduleId, '0x']]);

    const d = plain('dollar-cost-average/executions', (r) => r.inputToken !== 'BNB' && r.swaps.length > 1)[0];
    const rd = (await receiptOf(d.transactionHash))!;
    expect(rd.to).toBe(BSC.dollarCostAverage);
    const total = d.swaps.reduce((sum: bigint, x: Rec) => sum + units(x.inputAmount), 0n);
    const success = rd.logs.find((l: Rec) => l.topics[0] === TOPIC.transferSuccessful);
    const w = words(success.data);
    expect([w[0], w[2], w[3], w[5], w[6]]).toEqual([word(BSC_TOKENS[d.inputToken]), word(BSC.dollarCostAverage), word(hex(total)), word(keccak256(stringToHex('DOLLAR_COST_AVERAGE'))), word(d.strategyId)]);
    const executed = rd.logs.at(-1);
    expect(executed.topics).toEqual([TOPIC.strategyExecuted, d.strategyId]);
    // inputToken, then three array offsets; each array is its length then its items.
    const e = words(executed.data);
    const array = (offsetWord: string) => {
      const at = Number(BigInt(`0x${offsetWord}`)) / 32;
      return e.slice(at + 1, at + 1 + Number(BigInt(`0x${e[at]}`)));
    };
    expect(e[0]).toBe(word(BSC_TOKENS[d.inputToken]));
    expect(array(e[1])).toEqual(d.swaps.map((x: Rec) => word(hex(units(x.inputAmount)))));
    expect(array(e[2])).toEqual(d.swaps.map((x: Rec) => word(BSC_TOKENS[x.outputToken])));
    expect(array(e[3])).toEqual(d.swaps.map((x: Rec) => word(hex(units(x.outputAmount)))));
  });

  it('block timestamps equal the records\' timestamps; the receipt names the canonical block', async () => {
    for (const collection of ['one-time/transfers', 'fixed-recurring/billings', 'scheduled-payments/transfers']) {
      for (const r of plain(collection).slice(0, 5)) {
        const receipt = (await receiptOf(r.transactionHash))!;
        const [block] = await rpcCalls([['eth_getBlockByNumber', [receipt.blockNumber, false]]]);
        expect(Number(block.result.timestamp)).toBe(r.timestamp);
        expect(block.result.hash).toBe(receipt.blockHash);
        expect(receipt.logs.every((l: Rec) => l.blockHash === receipt.blockHash && l.transactionHash === r.transactionHash)).toBe(true);
      }
    }
  });
});

describe('the chain clock', () => {
  it('has every transaction of the data mined at start, a wallet-to-wallet payment\'s receivers (sent up to 30 s later) too', () => {
    // A wall clock that stands still: the head stays at the anchor.
    const datasets = new Datasets({ seed: 1, records: 250, now: NOW });
    const chains = new EmulatorChains(datasets, 1, NOW, () => 0);
    for (const chain of ['bsc', 'ethereum']) {
      const payments = datasets.store(chain, 'wallet-to-wallet/payments').snapshot().bodies.map((b) => JSON.parse(b) as Rec);
      const receivers = payments.flatMap((p) => p.receivers as Rec[]);
      expect(receivers.length).toBeGreaterThan(0);
      expect(receivers.filter((x) => x.timestamp > chains.clock.now()).map((x) => x.transactionHash)).toEqual([]);
    }
    // The case it guards: ethereum's data has a payment in the anchor's last 30 seconds.
    const last = datasets.store('ethereum', 'wallet-to-wallet/payments').snapshot().bodies.map((b) => (JSON.parse(b) as Rec).timestamp);
    expect(Math.max(...last)).toBeGreaterThan(NOW - 30);
  });

  it('reaches the receivers of a wallet-to-wallet payment added live', () => {
    const datasets = new Datasets({ seed: 1, records: 0, now: NOW });
    const chains = new EmulatorChains(datasets, 1, NOW, () => 0);
    datasets.insert('bsc', 'wallet-to-wallet/payments', { timestamp: NOW + 100, record: { timestamp: NOW + 100, receivers: [{ timestamp: NOW + 100 }, { timestamp: NOW + 129 }] } });
    expect(chains.clock.now()).toBe(NOW + 129);
  });

  it('gives a payment added later the receivers its seed decides, stamped at the anchor or a second after, and reaches them', () => {
    // The same record (seed, index) stamped in the anchor's second and in the next: live
    // traffic on two emulators started together stamps it either way, as the wall clock goes.
    const [atAnchor, after] = [NOW, NOW + 1].map((timestamp) => {
      const datasets = new Datasets({ seed: 1, records: 5, now: NOW });
      const chains = new EmulatorChains(datasets, 1, NOW, () => 0);
      const entry = datasets.generate('bsc', 'wallet-to-wallet/payments', timestamp);
      datasets.insert('bsc', 'wallet-to-wallet/payments', entry);
      const receivers = (entry.record as Rec).receivers as Rec[];
      return { lags: receivers.map((x) => x.timestamp - timestamp), last: Math.max(...receivers.map((x) => x.timestamp)), head: chains.clock.now() };
    });
    expect(atAnchor.lags.some((lag: number) => lag > 0)).toBe(true);
    expect(atAnchor.lags).toEqual(after.lags);
    for (const x of [atAnchor, after]) expect(x.head).toBe(x.last);
  });

  it('starts at the anchor, runs with the wall clock, jumps to a later record, and mines on demand', () => {
    let wall = 5_000_000;
    const clock = new ChainClock(NOW, () => wall);
    expect(clock.now()).toBe(NOW);
    wall += 2_500;
    expect(clock.now()).toBe(NOW + 2);
    clock.reach(NOW + 100);
    expect(clock.now()).toBe(NOW + 100);
    clock.reach(NOW - 1000);
    expect(clock.now()).toBe(NOW + 100);
    wall += 1_000;
    expect(clock.now()).toBe(NOW + 101);
    clock.advance(50);
    expect(clock.now()).toBe(NOW + 151);
  });
});
