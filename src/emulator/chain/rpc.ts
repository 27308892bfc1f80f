import { decodeFunctionData, encodeFunctionResult, type Hex } from 'viem';
import { CONTRACTS, DEFAULT_CONFIRMATIONS, FUNCTIONS, type ChainSlug } from '../../chain/model.js';
import { KNOWN_CHAINS } from '../../registry/validators.js';
import type { Reply } from '../reply.js';
import { quantity } from './blocks.js';
import type { EmulatorChain, LogQuery } from './chain.js';
import { PAYMENT_TYPES } from './layouts.js';
import { EmulatorChains } from './network.js';
import { tokenAt } from './tokens.js';

// JSON-RPC 2.0 over HTTP POST at /rpc/<chain>, as an Ethereum node answers it: single
// calls and batches (arrays), quantities as hex without leading zeros, errors in the
// standard codes (-32700 parse error, -32600 invalid request, -32601 unknown method,
// -32602 bad params, 3 execution reverted). A node takes no API key, and neither does this.

export const RPC_PREFIX = '/rpc';

/** The chain a path of the JSON-RPC names (`/rpc/bsc`), or undefined for any other path. */
export function rpcChainOf(pathname: string): string | undefined {
  return /^\/rpc\/([^/]+)\/?$/.exec(pathname)?.[1];
}

/** Most calls in one batch, as geth's default limit. */
const MAX_BATCH = 1000;
/** Most blocks one eth_getLogs spans, and most logs it returns (QuickNode's range limit, Infura's result limit): beyond either, -32005. */
export const MAX_LOG_BLOCKS = 10_000;
export const MAX_LOGS = 10_000;

type Id = string | number | null;

interface RpcError {
  code: number;
  message: string;
}

/** What the calls of an emulator asked for: counts per chain and method, and HTTP requests. */
export interface RpcCalls {
  requests: number;
  calls: Record<string, Record<string, number>>;
}

class CallError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
const DATA = /^0x([0-9a-fA-F]{2})*$/;

const bad = (message: string) => new CallError(-32602, message);

export class RpcServer {
  readonly counts: RpcCalls = { requests: 0, calls: {} };

  constructor(private readonly chains: EmulatorChains) {}

  /** The answer to a request at /rpc/<chain>. */
  reply(method: string, chain: string, body: string): Reply {
    if (method !== 'POST') return answer(405, failure(null, { code: -32600, message: 'JSON-RPC takes POST requests' }), { allow: 'POST' });
    if (!EmulatorChains.isChain(chain)) return answer(404, failure(null, { code: -32600, message: `Unknown chain ${chain}: expected one of ${KNOWN_CHAINS.join(', ')}` }));
    this.counts.requests++;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return answer(200, failure(null, { code: -32700, message: 'Parse error: the body is not JSON' }));
    }
    const node = this.chains.of(chain);
    if (!Array.isArray(parsed)) {
      const one = this.one(node, parsed);
      return one === undefined ? { status: 204, body: '' } : answer(200, one);
    }
    if (parsed.length === 0) return answer(200, failure(null, { code: -32600, message: 'Invalid request: empty batch' }));
    if (parsed.length > MAX_BATCH) return answer(200, failure(null, { code: -32600, message: `Invalid request: a batch holds at most ${MAX_BATCH} calls` }));
    const out = parsed.map((request) => this.one(node, request)).filter((r) => r !== undefined);
    return out.length === 0 ? { status: 204, body: '' } : answer(200, out);
  }

  /** One call's response; undefined for a notification (a call without an id gets none). */
  private one(node: EmulatorChain, request: unknown): object | undefined {
    if (request === null || typeof request !== 'object' || Array.isArray(request)) return failure(null, { code: -32600, message: 'Invalid request: expected an object' });
    const r = request as Record<string, unknown>;
    const id = validId(r.id) ? (r.id as Id) : null;
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || ('id' in r && !validId(r.id))) {
      return failure(id, { code: -32600, message: 'Invalid request: expected {"jsonrpc":"2.0","method":…,"params":[…],"id":…}' });
    }
    if (r.params !== undefined && !Array.isArray(r.params)) return 'id' in r ? failure(id, { code: -32602, message: 'Invalid params: expected an array' }) : undefined;
    const calls = (this.counts.calls[node.chain] ??= {});
    calls[r.method] = (calls[r.method] ?? 0) + 1;
    let result: unknown;
    try {
      result = this.call(node, r.method, (r.params ?? []) as unknown[]);
    } catch (err) {
      if (!(err instanceof CallError)) throw err;
      return 'id' in r ? failure(id, { code: err.code, message: err.message }) : undefined;
    }
    return 'id' in r ? { jsonrpc: '2.0', id, result } : undefined;
  }

  private call(node: EmulatorChain, method: string, params: unknown[]): unknown {
    switch (method) {
      case 'eth_chainId':
        return quantity(node.chainId);
      case 'eth_blockNumber':
        return quantity(node.head());
      case 'eth_getBlockByNumber':
        fullFlag(params[1]);
        return node.block(blockNumber(node, params[0], 0));
      case 'eth_getBlockByHash':
        fullFlag(params[1]);
        return node.blockByHash(hash(params[0], 0));
      case 'eth_getTransactionByHash':
        return node.transaction(hash(params[0], 0));
      case 'eth_getTransactionReceipt':
        return node.receipt(hash(params[0], 0));
      case 'eth_call':
        return ethCall(node, params);
      case 'eth_getLogs':
        return getLogs(node, params);
      default:
        throw new CallError(-32601, `the method ${method} does not exist/is not available`);
    }
  }
}

