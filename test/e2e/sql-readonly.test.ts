import { StatementType } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec, tempDir } from './helpers.js';

// payrec sql only reads (issue 32 item 1): a statement of every type DuckDB has, alone,
// after EXPLAIN and after EXPLAIN ANALYZE (which runs what it explains), given as the
// argument, with --file and on stdin, is refused with exit 2, and the mirror's folder
// (the file, its WAL, anything beside it) is byte for byte what it was. Ground truth:
// DuckDB's own list of statement types, and the bytes on disk.

vi.setConfig({ testTimeout: 120_000 });

let emu: Emulator;
let dir: string;
let db: string;

beforeAll(async () => {
  emu = await emulator({ records: 50 });
  dir = tempDir();
  db = join(dir, 'm.duckdb');
  expect((await payrec(emu, ['sync', 'ot/transfers', '--db', db, '-q'])).exitCode).toBe(0);
});
afterAll(() => emu.close());

/** Every file in the mirror's folder with a hash of its bytes: a WAL that appears, or a file written beside, shows. */
function folderState(): Record<string, string> {
  const state: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    state[name] = statSync(path).isFile() ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'folder';
  }
  return state;
}

/**
 * A statement of each type, against the mirror's own tables so that it would run. Types
 * no SQL text is parsed into (statements built through DuckDB's API) are left out.
 */
const NOT_FROM_TEXT = ['INVALID', 'SELECT', 'EXPLAIN', 'RELATION', 'LOGICAL_PLAN', 'MULTI'];
const STATEMENTS = (mirror: string): Record<string, string> => ({
  INSERT: "INSERT INTO payrec_meta VALUES ('k', 'v')",
  UPDATE: "UPDATE payrec_meta SET value = 'x'",
  DELETE: 'DELETE FROM payrec_meta',
  PREPARE: 'PREPARE p AS SELECT 1',
  CREATE: 'CREATE TEMP TABLE planted AS SELECT 1 AS a',
  EXECUTE: 'EXECUTE p',
  ALTER: 'ALTER TABLE payrec_meta ADD COLUMN b INTEGER',
  TRANSACTION: 'BEGIN TRANSACTION',
  // The mirror itself is a path DuckDB lets a read-only open write: the attack.
  COPY: `COPY (SELECT 'x') TO '${mirror}' (USE_TMP_FILE false)`,
  ANALYZE: 'ANALYZE payrec_meta',
  VARIABLE_SET: 'SET VARIABLE payrec_now = 0',
  CREATE_FUNC: 'CREATE TEMP MACRO m() AS 1',
  DROP: 'DROP TABLE payrec_meta',
  EXPORT: `EXPORT DATABASE '${mirror}.export'`,
  PRAGMA: "PRAGMA memory_limit = '4GB'",
  VACUUM: 'VACUUM payrec_meta',
  CALL: 'CALL checkpoint()',
  SET: 'SET enable_external_access = true',
  LOAD: 'LOAD json',
  EXTENSION: 'INSTALL json',
  ATTACH: `ATTACH '${mirror}.other' AS other`,
  DETACH: 'DETACH memory',
  COPY_DATABASE: 'COPY FROM DATABASE memory TO temp',
  UPDATE_EXTENSIONS: 'UPDATE EXTENSIONS',
  MERGE_INTO: 'MERGE INTO payrec_meta USING (SELECT 1 AS k) s ON payrec_meta.key = s.k WHEN MATCHED THEN DELETE',
});

const SOURCES = ['argument', '--file', 'stdin'] as const;
const WRAPS = ['', 'EXPLAIN ', 'EXPLAIN ANALYZE '];

/** `payrec sql` with the query from one of its three sources. */
function sqlFrom(source: (typeof SOURCES)[number], query: string) {
  if (source === 'argument') return payrec(undefined, ['sql', '--db', db, query]);
  if (source === 'stdin') return payrec(undefined, ['sql', '-', '--db', db], { input: query });
  const file = join(tempDir(), 'q.sql');
  writeFileSync(file, query);
  return payrec(undefined, ['sql', '--file', file, '--db', db]);
}

