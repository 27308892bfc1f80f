import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { cpuSeconds, emulator, payrec, payrecInProcess, tempDir, until } from './helpers.js';
import { fetchAgain, listOf, sql, type Row } from './mirror-helpers.js';

// A result is whole or not at all, payrec sql only reads, Ctrl-C stops a query and
// keeps a sync's pages, a sync and readers share a mirror, a typo leaves no stamp,
// and the mirror's files are private. Refusals and answers read from the mirror run
// inside this worker (payrecInProcess, issue 48); -o, Ctrl-C and readers beside a sync
// are processes.

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

const hash = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

async function faults(target: Emulator, body: unknown): Promise<void> {
  const res = await fetchAgain(`${target.url}/_emulator/faults`, { method: body ? 'POST' : 'DELETE', body: body ? JSON.stringify(body) : undefined });
  expect(res.ok).toBe(true);
}

describe('payrec sql: whole or not at all, reads only', () => {
  test('a query that fails part-way exits non-zero with DuckDB\'s message and leaves no -o file', async () => {
    const out = join(dir, 'out.csv');
    const r = await payrec(undefined, ['sql', '--db', db, "SELECT i, CASE WHEN i = 3000000 THEN error('mid-stream') ELSE i END AS v FROM range(5000000) t(i)", '-f', 'csv', '-o', out]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/error: the query failed: .*mid-stream/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('out.csv'))).toEqual([]);
    // To stdout as well: nothing printed.
    const s = await payrec(undefined, ['sql', '--db', db, "SELECT i, CASE WHEN i = 3000000 THEN error('mid-stream') ELSE i END AS v FROM range(5000000) t(i)", '-f', 'csv']);
    expect(s.exitCode).toBe(2);
    expect(s.stdout).toBe('');
    // The same query whole: every row.
    const whole = await payrec(undefined, ['sql', '--db', db, 'SELECT i FROM range(3000000) t(i)', '-f', 'csv', '-o', out]);
    expect(whole.exitCode).toBe(0);
    expect(readFileSync(out, 'utf8').split('\r\n').length).toBe(3_000_000 + 2);
  });

  test.each([
    ['SET', "SET threads = 1"],
    ['PRAGMA', "PRAGMA memory_limit = '1GB'"],
    ['CALL', 'CALL checkpoint()'],
    ['USE', 'USE memory'],
    ['a write', 'DELETE FROM one_time_transfers'],
    ['a table function that changes settings', 'SELECT * FROM one_time_transfers, truncate_duckdb_logs()'],
  ])('%s is refused before it runs, and the mirror file is unchanged', async (_, query) => {
    const before = hash(db);
    const r = await payrecInProcess(undefined, ['sql', '--db', db, query]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: payrec sql only reads \(SELECT, WITH, FROM, DESCRIBE, EXPLAIN…\): (DuckDB takes this statement as [A-Z ]+|the table function truncate_duckdb_logs\(\) does more than read \(.*\)), so it is refused\nhint: the mirror changes only through payrec sync/);
    expect(hash(db)).toBe(before);
  });

  test('reads that are not SELECT keywords still work: DESCRIBE, SHOW, EXPLAIN, FROM-first', async () => {
    expect((await sql(db, 'DESCRIBE one_time_transfers')).map((r) => r.column_name)).toContain('transactionHash');
    expect((await sql(db, 'SHOW TABLES')).map((r) => r.name)).toContain('one_time_transfers');
    expect((await sql(db, 'EXPLAIN SELECT 1'))[0]).toHaveProperty('explain_key');
    expect(await sql(db, 'FROM one_time_transfers SELECT count(*) AS n')).toEqual([{ n: 300 }]);
  });

  test('each column has one JSON type in every row: integers of every width are numbers with every digit', async () => {
    const query = 'SELECT (i::UBIGINT * 4611686018427387904::UBIGINT) AS b, i::INTEGER AS n, i::HUGEINT * 100000000000000000000::HUGEINT AS h, 0.5::DECIMAL(3,1) * i AS d FROM range(3) t(i) ORDER BY i';
    const r = await payrecInProcess(undefined, ['sql', '--db', db, query, '-f', 'jsonl']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      [
        // Decimals without padding zeros, as --summary writes amounts.
        '{"b":0,"n":0,"h":0,"d":"0"}',
        '{"b":4611686018427387904,"n":1,"h":100000000000000000000,"d":"0.5"}',
        '{"b":9223372036854775808,"n":2,"h":200000000000000000000,"d":"1"}',
        '',
      ].join('\n'),
    );
    // Each line is JSON (a parser that keeps big integers exactly reads the digits; JavaScript's rounds them).
    for (const line of r.stdout.trim().split('\n')) expect(typeof (JSON.parse(line) as Row).b).toBe('number');
    const csv = await payrecInProcess(undefined, ['sql', '--db', db, query, '-f', 'csv']);
    expect(csv.stdout.split('\r\n')[3]).toBe('9223372036854775808,2,200000000000000000000,1');
  });

  test('an empty result still names its columns: a CSV header, an empty JSON list', async () => {
    const query = 'SELECT token, SUM(amount) AS total, count(*) AS "count(*)" FROM one_time_transfers WHERE 1 = 0 GROUP BY token';
    const [csv, json] = await Promise.all(['csv', 'json'].map((f) => payrecInProcess(undefined, ['sql', '--db', db, query, '-f', f])));
    expect([csv.exitCode, json.exitCode]).toEqual([0, 0]);
    expect(csv.stdout).toBe('token,total,count(*)\r\n');
    expect(JSON.parse(json.stdout)).toEqual([]);
  });

  test('integers beyond a double inside lists and structs keep every digit in every format', async () => {
    const query = "SELECT [12345678901234567890::HUGEINT, 1] AS l, {'u': 18446744073709551615::UBIGINT} AS s";
    const out = async (format: string) => {
      const r = await payrecInProcess(undefined, ['sql', '--db', db, query, '-f', format], { env: { COLUMNS: '200' } });
      expect(r.exitCode, r.stderr).toBe(0);
      return r.stdout;
    };
    expect(await out('jsonl')).toBe('{"l":[12345678901234567890,1],"s":{"u":18446744073709551615}}\n');
    expect(await out('csv')).toBe('l,s.u\r\n"[12345678901234567890,1]",18446744073709551615\r\n');
    expect(await out('table')).toBe('l\ts\n[12345678901234567890,1]\t{"u":18446744073709551615}\n');
  });

  test('Ctrl-C stops a running aggregate: exit 130, "interrupted", nothing printed', async () => {
    // A query of days: only an interrupt of DuckDB's work ends it in time. Had it gone on,
    // payrec's last resort (exit 130 five seconds after the signal) says nothing on stderr.
    // How soon it stops is a figure of `npm run bench:responsiveness`.
    const run = payrec(undefined, ['sql', '--db', db, 'SELECT sum(i) FROM range(9000000000000000) t(i)']);
    // Well into the query: start-up and opening the mirror cost about 0.3 s of CPU, the query all it gets from then on.
    await until('2 s of CPU spent by payrec sql', () => cpuSeconds(run.pid!) >= 2);
    run.kill('SIGINT');
    const r = await run;
    expect(r.exitCode).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('interrupted\n');
  });

  test('PAYREC_MIRROR_MEMORY bounds DuckDB\'s memory; a bad value is exit 2', async () => {
    const r = await payrec(undefined, ['sql', '--db', db, "SELECT current_setting('memory_limit') AS m"], { env: { PAYREC_MIRROR_MEMORY: '300MB' } });
    expect(r.stdout).toMatch(/^m\n28\d\.\d MiB\n$/);
    expect((await sql(db, "SELECT current_setting('memory_limit') AS m"))[0].m).toBe('122.0 MiB');
    const bad = await payrecInProcess(undefined, ['sql', '--db', db, 'SELECT 1'], { env: { PAYREC_MIRROR_MEMORY: 'lots' } });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toBe('error: invalid PAYREC_MIRROR_MEMORY "lots": expected a size such as 256MB or 1GB\n');
  });

  test('the mirror and its files are private (0600), also a --db file', async () => {
    for (const f of [db, join(dir, '.m.duckdb.sync-lock')]) expect(statSync(f).mode & 0o777).toBe(0o600);
  });
});

