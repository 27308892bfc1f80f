import type { Page } from '../../core/lists/paginate.js';
import { contentColumns, recordConformer } from '../conform.js';
import { CHAIN_COLUMN, INEXACT_COLUMN, LAST_UPDATED_COLUMN } from '../fields.js';
import { RecordChecks } from '../record-checks.js';
import type { CollectionWriter, UpsertCounts, WriteBatch } from '../engine.js';
import { sqlState, type PgConnection } from './connection.js';
import { storedTable, type PgTable, type Schemas } from './layout.js';
import { COPY_NULL, copyText, copyValue, fitsNumeric, literal, quote, tableColumns, timeText } from './types.js';

// Writes batches of records into their table on the server, by identity (the table's
// primary key): each batch is COPYed into a temporary table and upserted with
// `INSERT … ON CONFLICT … DO UPDATE … WHERE … IS DISTINCT FROM`, so a known record is
// rewritten only when its content changed, and new, updated and unchanged are counted
// from what the statement returns. While a walk fills a table that held no row of its
// chain (a first sync), batches are COPYed straight into the table; should another
// runner have written one of those records meanwhile (a strategy's executions and the
// list of every execution are two scopes of one table), the batch goes the upsert's way.

export class PgBatch implements WriteBatch {
  /** The rows, as COPY's text lines. */
  readonly lines: string[] = [];
  /** Amounts of the batch kept only as text (inexact_amounts). */
  inexact = 0;
  size = 0;
  last?: Record<string, unknown>;
}

export class PgWriter implements CollectionWriter {
  private readonly conform: ReturnType<typeof recordConformer>;
  private readonly checks: RecordChecks;
  private readonly table: string;
  private readonly columns: string;
  /** The temporary tables of this connection: the batch being merged, and the identities a walk saw. */
  private readonly batchTable: string;
  private readonly seenTable: string;
  private readonly identity: string;
  private readonly mergeSql: string;
  /** The scope columns' values of the current walk (COPY's text), and the condition on its rows. */
  private scopeValues: string[] = [];
  private scopeWhere = '';
  private readonly runAt: string;
  private newInexact = 0;
  appendsOnly = false;

  constructor(
    private readonly db: PgConnection,
    private readonly layout: PgTable,
    schemas: Schemas,
    private readonly chain: string,
    runAt: string,
  ) {
    const { collection, fields, scopes } = layout;
    this.conform = recordConformer(fields, fitsNumeric);
    this.checks = new RecordChecks(collection.name, collection.endpoint.identity, { nul: true });
    this.table = storedTable(schemas, collection);
    this.runAt = timeText(Date.parse(runAt) / 1000);
    this.columns = tableColumns(fields, scopes).map(([name]) => quote(name)).join(', ');
    this.batchTable = `pg_temp.${quote(`payrec_batch_${collection.table}`)}`;
    this.seenTable = `pg_temp.${quote(`payrec_seen_${collection.table}`)}`;
    this.identity = collection.endpoint.identity.map(quote).join(', ');
    const key = [CHAIN_COLUMN, ...collection.endpoint.identity].map(quote);
    const content = contentColumns(fields, scopes).map(quote).filter((c) => !key.includes(c));
    this.mergeSql =
      `WITH up AS (INSERT INTO ${this.table} AS t (${this.columns}) SELECT ${this.columns} FROM ${this.batchTable} ` +
      `ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${content.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}, ${quote(LAST_UPDATED_COLUMN)} = EXCLUDED.${quote(LAST_UPDATED_COLUMN)} ` +
      `WHERE (${content.map((c) => `t.${c}`).join(', ')}) IS DISTINCT FROM (${content.map((c) => `EXCLUDED.${c}`).join(', ')}) ` +
      `RETURNING t.xmax = 0 AS inserted, CASE WHEN t.${quote(INEXACT_COLUMN)} IS NULL THEN 0 ELSE (SELECT count(*) FROM jsonb_object_keys(t.${quote(INEXACT_COLUMN)})) END AS inexact) ` +
      `SELECT count(*) FILTER (WHERE inserted) AS new, count(*) FILTER (WHERE NOT inserted) AS updated, coalesce(sum(inexact) FILTER (WHERE inserted), 0) AS inexact FROM up`;
    this.scope();
  }

  scope(param?: string, id?: string): void {
    const { scopes } = this.layout;
    this.scopeValues = scopes.map((s) => (s === param && id !== undefined ? copyText(id) : COPY_NULL));
    this.scopeWhere = scopes.map((s) => ` AND t.${quote(s)} ${s === param && id !== undefined ? `= ${literal(id)}` : 'IS NULL'}`).join('');
  }

  async beginWalk(): Promise<void> {
    const rows = await this.db.rows(`SELECT 1 AS present FROM ${this.table} WHERE ${quote(CHAIN_COLUMN)} = $1 LIMIT 1`, [this.chain]);
    this.appendsOnly = rows.length === 0;
  }

