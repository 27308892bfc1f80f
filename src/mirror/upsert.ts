import { MalformedResponseError } from '../core/runtime/errors.js';
import type { TableLayout } from './layout.js';
import {
  CHAIN_COLUMN,
  contentColumns,
  contentProjection,
  FIRST_SEEN_COLUMN,
  ident,
  jsonStructure,
  LAST_UPDATED_COLUMN,
  recordConformer,
} from './schema.js';
import type { MirrorDb } from './store.js';

// Writes a batch of records into their table by identity: new ones are inserted,
// known ones updated only when their content changed (a status that moved from
// pending to confirmed), the rest left alone, and each is counted. The records
// travel to DuckDB as one JSON text and are taken apart by DuckDB's own JSON reader;
// the exact amount columns are computed there too.

export interface UpsertCounts {
  new: number;
  updated: number;
  unchanged: number;
}

const BATCH = 'payrec_batch';
/** Identities seen by a walk, for removing records the service no longer lists. */
const SEEN = 'payrec_seen';

export class Upserter {
  private readonly conform: (record: Record<string, unknown>) => string[];
  private readonly identity: readonly string[];
  private readonly stageSql: string;
  private readonly mergeSql: string;
  /** Paths (without list indexes) that held an unknown field or a value of another type, with counts. */
  readonly drift = new Map<string, number>();

  constructor(
    private readonly db: MirrorDb,
    private readonly layout: TableLayout,
    chain: string,
    /** The run's timestamp (ISO 8601): first_seen of new records, last_updated of changed ones. */
    runAt: string,
  ) {
    const { fields, collection } = layout;
    this.conform = recordConformer(fields);
    this.identity = collection.endpoint.identity;
    const table = ident(collection.table);
    const keys = [CHAIN_COLUMN, ...this.identity].map(ident);
    const content = contentColumns(fields).map(ident);
    const values = content.filter((c) => !keys.includes(c));
    const structure = JSON.stringify(jsonStructure(fields)).replaceAll("'", "''");
    const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;
    // json_each numbers the records (key); a record listed twice in one batch counts once, the later one.
    this.stageSql =
      `CREATE OR REPLACE TEMP TABLE ${BATCH} AS SELECT ${literal(chain)} AS ${ident(CHAIN_COLUMN)}, ${contentProjection(fields).join(', ')} ` +
      `FROM (SELECT key::INTEGER AS ord, from_json(value, '${structure}') AS r FROM json_each($1)) ` +
      `QUALIFY row_number() OVER (PARTITION BY ${this.identity.map((f) => `r.${ident(f)}`).join(', ')} ORDER BY ord DESC) = 1`;
    const at = `${literal(runAt)}::TIMESTAMPTZ`;
    this.mergeSql =
      `MERGE INTO ${table} AS t USING ${BATCH} AS s ON (${keys.map((k) => `t.${k} = s.${k}`).join(' AND ')}) ` +
      `WHEN MATCHED AND (${content.map((c) => `t.${c}`).join(', ')}) IS DISTINCT FROM (${content.map((c) => `s.${c}`).join(', ')}) ` +
      `THEN UPDATE SET ${values.map((c) => `${c} = s.${c}`).join(', ')}, ${ident(LAST_UPDATED_COLUMN)} = ${at} ` +
      `WHEN NOT MATCHED THEN INSERT (${[...keys, ...values, ident(FIRST_SEEN_COLUMN), ident(LAST_UPDATED_COLUMN)].join(', ')}) ` +
      `VALUES (${[...keys, ...values].map((c) => `s.${c}`).join(', ')}, ${at}, ${at}) ` +
      `RETURNING merge_action`;
  }

  /** Upserts `records` (inside the caller's transaction). */
  async write(records: Record<string, unknown>[], remember = false): Promise<UpsertCounts> {
    if (records.length === 0) return { new: 0, updated: 0, unchanged: 0 };
    for (const r of records) {
      for (const f of this.identity) {
        if (r[f] === null || r[f] === undefined || typeof r[f] === 'object') {
          throw new MalformedResponseError(
            `a ${this.layout.collection.name} record has no usable "${f}", the field that identifies it; the mirror cannot tell such records apart`,
            'the service may have changed; nothing of this batch was written',
          );
        }
      }
      for (const path of this.conform(r)) {
        const key = path.replace(/\[\d+\]/g, '[]');
        this.drift.set(key, (this.drift.get(key) ?? 0) + 1);
      }
    }
    await this.db.run(this.stageSql, [JSON.stringify(records)]);
    const actions = await this.db.rows(this.mergeSql);
    if (remember) await this.rememberBatch();
    const inserted = actions.filter((a) => a.merge_action === 'INSERT').length;
    const updated = actions.length - inserted;
    return { new: inserted, updated, unchanged: records.length - inserted - updated };
  }

  /** Starts recording which identities a walk sees (see removeUnseen). */
  async startSeen(): Promise<void> {
    const keys = [CHAIN_COLUMN, ...this.identity].map(ident).join(', ');
    await this.db.run(`CREATE OR REPLACE TEMP TABLE ${SEEN} AS SELECT ${keys} FROM ${ident(this.layout.collection.table)} LIMIT 0`);
  }

  private async rememberBatch(): Promise<void> {
    const keys = [CHAIN_COLUMN, ...this.identity].map(ident).join(', ');
    await this.db.run(`INSERT INTO ${SEEN} SELECT ${keys} FROM ${BATCH}`);
  }

  /** Deletes the chain's records that the walk did not see; returns how many. */
  async removeUnseen(chain: string): Promise<number> {
    const keys = [CHAIN_COLUMN, ...this.identity].map(ident);
    const table = ident(this.layout.collection.table);
    const gone = await this.db.rows(
      `DELETE FROM ${table} AS t WHERE t.chain = $1 AND NOT EXISTS (SELECT 1 FROM ${SEEN} s WHERE ${keys.map((k) => `s.${k} = t.${k}`).join(' AND ')}) RETURNING 1`,
      [chain],
    );
    await this.db.run(`DROP TABLE IF EXISTS ${SEEN}`);
    return gone.length;
  }
}