describe('a sync and its mirror', () => {
  let big: Emulator;
  // 20,000 records: 21 pages of 960, slowed where a test needs the sync to last.
  beforeAll(async () => (big = await emulator({ records: 20_000 })));
  afterAll(() => big.close());
  const pages = () => big.requests.filter((q) => q.path === '/v1/bsc/one-time/transfers' && q.status === 200).length;

  test('Ctrl-C keeps every page fetched: the resumed sync asks for none of them again', async () => {
    const file = join(tempDir(), 'ctrl-c.duckdb');
    const truth = await listOf(big, '/one-time/transfers');
    await faults(big, { rate: 1, kinds: ['slow'], slowMs: 80 });
    big.clearLog();
    const run = payrec(big, ['sync', 'ot/transfers', '--db', file, '--concurrency', '1', '-q']);
    let stopped;
    try {
      // A few pages in: before the first batch (a second, or 16 pages) was written.
      await until('five pages', () => pages() >= 5);
      run.kill('SIGINT');
      stopped = await run;
    } finally {
      await faults(big, undefined);
    }
    expect(stopped.exitCode).toBe(130);
    const received = pages();
    const [state] = await sql(file, 'SELECT count(*) AS n, epoch(max("timestamp"))::BIGINT AS newest FROM one_time_transfers');
    // Every page answered before the signal is in (the last one may have been cut by it).
    expect(state.n).toBeGreaterThanOrEqual((received - 1) * 960);
    expect(state.n).toBeLessThanOrEqual(received * 960);
    const cursor = state.newest as number;
    expect(await sql(file, "SELECT cursor FROM payrec_cursors WHERE collection = 'one-time/transfers'")).toEqual([{ cursor }]);

    big.clearLog();
    const resumed = await payrec(big, ['sync', 'ot/transfers', '--db', file, '--lookback', '0s', '-f', 'json']);
    expect(resumed.exitCode).toBe(0);
    const [report] = JSON.parse(resumed.stdout) as Row[];
    // It asked only from the cursor on: no record before it was fetched again.
    expect(big.requests.every((q) => q.path !== '/v1/bsc/one-time/transfers' || Number(q.query.from) >= cursor)).toBe(true);
    expect(report.fetched).toBe(truth.filter((t) => (t.timestamp as number) >= cursor).length);
    expect(report.new).toBe(truth.length - (state.n as number));
    expect(await sql(file, 'SELECT count(DISTINCT transactionHash) AS n FROM one_time_transfers')).toEqual([{ n: truth.length }]);
  });

  test('queries during a long sync answer while it runs, from committed state, counts never going down; a second sync exits 10', async () => {
    const file = join(tempDir(), 'shared.duckdb');
    // Pages of 2 s (21 pages: 42 s) while the queries below are asked: the sync outlasts
    // them on a machine of any speed. Then the pages come at once and it finishes.
    await faults(big, { rate: 1, kinds: ['slow'], slowMs: 2000 });
    big.clearLog();
    const syncing = payrec(big, ['sync', 'ot/transfers', '--db', file, '--concurrency', '1', '-q']);
    const answers: { n: number; exitCode?: number; stderr: string; whileSyncing: boolean }[] = [];
    const partial = () => answers.some((a) => a.n > 0 && a.n < 20_000);
    try {
      await until('two pages', () => pages() >= 2);
      const second = await payrec(big, ['sync', 'ot/transfers', '--db', file]);
      expect(second.exitCode).toBe(10);
      expect(second.stderr).toMatch(/error: the mirror .*shared\.duckdb is busy: another payrec sync \(PID \d+\) is writing it\nhint: run again when it has finished/);
      // At least five answers, and until one shows part of the list committed (the sync commits every few seconds).
      while (syncing.exitCode === null && (answers.length < 5 || !partial()) && answers.length < 40) {
        const q = await payrec(undefined, ['sql', '--db', file, '-f', 'json', 'SELECT count(*) AS n FROM one_time_transfers']);
        answers.push({ n: q.exitCode === 0 ? ((JSON.parse(q.stdout) as Row[])[0].n as number) : -1, exitCode: q.exitCode, stderr: q.stderr, whileSyncing: syncing.exitCode === null });
      }
    } finally {
      await faults(big, undefined);
    }
    expect((await syncing).exitCode).toBe(0);
    expect(answers.length).toBeGreaterThanOrEqual(5);
    for (const a of answers) {
      expect(a.exitCode, a.stderr).toBe(0);
      expect(a.stderr).not.toMatch(/busy/);
      // Answered while the sync was still running: a reader is never kept waiting for a sync's end.
      expect(a.whileSyncing).toBe(true);
    }
    for (let i = 1; i < answers.length; i++) expect(answers[i].n).toBeGreaterThanOrEqual(answers[i - 1].n);
    // Some answered while the sync had written part of the list.
    expect(partial()).toBe(true);
    expect(await sql(file, 'SELECT count(*) AS n FROM one_time_transfers')).toEqual([{ n: 20_000 }]);
  });
});

