import { z } from 'zod';
import { hexToBigInt, isAddress, isHash, isHex, type Address, type Hex } from 'viem';
import { MalformedResponseError } from '../core/runtime/errors.js';

// What a JSON-RPC node answers (ONCHAIN.md §6), checked before anything in it is
// believed: a node is a server like any other, and one that sends a receipt of another
// transaction, a block of another height or hex that is not hex is a node payrec
// cannot use (exit 6), never evidence. Quantities become BigInts (viem's parsing) and
// addresses and hashes lower case, so they compare as text.

/** An answer of the node that payrec cannot use. The message never holds the node's URL. */
export class NodeAnswerError extends MalformedResponseError {
  constructor(what: string) {
    super(`the chain's node sent ${what}`, 'check the node (--rpc, PAYREC_RPC_URL or payrec config set rpc), or try another one');
  }
}

const quantity = z
  .string()
  .refine((s) => s.length > 2 && isHex(s, { strict: true }), 'expected a hex quantity')
  .transform((s) => hexToBigInt(s as Hex));
const data = z.string().refine((s) => isHex(s, { strict: true }) && s.length % 2 === 0, 'expected even-length hex data').transform((s) => s.toLowerCase() as Hex);
const hash = z.string().refine((s) => isHash(s), 'expected a 32-byte hash').transform((s) => s.toLowerCase() as Hex);
const address = z.string().refine((s) => isAddress(s, { strict: false }), 'expected an address').transform((s) => s.toLowerCase() as Address);

const log = z.object({
  address,
  topics: z.array(hash).max(4),
  data,
  blockHash: hash.nullable(),
  transactionHash: hash.nullable(),
  logIndex: quantity.nullable(),
  removed: z.boolean().optional(),
  /** The block's timestamp, which modern nodes add to each log (execution-apis PR 639; geth 1.16); older ones leave it out. */
  blockTimestamp: quantity.nullish(),
});

/** A log of eth_getLogs, read for the block it lies in: its canonical hash at that height (and its timestamp, when the node says it). */
const spanLog = z.object({
  address,
  blockNumber: quantity,
  blockHash: hash,
  blockTimestamp: quantity.nullish(),
  removed: z.boolean().optional(),
});

/**
 * A log of eth_getLogs read as evidence of its transaction (logs-first, see logs-first.ts):
 * a mined log's every field is there, or the node is answering something else.
 */
const eventLog = log.extend({ blockNumber: quantity, blockHash: hash, transactionHash: hash, logIndex: quantity });

const receipt = z.object({
  transactionHash: hash,
  blockHash: hash,
  blockNumber: quantity,
  from: address,
  to: address.nullable(),
  status: z.enum(['0x1', '0x0'], { message: 'expected "0x1" or "0x0"' }),
  logs: z.array(log),
});

const block = z.object({ number: quantity, hash, timestamp: quantity });

const transaction = z.object({
  hash,
  from: address,
  to: address.nullable(),
  value: quantity,
  blockHash: hash.nullable(),
  blockNumber: quantity.nullable(),
});

export type Log = z.infer<typeof log>;
export interface Receipt extends Omit<z.infer<typeof receipt>, 'status'> {
  status: 'success' | 'reverted';
}
export type Block = z.infer<typeof block>;
export type SpanLog = z.infer<typeof spanLog>;
export type EventLog = z.infer<typeof eventLog>;
export type Transaction = z.infer<typeof transaction>;

function parsed<T>(schema: z.ZodType<T>, raw: unknown, what: string): T {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new NodeAnswerError(`${what} payrec cannot use (field "${issue.path.join('.') || '(answer)'}": ${issue.message})`);
}

/** eth_getTransactionReceipt's answer for `expected`: null while the node knows no mined transaction. */
export function parseReceipt(raw: unknown, expected: string): Receipt | null {
  if (raw === null) return null;
  const r = parsed(receipt, raw, `a receipt of ${expected}`);
  if (r.transactionHash !== expected.toLowerCase()) throw new NodeAnswerError(`the receipt of ${r.transactionHash} when asked for ${expected}`);
  return { ...r, status: r.status === '0x1' ? 'success' : 'reverted' };
}

/** eth_getBlockByNumber's answer for height `expected`: null when the node has no such block. */
export function parseBlock(raw: unknown, expected: bigint): Block | null {
  if (raw === null) return null;
  const b = parsed(block, raw, `block ${expected}`);
  if (b.number !== expected) throw new NodeAnswerError(`block ${b.number} when asked for block ${expected}`);
  return b;
}

/** eth_getLogs's answer for blocks `from` to `to`: a log outside them is a node answering another question. */
function logsIn<T extends { blockNumber: bigint }>(schema: z.ZodType<T>, raw: unknown, from: bigint, to: bigint): T[] {
  const logs = parsed(z.array(schema), raw, `logs of blocks ${from} to ${to}`);
  const stray = logs.find((l) => l.blockNumber < from || l.blockNumber > to);
  if (stray) throw new NodeAnswerError(`a log of block ${stray.blockNumber} when asked for blocks ${from} to ${to}`);
  return logs;
}

/** eth_getLogs's answer, read for the blocks its logs lie in. */
export const parseLogs = (raw: unknown, from: bigint, to: bigint): SpanLog[] => logsIn(spanLog, raw, from, to);

/** eth_getLogs's answer, each log whole (its transaction, position, topics and data). */
export const parseEventLogs = (raw: unknown, from: bigint, to: bigint): EventLog[] => logsIn(eventLog, raw, from, to);

/** eth_getTransactionByHash's answer for `expected`: null when the node does not know it. */
export function parseTransaction(raw: unknown, expected: string): Transaction | null {
  if (raw === null) return null;
  const t = parsed(transaction, raw, `transaction ${expected}`);
  if (t.hash !== expected.toLowerCase()) throw new NodeAnswerError(`transaction ${t.hash} when asked for ${expected}`);
  return t;
}

/** A quantity answer (eth_chainId, eth_blockNumber). */
export function parseQuantity(raw: unknown, what: string): bigint {
  return parsed(quantity, raw, what);
}

/** An eth_call answer: hex data. */
export function parseData(raw: unknown, what: string): Hex {
  return parsed(data, raw, what);
}
