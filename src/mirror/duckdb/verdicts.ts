import { InterruptedError } from '../../core/runtime/errors.js';
import type { Verdict } from '../../chain/verdict-names.js';
import { OPEN_VERDICTS } from '../../chain/verdict-names.js';
import type { Verifier } from '../../chain/verifier.js';
import { combine, subjectsOf } from '../../chain/verifier.js';
import type { Subject } from '../../chain/decode.js';
import { verifiable } from '../../chain/verifiable.js';
import { withPaymentTags, type PaymentTags } from '../../chain/payment-tags.js';
import { CATALOG, type MirroredCollection } from '../catalog.js';
import { layoutOf } from './layout.js';
import { ident } from './schema.js';
import { INEXACT_COLUMN, LAST_UPDATED_COLUMN, type Field, type FieldType } from '../fields.js';
import type { MirrorDb } from './connection.js';
import type { AckRow, VerifyReport, VerifyScope } from '../engine.js';

// `payrec verify` on the mirror: every record not yet final is checked against the
// chain, a batch at a time, and its verdict stored in `chain_verdicts` in the same
// file, committed batch by batch (an interrupted run keeps what it verified). A
// record is final once its verdict is neither pending, unconfirmed nor missing and it
// has not changed since; a reorged one once its block is final, except one found reorged
// by its block alone in this run, read again by the next (a node that lied once cannot
// keep it reorged for good). Before that, the blocks of
// final records above the node's `finalized` (or `safe`) block are read again: one
// whose hash changed is reorged, and its receipt read again in the same run (a
// reorged transaction is usually mined again). Blocks at or below it are never read
// again, so a re-run costs what is new. `verdictSince` is when a record's verdict was
// first seen (a gate on news, `--new`); `chain_acks` holds reviewed discrepancies,
// which stay in every report but fail no gate. A wallet-to-wallet payment has a row
// per receiver (each its own transaction): `record` is `<id> receivers[i]`.

export const VERDICTS_TABLE = 'chain_verdicts';
export const ACKS_TABLE = 'chain_acks';

const DDL = `CREATE TABLE IF NOT EXISTS ${VERDICTS_TABLE} (
  chain VARCHAR NOT NULL, collection VARCHAR NOT NULL, record VARCHAR NOT NULL,
  transactionHash VARCHAR, verdict VARCHAR NOT NULL, blockNumber BIGINT, blockHash VARCHAR,
  confirmations BIGINT, chainDiff JSON, checkedAt TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (chain, collection, record));
ALTER TABLE ${VERDICTS_TABLE} ADD COLUMN IF NOT EXISTS final BOOLEAN;
ALTER TABLE ${VERDICTS_TABLE} ADD COLUMN IF NOT EXISTS verdictSince TIMESTAMPTZ;
CREATE TABLE IF NOT EXISTS ${ACKS_TABLE} (
  chain VARCHAR NOT NULL, transactionHash VARCHAR NOT NULL, reason VARCHAR NOT NULL,
  ackedBy VARCHAR NOT NULL, ackedAt TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (chain, transactionHash))`;

/** Records verified per batch: one commit each. */
const BATCH = 1000;

export async function ensureVerdictsTable(db: MirrorDb): Promise<void> {
  await db.run(DDL);
}

/** A stored value as the API wrote it: amounts as their decimal text, times as Unix seconds, nested values alike. */
function apiForm(sql: string, t: FieldType): string {
  switch (t.kind) {
    case 'decimal':
      return `rtrim(rtrim(CAST(${sql} AS VARCHAR), '0'), '.')`;
    case 'time':
      return `CAST(epoch(${sql}) AS DOUBLE)`;
    case 'integer':
      return `CAST(${sql} AS DOUBLE)`;
    case 'list':
      return `list_transform(${sql}, lambda e: ${apiForm('e', t.element)})`;
    case 'struct':
      return `struct_pack(${t.fields.map((f) => `${ident(f.name)} := ${apiForm(`${sql}.${ident(f.name)}`, f.type)}`).join(', ')})`;
    default:
      return sql;
  }
}