const validId = (id: unknown) => id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));

function answer(status: number, value: unknown, headers?: Record<string, string>): Reply {
  return { status, body: JSON.stringify(value), headers };
}

function failure(id: Id, error: RpcError): object {
  return { jsonrpc: '2.0', id, error };
}

function hash(value: unknown, at: number): string {
  if (typeof value !== 'string' || !HASH.test(value)) throw bad(`invalid argument ${at}: expected a 32-byte hash (0x and 64 hex digits)`);
  return value;
}

function fullFlag(value: unknown): void {
  if (typeof value !== 'boolean') throw bad('invalid argument 1: expected true or false (whether to include full transactions)');
}

/** A block number or tag; safe and finalized lag the head by the chain's usual confirmations. */
function blockNumber(node: EmulatorChain, value: unknown, at: number): number {
  if (value === 'latest' || value === 'pending') return node.head();
  if (value === 'earliest') return 0;
  if (value === 'safe' || value === 'finalized') return Math.max(0, node.head() - DEFAULT_CONFIRMATIONS[node.chain]);
  if (typeof value === 'string' && QUANTITY.test(value)) {
    const n = Number(value);
    if (Number.isSafeInteger(n)) return n;
  }
  throw bad(`invalid argument ${at}: expected a block number (hex quantity) or latest, earliest, pending, safe, finalized`);
}

/**
 * eth_getLogs as the spec has it: blocks fromBlock to toBlock (numbers or tags, latest
 * by default; a range past the head ends at it) or one block by blockHash; address one
 * or a list; topics by position, null for any, a list for any of its values.
 */
function getLogs(node: EmulatorChain, params: unknown[]): unknown[] {
  const f = params[0] as Record<string, unknown> | undefined;
  if (f === null || typeof f !== 'object' || Array.isArray(f)) throw bad('invalid argument 0: expected a filter object {fromBlock, toBlock, address, topics} or {blockHash, address, topics}');
  let from: number;
  let to: number;
  if (f.blockHash !== undefined) {
    if (f.fromBlock !== undefined || f.toBlock !== undefined) throw bad('invalid argument 0: blockHash excludes fromBlock and toBlock');
    const n = node.blocks.numberOf(hash(f.blockHash, 0));
    if (n === undefined || n > node.head()) throw new CallError(-32000, 'unknown block');
    from = to = n;
  } else {
    from = blockNumber(node, f.fromBlock ?? 'latest', 0);
    to = blockNumber(node, f.toBlock ?? 'latest', 0);
    if (from > to) throw bad('invalid argument 0: fromBlock is after toBlock');
    if (to - from + 1 > MAX_LOG_BLOCKS) throw new CallError(-32005, `query exceeds the range limit of ${MAX_LOG_BLOCKS} blocks`);
  }
  const q: LogQuery = { from, to, addresses: addressesOf(f.address), topics: topicsOf(f.topics) };
  const logs = node.logs(q);
  if (logs.length > MAX_LOGS) throw new CallError(-32005, `query returned more than ${MAX_LOGS} results`);
  return logs;
}

