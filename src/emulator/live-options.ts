import { KNOWN_CHAINS } from '../registry/validators.js';

// The settings of live traffic (DESIGN.md "Live traffic"), their defaults and limits,
// checked once for every way in: the in-process API, POST /_emulator/live and the CLI.

export interface LiveOptions {
  /** Records per second across the chosen collections, > 0. */
  rate: number;
  /** Share of records stamped up to lateMaxSeconds in the past, 0..1 (default 0.2). */
  lateFraction?: number;
  /** How late a late record can be, whole seconds >= 1 (default 600). */
  lateMaxSeconds?: number;
  /** Share of records that arrive `pending` and resolve 1–5 s later, 0..1 (default 0.3). */
  pendingFraction?: number;
  /**
   * Share of the events that, instead of adding a record, remove one that live traffic
   * added within the last lateMaxSeconds (a transaction dropped from the chain), 0..1
   * (default 0).
   */
  removeFraction?: number;
  /** Share of the events that correct the timestamp of such a record, by up to lateMaxSeconds either way (never after now), 0..1 (default 0). */
  moveFraction?: number;
  /** Default: every known chain. */
  chains?: string[];
  /** Registry collection names (e.g. 'on-demand/transfers'); default: every collection that has a generator. */
  collections?: string[];
}

export interface LiveStatus {
  running: boolean;
  rate: number;
  lateFraction: number;
  lateMaxSeconds: number;
  pendingFraction: number;
  removeFraction: number;
  moveFraction: number;
  chains: string[];
  collections: string[];
  /** Live records inserted since the emulator started, every run together (fewer than the rate asks when the machine cannot keep up). */
  inserted: number;
  /** Live records still pending now. */
  pending: number;
  /** Live records removed, and moved, since the emulator started. */
  removed: number;
  moved: number;
  /** The insertion counter (live records and every other record added after start). */
  seq: number;
}

export const LIVE_DEFAULTS = { lateFraction: 0.2, lateMaxSeconds: 600, pendingFraction: 0.3, removeFraction: 0, moveFraction: 0 } as const;
/** Far beyond what a test needs; above it the emulator would spend all its time generating. */
export const MAX_LIVE_RATE = 100_000;
/** A year: late records stay within the span of the generated data, and after 1970. */
export const MAX_LATE_SECONDS = 365 * 86_400;

const FIELDS = ['rate', 'lateFraction', 'lateMaxSeconds', 'pendingFraction', 'removeFraction', 'moveFraction', 'chains', 'collections'];

/** A bad value, named by its field; the control route answers it with 400. */
export class InvalidLiveOptions extends RangeError {}

/** Checks every field (unknown ones too: a typo must not fall back to a default silently) and fills defaults. */
export function checkLiveOptions(o: unknown, knownCollections: readonly string[]): Required<LiveOptions> {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new InvalidLiveOptions('Invalid live options: expected an object such as {"rate":150}');
  const body = o as Record<string, unknown>;
  const unknown = Object.keys(body).filter((k) => !FIELDS.includes(k));
  if (unknown.length > 0) throw new InvalidLiveOptions(`Unknown field ${unknown.join(', ')}: expected some of ${FIELDS.join(', ')}`);
  const {
    rate,
    lateFraction = LIVE_DEFAULTS.lateFraction,
    lateMaxSeconds = LIVE_DEFAULTS.lateMaxSeconds,
    pendingFraction = LIVE_DEFAULTS.pendingFraction,
    removeFraction = LIVE_DEFAULTS.removeFraction,
    moveFraction = LIVE_DEFAULTS.moveFraction,
  } = body;
  if (typeof rate !== 'number' || !(rate > 0 && rate <= MAX_LIVE_RATE)) {
    throw new InvalidLiveOptions(`Invalid rate: expected records per second, a number greater than 0 and at most ${MAX_LIVE_RATE}`);
  }
  const fraction = (value: unknown, name: string) => {
    if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw new InvalidLiveOptions(`Invalid ${name}: expected a number from 0 to 1`);
    return value;
  };
  if (!Number.isInteger(lateMaxSeconds) || (lateMaxSeconds as number) < 1 || (lateMaxSeconds as number) > MAX_LATE_SECONDS) {
    throw new InvalidLiveOptions(`Invalid lateMaxSeconds: expected whole seconds from 1 to ${MAX_LATE_SECONDS}`);
  }
  return {
    rate,
    lateFraction: fraction(lateFraction, 'lateFraction'),
    lateMaxSeconds: lateMaxSeconds as number,
    pendingFraction: fraction(pendingFraction, 'pendingFraction'),
    removeFraction: fraction(removeFraction, 'removeFraction'),
    moveFraction: fraction(moveFraction, 'moveFraction'),
    chains: names(body.chains, 'chains', 'chain', KNOWN_CHAINS),
    collections: names(body.collections, 'collections', 'collection', knownCollections),
  };
}

/** A non-empty list of known names, each once (a repeat would weigh the draw); all of them when absent. */
function names(value: unknown, field: string, what: string, known: readonly string[]): string[] {
  if (value === undefined) return [...known];
  const expected = `expected a non-empty array of ${known.join(', ')}`;
  if (!Array.isArray(value) || value.length === 0) throw new InvalidLiveOptions(`Invalid ${field}: ${expected}`);
  const bad = value.find((v) => typeof v !== 'string' || !known.includes(v));
  if (bad !== undefined) throw new InvalidLiveOptions(`Invalid ${field}: unknown ${what} ${String(JSON.stringify(bad)).slice(0, 80)}; ${expected}`);
  return [...new Set(value as string[])];
}
