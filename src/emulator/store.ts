// One collection of one chain, kept sorted by (timestamp, arrival) so a time window is
// two binary searches and a page is a slice: nothing is copied or re-sorted per request.
// Each record is serialised once; a page body is the join of the stored strings.
// Fields that filters and path parameters compare with are extracted once into columns,
// so a filtered scan never parses JSON.

/** A record as a generator or a write route hands it over. */
export interface StoredRecord {
  timestamp: number;
  /** The public record: exactly what the API answers. */
  record: object;
  /** Values that are matched but never shown (a billing's planId, a payment's real email, the owner). */
  internal?: Record<string, string>;
}

/** `field` must equal `value` (any element of it, for fields that walk an array). */
export interface Condition {
  field: string;
  value: string;
}

export interface PageQuery {
  from: number;
  to: number;
  sort: 'asc' | 'desc';
  limit: number;
  offset: number;
  where: Condition[];
}

export interface Page {
  total: number;
  bodies: string[];
}

type KeyValue = string | string[] | undefined;

const HEX = /^0x[0-9a-fA-F]+$/;

/** Addresses and ids compare case-insensitively; everything else exactly. */
export function normalizeKey(value: string): string {
  return HEX.test(value) ? value.toLowerCase() : value;
}

/**
 * Mixed-case addresses repeat a lot (a few dozen wallets): memoising their lower-case
 * form keeps one string per wallet, not one per record. Values that need no change
 * (ids, hashes, tokens) are returned as they are and not memoised.
 */
const lowered = new Map<string, string>();
function normalizeShared(value: string): string {
  const known = lowered.get(value);
  if (known !== undefined) return known;
  const out = normalizeKey(value);
  if (out !== value && lowered.size < 100_000) lowered.set(value, out);
  return out;
}

type Reader = (record: object, internal: Record<string, string> | undefined) => KeyValue;

/**
 * Compiles a field path to a reader, once per column. A dotted path walks objects and
 * `name[]` walks every element of an array; an internal value of the same name wins.
 */
function reader(path: string): Reader {
  const parts = path.split('.');
  if (parts.length === 1 && !path.endsWith('[]')) {
    return (record, internal) => {
      if (internal && path in internal) return normalizeShared(internal[path]);
      const value = (record as Record<string, unknown>)[path];
      return value === undefined || (typeof value === 'object' && value !== null) ? undefined : normalizeShared(String(value));
    };
  }
  const many = path.includes('[]');
  return (record, internal) => {
    if (internal && path in internal) return normalizeShared(internal[path]);
    let values: unknown[] = [record];
    for (const part of parts) {
      const walk = part.endsWith('[]');
      const name = walk ? part.slice(0, -2) : part;
      const next: unknown[] = [];
      for (const v of values) {
        const child = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[name] : undefined;
        if (walk && Array.isArray(child)) next.push(...child);
        else if (!walk && child !== undefined) next.push(child);
      }
      values = next;
    }
    const strings = values.filter((v) => typeof v !== 'object').map((v) => normalizeShared(String(v)));
    return many ? strings : strings[0];
  };
}

interface Column {
  read: Reader;
  values: KeyValue[];
}

export class RecordStore {
  private readonly timestamps: number[] = [];
  private readonly bodies: string[] = [];
  /** The insertion counter when each record arrived (0 for the data generated at start). */
  private readonly arrivals: number[] = [];
  private readonly columns = new Map<string, Column>();

  constructor(keyFields: Iterable<string>) {
    for (const field of keyFields) this.columns.set(field, { read: reader(field), values: [] });
  }

  get size(): number {
    return this.bodies.length;
  }

  /**
   * Inserts after every record with the same or an earlier timestamp, so among equal
   * timestamps arrival order is the tie-break. O(1) for the newest record; a late one
   * lands in the middle and moves every later record one offset on, as in the real API.
   */
  insert(entry: StoredRecord, arrival = 0): number {
    const n = this.size;
    const pos = n === 0 || entry.timestamp >= this.timestamps[n - 1] ? n : this.upperBound(entry.timestamp);
    const body = JSON.stringify(entry.record);
    if (pos === n) {
      this.timestamps.push(entry.timestamp);
      this.bodies.push(body);
      this.arrivals.push(arrival);
      for (const column of this.columns.values()) column.values.push(column.read(entry.record, entry.internal));
    } else {
      this.timestamps.splice(pos, 0, entry.timestamp);
      this.bodies.splice(pos, 0, body);
      this.arrivals.splice(pos, 0, arrival);
      for (const column of this.columns.values()) column.values.splice(pos, 0, column.read(entry.record, entry.internal));
    }
    return pos;
  }

