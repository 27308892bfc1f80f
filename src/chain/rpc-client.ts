import { BaseError, http, HttpRequestError, ResponseBodyTooLargeError, RpcRequestError, TimeoutError, type Hex } from 'viem';
import { InterruptedError, NetworkError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import { maskRpcUrl } from '../core/runtime/secrets.js';
import { NodeAnswerError, parseBlock, parseData, parseEventLogs, parseLogs, parseQuantity, parseReceipt, parseTransaction, type Block, type EventLog, type Receipt, type SpanLog, type Transaction } from './answers.js';

// The chain client: viem's HTTP transport with JSON-RPC batches of up to 100 calls,
// at most `concurrency` batches in flight, and viem's retries with backoff on HTTP
// 429 and 503 and JSON-RPC -32005 (Retry-After honoured, at most MAX_RETRY_AFTER_S),
// each call of a batch answered, retried or failed on its own. It sends nothing but
// the calls: no API key ever goes to the RPC host. The URL is a secret (providers put
// keys in it): messages name it masked.

/** Calls in one JSON-RPC batch. */
export const BATCH_SIZE = 100;
/** Longest Retry-After payrec waits; a node asking more is asked again sooner (and fails after --retries). */
const MAX_RETRY_AFTER_S = 30;
/** Largest answer read: a batch of 100 receipts is a few hundred kilobytes. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export interface ChainClientOptions {
  url: string;
  timeoutMs: number;
  retries: number;
  /** Batches in flight at once (default 4). */
  concurrency?: number;
  signal?: AbortSignal;
  /** --debug: one line per HTTP request and answer, the URL masked. */
  debug?: (line: string) => void;
}

type Request = (args: { method: string; params?: unknown[] }, options?: { retryCount?: number }) => Promise<unknown>;

/** An eth_getLogs filter (blocks inclusive); topics as the spec has them: null for any, a list for any of its values. */
export interface LogFilter {
  fromBlock: bigint;
  toBlock: bigint;
  /** Any of these emitters; none: any address. */
  address?: readonly string[];
  topics?: readonly (string | readonly string[] | null)[];
}

/**
 * A filter's logs; `refused` when the node will not answer it as asked (too wide a
 * range, too many logs, too large an answer: nodes differ in code and words, so any
 * JSON-RPC error of the call is one), `unsupported` when it serves no eth_getLogs.
 */
export type LogsAnswer<T = SpanLog> = T[] | 'refused' | 'unsupported';

/** JSON-RPC codes of a node that serves no such method; and of rate limits (asked again later, not split). */
const UNSUPPORTED = new Set([-32601, -32004]);
const RATE_LIMITED = new Set([429, -32007]);

/**
 * A node's answer as viem is to read it: a Retry-After beyond MAX_RETRY_AFTER_S shortened to
 * it (viem waits what the header says before asking again), and a failure's body as text.
 */
