import Big from 'big.js';
import { z } from 'zod';
import type { Endpoint } from '../../registry/types.js';
import { decimal, recordShape } from '../../registry/schemas.js';
import { MalformedResponseError } from '../runtime/errors.js';
import { identityOf } from './paginate.js';
import { hasSuccess } from '../../registry/outcome.js';
import { statusReader } from './status.js';
import { grouped } from '../output/grouped.js';

// --summary: what a finance user asks of a list first. Totals are per token AND status
// (DESIGN.md "Insight and scripting flags"): a settled total never includes pending or
// failed records. They use exact decimal arithmetic (big.js) on the amount strings;
// nothing passes through a float, and an amount that is not a plain decimal string
// fails the summary (exit 6) naming its records rather than being left out.

/** One total: the records of one token and status, and the exact sum of each amount field. */
export type TotalRow = { token: string; status: string; count: number } & Record<string, string | number>;

export interface Summary {
  count: number;
  /** Records per status (billings: failed = success ≠ 1 or status failed). */
  statuses: Record<string, number>;
  /** Cancellations: forced by a plan admin or operational account. */
  forced?: number;
  firstTimestamp?: number;
  lastTimestamp?: number;
  /** One row per token and status, sorted; every row has every amount field of the endpoint. */
  totals: TotalRow[];
}

/** The token of the totals across tokens (values in one currency). */
export const ACROSS = '*';

/** Records whose amounts cannot be totalled exactly are named, up to this many. */
const NAMED = 10;

export class Summariser {
  /** The endpoint's amount fields, from its record schema: the totals' fixed columns. */
  readonly fields: string[];
  /** Billings: `failed` includes a success other than 1 (status.ts), which labels should say. */
  readonly successSignal: boolean;
  private count = 0;
  private readonly totals = new Map<string, { token: string; status: string; count: number; sums: Map<string, Big> }>();
  private readonly statuses = new Map<string, number>();
  private forced = 0;
  private sawForced = false;
  private first?: number;
  private last?: number;
  private readonly statusOf: (r: Record<string, unknown>) => string;
  private readonly identity: (r: Record<string, unknown>) => string;
  private inexact: string[] = [];
  private inexactCount = 0;

  constructor(
    endpoint: Pick<Endpoint, 'record' | 'identity'>,
    /** Fields in one unit whatever the token (an enricher's values): totalled per token and status, and per status across tokens (token `*`). */
    readonly across: readonly string[] = [],
  ) {
    this.fields = amountFields(endpoint.record);
    this.successSignal = hasSuccess(endpoint);
    this.statusOf = statusReader(endpoint);
    this.identity = identityOf(endpoint);
  }

  add(r: Record<string, unknown>): void {
    this.count++;
    const status = this.statusOf(r);
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    const token = recordToken(r);
    this.group(token, status).count++;
    let bad: string[] | undefined;
    for (const a of amountsOf(r, this.fields)) {
      if (!a.exact) {
        (bad ??= []).push(describeAmount(a));
        continue;
      }
      const sums = this.group(a.token, status).sums;
      sums.set(a.field, (sums.get(a.field) ?? new Big(0)).plus(a.value as string));
    }
    for (const f of this.across) {
      const v = r[f];
      // An empty value is one the enricher could not give (and says so): left out of the totals.
      if (typeof v !== 'string' || v === '') continue;
      for (const g of [this.group(token, status), this.group(ACROSS, status)]) g.sums.set(f, (g.sums.get(f) ?? new Big(0)).plus(v));
    }
    if (this.across.length > 0) this.group(ACROSS, status).count++;
    if (bad) {
      this.inexactCount++;
      if (this.inexact.length < NAMED) this.inexact.push(`${shown(this.identity(r))} (${bad.join(', ')})`);
    }
    if (typeof r.forced === 'boolean') {
      this.sawForced = true;
      if (r.forced) this.forced++;
    }
    if (typeof r.timestamp === 'number') {
      if (this.first === undefined || r.timestamp < this.first) this.first = r.timestamp;
      if (this.last === undefined || r.timestamp > this.last) this.last = r.timestamp;
    }
  }

  private group(token: string, status: string) {
    const key = JSON.stringify([token, status]);
    let g = this.totals.get(key);
    if (!g) this.totals.set(key, (g = { token, status, count: 0, sums: new Map() }));
    return g;
  }

