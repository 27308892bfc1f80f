import { StatementType } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { eachAtOnce, emulator, payrec, payrecInProcess, tempDir } from './helpers.js';

// payrec sql only reads (issue 32 item 1): a statement of every type DuckDB has, alone,
// after EXPLAIN and after EXPLAIN ANALYZE (which runs what it explains), given as the
// argument, with --file and on stdin, is refused with exit 2, and the mirror's folder
// (the file, its WAL, anything beside it) is byte for byte what it was. Ground truth:
// DuckDB's own list of statement types, and the bytes on disk.
// The query from the argument or --file runs payrec inside this process (payrecInProcess:
// a refusal and its exit code are decided by payrec's code, not by the process), from
// stdin in a process of its own, as does whatever once aborted the process (issue 48, the
// suite's time: 194 processes were 46 s of CPU).

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
  if (source === 'argument') return payrecInProcess(undefined, ['sql', '--db', db, query]);
  if (source === 'stdin') return payrec(undefined, ['sql', '-', '--db', db], { input: query });
  const file = join(tempDir(), 'q.sql');
  writeFileSync(file, query);
  return payrecInProcess(undefined, ['sql', '--file', file, '--db', db]);
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
    // Four at a time: each run only reads (read-only opens of one file), and is checked alone.
    await eachAtOnce(runs, 4, async (run) => {
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
    });
    expect(folderState()).toEqual(before);
  });

  test('an explained statement is named by the type DuckDB gives it', async () => {
    const r = await sqlFrom('argument', `EXPLAIN ANALYZE COPY (SELECT 'x') TO '${db}' (USE_TMP_FILE false)`);
    expect(r.stderr).toBe(
      'error: payrec sql only reads (SELECT, WITH, FROM, DESCRIBE, EXPLAIN…): EXPLAIN runs only as EXPLAIN [ANALYZE] followed by a query; DuckDB takes the statement it explains as COPY, so it is refused\n' +
        'hint: the mirror changes only through payrec sync; export results with -o FILE\n',
    );
  });

  test('queries, EXPLAIN and EXPLAIN ANALYZE of a query still run, and change nothing', async () => {
    const before = folderState();
    for (const [query, rows] of [
      ['SELECT count(*) AS n FROM one_time_transfers', [{ n: 50 }]],
      ['EXPLAIN SELECT token FROM one_time_transfers WHERE fee > 0', [{ explain_key: 'physical_plan', explain_value: expect.stringContaining('SEQ_SCAN') }]],
      ['explain\nanalyze\n(SELECT 1) UNION (SELECT 2)', [{ explain_key: 'analyzed_plan', explain_value: expect.stringContaining('UNION') }]],
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

describe('payrec sql runs only the table functions that read (issue 48, item 1)', () => {
  // A SELECT can call a table function that writes or changes settings: enable_profiling
  // saved its profile onto a mirror named *.json (DuckDB lets a read-only open write the
  // mirror's own path), enable_logging(storage='file') aborted the process (rc 134).
  // Ground truth: the bytes of the mirror's folder, and the exit code.
  let json: string;
  beforeAll(() => {
    // A mirror named as a profile can be saved: the same file, copied.
    json = join(dir, 'fin.json');
    copyFileSync(db, json);
  });

  test('every table function that changes state is refused, wherever it is called: exit 2, the folder byte for byte as it was', async () => {
    // The first in each of five places, the others in one each. Mutants killed: the check dropped (enable_profiling replaced fin.json; enable_logging
    // to a file aborted with 134), only FROM's top level looked at (the LATERAL, CTE,
    // subquery and argument forms ran), query() allowed (it runs a string of SQL).
    const before = folderState();
    const called = (fn: string): string[] => [
      `SELECT * FROM ${fn}`,
      `WITH x AS (SELECT * FROM ${fn}) SELECT 1`,
      `SELECT 1 FROM range(1) r, LATERAL (SELECT * FROM ${fn})`,
      `SELECT (SELECT count(*) FROM ${fn}) AS n`,
      `EXPLAIN ANALYZE SELECT * FROM range((SELECT count(*) FROM ${fn}))`,
    ];
    const cases: [string, string][] = [
      ['enable_profiling', `enable_profiling(format='json', save_location='${json}')`],
      ['enable_logging', `enable_logging(storage='file', storage_path='${join(dir, 'logs')}')`],
      ['enable_logging', 'enable_logging()'],
      ['disable_logging', 'disable_logging()'],
      ['truncate_duckdb_logs', 'truncate_duckdb_logs()'],
      ['enable_profiling', 'system.main.ENABLE_PROFILING()'],
      ['disable_profiling', 'disable_profiling()'],
      ['checkpoint', 'checkpoint()'],
      ['force_checkpoint', 'force_checkpoint()'],
      ['enable_peg_parser', 'enable_peg_parser()'],
      ['query', `query('SELECT * FROM enable_logging()')`],
      ['json_execute_serialized_sql', `json_execute_serialized_sql(json_serialize_sql('SELECT 1'))`],
      ['read_blob', `read_blob('${json}')`],
    ];
    const runs = cases.flatMap(([name, fn], i) => called(fn).filter((_, form) => i === 0 || form === i % 5).map((query) => ({ name, query })));
    await eachAtOnce(runs, 4, async ({ name, query }) => {
      // enable_logging to a file aborted the process (rc 134): were it let through again, only its own process ends.
      const r = await (query.includes("storage='file'") ? payrec : payrecInProcess)(undefined, ['sql', '--db', json, query]);
      const said = `${query}: ${r.stderr}`;
      expect(r.exitCode, said).toBe(2);
      expect(r.stdout, said).toBe('');
      expect(r.stderr, said).toContain(`: the table function ${name}() does more than read`);
    });
    expect(folderState()).toEqual(before);
  });

  test('table functions that only read still run, also DESCRIBE and SUMMARIZE', async () => {
    const before = folderState();
    // One query (one process) calling each kind: values, JSON, the catalog, pragma_*, DESCRIBE and SUMMARIZE.
    const query = [
      'SELECT (SELECT list(r.range + u.unnest ORDER BY 1) FROM range(2) r, unnest([10, 20]) u) AS made',
      `(SELECT list(key || '=' || value) FROM json_each('{"a": 1, "b": [2]}')) AS json`,
      '(SELECT count(*) FROM generate_series(1, 5)) AS series',
      "(SELECT list(name ORDER BY name) FROM pragma_table_info('payrec_meta')) AS pragma",
      "(SELECT count(*) FROM duckdb_tables() WHERE table_name = 'payrec_meta') AS catalog",
      '(SELECT list(column_name ORDER BY column_name) FROM (DESCRIBE payrec_meta)) AS described',
      '(SELECT list(column_name || count) FROM (SUMMARIZE SELECT 1 AS one)) AS summarized',
    ].join(', ');
    const r = await payrec(undefined, ['sql', '--db', json, query, '-f', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { made: [10, 11, 20, 21], json: ['a=1', 'b=[2]'], series: 5, pragma: ['key', 'value'], catalog: 1, described: ['key', 'value'], summarized: ['one1'] },
    ]);
    expect(folderState()).toEqual(before);
  });
});
