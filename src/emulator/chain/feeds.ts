import { FEED_FUNCTIONS } from '../../chain/feed-abi.js';
import { decodeFunctionData, encodeFunctionResult, getAddress, keccak256, stringToHex, zeroAddress, type Address, type Hex } from 'viem';
import { FEEDS, PHASE_OFFSET, proxyRoundId, USD_FEED_DECIMALS, type FeedSpec } from '../../chain/feed-model.js';
import type { ChainSlug } from '../../chain/model.js';
import { hashString, mixSeed, Random } from '../prng.js';

// Chainlink price feeds on the emulator's chain (DESIGN.md "Values in one currency",
// ONCHAIN.md §10): a proxy at §10's address for each feed of the chain, with seeded
// prices written as a feed writes them (a round at its deviation threshold or at its
// heartbeat, whichever comes first), over two phases, and every oddity payrec must
// survive:
//   - a phase change 200 days before the anchor; BNB / USD and ETH / USD had 18 decimals
//     in their old phase (the proxy's decimals() answers the current phase's 8);
//   - an unwritten round: zeros from the old phase's aggregator, a revert in the current one;
//   - BUSD / USD retired 90 days before the anchor (no round since: a stale stretch);
//   - polygon's MATIC / USD proxy renamed: its description() is `POL / USD`;
//   - an answer of 0 (ethereum's DAI) and a negative one (polygon's DAI), each for 20 minutes;
//   - no feed for 8PAY; sandbox has BNB and USDT feeds at addresses of its own, which a
//     profile names with `payrec config set feed`.
// Rounds are made once per feed from the seed (a walk of hourly prices, + and × only, so
// every machine makes the same), and a round exists once the chain's clock has reached it.
// GET /_emulator/chain/feeds lists each feed's rounds: the ground truth of tests.

const HOUR = 3600;
const DAY = 86_400;
/** Rounds are made from this long before the anchor, and this far after the chain's head. */
const BEFORE = 400 * DAY;
const AHEAD = 30 * DAY;
const PHASE_CHANGE = 200 * DAY;
const RETIRED = 90 * DAY;
const BAD_ANSWER = 30 * DAY;

export interface FeedRound {
  aggregatorRound: number;
  answer: bigint;
  startedAt: number;
  updatedAt: number;
}

export interface FeedPhase {
  phaseId: number;
  aggregator: Address;
  decimals: number;
  rounds: FeedRound[];
  /** What getRoundData answers for a round not written: zeros (old aggregators) or a revert. */
  unwritten: 'zeros' | 'revert';
}

/** How a feed of the emulator behaves: its price walk and its oddities. */
interface Behaviour {
  price: number;
  /** Relative step per hour, and the deviation that writes a round. */
  step: number;
  deviation: number;
  heartbeat: number;
  stable: boolean;
  oldDecimals: number;
  description?: string;
  retired?: boolean;
  badAnswer?: bigint;
  /** Forex feeds do not write at weekends. */
  weekdays?: boolean;
}

function behaviourOf(chain: ChainSlug, spec: FeedSpec): Behaviour {
  const volatile = (price: number): Behaviour => ({ price, step: 0.0022, deviation: 0.01, heartbeat: DAY, stable: false, oldDecimals: USD_FEED_DECIMALS });
  const stable: Behaviour = { price: 1, step: 0.0003, deviation: 0.002, heartbeat: DAY, stable: true, oldDecimals: USD_FEED_DECIMALS };
  switch (spec.pair) {
    case 'BNB / USD':
      return { ...volatile(612.34), oldDecimals: 18 };
    case 'ETH / USD':
      return { ...volatile(3120.5), oldDecimals: 18 };
    case 'MATIC / USD':
      return { ...volatile(0.52), description: chain === 'polygon' ? 'POL / USD' : undefined };
    case 'BUSD / USD':
      return { ...stable, retired: true };
    case 'DAI / USD':
      return { ...stable, badAnswer: chain === 'ethereum' ? 0n : chain === 'polygon' ? -100_000_000n : undefined };
    case 'EUR / USD':
      return { price: 1.083, step: 0.0006, deviation: 0.004, heartbeat: DAY, stable: false, oldDecimals: USD_FEED_DECIMALS, weekdays: true };
    default:
      return /^(USDT|USDC|USDD) /.test(spec.pair) ? stable : volatile(spec.pair.startsWith('WBTC') ? 67_000 : spec.pair.startsWith('CAKE') ? 2.5 : 0.15);
  }
}

