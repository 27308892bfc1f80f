// Receipts, logs and blocks written BY HAND from ONCHAIN.md's encoding rules (§1 topics,
// §6 words), as a JSON-RPC node answers them: neither the decoder under test nor the
// emulator's chain makes them. Topic0s are §1's literal hex; data is 32-byte words
// spelled out (a uint256 big-endian, an address after 12 zero bytes), dynamic values
// as offset, length and right-padded content.

/** ONCHAIN.md §1, copied. */
export const TOPIC = {
  transferSuccessful: '0x9b46a0da5f707b77c9f201c809b13b51a23d0021661ca2507170f77ae89bfebe',
  transferFailed: '0x4c45cd22b4e3b4b88e39845093858a0064500f2a543cdc3b91181ac966eff1e9',
  fixedBilling: '0xa530b3e43f715d084eabc295a416ae25757b7f75ad9d81a209c9bc0cf28463b9',
  fixedBillingFailed: '0x55769d96845a5c40b83d8ca6036bb7d1a182e2633f14d92a6b3f7b3f68eac623',
  variableBilling: '0x3cfc0270c3135212fc493e5a32244d716bf1bfba21bb295b4e38b9d973cca158',
  onDemandBilling: '0xe4f50b3e15d66caedd294c40aef73b7e87d592db16b11a3a274654bfbb44bf14',
  subscription: '0x86fe43349a633ff023a522ef3cd854877f6e5c664947884e9d7a8379071971f7',
  subscriptionCancelled: '0x86f9401de1df2759428332a7c86a348e95dd52d5f5c83f2fdba9f2cf2048c526',
  subscriptionTerminated: '0xfab974090a7215cfde543a61c468e6ba008fce968dbccf5b258d8c7c0c8a9c20',
  subscriptionCancellationRequested: '0x9c2484b2b70bc26564f1f8e5c9af20a90d83745ab8667195e111261b2edf4e91',
  payment: '0x6c461725b272d4f54c97a2dae69ba41c8e36a30b7e8af20fd64fdf0da2051341',
  receiver: '0x06fe3d87908d219dd2a21804fbb17f09c7e5b035f267faa393203a44fde23e96',
  scheduleExecuted: '0xba9b5086e80f9b5280dc213cdd4a1e7e413540c6d24e73b6dc6e2044aab95b0c',
  strategyExecuted: '0x6f2b183583d5697cbe5e30beeb11a0ccf05e8a98443527b52c0851fae92048f0',
  bill: '0x126e167c526042e2058a830e5cf4045cbbcb5c5be4d9b86759052382fe9cac61',
  erc20Transfer: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
} as const;

/** ONCHAIN.md §2's paymentType literals. */
export const PAYMENT_TYPE = {
  oneTime: '0x321ceed4f135cef15526301774886b328eb3aaa7d23b372d0b5be8ca3acd3909',
  fixedRecurring: '0x02c1718384fdbb9852ba9053f128f835f2854848826d2f4ff6f9c500bd70ceef',
  variableRecurring: '0xb8a122b9b26509d151d228bc909b2a694e59def8f9ed5e5a5f103ad5358d843a',
  onDemand: '0x2cdc6bad2365278be0013133b2edc3920d79217f94f79017e41b3eff0702b3ee',
} as const;

/** bsc's 8pay contracts (ONCHAIN.md §3), lower case as a node answers. */
export const BSC = {
  transfers: '0x3a6da478e5c7d2abc3856d49fd99e1bbdef7c5a3',
  oneTime: '0x77a7540a9bb53fdd4ce759a531ba0296863a825c',
  frSubscriptions: '0x9cc66ed97e500b760500946af0ddb076f19d56c8',
  frManagement: '0x89fd6db2fea9b01be5c33a0a56e3636820c292cd',
  vrSubscriptions: '0x51d0c6f8562b21cb20e37afa71218799a6408f18',
  vrManagement: '0x8911d7b99716fdd7a39b5fc2f97077bd261319a4',
  odSubscriptions: '0x67341ae3f9d9fc1242dd51705a846cc138b5095f',
  odManagement: '0x2df3cf8c1771f4a7c89f597b05547ce72849af71',
  scheduledPayments: '0xdc371651b4b2d5c31250f2c23ed566f1b4a5e8b8',
  dollarCostAverage: '0xb655f311fcff2e0bd898a13e6412fe6bb6f617a3',
  biller: '0x5ce851daccba1be5e7c98690dd506d6f162f4ebd',
  usdt: '0x55d398326f99059ff775485246999027b3197955',
  busd: '0xe9e7cea3dedca5984780bafc599bd69add087d56',
  eightPayV2: '0x6eadc05928acd93efb3fa0dfbc644d96c6aa1df8',
  eightPayV1: '0xfeea0bdd3d07eb6fe305938878c0cadbfa169042',
} as const;

