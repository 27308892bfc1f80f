import { InterruptedError } from '../../core/runtime/errors.js';
import type { Verdict } from '../../chain/verdict-names.js';
import { OPEN_VERDICTS } from '../../chain/verdict-names.js';
import type { Verifier } from '../../chain/verifier.js';
import { combine, subjectsOf } from '../../chain/verifier.js';
import type { Subject } from '../../chain/decode.js';
import { verifiable } from '../../chain/verifiable.js';
import type { MirroredCollection } from '../catalog.js';
import { layoutOf } from './layout.js';
import { ident } from './schema.js';
import { IDENTITY_HASH_COLUMN, INEXACT_COLUMN, LAST_UPDATED_COLUMN, type Field, type FieldType } from '../fields.js';
import type { MirrorDb } from './connection.js';
import type { VerifyReport } from '../engine.js';

// `payrec verify` on the mirror: every record not yet final is checked against the
// chain, a batch at a time, and its verdict stored in `chain_verdicts` in the same
// file, committed batch by batch (an interrupted run keeps what it verified). A
// record is final once its verdict is neither pending, unconfirmed nor missing and it
// has not changed since: the next run asks the chain only about the others, and
// reads the blocks of the final ones again, to notice a block hash that changed
// (reorged). A wallet-to-wallet payment has a row per receiver (each its own
// transaction): `record` is `<id> receivers[i]`.

export const VERDICTS_TABLE = 'chain_verdicts';

const DDL = `CREATE TABLE IF NOT EXISTS ${VERDICTS_TABLE} (
  chain VARCHAR NOT NULL, collection VARCHAR NOT NULL, record VARCHAR NOT NULL,
  transactionHash VARCHAR, verdict VARCHAR NOT NULL, blockNumber BIGINT, blockHash VARCHAR,
  confirmations BIGINT, chainDiff JSON, checkedAt TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (chain, collection, record))`;

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

/** Final: judged, not pending, unconfirmed or missing, and unchanged since. */
const FINAL = `v.verdict NOT IN (${OPEN_VERDICTS.map((v) => `'${v}'`).join(', ')}) AND v.checkedAt >= t.${ident(LAST_UPDATED_COLUMN)}`;

function notFinal(c: MirroredCollection): string {
  const own = `v.chain = t.chain AND v.collection = '${c.name}'`;
  if (c.name === 'wallet-to-wallet/payments') {
    return `(SELECT count(*) FROM ${VERDICTS_TABLE} v WHERE ${own} AND starts_with(v.record, ${keyOf(c)} || ' receivers[') AND ${FINAL}) < coalesce(len(t.receivers), 0) OR len(t.receivers) = 0`;
  }
  return `NOT EXISTS (SELECT 1 FROM ${VERDICTS_TABLE} v WHERE ${own} AND v.record = ${keyOf(c)} AND ${FINAL})`;
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
  hash: number;
  record: Record<string, unknown>;
  planId?: string;
}

async function readBatch(db: MirrorDb, c: MirroredCollection, chain: string, after: { hash: number; key: string } | undefined): Promise<Row[]> {
  const layout = layoutOf(c);
  const fields: Field[] = layout.fields;
  const select = fields.map((f) => `${apiForm(`t.${ident(f.name)}`, f.type)} AS ${ident(f.name)}`);
  const scope = layout.scopes.includes('planId') ? `, t."planId" AS "payrec planId"` : '';
  const hashCol = `t.${ident(IDENTITY_HASH_COLUMN)}`;
  const params: (string | number)[] = [chain];
  let page = '';
  if (after) {
    params.push(after.hash, after.key);
    page = `AND (${hashCol} > $2 OR (${hashCol} = $2 AND ${keyOf(c)} > $3))`;
  }
  const rows = await db.rows(
    `SELECT ${select.join(', ')}${scope}, ${keyOf(c)} AS "payrec key", CAST(${hashCol} AS DOUBLE) AS "payrec hash", t.${ident(INEXACT_COLUMN)} AS "payrec inexact"
     FROM ${layout.storage} t WHERE t.chain = $1 ${page} AND (${notFinal(c)})
     ORDER BY ${hashCol}, ${keyOf(c)} LIMIT ${BATCH}`,
    params,
  );
  return rows.map((r) => {
    const { 'payrec key': key, 'payrec hash': hash, 'payrec planId': planId, 'payrec inexact': inexact, ...record } = r as Record<string, unknown>;
    const texts = typeof inexact === 'string' ? (JSON.parse(inexact) as Record<string, unknown>) : ((inexact ?? {}) as Record<string, unknown>);
    for (const [path, text] of Object.entries(texts)) restore(record, path, text);
    return { key: String(key), hash: Number(hash), record, planId: typeof planId === 'string' ? planId : (record.planId as string | undefined) };
  });
}

