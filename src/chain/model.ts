import { parseAbi, parseAbiItem, type Address } from 'viem';

// 8pay on chain as ../shared/ONCHAIN.md states it: pure data, no logic. Both the
// verifier (src/chain/) and the emulator's chain (src/emulator/chain/) read it;
// the decoder's code is never shared with the emulator, so tests can hold one
// against the other. Addresses are written as the sources spell them; compare
// them case-insensitively (nodes answer in lower case).

/** Chain slug → EVM chain id (§3). The same address can be another contract on another chain. */
export const CHAIN_IDS = {
  bsc: 56,
  ethereum: 1,
  polygon: 137,
  sandbox: 97,
} as const;

export type ChainSlug = keyof typeof CHAIN_IDS;

/** Confirmations a record needs before its verdict is final (DESIGN.md "On-chain verification"). */
export const DEFAULT_CONFIRMATIONS: Record<ChainSlug, number> = {
  bsc: 15,
  ethereum: 12,
  polygon: 128,
  sandbox: 15,
};

/** 8pay's proxy contracts per chain (8pay/deployments 1.8.0, §3). */
export interface Contracts {
  transfers: Address;
  oneTime: Address;
  fixedRecurringSubscriptions: Address;
  fixedRecurringManagement: Address;
  variableRecurringSubscriptions: Address;
  variableRecurringManagement: Address;
  onDemandSubscriptions: Address;
  onDemandManagement: Address;
  scheduledPayments: Address;
  dollarCostAverage: Address;
  biller: Address;
}

