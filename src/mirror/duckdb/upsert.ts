import { MalformedResponseError } from '../../core/runtime/errors.js';
import { identityOf, type Page } from '../../core/lists/paginate.js';
import { identityHashSql } from './identity-hash.js';
import type { TableLayout } from './layout.js';
import { hasSurrogateEscape, recordBytes } from './record-bytes.js';
import { RowSources } from './rows.js';
import { fitsDecimal } from './amounts.js';
import { contentColumns, ident, recordConformer } from './schema.js';
import { CHAIN_COLUMN, FIRST_SEEN_COLUMN, IDENTITY_HASH_COLUMN, LAST_UPDATED_COLUMN } from '../fields.js';
import { RecordChecks } from '../record-checks.js';
import type { MirrorDb } from './connection.js';
import type { CollectionWriter, UpsertCounts, WriteBatch } from '../engine.js';

// Writes batches of records into their table by identity: new ones are inserted,
// known ones updated only when their content changed (a status that moved from
// pending to confirmed), the rest left alone, and each is counted.
//
// A walk yields each record once (the paginator drops repeats by identity), so a
// batch never holds a record twice, and while a walk fills a table that held no row
// of its chain when the walk began (a first sync), every record is new: batches go
// straight from their files into the table. Otherwise a batch is staged in a
// temporary table and its known records are found first. That search is what costs:
// a join on the identity columns (text) reads the whole table, and a primary-key index
// triples the cost of every insert. So each row carries a hash of its identity
// (identity-hash.ts): the rows whose hash is among the batch's are found by scanning
// one integer column (about 10 ms a million rows), and compared by the identity
// itself. A record is inserted only when no row has its identity, so a table never
// holds a record twice.

/** Records on their way to a table (see Upserter.add). */
export class Batch implements WriteBatch {
  /** Records of pages that DuckDB takes as the service sent them (rows.ts). */
  readonly pages: Buffer[] = [];
  /** Records that payrec writes out, completed, and how many of each one's amounts are inexact (amounts.ts). */
  readonly records: Record<string, unknown>[] = [];
  readonly inexact: number[] = [];
  size = 0;
  /** The batch's last record in walk order. */
  last?: Record<string, unknown>;
}

/** The batch's rows, staged when its known records must be found; and those of them that are known, and changed. */
const BATCH = 'payrec_batch';
const KNOWN = 'payrec_known';
const CHANGED = 'payrec_changed';
/** Identities seen by a walk, for removing records the service no longer lists. */
const SEEN = 'payrec_seen';

export class Upserter implements CollectionWriter {
  private readonly conform: ReturnType<typeof recordConformer>;
  private readonly rows: RowSources;
  /** Full table rows from a SELECT of a file's rows: chain, identity hash and bookkeeping added. */
  private readonly completed: (select: string) => string;
  private newInexact = 0;
  private readonly identity: readonly string[];
  private readonly key: (record: Record<string, unknown>) => string;
  private readonly table: string;
  private readonly chainIs: string;
  /** The scope columns' values for the current walk (see scope). */
  private scopeValues = '';
  /** The rows of the current walk's scope, as a condition on the table `t` (see scope). */
  private scopeWhere = '';
  private readonly knownSql: string;
  private readonly insertNewSql: string;
  private readonly changedSql: string;
  private readonly updateSql: string;
  /**
   * Whether every record of the current walk becomes a new row: the table held no row of
   * its chain when the walk began (see beginWalk). Such a walk writes without lookups.
   */
  appendsOnly = false;
  /** Paths (without list indexes) that held an unknown field or a value of another type, with counts. */
  get drift(): ReadonlyMap<string, number> {
    return this.checks.drift;
  }
  private readonly checks: RecordChecks;