  remove(pos: number): void {
    this.timestamps.splice(pos, 1);
    this.bodies.splice(pos, 1);
    this.arrivals.splice(pos, 1);
    for (const column of this.columns.values()) column.values.splice(pos, 1);
  }

  /**
   * Position of the record that arrived at `arrival` with `timestamp`, or -1. Inserts
   * move positions, but never the (timestamp, arrival) order: a binary search finds the
   * run of equal timestamps, and the arrival picks the record within it.
   */
  positionOf(timestamp: number, arrival: number): number {
    for (let pos = this.lowerBound(timestamp); pos < this.size && this.timestamps[pos] === timestamp; pos++) {
      if (this.arrivals[pos] === arrival) return pos;
    }
    return -1;
  }

  /** Every record's body and arrival, in store order: the ground truth. */
  snapshot(): { bodies: string[]; arrivals: number[] } {
    return { bodies: [...this.bodies], arrivals: [...this.arrivals] };
  }

  /** Replaces a record in place; its timestamp (the sort key) must not change. */
  replace(pos: number, entry: StoredRecord): void {
    this.bodies[pos] = JSON.stringify(entry.record);
    for (const column of this.columns.values()) column.values[pos] = column.read(entry.record, entry.internal);
  }

  body(pos: number): string {
    return this.bodies[pos];
  }

  /** The bodies of the records stamped `timestamp`, in store order. */
  bodiesAt(timestamp: number): string[] {
    return this.bodies.slice(this.lowerBound(timestamp), this.upperBound(timestamp));
  }

  /** Every record's timestamp and body, in store order. */
  *scan(): Iterable<[number, string]> {
    for (let pos = 0; pos < this.size; pos++) yield [this.timestamps[pos], this.bodies[pos]];
  }

  /** Position of the latest record that meets every condition, or -1. */
  findLast(where: Condition[]): number {
    const conditions = this.compile(where);
    if (conditions === undefined) return -1;
    for (let pos = this.size - 1; pos >= 0; pos--) {
      if (matches(conditions, pos)) return pos;
    }
    return -1;
  }

  /** Every position that meets the conditions, oldest first. */
  findAll(where: Condition[]): number[] {
    const conditions = this.compile(where);
    const out: number[] = [];
    if (conditions === undefined) return out;
    for (let pos = 0; pos < this.size; pos++) if (matches(conditions, pos)) out.push(pos);
    return out;
  }

  page(q: PageQuery): Page {
    const lo = this.lowerBound(q.from);
    const hi = Math.max(lo, this.upperBound(q.to));
    const asc = q.sort === 'asc';
    if (q.where.length === 0) {
      const total = hi - lo;
      const count = Math.max(0, Math.min(q.limit, total - q.offset));
      if (count === 0) return { total, bodies: [] };
      if (asc) return { total, bodies: this.bodies.slice(lo + q.offset, lo + q.offset + count) };
      const bodies = new Array<string>(count);
      for (let i = 0, pos = hi - 1 - q.offset; i < count; i++, pos--) bodies[i] = this.bodies[pos];
      return { total, bodies };
    }
    const conditions = this.compile(q.where);
    if (conditions === undefined) return { total: 0, bodies: [] };
    const bodies: string[] = [];
    let total = 0;
    const end = q.offset + q.limit;
    for (let i = 0; i < hi - lo; i++) {
      const pos = asc ? lo + i : hi - 1 - i;
      if (!matches(conditions, pos)) continue;
      if (total >= q.offset && total < end) bodies.push(this.bodies[pos]);
      total++;
    }
    return { total, bodies };
  }

  /** Conditions bound to their columns; undefined when a field is not indexed (nothing matches). */
  private compile(where: Condition[]): [KeyValue[], string][] | undefined {
    const out: [KeyValue[], string][] = [];
    for (const c of where) {
      const column = this.columns.get(c.field);
      if (column === undefined) return undefined;
      out.push([column.values, normalizeKey(c.value)]);
    }
    return out;
  }

  /** First position with timestamp >= t. */
  private lowerBound(t: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.timestamps[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First position with timestamp > t. */
  private upperBound(t: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.timestamps[mid] <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function matches(conditions: [KeyValue[], string][], pos: number): boolean {
  for (const [column, value] of conditions) {
    const actual = column[pos];
    if (actual === value) continue;
    if (Array.isArray(actual) && actual.includes(value)) continue;
    return false;
  }
  return true;
}
