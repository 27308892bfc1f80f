import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec, tempDir } from './helpers.js';
import { decimalSum, expectMirrorsList, listOf, sql, type Row } from './mirror-helpers.js';

// The mirror under live traffic (DESIGN.md "Live traffic"): records keep arriving, a
// third of them late (stamped up to two minutes in the past) and a third pending
// (confirmed or failed seconds later). Syncs run one after another while it goes on;
// then the traffic stops, the last records resolve, and one more sync must leave every
// table equal to the emulator's ground truth: no record missing, none twice, every
// status current, every amount exact.

const UNSCOPED: [table: string, collection: string, identity: string[]][] = [
  ['variable_recurring_transfers', 'variable-recurring/transfers', ['transactionHash']],
  ['on_demand_transfers', 'on-demand/transfers', ['transactionHash']],
  ['one_time_payments', 'one-time/payments', ['id']],
  ['one_time_transfers', 'one-time/transfers', ['transactionHash']],
  ['wallet_to_wallet_payments', 'wallet-to-wallet/payments', ['id']],
  ['wallet_to_wallet_transfers', 'wallet-to-wallet/transfers', ['transactionHash']],
  ['scheduled_payments_transfers', 'scheduled-payments/transfers', ['transactionHash']],
  ['dollar_cost_average_executions', 'dollar-cost-average/executions', ['transactionHash']],
];
const SCOPED = ['fixed-recurring/billings', 'fixed-recurring/cancellations', 'variable-recurring/cancellations', 'variable-recurring/cancellation-requests'];

let emu: Emulator;
let db: string;

beforeAll(async () => {
  // Generated data in 2025; everything stamped near now arrives live.
  emu = await emulator({ records: 300, now: 1_767_225_600 });
  db = join(tempDir(), 'live.duckdb');
});
afterAll(() => emu.close());

