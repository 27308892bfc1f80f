import type { Endpoint } from '../../registry/types.js';
import { MalformedResponseError } from '../runtime/errors.js';
import { envelope, type Envelope } from '../../registry/schemas.js';
import type { Session } from '../runtime/session.js';
import { inTimeRange, TIME_RANGE } from '../runtime/time.js';
import { TIMESTAMP_FIELDS } from '../output/rows.js';

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
    if (full) return checkRecord(endpoint, record, session);
    const r = asObject(endpoint, record);
    checkTimes(endpoint, r);
    return r;
  };
}

/**
 * Every record's times, not a sample's: one stamped beyond the years 1 to 9999 (8.64e12,
 * 1e300) is no date, and a chart or a period would walk the days up to it for minutes.
 * It is a response payrec cannot use (exit 6), as sync already says; a time of another
 * type is the schema's concern.
 */
function checkTimes(endpoint: Checked, record: Record<string, unknown>): void {
  for (const key in record) {
    const v = record[key];
    if (TIMESTAMP_FIELDS.has(key)) outOfRange(endpoint, key, v);
    else if (Array.isArray(v)) {
      // Nested times: a wallet-to-wallet payment's receivers[].timestamp.
      for (let i = 0; i < v.length; i++) {
        const item = v[i];
        if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
          for (const k in item) if (TIMESTAMP_FIELDS.has(k)) outOfRange(endpoint, `${key}[${i}].${k}`, (item as Record<string, unknown>)[k]);
        }
      }
    }
  }
}

function outOfRange(endpoint: Checked, field: string, v: unknown): void {
  if (typeof v === 'number' && !inTimeRange(v)) {
    throw new MalformedResponseError(
      `${endpoint.method} ${endpoint.path}: a record's ${field} is ${v}, beyond the years 1 to 9999 (Unix seconds ${TIME_RANGE[0]} to ${TIME_RANGE[1]}): no date payrec can show or count`,
    );
  }
}

function asObject(endpoint: Checked, record: unknown): Record<string, unknown> {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new MalformedResponseError(`${endpoint.method} ${endpoint.path}: a record is not a JSON object`);
  }
  return record as Record<string, unknown>;
}

export function checkRecord(endpoint: Checked, record: unknown, session: Session): Record<string, unknown> {
  checkTimes(endpoint, asObject(endpoint, record));
  const r = endpoint.record.safeParse(record);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = `${endpoint.method} ${endpoint.path}: field "${issue.path.join('.')}": ${issue.message}`;
    if (session.flags.strict) throw new MalformedResponseError(where, 'the service may have changed; run without --strict to print the data anyway');
    session.warn(`${where} (printed as received; --strict makes this an error)`);
  }
  return record as Record<string, unknown>;
}
