import { execa } from 'execa';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { BIN, emulator, payrec, program, tempDir } from './helpers.js';
import { listOf } from './mirror-helpers.js';

// payrec sql reads its query from an argument, --file or stdin (psql -f, DuckDB's CLI),
// and a long result on a terminal shows its first 40 rows and says how many more.
// Ground truth: the emulator's records over plain HTTP, and DuckDB's range() whose
// rows are known without payrec.

let emu: Emulator;
let dir: string;
let db: string;

beforeAll(async () => {
  emu = await emulator({ records: 300 });
  dir = tempDir();
  db = join(dir, 'm.duckdb');
  expect((await payrec(emu, ['sync', 'ot/transfers', '--db', db, '-q'])).exitCode).toBe(0);
});
afterAll(() => emu.close());

const COUNT = 'SELECT count(*) AS n FROM one_time_transfers';

describe('where the query comes from', () => {
  test.concurrent('a shell pipe or redirect with no argument, and -, are the query', async () => {
    const truth = (await listOf(emu, '/one-time/transfers')).length;
    const file = join(tempDir(), 'q.sql');
    writeFileSync(file, `${COUNT}\n`);
    for (const line of [`echo "${COUNT}" | node ${BIN} sql --db ${db} -f jsonl`, `node ${BIN} sql --db ${db} -f jsonl < ${file}`]) {
      const r = await execa('sh', ['-c', line], { reject: false, env: { PAYREC_CONFIG_DIR: tempDir() } });
      expect([r.exitCode, r.stderr]).toEqual([0, '']);
      expect(JSON.parse(r.stdout)).toEqual({ n: truth });
    }
    const dash = await payrec(undefined, ['sql', '-', '--db', db, '-f', 'jsonl'], { input: `${COUNT}\n` });
    expect([dash.exitCode, dash.stderr]).toEqual([0, '']);
    expect(JSON.parse(dash.stdout)).toEqual({ n: truth });
  });

  test.concurrent('stdin left open by a runner (a socket, not a pipe) is not waited on: no query lists the tables', async () => {
    // execa's stdin is a socket that stays open: reading it would hang until the test's timeout.
    const r = await payrec(undefined, ['sql', '--db', db, '-f', 'jsonl']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/"table":"one_time_transfers"/);
  });

  test.concurrent('--file FILE, and --file - for stdin', async () => {
    const truth = (await listOf(emu, '/one-time/transfers')).filter((t) => t.token === 'USDT').length;
    const query = "-- month-end check\nSELECT count(*) AS n\nFROM one_time_transfers\nWHERE token = 'USDT';\n";
    const file = join(tempDir(), 'q.sql');
    writeFileSync(file, query);
    const fromFile = await payrec(undefined, ['sql', '--file', file, '--db', db, '-f', 'jsonl']);
    expect([fromFile.exitCode, fromFile.stderr]).toEqual([0, '']);
    expect(JSON.parse(fromFile.stdout)).toEqual({ n: truth });
    const dash = await payrec(undefined, ['sql', '--file', '-', '--db', db, '-f', 'jsonl'], { input: query });
    expect(JSON.parse(dash.stdout)).toEqual({ n: truth });
  });

  test.concurrent('a pipe that brings nothing lists the tables, as with no query', async () => {
    const r = await execa('sh', ['-c', `printf '' | node ${BIN} sql --db ${db} -f jsonl`], { reject: false, env: { PAYREC_CONFIG_DIR: tempDir() } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/"table":"one_time_transfers"/);
  });

  test.concurrent.each([
    ['an argument and --file', ['sql', COUNT, '--file', 'q.sql'], undefined, /give the query either as an argument or with --file, not both/],
    ['a missing --file', ['sql', '--file', 'nowhere.sql'], undefined, /cannot read --file "nowhere.sql": ENOENT/],
    ['an empty stdin with -', ['sql', '-'], '  \n', /the query is empty \(stdin brought none\)/],
    ['--limit with --all', ['sql', COUNT, '--limit', '3', '--all'], undefined, /give either --limit or --all, not both/],
    ['--limit 0', ['sql', COUNT, '--limit', '0'], undefined, /invalid --limit "0"/],
  ])('%s: exit 2 with a message', async (_name, args, input, message) => {
    const r = await payrec(undefined, [...args, '--db', db], { input, cwd: tempDir() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});

const script = program('script', 'bsdutils');
const onPty = script.skip ? test.concurrent.skip : test.concurrent;

/** Runs payrec on a pseudo-terminal `cols` wide, stderr to a file of its own; returns the screen and stderr. */
async function onTerminal(args: string[], cols = 100): Promise<{ lines: string[]; stderr: string; exitCode?: number }> {
  const err = join(tempDir(), 'stderr');
  const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const r = await execa('script', ['-qec', `stty cols ${cols} rows 50; exec node ${BIN} ${quoted} 2>${err}`, '/dev/null'], {
    reject: false,
    stdin: 'ignore',
    extendEnv: false,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', NO_COLOR: '1', PAYREC_CONFIG_DIR: tempDir() },
  });
  const { readFileSync } = await import('node:fs');
  return { lines: r.stdout.split(/\r?\n/).filter(Boolean), stderr: readFileSync(err, 'utf8'), exitCode: r.exitCode };
}

/** The numbers in the first cell of each table row. */
const firstCells = (lines: string[]) => lines.filter((l) => /^│ \d/.test(l)).map((l) => Number(l.split('│')[1].trim()));

describe('a long result on a terminal', () => {
  onPty(`shows its first 40 rows and says on stderr how many more, and how to get them${script.note}`, async () => {
    const r = await onTerminal(['sql', '--db', db, 'SELECT i FROM range(1000) t(i) ORDER BY i']);
    expect(r.exitCode).toBe(0);
    expect(firstCells(r.lines)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(r.stderr).toBe('showing 40 of 1,000 rows (960 more); --all, --limit N, or -f csv for every row\n');
  });

  onPty(`--all shows every row, --limit N the first N (and says so)${script.note}`, async () => {
    const all = await onTerminal(['sql', '--db', db, 'SELECT i FROM range(100) t(i) ORDER BY i', '--all']);
    expect(firstCells(all.lines)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(all.stderr).toBe('');
    const some = await onTerminal(['sql', '--db', db, 'SELECT i FROM range(100) t(i) ORDER BY i', '--limit', '7']);
    expect(firstCells(some.lines)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(some.stderr).toBe('showing 7 of 100 rows (93 more); --all for every row\n');
  });

  onPty(`an empty result says "no rows" on stderr${script.note}`, async () => {
    const r = await onTerminal(['sql', '--db', db, 'SELECT i FROM range(0) t(i)']);
    expect(r.lines).toEqual([]);
    expect(r.stderr).toBe('no rows\n');
  });

  onPty(`the time column is never the one left out for width${script.note}`, async () => {
    // The time column comes last, after free text that cannot fit 80 columns.
    const query = "SELECT repeat('x', 30) AS a, repeat('y', 30) AS b, repeat('z', 30) AS c, date_trunc('month', timestamp) AS month FROM one_time_transfers ORDER BY timestamp LIMIT 3";
    const r = await onTerminal(['sql', '--db', db, query], 80);
    expect(r.exitCode).toBe(0);
    const header = r.lines.find((l) => l.includes('month'));
    expect(header).toBeDefined();
    expect(r.lines.filter((l) => /│ \d{4}-\d{2}-01 00:00:00/.test(l))).toHaveLength(3);
  });

  test.concurrent('piped, every row, and no note', async () => {
    const r = await payrec(undefined, ['sql', '--db', db, 'SELECT i FROM range(1000) t(i) ORDER BY i']);
    expect(r.stdout.trimEnd().split('\n')).toEqual(['i', ...Array.from({ length: 1000 }, (_, i) => String(i))]);
    expect(r.stderr).toBe('');
  });
});
