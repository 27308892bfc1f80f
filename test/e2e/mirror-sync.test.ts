import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Emulator, Fixtures } from '../../src/emulator/index.js';
import { ANCHOR, eachAtOnce, emulator, payrec, payrecInProcess, tempDir } from './helpers.js';
import { decimalSum, expectMirrorsList, listOf, requestsTo, sql, type Row } from './mirror-helpers.js';

// Three tests at a time: enough to overlap the processes of one file, few enough that a
// loaded machine does not push a test past its timeout.
vi.setConfig({ maxConcurrency: 3 });

// `payrec sync` through the binary against the emulator: the mirror holds exactly the
// service's records, totals equal --summary and BigInt sums, later syncs fetch only
// what is new, plan scopes are remembered, and the report says what happened.
// The first sync, the first --emulator run, PAYREC_DB's, and -o's export are processes of
// the built binary (files each left on disk once the process is gone); the other syncs
// and reads run inside this worker (payrecInProcess: no process boundary under test in
// them, issue 48).
// The tests that only read the first sync's mirror run at once (describe.concurrent);
// later syncs, which add records to the emulator and change that mirror, and the tests
// that each sync every plan (long under load), run one after another (issue 48).

/** The lists `payrec sync` reads with no collection named, and what identifies their records. */
const DEFAULTS: [table: string, path: string, identity: string[]][] = [
  ['fixed_recurring_short_urls', '/fixed-recurring/short-urls', ['path']],
  ['variable_recurring_transfers', '/variable-recurring/transfers', ['transactionHash']],
  ['on_demand_short_urls', '/on-demand/short-urls', ['path']],
  ['on_demand_transfers', '/on-demand/transfers', ['transactionHash']],
  ['one_time_payments', '/one-time', ['id']],
  ['one_time_transfers', '/one-time/transfers', ['transactionHash']],
  ['wallet_to_wallet_payments', '/wallet-to-wallet/payments', ['id']],
  ['wallet_to_wallet_transfers', '/wallet-to-wallet/transfers', ['transactionHash']],
  ['scheduled_payments_transfers', '/scheduled-payments/transfers', ['transactionHash']],
  ['dollar_cost_average_executions', '/dollar-cost-average/executions', ['transactionHash']],
];
/** Lists kept per plan, synced after the others for the plans those name (short urls, transfers). */
const PLAN_LISTS: [table: string, product: string, list: string][] = [
  ['fixed_recurring_billings', 'fixed-recurring', 'billings'],
  ['fixed_recurring_cancellations', 'fixed-recurring', 'cancellations'],
  ['variable_recurring_cancellations', 'variable-recurring', 'cancellations'],
  ['variable_recurring_cancellation_requests', 'variable-recurring', 'cancellation-requests'],
];

let emu: Emulator;
let fx: Fixtures;
let dir: string;
let db: string;
let first: Row[];

beforeAll(async () => {
  emu = await emulator({ records: 1500 });
  fx = emu.fixtures('bsc');
  dir = tempDir();
  db = join(dir, 'mirror.duckdb');
  const r = await payrec(emu, ['sync', '--db', db, '-f', 'json']);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  first = JSON.parse(r.stdout) as Row[];
});
afterAll(() => emu.close());

