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

/** Every leaf where the two differ, as dotted paths (array indexes included). */
export function differences(received: unknown, stored: unknown, path = ''): Difference[] {
  if (isObject(received) && isObject(stored)) {
    const keys = [...new Set([...Object.keys(stored), ...Object.keys(received)])].sort();
    return keys.flatMap((k) => differences(received[k], stored[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(received) && Array.isArray(stored)) {
    const n = Math.max(received.length, stored.length);
    return Array.from({ length: n }, (_, i) => differences(received[i], stored[i], `${path}.${i}`)).flat();
  }
  return Object.is(received, stored) ? [] : [{ field: path || '(whole notification)', received, stored }];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
