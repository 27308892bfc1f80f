import { HttpError } from './reply.js';
import type { PageQuery } from './store.js';

// The list parameters every list endpoint shares (API-SPEC.md and API-FACTS.md
// "Pagination"): limit 1..1000 (default 100), offset >= 0 (default 0), from/to in Unix
// seconds, both inclusive (defaults 0 and now), sort asc|desc (default desc).

export const MAX_LIMIT = 1000;
const INTEGER = /^-?\d+$/;

export function parseListQuery(query: URLSearchParams, timeWindow: boolean, now: number): Omit<PageQuery, 'where'> {
  const limit = integer(query, 'limit', 100);
  if (limit < 1 || limit > MAX_LIMIT) throw new HttpError(400, `Invalid limit ${limit}: expected an integer from 1 to ${MAX_LIMIT}`);
  const offset = integer(query, 'offset', 0);
  if (offset < 0) throw new HttpError(400, `Invalid offset ${offset}: expected an integer of 0 or more`);
  // Short url lists have no time window: newest first, every record.
  if (!timeWindow) return { limit, offset, from: -Infinity, to: Infinity, sort: 'desc' };
  const from = integer(query, 'from', 0);
  const to = integer(query, 'to', now);
  const sort = query.get('sort') ?? 'desc';
  if (sort !== 'asc' && sort !== 'desc') throw new HttpError(400, `Invalid sort "${sort}": expected asc or desc`);
  return { limit, offset, from, to, sort };
}

function integer(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!INTEGER.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new HttpError(400, `Invalid ${name} "${raw}": expected an integer`);
  }
  return Number(raw);
}
