import { MalformedResponseError } from '../core/runtime/errors.js';
import { identityOf } from '../core/lists/paginate.js';
import { identityHasher } from './identity-hash.js';
import type { TableLayout } from './layout.js';
import { RowJson, type RowExtras } from './rows.js';
import { CHAIN_COLUMN, contentColumns, FIRST_SEEN_COLUMN, ident, IDENTITY_HASH_COLUMN, LAST_UPDATED_COLUMN, recordConformer } from './schema.js';
import type { MirrorDb } from './store.js';

// Writes a batch of records into their table by identity: new ones are inserted,
// known ones updated only when their content changed (a status that moved from
// pending to confirmed), the rest left alone, and each is counted.
//
// Finding the known ones is what costs: a join on the identity columns (text) reads
// the whole table, and a primary-key index triples the cost of every insert. So each
// row carries a hash of its identity (identity-hash.ts): the rows whose hash is among
// the batch's are found by scanning one integer column (about 10 ms a million rows),
// and compared by the identity itself. A record is inserted only when no row has its
// identity, so a table never holds a record twice. New records (all of them, in a
// first sync) go straight from their JSON text into the table (rows.ts); known ones go
// through a staging table, compared column by column with their rows, and only changed
// rows are updated.

export interface UpsertCounts {
  new: number;
  updated: number;
  unchanged: number;
}

/** The identity hashes of a batch. */
const HASHES = 'payrec_hashes';
/** Known records of the batch, and those of them that changed. */
const KNOWN = 'payrec_known';
const CHANGED = 'payrec_changed';
/** Identities seen by a walk, for removing records the service no longer lists. */
const SEEN = 'payrec_seen';

export class Upserter {
  private readonly conform: ReturnType<typeof recordConformer>;
  private readonly rows: RowJson;
  /** SELECT of the rows in a JSON file (its quoted path): every column of the table. */
  private readonly rowsFrom: (quotedPath: string) => string;
  private newInexact = 0;
  private readonly identity: readonly string[];
  private readonly key: (record: Record<string, unknown>) => string;
  private readonly hashOf: (record: Record<string, unknown>) => number;
  private readonly table: string;
  private readonly knownSql: string;
  private readonly changedSql: string;
  private readonly updateSql: string;
  /** Paths (without list indexes) that held an unknown field or a value of another type, with counts. */
  readonly drift = new Map<string, number>();

  constructor(
    private readonly db: MirrorDb,
    private readonly layout: TableLayout,
    private readonly chain: string,
    /** The run's timestamp (ISO 8601): first_seen of new records, last_updated of changed ones. */
    runAt: string,
  ) {
    const { fields, collection } = layout;
    this.conform = recordConformer(fields);
    this.rows = new RowJson(fields);
    this.identity = collection.endpoint.identity;
    this.key = identityOf(collection.endpoint);
    this.hashOf = identityHasher(chain, this.identity);
    const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
    const at = `${literal(runAt)}::TIMESTAMPTZ`;
    const columns = `{${Object.entries(this.rows.columns).map(([k, t]) => `${literal(k)}: ${literal(t)}`).join(', ')}}`;
    const select = `SELECT *, ${literal(chain)} AS ${ident(CHAIN_COLUMN)}, ${at} AS ${ident(FIRST_SEEN_COLUMN)}, ${at} AS ${ident(LAST_UPDATED_COLUMN)}`;
    this.rowsFrom = (file) => `${select} FROM read_json(${file}, format = 'array', columns = ${columns})`;
    const table = (this.table = ident(collection.table));
    const keys = [CHAIN_COLUMN, ...this.identity].map(ident);
    const content = contentColumns(fields).map(ident);
    const hash = ident(IDENTITY_HASH_COLUMN);
    const chainIs = `${ident(CHAIN_COLUMN)} = ${literal(chain)}`;
    const same = (a: string, b: string) => keys.map((k) => `${a}.${k} = ${b}.${k}`).join(' AND ');
    // Candidates by hash (the batch's, in a temporary table), then compared by identity in JavaScript.
    this.knownSql = `SELECT ${this.identity.map(ident).join(', ')} FROM ${table} WHERE ${hash} IN (SELECT v FROM ${HASHES}) AND ${chainIs}`;
    this.changedSql =
      `CREATE OR REPLACE TEMP TABLE ${CHANGED} AS SELECT s.* FROM ${KNOWN} AS s ` +
      `JOIN (SELECT * FROM ${table} WHERE ${hash} IN (SELECT ${hash} FROM ${KNOWN}) AND ${chainIs}) AS t ON ${same('t', 's')} ` +
      `WHERE (${content.map((c) => `t.${c}`).join(', ')}) IS DISTINCT FROM (${content.map((c) => `s.${c}`).join(', ')})`;
    const values = content.filter((c) => !keys.includes(c));
    this.updateSql =
      `UPDATE ${table} AS t SET ${values.map((c) => `${c} = k.${c}`).join(', ')}, ${ident(LAST_UPDATED_COLUMN)} = k.${ident(LAST_UPDATED_COLUMN)} ` +
      `FROM ${CHANGED} AS k WHERE t.${hash} = k.${hash} AND ${same('t', 'k')}`;
  }

