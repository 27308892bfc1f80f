import { createHash } from 'node:crypto';
import { MAX_DEPTH, nestedDeeperThan } from '../core/http/json-text.js';
import type { ApiClient } from '../core/http/client.js';
import { ApiError, UsageError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { notificationId } from '../registry/validators.js';

// Checks a received webhook notification (API-FACTS.md "Webhook notifications"), for
// `webhook-notifications verify` and for `listen`.
// Authenticity: the stored notification, fetched by id, equals the received one.
// Integrity: the id is documented as the sha256 of the notification without its id,
// but the exact serialisation is not, so a mismatch only means "cannot confirm".

export interface Difference {
  field: string;
  received: unknown;
  stored: unknown;
}

export type Integrity = 'matches' | 'cannot confirm';

export function integrityOf(notification: Record<string, unknown>): Integrity {
  const { id, ...rest } = notification;
  if (typeof id !== 'string') return 'cannot confirm';
  const digest = createHash('sha256').update(JSON.stringify(rest)).digest('hex');
  return digest === id.toLowerCase() ? 'matches' : 'cannot confirm';
}

/**
 * Every leaf where the two differ, as dotted paths (array indexes included). Own
 * properties only: `stored["__proto__"]` read plainly is Object.prototype, and a
 * received `"__proto__": {}` would "match" it while changing the content.
 */
export function differences(received: unknown, stored: unknown, path = ''): Difference[] {
  if (isObject(received) && isObject(stored)) {
    const keys = [...new Set([...Object.keys(stored), ...Object.keys(received)])].sort();
    return keys.flatMap((k) => differences(own(received, k), own(stored, k), path ? `${path}.${k}` : k));
  }
  if (Array.isArray(received) && Array.isArray(stored)) {
    const n = Math.max(received.length, stored.length);
    return Array.from({ length: n }, (_, i) => differences(received[i], stored[i], `${path}.${i}`)).flat();
  }
  return Object.is(received, stored) ? [] : [{ field: path || '(whole notification)', received, stored }];
}

const own = (o: Record<string, unknown>, k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);

/** Keys no notification has, that name JavaScript's object machinery: where one is, in dotted form. */
export function prototypeKey(value: unknown, path = ''): string | undefined {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = prototypeKey(value[i], `${path}.${i}`);
      if (found) return found;
    }
  } else if (isObject(value)) {
    for (const k of Object.keys(value)) {
      const at = path ? `${path}.${k}` : k;
      if (PROTOTYPE_KEYS.has(k)) return at;
      const found = prototypeKey(value[k], at);
      if (found) return found;
    }
  }
  return undefined;
}

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export interface Verdict {
  id: string;
  /** true: the service stored exactly this; false: it differs; null: unknown id (null, not absent, in JSON). */
  authentic: boolean | null;
  integrity: Integrity;
  differences: Difference[];
}

/** Parses a received notification; anything unusable is the user's input error (exit 2). */
export function parseNotification(text: string, source: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${source} is not JSON`, 'give the notification body exactly as it was received');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`${source} is not a JSON object`);
  if (nestedDeeperThan(value, MAX_DEPTH)) throw new UsageError(`${source} is nested more than ${MAX_DEPTH} levels deep, unlike any notification`);
  const id = (value as { id?: unknown }).id;
  if (typeof id !== 'string' || !notificationId.safeParse(id).success) {
    throw new UsageError(`${source} has no valid "id" (expected 64 hex characters)`);
  }
  return value as Record<string, unknown>;
}

export async function verifyNotification(session: Session, received: Record<string, unknown>): Promise<Verdict> {
  const client = await session.client();
  return verdictOf(received, await fetchStored(client, received.id as string));
}

/** The notification the service stored under an id, or null when it has none. */
export async function fetchStored(client: ApiClient, id: string): Promise<Record<string, unknown> | null> {
  try {
    return (await client.json({ method: 'GET', path: `/webhook-notifications/${id}` })) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** Compares a received notification with the stored one (null: the service has none). */
export function verdictOf(received: Record<string, unknown>, stored: Record<string, unknown> | null): Verdict {
  const id = received.id as string;
  const integrity = integrityOf(received);
  if (stored === null) return { id, authentic: null, integrity, differences: [] };
  const diffs = differences(received, stored);
  return { id, authentic: diffs.length === 0, integrity, differences: diffs };
}
