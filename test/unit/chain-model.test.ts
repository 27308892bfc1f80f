import { describe, expect, it } from 'vitest';
import { getAddress, isAddress, keccak256, stringToHex, toEventSelector, toFunctionSelector } from 'viem';
import {
  CHAIN_IDS,
  CONTRACTS,
  DEFAULT_CONFIRMATIONS,
  EVENTS,
  FORMER_BILLERS,
  FUNCTIONS,
  NATIVE_TOKEN,
  PAYMENT_TYPE_NAMES,
  TOKENS,
} from '../../src/chain/model.js';

// The model is data copied from ../shared/ONCHAIN.md. These tests hold it against
// the literals of that file, computed by viem: a typo in an event's argument list,
// a paymentType name or a selector changes a hash and fails here.

describe('event topics (ONCHAIN.md §1)', () => {
  it.each([
    ['transferSuccessful', '0x9b46a0da5f707b77c9f201c809b13b51a23d0021661ca2507170f77ae89bfebe'],
    ['transferFailed', '0x4c45cd22b4e3b4b88e39845093858a0064500f2a543cdc3b91181ac966eff1e9'],
    ['fixedBilling', '0xa530b3e43f715d084eabc295a416ae25757b7f75ad9d81a209c9bc0cf28463b9'],
    ['fixedBillingFailed', '0x55769d96845a5c40b83d8ca6036bb7d1a182e2633f14d92a6b3f7b3f68eac623'],
    ['variableBilling', '0x3cfc0270c3135212fc493e5a32244d716bf1bfba21bb295b4e38b9d973cca158'],
    ['onDemandBilling', '0xe4f50b3e15d66caedd294c40aef73b7e87d592db16b11a3a274654bfbb44bf14'],
    ['billingFailedWithAmount', '0x85f52c31d3f4678426a5a5b2ee0f7a54e567ae6f45937e5a2acb346ef44498c7'],
    ['subscription', '0x86fe43349a633ff023a522ef3cd854877f6e5c664947884e9d7a8379071971f7'],
    ['subscriptionCancelled', '0x86f9401de1df2759428332a7c86a348e95dd52d5f5c83f2fdba9f2cf2048c526'],
    ['subscriptionTerminated', '0xfab974090a7215cfde543a61c468e6ba008fce968dbccf5b258d8c7c0c8a9c20'],
    ['subscriptionCancellationRequested', '0x9c2484b2b70bc26564f1f8e5c9af20a90d83745ab8667195e111261b2edf4e91'],
    ['payment', '0x6c461725b272d4f54c97a2dae69ba41c8e36a30b7e8af20fd64fdf0da2051341'],
    ['receiver', '0x06fe3d87908d219dd2a21804fbb17f09c7e5b035f267faa393203a44fde23e96'],
    ['scheduleExecuted', '0xba9b5086e80f9b5280dc213cdd4a1e7e413540c6d24e73b6dc6e2044aab95b0c'],
    ['scheduleExecution', '0x083399871243a5cc8575571e549c958d9957977018a7429cc903d0185644352b'],
    ['strategyExecuted', '0x6f2b183583d5697cbe5e30beeb11a0ccf05e8a98443527b52c0851fae92048f0'],
    ['strategyExecution', '0xc710e3de95179ab67e34381998c67b8969b7f86dbf93621e91252499cfe50204'],
    ['bill', '0x126e167c526042e2058a830e5cf4045cbbcb5c5be4d9b86759052382fe9cac61'],
    ['erc20Transfer', '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'],
  ] as const)('%s has topic0 %s', (name, topic0) => {
    expect(toEventSelector(EVENTS[name])).toBe(topic0);
  });

  it('lists every event of §1 once', () => {
    expect(Object.keys(EVENTS)).toHaveLength(19);
  });

  // Which arguments are indexed does not change topic0 but decides where a value
  // is read (topics or data): §1 marks them with `i`.
  it.each([
    ['transferSuccessful', []],
    ['transferFailed', []],
    ['fixedBilling', ['planId', 'subscriptionId']],
    ['variableBilling', ['planId', 'subscriptionId']],
    ['onDemandBilling', ['planId', 'subscriptionId']],
    ['subscription', ['planId', 'subscriptionId', 'account']],
    ['payment', ['sender', 'tag']],
    ['receiver', ['account']],
    ['strategyExecuted', ['id']],
    ['bill', ['executor', 'planId']],
    ['erc20Transfer', ['from', 'to']],
  ] as const)('%s indexes %j', (name, indexed) => {
    const event = EVENTS[name];
    expect(event.inputs.filter((i) => 'indexed' in i && i.indexed).map((i) => i.name)).toEqual(indexed);
  });
});

