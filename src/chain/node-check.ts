import { PayrecError } from '../core/runtime/errors.js';
import { rpcInEffect } from '../core/config/settings.js';
import type { Session } from '../core/runtime/session.js';
import { openVerifier } from './open-verifier.js';
import { grouped } from '../core/output/grouped.js';

// doctor's look at the chain's node, when one is set: reachable, serving --chain, and a
// head that moves (a node whose latest block is old is stuck or still syncing, and
// would call recent records unconfirmed or missing).

/** A head older than this is said as a warning. */
const STALE_HEAD_S = 300;

export async function nodeCheck(session: Session): Promise<{ status: 'ok' | 'warn'; detail: string } | PayrecError | undefined> {
  const s = await session.settings({ repair: true });
  if (!(await rpcInEffect(s, session.store)).url) return undefined;
  try {
    const verifier = await openVerifier(session);
    const head = await verifier.client.block('latest');
    if (!head) return { status: 'warn', detail: `${verifier.client.shownUrl} serves ${verifier.chain} but has no latest block` };
    const age = Math.round(session.ctx.now() / 1000) - Number(head.timestamp);
    // A head stamped after this run's clock (one stopped by PAYREC_EMULATOR_NOW while the emulator's chain runs on) is said so, not "-2 s old".
    const when = age >= 0 ? `${age} s old` : `stamped ${-age} s after this run's clock`;
    const detail = `${verifier.client.shownUrl} serves ${verifier.chain}; head ${grouped(head.number)}, ${when}`;
    return { status: age > STALE_HEAD_S ? 'warn' : 'ok', detail: age > STALE_HEAD_S ? `${detail} (stuck or still syncing?)` : detail };
  } catch (err) {
    if (err instanceof PayrecError && err.exitCode !== 130) return err;
    throw err;
  }
}