describe.concurrent('a first sync', () => {
  test('mirrors every record of every default list exactly', async () => {
    await eachAtOnce(DEFAULTS, 4, async ([table, path, identity]) => expectMirrorsList(db, table, identity, await listOf(emu, path)));
  });

  test('reports per collection what it fetched and wrote, and how many requests it took', async () => {
    expect(first.map((r) => r.table)).toEqual([...DEFAULTS.map(([t]) => t), ...PLAN_LISTS.map(([t]) => t)]);
    for (const row of first) expect(row.note, String(row.table)).toBe('');
    for (const [table, path] of DEFAULTS) {
      const total = (await listOf(emu, path)).length;
      const row = first.find((r) => r.table === table)!;
      // One request a page: 960 records a page of a list with a time window (128 make a DuckDB row group), 1000 of short urls.
      const pageSize = table.endsWith('short_urls') ? 1000 : 960;
      expect(row).toMatchObject({ fetched: total, new: total, updated: 0, unchanged: 0, deleted: 0, requests: Math.max(1, Math.ceil(total / pageSize)), note: '' });
      expect(typeof row.seconds).toBe('number');
    }
  });

  test('totals per token equal BigInt sums of the API amounts, and --summary digit for digit', async () => {
    const transfers = await listOf(emu, '/one-time/transfers');
    const got = await sql(db, 'SELECT token, SUM(amount) AS total, SUM(fee) AS fees FROM one_time_transfers GROUP BY token ORDER BY token');
    const tokens = [...new Set(transfers.map((t) => t.token as string))].sort();
    expect(got).toEqual(
      tokens.map((token) => {
        const of = transfers.filter((t) => t.token === token);
        return { token, total: decimalSum(of.map((t) => t.amount as string)), fees: decimalSum(of.map((t) => t.fee as string)) };
      }),
    );
    const summary = JSON.parse((await payrecInProcess(emu, ['ot', 'transfers', '--all', '--summary', '-f', 'json', '--to', '99999999999'])).stdout);
    // --summary totals per token and status: the same digits as SQL grouped the same way.
    const byStatus = await sql(db, 'SELECT token, transactionStatus AS status, SUM(amount) AS amount FROM one_time_transfers GROUP BY ALL ORDER BY ALL');
    const rows = (summary.totals as { token: string; status: string; amount: string }[]).map(({ token, status, amount }) => ({ token, status, amount }));
    expect(rows.sort((a, b) => (a.token + a.status).localeCompare(b.token + b.status))).toEqual(byStatus);
  });

  test('receivers of a payment sum exactly through UNNEST', async () => {
    const payments = await listOf(emu, '/one-time');
    const got = await sql(db, 'SELECT r.user AS receiver, SUM(r.amount) AS total FROM one_time_payments, UNNEST(receivers) AS u(r) GROUP BY ALL');
    const amounts = new Map<string, string[]>();
    for (const p of payments) for (const r of p.receivers as Row[]) amounts.set(r.user as string, [...(amounts.get(r.user as string) ?? []), r.amount as string]);
    expect(new Map(got.map((g) => [g.receiver, g.total]))).toEqual(new Map([...amounts].map(([user, a]) => [user, decimalSum(a)])));
  });

  test('the transfers view unites the five transfer tables and the billings of the plans synced, with their product', async () => {
    const got = await sql(db, 'SELECT product, count(*) AS n FROM transfers GROUP BY product ORDER BY product');
    const want = await Promise.all(
      ['dollar-cost-average', 'on-demand', 'one-time', 'scheduled-payments', 'variable-recurring', 'wallet-to-wallet']
        .filter((p) => p !== 'dollar-cost-average')
        .map(async (p) => ({ product: p, n: (await listOf(emu, `/${p}/transfers`)).length })),
    );
    // A default sync reads the billings of the plans the short urls name.
    const plans = [...new Set((await listOf(emu, '/fixed-recurring/short-urls')).map((u) => String(u.planId).toLowerCase()))];
    let billings = 0;
    for (const plan of plans) billings += (await listOf(emu, `/fixed-recurring/plans/${plan}/billings`)).length;
    expect(billings).toBeGreaterThan(0);
    expect(got).toEqual([{ product: 'fixed-recurring', n: billings }, ...want]);
  });
});