  constructor(
    private readonly db: MirrorDb,
    private readonly layout: TableLayout,
    chain: string,
    /** The run's timestamp (ISO 8601): first_seen of new records, last_updated of changed ones. */
    runAt: string,
  ) {
    const { fields, collection } = layout;
    this.conform = recordConformer(fields, fitsDecimal);
    this.checks = new RecordChecks(collection.name, collection.endpoint.identity);
    this.rows = new RowSources(fields);
    this.identity = collection.endpoint.identity;
    this.key = identityOf(collection.endpoint);
    const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
    const at = `${literal(runAt)}::TIMESTAMPTZ`;
    const hash = ident(IDENTITY_HASH_COLUMN);
    const identityHash = identityHashSql(literal(chain), this.identity.map(ident));
    this.completed = (select) =>
      `SELECT *, ${literal(chain)} AS ${ident(CHAIN_COLUMN)}${this.scopeValues}, ${identityHash} AS ${hash}, ${at} AS ${ident(FIRST_SEEN_COLUMN)}, ${at} AS ${ident(LAST_UPDATED_COLUMN)} FROM (${select})`;
    this.scope();
    const table = (this.table = layout.storage);
    const keys = [CHAIN_COLUMN, ...this.identity].map(ident);
    const content = contentColumns(fields, layout.scopes).map(ident);
    this.chainIs = `${ident(CHAIN_COLUMN)} = ${literal(chain)}`;
    const same = (a: string, b: string) => [hash, ...keys].map((k) => `${a}.${k} = ${b}.${k}`).join(' AND ');
    // Candidates by hash, then the identity itself.
    this.knownSql =
      `CREATE OR REPLACE TEMP TABLE ${KNOWN} AS SELECT b.* FROM ${BATCH} AS b ` +
      `JOIN (SELECT ${[hash, ...keys].join(', ')} FROM ${table} WHERE ${hash} IN (SELECT ${hash} FROM ${BATCH}) AND ${this.chainIs}) AS t ON ${same('t', 'b')}`;
    this.insertNewSql = `INSERT INTO ${table} BY NAME SELECT * FROM ${BATCH} AS b WHERE NOT EXISTS (SELECT 1 FROM ${KNOWN} AS k WHERE ${same('k', 'b')})`;
    this.changedSql =
      `CREATE OR REPLACE TEMP TABLE ${CHANGED} AS SELECT s.* FROM ${KNOWN} AS s ` +
      `JOIN (SELECT * FROM ${table} WHERE ${hash} IN (SELECT ${hash} FROM ${KNOWN}) AND ${this.chainIs}) AS t ON ${same('t', 's')} ` +
      `WHERE (${content.map((c) => `t.${c}`).join(', ')}) IS DISTINCT FROM (${content.map((c) => `s.${c}`).join(', ')})`;
    const values = content.filter((c) => !keys.includes(c));
    this.updateSql =
      `UPDATE ${table} AS t SET ${values.map((c) => `${c} = k.${c}`).join(', ')}, ${ident(LAST_UPDATED_COLUMN)} = k.${ident(LAST_UPDATED_COLUMN)} ` +
      `FROM ${CHANGED} AS k WHERE ${same('t', 'k')}`;
  }

  newBatch(): Batch {
    return new Batch();
  }

  /**
   * The scope of the next walk: a record read through one plan's list carries the plan
   * in the scope column (`planId` of a billing); read otherwise, none.
   */
  scope(param?: string, id?: string): void {
    const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
    this.scopeValues = this.layout.scopes.map((s) => `, ${s === param && id !== undefined ? literal(id) : 'NULL'}::VARCHAR AS ${ident(s)}`).join('');
    this.scopeWhere = this.layout.scopes.map((s) => ` AND t.${ident(s)} ${s === param && id !== undefined ? `= ${literal(id)}` : 'IS NULL'}`).join('');
  }

  /** Notes whether the table holds any row of the chain, before a walk's first batch. */
  async beginWalk(): Promise<void> {
    const rows = await this.db.rows(`SELECT 1 AS present FROM ${this.table} WHERE ${this.chainIs} LIMIT 1`);
    this.appendsOnly = rows.length === 0;
  }

  /**
   * Adds a page's records to `batch`: as the page's bytes when DuckDB can take them as
   * they are (each record fits its schema, every amount DECIMAL(38,18)), else conformed
   * and completed for payrec to write out.
   */
  add(into: WriteBatch, page: Page & { body?: Buffer }): void {
    const batch = into as Batch;
    if (page.records.length === 0) return;
    // A lone surrogate can only come from an escape of one in the body (bytes decode to
    // whole characters or U+FFFD): a body without one needs no walk over every value.
    const records = this.checks.prepare(page.records, page.body !== undefined && !hasSurrogateEscape(page.body));
    batch.size += records.length;
    batch.last = records[records.length - 1];
    const extras = records.map((r) => this.checks.countDrift(this.conform(r)));
    const bytes = page.body && this.rows.takesPageBytes && extras.every((x) => x === undefined) ? recordBytes(page.body) : undefined;
    if (bytes) return void batch.pages.push(bytes);
    records.forEach((r, i) => {
      batch.inexact.push(this.rows.completeRecord(r, extras[i]));
      batch.records.push(r);
    });
  }

  /** Upserts `batch` (inside the caller's transaction); `remember` records the identities for removeUnseen. */
  async write(into: WriteBatch, o: { remember?: boolean } = {}): Promise<UpsertCounts> {
    const batch = into as Batch;
    if (batch.size === 0) return { new: 0, updated: 0, unchanged: 0 };
    const pages = batch.pages.length > 0 ? jsonArray(batch.pages) : undefined;
    const records = batch.records.length > 0 ? JSON.stringify(batch.records) : undefined;
    try {
      return await this.writeFiles(batch, pages, records, o);
    } catch (err) {
      if (/maximum_object_size/.test(err instanceof Error ? err.message : '')) throw this.tooLarge(pages && Buffer.concat(pages), batch.records);
      throw err;
    }
  }

  /**
   * DuckDB's JSON reader takes records up to its maximum_object_size (16 MB); the API's
   * responses may be larger (32 MB). Such a record is no payment record payrec can keep:
   * exit 6, naming it, with nothing of its batch written.
   */
  private tooLarge(pages: Buffer | undefined, records: Record<string, unknown>[]): MalformedResponseError {
    const all = [...(pages ? (JSON.parse(pages.toString('utf8')) as Record<string, unknown>[]) : []), ...records];
    let largest = all[0];
    let size = 0;
    for (const r of all) {
      const n = Buffer.byteLength(JSON.stringify(r));
      if (n > size) [largest, size] = [r, n];
    }
    return new MalformedResponseError(
      `a ${this.layout.collection.name} record (${this.checks.nameOf(largest)}) holds a value larger than the mirror's JSON reader takes (16 MB); nothing of its batch was written`,
      'the service sent a record no payment record needs to be; the records before its batch are committed',
    );
  }