function addressesOf(value: unknown): Set<string> | undefined {
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? value : [value];
  if (!list.every((a) => typeof a === 'string' && ADDRESS.test(a))) throw bad('invalid argument 0: expected "address", an address or a list of addresses');
  return new Set(list.map((a: string) => a.toLowerCase()));
}

/** Topic positions: null (or an empty list) matches any topic, a hash that one, a list any of its hashes. */
function topicsOf(value: unknown): (Set<string> | null)[] {
  if (value === undefined || value === null) return [];
  const topic = (t: unknown) => {
    if (typeof t !== 'string' || !HASH.test(t)) throw bad('invalid argument 0: expected "topics", a list of null, 32-byte hashes or lists of them');
    return t.toLowerCase();
  };
  if (!Array.isArray(value) || value.length > 4) throw bad('invalid argument 0: expected "topics", a list of at most 4 positions');
  return value.map((p) => (p === null || (Array.isArray(p) && p.length === 0) ? null : new Set(Array.isArray(p) ? p.map(topic) : [topic(p)])));
}

/** The contracts answering PAYMENT_TYPE(), and with what. */
function paymentTypeAt(chain: ChainSlug, to: string): Hex | undefined {
  const c = CONTRACTS[chain];
  const byContract: [string, Hex][] = [
    [c.oneTime, PAYMENT_TYPES.oneTime],
    [c.fixedRecurringSubscriptions, PAYMENT_TYPES.fixedRecurring],
    [c.fixedRecurringManagement, PAYMENT_TYPES.fixedRecurring],
    [c.variableRecurringSubscriptions, PAYMENT_TYPES.variableRecurring],
    [c.variableRecurringManagement, PAYMENT_TYPES.variableRecurring],
    [c.onDemandSubscriptions, PAYMENT_TYPES.onDemand],
    [c.onDemandManagement, PAYMENT_TYPES.onDemand],
    [c.scheduledPayments, PAYMENT_TYPES.scheduledPayments],
    [c.dollarCostAverage, PAYMENT_TYPES.dollarCostAverage],
  ];
  return byContract.find(([address]) => address.toLowerCase() === to)?.[1];
}

/**
 * eth_call of the view functions payrec reads: decimals() and symbol() of tokens,
 * feeCollector() of Transfers, PAYMENT_TYPE() of the product contracts, and Chainlink's
 * feeds and their aggregators (feeds.ts). Another function
 * of a known contract reverts; an address without a contract answers "0x", as on a node.
 */
function ethCall(node: EmulatorChain, params: unknown[]): Hex {
  const tx = params[0] as Record<string, unknown> | undefined;
  if (tx === null || typeof tx !== 'object' || Array.isArray(tx)) throw bad('invalid argument 0: expected a call object {to, data}');
  if (typeof tx.to !== 'string' || !ADDRESS.test(tx.to)) throw bad('invalid argument 0: expected "to", an address (0x and 40 hex digits)');
  const data = tx.data ?? tx.input ?? '0x';
  if (typeof data !== 'string' || !DATA.test(data)) throw bad('invalid argument 0: expected "data", hex bytes');
  if (params[1] !== undefined && blockNumber(node, params[1], 1) > node.head()) throw new CallError(-32000, 'header not found');
  const to = tx.to.toLowerCase();
  const feed = node.feeds.call(to, data as Hex, node.blocks.timestampOf(node.head()));
  if (feed === 'revert') throw new CallError(3, 'execution reverted');
  if (feed !== undefined) return feed;
  const token = tokenAt(node.chain, to);
  const contract = Object.values(CONTRACTS[node.chain]).some((a) => a.toLowerCase() === to);
  if (!token && !contract) return '0x';
  let functionName: string;
  try {
    functionName = decodeFunctionData({ abi: FUNCTIONS, data: data as Hex }).functionName;
  } catch {
    throw new CallError(3, 'execution reverted');
  }
  let result: unknown;
  if (token && functionName === 'decimals') result = token.decimals;
  else if (token && functionName === 'symbol') result = token.onChainSymbol;
  else if (functionName === 'feeCollector' && to === CONTRACTS[node.chain].transfers.toLowerCase()) result = node.feeCollector;
  else if (functionName === 'PAYMENT_TYPE') result = paymentTypeAt(node.chain, to);
  if (result === undefined) throw new CallError(3, 'execution reverted');
  return encodeFunctionResult({ abi: FUNCTIONS, functionName, result } as Parameters<typeof encodeFunctionResult>[0]);
}