describe('--tz', () => {
  test('months and printed times follow the zone, with each instant\'s own offset', async () => {
    const zone = 'Europe/Berlin';
    // The ground truth in Berlin time, from Intl (sv-SE writes 2026-10-31 14:05:09), not from payrec.
    const wall = (t: number) => new Date(t * 1000).toLocaleString('sv-SE', { timeZone: zone });
    const offset = (t: number) => (Date.parse(wall(t).replace(' ', 'T') + 'Z') / 1000 - t) / 3600;
    const times = (await listOf(emu, '/one-time/transfers')).map((t) => t.timestamp as number).sort((a, b) => a - b);
    const months = new Map<string, number>();
    for (const t of times) months.set(wall(t).slice(0, 7), (months.get(wall(t).slice(0, 7)) ?? 0) + 1);
    const got = await sql(db, "SELECT strftime(date_trunc('month', timestamp), '%Y-%m') AS month, count(*) AS n FROM one_time_transfers GROUP BY ALL ORDER BY month", { env: { PAYREC_TZ: zone } });
    expect(got).toEqual([...months].sort().map(([month, n]) => ({ month, n })));
    const printed = await sql(db, 'SELECT timestamp FROM one_time_transfers ORDER BY timestamp', { env: { PAYREC_TZ: zone } });
    expect(printed.map((r) => r.timestamp)).toEqual(times.map((t) => `${wall(t)}+0${offset(t)}`));
    // Both offsets occur: the data spans a daylight-saving change.
    expect(new Set(times.map(offset))).toEqual(new Set([1, 2]));
  });
});

describe('later syncs', () => {
  test('fetch only what is new: late records within the lookback are added, the rest is not fetched again', async () => {
    emu.clearLog();
    // Two records a minute old (inside the default 1h lookback), one of them in the past of the newest.
    for (const timestamp of [Math.floor(Date.now() / 1000) - 60, Math.floor(Date.now() / 1000) - 30]) {
      const res = await fetch(`${emu.url}/_emulator/records`, { method: 'POST', headers: { authorization: `Bearer ${emu.keyFor('bsc')}` }, body: JSON.stringify({ chain: 'bsc', collection: 'one-time/transfers', timestamp }) });
      expect(res.status).toBe(201);
    }
    const r = await payrecInProcess(emu, ['sync', '--db', db, '-f', 'json']);
    expect(r.exitCode).toBe(0);
    const report = JSON.parse(r.stdout) as Row[];
    expect(report.find((x) => x.table === 'one_time_transfers')).toMatchObject({ fetched: 2, new: 2, updated: 0, unchanged: 0 });
    for (const row of report.filter((x) => x.table !== 'one_time_transfers')) expect(row.new).toBe(0);
    // A no-change sync of every default collection: at most 2 requests each.
    for (const [, path] of DEFAULTS) expect(requestsTo(emu, `/v1/bsc${path}`)).toBeLessThanOrEqual(2);
    await expectMirrorsList(db, 'one_time_transfers', ['transactionHash'], await listOf(emu, '/one-time/transfers'));
  });

  test('--full reads everything again and finds nothing changed', async () => {
    const r = await payrecInProcess(emu, ['sync', 'ot/transfers', '--full', '--db', db, '-f', 'json']);
    const total = (await listOf(emu, '/one-time/transfers')).length;
    expect(JSON.parse(r.stdout)).toEqual([expect.objectContaining({ table: 'one_time_transfers', fetched: total, new: 0, updated: 0, unchanged: total })]);
  });

  test('a short url deleted on the service is removed from the mirror', async () => {
    const [mine] = await listOf(emu, '/on-demand/short-urls');
    const del = await payrecInProcess(emu, ['od', 'short-urls', 'delete', mine.path as string, '--yes']);
    expect(del.exitCode).toBe(0);
    const r = await payrecInProcess(emu, ['sync', 'od/short-urls', '--db', db, '-f', 'json']);
    expect(JSON.parse(r.stdout)).toEqual([expect.objectContaining({ table: 'on_demand_short_urls', deleted: 1 })]);
    await expectMirrorsList(db, 'on_demand_short_urls', ['path'], await listOf(emu, '/on-demand/short-urls'));
  });
});