describe('payment types (ONCHAIN.md §2)', () => {
  it.each([
    ['oneTime', '0x321ceed4f135cef15526301774886b328eb3aaa7d23b372d0b5be8ca3acd3909'],
    ['fixedRecurring', '0x02c1718384fdbb9852ba9053f128f835f2854848826d2f4ff6f9c500bd70ceef'],
    ['variableRecurring', '0xb8a122b9b26509d151d228bc909b2a694e59def8f9ed5e5a5f103ad5358d843a'],
    ['onDemand', '0x2cdc6bad2365278be0013133b2edc3920d79217f94f79017e41b3eff0702b3ee'],
  ] as const)('keccak256(%s) is %s', (name, hash) => {
    expect(keccak256(stringToHex(PAYMENT_TYPE_NAMES[name]))).toBe(hash);
  });

  it('names the working model of §8 for scheduled payments and DCA', () => {
    expect(PAYMENT_TYPE_NAMES.scheduledPayments).toBe('SCHEDULED_PAYMENTS');
    expect(PAYMENT_TYPE_NAMES.dollarCostAverage).toBe('DOLLAR_COST_AVERAGE');
  });
});

describe('functions called with eth_call', () => {
  it.each([
    ['feeCollector', '0xc415b95c'],
    ['PAYMENT_TYPE', '0xecf050e3'],
    ['decimals', '0x313ce567'],
    ['symbol', '0x95d89b41'],
  ])('%s has selector %s', (name, selector) => {
    const fn = FUNCTIONS.find((f) => f.name === name)!;
    expect(toFunctionSelector(fn)).toBe(selector);
  });
});