  newBatch(): PgBatch {
    return new PgBatch();
  }

  /** Adds a page's records to `batch` as COPY lines: checked, conformed, with chain, scope and bookkeeping. */
  add(into: WriteBatch, page: Page & { body?: Buffer }): void {
    const batch = into as PgBatch;
    if (page.records.length === 0) return;
    // A lone surrogate or a U+0000 can only come from a \u escape in the body: a body without one needs no walk over every value.
    const records = this.checks.prepare(page.records, page.body !== undefined && !page.body.includes('\\u'));
    const { fields } = this.layout;
    const chain = copyText(this.chain);
    for (const record of records) {
      const left = this.checks.countDrift(this.conform(record));
      const values = [chain];
      for (const f of fields) values.push(copyValue(f.type.kind, record[f.name]));
      values.push(...this.scopeValues, json(left?.extra), json(left?.inexact), this.runAt, this.runAt);
      batch.lines.push(values.join('\t') + '\n');
      if (left?.inexact) batch.inexact += Object.keys(left.inexact).length;
    }
    batch.size += records.length;
    batch.last = records[records.length - 1];
  }

  async write(into: WriteBatch, o: { remember: boolean }): Promise<UpsertCounts> {
    const batch = into as PgBatch;
    if (batch.size === 0) return { new: 0, updated: 0, unchanged: 0 };
    if (this.appendsOnly && !o.remember && (await this.copyStraight(batch))) {
      this.newInexact += batch.inexact;
      return { new: batch.size, updated: 0, unchanged: 0 };
    }
    await this.db.run(`CREATE TEMP TABLE IF NOT EXISTS ${this.batchTable} (LIKE ${this.table})`);
    await this.db.run(`TRUNCATE ${this.batchTable}`);
    await this.db.copyIn(`COPY ${this.batchTable} (${this.columns}) FROM STDIN`, batch.lines);
    const [counts] = await this.db.rows(this.mergeSql);
    if (o.remember) await this.db.run(`INSERT INTO ${this.seenTable} SELECT ${this.identity} FROM ${this.batchTable}`);
    const [fresh, updated] = [Number(counts.new), Number(counts.updated)];
    this.newInexact += Number(counts.inexact);
    return { new: fresh, updated, unchanged: batch.size - fresh - updated };
  }

  /** COPYs a batch straight into the table; false (and nothing written) when a record of it is there already. */
  private async copyStraight(batch: PgBatch): Promise<boolean> {
    await this.db.run('SAVEPOINT payrec_copy');
    try {
      await this.db.copyIn(`COPY ${this.table} (${this.columns}) FROM STDIN`, batch.lines);
    } catch (err) {
      if (sqlState(err) !== '23505') throw err;
      await this.db.run('ROLLBACK TO SAVEPOINT payrec_copy');
      this.appendsOnly = false;
      return false;
    }
    await this.db.run('RELEASE SAVEPOINT payrec_copy');
    return true;
  }

  async startSeen(): Promise<void> {
    await this.db.run(`CREATE TEMP TABLE IF NOT EXISTS ${this.seenTable} AS SELECT ${this.identity} FROM ${this.table} WITH NO DATA`);
    await this.db.run(`TRUNCATE ${this.seenTable}`);
  }

  async removeUnseen(): Promise<number> {
    return this.db.run(`DELETE FROM ${this.table} AS t WHERE t.${quote(CHAIN_COLUMN)} = $1 AND NOT EXISTS (SELECT 1 FROM ${this.seenTable} AS s WHERE ${this.sameIdentity()})`, [this.chain]);
  }

  async removeUnseenBetween(from: number, to: number): Promise<number> {
    return this.db.run(
      `DELETE FROM ${this.table} AS t WHERE t.${quote(CHAIN_COLUMN)} = $1${this.scopeWhere} AND t."timestamp" BETWEEN to_timestamp($2) AND to_timestamp($3) ` +
        `AND NOT EXISTS (SELECT 1 FROM ${this.seenTable} AS s WHERE ${this.sameIdentity()})`,
      [this.chain, from, to],
    );
  }

  private sameIdentity(): string {
    return this.layout.collection.endpoint.identity.map((f) => `s.${quote(f)} = t.${quote(f)}`).join(' AND ');
  }

  get repaired(): readonly string[] {
    return this.checks.repaired;
  }

  get drift(): ReadonlyMap<string, number> {
    return this.checks.drift;
  }

  get inexact(): number {
    return this.newInexact;
  }
}

/** extra_fields or inexact_amounts as a COPY value: JSON, or NULL when there is nothing. */
const json = (value: Record<string, unknown> | undefined): string => (value === undefined ? COPY_NULL : copyText(JSON.stringify(value)));