describe('plan and strategy scopes', () => {
  test('a flagless sync mirrors the lists of every plan that short urls and transfers name, each row with the plan the service lists it under', async () => {
    // Ground truth: every plan's lists as the emulator serves them over HTTP.
    const planOf = new Map<string, string>();
    for (const plan of fx.plans['fixed-recurring']) for (const b of await listOf(emu, `/fixed-recurring/plans/${plan}/billings`)) planOf.set(b.transactionHash as string, plan);
    const named = {
      'fixed-recurring': [...new Set((await listOf(emu, '/fixed-recurring/short-urls')).map((u) => (u.planId as string).toLowerCase()))].sort(),
      'variable-recurring': [...new Set((await listOf(emu, '/variable-recurring/transfers')).map((t) => (t.planId as string).toLowerCase()))].sort(),
    };
    expect(named['fixed-recurring'].length).toBeGreaterThan(1);
    expect(named['fixed-recurring'].length).toBeLessThan(fx.plans['fixed-recurring'].length + 1);
    for (const [table, product, list] of PLAN_LISTS) {
      const truth: Row[] = [];
      for (const plan of named[product as keyof typeof named]) truth.push(...(await listOf(emu, `/${product}/plans/${plan}/${list}`)).map((r) => ({ ...r, planId: plan })));
      expect(truth.length, table).toBeGreaterThan(0);
      const identity = table === 'fixed_recurring_billings' ? ['transactionHash'] : ['subscriptionId', 'transactionHash'];
      await expectMirrorsList(db, table, identity, truth.map(({ planId, ...r }) => r));
      const got = await sql(db, `SELECT ${identity.join(', ')}, planId FROM ${table}`);
      const want = new Map(truth.map((r) => [identity.map((f) => r[f]).join('|'), r.planId]));
      expect(new Map(got.map((r) => [identity.map((f) => r[f]).join('|'), r.planId]))).toEqual(want);
    }
    // planId per billing is the plan the emulator bills under, for every billing mirrored.
    for (const b of await sql(db, 'SELECT transactionHash, planId FROM fixed_recurring_billings')) expect(b.planId).toBe(planOf.get(b.transactionHash as string));
    // "Failed billings per plan" in one plain GROUP BY.
    const failed = await sql(db, "SELECT planId, count(*) AS n FROM fixed_recurring_billings WHERE success <> 1 OR transactionStatus = 'failed' GROUP BY planId ORDER BY planId");
    const want = new Map<string, number>();
    for (const plan of named['fixed-recurring']) {
      const n = (await listOf(emu, `/fixed-recurring/plans/${plan}/billings`)).filter((b) => b.success !== 1 || b.transactionStatus === 'failed').length;
      if (n > 0) want.set(plan, n);
    }
    expect(failed).toEqual([...want].map(([planId, n]) => ({ planId, n })));
  });

  test('a named list kept per plan needs a plan the mirror knows; one given is remembered, and plans found later join it', async () => {
    const folder = tempDir();
    const d = join(folder, 'plans.duckdb');
    const missing = await payrecInProcess(emu, ['sync', 'fr/billings', '--db', d]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/fixed-recurring\/billings is kept per plan or strategy, and the mirror knows none: give --plan-id/);
    // Bad input creates nothing: no mirror file, no sync lock beside it.
    expect(readdirSync(folder)).toEqual([]);

    const plan = fx.plans['fixed-recurring'][0];
    const r = await payrecInProcess(emu, ['sync', 'fr/billings', 'fr/cancellations', '--plan-id', plan, '--db', d, '-f', 'json']);
    expect(r.exitCode).toBe(0);
    const billings = await listOf(emu, `/fixed-recurring/plans/${plan}/billings`);
    expect(billings.length).toBeGreaterThan(0);
    await expectMirrorsList(d, 'fixed_recurring_billings', ['transactionHash'], billings);
    await expectMirrorsList(d, 'fixed_recurring_cancellations', ['subscriptionId', 'transactionHash'], await listOf(emu, `/fixed-recurring/plans/${plan}/cancellations`));
    expect(await sql(d, "SELECT scope FROM payrec_cursors WHERE collection = 'fixed-recurring/billings'")).toEqual([{ scope: `planId=${plan}` }]);

    // A plain sync keeps the plan given before, and adds those the short urls name.
    const again = await payrecInProcess(emu, ['sync', '--db', d, '-f', 'json']);
    expect(again.exitCode).toBe(0);
    const named = new Set((await listOf(emu, '/fixed-recurring/short-urls')).map((u) => (u.planId as string).toLowerCase()));
    const scopes = (await sql(d, "SELECT scope FROM payrec_cursors WHERE collection = 'fixed-recurring/billings' ORDER BY scope")).map((x) => x.scope);
    expect(scopes).toEqual([...new Set([plan, ...named])].sort().map((p) => `planId=${p}`));
  });

  test('the report names a list kept per plan that no plan is known for', async () => {
    const empty = await emulator({ records: 0 });
    try {
      const d = join(tempDir(), 'noplans.duckdb');
      const r = await payrecInProcess(empty, ['sync', '--db', d, '-f', 'json']);
      expect(r.exitCode).toBe(0);
      const report = JSON.parse(r.stdout) as Row[];
      for (const table of ['variable_recurring_cancellations', 'variable_recurring_cancellation_requests']) {
        expect(report.find((x) => x.table === table)).toMatchObject({ fetched: 0, requests: 0, note: expect.stringMatching(/^no plan or strategy known \(none given with --plan-id, none named by the records synced\)$/) });
        expect(r.stderr).toContain(`warning: ${table}: not synced: no plan or strategy known`);
      }
    } finally {
      await empty.close();
    }
  });

  test('a collection that has a list of every record, named with a scope id, reads only that scope', async () => {
    const strategy = fx.strategies[0];
    const d = join(tempDir(), 'strategy.duckdb');
    const r = await payrecInProcess(emu, ['sync', 'dca/executions', '--strategy-id', strategy, '--db', d, '-f', 'json']);
    expect(r.exitCode).toBe(0);
    const mine = await listOf(emu, `/dollar-cost-average/strategies/${strategy}/executions`);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.length).toBeLessThan((await listOf(emu, '/dollar-cost-average/executions')).length);
    await expectMirrorsList(d, 'dollar_cost_average_executions', ['transactionHash'], mine);
  });
});