describe('no poisoned mirror', () => {
  test('a first sync against a wrong --base-url leaves no stamp: the right service fills the mirror', async () => {
    const file = join(tempDir(), 'typo.duckdb');
    const wrong = await payrec(emu, ['sync', 'ot/transfers', '--db', file, '--base-url', 'http://127.0.0.1:9', '--retries', '0']);
    expect(wrong.exitCode).toBe(7);
    const right = await payrec(emu, ['sync', 'ot/transfers', '--db', file, '-f', 'json']);
    expect(right.exitCode).toBe(0);
    expect(JSON.parse(right.stdout)[0]).toMatchObject({ new: 300 });
    expect(await sql(file, "SELECT value FROM payrec_meta WHERE key = 'service'")).toEqual([{ value: emu.url }]);
  });

  describe('a record larger than DuckDB\'s JSON reader takes', () => {
    let server: Server;
    let base: string;
    const HASH = `0x${'ab'.repeat(32)}`;
    beforeAll(async () => {
      const record = {
        // A field the schema does not have goes to extra_fields, a JSON column: DuckDB parses it whole.
        description: 'Ebook', surprise: { notes: 'x'.repeat(17 * 2 ** 20) }, amount: '1', fee: '0', token: 'USDT', category: 'Shop', timestamp: 1_767_225_600,
        transactionHash: HASH, transactionStatus: 'confirmed', sender: `0x${'2'.repeat(40)}`, receiver: `0x${'3'.repeat(40)}`, oneTimeId: `0x${'4'.repeat(64)}`,
      };
      const body = JSON.stringify({ data: [record], limit: 960, offset: 0, total: 1 });
      const empty = JSON.stringify({ data: [], limit: 960, offset: 0, total: 1 });
      server = createServer((req, res) => {
        const offset = Number(new URL(req.url!, 'http://x').searchParams.get('offset'));
        res.writeHead(200, { 'content-type': 'application/json' }).end(offset === 0 ? body : empty);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    test('exits 6 naming it, never 1', async () => {
      const file = join(tempDir(), 'huge.duckdb');
      const r = await payrec(undefined, ['sync', 'ot/transfers', '--db', file], { env: { PAYREC_BASE_URL: base, PAYREC_API_KEY: 'prk_test_x' } });
      expect(r.stderr).toMatch(new RegExp(`error: a one-time/transfers record \\(transactionHash ${HASH}\\) holds a value larger than the mirror's JSON reader takes \\(16 MB\\); nothing of its batch was written`));
      expect(r.exitCode).toBe(6);
    });
  });
});
