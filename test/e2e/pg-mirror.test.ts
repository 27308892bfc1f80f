import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { ANCHOR, emulator, payrec, payrecInProcess, tempDir } from './helpers.js';
import { asMirrored, apiFields, decimalSum, keyed, listOf, sql, type Row } from './mirror-helpers.js';
import { postgres } from './pg-helpers.js';

// A team's mirror on PostgreSQL (DESIGN.md "A team's mirror on PostgreSQL", issue 47),
// against the real server .ci/run starts (PAYREC_TEST_PG): the same emulator data synced
// to a DuckDB file and to PostgreSQL give the same answers, both held against the
// emulator's own records (BigInt sums written here); roles; the URL as a secret.
// The first syncs, the refused ones and the URL's secrecy are payrec's processes; reads
// of either mirror and later syncs run inside this worker (payrecInProcess, issue 48).

const pg = postgres.prerequisite;
const BOOKKEEPING = ['chain', 'extra_fields', 'inexact_amounts', 'first_seen', 'last_updated'];

describe.skipIf(pg.skip)(`a team's mirror on PostgreSQL${pg.note}`, () => {
  let emu: Emulator;
  beforeAll(async () => {
    pg.need();
    emu = await emulator({ records: 300, now: ANCHOR });
  });
  afterAll(() => emu?.close());

  test('parity: the same records synced to DuckDB and to PostgreSQL give the same sql answers, digit for digit, and the same subscriptions and metrics; both equal the emulator', async () => {
    const file = join(tempDir(), 'parity.duckdb');
    const url = postgres.freshUrl('parity');
    for (const db of [file, url]) {
      const r = await payrec(emu, ['sync', '--db', db, '-f', 'json']);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
    }
    const tables = [
      'one_time_transfers', 'one_time_payments', 'on_demand_transfers', 'variable_recurring_transfers', 'wallet_to_wallet_payments', 'wallet_to_wallet_transfers',
      'scheduled_payments_transfers', 'dollar_cost_average_executions', 'fixed_recurring_billings', 'fixed_recurring_cancellations', 'fixed_recurring_short_urls', 'transfers', 'subscriptions',
    ];
    const queries = [
      tables.map((t) => `SELECT '${t}' AS t, count(*) AS n FROM ${t}`).join(' UNION ALL '),
      'SELECT product, token, count(*) AS n, SUM(amount) AS total, SUM(fee) AS fee, MIN(amount) AS low, MAX(amount) AS high FROM transfers GROUP BY product, token ORDER BY product, token',
      'SELECT "transactionStatus" AS s, outcome, count(*) AS n FROM transfers GROUP BY 1, 2 ORDER BY 1, 2',
      `SELECT count(*) AS n FROM one_time_transfers WHERE amount > 1000.5`,
    ];
    for (const q of queries) {
      const [duck, server] = [await sql(file, q), await sql(url, q)];
      expect(server, q).toEqual(duck);
      expect(server.length).toBeGreaterThan(0);
    }
    // Against the service's own records: totals per token by BigInt, rows field by field (JSONB receivers too).
    const transfers = emu.records('bsc', 'one-time/transfers').records;
    const tokens = [...new Set(transfers.map((t) => t.token as string))].sort();
    expect(await sql(url, 'SELECT token, SUM(amount) AS total FROM one_time_transfers GROUP BY token ORDER BY token')).toEqual(
      tokens.map((token) => ({ token, total: decimalSum(transfers.filter((t) => t.token === token).map((t) => t.amount as string)) })),
    );
    for (const [table, collection, identity] of [
      ['one_time_payments', 'one-time/payments', ['id']],
      ['dollar_cost_average_executions', 'dollar-cost-average/executions', ['transactionHash']],
    ] as const) {
      const rows = (await sql(url, `SELECT * FROM ${table}`)).map((r) => apiFields(Object.fromEntries(Object.entries(r).filter(([k]) => !BOOKKEEPING.includes(k)))) as Row);
      const got = keyed(rows, [...identity]);
      const want = keyed(emu.records('bsc', collection).records.map((r) => asMirrored(apiFields(r)) as Row), [...identity]);
      expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
      for (const [key, record] of want) expect(got.get(key), `${table} ${key}`).toEqual(record);
    }
    // The engine's figures read from either mirror, at a pinned instant.
    for (const args of [['subscriptions', '--at', '2025-12-01'], ['metrics', '--period', '2025'], ['metrics', '--period', '2025', '--movements'], ['fr', 'plans']]) {
      const [duck, server] = await Promise.all([file, url].map((db) => payrecInProcess(emu, [...args, '--db', db, '-f', 'json'])));
      expect(duck.exitCode, duck.stderr).toBe(0);
      expect(server.exitCode, server.stderr).toBe(0);
      expect(JSON.parse(server.stdout)).toEqual(JSON.parse(duck.stdout));
      expect(JSON.parse(server.stdout).length).toBeGreaterThan(0);
    }
  }, 240_000);

  /**
   * The fixed-recurring lists synced to a DuckDB file and to PostgreSQL alike: every plan a
   * short url names, and one plan no short url names given to `sync --plan-id` (only the
   * mirror remembers it). Made once, for the tests that read them.
   */
  let frMirrors: Promise<{ file: string; url: string; seen: string[]; unseen: string }> | undefined;
  const syncedFr = () =>
    (frMirrors ??= (async () => {
      const seen = [...new Set((await listOf(emu, '/fixed-recurring/short-urls')).map((u) => String(u.planId).toLowerCase()))].sort();
      const unseen = emu.subscriptions('bsc').plans.map((p) => p.planId.toLowerCase()).sort().find((p) => !seen.includes(p));
      expect(seen.length).toBeGreaterThan(0);
      expect(unseen).toBeDefined();
      const [file, url] = [join(tempDir(), 'fr.duckdb'), postgres.freshUrl('fr')];
      for (const db of [file, url]) {
        for (const args of [['fr/short-urls', 'fr/billings', 'fr/cancellations'], ['fr/billings', 'fr/cancellations', '--plan-id', unseen!]]) {
          const r = await payrecInProcess(emu, ['sync', ...args, '--db', db, '-q']);
          expect(r.exitCode, r.stderr).toBe(0);
        }
      }
      return { file, url, seen, unseen: unseen! };
    })());

  test('payrec transfers --db URL reads which plans\' billings to include from the server, as from a DuckDB file: the same JSON digit for digit, and the emulator\'s billings of those plans', async () => {
    const { file, url, seen, unseen } = await syncedFr();
    const [from, to] = [Date.UTC(2025, 0, 1) / 1000, Date.UTC(2026, 0, 1) / 1000];
    const [duck, server] = await Promise.all([file, url].map((db) => payrecInProcess(emu, ['transfers', '--product', 'fr', '--period', '2025', '--db', db, '-f', 'json'])));
    const said = `including the billings of ${seen.length + 1} fixed-recurring plans (${seen.length} named by short urls, 1 remembered from sync --plan-id); a plan that no short url names is unseen until added: payrec fr plans add PLAN_ID\n`;
    for (const r of [duck, server]) expect([r.exitCode, r.stderr]).toEqual([0, said]);
    expect(server.stdout).toBe(duck.stdout);
    // Against the emulator: the billings of 2025 of every plan a short url names and of the one only the mirror remembers.
    const want: Row[] = [];
    for (const planId of [...seen, unseen]) want.push(...(await listOf(emu, `/fixed-recurring/plans/${planId}/billings`)).filter((b) => (b.timestamp as number) >= from && (b.timestamp as number) < to).map((b) => ({ ...b, planId })));
    const got = JSON.parse(server.stdout) as Row[];
    const key = (r: Row) => `${r.planId} ${r.transactionHash}`;
    expect(got.map(key).sort()).toEqual(want.map(key).sort());
    expect(got.some((r) => r.planId === unseen)).toBe(true);
    expect(decimalSum(got.map((r) => r.amount as string))).toBe(decimalSum(want.map((r) => r.amount as string)));
  }, 180_000);

  test('metrics --currency USD --rates FILE: the same figures and movements from PostgreSQL as from DuckDB, digit for digit, valued by the file\'s rows', async () => {
    const { file, url, seen, unseen } = await syncedFr();
    const tokens = new Set<string>();
    for (const planId of [...seen, unseen]) for (const b of await listOf(emu, `/fixed-recurring/plans/${planId}/billings`)) tokens.add(b.token as string);
    // A row per token every 7h13m through 2024 and 2025 (off the hour, so a billing's time read a little wrong takes another
    // row), rates of many digits that move with each row (so MRR moves with them: fx).
    const lines = ['time,chain,token,currency,rate,source'];
    let k = 0;
    for (const token of [...tokens].sort()) {
      for (let t = Date.UTC(2024, 0, 1) / 1000; t <= ANCHOR; t += 7 * 3600 + 13 * 60) {
        lines.push(`${new Date(t * 1000).toISOString().replace('.000Z', 'Z')},bsc,${token},USD,${(lines.length % 7) + 1}.${String(((k += 7_919) % 99_991) + 10_000).padStart(9, '0')}${token.length},desk`);
      }
    }
    const rates = join(tempDir(), 'rates.csv');
    writeFileSync(rates, `${lines.join('\n')}\n`);
    for (const extra of [[], ['--by', 'token'], ['--movements']]) {
      const args = ['metrics', '--period', '2025', '--currency', 'USD', '--rates', rates, ...extra, '-f', 'json', '-q'];
      const [duck, server] = await Promise.all([file, url].map((db) => payrecInProcess(emu, [...args, '--db', db])));
      for (const r of [duck, server]) expect([r.exitCode, r.stderr], extra.join(' ')).toEqual([0, '']);
      expect(server.stdout, extra.join(' ')).toBe(duck.stdout);
      const rows = JSON.parse(server.stdout) as Row[];
      expect(rows.length).toBeGreaterThan(0);
      if (extra[0] === '--movements') {
        expect(rows.every((m) => /^file:rates\.csv:\d+$/.test(m.rateSource as string))).toBe(true);
        expect(rows.some((m) => m.kind === 'fx')).toBe(true);
      } else {
        expect(rows.every((r) => r.currency === 'USD')).toBe(true);
        expect(rows.some((r) => r.mrr_end !== '0' && r.mrr_fx !== '0')).toBe(true);
      }
    }
  }, 180_000);

  test('a URL with a password is refused (exit 2) before anything is sent, and the URL is never printed: --debug, errors, config list', async () => {
    const before = emu.requests.length;
    const secret = 's3cr3t-Pass';
    const withPassword = new URL(postgres.freshUrl('secret'));
    withPassword.password = secret;
    for (const args of [['sync', '--db', withPassword.toString()], ['sql', '--db', withPassword.toString(), 'SELECT 1']]) {
      const r = await payrec(emu, args);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/password/);
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
    const env = { PAYREC_DB: withPassword.toString() };
    expect((await payrec(emu, ['sql', 'SELECT 1'], { env })).exitCode).toBe(2);
    expect(emu.requests.length).toBe(before);

    const url = postgres.freshUrl('secret');
    const { username, pathname, search } = new URL(url);
    const leaks = (text: string) => [url, `${username}@`, `${pathname}${search}`, postgres.schemaOf(url)].filter((part) => text.includes(part));
    const sync = await payrec(emu, ['--debug', 'sync', 'ot/transfers', '--db', url]);
    expect(sync.exitCode, sync.stderr).toBe(0);
    expect(leaks(sync.stdout + sync.stderr)).toEqual([]);
    // A database that is not there: an error naming the mirror by its masked URL only.
    const missing = new URL(url);
    missing.pathname = '/payrec_no_such_database';
    const failed = await payrec(emu, ['sql', '--db', missing.toString(), 'SELECT 1']);
    expect(failed.exitCode).toBe(2);
    expect(failed.stderr).toContain('postgres://');
    expect(failed.stderr).toContain('/****');
    expect(failed.stderr).not.toContain(missing.toString());
    // Stored in a profile: said, listed and read back masked.
    const config = { env: { PAYREC_CONFIG_DIR: tempDir() } };
    const set = await payrec(undefined, ['config', 'set', 'db', url], config);
    expect(set.exitCode, set.stderr).toBe(0);
    const list = await payrec(undefined, ['config', 'list'], config);
    const get = await payrec(undefined, ['config', 'get', 'db'], config);
    expect(list.stdout).toMatch(/^db\tpostgres:\/\/[^\s]+\/\*\*\*\*\t\(profile default\)$/m);
    for (const r of [set, list, get]) expect(leaks(r.stdout + r.stderr)).toEqual([]);
    // And the profile's mirror is the server's.
    const counted = await payrec(emu, ['sql', '-f', 'json', 'SELECT count(*) AS n FROM one_time_transfers'], config);
    expect(JSON.parse(counted.stdout)).toEqual([{ n: emu.records('bsc', 'one-time/transfers').records.length }]);
    // --parquet is a file's: exit 2 with a URL, nothing sent.
    const parquet = await payrec(emu, ['sync', '--db', url, '--parquet', tempDir()]);
    expect(parquet.exitCode).toBe(2);
    expect(parquet.stderr).toMatch(/--parquet .*PostgreSQL/);
  }, 120_000);

  test('roles: a syncing role with no DDL right syncs what a DBA laid out (db init --print-sql --writer); a reader (db grant-reader) reads and its writes are refused', async () => {
    const suffix = `${process.pid}_${Date.now() % 100000}`;
    const [writer, reader] = [`payrec_writer_${suffix}`, `payrec_reader_${suffix}`];
    await postgres.admin(`CREATE ROLE ${writer} LOGIN`, `CREATE ROLE ${reader} LOGIN`);
    const dba = postgres.freshUrl('roles');
    const schema = postgres.schemaOf(dba);
    const as = (user: string) => {
      const u = new URL(dba);
      u.username = user;
      return u.toString();
    };
    // Before the DBA: the writer cannot lay it out (no right to create a schema).
    const early = await payrec(emu, ['sync', 'ot/transfers', '--db', as(writer)]);
    expect(early.exitCode).toBe(3);
    expect(early.stderr).toMatch(/permission denied/);
    const ddl = await payrecInProcess(undefined, ['db', 'init', '--print-sql', '--writer', writer, '--db', dba]);
    expect(ddl.exitCode, ddl.stderr).toBe(0);
    expect(ddl.stdout).toContain(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await postgres.admin(ddl.stdout);
    const rights = await postgres.admin(`SELECT has_schema_privilege('${writer}', '${schema}', 'CREATE') AS s, has_schema_privilege('${writer}', '${schema}_store', 'CREATE') AS t, has_database_privilege('${writer}', current_database(), 'CREATE') AS d`);
    expect(rights).toEqual([{ s: false, t: false, d: false }]);
    const synced = await payrec(emu, ['sync', 'ot/transfers', 'ot/payments', '--db', as(writer), '-f', 'json']);
    expect(synced.exitCode, synced.stderr).toBe(0);
    expect(Object.fromEntries((JSON.parse(synced.stdout) as Row[]).map((r) => [r.table, r.new]))).toEqual({
      one_time_transfers: emu.records('bsc', 'one-time/transfers').records.length,
      one_time_payments: emu.records('bsc', 'one-time/payments').records.length,
    });

    const grant = await payrecInProcess(undefined, ['db', 'grant-reader', reader, '--db', dba]);
    expect(grant.exitCode, grant.stderr).toBe(0);
    const n = emu.records('bsc', 'one-time/transfers').records.length;
    expect(await sql(as(reader), 'SELECT count(*) AS n FROM one_time_transfers')).toEqual([{ n }]);
    // The server refuses the reader's writes, whoever sends them: payrec sync, or SQL of its own.
    const write = await payrec(emu, ['sync', 'ot/transfers', '--db', as(reader), '--full']);
    expect(write.exitCode).toBe(3);
    expect(write.stderr).toMatch(/permission denied/);
    await expect(postgres.admin(`SET ROLE ${reader}`, `DELETE FROM "${schema}".payrec_cursors`)).rejects.toThrow(/permission denied/);
    await expect(postgres.admin(`SET ROLE ${reader}`, `SELECT count(*) FROM "${schema}_store".one_time_transfers`)).rejects.toThrow(/permission denied/);
    expect(await sql(as(reader), 'SELECT count(*) AS n FROM one_time_transfers')).toEqual([{ n }]);
    // payrec sql refuses a write before the server sees it, and the server's read-only transaction refuses what slips through.
    const del = await payrecInProcess(undefined, ['sql', '--db', dba, 'DELETE FROM one_time_transfers']);
    expect(del.exitCode).toBe(2);
    const cte = await payrecInProcess(undefined, ['sql', '--db', dba, 'WITH gone AS (DELETE FROM payrec_cursors RETURNING 1) SELECT count(*) FROM gone']);
    expect(cte.exitCode).toBe(2);
    expect(cte.stderr).toMatch(/read-only/);
    const two = await payrecInProcess(undefined, ['sql', '--db', dba, 'SELECT 1; DELETE FROM payrec_cursors']);
    expect(two.exitCode).toBe(2);
    expect((await postgres.admin(`SELECT count(*)::INT AS n FROM "${schema}".payrec_cursors`))[0].n).toBeGreaterThan(0);
    // Each query runs in a read-only transaction with payrec's statement timeout, whatever the role's or server's defaults.
    await postgres.admin(`ALTER ROLE ${reader} SET statement_timeout = 0`);
    expect(await sql(as(reader), 'SHOW statement_timeout')).toEqual([{ statement_timeout: '5min' }]);
    expect(await sql(as(reader), "SELECT current_setting('transaction_read_only') AS ro, current_setting('statement_timeout') AS t")).toEqual([{ ro: 'on', t: '5min' }]);
    // verify's verdicts are state the reader reads; acknowledging is a write it is refused (exit 3).
    expect(await sql(as(reader), 'SELECT count(*) AS n FROM chain_verdicts')).toEqual([{ n: 0 }]);
    const ack = await payrec(emu, ['verify', 'ack', `0x${'ab'.repeat(32)}`, '--reason', 'reviewed', '--db', as(reader)]);
    expect(ack.exitCode).toBe(3);
    expect(ack.stderr).toMatch(/permission denied/);
    const written = await payrec(emu, ['verify', 'ack', `0x${'ab'.repeat(32)}`, '--reason', 'reviewed', '--db', as(writer)]);
    expect(written.exitCode, written.stderr).toBe(0);
    expect(await sql(as(reader), 'SELECT "transactionHash" AS h, reason FROM chain_acks')).toEqual([{ h: `0x${'ab'.repeat(32)}`, reason: 'reviewed' }]);
  }, 120_000);
});
