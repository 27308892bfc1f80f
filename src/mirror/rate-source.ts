import { rpcInEffect } from '../core/config/settings.js';
import type { Session } from '../core/runtime/session.js';
import type { CurrencyChoice } from '../values/currency-flags.js';
import type { RateSource } from '../values/rate.js';
import type { AgeLimits } from '../values/resolve.js';
import type { LegSource } from '../values/selection.js';

// The rate source of a --currency run (DESIGN.md "Values in one currency"): the rates
// file first, then the mirror's rates table, then Chainlink's feeds read through the
// chain's node. Here in src/mirror (which may read both the mirror and the chain) so that
// the lists, subscriptions, metrics and the close open it alike.

/** The rate source of a choice: its rates file first, then the mirror's rates (when there is a mirror), then Chainlink. */
export async function rateSourceOf(session: Session, choice: CurrencyChoice): Promise<RateSource> {
  const { RowBook } = await import('../values/selection.js');
  return openRateSource(session, choice.file && new RowBook(choice.file.rows, choice.file.name), choice.limits, { db: choice.db });
}

/**
 * The rates of this run, in order of precedence: the rates file, then the mirror's rates
 * table (read whole now, when the mirror at --db, PAYREC_DB or the profile's place exists;
 * `mirror: false` leaves it out), then Chainlink's feeds through the chain's node (checked
 * to serve --chain first: another chain's node is exit 2, as for --verify). With no node
 * set, every feed's leg is missing and says why.
 */
export async function openRateSource(session: Session, file: LegSource | undefined, limits: AgeLimits, o: { db?: string; mirror?: false } = {}): Promise<RateSource> {
  const s = await session.settings();
  const { url } = await rpcInEffect(s, session.store);
  const [{ ChainlinkLegs }, { Rates }] = await Promise.all([import('../chain/feed-legs.js'), import('../values/resolve.js')]);
  const feeds = (await session.store.profile(s.profile))?.feeds?.[s.chain] ?? {};
  // The node's chain id is checked now, before the API is asked for anything (the chain's client loaded only when a node is set).
  const reader = url ? await (await import('../chain/open-verifier.js')).openFeedReader(session, url) : undefined;
  const none = `no JSON-RPC node of ${s.chain} is set to read Chainlink's feeds (--rpc, PAYREC_RPC_URL or payrec config set rpc)`;
  const chainlink = new ChainlinkLegs(s.chain, async () => reader ?? none, feeds);
  const stored = o.mirror === false ? [] : await mirrorRates(session, s.chain, o.db, chainlink);
  return new Rates([...(file ? [file] : []), ...stored, chainlink], limits);
}

/** The mirror's rates of `chain` as leg sources (rate-legs.ts), read whole; none when there is no mirror. */
async function mirrorRates(session: Session, chain: string, db: string | undefined, live: LegSource): Promise<LegSource[]> {
  const [{ mirrorExists, mirrorLocation }, { openMirror }, { mirrorLegs }] = await Promise.all([import('./location.js'), import('./open.js'), import('./rate-legs.js')]);
  const location = await mirrorLocation(session, db);
  if (!mirrorExists(location)) return [];
  const store = await openMirror(session, location, 'read');
  try {
    return await mirrorLegs(store, chain, live);
  } finally {
    store.close();
  }
}