export function asViemReads(res: Response): Response {
  const capped = Number(res.headers.get('retry-after')) > MAX_RETRY_AFTER_S;
  if (res.ok && !capped) return res;
  const headers = new Headers(res.headers);
  if (capped) headers.set('retry-after', String(MAX_RETRY_AFTER_S));
  // A failure's body is read as text (viem still reads a JSON-RPC error in it): a 503 whose body is not the JSON
  // its content-type claims is the node failing (exit 7 after the retries, as any 5xx), not an answer payrec cannot use.
  if (!res.ok) headers.set('content-type', 'text/plain');
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

export class ChainClient {
  /** JSON-RPC calls made (retries included): what the bench counts per record. */
  calls = 0;
  private readonly request: Request;
  private readonly window: number;
  readonly shownUrl: string;

  constructor(private readonly o: ChainClientOptions) {
    this.shownUrl = maskRpcUrl(o.url);
    this.window = (o.concurrency ?? 4) * BATCH_SIZE;
    const debug = o.debug;
    const transport = http(o.url, {
      batch: { batchSize: BATCH_SIZE },
      retryCount: o.retries,
      retryDelay: 250,
      timeout: o.timeoutMs,
      maxResponseBodySize: MAX_RESPONSE_BYTES,
      fetchFn: (input, init) => this.fetch(input, init),
      onFetchRequest: debug
        ? (_req, init) => {
            const body = typeof init.body === 'string' ? init.body : '';
            debug(`RPC POST ${this.shownUrl} (${body.startsWith('[') ? `a batch of ${(JSON.parse(body) as unknown[]).length} calls` : '1 call'})`);
          }
        : undefined,
      onFetchResponse: debug ? (res) => debug(`RPC ${res.status} ${res.statusText}`.trimEnd()) : undefined,
    })({ retryCount: o.retries });
    this.request = transport.request as unknown as Request;
  }

  /** Counts each call; a Retry-After beyond MAX_RETRY_AFTER_S is shortened, so a node cannot park payrec for hours; a failure's body is text. */
  private async fetch(input: string | URL | globalThis.Request, init?: RequestInit): Promise<Response> {
    if (typeof init?.body === 'string') this.calls += init.body.startsWith('[') ? (JSON.parse(init.body) as unknown[]).length : 1;
    // A redirect is not followed (the calls, and what the node answers, could go to any host): it is the node's
    // error, with its status, which viem does not retry (failure() names it).
    // Ctrl-C ends a request a node holds (rates sync waiting on a batch), rather than the 5 s after which the process stops unheard.
    const signal = this.o.signal && init?.signal ? AbortSignal.any([init.signal, this.o.signal]) : (this.o.signal ?? init?.signal);
    const res = await fetch(input, { ...init, ...(signal ? { signal } : {}), redirect: 'manual' });
    if (res.status >= 300 && res.status < 400) throw new HttpRequestError({ url: this.shownUrl, status: res.status });
    return asViemReads(res);
  }

  /** One call; errors said in payrec's terms (exit 7 for a node that keeps failing, 6 for answers payrec cannot use). */
  async call(method: string, params: unknown[]): Promise<unknown> {
    try {
      return await this.request({ method, params });
    } catch (err) {
      throw this.failure(method, err);
    }
  }

  /** `fn` over every item, a window of concurrency × 100 calls at a time (viem batches each tick's calls by 100). */
  async each<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
    const out: R[] = [];
    for (let i = 0; i < items.length; i += this.window) {
      if (this.o.signal?.aborted) throw new InterruptedError();
      out.push(...(await Promise.all(items.slice(i, i + this.window).map(fn))));
    }
    return out;
  }

  async chainId(): Promise<bigint> {
    return parseQuantity(await this.call('eth_chainId', []), 'a chain id');
  }

  async blockNumber(): Promise<bigint> {
    return parseQuantity(await this.call('eth_blockNumber', []), 'a block number');
  }

  async receipts(hashes: readonly string[]): Promise<Map<string, Receipt | null>> {
    return (await this.receiptsAndTransactions(hashes, [])).receipts;
  }

  /** The receipts of `hashes` and the transactions of `withTransaction`, asked in the same batches (keyed in lower case). */
  async receiptsAndTransactions(hashes: readonly string[], withTransaction: readonly string[]): Promise<{ receipts: Map<string, Receipt | null>; transactions: Map<string, Transaction | null> }> {
    const calls = [...hashes.map((h) => ({ h, receipt: true })), ...withTransaction.map((h) => ({ h, receipt: false }))];
    const answers = await this.each(calls, async ({ h, receipt }) =>
      receipt ? parseReceipt(await this.call('eth_getTransactionReceipt', [h]), h) : parseTransaction(await this.call('eth_getTransactionByHash', [h]), h),
    );
    const receipts = new Map<string, Receipt | null>();
    const transactions = new Map<string, Transaction | null>();
    calls.forEach(({ h, receipt }, i) => (receipt ? receipts : transactions).set(h.toLowerCase(), answers[i] as never));
    return { receipts, transactions };
  }

  async blocks(numbers: readonly bigint[]): Promise<Map<bigint, Block | null>> {
    const answers = await this.each(numbers, async (n) => parseBlock(await this.call('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]), n));
    return new Map(numbers.map((n, i) => [n, answers[i]]));
  }

  async block(tag: 'latest' | 'finalized' | 'safe'): Promise<Block | null> {
    const raw = await this.call('eth_getBlockByNumber', [tag, false]);
    if (raw === null) return null;
    const n = raw !== null && typeof raw === 'object' && 'number' in raw ? parseQuantity(raw.number, 'a block number') : undefined;
    if (n === undefined) throw new NodeAnswerError(`a ${tag} block without a number`);
    return parseBlock(raw, n);
  }

  /** eth_getLogs of each filter, in the same batches, read for the blocks the logs lie in. */
  async logs(filters: readonly LogFilter[]): Promise<LogsAnswer[]> {
    return this.each(filters, (f) => this.logsOf(f, parseLogs));
  }

  /** eth_getLogs of each filter, in the same batches, each log whole (logs-first evidence). */
  async eventLogs(filters: readonly LogFilter[]): Promise<LogsAnswer<EventLog>[]> {
    return this.each(filters, (f) => this.logsOf(f, parseEventLogs));
  }

  /**
   * A refusal is an answer, not a fault to retry: asked once without viem's retries (which
   * would retry a -32005 "more than 10000 results" as if the node were busy), then, on an
   * HTTP fault, a timeout or a rate limit, once more with them.
   */
  private async logsOf<T>(f: LogFilter, parse: (raw: unknown, from: bigint, to: bigint) => T[]): Promise<LogsAnswer<T>> {
    const quantity = (n: bigint) => `0x${n.toString(16)}`;
    const params = [{ fromBlock: quantity(f.fromBlock), toBlock: quantity(f.toBlock), ...(f.address ? { address: f.address } : {}), ...(f.topics ? { topics: f.topics } : {}) }];
    const ask = async (retryCount: number) => parse(await this.request({ method: 'eth_getLogs', params }, { retryCount }), f.fromBlock, f.toBlock);
    try {
      return await ask(0);
    } catch (err) {
      if (err instanceof NodeAnswerError || this.o.signal?.aborted) throw this.failure('eth_getLogs', err);
      const refusal = refusalOf(err);
      if (refusal) return refusal;
    }
    try {
      return await ask(this.o.retries);
    } catch (err) {
      const refusal = err instanceof NodeAnswerError ? undefined : refusalOf(err);
      if (refusal) return refusal;
      throw this.failure('eth_getLogs', err);
    }
  }

  /** eth_call at the latest block; the raw answer (checked hex). */
  async ethCall(to: string, data: Hex): Promise<Hex> {
    return parseData(await this.call('eth_call', [{ to, data }, 'latest']), `an eth_call answer from ${to}`);
  }

  /** eth_call at the latest block; 'reverted' when the contract reverts (JSON-RPC error 3, or -32000 "execution reverted"). */
  async ethCallOrRevert(to: string, data: Hex): Promise<Hex | 'reverted'> {
    try {
      return parseData(await this.request({ method: 'eth_call', params: [{ to, data }, 'latest'] }), `an eth_call answer from ${to}`);
    } catch (err) {
      const rpc = err instanceof BaseError ? (err.walk((x) => x instanceof RpcRequestError) as RpcRequestError | null) : null;
      if (rpc && (rpc.code === 3 || /revert/i.test(rpc.details ?? ''))) return 'reverted';
      throw this.failure('eth_call', err);
    }
  }

  private failure(method: string, err: unknown): Error {
    if (this.o.signal?.aborted) return new InterruptedError();
    if (err instanceof NodeAnswerError) return err;
    const at = `the chain's node (${this.shownUrl})`;
    const hint = 'check --rpc (or PAYREC_RPC_URL, payrec config set rpc); --retries and --timeout give a slow node more time';
    const tries = `after ${this.o.retries} ${this.o.retries === 1 ? 'retry' : 'retries'}`;
    if (err instanceof ResponseBodyTooLargeError) return new NodeAnswerError(`an answer to ${method} larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MB`);
    if (err instanceof TimeoutError) return new NetworkError(`${at} did not answer ${method} within ${this.o.timeoutMs / 1000} s ${tries}`, hint);
    if (err instanceof RpcRequestError || (err instanceof BaseError && typeof (err as { code?: unknown }).code === 'number')) {
      const e = err as BaseError & { code: number; status?: number };
      const cause = (e.walk?.((x) => x instanceof RpcRequestError) as RpcRequestError | null) ?? undefined;
      const text = printable((cause?.details ?? e.shortMessage ?? '').slice(0, 200));
      return new NetworkError(`${at} keeps failing ${method}: JSON-RPC error ${e.code}${text ? ` (${text})` : ''} ${tries}`, hint);
    }
    const http = err instanceof BaseError ? (err.walk((x) => x instanceof HttpRequestError) as HttpRequestError | null) : null;
    if (http?.status && http.status >= 300 && http.status < 400) return new NodeAnswerError(`a redirect (HTTP ${http.status}) for ${method}, not followed: payrec sends a node's calls only to the URL given`);
    if (http?.status) return new NetworkError(`${at} keeps failing ${method}: HTTP ${http.status} ${tries}`, hint);
    if (http) {
      const cause = http.cause instanceof Error ? http.cause : undefined;
      // Not JSON, or fewer answers than calls: a node payrec cannot use.
      if (cause instanceof SyntaxError || /Expected \d+ responses/.test(cause?.message ?? '')) return new NodeAnswerError(`an answer to ${method} that is not JSON-RPC`);
      return new NetworkError(`${at} cannot be reached for ${method}${cause ? ` (${printable(cause.message.slice(0, 200))})` : ''} ${tries}`, hint);
    }
    return new NodeAnswerError(`an answer to ${method} payrec cannot use`);
  }
}

/** What a failed eth_getLogs means: the node's word on this filter (a JSON-RPC error in a 200 answer, or an answer too large), or undefined for a fault. */
function refusalOf(err: unknown): 'refused' | 'unsupported' | undefined {
  if (!(err instanceof BaseError)) return undefined;
  if (err.walk((x) => x instanceof ResponseBodyTooLargeError)) return 'refused';
  const rpc = err.walk((x) => x instanceof RpcRequestError) as RpcRequestError | null;
  if (!rpc || typeof rpc.code !== 'number' || (rpc as { status?: number }).status !== undefined) return undefined;
  if (UNSUPPORTED.has(rpc.code)) return 'unsupported';
  return RATE_LIMITED.has(rpc.code) ? undefined : 'refused';
}
