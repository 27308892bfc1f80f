import { DuckDBInstance } from '@duckdb/node-api';
import { expect } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { payrecInProcess, type RunOptions } from './helpers.js';

// What the mirror tests compare: a table of the mirror, read through `payrec sql`,
// against the emulator's own records, read over HTTP page by page, and totals against
// sums computed here with BigInt. Nothing here uses payrec's code.

export type Row = Record<string, unknown>;

/**
 * The test's own HTTP to the emulator, asked once more when the connection failed: a
 * socket this process kept alive can be closed by the emulator just as it is reused
 * (its keep-alive timeout), which has nothing to do with what a test checks.
 */
export async function fetchAgain(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch {
    return fetch(url, init);
  }
}

/** Every record of a list as the emulator serves it (oldest first), read with plain HTTP. */
export async function listOf(emu: Emulator, path: string, chain = 'bsc'): Promise<Row[]> {
  const out: Row[] = [];
  for (let offset = 0; ; offset += 1000) {
    const url = `${emu.url}/v1/${chain}${path}${path.includes('?') ? '&' : '?'}limit=1000&offset=${offset}&sort=asc&to=99999999999`;
    const body = (await (await fetchAgain(url, { headers: { authorization: `Bearer ${emu.keyFor(chain)}` } })).json()) as { data: Row[]; total: number };
    out.push(...body.data);
    if (body.data.length < 1000) return out;
  }
}

/**
 * Runs a query with `payrec sql -f json` and returns the rows: inside this worker
 * (payrecInProcess), as a reader of the mirror with no process boundary under test; a
 * sync's process that holds the file makes it wait as it would a reader's process.
 */
export async function sql(db: string, query: string, o: Omit<RunOptions, 'input' | 'cwd'> = {}): Promise<Row[]> {
  const r = await payrecInProcess(undefined, ['sql', '--db', db, '-f', 'json', query], o);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout) as Row[];
}

/** A value without absent (null) fields. */
export function apiFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(apiFields);
  if (value === null || typeof value !== 'object') return value;
  const out: Row = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = apiFields(v);
  return out;
}

/** The API's time fields (Unix seconds), which the mirror keeps as TIMESTAMP WITH TIME ZONE. */
const TIME_FIELDS = new Set(['timestamp', 'cycleStart', 'cycleEnd', 'createdAt', 'updatedAt']);

/** Unix seconds as `payrec sql` prints a TIMESTAMP WITH TIME ZONE in UTC: 2025-10-09 08:53:20+00. */
export const sqlTime = (seconds: number): string => new Date(seconds * 1000).toISOString().replace('T', ' ').replace(/\.000Z$/, '+00');

/** A record of the API as the mirror shows it: times as sqlTime, at any depth; amounts are already canonical text. */
export function asMirrored(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asMirrored);
  if (value === null || typeof value !== 'object') return value;
  const out: Row = {};
  for (const [k, v] of Object.entries(value)) out[k] = TIME_FIELDS.has(k) && typeof v === 'number' ? sqlTime(v) : asMirrored(v);
  return out;
}

const BOOKKEEPING = 'chain, extra_fields, inexact_amounts, first_seen, last_updated';
/** Tables whose rows carry the plan they were read through, a column the API's records do not have. */
const PLAN_SCOPED = ['fixed_recurring_billings', 'fixed_recurring_cancellations', 'variable_recurring_cancellations', 'variable_recurring_cancellation_requests'];

/** A chain's records in a table of the mirror, as the API's fields, keyed by identity. */
export async function mirrored(db: string, table: string, identity: string[], chain = 'bsc'): Promise<Map<string, Row>> {
  const rows = await sql(db, `SELECT * EXCLUDE (${BOOKKEEPING}${PLAN_SCOPED.includes(table) ? ', planId' : ''}) FROM ${table} WHERE chain = '${chain}'`);
  return keyed(rows.map((r) => apiFields(r) as Row), identity);
}

export function keyed(records: Row[], identity: string[]): Map<string, Row> {
  const map = new Map<string, Row>();
  for (const r of records) {
    const key = identity.map((f) => String(r[f])).join('|');
    expect(map.has(key), `identity ${key} twice`).toBe(false);
    map.set(key, r);
  }
  return map;
}

/** Expects the mirror's records of a table to be exactly the service's (same identities, same content). */
export async function expectMirrorsList(db: string, table: string, identity: string[], truth: Row[], chain = 'bsc'): Promise<void> {
  const got = await mirrored(db, table, identity, chain);
  const want = keyed(truth.map((r) => asMirrored(apiFields(r)) as Row), identity);
  expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
  for (const [key, record] of want) expect(got.get(key), `${table} ${key}`).toEqual(record);
}

/** An exact decimal sum with BigInt, written as big.js writes it (no exponent, no trailing zeros). */
export function decimalSum(texts: string[]): string {
  const SCALE = 18;
  let total = 0n;
  for (const t of texts) {
    const [whole, frac = ''] = t.replace('-', '').split('.');
    const units = BigInt(whole + frac.padEnd(SCALE, '0'));
    total += t.startsWith('-') ? -units : units;
  }
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(SCALE + 1, '0');
  const frac = digits.slice(-SCALE).replace(/0+$/, '');
  return `${negative ? '-' : ''}${digits.slice(0, -SCALE)}${frac ? '.' + frac : ''}`;
}

/** Requests the emulator logged for a path. */
export const requestsTo = (emu: Emulator, path: string) => emu.requests.filter((q) => q.path === path).length;

/** Runs SQL on a DuckDB file with DuckDB itself, not payrec (to prepare a state payrec must cope with). */
export async function duck(file: string, ...statements: string[]): Promise<void> {
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  for (const s of statements) await connection.run(s);
  connection.closeSync();
  instance.closeSync();
}