test('repeated syncs under live traffic, then one after it stops: every table equals the ground truth', async () => {
  const fx = emu.fixtures('bsc');
  const frPlan = fx.plans['fixed-recurring'][0];
  const vrPlan = fx.plans['variable-recurring'][0];
  const scopes = ['--plan-id', frPlan, '--plan-id', vrPlan];
  emu.live.start({
    rate: 120,
    lateFraction: 0.3,
    lateMaxSeconds: 120,
    pendingFraction: 0.3,
    chains: ['bsc'],
    collections: [...UNSCOPED.map(([, c]) => c), ...SCOPED],
  });
  const reports: Row[][] = [];
  const sync = async (args: string[]) => {
    const r = await payrec(emu, ['sync', '--db', db, '--lookback', '5m', '-f', 'json', ...args]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    reports.push(JSON.parse(r.stdout) as Row[]);
  };
  try {
    await sync(['fr/billings', 'fr/cancellations', 'vr/cancellations', 'vr/cancellation-requests', ...scopes]);
    for (let i = 0; i < 4; i++) {
      await sync([]);
      // Never a record twice, at any moment: every table in one query (one payrec sql, not eight).
      const counts = await sql(db, UNSCOPED.map(([table, , identity]) => `SELECT '${table}' AS t, count(*) AS n, count(DISTINCT (${identity.join(', ')})) AS d FROM ${table}`).join(' UNION ALL '));
      expect(counts.map((r) => r.t).sort()).toEqual(UNSCOPED.map(([table]) => table).sort());
      for (const row of counts) expect(row.n, String(row.t)).toBe(row.d);
    }
  } finally {
    emu.live.stop();
  }
  await emu.live.settle();
  const inserted = emu.live.status().inserted;
  expect(inserted).toBeGreaterThan(300);
  await sync([]);

  // Records arrived and changed while the syncs ran: some were new, some updated (pending → confirmed/failed).
  const total = (key: 'new' | 'updated') => reports.slice(1).flat().reduce((n, r) => n + (r[key] as number), 0);
  expect(total('new')).toBeGreaterThan(0);
  expect(total('updated')).toBeGreaterThan(0);

  for (const [table, collection, identity] of UNSCOPED) {
    await expectMirrorsList(db, table, identity, emu.records('bsc', collection).records);
  }
  // Lists of plans: the one given, and those the short urls and transfers name (synced without a flag).
  // The API at this quiet moment is the ground truth, each record with the plan it is listed under.
  const plansOf = {
    'fixed-recurring': new Set([frPlan, ...(await listOf(emu, '/fixed-recurring/short-urls')).map((u) => (u.planId as string).toLowerCase())]),
    'variable-recurring': new Set([vrPlan, ...emu.records('bsc', 'variable-recurring/transfers').records.map((t) => (t.planId as string).toLowerCase())]),
  };
  for (const [table, product, list, identity] of [
    ['fixed_recurring_billings', 'fixed-recurring', 'billings', ['transactionHash']],
    ['fixed_recurring_cancellations', 'fixed-recurring', 'cancellations', ['subscriptionId', 'transactionHash']],
    ['variable_recurring_cancellations', 'variable-recurring', 'cancellations', ['subscriptionId', 'transactionHash']],
    ['variable_recurring_cancellation_requests', 'variable-recurring', 'cancellation-requests', ['subscriptionId', 'transactionHash']],
  ] as const) {
    const truth: Row[] = [];
    for (const plan of plansOf[product]) truth.push(...(await listOf(emu, `/${product}/plans/${plan}/${list}`)));
    await expectMirrorsList(db, table, [...identity], truth);
  }

  // Plain SQL on the synced mirror against BigInt sums of the ground truth: SUM per token and month,
  // amount > x, ORDER BY amount.
  const transfers = emu.records('bsc', 'one-time/transfers').records;
  const tokens = [...new Set(transfers.map((t) => t.token as string))].sort();
  expect(await sql(db, 'SELECT token, SUM(amount) AS total FROM one_time_transfers GROUP BY token ORDER BY token')).toEqual(
    tokens.map((token) => ({ token, total: decimalSum(transfers.filter((t) => t.token === token).map((t) => t.amount as string)) })),
  );
  const month = (t: Row) => new Date((t.timestamp as number) * 1000).toISOString().slice(0, 7);
  const monthly = await sql(db, "SELECT token, strftime(date_trunc('month', timestamp), '%Y-%m') AS m, SUM(amount) AS total, count(*) AS n FROM one_time_transfers GROUP BY ALL ORDER BY token, m");
  const groups = new Map<string, Row[]>();
  for (const t of transfers) groups.set(`${t.token} ${month(t)}`, [...(groups.get(`${t.token} ${month(t)}`) ?? []), t]);
  expect(monthly).toEqual(
    [...groups].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, of]) => ({ token: key.split(' ')[0], m: key.split(' ')[1], total: decimalSum(of.map((t) => t.amount as string)), n: of.length })),
  );
  const units = (a: string) => BigInt(a.replace('-', '').split('.')[0] + (a.split('.')[1] ?? '').padEnd(18, '0')) * (a.startsWith('-') ? -1n : 1n);
  const threshold = '1000.5';
  const above = await sql(db, `SELECT transactionHash FROM one_time_transfers WHERE amount > ${threshold} ORDER BY amount DESC, transactionHash`);
  const larger = transfers
    .filter((t) => units(t.amount as string) > units(threshold))
    .sort((a, b) => (units(b.amount as string) > units(a.amount as string) ? 1 : units(b.amount as string) < units(a.amount as string) ? -1 : (a.transactionHash as string) < (b.transactionHash as string) ? -1 : 1));
  expect(above.map((r) => r.transactionHash)).toEqual(larger.map((t) => t.transactionHash));
  // And statuses: counts per status as the service has them now.
  const statuses = await sql(db, 'SELECT transactionStatus AS s, count(*) AS n FROM transfers GROUP BY s ORDER BY s');
  const want = new Map<string, number>();
  for (const [, collection] of UNSCOPED.filter(([t]) => t.endsWith('_transfers'))) {
    for (const r of emu.records('bsc', collection).records) want.set(r.transactionStatus as string, (want.get(r.transactionStatus as string) ?? 0) + 1);
  }
  // The view holds the billings of the plans synced too.
  for (const plan of plansOf['fixed-recurring']) {
    for (const r of await listOf(emu, `/fixed-recurring/plans/${plan}/billings`)) want.set(r.transactionStatus as string, (want.get(r.transactionStatus as string) ?? 0) + 1);
  }
  expect(statuses).toEqual([...want].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => ({ s, n })));
}, 480_000);