describe('chains, contracts and tokens (ONCHAIN.md §3-§5)', () => {
  it('gives the chain ids of §3', () => {
    expect(CHAIN_IDS).toEqual({ bsc: 56, ethereum: 1, polygon: 137, sandbox: 97 });
  });

  it('gives the default confirmations of DESIGN.md', () => {
    expect(DEFAULT_CONFIRMATIONS).toEqual({ bsc: 15, ethereum: 12, polygon: 128, sandbox: 15 });
  });

  const chains = Object.keys(CHAIN_IDS) as (keyof typeof CHAIN_IDS)[];

  // A mixed-case address carries an EIP-55 checksum: a mistyped character fails it.
  it.each(chains)('%s: every contract and token address is valid (checksummed where mixed case)', (chain) => {
    const addresses = [...Object.values(CONTRACTS[chain]), ...FORMER_BILLERS[chain], ...TOKENS[chain].map((t) => t.address)];
    for (const address of addresses) expect(isAddress(address), address).toBe(true);
  });

  // ONCHAIN.md §3's table, copied by hand (not from src/chain/model.ts, which the emulator shares).
  const SECTION_3: Record<string, Record<string, string>> = {
    bsc: {
      transfers: '0x3a6Da478E5C7D2aBc3856D49fD99E1bbDEf7C5a3',
      oneTime: '0x77a7540A9BB53Fdd4ce759a531ba0296863a825C',
      fixedRecurringSubscriptions: '0x9cC66eD97E500b760500946aF0DDb076F19D56C8',
      fixedRecurringManagement: '0x89FD6db2fEA9B01BE5c33a0A56e3636820C292cD',
      variableRecurringSubscriptions: '0x51d0c6f8562b21cB20E37AFa71218799A6408F18',
      variableRecurringManagement: '0x8911d7b99716FDd7A39b5fc2f97077Bd261319A4',
      onDemandSubscriptions: '0x67341Ae3F9d9fC1242DD51705a846CC138b5095F',
      onDemandManagement: '0x2DF3Cf8C1771F4a7c89f597b05547CE72849AF71',
      scheduledPayments: '0xDC371651b4b2D5C31250F2C23Ed566f1B4A5E8b8',
      dollarCostAverage: '0xb655f311FCFf2e0bd898A13e6412fe6bb6F617A3',
      biller: '0x5CE851dAcCBA1be5e7C98690DD506D6F162f4ebD',
    },
    ethereum: {
      transfers: '0x6DC8590A837b867afe9A7D328bE33FC251A02168',
      oneTime: '0x8F419ad553BF6a0Fc6c2f32dcEA134b2B8B396eC',
      fixedRecurringSubscriptions: '0xC6De8c0bB4bA3F431d7fdD3B6360f121de897480',
      fixedRecurringManagement: '0x6F221C0b71ECd3CBe43CdBf6E1e2C2600D250C17',
      variableRecurringSubscriptions: '0xA27EF477ef6d76E9F2D7FA9da1128f33741Ba7A6',
      variableRecurringManagement: '0x191143aA8cFa79E12f8B019aD1333807977F01E2',
      onDemandSubscriptions: '0x9E003Db2a4438d23da73bACEc49f2c82EcA48eb2',
      onDemandManagement: '0x81B6fF3b22E5E423708bEec042CFB2Fd6aa1fC68',
      scheduledPayments: '0xC1270bd97E763f85142736cbdF4df48C8Ce3DD44',
      dollarCostAverage: '0x8911d7b99716FDd7A39b5fc2f97077Bd261319A4',
      biller: '0x0828DEe7bDB7A5D1A62Cee9750a7085a7745f43b',
    },
    polygon: {
      transfers: '0xcF173fB22D32D8396E9e665FF10e41f066F98938',
      oneTime: '0xc74bd6ddAe711Fda61e0F546f54157E952C24965',
      fixedRecurringSubscriptions: '0xA4b1dd9BA3f09259b5B4Cd81F460aFa982cA88b3',
      fixedRecurringManagement: '0x79Fe0b2E47A5531784d0Ede414aFaFFA12Ab953E',
      variableRecurringSubscriptions: '0x74e918446fcc66869C522C98E280E57Aa58D017B',
      variableRecurringManagement: '0x7368B8a20A5dcd093E1279c5F972d4a0Dbc9D517',
      onDemandSubscriptions: '0x77a7540A9BB53Fdd4ce759a531ba0296863a825C',
      onDemandManagement: '0x8A7E26620Ef8b8D9FF0C0A20d7253d698DC10C13',
      scheduledPayments: '0x9cC66eD97E500b760500946aF0DDb076F19D56C8',
      dollarCostAverage: '0x3342a1f4f84963F49f9E27C648cEccD9585F3b14',
      biller: '0x0828DEe7bDB7A5D1A62Cee9750a7085a7745f43b',
    },
    sandbox: {
      transfers: '0xB51b79ad97f6C33Fb18Bb1d7601C9059e13353E6',
      oneTime: '0xAf08119260eFbC82EecCe9585695898d6dC7c92B',
      fixedRecurringSubscriptions: '0x6C7E7bECD48EdF1FBDfDB3b9f316a21e3CA0Ca59',
      fixedRecurringManagement: '0x09280a917b26d8463326484B3BED40C298984D8a',
      variableRecurringSubscriptions: '0xcFe50378096caaFE5C08658cF7F4c0FfDeaf3EED',
      variableRecurringManagement: '0xC41b0Fbf5c2c8961f23Bcb275ACDA7fF1eB84142',
      onDemandSubscriptions: '0xC71135871796566C2847D445AD4dfB5fb98BDff2',
      onDemandManagement: '0xcd3Fb395de76eAc058275ba86a9DAA73037E3440',
      scheduledPayments: '0xD3eC0a39dcDD7279e4A566B7dEd11EFE626184ef',
      dollarCostAverage: '0xC7B488891Ba97d209FB101EfCFfe0Ee6f2E433ae',
      biller: '0xc6965D9ddEE6bc6eEaa3c8593fFE3F0c5db5A760',
    },
  };

  it.each(chains)('%s: every contract at the address of §3', (chain) => {
    const lower = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).map(([k, a]) => [k, a.toLowerCase()]));
    expect(lower({ ...CONTRACTS[chain] })).toEqual(lower(SECTION_3[chain]));
  });

  it.each(chains)('%s: eleven distinct contracts', (chain) => {
    const addresses = Object.values(CONTRACTS[chain]).map((a) => a.toLowerCase());
    expect(new Set(addresses).size).toBe(11);
  });

  it('keeps the spot checks of §3 (addresses shared across chains, the old bsc Biller)', () => {
    expect(CONTRACTS.polygon.onDemandSubscriptions).toBe(CONTRACTS.bsc.oneTime);
    expect(CONTRACTS.polygon.scheduledPayments).toBe(CONTRACTS.bsc.fixedRecurringSubscriptions);
    expect(CONTRACTS.ethereum.dollarCostAverage).toBe(CONTRACTS.bsc.variableRecurringManagement);
    expect(CONTRACTS.ethereum.biller).toBe(CONTRACTS.polygon.biller);
    expect(FORMER_BILLERS.bsc).toEqual(['0xD89817CB4109461a42278e6400be49de7d7716c1']);
  });

  it.each(chains)('%s: symbols and addresses are unique, one native coin at the sentinel', (chain) => {
    const tokens = TOKENS[chain];
    expect(new Set(tokens.map((t) => t.symbol)).size).toBe(tokens.length);
    expect(new Set(tokens.map((t) => getAddress(t.address))).size).toBe(tokens.length);
    expect(tokens.filter((t) => t.address === NATIVE_TOKEN)).toHaveLength(1);
  });

  it.each([
    ['bsc', 'BNB', 18],
    ['bsc', 'USDT', 18],
    ['bsc', 'USDC', 18],
    ['bsc', 'NAFTY', 9],
    ['bsc', 'DOGE', 8],
    ['ethereum', 'ETH', 18],
    ['ethereum', 'USDT', 6],
    ['ethereum', 'USDC', 6],
    ['ethereum', 'WBTC', 8],
    ['polygon', 'MATIC', 18],
    ['polygon', 'USDT', 6],
    ['polygon', 'USDC', 6],
    ['polygon', 'WBTC', 8],
    ['sandbox', 'USDT', 18],
    ['sandbox', '8PAY', 18],
  ] as const)('%s %s has %i decimals', (chain, symbol, decimals) => {
    expect(TOKENS[chain].find((t) => t.symbol === symbol)?.decimals).toBe(decimals);
  });

  it('counts the tokens of §4 per chain', () => {
    expect(Object.fromEntries(chains.map((c) => [c, TOKENS[c].length]))).toEqual({
      bsc: 18,
      ethereum: 12,
      polygon: 11,
      sandbox: 7,
    });
  });

  it('is the sentinel of §5', () => {
    expect(NATIVE_TOKEN.toLowerCase()).toBe('0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee');
    expect(isAddress(NATIVE_TOKEN)).toBe(true);
  });
});