  /** The summary; throws (exit 6) when an amount could not be counted exactly. */
  result(): Summary {
    if (this.inexactCount > 0) {
      const more = this.inexactCount > this.inexact.length ? `, and ${grouped(this.inexactCount - this.inexact.length)} more` : '';
      throw new MalformedResponseError(
        `cannot total exactly: ${grouped(this.inexactCount)} record${this.inexactCount === 1 ? '' : 's'} carry an amount that is not a decimal string: ${this.inexact.join('; ')}${more}`,
        'the service sent amounts payrec cannot add up exactly (a number, an exponent, null or nothing instead of a decimal string); no total was printed',
      );
    }
    const order = (s: string) => {
      const i = STATUS_ORDER.indexOf(s);
      return i === -1 ? STATUS_ORDER.length : i;
    };
    // The totals across tokens last.
    const tokenOrder = (a: string, b: string) => Number(a === ACROSS) - Number(b === ACROSS) || a.localeCompare(b);
    const groups = [...this.totals.values()].sort((a, b) => (a.token === b.token ? order(a.status) - order(b.status) || a.status.localeCompare(b.status) : tokenOrder(a.token, b.token)));
    const totals = groups.map((g) => {
      const row: TotalRow = { token: g.token, status: g.status, count: g.count };
      for (const f of this.fields) row[f] = g.token === ACROSS ? '' : (g.sums.get(f) ?? new Big(0)).toFixed();
      for (const f of this.across) row[f] = (g.sums.get(f) ?? new Big(0)).toFixed();
      return row;
    });
    return {
      count: this.count,
      statuses: Object.fromEntries([...this.statuses].sort(([a], [b]) => order(a) - order(b) || a.localeCompare(b))),
      ...(this.sawForced ? { forced: this.forced } : {}),
      ...(this.first !== undefined ? { firstTimestamp: this.first, lastTimestamp: this.last } : {}),
      totals,
    };
  }
}

/** Settled first, then what may still move, then what did not happen. */
const STATUS_ORDER = ['confirmed', 'pending', 'failed'];

/**
 * The amount fields of a record schema, in schema order: top-level decimal fields
 * (`amount`, `fee`, `serviceFee`) and those of arrays of objects (`receivers.amount`,
 * `swaps.outputAmount`). The summary's columns, fixed per endpoint.
 */
export function amountFields(schema: z.ZodType): string[] {
  const out: string[] = [];
  for (const [key, child] of Object.entries(recordShape(schema))) {
    if (child === decimal) out.push(key);
    else if (child instanceof z.ZodArray && child.element instanceof z.ZodObject) {
      for (const [sub, leaf] of Object.entries(child.element.shape as Record<string, z.ZodType>)) if (leaf === decimal) out.push(`${key}.${sub}`);
    }
  }
  return out;
}

export interface Amount {
  token: string;
  /** Where in the record: `amount`, `fee`, `serviceFee`, `receivers.amount`, `swaps.outputAmount`… */
  field: string;
  /** A decimal string when `exact`; otherwise whatever was sent (a number, "1e5", null…). */
  value: unknown;
  /** A plain decimal string, which exact arithmetic can add. */
  exact: boolean;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** The token a record is counted under: its `token`, or an execution's input token. */
function recordToken(r: Record<string, unknown>): string {
  return str(r.token) ?? str(r.inputToken) ?? '(no token)';
}

/**
 * Every amount a record carries, with its token: what --summary totals and what
 * --chart --token sums. A swap's output is counted in its own output token. Present
 * fields that are not decimal strings are yielded as not exact, and so are the
 * `required` ones (the endpoint's amount fields, amountFields) that are missing, with
 * the value undefined: no caller can leave an amount out without knowing.
 */
export function* amountsOf(r: Record<string, unknown>, required: readonly string[] = []): Generator<Amount> {
  const token = recordToken(r);
  const at = (token: string, field: string, value: unknown): Amount[] =>
    value === undefined ? (required.includes(field) ? [{ token, field, value, exact: false }] : []) : [{ token, field, value, exact: typeof value === 'string' && DECIMAL.test(value) }];
  for (const field of ['amount', 'fee', 'serviceFee']) yield* at(token, field, r[field]);
  // A required list of amounts that is absent (or not a list) holds amounts nobody can read.
  for (const list of ['receivers', 'swaps']) {
    if (!Array.isArray(r[list]) && required.some((f) => f.startsWith(`${list}.`))) yield { token, field: list, value: r[list], exact: false };
  }
  for (const rec of arr(r.receivers)) {
    yield* at(token, 'receivers.amount', rec.amount);
    yield* at(token, 'receivers.fee', rec.fee);
  }
  for (const swap of arr(r.swaps)) {
    yield* at(token, 'swaps.inputAmount', swap.inputAmount);
    yield* at(str(swap.outputToken) ?? '(no token)', 'swaps.outputAmount', swap.outputAmount);
  }
}

/** An amount as a message names it: its field, and what was sent (or "missing"). */
export function describeAmount(a: Amount): string {
  return `${a.field} ${a.value === undefined ? 'missing' : shown(JSON.stringify(a.value) ?? String(a.value))}`;
}

/** Server text in a message (which reportError neutralises): cut, so one value cannot flood stderr. */
function shown(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function arr(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => x !== null && typeof x === 'object') : [];
}