const keyOf = (c: MirroredCollection) => c.endpoint.identity.map((f) => `coalesce(CAST(t.${ident(f)} AS VARCHAR), '?')`).join(` || ' ' || `);

const quoted = (vs: Iterable<string>) => [...vs].map((v) => `'${v}'`).join(', ');

/**
 * Final: stored final (rows of older payrecs, without the flag: neither open nor
 * reorged), not asked again by --recheck, and unchanged since it was judged.
 */
function final(recheck: ReadonlySet<Verdict>): string {
  const stored = `coalesce(v.final, v.verdict NOT IN (${quoted([...OPEN_VERDICTS, 'reorged'])}))`;
  return `${stored}${recheck.size > 0 ? ` AND v.verdict NOT IN (${quoted(recheck)})` : ''} AND v.checkedAt >= t.${ident(LAST_UPDATED_COLUMN)}`;
}

function notFinal(c: MirroredCollection, recheck: ReadonlySet<Verdict>): string {
  const own = `v.chain = t.chain AND v.collection = '${c.name}'`;
  if (c.name === 'wallet-to-wallet/payments') {
    return `(SELECT count(*) FROM ${VERDICTS_TABLE} v WHERE ${own} AND starts_with(v.record, ${keyOf(c)} || ' receivers[') AND ${final(recheck)}) < coalesce(len(t.receivers), 0) OR len(t.receivers) = 0`;
  }
  return `NOT EXISTS (SELECT 1 FROM ${VERDICTS_TABLE} v WHERE ${own} AND v.record = ${keyOf(c)} AND ${final(recheck)})`;
}

/** The records of the scope's window (all without one), as an SQL condition on the collection's row `t`. */
function inWindow(scope: VerifyScope): string {
  const bounds: string[] = [];
  if (scope.from !== undefined) bounds.push(`t.timestamp >= to_timestamp(${scope.from})`);
  if (scope.to !== undefined) bounds.push(`t.timestamp <= to_timestamp(${scope.to})`);
  return bounds.length > 0 ? bounds.join(' AND ') : 'true';
}

/** The verdict rows of the collection's records in the window: the whole collection without one. */
function verdictRows(c: MirroredCollection, scope: VerifyScope): string {
  if (scope.from === undefined && scope.to === undefined) return `SELECT v.* FROM ${VERDICTS_TABLE} v WHERE v.chain = $1 AND v.collection = '${c.name}'`;
  const matches = c.name === 'wallet-to-wallet/payments' ? `starts_with(v.record, ${keyOf(c)} || ' receivers[')` : `v.record = ${keyOf(c)}`;
  return `SELECT v.* FROM ${VERDICTS_TABLE} v WHERE v.chain = $1 AND v.collection = '${c.name}' AND EXISTS (SELECT 1 FROM ${layoutOf(c).storage} t WHERE t.chain = v.chain AND ${matches} AND ${inWindow(scope)})`;
}

