import { OPEN_VERDICTS } from '../../chain/verdict-names.js';
import type { Verdict } from '../../chain/verdict-names.js';
import { CATALOG, type MirroredCollection } from '../catalog.js';
import { INEXACT_COLUMN, LAST_UPDATED_COLUMN, type Field } from '../fields.js';
import { withoutPaddingZeros } from '../result-text.js';
import { restore, VERIFY_BATCH, type VerdictLine, type VerdictStore, type VerifyRow, type VerifyRun } from '../verify.js';
import type { AckRow, VerifyReport, VerifyScope } from '../engine.js';
import type { PgConnection } from './connection.js';
import { ACKS_TABLE, storedTable, tableOf, VERDICTS_TABLE, type Schemas } from './layout.js';
import { literal, quote } from './types.js';

// PostgreSQL's store of `payrec verify`'s verdicts (../verify.ts runs the verification,
// duckdb/verdicts.ts is DuckDB's): `chain_verdicts` and `chain_acks` in the mirror's
// schema beside its views (laid out with them in layout.ts, so a syncing role verifies without any
// DDL right, and a reader role reads them), with the same rules of what is final as
// DuckDB's, in PostgreSQL's dialect. Columns keep the API's camelCase, quoted
// (`"transactionHash"`), as the records' do. Each batch's verdicts are one statement:
// committed whole, an interrupted run keeps the batches before.

const quoted = (vs: Iterable<string>) => [...vs].map(literal).join(', ');

const keyOf = (c: MirroredCollection) => c.endpoint.identity.map((f) => `coalesce(t.${quote(f)}::TEXT, '?')`).join(` || ' ' || `);

/** A stored value (PostgreSQL's text of it) as the API wrote it: amounts as decimal text, times as Unix seconds, nested values as their JSON. */
function apiValue(f: Field, text: string | null): unknown {
  if (text === null) return null;
  switch (f.type.kind) {
    case 'decimal':
      return withoutPaddingZeros(text);
    case 'time':
    case 'integer':
    case 'number':
      return Number(text);
    case 'boolean':
      return text === 't';
    case 'json':
    case 'struct':
    case 'list':
      return JSON.parse(text);
    default:
      return text;
  }
}

/** A stored column as PostgreSQL's text of what apiValue reads: times as their epoch. */
const selected = (f: Field) => (f.type.kind === 'time' ? `extract(epoch FROM t.${quote(f.name)})::TEXT` : `t.${quote(f.name)}::TEXT`);

export class PgVerdicts implements VerdictStore {
  private readonly verdicts: string;
  private readonly acks: string;

  constructor(
    private readonly db: PgConnection,
    private readonly schemas: Schemas,
    /** Lays out the mirror where it is not yet (the tables are part of it). */
    private readonly layout: () => Promise<unknown>,
  ) {
    this.verdicts = `${schemas.view}.${VERDICTS_TABLE}`;
    this.acks = `${schemas.view}.${ACKS_TABLE}`;
  }

  async ensure(): Promise<void> {
    await this.layout();
  }

  /**
   * Final: stored final (or, without the flag, neither open nor reorged), not asked
   * again by --recheck, and unchanged since it was judged.
   */
  private final(recheck: ReadonlySet<Verdict>): string {
    const stored = `coalesce(v.final, v.verdict NOT IN (${quoted([...OPEN_VERDICTS, 'reorged'])}))`;
    return `${stored}${recheck.size > 0 ? ` AND v.verdict NOT IN (${quoted(recheck)})` : ''} AND v."checkedAt" >= t.${quote(LAST_UPDATED_COLUMN)}`;
  }

  private notFinal(c: MirroredCollection, recheck: ReadonlySet<Verdict>): string {
    const own = `v.chain = t.chain AND v.collection = ${literal(c.name)}`;
    if (c.name === 'wallet-to-wallet/payments') {
      return `(SELECT count(*) FROM ${this.verdicts} v WHERE ${own} AND starts_with(v.record, ${keyOf(c)} || ' receivers[') AND ${this.final(recheck)}) < coalesce(jsonb_array_length(t.receivers), 0) OR jsonb_array_length(t.receivers) = 0`;
    }
    return `NOT EXISTS (SELECT 1 FROM ${this.verdicts} v WHERE ${own} AND v.record = ${keyOf(c)} AND ${this.final(recheck)})`;
  }

  /** The verdict rows of the collection's records in the window: the whole collection without one. */
  private verdictRows(c: MirroredCollection, scope: VerifyScope): string {
    const own = `SELECT v.* FROM ${this.verdicts} v WHERE v.chain = $1 AND v.collection = ${literal(c.name)}`;
    if (scope.from === undefined && scope.to === undefined) return own;
    const matches = c.name === 'wallet-to-wallet/payments' ? `starts_with(v.record, ${keyOf(c)} || ' receivers[')` : `v.record = ${keyOf(c)}`;
    return `${own} AND EXISTS (SELECT 1 FROM ${storedTable(this.schemas, c)} t WHERE t.chain = v.chain AND ${matches} AND ${inWindow(scope)})`;
  }

