import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, type SchemaElement } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

// An independent reader of the lake that `sync --parquet` writes: hyparquet (pure
// JavaScript, no DuckDB) decodes the pages; the test decodes DECIMAL itself from the
// bytes the Parquet format defines (big-endian two's complement, scale from the schema),
// so an amount is compared digit for digit, never through a float. Times are Unix
// seconds from the stored microseconds. Nothing here uses payrec's or DuckDB's code.

export interface LakeColumn {
  name: string;
  /** The physical type and the logical annotation, e.g. FIXED_LEN_BYTE_ARRAY DECIMAL(38,18), INT64 TIMESTAMP(MICROS,UTC). */
  type: string;
}

export interface LakeFile {
  /** The Hive partition values from the path (chain=bsc/month=2026-02). */
  partition: Record<string, string>;
  columns: LakeColumn[];
  rows: Record<string, unknown>[];
}

function describe(e: SchemaElement): string {
  const l = e.logical_type;
  if (l?.type === 'DECIMAL') return `${e.type} DECIMAL(${l.precision},${l.scale})`;
  if (l?.type === 'TIMESTAMP') return `${e.type} TIMESTAMP(${l.unit},${l.isAdjustedToUTC ? 'UTC' : 'local'})`;
  return [e.type, l?.type ?? e.converted_type].filter(Boolean).join(' ');
}

/** A DECIMAL's unscaled bytes (big-endian two's complement) as canonical decimal text. */
export function decimalFromBytes(bytes: Uint8Array, scale: number): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  if (bytes.length > 0 && bytes[0] & 0x80) n -= 1n << BigInt(bytes.length * 8);
  const negative = n < 0n;
  const digits = (negative ? -n : n).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const frac = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** Reads one Parquet file: DECIMAL columns as exact text, TIMESTAMP columns as Unix seconds (whole, or fractional when not). */
export async function readParquetFile(path: string, root: string): Promise<LakeFile> {
  const file = await asyncBufferFromFile(path);
  const metadata = await parquetMetadataAsync(file);
  const leaves = metadata.schema.slice(1);
  const columns = leaves.map((e) => ({ name: e.name, type: describe(e) }));
  const decimals = new Map<string, number>();
  for (const e of leaves) {
    if (e.converted_type === 'DECIMAL' || e.logical_type?.type === 'DECIMAL') {
      decimals.set(e.name, e.scale ?? 0);
      // Left unannotated, hyparquet hands over the raw bytes instead of a float.
      e.converted_type = undefined;
      e.logical_type = undefined;
    }
  }
  const micros = (v: bigint) => (v % 1_000_000n === 0n ? Number(v / 1_000_000n) : Number(v) / 1e6);
  const rows = await parquetReadObjects({
    file,
    metadata,
    compressors,
    parsers: { timestampFromMicroseconds: micros, timestampFromMilliseconds: (v: bigint) => Number(v) / 1000, timestampFromNanoseconds: (v: bigint) => Number(v) / 1e9 },
  });
  for (const row of rows) {
    for (const [name, scale] of decimals) {
      const v = row[name];
      if (v instanceof Uint8Array) row[name] = decimalFromBytes(v, scale);
    }
  }
  const partition = Object.fromEntries(
    relative(root, path)
      .split('/')
      .filter((p) => p.includes('='))
      .map((p) => p.split('=') as [string, string]),
  );
  return { partition, columns, rows };
}

/** Every Parquet file of one table of the lake (DIR/<table>/chain=…/month=…/*.parquet). */
export async function readLakeTable(lake: string, table: string): Promise<LakeFile[]> {
  const root = join(lake, table);
  const paths = readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.parquet'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
  return Promise.all(paths.map((p) => readParquetFile(p, root)));
}

/** The rows of a table, each with its partition columns, as a query engine reading it with Hive partitioning sees them. */
export async function lakeRows(lake: string, table: string): Promise<Record<string, unknown>[]> {
  return (await readLakeTable(lake, table)).flatMap((f) => f.rows.map((r) => ({ ...r, ...f.partition })));
}