/** Sandbox has no feeds of its own in §10: these stand at addresses a profile names. */
const SANDBOX_FEEDS: readonly FeedSpec[] = FEEDS.filter((f) => f.pair === 'BNB / USD' || f.pair === 'USDT / USD').map((f) => ({
  ...f,
  addresses: { sandbox: madeUpAddress(`sandbox feed ${f.pair}`) },
}));

function madeUpAddress(label: string): Address {
  return getAddress(`0x${keccak256(stringToHex(`payrec emulator ${label}`)).slice(26)}`);
}

export class EmulatorFeed {
  readonly phases: FeedPhase[];
  readonly description: string;

  constructor(
    readonly chain: ChainSlug,
    readonly spec: FeedSpec,
    readonly address: Address,
    seed: number,
    anchor: number,
    until: number,
    /** A round each hour, whatever the price did (EmulatorOptions.hourlyFeeds). */
    hourly = false,
  ) {
    const b = { ...behaviourOf(chain, spec), ...(hourly ? { deviation: 0 } : {}) };
    this.description = b.description ?? spec.pair;
    const r = new Random(mixSeed(seed, hashString(chain), hashString(spec.pair), hashString('feed')));
    const start = anchor - BEFORE;
    const change = anchor - PHASE_CHANGE;
    const phase = (phaseId: number, decimals: number, unwritten: FeedPhase['unwritten']): FeedPhase => ({
      phaseId,
      aggregator: madeUpAddress(`aggregator ${chain} ${spec.pair} ${phaseId}`),
      decimals,
      rounds: [],
      unwritten,
    });
    this.phases = [phase(1, b.oldDecimals, 'zeros'), phase(2, USD_FEED_DECIMALS, 'revert')];
    let price = b.price;
    let written = 0;
    let last = -Infinity;
    const stop = b.retired ? anchor - RETIRED : until;
    /** When the bad answer is written: with the first round from then on. */
    let bad = b.badAnswer !== undefined ? anchor - BAD_ANSWER + 7 * HOUR : Infinity;
    for (let t = start; t <= stop; t += HOUR) {
      // + and × only: the same walk on every machine.
      const u = r.float() - 0.5;
      price = b.stable ? 1 + (price - 1) * 0.97 + u * b.step * 3.46 : price * (1 + u * b.step * 3.46);
      const weekend = b.weekdays && [0, 6].includes(new Date(t * 1000).getUTCDay());
      // The heartbeat is kept: the next round is written within it, jitter included.
      const due = Math.abs(price - written) >= written * b.deviation || t - last >= b.heartbeat - 2 * HOUR;
      if (weekend || !due) continue;
      const updatedAt = t + r.int(1, 900);
      const p = updatedAt < change ? this.phases[0] : this.phases[1];
      const answer = BigInt(Math.round(price * 1e8)) * 10n ** BigInt(p.decimals - 8) + (p.decimals > 8 ? BigInt(r.int(0, 9_999_999)) : 0n);
      p.rounds.push({ aggregatorRound: p.rounds.length + 1, answer, startedAt: updatedAt - r.int(0, 30), updatedAt });
      written = price;
      last = updatedAt;
      if (t >= bad) {
        bad = Infinity;
        // The bad answer, corrected 20 minutes later by the next round.
        const at = updatedAt + 600;
        p.rounds.push({ aggregatorRound: p.rounds.length + 1, answer: b.badAnswer!, startedAt: at, updatedAt: at });
        p.rounds.push({ aggregatorRound: p.rounds.length + 1, answer, startedAt: at + 1200, updatedAt: at + 1200 });
        last = at + 1200;
      }
    }
  }

  /** The rounds the chain has reached at `now`, per phase. */
  visible(now: number): FeedPhase[] {
    return this.phases.map((p) => ({ ...p, rounds: p.rounds.filter((x) => x.updatedAt <= now) }));
  }

