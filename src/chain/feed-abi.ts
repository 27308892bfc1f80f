import { parseAbi } from 'viem';

// Chainlink's AggregatorV3Interface (ONCHAIN.md §10), for the feed reader and the emulator's feeds.

/** AggregatorV3Interface on a proxy, and what its phase aggregators answer too. */
export const FEED_FUNCTIONS = parseAbi([
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
  'function getRoundData(uint80 roundId) view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
  'function decimals() view returns (uint8)',
  'function description() view returns (string)',
  'function phaseId() view returns (uint16)',
  'function phaseAggregators(uint16 phaseId) view returns (address)',
]);