/** Verifies the chain's records of `collections` not yet final; returns a report per collection. */
export async function verifyMirror(
  db: MirrorDb,
  verifier: Verifier,
  o: { chain: string; collections: readonly MirroredCollection[]; signal: AbortSignal; progress?: (done: number) => void },
): Promise<VerifyReport[]> {
  await ensureVerdictsTable(db);
  const reports: VerifyReport[] = [];
  let done = 0;
  for (const c of o.collections.filter((x) => verifiable(x.name))) {
    let checked = 0;
    let after: { hash: number; key: string } | undefined;
    for (;;) {
      const rows = await readBatch(db, c, o.chain, after);
      if (rows.length === 0) break;
      after = { hash: rows.at(-1)!.hash, key: rows.at(-1)!.key };
      const subjects = rows.map((r) => subjectsOf(c.name, r.record, r.planId));
      const judged = await verifier.verify(subjects.flat());
      await store(db, o.chain, c.name, rows, subjects, judged);
      checked += judged.length;
      done += rows.length;
      o.progress?.(done);
      await db.letReadersIn();
      if (o.signal.aborted) throw new InterruptedError();
    }
    reports.push({ collection: c.name, checked, newlyReorged: 0, verdicts: {} });
  }
  for (const r of reports) r.newlyReorged = await noticeReorgs(db, verifier, o.chain, r.collection);
  for (const r of reports) r.verdicts = await countVerdicts(db, o.chain, r.collection);
  return reports;
}

async function store(db: MirrorDb, chain: string, collection: string, rows: Row[], subjects: Subject[][], judged: Awaited<ReturnType<Verifier['verify']>>): Promise<void> {
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
  await db.transaction(() =>
    db.withFile(lines.join('\n') + '\n', (file) =>
      db.run(
        `INSERT OR REPLACE INTO ${VERDICTS_TABLE} SELECT chain, collection, record, transactionHash, verdict, blockNumber, blockHash, confirmations, CAST(chainDiff AS JSON), now() FROM read_json(${file}, format = 'newline_delimited', columns = ${columns})`,
      ),
    ),
  );
}

/** Final verdicts whose block is no longer the canonical one at its height become reorged; returns how many. */
async function noticeReorgs(db: MirrorDb, verifier: Verifier, chain: string, collection: string): Promise<number> {
  const judged = await db.rows(
    `SELECT record, CAST(blockNumber AS VARCHAR) AS n, blockHash AS h FROM ${VERDICTS_TABLE} WHERE chain = $1 AND collection = $2 AND blockHash IS NOT NULL AND verdict NOT IN ('reorged', ${OPEN_VERDICTS.map((v) => `'${v}'`).join(', ')})`,
    [chain, collection],
  );
  if (judged.length === 0) return 0;
  const canonical = await verifier.canonicalHashes([...new Set(judged.map((b) => BigInt(String(b.n))))]);
  const moved = judged.filter((b) => canonical.get(BigInt(String(b.n))) !== b.h).map((b) => String(b.record));
  if (moved.length === 0) return 0;
  await db.transaction(() =>
    db.withFile(moved.map((record) => JSON.stringify({ record })).join('\n') + '\n', (file) =>
      db.run(
        `UPDATE ${VERDICTS_TABLE} SET verdict = 'reorged', checkedAt = now() WHERE chain = $1 AND collection = $2 AND record IN (SELECT record FROM read_json(${file}, format = 'newline_delimited', columns = {record: 'VARCHAR'}))`,
        [chain, collection],
      ),
    ),
  );
  return moved.length;
}

async function countVerdicts(db: MirrorDb, chain: string, collection: string): Promise<Partial<Record<Verdict, number>>> {
  const rows = await db.rows(`SELECT verdict, CAST(count(*) AS DOUBLE) AS n FROM ${VERDICTS_TABLE} WHERE chain = $1 AND collection = $2 GROUP BY verdict`, [chain, collection]);
  return Object.fromEntries(rows.map((r) => [String(r.verdict), Number(r.n)]));
}
