import { Random } from './prng.js';
import { HttpError, type Reply } from './reply.js';
import { AMOUNT_FIELDS } from '../registry/field-kinds.js';

// Fault injection for client resilience tests: a seeded share of API responses (never
// control routes) become server errors, rate limits, resets, truncated bodies or slow
// answers, or answers whose body is not what the API sends (an HTML page, JSON cut
// short, fields of other types, 50 MB). The same seed and the same request sequence
// give the same faults.

export const FAULT_KINDS = ['500', '502', '503', '429', 'reset', 'truncate', 'slow', 'html', 'partial', 'drift', 'huge'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Without `kinds`: the transient faults a client should ride out by retrying. */
export const DEFAULT_FAULT_KINDS: FaultKind[] = ['500', '502', '503', '429', 'reset', 'truncate', 'slow'];

export interface FaultOptions {
  /** Share of API responses that fail, 0..1. */
  rate: number;
  kinds: FaultKind[];
  seed?: number;
  /** Retry-After of a 429, in seconds (default 1). */
  retryAfter?: number;
  /** Delay of a slow response (default 2000 ms). */
  slowMs?: number;
}

export function parseFaultOptions(body: Record<string, unknown>): FaultOptions {
  const { rate, kinds, seed, retryAfter, slowMs } = body;
  if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)) throw new HttpError(400, 'Invalid rate: expected a number from 0 to 1');
  const list = kinds ?? DEFAULT_FAULT_KINDS;
  if (!Array.isArray(list) || list.length === 0 || !list.every((k) => (FAULT_KINDS as readonly unknown[]).includes(k))) {
    throw new HttpError(400, `Invalid kinds: expected a non-empty array of ${FAULT_KINDS.join(', ')}`);
  }
  const optionalInt = (value: unknown, name: string) => {
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0)) throw new HttpError(400, `Invalid ${name}: expected an integer >= 0`);
    return value as number | undefined;
  };
  return {
    rate,
    kinds: list as FaultKind[],
    seed: optionalInt(seed, 'seed'),
    retryAfter: optionalInt(retryAfter, 'retryAfter'),
    slowMs: optionalInt(slowMs, 'slowMs'),
  };
}

/** The longest latency of every answer (`emulator start --latency`, EmulatorOptions.latencyMs): a minute, more than any API is far. */
export const MAX_LATENCY_MS = 60_000;

const HUGE_BYTES = 50 * 1024 * 1024;

/**
 * The body faults: a complete, well-formed HTTP exchange whose body is wrong. Error
 * replies pass unchanged, so a fault never turns a 404 into a success.
 */
export function corruptReply(kind: FaultKind, reply: Reply): Reply {
  if (reply.status >= 400) return reply;
  switch (kind) {
    case 'html': // a proxy or captive portal answering in the API's place
      return { status: 200, body: '<!DOCTYPE html><html><head><title>Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>', headers: { 'content-type': 'text/html; charset=utf-8' } };
    case 'partial': // JSON cut in half, with a Content-Length that matches the cut body
      return { ...reply, body: reply.body.slice(0, Math.floor(reply.body.length / 2)) };
    case 'drift': // schema drift: every number of every record arrives as a string, every amount 30 digits longer
      return { ...reply, body: JSON.stringify(driftBody(JSON.parse(reply.body))) };
    case 'huge':
      return { ...reply, body: `{"data":[],"limit":0,"offset":0,"total":0,"padding":"${'x'.repeat(HUGE_BYTES)}"}` };
    default:
      return reply;
  }
}


function driftBody(body: unknown): unknown {
  const drift = (r: unknown) =>
    r !== null && typeof r === 'object'
      ? Object.fromEntries(
          Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? String(v) : AMOUNT_FIELDS.has(k) && typeof v === 'string' && /^\d/.test(v) ? `${'9'.repeat(30)}${v}` : v]),
        )
      : r;
  if (body !== null && typeof body === 'object' && Array.isArray((body as { data?: unknown }).data)) {
    return { ...body, data: (body as { data: unknown[] }).data.map(drift) };
  }
  return drift(body);
}

export class FaultInjector {
  private options: Required<FaultOptions> | undefined;
  private random = new Random(0);

  /** Replaces the configuration and restarts the seeded sequence; undefined turns faults off. */
  configure(options: FaultOptions | undefined): void {
    this.options = options && {
      rate: options.rate,
      kinds: options.kinds,
      seed: options.seed ?? 1,
      retryAfter: options.retryAfter ?? 1,
      slowMs: options.slowMs ?? 2000,
    };
    this.random = new Random(this.options?.seed ?? 0);
  }

  get current(): Required<FaultOptions> | undefined {
    return this.options;
  }

  /** The fault of the next API response, if any. */
  next(): FaultKind | undefined {
    const o = this.options;
    if (!o || o.rate === 0) return undefined;
    if (this.random.float() >= o.rate) return undefined;
    return this.random.pick(o.kinds);
  }
}