  /** The answer to an eth_call of `data` at `now`; 'revert' for a call that reverts. */
  call(data: Hex, now: number, aggregator?: FeedPhase): Hex | 'revert' {
    let call: { functionName: string; args?: readonly unknown[] };
    try {
      call = decodeFunctionData({ abi: FEED_FUNCTIONS, data });
    } catch {
      return 'revert';
    }
    const phases = this.visible(now);
    const current = phases[phases.length - 1];
    const tuple = (p: FeedPhase, x: FeedRound, proxy: boolean) => {
      const id = proxy ? proxyRoundId(p.phaseId, x.aggregatorRound) : BigInt(x.aggregatorRound);
      return [id, x.answer, BigInt(x.startedAt), BigInt(x.updatedAt), id] as const;
    };
    const encode = (functionName: string, result: unknown) => encodeFunctionResult({ abi: FEED_FUNCTIONS, functionName, result } as Parameters<typeof encodeFunctionResult>[0]);
    const roundOf = (p: FeedPhase | undefined, n: bigint, proxy: boolean): Hex | 'revert' => {
      const x = p?.rounds[Number(n) - 1];
      if (x && n >= 1n) return encode('getRoundData', tuple(p!, x, proxy));
      if (p?.unwritten === 'zeros') return encode('getRoundData', [0n, 0n, 0n, 0n, 0n]);
      return 'revert';
    };
    if (aggregator) {
      const p = phases.find((x) => x.phaseId === aggregator.phaseId)!;
      switch (call.functionName) {
        case 'decimals':
          return encode('decimals', p.decimals);
        case 'description':
          return encode('description', this.description);
        case 'latestRoundData':
          return p.rounds.length ? encode('latestRoundData', tuple(p, p.rounds[p.rounds.length - 1], false)) : 'revert';
        case 'getRoundData':
          return roundOf(p, call.args![0] as bigint, false);
        default:
          return 'revert';
      }
    }
    switch (call.functionName) {
      case 'decimals':
        return encode('decimals', current.decimals);
      case 'description':
        return encode('description', this.description);
      case 'phaseId':
        return encode('phaseId', current.phaseId);
      case 'phaseAggregators': {
        const p = phases.find((x) => x.phaseId === Number(call.args![0]));
        return encode('phaseAggregators', p?.aggregator ?? zeroAddress);
      }
      case 'latestRoundData': {
        const p = [...phases].reverse().find((x) => x.rounds.length > 0);
        return p ? encode('latestRoundData', tuple(p, p.rounds[p.rounds.length - 1], true)) : 'revert';
      }
      case 'getRoundData': {
        const id = call.args![0] as bigint;
        return roundOf(phases.find((x) => BigInt(x.phaseId) === id >> PHASE_OFFSET), id & ((1n << PHASE_OFFSET) - 1n), true);
      }
      default:
        return 'revert';
    }
  }
}

/** The feeds of one chain, made when first asked for. */
export class EmulatorFeeds {
  private feeds?: EmulatorFeed[];
  private until = 0;

  constructor(
    private readonly chain: ChainSlug,
    private readonly seed: number,
    private readonly anchor: number,
    private readonly hourly = false,
  ) {}

  /** Every feed of the chain, with rounds made at least to `now`. */
  all(now: number): EmulatorFeed[] {
    if (!this.feeds || now > this.until) {
      this.until = Math.max(now, this.anchor) + AHEAD;
      const specs = this.chain === 'sandbox' ? SANDBOX_FEEDS : FEEDS;
      this.feeds = specs.flatMap((spec) => {
        const address = spec.addresses[this.chain];
        return address ? [new EmulatorFeed(this.chain, spec, getAddress(address), this.seed, this.anchor, this.until, this.hourly)] : [];
      });
    }
    return this.feeds;
  }

  /** The answer of a feed's proxy or one of its aggregators at `to` (lower case), or undefined when no feed is there. */
  call(to: string, data: Hex, now: number): Hex | 'revert' | undefined {
    for (const feed of this.all(now)) {
      if (feed.address.toLowerCase() === to) return feed.call(data, now);
      const aggregator = feed.phases.find((p) => p.aggregator.toLowerCase() === to);
      if (aggregator) return feed.call(data, now, aggregator);
    }
    return undefined;
  }

  /** GET /_emulator/chain/feeds: each feed and its rounds the chain has reached. */
  truth(now: number): object[] {
    return this.all(now).map((f) => ({
      address: f.address,
      pair: f.spec.pair,
      tokens: f.spec.tokens,
      description: f.description,
      phases: f.visible(now).map((p) => ({
        phaseId: p.phaseId,
        aggregator: p.aggregator,
        decimals: p.decimals,
        unwritten: p.unwritten,
        rounds: p.rounds.map((x) => ({ roundId: proxyRoundId(p.phaseId, x.aggregatorRound).toString(), aggregatorRound: x.aggregatorRound, answer: x.answer.toString(), startedAt: x.startedAt, updatedAt: x.updatedAt })),
      })),
    }));
  }
}
