import Big from 'big.js';
import ExcelJS from 'exceljs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SubscriptionFacts } from '../../src/emulator/index.js';
import { naiveLedger, naiveMovements, type Records } from '../oracle/subscriptions.js';
import { parseCsv, payrec, payrecInProcess as here, suiteEmulators, tempDir } from './helpers.js';
import { syncLifecycles } from './lifecycle-mirror.js';

// `payrec metrics --movements`, the cash columns (collected, failed_amount) and
// `payrec subscriptions --state cancelled` with a window (DESIGN.md "The month-end close
// in one command"), run as a user would against a mirror of the emulator's year of
// lifecycles. Expected values come from elsewhere: the movement list from the brute-force
// oracle (test/oracle/subscriptions.ts, DESIGN's definitions scanned second by second),
// the cash from exact BigInt sums of the emulator's own billings and from `payrec
// transfers --product fr --summary`, a command that never touches the engine.
// Answers read from the mirror and refusals run payrec inside this process (`here`,
// payrecInProcess; issue 48, the suite's time); the syncs, exit 9, --jq, -o and the
// API's summary run the built binary.

const s = suiteEmulators();
const DAY = 86_400;
const GRACE = 30 * DAY;
let db: string;
let facts: SubscriptionFacts[];
let records: Records;
let now: number;
const MONTHS_2025 = Array.from({ length: 12 }, (_, i) => ({ from: Date.UTC(2025, i, 1) / 1000, to: Date.UTC(2025, i + 1, 1) / 1000 }));

beforeAll(async () => {
  ({ db, facts, records, now } = await syncLifecycles(s.emu));
});

type Row = Record<string, string & number>;