describe('--from', () => {
  test('bounds a first sync', async () => {
    const d = join(tempDir(), 'from.duckdb');
    const from = ANCHOR - 30 * 86400;
    const r = await payrecInProcess(emu, ['sync', 'sp/transfers', '--from', String(from), '--db', d, '-q']);
    expect(r.exitCode).toBe(0);
    await expectMirrorsList(d, 'scheduled_payments_transfers', ['transactionHash'], (await listOf(emu, '/scheduled-payments/transfers')).filter((t) => (t.timestamp as number) >= from));
  });
});

describe('chains', () => {
  test('two chains of one service share a mirror, each row with its chain', async () => {
    const d = join(tempDir(), 'chains.duckdb');
    for (const chain of ['bsc', 'ethereum']) expect((await payrecInProcess(emu, ['sync', 'ot/transfers', '--db', d, '-q'], { chain })).exitCode).toBe(0);
    for (const chain of ['bsc', 'ethereum']) {
      await expectMirrorsList(d, 'one_time_transfers', ['transactionHash'], await listOf(emu, '/one-time/transfers', chain), chain);
    }
    expect(await sql(d, 'SELECT chain, count(*) AS cursors FROM payrec_cursors GROUP BY chain ORDER BY chain')).toEqual([
      { chain: 'bsc', cursors: 1 },
      { chain: 'ethereum', cursors: 1 },
    ]);
  });
});