export const CONTRACTS: Record<ChainSlug, Contracts> = {
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

/** Billers replaced by the v2 migration (Aug 2023): their older transactions still bill (§3). */
export const FORMER_BILLERS: Record<ChainSlug, readonly Address[]> = {
  bsc: ['0xD89817CB4109461a42278e6400be49de7d7716c1'],
  ethereum: [],
  polygon: [],
  sandbox: [],
};

/** `ETH_TOKEN`: the token address that stands for the chain's native coin (§5). */
export const NATIVE_TOKEN: Address = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';

export interface Token {
  /** The symbol as 8pay's token list spells it (`8PAY v2`, `USDT`). */
  symbol: string;
  /** The token's contract, or NATIVE_TOKEN for the native coin. */
  address: Address;
  decimals: number;
  /** A token replaced by another (8PAY v1 → v2): payments now carry the new address. */
  migrated?: true;
}

/** 8pay's token list per chain (8pay/tokens 1.12.0, §4). */
export const TOKENS: Record<ChainSlug, readonly Token[]> = {
  bsc: [
    { symbol: '8PAY v2', address: '0x6EaDc05928ACd93eFB3FA0DFbC644D96C6Aa1Df8', decimals: 18 },
    { symbol: '8PAY v1', address: '0xFeea0bDd3D07eb6FE305938878C0caDBFa169042', decimals: 18, migrated: true },
    { symbol: 'BNB', address: NATIVE_TOKEN, decimals: 18 },
    { symbol: 'WBNB', address: '0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c', decimals: 18 },
    { symbol: 'BUSD', address: '0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56', decimals: 18 },
    { symbol: 'USDT', address: '0x55d398326f99059fF775485246999027B3197955', decimals: 18 },
    { symbol: 'USDC', address: '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', decimals: 18 },
    { symbol: 'USDD', address: '0xd17479997F34dd9156Deef8F95A52D81D265be9c', decimals: 18 },
    { symbol: 'ETH', address: '0x2170Ed0880ac9A755fd29B2688956BD959F933F8', decimals: 18 },
    { symbol: 'BTCB', address: '0x7130d2A12B9BCbFAe4f2634d864A1Ee1Ce3Ead9c', decimals: 18 },
    { symbol: 'MATIC', address: '0xCC42724C6683B7E57334c4E856f4c9965ED682bD', decimals: 18 },
    { symbol: 'CAKE', address: '0x0E09FaBB73Bd3Ade0a17ECC321fD13a19e81cE82', decimals: 18 },
    { symbol: 'BSCPAD', address: '0x5A3010d4d8D3B5fB49f8B6E57FB9E48063f16700', decimals: 18 },
    { symbol: 'DAI', address: '0x1AF3F329e8BE154074D8769D1FFa4eE058B1DBc3', decimals: 18 },
    { symbol: 'CUMMIES', address: '0x27Ae27110350B98d564b9A3eeD31bAeBc82d878d', decimals: 18 },
    { symbol: 'HAPPY', address: '0xF5d8A096CcCb31b9D7bcE5afE812BE23e3D4690d', decimals: 18 },
    { symbol: 'NAFTY', address: '0x2EED4682197834708c0ea8D11D683440Bbe104d1', decimals: 9 },
    { symbol: 'DOGE', address: '0xbA2aE424d960c26247Dd6c32edC70B295c744C43', decimals: 8 },
  ],
  ethereum: [
    { symbol: '8PAY v2', address: '0x06DDb3a8BC0aBc14f85e974CF1A93a6f8d4909d9', decimals: 18 },
    { symbol: '8PAY v1', address: '0xFeea0bDd3D07eb6FE305938878C0caDBFa169042', decimals: 18, migrated: true },
    { symbol: 'ETH', address: NATIVE_TOKEN, decimals: 18 },
    { symbol: 'WETH', address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', decimals: 18 },
    { symbol: 'BNB', address: '0xB8c77482e45F1F44dE1745F52C74426C631bDD52', decimals: 18 },
    { symbol: 'BUSD', address: '0x4Fabb145d64652a948d72533023f6E7A623C7C53', decimals: 18 },
    { symbol: 'USDD', address: '0x0C10bF8FcB7Bf5412187A595ab97a3609160b5c6', decimals: 18 },
    { symbol: 'DAI', address: '0x6B175474E89094C44Da98b954EedeAC495271d0F', decimals: 18 },
    { symbol: 'MATIC', address: '0x7D1AfA7B718fb893dB30A3aBc0Cfc608AaCfeBB0', decimals: 18 },
    { symbol: 'USDT', address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6 },
    { symbol: 'USDC', address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 },
    { symbol: 'WBTC', address: '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599', decimals: 8 },
  ],
  polygon: [
    { symbol: '8PAY v2', address: '0x06DDb3a8BC0aBc14f85e974CF1A93a6f8d4909d9', decimals: 18 },
    { symbol: '8PAY v1', address: '0x3bd9856BF578910b55261d45d9148d61C177B092', decimals: 18, migrated: true },
    { symbol: 'MATIC', address: NATIVE_TOKEN, decimals: 18 },
    { symbol: 'WMATIC', address: '0x0d500b1d8e8ef31e21c99d1db9a6444d3adf1270', decimals: 18 },
    { symbol: 'USDD', address: '0xFFA4D863C96e743A2e1513824EA006B8D0353C57', decimals: 18 },
    { symbol: 'BNB', address: '0x5c4b7CCBF908E64F32e12c6650ec0C96d717f03F', decimals: 18 },
    { symbol: 'WETH', address: '0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619', decimals: 18 },
    { symbol: 'DAI', address: '0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063', decimals: 18 },
    { symbol: 'USDT', address: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F', decimals: 6 },
    { symbol: 'USDC', address: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174', decimals: 6 },
    { symbol: 'WBTC', address: '0x1BFD67037B42Cf73acF2047067bd4F2C47D9BfD6', decimals: 8 },
  ],
  sandbox: [
    { symbol: '8PAY', address: '0xEDF5b665A22E135678793c79a4E4ABd54C1863Bd', decimals: 18 },
    { symbol: 'BNB', address: NATIVE_TOKEN, decimals: 18 },
    { symbol: 'WBNB', address: '0xae13d989dac2f0debff460ac112a837c89baa7cd', decimals: 18 },
    { symbol: 'BUSD', address: '0xed24fc36d5ee211ea25a80239fb8c4cfd80f12ee', decimals: 18 },
    { symbol: 'USDT', address: '0x337610d27c682e347c9cd60bd4b3b107c9d34ddd', decimals: 18 },
    { symbol: 'ETH', address: '0xd66c6b4f0be8ce5b39d52e0fd1344c389929b378', decimals: 18 },
    { symbol: 'BTCB', address: '0x6ce8da28e2f864420840cf74474eff5fd80e65b8', decimals: 18 },
  ],
};

/**
 * paymentType = keccak256 of these ASCII names (§2). The last two are the working
 * model of §8: read `PAYMENT_TYPE()` on the product contract rather than assume them.
 */
export const PAYMENT_TYPE_NAMES = {
  oneTime: 'ONE_TIME',
  fixedRecurring: 'FIXED_RECURRING',
  variableRecurring: 'VARIABLE_RECURRING',
  onDemand: 'ON_DEMAND',
  scheduledPayments: 'SCHEDULED_PAYMENTS',
  dollarCostAverage: 'DOLLAR_COST_AVERAGE',
} as const;

/**
 * The events of §1 as viem ABI items. Three contracts emit a `Billing` and two a
 * `BillingFailed`, with different arguments (so different topic0s): each has its
 * own name here.
 */
export const EVENTS = {
  transferSuccessful: parseAbiItem(
    'event TransferSuccessful(address token, address sender, address receiver, uint256 amount, uint256 feePercentage, bytes32 paymentType, bytes32 metadata)',
  ),
  transferFailed: parseAbiItem(
    'event TransferFailed(address token, address sender, address receiver, uint256 amount, bytes32 paymentType, bytes32 metadata)',
  ),
  /** Fixed-recurring: from FR Subscriptions (subscribe) and FR Management (later billings). */
  fixedBilling: parseAbiItem(
    'event Billing(bytes32 indexed planId, bytes32 indexed subscriptionId, uint256 cycleStart, uint256 cycleEnd)',
  ),
  /** Fixed-recurring, from FR Management. */
  fixedBillingFailed: parseAbiItem('event BillingFailed(bytes32 indexed planId, bytes32 indexed subscriptionId)'),
  variableBilling: parseAbiItem(
    'event Billing(bytes32 indexed planId, bytes32 indexed subscriptionId, uint256 amount, uint256 cycleStart, uint256 cycleEnd)',
  ),
  onDemandBilling: parseAbiItem('event Billing(bytes32 indexed planId, bytes32 indexed subscriptionId, uint256 amount)'),
  /** Variable-recurring and on-demand Management. */
  billingFailedWithAmount: parseAbiItem(
    'event BillingFailed(bytes32 indexed planId, bytes32 indexed subscriptionId, uint256 amount)',
  ),
  subscription: parseAbiItem('event Subscription(bytes32 indexed planId, bytes32 indexed subscriptionId, address indexed account)'),
  subscriptionCancelled: parseAbiItem('event SubscriptionCancelled(bytes32 indexed planId, bytes32 indexed subscriptionId)'),
  subscriptionTerminated: parseAbiItem('event SubscriptionTerminated(bytes32 indexed planId, bytes32 indexed subscriptionId)'),
  subscriptionCancellationRequested: parseAbiItem(
    'event SubscriptionCancellationRequested(bytes32 indexed planId, bytes32 indexed subscriptionId)',
  ),
  payment: parseAbiItem('event Payment(address indexed sender, bytes32 indexed tag, address token, string description, string category)'),
  receiver: parseAbiItem('event Receiver(address indexed account, uint256 amount)'),
  scheduleExecuted: parseAbiItem('event ScheduleExecuted(bytes32 indexed id)'),
  scheduleExecution: parseAbiItem('event ScheduleExecution(address indexed executor, bytes32 indexed scheduleId, uint256 gasUsed)'),
  strategyExecuted: parseAbiItem(
    'event StrategyExecuted(bytes32 indexed id, address inputToken, uint256[] inputAmounts, address[] outputTokens, uint256[] outputAmounts)',
  ),
  strategyExecution: parseAbiItem('event StrategyExecution(address indexed executor, bytes32 indexed strategyId, uint256 gasUsed)'),
  bill: parseAbiItem('event Bill(address indexed executor, bytes32 indexed planId, bytes32[] subscriptionIds, uint256 gasUsed, uint256 gasFee)'),
  erc20Transfer: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
} as const;

/** The view functions payrec calls with `eth_call` (§2, §4). */
export const FUNCTIONS = parseAbi([
  'function feeCollector() view returns (address)',
  'function PAYMENT_TYPE() view returns (bytes32)',
  'function decimals() view returns (uint8)',
  'function symbol() view returns (string)',
]);
