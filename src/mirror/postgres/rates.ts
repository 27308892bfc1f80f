import { RATES_TABLE, tokenColumnOf, WRITTEN_RATE_FIELDS, type RateFilter, type StoredRate, type TokenSpan } from '../rates.js';
import type { PgConnection } from './connection.js';
import { ROUND_KEY, storedTable, TABLES, type Schemas } from './layout.js';
import { quote } from './types.js';

// The `rates` table on PostgreSQL (../rates.ts declares it): in the schema of the views,
// beside chain_verdicts, so a reader role (db grant-reader) and `payrec sql` join it as
// it is (its DDL is layout.ts' ratesDdl). Times are TIMESTAMPTZ, rates, round ids and
// answers exact text.

export class PgRates {
  private readonly table: string;

  constructor(
    private readonly db: PgConnection,
    private readonly schemas: Schemas,
  ) {
    this.table = `${schemas.view}.${RATES_TABLE}`;
  }

  /** Inserts `rows` in one statement (in the caller's transaction); a Chainlink round already stored is left as it is. */
  async store(rows: readonly StoredRate[]): Promise<number> {
    if (rows.length === 0) return 0;
    const names = WRITTEN_RATE_FIELDS.map((f) => quote(f.name)).join(', ');
    // Times travel as Unix seconds (BIGINT) and become TIMESTAMPTZ here.
    const shapes = WRITTEN_RATE_FIELDS.map(({ name, type }) => `${quote(name)} ${type.kind === 'time' || type.kind === 'integer' ? 'BIGINT' : 'TEXT'}`).join(', ');
    const values = WRITTEN_RATE_FIELDS.map(({ name, type }) => (type.kind === 'time' ? `to_timestamp(v.${quote(name)})` : `v.${quote(name)}`)).join(', ');
    return this.db.run(
      `INSERT INTO ${this.table} (${names}, "storedAt")
       SELECT ${values}, now() FROM jsonb_to_recordset($1::JSONB) AS v(${shapes})
       ON CONFLICT (${ROUND_KEY}) WHERE feed IS NOT NULL DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }

  dropImport(file: string): Promise<number> {
    return this.db.run(`DELETE FROM ${this.table} WHERE file = $1`, [file]);
  }

  async read(f: RateFilter): Promise<StoredRate[]> {
    const [found] = await this.db.rows('SELECT to_regclass($1) IS NOT NULL AS present', [this.table]);
    if (found.present !== 't') return [];
    const where: string[] = [];
    const params: (string | number)[] = [];
    const param = (v: string | number) => (params.push(v), `$${params.length}`);
    if (f.chain !== undefined) where.push(`chain IN (${param(f.chain)}, '*', 'fiat')`);
    if (f.token !== undefined) where.push(`token = ${param(f.token)}`);
    if (f.from !== undefined) where.push(`(time IS NULL OR time >= to_timestamp(${param(f.from)}))`);
    if (f.to !== undefined) where.push(`(time IS NULL OR time <= to_timestamp(${param(f.to)}))`);
    const select = WRITTEN_RATE_FIELDS.map(({ name, type }) => (type.kind === 'time' ? `extract(epoch FROM ${quote(name)})::BIGINT AS ${quote(name)}` : quote(name)));
    const rows = await this.db.rows(
      `SELECT ${select.join(', ')} FROM ${this.table}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY chain, token, currency, time NULLS FIRST, file, line, feed, length("roundId"), "roundId"`,
      params,
    );
    return rows.map((r) => {
      const out: Record<string, unknown> = {};
      for (const { name, type } of WRITTEN_RATE_FIELDS) {
        const v = r[name];
        out[name] = v === null || v === undefined ? null : type.kind === 'text' ? v : Number(v);
      }
      return out as unknown as StoredRate;
    });
  }

  async tokenSpans(chain: string): Promise<TokenSpan[]> {
    const parts = TABLES.flatMap(({ collection, fields }) => {
      const token = tokenColumnOf(fields);
      return token ? [`SELECT ${quote(token)} AS token, timestamp FROM ${storedTable(this.schemas, collection)} WHERE chain = $1 AND ${quote(token)} IS NOT NULL AND timestamp IS NOT NULL`] : [];
    });
    const rows = await this.db.rows(
      `SELECT token, extract(epoch FROM min(timestamp))::BIGINT AS first, extract(epoch FROM max(timestamp))::BIGINT AS last FROM (${parts.join(' UNION ALL ')}) AS t GROUP BY token ORDER BY token`,
      [chain],
    );
    return rows.map((r) => ({ token: r.token!, first: Number(r.first), last: Number(r.last) }));
  }
}
