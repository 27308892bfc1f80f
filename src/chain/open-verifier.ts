import { UsageError } from '../core/runtime/errors.js';
import { keepRpcSecret, maskSecrets } from '../core/runtime/secrets.js';
import { rpcInEffect } from '../core/config/settings.js';
import { neutraliseTerminal } from '../core/output/sanitize.js';
import type { Session } from '../core/runtime/session.js';
import { CHAIN_IDS, DEFAULT_CONFIRMATIONS, type ChainSlug } from './model.js';
import { ChainClient } from './rpc-client.js';
import { Verifier } from './verifier.js';
import { FeedReader } from './feeds.js';

// A run's verifier: the chain's node from the settings (--rpc, PAYREC_RPC_URL, the
// profile's rpc for this chain, or --emulator's own chain), with this run's --timeout,
// --retries and --debug, checked to serve --chain before anything is verified.

/** Batches of 100 calls in flight at once. */
const CONCURRENCY = 4;

export async function openVerifier(session: Session, confirmations?: number): Promise<Verifier> {
  const s = await session.settings();
  if (!Object.hasOwn(CHAIN_IDS, s.chain)) {
    throw new UsageError(`payrec knows 8pay's contracts on ${Object.keys(CHAIN_IDS).join(', ')}, not on "${s.chain}": its records cannot be verified`);
  }
  const chain = s.chain as ChainSlug;
  const { url } = await rpcInEffect(s, session.store);
  if (!url) {
    throw new UsageError(
      `verifying against the chain needs a ${chain} JSON-RPC node: none is set`,
      'give --rpc URL, set PAYREC_RPC_URL, or store it for this profile and chain: payrec config set rpc URL (try it with: payrec --emulator … --verify)',
    );
  }
  return Verifier.open(chainClient(session, url), chain, confirmations ?? DEFAULT_CONFIRMATIONS[chain]);
}

/** The chain client of this run for the node at `url` (kept secret), with --timeout, --retries and --debug. */
export function chainClient(session: Session, url: string): ChainClient {
  keepRpcSecret(url);
  return new ChainClient({
    url,
    timeoutMs: session.timeoutMs,
    retries: session.retries,
    concurrency: CONCURRENCY,
    signal: session.ctx.signal,
    debug: session.flags.debug ? (line) => session.ctx.stderr.write(`debug: ${neutraliseTerminal(maskSecrets(line))}\n`) : undefined,
  });
}

/**
 * Chainlink's feeds through the chain's node at `url` (its chain id checked first: another
 * chain's node is exit 2, as for --verify), with the profile's own feeds (config set feed).
 */
export async function openFeedReader(session: Session, url: string): Promise<FeedReader> {
  const s = await session.settings();
  const feeds = (await session.store.profile(s.profile))?.feeds?.[s.chain] ?? {};
  return new FeedReader((await Verifier.open(chainClient(session, url), s.chain, 1)).client, s.chain, feeds);
}