describe('payrec metrics --movements', () => {
  it('a year of lifecycles: the list is the oracle\'s, and its sums equal the metrics rows of the same window to the last digit', async () => {
    const args = ['metrics', '--db', db, '--period', '2025', '--at', String(now), '-f', 'json', '-q'];
    const [listed, totals] = await Promise.all([here(s.emu, [...args, '--movements']), here(s.emu, args)]);
    expect(listed.exitCode, listed.stderr).toBe(0);
    const list = JSON.parse(listed.stdout) as Row[];
    const rows = JSON.parse(totals.stdout) as Row[];
    expect(list).toEqual(naiveMovements(records, MONTHS_2025, now, GRACE));
    // Sums per (month, token), counted and added here with big.js.
    for (const row of rows) {
      const own = list.filter((m) => m.from === row.from && m.token === row.token);
      const of = (kind: string) => own.filter((m) => m.kind === kind);
      const sum = (ms: Row[]) => ms.reduce((n, m) => n.plus(m.mrr_change), new Big(0));
      expect([of('new').length, of('reactivated').length, of('churned').length], `${row.token} ${row.from}`).toEqual([row.new, row.reactivated, row.churned]);
      expect(sum(of('new')).eq(row.mrr_new)).toBe(true);
      expect(sum(of('reactivated')).eq(row.mrr_reactivated)).toBe(true);
      expect(sum(of('churned')).neg().eq(row.mrr_churned)).toBe(true);
      expect(sum(own).eq(row.mrr_net)).toBe(true);
    }
    // The data hold every kind, and every token that moved has rows: not a vacuous comparison.
    expect(new Set(list.map((m) => m.kind))).toEqual(new Set(['new', 'reactivated', 'churned']));
    expect(list.length).toBeGreaterThan(20);
    // The same events by quarter: only their intervals differ.
    const quarters = await here(s.emu, [...args, '--movements', '--interval', 'quarter']);
    const byQuarter = JSON.parse(quarters.stdout) as Row[];
    expect(byQuarter.map(({ from: _f, to: _t, ...m }) => m)).toEqual(list.map(({ from: _f, to: _t, ...m }) => m));
    expect(byQuarter.every((m) => m.from < m.instant && m.instant <= m.to && (m.to - m.from) / DAY >= 90)).toBe(true);
  });

  it('every format and gate: --count, --fail-if-any (exit 9), --jq, csv with readable times, -o xlsx with date cells and money beside its exact text', async () => {
    const args = ['metrics', '--db', db, '--period', '2025-Q3', '--movements', '-q'];
    const file = join(tempDir(), 'moves.xlsx');
    const [json, count, gate, jq, csv, book] = await Promise.all([
      here(s.emu, [...args, '-f', 'json']),
      here(s.emu, [...args, '--count']),
      payrec(s.emu, [...args, '--fail-if-any', '-f', 'jsonl']),
      payrec(s.emu, [...args, '--jq', '.[] | select(.kind == "churned") | .subscriptionId']),
      here(s.emu, [...args, '-f', 'csv', '--columns', 'interval,instant,kind,mrr_change']),
      payrec(s.emu, [...args, '-o', file]),
    ]);
    const list = JSON.parse(json.stdout) as Row[];
    expect(list.length).toBeGreaterThan(2);
    expect(count.stdout).toBe(`${list.length}\n`);
    expect(gate.exitCode).toBe(9);
    expect(gate.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual(list);
    expect(gate.stderr).toBe(`${list.length} movements matched (--fail-if-any)\n`);
    expect(jq.stdout).toBe(list.filter((m) => m.kind === 'churned').map((m) => `${m.subscriptionId}\n`).join(''));
    const [head, ...lines] = parseCsv(csv.stdout);
    expect(head).toEqual(['interval', 'instant', 'kind', 'mrr_change']);
    expect(lines).toEqual(list.map((m) => [new Date(m.from * 1000).toISOString().slice(0, 7), new Date(m.instant * 1000).toISOString().replace('T', ' ').slice(0, 19), m.kind, m.mrr_change]));
    expect(book.exitCode, book.stderr).toBe(0);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(file);
    const sheet = workbook.worksheets[0];
    const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
    expect(header.filter((h) => h.endsWith('_exact'))).toEqual(['mrr_change_exact']);
    list.forEach((m, i) => {
      const cell = (name: string) => sheet.getRow(i + 2).getCell(header.indexOf(name) + 1).value;
      expect(cell('instant')).toEqual(new Date(m.instant * 1000));
      expect(cell('mrr_change')).toBe(Number(m.mrr_change));
      expect(cell('mrr_change_exact')).toBe(m.mrr_change);
      expect(cell('kind')).toBe(m.kind);
    });
  });

  it('a window with nothing moving is an empty list, said on stderr; --movements with --chart or --by, or an unknown column, is exit 2 before the mirror is read', async () => {
    const quiet = await here(s.emu, ['metrics', '--db', db, '--from', '2020-01-01', '--to', '2020-01-31', '--movements', '-f', 'json']);
    // The mirror's plans were synced whole: a window before every record is answered, empty.
    expect(quiet.exitCode, quiet.stderr).toBe(0);
    expect(JSON.parse(quiet.stdout)).toEqual([]);
    expect(quiet.stderr).toContain('no subscription moved in this window');
    const none = '/nonexistent-folder/none.duckdb';
    for (const [extra, message] of [
      [['--chart'], '--chart draws the totals'],
      [['--by', 'plan'], 'leave out --by'],
      [['--columns', 'instant,mrr_end'], 'mrr_end'],
    ] as const) {
      const r = await here(s.quiet, ['metrics', '--db', none, '--period', '2025-Q3', '--movements', ...extra]);
      expect(r.exitCode, extra.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
    }
    expect(s.quiet.requests).toEqual([]);
  });
});

describe('cash beside MRR: collected and failed_amount', () => {
  it('equal, token by token and month by month, exact BigInt sums of the emulator\'s billings and payrec transfers --product fr --summary of the same window', async () => {
    const env = { PAYREC_DB: db };
    const period = '2025-Q3';
    const [metricsRun, quarterRun] = await Promise.all([
      here(s.emu, ['metrics', '--db', db, '--period', period, '-f', 'json', '-q']),
      here(s.emu, ['metrics', '--db', db, '--period', period, '--interval', 'quarter', '-f', 'json', '-q']),
    ]);
    const rows = JSON.parse(metricsRun.stdout) as Row[];
    const [quarter] = [JSON.parse(quarterRun.stdout) as Row[]];
    // Ground truth: each billing's amount as a BigInt of 10^-18, paid (success 1, confirmed) or failed (success not 1 or status failed).
    const atto = (text: string) => {
      const [whole, part = ''] = text.split('.');
      return BigInt(whole + part.padEnd(18, '0'));
    };
    const show = (n: bigint) => new Big(n.toString()).div(new Big(10).pow(18)).toFixed();
    const truth = (token: string, from: number, to: number, which: 'paid' | 'failed') =>
      show(
        facts
          .filter((f) => f.token === token)
          .flatMap((f) => f.billings)
          .filter((b) => (b.timestamp as number) >= from && (b.timestamp as number) < to)
          .filter((b) => (which === 'paid' ? b.success === 1 && b.transactionStatus === 'confirmed' : b.success !== 1 || b.transactionStatus === 'failed'))
          .reduce((n, b) => n + atto(b.amount as string), 0n),
      );
    let nonzero = 0;
    for (const row of [...rows, ...quarter]) {
      expect(row.collected, `${row.token} ${row.from}`).toBe(truth(row.token, row.from, row.to, 'paid'));
      expect(row.failed_amount).toBe(truth(row.token, row.from, row.to, 'failed'));
      if (row.collected !== '0' && row.failed_amount !== '0') nonzero++;
    }
    expect(nonzero).toBeGreaterThan(1);
    // The same figures from the transfers list's summary: confirmed is collected, failed is failed_amount.
    for (const [window, own] of [[['--period', '2025-08'], rows.filter((r) => r.from === Date.UTC(2025, 7, 1) / 1000)], [['--period', period], quarter]] as const) {
      const summary = await payrec(s.emu, ['transfers', '--product', 'fr', ...window, '--summary', '-f', 'json', '-q'], { env });
      expect(summary.exitCode, summary.stderr).toBe(0);
      const totals = (JSON.parse(summary.stdout) as { totals: { token: string; status: string; amount: string }[] }).totals;
      for (const row of own) {
        const total = (status: string) => totals.find((t) => t.token === row.token && t.status === status)?.amount ?? '0';
        expect([row.collected, row.failed_amount], `${row.token} ${window.join(' ')}`).toEqual([total('confirmed'), total('failed')]);
      }
      expect(totals.filter((t) => t.status !== 'pending').every((t) => own.some((r) => r.token === t.token))).toBe(true);
    }
  });
});

describe('payrec subscriptions --state cancelled with a window', () => {
  it('keeps the subscriptions that ended in it (endsAt in [from, to)), as the oracle\'s ledger has them; the quarters of the year together are every one that ended in it', async () => {
    const ledger = naiveLedger(records.billings, records.cancellations, now, GRACE);
    const ended = (from: number, to: number) => ledger.filter((r) => r.state === 'cancelled' && r.endsAt! >= from && r.endsAt! < to).map((r) => r.subscriptionId).sort();
    const quarters = [1, 2, 3, 4].map((q) => ({ name: `2025-Q${q}`, from: Date.UTC(2025, 3 * (q - 1), 1) / 1000, to: Date.UTC(2025, 3 * q, 1) / 1000 }));
    const [year, ...runs] = await Promise.all([
      here(s.emu, ['subscriptions', '--db', db, '--state', 'canceled', '--from', '2025-01-01', '--to', '2025-12-31', '--count', '-q']),
      ...quarters.map((q) => payrec(s.emu, ['subscriptions', '--db', db, '--state', 'cancelled', '--period', q.name, '--jq', '.[].subscriptionId', '-q'])),
    ]);
    let total = 0;
    runs.forEach((r, i) => {
      expect(r.exitCode, r.stderr).toBe(0);
      const ids = r.stdout.split('\n').filter(Boolean).sort();
      expect(ids, quarters[i].name).toEqual(ended(quarters[i].from, quarters[i].to));
      total += ids.length;
    });
    expect(total).toBeGreaterThan(1);
    expect(year.stdout).toBe(`${total}\n`);
  });

  it('a window with another state, or with a subscription id, is exit 2 before the mirror is read', async () => {
    const none = '/nonexistent-folder/none.duckdb';
    for (const args of [
      ['subscriptions', '--period', '2025-10'],
      ['subscriptions', '--state', 'lapsed', '--period', '2025-10'],
      ['subscriptions', '--state', 'cancelled,lapsed', '--from', '2025-10-01'],
      ['subscriptions', '0x1234567890', '--period', '2025-10'],
    ]) {
      const r = await here(s.quiet, [...args, '--db', none]);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/--state cancelled alone|--period/);
    }
    expect(s.quiet.requests).toEqual([]);
  });
});
