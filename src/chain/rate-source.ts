import { rpcInEffect } from '../core/config/settings.js';
import type { Session } from '../core/runtime/session.js';
import type { CurrencyChoice } from '../values/currency-flags.js';
import type { RateSource } from '../values/rate.js';
import type { AgeLimits } from '../values/resolve.js';
import type { LegSource } from '../values/selection.js';

// The rate source of a --currency run (DESIGN.md "Values in one currency"): the rates
// file first, then Chainlink's feeds read through the chain's node. Here in src/chain
// (which reads the feeds) so that the commands and the close open it alike.

/** The rate source of a choice: its rates file first, then Chainlink. */
export async function rateSourceOf(session: Session, choice: CurrencyChoice): Promise<RateSource> {
  const { RowBook } = await import('../values/selection.js');
  return openRateSource(session, choice.file && new RowBook(choice.file.rows, choice.file.name), choice.limits);
}

/**
 * The rates of this run, in order of precedence: the rates file, then Chainlink's feeds
 * through the chain's node (checked to serve --chain first: another chain's node is exit 2,
 * as for --verify). With no node set, every feed's leg is missing and says why.
 */
export async function openRateSource(session: Session, file: LegSource | undefined, limits: AgeLimits): Promise<RateSource> {
  const s = await session.settings();
  const { url } = await rpcInEffect(s, session.store);
  const [{ ChainlinkLegs }, { Rates }] = await Promise.all([import('./feed-legs.js'), import('../values/resolve.js')]);
  const feeds = (await session.store.profile(s.profile))?.feeds?.[s.chain] ?? {};
  // The node's chain id is checked now, before the API is asked for anything (the chain's client loaded only when a node is set).
  const reader = url ? await (await import('./open-verifier.js')).openFeedReader(session, url) : undefined;
  const none = `no JSON-RPC node of ${s.chain} is set to read Chainlink's feeds (--rpc, PAYREC_RPC_URL or payrec config set rpc)`;
  const chainlink = new ChainlinkLegs(s.chain, async () => reader ?? none, feeds);
  return new Rates(file ? [file, chainlink] : [chainlink], limits);
}
