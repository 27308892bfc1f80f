import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { ANCHOR, emulator, payrec, until } from './helpers.js';
import { postgres } from './pg-helpers.js';

// SQLSTATE 57014 from the real server (issue 47): a statement the server stops is the
// server's doing, said as such (exit 6), never taken for the user's Ctrl-C (exit 130)
// nor for bad input (exit 2). The server's own answers decide: another session's
// pg_cancel_backend, and a role's statement_timeout expiring while payrec waits on a
// lock this test holds.

const pgServer = postgres.prerequisite;

describe.skipIf(pgServer.skip)(`a statement the server stops (57014)${pgServer.note}`, () => {
  let emu: Emulator;
  beforeAll(async () => {
    pgServer.need();
    emu = await emulator({ records: 20, now: ANCHOR });
  });
  afterAll(() => emu?.close());

  /** A `payrec sql` of pg_sleep, once the server runs it; `marker` finds it in pg_stat_activity. */
  async function sleeping(url: string) {
    const marker = `payrec_cancel_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    const run = payrec(undefined, ['sql', '--db', url, `SELECT pg_sleep(600) AS ${marker}`]);
    const running = async () => (await postgres.admin(`SELECT count(*)::INT AS n FROM pg_stat_activity WHERE query LIKE '%${marker}%' AND state = 'active' AND pid <> pg_backend_pid()`))[0].n === 1;
    await until('the query running at the server', running, 60_000);
    return { run, marker };
  }

  test('Ctrl-C on payrec sql: payrec cancels its own statement, exit 130', async () => {
    const { run } = await sleeping(postgres.freshUrl('interrupted'));
    run.kill('SIGINT');
    const r = await run;
    expect(r.exitCode).toBe(130);
    expect(r.stderr).not.toMatch(/cancelled a statement/);
  });

  test('payrec sql cancelled by another session (pg_cancel_backend): exit 6 naming the server and what stopped it', async () => {
    const { run, marker } = await sleeping(postgres.freshUrl('cancelled'));
    await postgres.admin(`SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%${marker}%' AND pid <> pg_backend_pid()`);
    const r = await run;
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/^error: the mirror's server postgres:\/\/\S+ cancelled a statement: canceling statement due to user request\nhint: another session stopped it \(pg_cancel_backend/);
    expect(r.stdout).toBe('');
  });

  test('a sync whose role\'s statement_timeout expires (waiting on a lock another session holds): exit 6 naming statement_timeout, not an interruption', async () => {
    const url = postgres.freshUrl('timeout');
    const schema = postgres.schemaOf(url);
    // A first sync lays the schema out; then a role of the same rights with a 2-second statement_timeout.
    const first = await payrec(emu, ['sync', 'ot/transfers', '--db', url]);
    expect(first.exitCode, first.stderr).toBe(0);
    const role = `payrec_timeout_${process.pid}_${Date.now()}`;
    await postgres.admin(`CREATE ROLE ${role} LOGIN SUPERUSER`, `ALTER ROLE ${role} SET statement_timeout = '2s'`);
    const holder = new pg.Client({ connectionString: postgres.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE "${schema}".payrec_cursors IN ACCESS EXCLUSIVE MODE`);
      const asRole = new URL(url);
      asRole.username = role;
      const r = await payrec(emu, ['sync', 'ot/transfers', '--db', asRole.toString()]);
      expect(r.exitCode).toBe(6);
      expect(r.stderr).toMatch(/error: the mirror's server postgres:\/\/\S+ stopped a statement at its statement_timeout: canceling statement due to statement timeout\nhint: raise it for payrec's role \(ALTER ROLE … SET statement_timeout\)/);
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
      await postgres.admin(`DROP OWNED BY ${role}`, `DROP ROLE ${role}`).catch(() => {});
    }
  });
});
