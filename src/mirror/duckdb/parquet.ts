import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { InterruptedError, MalformedResponseError } from '../../core/runtime/errors.js';
import { printable } from '../../core/output/sanitize.js';
import { LAYOUTS } from './layout.js';
import { ident } from './schema.js';
import { CHAIN_COLUMN, LAST_UPDATED_COLUMN } from '../fields.js';
import { EXPORTS_TABLE } from './state.js';
import type { MirrorDb } from './connection.js';
import type { ParquetExport } from '../engine.js';
import { unwritable } from '../../core/runtime/trust.js';

// --parquet DIR: the mirror as Hive-partitioned Parquet, the layout Spark, Trino,
// Athena and BigQuery read as one table per directory:
//   DIR/<table>/chain=<chain>/month=<YYYY-MM>/data.parquet
// chain and month live in the path only (readers add them as columns). A partition is
// rewritten only when it changed since the last export to DIR: its row count or its
// newest last_updated differ from what the mirror noted then (an insert or an update
// moves the latter, a removal the former), or its file is gone. Each file is written
// beside its place and renamed over it, so a reader never sees half a file.
// Files are written from the views users query: amounts are DECIMAL(38,18) and times
// TIMESTAMP WITH TIME ZONE (Parquet's decimal and UTC-adjusted timestamp types, which
// Spark, Trino and pyarrow read as such), and a partition holding an amount that
// DECIMAL(38,18) cannot hold is refused, as any total over it is (layout.ts).

const FILE = 'data.parquet';
/** Hive's name for a partition whose value is NULL (a record without a timestamp). */
const NULL_PARTITION = '__HIVE_DEFAULT_PARTITION__';

/** The UTC month of a record, from its timestamp (or createdAt for short urls), whatever the session's time zone. */
function monthSql(fields: readonly { name: string }[]): string {
  const time = ['timestamp', 'createdAt'].find((name) => fields.some((f) => f.name === name));
  return time === undefined ? 'NULL' : `strftime(timezone('UTC', ${ident(time)}), '%Y-%m')`;
}

export async function exportParquet(db: MirrorDb, dir: string, signal: AbortSignal): Promise<ParquetExport> {
  const result: ParquetExport = { written: 0, unchanged: 0, removed: 0 };
  for (const { collection, fields, storage } of LAYOUTS) {
    const table = `main.${ident(collection.table)}`;
    const month = monthSql(fields);
    const partitions = await db.rows(
      `SELECT ${CHAIN_COLUMN} AS chain, coalesce(${month}, '${NULL_PARTITION}') AS month, count(*) || '/' || max(${ident(LAST_UPDATED_COLUMN)})::VARCHAR AS fingerprint FROM ${storage} GROUP BY ALL`,
    );
    const noted = new Map(
      (await db.rows(`SELECT chain, month, fingerprint FROM ${EXPORTS_TABLE} WHERE dir = $1 AND "table" = $2`, [dir, collection.table])).map((r) => [
        `${r.chain}/${r.month}`,
        String(r.fingerprint),
      ]),
    );
    for (const p of partitions) {
      if (signal.aborted) throw new InterruptedError();
      const [chain, m, fingerprint] = [String(p.chain), String(p.month), String(p.fingerprint)];
      const where = join(dir, collection.table, `chain=${chain}`, `month=${m}`);
      const key = `${chain}/${m}`;
      const before = noted.get(key);
      noted.delete(key);
      if (before === fingerprint && existsSync(join(where, FILE))) {
        result.unchanged++;
        continue;
      }
      await mkdir(where, { recursive: true }).catch((err: NodeJS.ErrnoException) => {
        throw unwritable(err, `cannot write the Parquet partition ${printable(where)}`, 'give --parquet a folder you can write');
      });
      const temp = join(where, `.${FILE}.${randomBytes(4).toString('hex')}.tmp`);
      const order = ['timestamp', 'createdAt'].filter((n) => fields.some((f) => f.name === n)).concat(collection.endpoint.identity).map(ident).join(', ');
      try {
        await db.run(
          `COPY (SELECT * EXCLUDE (${CHAIN_COLUMN}) FROM ${table} WHERE ${CHAIN_COLUMN} = $1 AND coalesce(${month}, '${NULL_PARTITION}') = $2 ORDER BY ${order}) ` +
            `TO '${temp.replaceAll("'", "''")}' (FORMAT parquet, COMPRESSION zstd)`,
          [chain, m],
        );
        await rename(temp, join(where, FILE));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        // The rename's error, or DuckDB's when it cannot create the file: exit 2, as for DIR itself.
        const code = (err as NodeJS.ErrnoException).code ?? (/Permission denied/.test(message) ? 'EACCES' : undefined);
        if (code) throw unwritable(Object.assign(err as Error, { code }), `cannot write the Parquet partition ${printable(where)}`, 'give --parquet a folder you can write');
        if (!/amounts DECIMAL\(38,18\) cannot hold exactly/.test(message)) throw err;
        throw new MalformedResponseError(
          `${collection.table}, chain ${chain}, month ${m}: not written to Parquet: ${message.replace(/^[A-Za-z ]+Error: /, '').split('\n')[0]}`,
          'the mirror keeps every record; the partitions before this one are written',
        );
      } finally {
        await rm(temp, { force: true });
      }
      await db.run(`INSERT OR REPLACE INTO ${EXPORTS_TABLE} VALUES ($1, $2, $3, $4, $5)`, [dir, collection.table, chain, m, fingerprint]);
      result.written++;
    }
    // Partitions that no longer hold any record.
    for (const key of noted.keys()) {
      const [chain, m] = key.split('/');
      await rm(join(dir, collection.table, `chain=${chain}`, `month=${m}`), { recursive: true, force: true });
      await db.run(`DELETE FROM ${EXPORTS_TABLE} WHERE dir = $1 AND "table" = $2 AND chain = $3 AND month = $4`, [dir, collection.table, chain, m]);
      result.removed++;
    }
  }
  return result;
}
