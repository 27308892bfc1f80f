import { KNOWN_CHAINS } from '../../registry/validators.js';
import type { ChainSlug } from '../../chain/model.js';
import { unknownTarget } from '../ground-truth.js';
import { HttpError, json, type Reply } from '../reply.js';
import { TRANSACTION_COLLECTIONS } from './layouts.js';
import { EmulatorChains } from './network.js';
import type { RpcServer } from './rpc.js';

// Control routes of the chain, under /_emulator/chain/: the ground truth of its
// discrepancies, each price feed's rounds, a way to mine blocks at once, and how many
// JSON-RPC calls were made.

/** What the chain's routes read of the emulator's control state (control.ts ControlState), and nothing else of it. */
export interface ChainControlState {
  chains: EmulatorChains;
  rpc: RpcServer;
  /** The records' counter (datasets.ts): the ground truth says which records it saw. */
  datasets: { readonly seq: number };
}

/** What the chain's routes read of a control request (control.ts ControlRequest). */
interface ChainControlRequest {
  query: URLSearchParams;
  body: Record<string, unknown>;
}

type Route = [method: string, path: string, handler: (req: ChainControlRequest) => Reply];

/** Most seconds one advance may move the chain: about thirty years. */
const MAX_ADVANCE = 1_000_000_000;

export function chainRoutes(state: ChainControlState): Route[] {
  const { chains, rpc } = state;
  return [
    [
      'GET',
      '/chain/discrepancies',
      ({ query }) => {
        const chain = chainOf(query);
        const collection = query.get('collection');
        if (collection !== null && !TRANSACTION_COLLECTIONS.includes(collection)) {
          throw new HttpError(404, unknownTarget(chain, collection) ?? `${collection} holds no transactions: expected one of ${TRANSACTION_COLLECTIONS.join(', ')}`);
        }
        const node = chains.of(chain);
        const head = node.head();
        const discrepancies = node.discrepancies(collection === null ? TRANSACTION_COLLECTIONS : [collection]);
        return json(200, { chain, chainId: node.chainId, head: { number: head, timestamp: node.blocks.timestampOf(head) }, seq: state.datasets.seq, discrepancies });
      },
    ],
    [
      'POST',
      '/chain/advance',
      ({ body }) => {
        const { seconds } = body;
        if (!Number.isInteger(seconds) || (seconds as number) < 1 || (seconds as number) > MAX_ADVANCE) {
          throw new HttpError(400, `Invalid seconds: expected an integer from 1 to ${MAX_ADVANCE}`);
        }
        chains.clock.advance(seconds as number);
        return json(200, heads(chains));
      },
    ],
    [
      'GET',
      '/chain/feeds',
      ({ query }) => {
        const chain = chainOf(query);
        const node = chains.of(chain);
        const now = node.blocks.timestampOf(node.head());
        return json(200, { chain, chainId: node.chainId, head: { number: node.head(), timestamp: now }, feeds: node.feeds.truth(now) });
      },
    ],
    ['GET', '/chain/calls', () => json(200, rpc.counts)],
    [
      'DELETE',
      '/chain/calls',
      () => {
        rpc.counts.requests = 0;
        rpc.counts.calls = {};
        return json(200, { cleared: true });
      },
    ],
  ];
}

/** The chain a control route is asked about (?chain=). */
function chainOf(query: URLSearchParams): ChainSlug {
  const chain = query.get('chain');
  if (chain === null) throw new HttpError(400, `Missing chain: expected ?chain=${KNOWN_CHAINS.join('|')}`);
  if (!EmulatorChains.isChain(chain)) throw new HttpError(404, `Unknown chain ${chain}`);
  return chain;
}

/** Each chain's head: its number and timestamp. */
function heads(chains: EmulatorChains): Record<string, { number: number; timestamp: number }> {
  return Object.fromEntries(
    KNOWN_CHAINS.map((chain) => {
      const node = chains.of(chain);
      const number = node.head();
      return [chain, { number, timestamp: node.blocks.timestampOf(number) }];
    }),
  );
}
