import type { Settings } from '../config/settings.js';
import type { Session } from '../runtime/session.js';
import { ApiError } from '../runtime/errors.js';

// One cheap authenticated request (the caller's first short url, if any) that says
// whether a key works for a chain: `auth login` before it stores a key, `auth status`
// and `payrec doctor`, which also read the answer's latency and Date header.

export interface KeyCheck {
  ok: boolean;
  /** Why not: "the key was rejected" (401/403). */
  reason?: string;
  /** The last answer: milliseconds it took, the server's Date header, and when it was sent (local clock, ms). */
  answer?: { ms: number; date?: string; sentAt: number };
}

/** Throws what is not about the key (network, 5xx, an answer payrec cannot use): the caller decides what it means. */
export async function checkKey(session: Session, s: Pick<Settings, 'baseUrl' | 'chain'>, apiKey: string): Promise<KeyCheck> {
  const result: KeyCheck = { ok: false };
  // The run's --timeout and --retries, as every other request.
  const client = await session.newClient(s, apiKey, undefined, ({ ms, date, sentAt }) => (result.answer = { ms, date, sentAt }));
  try {
    await client.json({ method: 'GET', path: '/fixed-recurring/short-urls', query: { limit: 1 } });
    result.ok = true;
  } catch (err) {
    if (!(err instanceof ApiError && (err.status === 401 || err.status === 403))) throw err;
    result.reason = 'the key was rejected';
  } finally {
    await client.close();
  }
  return result;
}
