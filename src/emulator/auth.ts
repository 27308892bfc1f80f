import { HttpError } from './reply.js';

// Demo keys: `prk_demo_<chain>` is the chain's demo user; `prk_demo_<chain>_<suffix>` is
// another user of the same chain (short url ownership). Keys never cross chains, as
// with the real service (API-FACTS.md).

const SUFFIX = /^[a-z0-9]{1,32}$/;

/** The user the key stands for ('' for the plain demo key); throws 401 otherwise. */
export function authenticate(header: string | undefined, chain: string): string {
  const match = /^Bearer +(\S+)$/i.exec(header?.trim() ?? '');
  if (!match) throw new HttpError(401, 'Missing or malformed Authorization header: expected "Bearer <API key>"');
  const key = match[1];
  const base = `prk_demo_${chain}`;
  if (key === base) return '';
  if (key.startsWith(`${base}_`) && SUFFIX.test(key.slice(base.length + 1))) return key.slice(base.length + 1);
  throw new HttpError(401, `Invalid API key for chain ${chain}`);
}