  async readBatch(c: MirroredCollection, chain: string, scope: VerifyScope, after: { time: number; key: string } | undefined): Promise<VerifyRow[]> {
    const table = tableOf(c);
    const select = table.fields.map((f) => `${selected(f)} AS ${quote(f.name)}`);
    const scopeColumn = table.scopes.includes('planId') ? `, t."planId" AS "payrec planId"` : '';
    // A one-time transfer's payment's tag, where the mirror has the payment (payment-tags.ts reads the others from the API).
    const payments = c.name === 'one-time/transfers' ? CATALOG.find((x) => x.name === 'one-time/payments') : undefined;
    const tag = payments ? `, (SELECT p."tag" FROM ${storedTable(this.schemas, payments)} p WHERE p.chain = t.chain AND lower(p."id") = lower(t."oneTimeId") LIMIT 1) AS "payrec paymentTag"` : '';
    // In time order: a batch's records are close in time, so logs-first reads them by spans as it does a list's.
    const time = `(extract(epoch FROM t."timestamp") * 1000000)::BIGINT`;
    const params: unknown[] = [chain];
    let page = '';
    if (after) {
      params.push(after.time, after.key);
      page = `AND (${time} > $2::BIGINT OR (${time} = $2::BIGINT AND ${keyOf(c)} > $3))`;
    }
    const rows = await this.db.rows(
      `SELECT ${select.join(', ')}${scopeColumn}${tag}, ${keyOf(c)} AS "payrec key", ${time} AS "payrec time", t.${quote(INEXACT_COLUMN)}::TEXT AS "payrec inexact"
       FROM ${storedTable(this.schemas, c)} t WHERE t.chain = $1 ${page} AND ${inWindow(scope)} AND (${this.notFinal(c, scope.recheck)})
       ORDER BY ${time}, ${keyOf(c)} LIMIT ${VERIFY_BATCH}`,
      params,
    );
    return rows.map((r) => {
      const record: Record<string, unknown> = {};
      for (const f of table.fields) record[f.name] = apiValue(f, r[f.name]);
      const inexact = r['payrec inexact'];
      for (const [path, text] of Object.entries(inexact === null ? {} : (JSON.parse(inexact) as Record<string, unknown>))) restore(record, path, text);
      const planId = r['payrec planId'] ?? (record.planId as string | undefined);
      return { key: r['payrec key']!, time: Number(r['payrec time']), record, planId: planId ?? undefined, paymentTag: r['payrec paymentTag'] ?? undefined };
    });
  }

  /** A batch's verdicts in one statement, with whether each is final and since when it stands. */
  async store(lines: VerdictLine[], run: VerifyRun): Promise<void> {
    // Final: neither open nor reorged; reorged once its block is at or below the node's final block, unless this run
    // found it reorged by its block alone (markReorged): then a later run reads it again.
    const settled = run.final === undefined ? 'false' : `n."blockNumber" <= ${run.final} AND NOT coalesce(o.verdict = 'reorged' AND o."checkedAt" >= $1::TIMESTAMPTZ, false)`;
    const columns = `chain, collection, record, "transactionHash", verdict, "blockNumber", "blockHash", confirmations, "chainDiff", "checkedAt", final, "verdictSince"`;
    await this.db.run(
      `INSERT INTO ${this.verdicts} (${columns})
       SELECT n.chain, n.collection, n.record, n."transactionHash", n.verdict, n."blockNumber", n."blockHash", n.confirmations, n."chainDiff"::JSONB, now(),
         CASE WHEN n.verdict IN (${quoted(OPEN_VERDICTS)}) THEN false WHEN n.verdict = 'reorged' THEN coalesce(${settled}, false) ELSE true END,
         CASE WHEN o.verdict = n.verdict THEN coalesce(o."verdictSince", o."checkedAt") ELSE $1::TIMESTAMPTZ END
       FROM jsonb_to_recordset($2::JSONB) AS n(chain TEXT, collection TEXT, record TEXT, "transactionHash" TEXT, verdict TEXT, "blockNumber" BIGINT, "blockHash" TEXT, confirmations BIGINT, "chainDiff" TEXT)
       LEFT JOIN ${this.verdicts} o ON o.chain = n.chain AND o.collection = n.collection AND o.record = n.record
       ON CONFLICT (chain, collection, record) DO UPDATE SET ${columns
         .split(', ')
         .slice(3)
         .map((col) => `${col} = EXCLUDED.${col}`)
         .join(', ')}`,
      [run.runAt, JSON.stringify(lines)],
    );
  }