describe('payrec sql runs only a query, or EXPLAIN [ANALYZE] of one', () => {
  test('the statements below cover every type DuckDB parses SQL text into', () => {
    const types = Object.keys(StatementType).filter((k) => Number.isNaN(Number(k)) && !NOT_FROM_TEXT.includes(k));
    expect(Object.keys(STATEMENTS(db)).sort()).toEqual(types.sort());
  });

  test('every other statement, alone or explained, from each source: exit 2, the mirror\'s folder byte for byte as it was', async () => {
    // Mutants killed: readKind accepting any EXPLAIN (EXPLAIN ANALYZE COPY overwrote the
    // mirror, EXPLAIN ANALYZE SET ran), and the type check dropped (CREATE TEMP ran).
    const before = folderState();
    const runs = Object.entries(STATEMENTS(db)).flatMap(([type, statement], t) =>
      // Each type from all three sources, each wrap from all three: (type + wrap) picks the source.
      WRAPS.map((wrap, w) => ({ type, query: `${wrap}${statement}`, source: SOURCES[(t + w) % SOURCES.length] })),
    );
    for (const run of runs) {
      const r = await sqlFrom(run.source, run.query);
      const said = `${run.type} as ${JSON.stringify(run.query)} from ${run.source}: ${r.stderr}`;
      expect(r.exitCode, said).toBe(2);
      expect(r.stdout, said).toBe('');
      // Refused by its type, or as DuckDB binds it (a path outside the mirror: file system
      // operations are disabled); or, for what DuckDB cannot parse or bind at all (EXPLAIN
      // of ANALYZE, EXECUTE of a statement never prepared, EXPLAIN of COPY FROM DATABASE),
      // DuckDB's own error; COPY FROM DATABASE alone is several statements to DuckDB.
      const why = /^error: (payrec sql only reads[ :].*\nhint: the mirror changes only through payrec sync|the query failed: (Failed to extract statements: )?(Parser|Binder) Error: |give exactly one SQL statement)/;
      expect(r.stderr, said).toMatch(why);
    }
    expect(folderState()).toEqual(before);
  });

  test('an explained statement is named by the type DuckDB gives it', async () => {
    const r = await sqlFrom('argument', `EXPLAIN ANALYZE COPY (SELECT 'x') TO '${db}' (USE_TMP_FILE false)`);
    expect(r.stderr).toBe(
      'error: payrec sql only reads (SELECT, WITH, FROM, DESCRIBE, EXPLAIN…): EXPLAIN runs only as EXPLAIN [ANALYZE] followed by a query; DuckDB takes the statement it explains as COPY, so it is refused\n' +
        'hint: the mirror changes only through payrec sync; export results with -o FILE\n',
    );
  });

  test('queries, EXPLAIN and EXPLAIN ANALYZE of a query still run; table functions that would write change nothing', async () => {
    const before = folderState();
    for (const [query, rows] of [
      ['SELECT count(*) AS n FROM one_time_transfers', [{ n: 50 }]],
      ['EXPLAIN SELECT token FROM one_time_transfers WHERE fee > 0', [{ explain_key: 'physical_plan', explain_value: expect.stringContaining('SEQ_SCAN') }]],
      ['explain\nanalyze\n(SELECT 1) UNION (SELECT 2)', [{ explain_key: 'analyzed_plan', explain_value: expect.stringContaining('UNION') }]],
      ['SELECT * FROM checkpoint()', []],
    ] as const) {
      const r = await payrec(undefined, ['sql', '--db', db, query, '-f', 'json']);
      expect(r.exitCode, `${query}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(rows);
    }
    expect(folderState()).toEqual(before);
  });

  test('the configuration is locked once payrec has made its settings', async () => {
    // Mutant killed: no SET lock_configuration (a statement that slipped through could turn external access back on).
    const r = await payrec(undefined, ['sql', '--db', db, "SELECT current_setting('lock_configuration') AS locked, current_setting('enable_external_access') AS external", '-f', 'json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ locked: true, external: false }]);
  });
});