export const NATIVE = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
export const FEE_COLLECTOR = '0x00000000000000000000000000000000000fee00';
/** An address that is not 8pay's: events from it are look-alikes. */
export const LOOKALIKE = '0x3a6da478e5c7d2abc3856d49fd99e1bbdef7c5a4';

export const ALICE = '0x1111111111111111111111111111111111111111';
export const BOB = '0x2222222222222222222222222222222222222222';
export const CAROL = '0x3333333333333333333333333333333333333333';
export const KEEPER = '0x4444444444444444444444444444444444444444';

/** A bytes32 id: `n` in the last byte(s). */
export const id32 = (n: number | bigint, fill = 'ab') => `0x${fill.repeat(30)}${BigInt(n).toString(16).padStart(4, '0')}`;
export const txHash = (n: number) => `0x${'7'.repeat(56)}${n.toString(16).padStart(8, '0')}`;
export const blockHash = (n: number, variant = 'b') => `0x${variant.repeat(56)}${n.toString(16).padStart(8, '0')}`;

/** One 32-byte word: a uint256 big-endian. */
export const uint = (n: bigint | number) => BigInt(n).toString(16).padStart(64, '0');
/** An address word: 12 zero bytes, then its 20 bytes (§6). */
export const addr = (a: string) => '0'.repeat(24) + a.slice(2).toLowerCase();
/** A bytes32 word as is. */
export const b32 = (h: string) => h.slice(2).toLowerCase();
/** A string's tail: length word, then its UTF-8 bytes padded on the right to whole words. */
export function str(s: string): string {
  const hex = Buffer.from(s, 'utf8').toString('hex');
  const padded = hex.padEnd(Math.ceil(hex.length / 64) * 64, '0');
  return uint(hex.length / 2) + padded;
}

export const E18 = 10n ** 18n;

export interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
  removed: boolean;
}

export type LogSpec = { address: string; topics: string[]; words: string[] };

export const hex = (n: number | bigint) => `0x${BigInt(n).toString(16)}`;

export function receipt(o: { hash: string; block: number; blockHash?: string; from: string; to: string; status?: '0x1' | '0x0'; logs?: LogSpec[] }) {
  const bh = o.blockHash ?? blockHash(o.block);
  const status = o.status ?? '0x1';
  return {
    transactionHash: o.hash,
    transactionIndex: '0x0',
    blockHash: bh,
    blockNumber: hex(o.block),
    from: o.from,
    to: o.to,
    gasUsed: '0x1d4c0',
    cumulativeGasUsed: '0x1d4c0',
    effectiveGasPrice: '0x3b9aca00',
    contractAddress: null,
    logs:
      status === '0x0'
        ? []
        : (o.logs ?? []).map((l, i): RawLog => ({
            address: l.address,
            topics: l.topics,
            data: `0x${l.words.join('')}`,
            blockNumber: hex(o.block),
            blockHash: bh,
            transactionHash: o.hash,
            transactionIndex: '0x0',
            logIndex: hex(i),
            removed: false,
          })),
    logsBloom: `0x${'0'.repeat(512)}`,
    status,
    type: '0x2',
  };
}

export function block(n: number, timestamp: number, variant = 'b') {
  return { number: hex(n), hash: blockHash(n, variant), parentHash: blockHash(n - 1, variant), timestamp: hex(timestamp), transactions: [] };
}

export function transaction(o: { hash: string; from: string; to: string; value: bigint; block: number | null }) {
  return {
    hash: o.hash,
    from: o.from,
    to: o.to,
    value: hex(o.value),
    input: '0x',
    nonce: '0x1',
    blockHash: o.block === null ? null : blockHash(o.block),
    blockNumber: o.block === null ? null : hex(o.block),
    transactionIndex: o.block === null ? null : '0x0',
  };
}

// ---- Events, word by word (§6).

export interface Leg {
  token: string;
  sender: string;
  receiver: string;
  amount: bigint;
  /** Hundredths of a percent (100 = 1 %). */
  pct: bigint;
  paymentType: string;
  metadata: string;
  feeCollector?: string;
  transfers?: string;
}