  private async writeFiles(batch: Batch, pages: Buffer[] | undefined, records: string | undefined, o: { remember?: boolean }): Promise<UpsertCounts> {
    return this.db.withFile(pages, (pagesFile) =>
      this.db.withFile(records, async (recordsFile) => {
        const selects = [pagesFile && this.rows.fromPages(pagesFile), recordsFile && this.rows.fromRecords(recordsFile)].filter((s) => s !== undefined);
        const rows = this.completed(selects.join(' UNION ALL BY NAME '));
        if (this.appendsOnly && !o.remember) {
          await this.db.run(`INSERT INTO ${this.table} BY NAME ${rows}`);
          this.newInexact += sum(batch.inexact);
          return { new: batch.size, updated: 0, unchanged: 0 };
        }
        return this.merge(batch, rows, o.remember === true);
      }),
    );
  }

  /** Stages a batch's rows, inserts its new records and updates its changed ones. */
  private async merge(batch: Batch, rows: string, remember: boolean): Promise<UpsertCounts> {
    await this.db.run(`CREATE OR REPLACE TEMP TABLE ${BATCH} AS ${rows}`);
    await this.db.run(this.knownSql);
    const fresh = await this.db.changed(this.insertNewSql);
    if (sum(batch.inexact) > 0) {
      // Only amounts of new records are reported: a known record's were reported when it was new.
      const known = new Set((await this.db.rows(`SELECT ${this.identity.map(ident).join(', ')} FROM ${KNOWN}`)).map((row) => this.key(row)));
      batch.records.forEach((r, i) => (this.newInexact += known.has(this.key(r)) ? 0 : batch.inexact[i]));
    }
    let updated = 0;
    if (batch.size > fresh) {
      await this.db.run(this.changedSql);
      updated = Number((await this.db.rows(`SELECT count(*)::INTEGER AS n FROM ${CHANGED}`))[0].n);
      if (updated > 0) await this.db.run(this.updateSql);
    }
    if (remember) await this.db.run(`INSERT INTO ${SEEN} SELECT ${this.identity.map(ident).join(', ')} FROM ${BATCH}`);
    return { new: fresh, updated, unchanged: batch.size - fresh - updated };
  }

  /** Records whose text held a lone UTF-16 surrogate, stored with U+FFFD in its place: how they are named. */
  get repaired(): readonly string[] {
    return this.checks.repaired;
  }

  /** Amounts of new records that DECIMAL(38,18) could not hold (their text is kept). */
  get inexact(): number {
    return this.newInexact;
  }


  /** Starts recording which identities a walk sees (see removeUnseen). */
  async startSeen(): Promise<void> {
    await this.db.run(`CREATE OR REPLACE TEMP TABLE ${SEEN} AS SELECT ${this.identity.map(ident).join(', ')} FROM ${this.table} LIMIT 0`);
  }

  /**
   * Deletes the records of the chain and the walk's scope stamped from `from` to `to`
   * (inclusive Unix seconds) that the walk over that window did not see: they vanished
   * from the service. Returns how many.
   */
  async removeUnseenBetween(from: number, to: number): Promise<number> {
    const gone = await this.db.changed(
      `DELETE FROM ${this.table} AS t WHERE t.${this.chainIs}${this.scopeWhere} AND t."timestamp" BETWEEN to_timestamp(${from}) AND to_timestamp(${to}) ` +
        `AND NOT EXISTS (SELECT 1 FROM ${SEEN} s WHERE ${this.identity.map((f) => `s.${ident(f)} = t.${ident(f)}`).join(' AND ')})`,
    );
    await this.db.run(`DROP TABLE IF EXISTS ${SEEN}`);
    return gone;
  }

  /** Deletes the chain's records that the walk did not see; returns how many. */
  async removeUnseen(): Promise<number> {
    const gone = await this.db.changed(
      `DELETE FROM ${this.table} AS t WHERE t.${this.chainIs} AND NOT EXISTS (SELECT 1 FROM ${SEEN} s WHERE ${this.identity.map((f) => `s.${ident(f)} = t.${ident(f)}`).join(' AND ')})`,
    );
    await this.db.run(`DROP TABLE IF EXISTS ${SEEN}`);
    return gone;
  }
}

/** One JSON array of the elements of several arrays (each given without its brackets), as pieces to write one after another. */
function jsonArray(elements: Buffer[]): Buffer[] {
  const parts: Buffer[] = [OPEN];
  for (const e of elements) parts.push(e, COMMA);
  parts[parts.length - 1] = CLOSE;
  return parts;
}

const [OPEN, COMMA, CLOSE] = ['[', ',', ']'].map((c) => Buffer.from(c));

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
