// Retry policy: which failures are worth another try, and how long to wait.

/** Statuses that say "try again later" rather than "your request is wrong". */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}

const BASE_MS = 250;
const CAP_MS = 8_000;
/** All waiting of one request together stays under this. */
export const RETRY_BUDGET_MS = 30_000;

/** Exponential back-off with full jitter: uniform in [0, min(cap, base·2^attempt)]. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(CAP_MS, BASE_MS * 2 ** attempt));
}

/** Retry-After is seconds or an HTTP date; returns milliseconds, capped by the budget. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  // Only an HTTP date (it names a weekday or month): Date.parse would read "1.5" or "-5" as a year.
  else if (!/[a-z]{3}/i.test(trimmed)) return undefined;
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - nowMs);
  }
  return Math.min(ms, RETRY_BUDGET_MS);
}
