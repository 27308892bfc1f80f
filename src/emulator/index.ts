import type { AddressInfo } from 'node:net';
import { type RequestLogEntry } from './control.js';
import { Datasets } from './datasets.js';
import { Deliverer, type DeliveryOptions } from './delivery.js';
import { FaultInjector, MAX_LATENCY_MS, type FaultOptions } from './faults.js';
import { RateLimit } from './rate-limit.js';
import { demoKey, fixturesOf, type Fixtures } from './fixtures.js';
import { groundTruth, subscriptionTruth, type GroundTruth, type SubscriptionFilter, type SubscriptionTruth } from './ground-truth.js';
import { LiveTraffic } from './live.js';
import type { LiveOptions, LiveStatus } from './live-options.js';
import { Random, mixSeed } from './prng.js';
import { createEmulatorServer } from './server.js';
import { EmulatorChains } from './chain/network.js';
import { RPC_PREFIX, RpcServer, type RpcCalls } from './chain/rpc.js';
import type { Listed as ChainDiscrepancy } from './chain/chain.js';
import { TRANSACTION_COLLECTIONS } from './chain/layouts.js';

// The emulator's public face: start a seeded, loopback-only server of the whole API.

export type { Fixtures } from './fixtures.js';
export type { RequestLogEntry } from './control.js';
export type { FaultOptions, FaultKind } from './faults.js';
export type { DeliveryOptions, DeliveryAttempt } from './delivery.js';
export type { LiveOptions, LiveStatus } from './live-options.js';
export type { GroundTruth, SubscriptionFilter, SubscriptionTruth } from './ground-truth.js';
export type { PlanTerms, SubscriptionFacts } from './lifecycles.js';
export type { Listed as ChainDiscrepancy } from './chain/chain.js';
export type { Difference as ChainDifference } from './chain/transcript.js';
export type { RpcCalls } from './chain/rpc.js';

/** The emulator's chains (docs/emulator.md "The chain"); the same as /rpc/<chain> and /_emulator/chain/. */
export interface ChainControl {
  /** The chain's newest block: its number and timestamp. */
  head(chain: string): { number: number; timestamp: number };
  /** Mines `seconds` blocks at once (POST /_emulator/chain/advance). */
  advance(seconds: number): void;
  /** Records whose transaction differs from the API, seeded or not (GET /_emulator/chain/discrepancies). */
  discrepancies(chain: string, collection?: string): ChainDiscrepancy[];
  /** JSON-RPC calls so far, per chain and method (GET /_emulator/chain/calls). */
  calls(): RpcCalls;
}

export interface EmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1: the emulator is for this machine only. */
  host?: string;
  /** Records per collection per chain (default 250). */
  records?: number;
  /** Seed of all generated data (default 1). */
  seed?: number;
  /** Unix seconds: generated data lies in the 365 days before it (default: today's UTC midnight). */
  now?: number;
  /** Faults active from the start (see POST /_emulator/faults). */
  faults?: FaultOptions;
  /** Milliseconds every API request waits before it is handled, as if the API were far away (default 0). */
  latencyMs?: number;
  /** Requests a second the API answers (a token bucket holding as many); beyond, 429 with Retry-After (default: no limit). */
  rateLimit?: number;
  /** Webhook delivery retries (default 5 attempts, 200 ms doubling). */
  delivery?: DeliveryOptions;
  /** Live traffic from the start (see POST /_emulator/live). */
  live?: LiveOptions;
  /** Every feed writes a round each hour (a busy feed: a sync reads it in many batches); default: at its deviation or heartbeat. */
  hourlyFeeds?: boolean;
}

/** Live traffic (DESIGN.md "Live traffic"); the same as GET|POST|DELETE /_emulator/live. */
export interface LiveControl {
  /** (Re)configures and starts; throws a RangeError naming a bad field. */
  start(options: LiveOptions): void;
  /** Stops inserting; records still pending keep resolving. */
  stop(): void;
  status(): LiveStatus;
  /** Resolves once traffic is stopped and no record is pending any more. */
  settle(): Promise<void>;
}

