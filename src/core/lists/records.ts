import type { Endpoint } from '../../registry/types.js';
import { MalformedResponseError } from '../runtime/errors.js';
import { envelope, type Envelope } from '../../registry/schemas.js';
import type { Session } from '../runtime/session.js';

/** What record checks need of a list: its schema, and how messages name it. */
type Checked = Pick<Endpoint, 'method' | 'path' | 'record'>;

// Checks what the API answered against the registry's schemas. Schema drift (a field
// missing or of another type) is a warning by default: the data is still printed,
// since a changed service should not stop an export. --strict makes it an error.

export function checkEnvelope(endpoint: Endpoint, body: unknown): Envelope {
  const r = envelope.safeParse(body);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new MalformedResponseError(
      `${endpoint.method} ${endpoint.path}: the response is not a list envelope (field "${issue.path.join('.') || '(body)'}": ${issue.message})`,
    );
  }
  return r.data;
}

/**
 * Schema checks of a long list, sampled: every record of the first page, then one in
 * SAMPLE_EVERY. Drift is a change of the service, so it shows in every record and a
 * sample finds it; checking all of them was a quarter of an export's CPU time.
 * --strict checks every record. Every record is always checked to be an object.
 */
const FIRST_CHECKED = 1000;
const SAMPLE_EVERY = 50;

export function recordChecker(endpoint: Checked, session: Session): (record: unknown) => Record<string, unknown> {
  let n = 0;
  return (record) => {
    const i = n++;
    const full = session.flags.strict || i < FIRST_CHECKED || i % SAMPLE_EVERY === 0;
    return full ? checkRecord(endpoint, record, session) : asObject(endpoint, record);
  };
}

function asObject(endpoint: Checked, record: unknown): Record<string, unknown> {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new MalformedResponseError(`${endpoint.method} ${endpoint.path}: a record is not a JSON object`);
  }
  return record as Record<string, unknown>;
}

export function checkRecord(endpoint: Checked, record: unknown, session: Session): Record<string, unknown> {
  asObject(endpoint, record);
  const r = endpoint.record.safeParse(record);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = `${endpoint.method} ${endpoint.path}: field "${issue.path.join('.')}": ${issue.message}`;
    if (session.flags.strict) throw new MalformedResponseError(where, 'the service may have changed; run without --strict to print the data anyway');
    session.warn(`${where} (printed as received; --strict makes this an error)`);
  }
  return record as Record<string, unknown>;
}