/** `[Transfer(sender→feeCollector, fee) if fee > 0], Transfer(sender→receiver, net), TransferSuccessful` (§7); the native coin has no Transfer logs. */
export function leg(l: Leg): LogSpec[] {
  const fee = (l.amount * l.pct) / 10000n;
  const out: LogSpec[] = [];
  if (l.token !== NATIVE) {
    if (fee > 0n) out.push({ address: l.token, topics: [TOPIC.erc20Transfer, `0x${addr(l.sender)}`, `0x${addr(l.feeCollector ?? FEE_COLLECTOR)}`], words: [uint(fee)] });
    out.push({ address: l.token, topics: [TOPIC.erc20Transfer, `0x${addr(l.sender)}`, `0x${addr(l.receiver)}`], words: [uint(l.amount - fee)] });
  }
  out.push({
    address: l.transfers ?? BSC.transfers,
    topics: [TOPIC.transferSuccessful],
    words: [addr(l.token), addr(l.sender), addr(l.receiver), uint(l.amount), uint(l.pct), b32(l.paymentType), b32(l.metadata)],
  });
  return out;
}

export function transferFailed(l: Omit<Leg, 'pct'>): LogSpec {
  return {
    address: l.transfers ?? BSC.transfers,
    topics: [TOPIC.transferFailed],
    words: [addr(l.token), addr(l.sender), addr(l.receiver), uint(l.amount), b32(l.paymentType), b32(l.metadata)],
  };
}

export const fixedBilling = (address: string, planId: string, subscriptionId: string, cycleStart: number, cycleEnd: number): LogSpec => ({
  address,
  topics: [TOPIC.fixedBilling, planId, subscriptionId],
  words: [uint(cycleStart), uint(cycleEnd)],
});

export const fixedBillingFailed = (address: string, planId: string, subscriptionId: string): LogSpec => ({ address, topics: [TOPIC.fixedBillingFailed, planId, subscriptionId], words: [] });

export const variableBilling = (address: string, planId: string, subscriptionId: string, amount: bigint, cycleStart: number, cycleEnd: number): LogSpec => ({
  address,
  topics: [TOPIC.variableBilling, planId, subscriptionId],
  words: [uint(amount), uint(cycleStart), uint(cycleEnd)],
});

export const onDemandBilling = (address: string, planId: string, subscriptionId: string, amount: bigint): LogSpec => ({
  address,
  topics: [TOPIC.onDemandBilling, planId, subscriptionId],
  words: [uint(amount)],
});

export const subscriptionEvent = (topic: string, address: string, planId: string, subscriptionId: string): LogSpec => ({ address, topics: [topic, planId, subscriptionId], words: [] });

/** Payment(sender i, tag i, token, description, category): token word, offset 0x60 of description, offset of category, then each as length + padded bytes (§6). */
export function payment(address: string, sender: string, tagHash: string, token: string, description: string, category: string): LogSpec {
  const d = str(description);
  const categoryOffset = 0x60 + d.length / 2;
  return { address, topics: [TOPIC.payment, `0x${addr(sender)}`, tagHash], words: [addr(token), uint(0x60), uint(categoryOffset), d, str(category)] };
}

export const receiverEvent = (address: string, account: string, amount: bigint): LogSpec => ({ address, topics: [TOPIC.receiver, `0x${addr(account)}`], words: [uint(amount)] });

export const erc20Transfer = (token: string, from: string, to: string, value: bigint): LogSpec => ({
  address: token,
  topics: [TOPIC.erc20Transfer, `0x${addr(from)}`, `0x${addr(to)}`],
  words: [uint(value)],
});

export const scheduleExecuted = (address: string, scheduleId: string): LogSpec => ({ address, topics: [TOPIC.scheduleExecuted, scheduleId], words: [] });

/** StrategyExecuted(id i, inputToken, inputAmounts, outputTokens, outputAmounts): inputToken, three offsets, then each array as length + elements. */
export function strategyExecuted(address: string, strategyId: string, inputToken: string, inputs: bigint[], outputTokens: string[], outputs: bigint[]): LogSpec {
  const arrayWords = (items: string[]) => uint(items.length) + items.join('');
  const a = arrayWords(inputs.map(uint));
  const b = arrayWords(outputTokens.map(addr));
  const c = arrayWords(outputs.map(uint));
  const first = 0x80;
  return {
    address,
    topics: [TOPIC.strategyExecuted, strategyId],
    words: [addr(inputToken), uint(first), uint(first + a.length / 2), uint(first + a.length / 2 + b.length / 2), a, b, c],
  };
}

/** Bill(executor i, planId i, subscriptionIds, gasUsed, gasFee): the autobiller's closing event. */
export function billEvent(address: string, executor: string, planId: string, subscriptionIds: string[]): LogSpec {
  return {
    address,
    topics: [TOPIC.bill, `0x${addr(executor)}`, planId],
    words: [uint(0x60), uint(21000), uint(12345), uint(subscriptionIds.length), ...subscriptionIds.map(b32)],
  };
}