export interface Emulator {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  port: number;
  /** The demo key of a chain, or of another user of that chain. */
  keyFor(chain: string, user?: string): string;
  /** Every API request so far (control routes excluded); never holds the Authorization header. */
  requests: RequestLogEntry[];
  clearLog(): void;
  fixtures(chain: string): Fixtures;
  live: LiveControl;
  /** A collection's complete current records as the API serves them (GET /_emulator/records). */
  records(chain: string, collection: string): GroundTruth;
  /** The fixed-recurring subscriptions' facts, optionally of one plan or one subscription (GET /_emulator/subscriptions). */
  subscriptions(chain: string, filter?: SubscriptionFilter): SubscriptionTruth;
  /** The JSON-RPC URL of a chain's node: <url>/rpc/<chain> (no key needed). */
  rpcUrl(chain: string): string;
  chain: ChainControl;
  close(): Promise<void>;
}

function knownChain(chain: string) {
  if (!EmulatorChains.isChain(chain)) throw new RangeError(`Unknown chain ${chain}`);
  return chain;
}

export function todayUtcMidnight(): number {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) / 1000;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const seed = opts.seed ?? 1;
  const records = opts.records ?? 250;
  if (!Number.isInteger(records) || records < 0) throw new RangeError(`records must be an integer >= 0, got ${records}`);
  const datasets = new Datasets({ seed, records, now: opts.now ?? todayUtcMidnight(), ...(opts.hourlyFeeds ? { hourlyFeeds: true } : {}) });
  const deliverer = new Deliverer(opts.delivery);
  const faults = new FaultInjector();
  faults.configure(opts.faults);
  const requests: RequestLogEntry[] = [];
  const latencyMs = opts.latencyMs ?? 0;
  if (!(Number.isFinite(latencyMs) && latencyMs >= 0 && latencyMs <= MAX_LATENCY_MS)) throw new RangeError(`latencyMs must be from 0 to ${MAX_LATENCY_MS}, got ${latencyMs}`);
  const rateLimit = opts.rateLimit === undefined ? undefined : new RateLimit(opts.rateLimit);
  const live = new LiveTraffic(datasets, seed);
  // Before listening: bad live options throw with nothing left running.
  if (opts.live) live.start(opts.live);
  // With no anchor given, the data end at today's midnight, but the chain's head is now (the
  // blocks since hold none of its records): a node whose head stood at midnight would look
  // stuck to `doctor`, more so each hour of the day.
  const chains = new EmulatorChains(datasets, seed, opts.now ?? Math.floor(Date.now() / 1000));
  const rpc = new RpcServer(chains);
  const host = opts.host ?? '127.0.0.1';
  const server = createEmulatorServer({ datasets, deliverer, faults, latencyMs, rateLimit, live, requests, random: new Random(mixSeed(seed, 0x7219)), chains, rpc }, host);

  await new Promise<void>((resolve, reject) => {
    const fail = (err: Error) => {
      live.close();
      reject(err);
    };
    server.once('error', fail);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    keyFor: demoKey,
    requests,
    clearLog: () => {
      requests.length = 0;
    },
    fixtures: (chain) => fixturesOf(datasets.world(chain)),
    live: {
      start: (o) => live.start(o),
      stop: () => live.stop(),
      status: () => live.status(),
      settle: () => live.settle(),
    },
    records: (chain, collection) => groundTruth(datasets, chain, collection),
    subscriptions: (chain, filter) => subscriptionTruth(datasets, chain, filter),
    rpcUrl: (chain) => `http://${urlHost}:${port}${RPC_PREFIX}/${chain}`,
    chain: {
      head: (chain) => {
        const node = chains.of(knownChain(chain));
        const number = node.head();
        return { number, timestamp: node.blocks.timestampOf(number) };
      },
      advance: (seconds) => chains.clock.advance(seconds),
      discrepancies: (chain, collection) => chains.of(knownChain(chain)).discrepancies(collection === undefined ? TRANSACTION_COLLECTIONS : [collection]),
      calls: () => structuredClone(rpc.counts),
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        live.close();
        deliverer.close();
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive connections would hold close() open until they time out.
        server.closeAllConnections();
      }),
  };
}
