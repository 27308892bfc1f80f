import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FEE_COLLECTOR, hex, str, uint, addr } from './chain-fixtures.js';

// A JSON-RPC node written inside the tests: it answers from tables the test fills by
// hand (receipts, blocks, transactions), and can be made hostile (another chain id,
// 429 storms, errors inside a batch, malformed hex, look-alike logs, huge answers).
// It records every request, so a test can see what payrec asked and sent.

export interface Call {
  jsonrpc: string;
  id: number | string;
  method: string;
  params: unknown[];
}

export interface SeenRequest {
  headers: IncomingHttpHeaders;
  body: string;
  calls: Call[];
  batch: boolean;
}

/** A whole HTTP answer, for faults at the request level (429, 503, not JSON). */
export interface HttpReply {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

export type CallReply = { result: unknown } | { error: { code: number; message: string } };

export interface NodeTables {
  chainId: number;
  head: number;
  receipts?: Map<string, unknown>;
  blocks?: Map<number, unknown>;
  transactions?: Map<string, unknown>;
  /** The logs eth_getLogs finds, as a node holds them (raw); without it the node serves no eth_getLogs (-32601). */
  logs?: Record<string, any>[];
  /** The height the `finalized` and `safe` tags name; without it the node knows neither tag (-32602), as an older node. */
  finalized?: number;
  /** Answers of eth_call by `to` (lower case) and selector; default: a token of 18 decimals, the fee collector. */
  ethCall?: (to: string, data: string) => string | undefined;
}

export interface RpcNode {
  url: string;
  requests: SeenRequest[];
  /** Calls of one method so far. */
  calls(method: string): Call[];
  /** Most requests in flight at once. */
  peakInFlight: number;
  tables: NodeTables;
  close(): Promise<void>;
}

export interface NodeOptions {
  /** Path the node answers on (a provider's key lives there). */
  path?: string;
  /** Before anything: a whole HTTP answer for this request (its index among all requests), or undefined to answer normally. */
  http?: (request: SeenRequest, index: number) => HttpReply | undefined | Promise<HttpReply | undefined>;
  /** Before the tables: an answer for this call, or undefined. */
  call?: (call: Call) => CallReply | undefined;
}

/** The error `p` fails with (a test of a failure fails when it succeeds). */
export async function failure(p: Promise<unknown>): Promise<{ exitCode: number; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { exitCode: number; message: string };
  }
  throw new Error('expected a failure');
}

/** symbol() answer: an ABI string (offset, length, bytes). */
export const abiString = (s: string) => `0x${uint(0x20)}${str(s)}`;

export function defaultEthCall(_to: string, data: string): string | undefined {
  const selector = data.slice(0, 10);
  if (selector === '0x313ce567') return `0x${uint(18)}`; // decimals()
  if (selector === '0xc415b95c') return `0x${addr(FEE_COLLECTOR)}`; // feeCollector()
  return undefined;
}

export function answerFromTables(t: NodeTables, c: Call): CallReply {
  const p = c.params;
  switch (c.method) {
    case 'eth_chainId':
      return { result: hex(t.chainId) };
    case 'eth_blockNumber':
      return { result: hex(t.head) };
    case 'eth_getTransactionReceipt':
      return { result: t.receipts?.get(String(p[0]).toLowerCase()) ?? null };
    case 'eth_getTransactionByHash':
      return { result: t.transactions?.get(String(p[0]).toLowerCase()) ?? null };
    case 'eth_getBlockByNumber': {
      if (p[0] === 'finalized' || p[0] === 'safe') {
        if (t.finalized === undefined) return { error: { code: -32602, message: `invalid argument 0: unknown block tag ${String(p[0])}` } };
        return { result: t.blocks?.get(t.finalized) ?? { number: hex(t.finalized), hash: `0x${'f'.repeat(56)}${t.finalized.toString(16).padStart(8, '0')}`, timestamp: '0x0' } };
      }
      const n = p[0] === 'latest' ? t.head : Number(BigInt(String(p[0])));
      return { result: t.blocks?.get(n) ?? null };
    }
    case 'eth_getLogs': {
      if (!t.logs) return { error: { code: -32601, message: 'the method eth_getLogs does not exist/is not available' } };
      const q = p[0] as { fromBlock: string; toBlock: string; address?: string | string[]; topics?: (string | string[] | null)[] };
      const [from, to] = [Number(BigInt(q.fromBlock)), Number(BigInt(q.toBlock))];
      const addresses = q.address === undefined ? undefined : [q.address].flat().map((a) => a.toLowerCase());
      const topicsMatch = (l: Record<string, any>) => (q.topics ?? []).every((want, i) => want === null || [want].flat().includes(l.topics[i]));
      const inRange = (l: Record<string, any>) => Number(BigInt(l.blockNumber)) >= from && Number(BigInt(l.blockNumber)) <= to;
      return { result: t.logs.filter((l) => inRange(l) && (!addresses || addresses.includes(l.address)) && topicsMatch(l)) };
    }
    case 'eth_call': {
      const { to, data } = p[0] as { to: string; data: string };
      const answer = (t.ethCall ?? defaultEthCall)(to.toLowerCase(), data);
      return answer === undefined ? { error: { code: 3, message: 'execution reverted' } } : { result: answer };
    }
    default:
      return { error: { code: -32601, message: `the method ${c.method} does not exist/is not available` } };
  }
}

export async function rpcNode(tables: NodeTables, o: NodeOptions = {}): Promise<RpcNode> {
  const requests: SeenRequest[] = [];
  let inFlight = 0;
  const node = { requests, peakInFlight: 0, tables } as RpcNode;
  const server = createServer((req, res) => {
    inFlight++;
    node.peakInFlight = Math.max(node.peakInFlight, inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = [];
      }
      const batch = Array.isArray(parsed);
      const calls = (batch ? parsed : [parsed]) as Call[];
      const seen: SeenRequest = { headers: req.headers, body, calls, batch };
      requests.push(seen);
      const special = await o.http?.(seen, requests.length - 1);
      const send = (status: number, headers: Record<string, string>, text: string) => {
        inFlight--;
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(text);
      };
      if (special) return send(special.status, special.headers ?? {}, special.body);
      if (req.url !== (o.path ?? '/')) return send(404, {}, '{"error":"no such path"}');
      const answers = calls.map((c) => ({ jsonrpc: '2.0', id: c.id, ...(o.call?.(c) ?? answerFromTables(tables, c)) }));
      send(200, {}, JSON.stringify(batch ? answers : answers[0]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  node.url = `http://127.0.0.1:${port}${o.path ?? '/'}`;
  node.calls = (method) => requests.flatMap((r) => r.calls.filter((c) => c.method === method));
  node.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return node;
}