  /** Upserts `batch` (inside the caller's transaction); `remember` records the identities for removeUnseen. */
  async write(batch: Record<string, unknown>[], o: { remember?: boolean } = {}): Promise<UpsertCounts> {
    if (batch.length === 0) return { new: 0, updated: 0, unchanged: 0 };
    this.checkIdentities(batch);
    const records = latestOfEach(batch, this.key);
    const extras = records.map((r): RowExtras => ({ extra: this.conformed(r), identityHash: this.hashOf(r) }));
    await this.db.tempIntegers(HASHES, extras.map((x) => x.identityHash));
    const known = new Set((await this.db.rows(this.knownSql)).map((row) => this.key(row)));
    const fresh: number[] = [];
    const existing: number[] = [];
    records.forEach((r, i) => (known.has(this.key(r)) ? existing : fresh).push(i));
    if (fresh.length > 0) {
      const seen = this.rows.inexact;
      const text = this.rowsText(records, extras, fresh);
      this.newInexact += this.rows.inexact - seen;
      await this.db.withFile(text, (file) => this.db.run(`INSERT INTO ${this.table} BY NAME ${this.rowsFrom(file)}`));
    }
    let updated = 0;
    if (existing.length > 0) {
      await this.db.run(`CREATE OR REPLACE TEMP TABLE ${KNOWN} AS SELECT * FROM ${this.table} LIMIT 0`);
      await this.db.withFile(this.rowsText(records, extras, existing), (file) => this.db.run(`INSERT INTO ${KNOWN} BY NAME ${this.rowsFrom(file)}`));
      await this.db.run(this.changedSql);
      updated = Number((await this.db.rows(`SELECT count(*)::INTEGER AS n FROM ${CHANGED}`))[0].n);
      if (updated > 0) await this.db.run(this.updateSql);
    }
    if (o.remember) {
      const identities = JSON.stringify(records.map((r) => Object.fromEntries(this.identity.map((f) => [f, r[f]]))));
      const structure = JSON.stringify([Object.fromEntries(this.identity.map((f) => [f, 'VARCHAR']))]);
      await this.db.run(`INSERT INTO ${SEEN} SELECT unnest(from_json($1, '${structure}'), recursive := true)`, [identities]);
    }
    return { new: fresh.length, updated, unchanged: batch.length - fresh.length - updated };
  }

  /** Amounts of new records that the exact form could not hold (their text is kept). */
  get inexact(): number {
    return this.newInexact;
  }

  private rowsText(records: Record<string, unknown>[], extras: RowExtras[], picked: number[]): string {
    const all = picked.length === records.length;
    return this.rows.text(all ? records : picked.map((i) => records[i]), all ? extras : picked.map((i) => extras[i]));
  }

  /** Conforms a record to its fields, counting what went into extra_fields. */
  private conformed(record: Record<string, unknown>): Record<string, unknown> | undefined {
    const extra = this.conform(record);
    if (extra) {
      for (const path of Object.keys(extra)) {
        const key = path.replace(/\[\d+\]/g, '[]');
        this.drift.set(key, (this.drift.get(key) ?? 0) + 1);
      }
    }
    return extra;
  }

  private checkIdentities(batch: Record<string, unknown>[]): void {
    for (const r of batch) {
      for (const f of this.identity) {
        if (typeof r[f] !== 'string' || r[f] === '') {
          throw new MalformedResponseError(
            `a ${this.layout.collection.name} record has no usable "${f}", the field that identifies it; the mirror cannot tell such records apart`,
            'the service may have changed; nothing of this batch was written',
          );
        }
      }
    }
  }

  /** Starts recording which identities a walk sees (see removeUnseen). */
  async startSeen(): Promise<void> {
    await this.db.run(`CREATE OR REPLACE TEMP TABLE ${SEEN} AS SELECT ${this.identity.map(ident).join(', ')} FROM ${this.table} LIMIT 0`);
  }

  /** Deletes the chain's records that the walk did not see; returns how many. */
  async removeUnseen(): Promise<number> {
    const gone = await this.db.rows(
      `DELETE FROM ${this.table} AS t WHERE t.${ident(CHAIN_COLUMN)} = $1 AND NOT EXISTS (SELECT 1 FROM ${SEEN} s WHERE ${this.identity.map((f) => `s.${ident(f)} = t.${ident(f)}`).join(' AND ')}) RETURNING 1`,
      [this.chain],
    );
    await this.db.run(`DROP TABLE IF EXISTS ${SEEN}`);
    return gone.length;
  }
}

/** A record listed twice in one batch is written once, as it was last listed. */
function latestOfEach(batch: Record<string, unknown>[], key: (r: Record<string, unknown>) => string): Record<string, unknown>[] {
  const ids = new Set<string>();
  for (const r of batch) ids.add(key(r));
  if (ids.size === batch.length) return batch;
  const last = new Map<string, Record<string, unknown>>();
  for (const r of batch) last.set(key(r), r);
  return [...last.values()];
}
