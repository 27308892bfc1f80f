import { MalformedResponseError } from '../core/runtime/errors.js';
import { printable } from '../core/output/sanitize.js';
import { TIME_RANGE } from '../core/runtime/time.js';

// What every engine checks of a page's records before writing any of them, and how it
// names a record in messages: each has its identity fields, and a timestamp the mirror
// can hold (the walk orders records by it and its cursor is the last one's). Text no
// database can store as sent (a lone UTF-16 surrogate: valid JSON, not valid Unicode;
// for PostgreSQL also U+0000, which its text and JSONB refuse) is stored repaired, with
// U+FFFD in its place, and the records are named.

export class RecordChecks {
  /** Records whose text held a lone UTF-16 surrogate (or a U+0000, where the engine refuses it), stored with U+FFFD in its place: how they are named. */
  readonly repaired: string[] = [];
  /** Paths (without list indexes) that held an unknown field or a value of another type, with counts. */
  readonly drift = new Map<string, number>();
  private readonly unstorable: RegExp;
  private readonly unstorableAll: RegExp;

  constructor(
    /** The collection (`one-time/transfers`), as messages name it. */
    private readonly collection: string,
    private readonly identity: readonly string[],
    o: { nul?: boolean } = {},
  ) {
    this.unstorable = o.nul ? new RegExp(`${LONE_SURROGATE.source}|\\u0000`) : LONE_SURROGATE;
    this.unstorableAll = new RegExp(this.unstorable.source, 'g');
  }

  /** Counts the paths of what a record's conforming put into extra_fields (conform.ts); returns `left`. */
  countDrift<T extends { extra?: Record<string, unknown> }>(left: T | undefined): T | undefined {
    if (left?.extra) {
      for (const path of Object.keys(left.extra)) {
        const key = path.replace(/\[\d+\]/g, '[]');
        this.drift.set(key, (this.drift.get(key) ?? 0) + 1);
      }
    }
    return left;
  }

  /** A record as messages name it: its identity fields, each cut at 80 characters. */
  nameOf(record: Record<string, unknown> | undefined): string {
    return this.identity.map((f) => `${f} ${printable(String(record?.[f]).slice(0, 80))}`).join(', ');
  }

  /**
   * The records, checked (see checkIdentities), with text no engine stores repaired;
   * `clean`: the caller knows they hold none (a body without such an escape).
   */
  prepare(records: Record<string, unknown>[], clean: boolean): Record<string, unknown>[] {
    const out = clean ? records : records.map((r) => this.wellFormed(r));
    this.checkIdentities(out);
    return out;
  }

  /**
   * The record with every lone UTF-16 surrogate (in keys and text) replaced by U+FFFD,
   * as a UTF-8 encoder writes it: JSON.parse accepts "\ud800", DuckDB's JSON reader
   * refuses it, and one such record would stop every sync. Noted in `repaired`.
   */
  private wellFormed(record: Record<string, unknown>): Record<string, unknown> {
    const fixed = this.wellFormedValue(record) as Record<string, unknown>;
    if (fixed !== record) this.repaired.push(this.nameOf(fixed));
    return fixed;
  }

  /** `value` with what cannot be stored replaced (keys too); the same object when it holds none. */
  private wellFormedValue(value: unknown): unknown {
    if (typeof value === 'string') return this.unstorable.test(value) ? value.replace(this.unstorableAll, '\ufffd') : value;
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      const items = value.map((v) => this.wellFormedValue(v));
      return items.some((v, i) => v !== value[i]) ? items : value;
    }
    let changed = false;
    const entries = Object.entries(value).map(([k, v]) => {
      const [key, fixed] = [this.wellFormedValue(k) as string, this.wellFormedValue(v)];
      changed ||= key !== k || fixed !== v;
      return [key, fixed] as const;
    });
    if (!changed) return value;
    // defineProperty, not assignment: a key "__proto__" stays a field.
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return out;
  }

  /**
   * Identities each record must have, and a timestamp the mirror can hold: the walk
   * orders records by it and its cursor is the last one's, so a record stamped beyond
   * the years 1 to 9999 (or not a finite number) stops the sync with exit 6, naming
   * it, with nothing of its batch written.
   */
  private checkIdentities(records: Record<string, unknown>[]): void {
    for (const r of records) {
      const t = r.timestamp;
      if (typeof t === 'number' && !Number.isInteger(t)) {
        throw new MalformedResponseError(
          `a ${this.collection} record (${this.nameOf(r)}) is stamped ${t}, not a whole number of seconds; nothing of its batch was written`,
          'the service sent a time the API never has; the records before its batch are committed',
        );
      }
      if (typeof t === 'number' && !(t >= TIME_RANGE[0] && t <= TIME_RANGE[1])) {
        throw new MalformedResponseError(
          `a ${this.collection} record (${this.nameOf(r)}) is stamped ${t}, beyond the years 1 to 9999 the mirror holds; nothing of its batch was written`,
          'the service sent a time no payment has; the records before its batch are committed',
        );
      }
    }
    for (const r of records) {
      for (const f of this.identity) {
        if (typeof r[f] !== 'string' || r[f] === '') {
          throw new MalformedResponseError(
            `a ${this.collection} record has no usable "${f}", the field that identifies it; the mirror cannot tell such records apart`,
            'the service may have changed; nothing of this batch was written',
          );
        }
      }
    }
  }
}

/** A high surrogate without its low one, or a low one without its high one (String.prototype.toWellFormed, ES2024). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