/** Puts an amount the table could not hold back in its place, as its text (inexact_amounts keeps it by path). */
function restore(record: Record<string, unknown>, path: string, text: unknown): void {
  const parts = path.split(/\.|(?=\[)/).map((p) => /^\[(\d+)\]$/.exec(p)?.[1] ?? p);
  let at: unknown = record;
  for (const part of parts.slice(0, -1)) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined;
  if (at !== null && typeof at === 'object') (at as Record<string, unknown>)[parts.at(-1)!] = text;
}

interface Row {
  key: string;
  /** The record's timestamp in microseconds (batches are read in time order). */
  time: number;
  record: Record<string, unknown>;
  planId?: string;
  /** One-time transfers: the mirror's tag of the payment its oneTimeId names. */
  paymentTag?: string;
}

async function readBatch(db: MirrorDb, c: MirroredCollection, chain: string, scope: VerifyScope, after: { time: number; key: string } | undefined): Promise<Row[]> {
  const layout = layoutOf(c);
  const fields: Field[] = layout.fields;
  const select = fields.map((f) => `${apiForm(`t.${ident(f.name)}`, f.type)} AS ${ident(f.name)}`);
  const scopeColumn = layout.scopes.includes('planId') ? `, t."planId" AS "payrec planId"` : '';
  // A one-time transfer's payment's tag, where the mirror has the payment (payment-tags.ts reads the others from the API).
  const payments = c.name === 'one-time/transfers' ? CATALOG.find((x) => x.name === 'one-time/payments') : undefined;
  const tag = payments ? `, (SELECT p."tag" FROM ${layoutOf(payments).storage} p WHERE p.chain = t.chain AND lower(p."id") = lower(t."oneTimeId") LIMIT 1) AS "payrec paymentTag"` : '';
  // In time order: a batch's records are close in time, so logs-first (src/chain/logs-first.ts) reads them by spans as it does a list's.
  const time = `epoch_us(t.timestamp)`;
  const params: (string | number)[] = [chain];
  let page = '';
  if (after) {
    params.push(after.time, after.key);
    page = `AND (${time} > $2 OR (${time} = $2 AND ${keyOf(c)} > $3))`;
  }
  const rows = await db.rows(
    `SELECT ${select.join(', ')}${scopeColumn}${tag}, ${keyOf(c)} AS "payrec key", CAST(${time} AS DOUBLE) AS "payrec time", t.${ident(INEXACT_COLUMN)} AS "payrec inexact"
     FROM ${layout.storage} t WHERE t.chain = $1 ${page} AND ${inWindow(scope)} AND (${notFinal(c, scope.recheck)})
     ORDER BY ${time}, ${keyOf(c)} LIMIT ${BATCH}`,
    params,
  );
  return rows.map((r) => {
    const { 'payrec key': key, 'payrec time': time, 'payrec planId': planId, 'payrec inexact': inexact, 'payrec paymentTag': paymentTag, ...record } = r as Record<string, unknown>;
    const texts = typeof inexact === 'string' ? (JSON.parse(inexact) as Record<string, unknown>) : ((inexact ?? {}) as Record<string, unknown>);
    for (const [path, text] of Object.entries(texts)) restore(record, path, text);
    return { key: String(key), time: Number(time), record, planId: typeof planId === 'string' ? planId : (record.planId as string | undefined), paymentTag: typeof paymentTag === 'string' ? paymentTag : undefined };
  });
}

/** Verifies the chain's records of `collections` not yet final; returns a report per collection. */
export async function verifyMirror(
  db: MirrorDb,
  verifier: Verifier,
  o: { chain: string; collections: readonly MirroredCollection[]; tags: PaymentTags; scope: VerifyScope; signal: AbortSignal; progress?: (done: number) => void },
): Promise<VerifyReport[]> {
  await ensureVerdictsTable(db);
  // One instant names this run's news (verdictSince); checkedAt stays each batch's own commit time.
  const runAt = new Date().toISOString();
  const final = await verifier.finalHeight();
  const head = await verifier.client.blockNumber();
  const reports: VerifyReport[] = [];
  let done = 0;
  for (const c of o.collections.filter((x) => verifiable(x.name))) {
    // Reorgs first: a final record found reorged is judged again below, by its receipt, in this run.
    const newlyReorged = await noticeReorgs(db, verifier, o.chain, c, o.scope, { final, head, runAt });
    let checked = 0;
    let after: { time: number; key: string } | undefined;
    for (;;) {
      const rows = await readBatch(db, c, o.chain, o.scope, after);
      if (rows.length === 0) break;
      after = { time: rows.at(-1)!.time, key: rows.at(-1)!.key };
      const subjects = rows.map((r) => subjectsOf(c.name, r.record, r.planId));
      for (const r of rows) if (r.paymentTag !== undefined) o.tags.add(String(r.record.oneTimeId), r.paymentTag);
      await withPaymentTags(subjects.flat(), o.tags);
      const judged = await verifier.verify(subjects.flat());
      await store(db, o.chain, c.name, rows, subjects, judged, { final, runAt });
      checked += judged.length;
      done += rows.length;
      o.progress?.(done);
      await db.letReadersIn();
      if (o.signal.aborted) throw new InterruptedError();
    }
    reports.push({ collection: c.name, checked, newlyReorged, ...(await countVerdicts(db, o.chain, c, o.scope, runAt)) });
  }
  return reports;
}

async function store(db: MirrorDb, chain: string, collection: string, rows: Row[], subjects: Subject[][], judged: Awaited<ReturnType<Verifier['verify']>>, run: { final: bigint | undefined; runAt: string }): Promise<void> {
  const lines: string[] = [];
  let k = 0;
  rows.forEach((row, i) => {
    for (const s of subjects[i]) {
      const j = judged[k++];
      const receiver = s.receiver;
      const hash = receiver === undefined ? row.record.transactionHash : (row.record.receivers as Record<string, unknown>[])[receiver].transactionHash;
      lines.push(
        JSON.stringify({
          chain,
          collection,
          record: receiver === undefined ? row.key : `${row.key} receivers[${receiver}]`,
          transactionHash: typeof hash === 'string' ? hash : null,
          verdict: j.verdict,
          blockNumber: j.blockNumber,
          blockHash: j.blockHash,
          confirmations: j.confirmations,
          chainDiff: JSON.stringify(j.differences),
        }),
      );
    }
    if (subjects[i].length === 0) {
      const j = combine([]);
      lines.push(JSON.stringify({ chain, collection, record: row.key, transactionHash: null, verdict: j.verdict, blockNumber: null, blockHash: null, confirmations: null, chainDiff: JSON.stringify(j.differences) }));
    }
  });
  const columns = `{chain: 'VARCHAR', collection: 'VARCHAR', record: 'VARCHAR', transactionHash: 'VARCHAR', verdict: 'VARCHAR', blockNumber: 'BIGINT', blockHash: 'VARCHAR', confirmations: 'BIGINT', chainDiff: 'VARCHAR'}`;
  // Final: neither open nor reorged; reorged once its block is at or below the node's final block, unless this run
  // found it reorged by its block alone (noticeReorgs): then a later run reads it again, so one wrong answer is not kept for good.
  const settled = run.final === undefined ? 'false' : `n.blockNumber <= ${run.final} AND NOT coalesce(o.verdict = 'reorged' AND o.checkedAt >= CAST($1 AS TIMESTAMPTZ), false)`;
  await db.transaction(() =>
    db.withFile(lines.join('\n') + '\n', (file) =>
      db.run(
        `INSERT OR REPLACE INTO ${VERDICTS_TABLE} (chain, collection, record, transactionHash, verdict, blockNumber, blockHash, confirmations, chainDiff, checkedAt, final, verdictSince)
         SELECT n.chain, n.collection, n.record, n.transactionHash, n.verdict, n.blockNumber, n.blockHash, n.confirmations, CAST(n.chainDiff AS JSON), now(),
           CASE WHEN n.verdict IN (${quoted(OPEN_VERDICTS)}) THEN false WHEN n.verdict = 'reorged' THEN coalesce(${settled}, false) ELSE true END,
           CASE WHEN o.verdict = n.verdict THEN coalesce(o.verdictSince, o.checkedAt) ELSE CAST($1 AS TIMESTAMPTZ) END
         FROM read_json(${file}, format = 'newline_delimited', columns = ${columns}) n
         LEFT JOIN ${VERDICTS_TABLE} o ON o.chain = n.chain AND o.collection = n.collection AND o.record = n.record`,
        [run.runAt],
      ),
    ),
  );
}

/**
 * Final verdicts whose block is no longer the canonical one at its height become
 * reorged, not final (their receipts are read again in this run); returns how many.
 * Only blocks above the node's final block are read: one at or below it cannot change.
 * A height above the node's head is a node that lags, not a reorg: left as it is.
 */
async function noticeReorgs(db: MirrorDb, verifier: Verifier, chain: string, c: MirroredCollection, scope: VerifyScope, run: { final: bigint | undefined; head: bigint; runAt: string }): Promise<number> {
  const above = run.final === undefined ? '' : ` AND v.blockNumber > ${run.final}`;
  const judged = await db.rows(
    `SELECT v.record, CAST(v.blockNumber AS VARCHAR) AS n, v.blockHash AS h FROM (${verdictRows(c, scope)}) v
     WHERE v.blockHash IS NOT NULL AND v.blockNumber <= ${run.head}${above} AND coalesce(v.final, v.verdict NOT IN (${quoted([...OPEN_VERDICTS, 'reorged'])})) AND v.verdict <> 'reorged'`,
    [chain],
  );
  if (judged.length === 0) return 0;
  const canonical = await verifier.canonicalHashes([...new Set(judged.map((b) => BigInt(String(b.n))))]);
  const moved = judged.filter((b) => canonical.get(BigInt(String(b.n))) !== b.h).map((b) => String(b.record));
  if (moved.length === 0) return 0;
  await db.transaction(() =>
    db.withFile(moved.map((record) => JSON.stringify({ record })).join('\n') + '\n', (file) =>
      db.run(
        `UPDATE ${VERDICTS_TABLE} SET verdict = 'reorged', final = false, verdictSince = CAST($3 AS TIMESTAMPTZ), checkedAt = now() WHERE chain = $1 AND collection = $2 AND record IN (SELECT record FROM read_json(${file}, format = 'newline_delimited', columns = {record: 'VARCHAR'}))`,
        [chain, c.name, run.runAt],
      ),
    ),
  );
  return moved.length;
}

/** The collection's verdicts (of the window) by verdict: all, those new in this run, those acknowledged, and the acknowledged news. */
async function countVerdicts(db: MirrorDb, chain: string, c: MirroredCollection, scope: VerifyScope, runAt: string): Promise<Pick<VerifyReport, 'verdicts' | 'news' | 'acked' | 'ackedNews'>> {
  const rows = await db.rows(
    `SELECT v.verdict, CAST(count(*) AS DOUBLE) AS n, CAST(count(*) FILTER (WHERE v.verdictSince >= CAST($2 AS TIMESTAMPTZ)) AS DOUBLE) AS news,
       CAST(count(a.reason) AS DOUBLE) AS acked, CAST(count(a.reason) FILTER (WHERE v.verdictSince >= CAST($2 AS TIMESTAMPTZ)) AS DOUBLE) AS ackedNews
     FROM (${verdictRows(c, scope)}) v LEFT JOIN ${ACKS_TABLE} a ON a.chain = v.chain AND a.transactionHash = lower(v.transactionHash)
     GROUP BY v.verdict`,
    [chain, runAt],
  );
  const by = (k: string) => Object.fromEntries(rows.filter((r) => Number(r[k]) > 0).map((r) => [String(r.verdict), Number(r[k])]));
  return { verdicts: by('n'), news: by('news'), acked: by('acked'), ackedNews: by('ackedNews') };
}

/** Acknowledges the transactions `hashes` of `chain` (lower case): kept in every report, failing no gate. */
export async function acknowledge(db: MirrorDb, chain: string, hashes: readonly string[], reason: string, by: string): Promise<void> {
  await ensureVerdictsTable(db);
  for (const h of new Set(hashes)) await db.run(`INSERT OR REPLACE INTO ${ACKS_TABLE} VALUES ($1, $2, $3, $4, now())`, [chain, h, reason, by]);
}

/** The chain's acknowledgements (of `hashes`, or all), oldest first, each with its record's current verdict (null: none yet). */
export async function acknowledged(db: MirrorDb, chain: string, hashes?: readonly string[]): Promise<AckRow[]> {
  await ensureVerdictsTable(db);
  const only = hashes ? ` AND a.transactionHash IN (${hashes.map((_, i) => `$${i + 2}`).join(', ')})` : '';
  const rows = await db.rows(
    `SELECT a.transactionHash, v.verdict, v.collection, a.reason, a.ackedBy, strftime(a.ackedAt AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS ackedAt
     FROM ${ACKS_TABLE} a LEFT JOIN (SELECT chain, lower(transactionHash) AS h, any_value(verdict) AS verdict, any_value(collection) AS collection FROM ${VERDICTS_TABLE} GROUP BY ALL) v ON v.chain = a.chain AND v.h = a.transactionHash
     WHERE a.chain = $1${only} ORDER BY a.ackedAt, a.transactionHash`,
    [chain, ...(hashes ?? [])],
  );
  return rows as unknown as AckRow[];
}