  async judgedBlocks(c: MirroredCollection, chain: string, scope: VerifyScope, run: VerifyRun): Promise<{ record: string; n: string; h: string }[]> {
    const above = run.final === undefined ? '' : ` AND v."blockNumber" > ${run.final}`;
    const rows = await this.db.rows(
      `SELECT v.record, v."blockNumber"::TEXT AS n, v."blockHash" AS h FROM (${this.verdictRows(c, scope)}) v
       WHERE v."blockHash" IS NOT NULL AND v."blockNumber" <= ${run.head}${above} AND coalesce(v.final, v.verdict NOT IN (${quoted([...OPEN_VERDICTS, 'reorged'])})) AND v.verdict <> 'reorged'`,
      [chain],
    );
    return rows.map((r) => ({ record: r.record!, n: r.n!, h: r.h! }));
  }

  async markReorged(chain: string, collection: string, records: string[], run: VerifyRun): Promise<void> {
    await this.db.run(`UPDATE ${this.verdicts} SET verdict = 'reorged', final = false, "verdictSince" = $3::TIMESTAMPTZ, "checkedAt" = now() WHERE chain = $1 AND collection = $2 AND record = ANY($4::TEXT[])`, [
      chain,
      collection,
      run.runAt,
      records,
    ]);
  }

  async count(c: MirroredCollection, chain: string, scope: VerifyScope, runAt: string): Promise<Pick<VerifyReport, 'verdicts' | 'news' | 'acked' | 'ackedNews'>> {
    const rows = await this.db.rows(
      `SELECT v.verdict, count(*) AS n, count(*) FILTER (WHERE v."verdictSince" >= $2::TIMESTAMPTZ) AS news,
         count(a.reason) AS acked, count(a.reason) FILTER (WHERE v."verdictSince" >= $2::TIMESTAMPTZ) AS "ackedNews"
       FROM (${this.verdictRows(c, scope)}) v LEFT JOIN ${this.acks} a ON a.chain = v.chain AND a."transactionHash" = lower(v."transactionHash")
       GROUP BY v.verdict`,
      [chain, runAt],
    );
    const by = (k: string) => Object.fromEntries(rows.filter((r) => Number(r[k]) > 0).map((r) => [r.verdict!, Number(r[k])]));
    return { verdicts: by('n'), news: by('news'), acked: by('acked'), ackedNews: by('ackedNews') };
  }

  async letReadersIn(): Promise<void> {}

  /** Acknowledges the transactions `hashes` of `chain` (lower case): kept in every report, failing no gate. */
  async acknowledge(chain: string, hashes: readonly string[], reason: string, by: string): Promise<void> {
    await this.ensure();
    for (const h of new Set(hashes)) {
      await this.db.run(
        `INSERT INTO ${this.acks} VALUES ($1, $2, $3, $4, now()) ON CONFLICT (chain, "transactionHash") DO UPDATE SET reason = EXCLUDED.reason, "ackedBy" = EXCLUDED."ackedBy", "ackedAt" = EXCLUDED."ackedAt"`,
        [chain, h, reason, by],
      );
    }
  }

  /** The chain's acknowledgements (of `hashes`, or all), oldest first, each with its record's current verdict (null: none yet). */
  async acknowledged(chain: string, hashes?: readonly string[]): Promise<AckRow[]> {
    await this.ensure();
    const only = hashes ? ` AND a."transactionHash" = ANY($2::TEXT[])` : '';
    const rows = await this.db.rows(
      `SELECT a."transactionHash", v.verdict, v.collection, a.reason, a."ackedBy", to_char(a."ackedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "ackedAt"
       FROM ${this.acks} a LEFT JOIN (SELECT chain, lower("transactionHash") AS h, min(verdict) AS verdict, min(collection) AS collection FROM ${this.verdicts} GROUP BY 1, 2) v ON v.chain = a.chain AND v.h = a."transactionHash"
       WHERE a.chain = $1${only} ORDER BY a."ackedAt", a."transactionHash"`,
      hashes ? [chain, [...hashes]] : [chain],
    );
    return rows as unknown as AckRow[];
  }
}

/** The records of the scope's window (all without one), as an SQL condition on the collection's row `t`. */
function inWindow(scope: VerifyScope): string {
  const bounds: string[] = [];
  if (scope.from !== undefined) bounds.push(`t."timestamp" >= to_timestamp(${scope.from})`);
  if (scope.to !== undefined) bounds.push(`t."timestamp" <= to_timestamp(${scope.to})`);
  return bounds.length > 0 ? bounds.join(' AND ') : 'true';
}