describe('where the mirror lives', () => {
  test('--emulator keeps emulator.duckdb in the XDG data directory, and payrec sql finds it there', async () => {
    const data = tempDir();
    const env = { XDG_DATA_HOME: data };
    const r = await payrec(undefined, ['--emulator', 'sync', 'ot/transfers', '-q'], { env });
    expect(r.exitCode).toBe(0);
    const file = join(data, 'payrec', 'emulator.duckdb');
    expect(existsSync(file)).toBe(true);
    const q = await payrecInProcess(undefined, ['--emulator', 'sql', 'SELECT count(*) AS n FROM one_time_transfers', '-f', 'json'], { env });
    expect(JSON.parse(q.stdout)).toEqual([{ n: 250 }]);
    // A second --emulator run (another port) is the same service: no refusal, nothing new.
    const again = await payrecInProcess(undefined, ['--emulator', 'sync', 'ot/transfers', '-f', 'json'], { env });
    expect(again.exitCode).toBe(0);
    expect(JSON.parse(again.stdout)[0]).toMatchObject({ new: 0 });
  });

  test('PAYREC_DB names the file when --db is not given; the profile names the default one', async () => {
    const d = tempDir();
    const file = join(d, 'ci.duckdb');
    const r = await payrec(emu, ['sync', 'sp/transfers', '-q'], { env: { PAYREC_DB: file } });
    expect(r.exitCode).toBe(0);
    expect(statSync(file).size).toBeGreaterThan(0);
    const data = tempDir();
    const p = await payrecInProcess(emu, ['sync', 'sp/transfers', '-q'], { env: { XDG_DATA_HOME: data } });
    expect(p.exitCode).toBe(0);
    expect(existsSync(join(data, 'payrec', 'default.duckdb'))).toBe(true);
  });
});

describe.concurrent('payrec sql', () => {
  test('lists tables with row counts when no query is given', async () => {
    const r = await payrecInProcess(undefined, ['sql', '--db', db, '-f', 'json']);
    const tables = JSON.parse(r.stdout) as Row[];
    const transfers = tables.find((t) => t.table === 'one_time_transfers')!;
    expect(transfers).toMatchObject({ kind: 'view', rows: (await listOf(emu, '/one-time/transfers')).length });
    expect(transfers.columns).toBe('chain, description, amount, fee, token, category, timestamp, transactionHash, transactionStatus, sender, receiver, oneTimeId, extra_fields, inexact_amounts, first_seen, last_updated');
    expect(tables.find((t) => t.table === 'fixed_recurring_billings')!.columns).toMatch(/, triggeredBy, transactionHash, transactionStatus, planId, extra_fields,/);
    expect(tables.find((t) => t.table === 'transfers')).toMatchObject({ kind: 'view' });
  });

  test('exports a month of transfers to CSV atomically, amounts as the API sent them', async () => {
    const out = join(dir, 'month.csv');
    const start = ANCHOR - 31 * 86400;
    const r = await payrec(undefined, ['sql', '--db', db, '-f', 'csv', '-o', out, `SELECT transactionHash, amount, token FROM one_time_transfers WHERE timestamp >= to_timestamp(${start}) AND timestamp < to_timestamp(${ANCHOR}) ORDER BY timestamp, transactionHash`]);
    expect(r.exitCode).toBe(0);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\r\n');
    const truth = (await listOf(emu, '/one-time/transfers')).filter((t) => (t.timestamp as number) >= start && (t.timestamp as number) < ANCHOR);
    expect(lines[0]).toBe('transactionHash,amount,token');
    expect(new Set(lines.slice(1))).toEqual(new Set(truth.map((t) => `${t.transactionHash},${t.amount},${t.token}`)));
  });

  test('writing is refused, and so is more than one statement, with nothing changed', async () => {
    const before = await sql(db, 'SELECT count(*) AS n FROM one_time_transfers');
    for (const query of ['DELETE FROM one_time_transfers', "UPDATE one_time_transfers SET token = 'X'", 'DROP TABLE one_time_transfers', 'SELECT 1; SELECT 2', "COPY one_time_transfers TO '/tmp/x.csv'"]) {
      const r = await payrecInProcess(undefined, ['sql', '--db', db, query]);
      expect(r.exitCode, query).toBe(2);
      expect(r.stderr).toMatch(/^error: (payrec sql only reads|give exactly one SQL statement)/);
    }
    expect(await sql(db, 'SELECT count(*) AS n FROM one_time_transfers')).toEqual(before);
  });

  test('the retired exact_sum points to SUM', async () => {
    const r = await payrecInProcess(undefined, ['sql', '--db', db, 'SELECT exact_sum(amount_exact) FROM one_time_transfers']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/hint: amounts are DECIMAL\(38,18\): total them with SUM\(amount\)/);
  });
});
