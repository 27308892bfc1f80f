import type { Endpoint } from '../../registry/types.js';
import { hasStatus, hasSuccess } from '../../registry/outcome.js';
import { UsageError } from '../runtime/errors.js';
import { printable } from '../output/sanitize.js';

// Statuses (DESIGN.md "Answers finance and ops can sign"). Which lists have one is
// read from the registry's record schemas (registry/outcome.ts): those whose records
// carry a top-level `transactionStatus`. A billing carries two signals (`success`,
// `transactionStatus`); it failed when `success` is not 1 or its status is `failed`:
// the one meaning that --status, --failed and --summary all use (statusOf).

/** The values --status accepts: those the API's records take (API-SPEC.md "States and transitions"). */
export const STATUSES = ['confirmed', 'pending', 'failed'] as const;

/** The status of a record without one (schema drift): never matches a --status filter. */
export const NO_STATUS = '(none)';

/**
 * A record's status as payrec counts and filters it. For records with a `success`
 * signal (billings), a success other than 1 is `failed` whatever `transactionStatus` says.
 */
export function statusReader(endpoint: Pick<Endpoint, 'record'>): (record: Record<string, unknown>) => string {
  const withSuccess = hasSuccess(endpoint);
  return (r) => {
    // A number sent as a string (schema drift, reported by the schema check) still reads as the number.
    if (withSuccess && r.success !== undefined && r.success !== null && Number(r.success) !== 1) return 'failed';
    if (typeof r.transactionStatus === 'string') return r.transactionStatus;
    return Array.isArray(r.receivers) ? worstOf(r.receivers) : NO_STATUS;
  };
}

/**
 * How a record's status reads to a person where payrec's meaning differs from the
 * API's `transactionStatus`: a billing whose success is 0 but whose status says
 * confirmed reads "failed (success 0)", as --failed and --summary count it. Undefined
 * for lists without a second signal, and for records whose status says the same.
 */
export function statusLabeller(endpoint: Pick<Endpoint, 'record'>): ((record: Record<string, unknown>) => string | undefined) | undefined {
  if (!hasSuccess(endpoint) || !hasStatus(endpoint)) return undefined;
  const statusOf = statusReader(endpoint);
  return (r) => {
    const status = statusOf(r);
    return typeof r.transactionStatus !== 'string' || status === r.transactionStatus ? undefined : `${status} (success ${String(r.success)})`;
  };
}

/**
 * A wallet-to-wallet payment has a status per receiver only: the payment counts as
 * failed when one of them failed, pending while one is pending, confirmed when all
 * are; so a confirmed total holds only payments settled in full.
 */
function worstOf(receivers: unknown[]): string {
  const statuses = receivers.map((x) => (x !== null && typeof x === 'object' ? (x as Record<string, unknown>).transactionStatus : undefined));
  if (statuses.length === 0 || statuses.some((s) => typeof s !== 'string')) return NO_STATUS;
  for (const s of ['failed', 'pending']) if (statuses.includes(s)) return s;
  return statuses.every((s) => s === 'confirmed') ? 'confirmed' : (statuses.find((s) => s !== 'confirmed') as string);
}

/** --status LIST and --failed → the statuses to keep; undefined when neither was given. */
export function parseStatusFlags(status: string | undefined, failed: boolean | undefined): Set<string> | undefined {
  if (status !== undefined && failed) throw new UsageError('give either --status or --failed, not both (--failed is --status failed)');
  if (failed) return new Set(['failed']);
  if (status === undefined) return undefined;
  const wanted = status.split(',').map((s) => s.trim());
  const unknown = wanted.filter((s) => !(STATUSES as readonly string[]).includes(s));
  if (unknown.length > 0 || wanted.length === 0) {
    throw new UsageError(`invalid --status "${printable(status)}": expected one or more of ${STATUSES.join(', ')}, separated by commas (e.g. pending,failed)`);
  }
  return new Set(wanted);
}
