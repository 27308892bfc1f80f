import { createHash } from 'node:crypto';

// Checks a received webhook notification (API-FACTS.md "Webhook notifications").
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
