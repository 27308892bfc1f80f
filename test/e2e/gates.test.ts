import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator, Fixtures } from '../../src/emulator/index.js';
import { emulator, parseCsv, payrec, payrecInProcess, tempDir, until } from './helpers.js';

// Answers finance and ops can sign (DESIGN.md): statuses, totals per token and status,
// no silent truncation, CI gates. The ground truth is the emulator's complete records
// (its control route GET /_emulator/records), summed here with BigInt: never payrec's
// own functions.

// The built binary in a process keeps the first answer of each kind (a summary, exit 6 with
// its -o, the first refusal, exit 9 of a list), what a process shows (stderr piped, -o's
// files, --jq) and live traffic; the other answers run in this worker (payrecInProcess,
// issue 48): no process boundary is under test there.

type Rec = Record<string, any>;
const CHAIN = 'bsc';

let emu: Emulator;
let quiet: Emulator;
let fx: Fixtures;

beforeAll(async () => {
  [emu, quiet] = await Promise.all([emulator({ records: 400 }), emulator({ records: 0 })]);
  fx = emu.fixtures(CHAIN);
});
afterAll(async () => {
  await Promise.all([emu.close(), quiet.close()]);
});

/** The collection's complete records, through the emulator's control route. */
async function truth(collection: string, of: Emulator = emu): Promise<Rec[]> {
  const res = await fetch(`${of.url}/_emulator/records?chain=${CHAIN}&collection=${encodeURIComponent(collection)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { records: Rec[] }).records;
}

/** A billing failed when success is not 1 or its status is failed (DESIGN.md); other records by their status. */
const statusOf = (r: Rec) => (r.success !== undefined && r.success !== 1 ? 'failed' : r.transactionStatus);

// Exact decimal sums with BigInt, independent of the big.js code under test.
const SCALE = 30;
function units(decimal: string): bigint {
  expect(decimal).toMatch(/^-?\d+(\.\d+)?$/);
  const negative = decimal.startsWith('-');
  const [whole, fraction = ''] = decimal.replace('-', '').split('.');
  const n = BigInt(whole) * 10n ** BigInt(SCALE) + BigInt(fraction.padEnd(SCALE, '0'));
  return negative ? -n : n;
}
function decimal(n: bigint): string {
  const sign = n < 0n ? '-' : '';
  const abs = n < 0n ? -n : n;
  const scale = 10n ** BigInt(SCALE);
  const fraction = (abs % scale).toString().padStart(SCALE, '0').replace(/0+$/, '');
  return `${sign}${abs / scale}${fraction ? '.' + fraction : ''}`;
}

/** token|status → { count, amount, fee }, as a spreadsheet of exact numbers would add them up. */
function expectedTotals(recs: Rec[]): Map<string, { count: number; amount: bigint; fee: bigint }> {
  const out = new Map<string, { count: number; amount: bigint; fee: bigint }>();
  for (const r of recs) {
    const key = `${r.token}|${statusOf(r)}`;
    const t = out.get(key) ?? out.set(key, { count: 0, amount: 0n, fee: 0n }).get(key)!;
    t.count++;
    t.amount += units(r.amount);
    t.fee += units(r.fee);
  }
  return out;
}

function compareTotals(rows: Rec[], recs: Rec[]): void {
  const expected = expectedTotals(recs);
  expect(rows.map((r) => `${r.token}|${r.status}`).sort()).toEqual([...expected.keys()].sort());
  for (const row of rows) {
    const e = expected.get(`${row.token}|${row.status}`)!;
    expect(Number(row.count)).toBe(e.count);
    expect(row.amount).toBe(decimal(e.amount));
    expect(row.fee).toBe(decimal(e.fee));
  }
}

const hashes = (stdout: string) => (JSON.parse(stdout) as Rec[]).map((r) => r.transactionHash as string).sort();

describe('--summary per token and status', () => {
  test.concurrent('one-time transfers: each token and status totalled apart, equal to BigInt sums of the emulator\'s records', async () => {
    const recs = await truth('one-time/transfers');
    const r = await payrec(emu, ['one-time', 'transfers', '--summary', '-f', 'json']);
    expect(r.exitCode).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.count).toBe(recs.length);
    compareTotals(s.totals, recs);
    // Settled totals never hold a failed or pending transfer: each status has its own rows.
    expect(new Set(s.totals.map((t: Rec) => t.status))).toEqual(new Set(['confirmed', 'pending', 'failed']));
    const statuses: Record<string, number> = {};
    for (const t of recs) statuses[t.transactionStatus] = (statuses[t.transactionStatus] ?? 0) + 1;
    expect(s.statuses).toEqual(statuses);
  });

  test.concurrent('-f csv: one row per token and status, fixed columns token,status,count,amount,fee', async () => {
    const recs = await truth('one-time/transfers');
    const r = await payrecInProcess(emu, ['one-time', 'transfers', '--summary', '-f', 'csv']);
    expect(r.exitCode).toBe(0);
    const [head, ...rows] = parseCsv(r.stdout);
    expect(head).toEqual(['token', 'status', 'count', 'amount', 'fee']);
    compareTotals(rows.map((row) => Object.fromEntries(head.map((h, i) => [h, row[i]]))), recs);
    // Every transfer product gives the same columns.
    const other = await payrecInProcess(emu, ['wallet-to-wallet', 'transfers', '--summary', '-f', 'csv']);
    expect(parseCsv(other.stdout)[0]).toEqual(['token', 'status', 'count', 'amount', 'fee']);
    // Other lists add their own amount fields, fixed by the endpoint (not by the data).
    const executions = await payrecInProcess(emu, ['dollar-cost-average', 'executions', '--summary', '-f', 'csv']);
    expect(parseCsv(executions.stdout)[0]).toEqual(['token', 'status', 'count', 'fee', 'swaps.inputAmount', 'swaps.outputAmount']);
  });

  test.concurrent('billings: failed means success ≠ 1 or status failed, in --summary and --failed alike', async () => {
    const all = await truth('fixed-recurring/billings');
    // Subscriptions whose billings hold both kinds of failure.
    const subs = fx.subscriptions['fixed-recurring'].filter((s) => {
      const rs = all.filter((b) => b.subscriptionId === s);
      return rs.some((b) => b.success !== 1 && b.transactionStatus !== 'failed') && rs.some((b) => b.success === 1 && b.transactionStatus === 'failed');
    });
    expect(subs.length).toBeGreaterThan(0);
    for (const sub of subs.slice(0, 2)) {
      const recs = all.filter((b) => b.subscriptionId === sub);
      const args = ['fixed-recurring', 'billings', '--subscription-id', sub];
      const [summary, failed, counted] = await Promise.all([
        payrecInProcess(emu, [...args, '--summary', '-f', 'json']),
        payrecInProcess(emu, [...args, '--failed', '--all', '-f', 'json']),
        payrecInProcess(emu, [...args, '--failed', '--count']),
      ]);
      const s = JSON.parse(summary.stdout);
      compareTotals(s.totals, recs);
      const failedTruth = recs.filter((b) => b.success !== 1 || b.transactionStatus === 'failed');
      expect(s.statuses.failed).toBe(failedTruth.length);
      expect(hashes(failed.stdout)).toEqual(failedTruth.map((b) => b.transactionHash).sort());
      expect(counted.stdout).toBe(`${failedTruth.length}\n`);
    }
  });

  test.concurrent('piped table: counts as field/value lines, then a totals table that says what each total holds', async () => {
    const r = await payrecInProcess(emu, ['fixed-recurring', 'billings', '--plan-id', fx.plans['fixed-recurring'][0], '--summary']);
    expect(r.exitCode).toBe(0);
    const [overview, totals] = r.stdout.split('\n\n');
    expect(overview).toMatch(/^count\t\d+\n/);
    expect(overview).toMatch(/\nstatus\.failed\t\d+/);
    const [title, header] = totals.split('\n');
    expect(title).toBe('exact totals per token and status (a billing failed: success is not 1 or status failed):');
    expect(header).toBe('token\tstatus\tcount\tamount\tfee');
  });
});

describe('an amount that cannot be counted exactly fails the summary', () => {
  let server: Server;
  let url: string;
  const hash = (n: number) => '0x' + String(n).padStart(64, '0');
  const transfer = (n: number, amount: unknown) => ({
    description: 'x', amount, fee: '0.1', token: 'USDT', category: 'c', timestamp: 1_767_225_600 - n,
    transactionHash: hash(n), transactionStatus: 'confirmed', sender: '0x' + 'a'.repeat(40), receiver: '0x' + 'b'.repeat(40), oneTimeId: hash(9),
  });
  // A service whose schema drifted: an exponent in a string, a JSON number, null, an empty
  // text and no amount at all, among decimal strings.
  const missing = (n: number) => {
    const { amount: _gone, ...rest } = transfer(n, undefined);
    return rest;
  };
  const data = [transfer(1, '12.5'), transfer(2, '1e5'), transfer(3, 12.5), transfer(4, '0.25'), transfer(5, null), transfer(6, ''), missing(7)];
  const BAD = [2, 3, 5, 6, 7];
  /** What the server sends: every record, or good ones and one bad one. */
  let served: unknown[] = data;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: served, limit: 1000, offset: 0, total: served.length }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('exit 6 naming both records, even under -q; nothing printed, no -o file', async () => {
    const out = join(tempDir(), 'summary.json');
    const r = await payrec(undefined, ['one-time', 'transfers', '--summary', '-q', '-f', 'json', '-o', out], {
      env: { PAYREC_BASE_URL: url, PAYREC_API_KEY: 'k'.repeat(32), PAYREC_CHAIN: CHAIN },
    });
    expect(r.exitCode).toBe(6);
    expect(r.stdout).toBe('');
    for (const n of BAD) expect(r.stderr, `record ${n}`).toContain(hash(n));
    expect(r.stderr).toContain('"1e5"');
    expect(r.stderr).not.toContain(hash(1));
    expect(r.stderr).not.toContain(hash(4));
    expect(existsSync(out)).toBe(false);
  });

  test('a record without a timestamp fails --chart (exit 6) rather than shrinking a bar', async () => {
    const env = { PAYREC_BASE_URL: url, PAYREC_API_KEY: 'k'.repeat(32), PAYREC_CHAIN: CHAIN };
    const { timestamp: _gone, ...timeless } = data[3] as { timestamp: number };
    served = [data[0], timeless];
    try {
      const r = await payrecInProcess(undefined, ['one-time', 'transfers', '--chart', 'day', '-f', 'json'], { env });
      expect(r.stdout).toBe('');
      expect(r.exitCode).toBe(6);
      expect(r.stderr).toMatch(/(^|\n)error: .*(no timestamp|timestamp)/);
    } finally {
      served = data;
    }
  });

  test.each(BAD)('record %i alone among good ones: --summary and --chart --token are exit 6 naming it, never a total without it', async (n) => {
    const env = { PAYREC_BASE_URL: url, PAYREC_API_KEY: 'k'.repeat(32), PAYREC_CHAIN: CHAIN };
    // Newest first, as the service sorts by default.
    served = [data[0], data[3], data[n - 1]].sort((a, b) => (b as { timestamp: number }).timestamp - (a as { timestamp: number }).timestamp);
    try {
      const summary = await payrecInProcess(undefined, ['one-time', 'transfers', '--summary', '-f', 'json'], { env });
      expect(summary.exitCode).toBe(6);
      expect(summary.stdout).toBe('');
      expect(summary.stderr).toMatch(new RegExp(`(^|\\n)error: cannot total exactly: 1 record carry an amount that is not a decimal string: ${hash(n)} \\(amount (missing|".*"|null|12\\.5)\\)\n`));
      const chart = await payrecInProcess(undefined, ['one-time', 'transfers', '--chart', 'day', '--token', 'USDT', '-f', 'json'], { env });
      expect(chart.exitCode).toBe(6);
      expect(chart.stdout).toBe('');
      expect(chart.stderr).toMatch(/(^|\n)error: cannot chart exactly: a record's amount (missing|".*"|null|12\.5) \(not a decimal string\)\n/);
      // The good ones alone total exactly: 12.5 + 0.25.
      served = [data[0], data[3]];
      const good = await payrecInProcess(undefined, ['one-time', 'transfers', '--summary', '-f', 'json'], { env });
      expect(good.exitCode).toBe(0);
      expect(JSON.parse(good.stdout).totals).toEqual([{ token: 'USDT', status: 'confirmed', count: 2, amount: '12.75', fee: '0.2' }]);
    } finally {
      served = data;
    }
  });
});

describe('statuses', () => {
  test.concurrent('--status pending,failed and --failed keep exactly the emulator\'s records of those statuses', async () => {
    const recs = await truth('one-time/transfers');
    const [some, failed] = await Promise.all([
      payrecInProcess(emu, ['one-time', 'transfers', '--status', 'pending,failed', '--all', '-f', 'json']),
      payrecInProcess(emu, ['one-time', 'transfers', '--failed', '--all', '-f', 'json']),
    ]);
    expect(hashes(some.stdout)).toEqual(recs.filter((t) => ['pending', 'failed'].includes(t.transactionStatus)).map((t) => t.transactionHash).sort());
    expect(hashes(failed.stdout)).toEqual(recs.filter((t) => t.transactionStatus === 'failed').map((t) => t.transactionHash).sort());
  });

  test.concurrent('--limit counts matching records, and says when more may match', async () => {
    const r = await payrecInProcess(emu, ['one-time', 'transfers', '--status', 'pending', '--limit', '5', '-f', 'json']);
    expect(r.exitCode).toBe(0);
    const got = JSON.parse(r.stdout) as Rec[];
    expect(got).toHaveLength(5);
    expect(got.every((t) => t.transactionStatus === 'pending')).toBe(true);
    expect(r.stderr).toBe('showing the first 5 matching records; more may match: --all for every record\n');
  });

  test.concurrent('lists whose records carry a status take --status; others do not', async () => {
    const help = await payrecInProcess(undefined, ['dollar-cost-average', 'executions', '--help']);
    expect(help.stdout).toContain('--status <list>');
    const shortUrls = await payrecInProcess(undefined, ['fixed-recurring', 'short-urls', 'list', '--help']);
    expect(shortUrls.stdout).not.toContain('--status');
    expect(shortUrls.stdout).toContain('--fail-if-any');
  });

  test('a bad status is exit 2 listing the accepted values, nothing sent', async () => {
    const r = await payrec(quiet, ['one-time', 'transfers', '--status', 'confirmed,done']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/invalid --status "confirmed,done": expected one or more of confirmed, pending, failed/);
    expect(quiet.requests).toEqual([]);
  });
});

describe('truncation is never silent', () => {
  test.concurrent('stderr piped: the notice is there; -q silences it', async () => {
    const [r, q] = await Promise.all([payrec(emu, ['one-time', 'transfers', '-f', 'csv']), payrec(emu, ['one-time', 'transfers', '-f', 'csv', '-q'])]);
    expect(parseCsv(r.stdout)).toHaveLength(101);
    expect(r.stderr).toBe('showing 100 of 400; --all for every record\n');
    expect(q.stderr).toBe('');
    expect(q.stdout).toBe(r.stdout);
  });

  test.concurrent('-o FILE holds the whole window without --all; with --limit, what was asked and the notice', async () => {
    const recs = await truth('one-time/transfers');
    const dir = tempDir();
    const [whole, limited] = await Promise.all([
      payrec(emu, ['one-time', 'transfers', '-f', 'csv', '-o', join(dir, 'all.csv')]),
      payrec(emu, ['one-time', 'transfers', '-f', 'csv', '--limit', '10', '-o', join(dir, 'ten.csv')]),
    ]);
    expect(whole.exitCode).toBe(0);
    expect(whole.stderr).toBe('');
    const [head, ...rows] = parseCsv(readFileSync(join(dir, 'all.csv'), 'utf8'));
    const at = head.indexOf('transactionHash');
    expect(rows.map((row) => row[at]).sort()).toEqual(recs.map((t) => t.transactionHash).sort());
    expect(parseCsv(readFileSync(join(dir, 'ten.csv'), 'utf8'))).toHaveLength(11);
    expect(limited.stderr).toBe('showing 10 of 400; --all for every record\n');
  });

  test('every --help example that exports is complete', async () => {
    const { endpoints } = await import('../../src/registry/endpoints.js');
    const exporting = endpoints.flatMap((e) => e.examples).filter((x) => /(-f|--format) (csv|json|jsonl)\b/.test(x));
    expect(exporting.length).toBeGreaterThan(0);
    // -o takes the whole window; to stdout an export needs --all (or says --limit).
    for (const x of exporting) expect(x, x).toMatch(/ --all\b| -o | --output | --limit /);
  });
});

describe('CI gates', () => {
  test.concurrent('--count prints only the number; --fail-if-any exits 9 when a record matches, 0 when none', async () => {
    const recs = await truth('one-time/transfers');
    const failed = recs.filter((t) => t.transactionStatus === 'failed');
    // A second that holds records, none of them failed.
    const quietSecond = recs.find((t) => t.transactionStatus === 'confirmed' && !failed.some((f) => f.timestamp === t.timestamp))!.timestamp;
    const window = ['--from', String(quietSecond), '--to', String(quietSecond)];
    const [count, gate, none, some] = await Promise.all([
      payrecInProcess(emu, ['one-time', 'transfers', '--failed', '--count']),
      payrec(emu, ['one-time', 'transfers', '--failed', '--count', '--fail-if-any']),
      payrecInProcess(emu, ['one-time', 'transfers', ...window, '--failed', '--fail-if-any', '-f', 'json']),
      payrecInProcess(emu, ['one-time', 'transfers', ...window, '--fail-if-any', '-f', 'json']),
    ]);
    expect(count).toMatchObject({ exitCode: 0, stdout: `${failed.length}\n`, stderr: '' });
    expect(gate).toMatchObject({ exitCode: 9, stdout: `${failed.length}\n`, stderr: `${failed.length} records matched (--fail-if-any)\n` });
    expect(none).toMatchObject({ exitCode: 0, stdout: '[]\n' });
    expect(some.exitCode).toBe(9);
    expect(JSON.parse(some.stdout).length).toBe(recs.filter((t) => t.timestamp === quietSecond).length);
  });

  test.concurrent('payrec sql: --count counts rows, --fail-if-any exits 9 or 0', async () => {
    const recs = await truth('one-time/transfers');
    const db = join(tempDir(), 'mirror.duckdb');
    const synced = await payrecInProcess(emu, ['sync', 'ot/transfers', '--db', db, '-q']);
    expect(synced.exitCode).toBe(0);
    const failedQuery = "SELECT * FROM one_time_transfers WHERE transactionStatus = 'failed'";
    const [count, gate, none] = await Promise.all([
      payrecInProcess(undefined, ['sql', '--db', db, failedQuery, '--count']),
      payrecInProcess(undefined, ['sql', '--db', db, failedQuery, '--fail-if-any', '-f', 'json']),
      payrecInProcess(undefined, ['sql', '--db', db, "SELECT * FROM one_time_transfers WHERE transactionStatus = 'no such status'", '--fail-if-any']),
    ]);
    const failed = recs.filter((t) => t.transactionStatus === 'failed');
    expect(count).toMatchObject({ exitCode: 0, stdout: `${failed.length}\n` });
    expect(gate.exitCode).toBe(9);
    expect(JSON.parse(gate.stdout)).toHaveLength(failed.length);
    expect(gate.stderr).toBe(`${failed.length} rows matched (--fail-if-any)\n`);
    expect(none.exitCode).toBe(0);
  });

  test.concurrent('--jq behaves as jq\'s manual says, on the document -f json prints', async () => {
    const args = ['one-time', 'transfers', '--limit', '50'];
    const records = JSON.parse((await payrec(emu, [...args, '-f', 'json'])).stdout) as Rec[];
    const jq = (expr: string) => payrec(emu, [...args, '--jq', expr]);
    const [first, amounts, length, selected, summary] = await Promise.all([
      jq('.[0].transactionHash'),
      jq('map(.amount)'),
      jq('length'),
      jq('.[] | select(.transactionStatus == "confirmed" and .token == "USDT") | {hash: .transactionHash, amount}'),
      payrec(emu, ['one-time', 'transfers', '--summary', '--jq', '.totals[] | select(.status == "failed") | .token']),
    ]);
    // Strings raw (no quotes), other values as compact JSON, one per line (stdout is not a terminal).
    expect(first).toMatchObject({ exitCode: 0, stdout: `${records[0].transactionHash}\n` });
    expect(amounts.stdout).toBe(JSON.stringify(records.map((r) => r.amount)) + '\n');
    expect(length.stdout).toBe('50\n');
    const usdt = records.filter((r) => r.transactionStatus === 'confirmed' && r.token === 'USDT');
    expect(usdt.length).toBeGreaterThan(0);
    expect(selected.stdout).toBe(usdt.map((r) => JSON.stringify({ hash: r.transactionHash, amount: r.amount }) + '\n').join(''));
    const failedTokens = [...new Set((await truth('one-time/transfers')).filter((t) => t.transactionStatus === 'failed').map((t) => t.token))].sort();
    expect(summary.stdout).toBe(failedTokens.map((t) => `${t}\n`).join(''));
  });

  test('--jq: a bad expression is exit 2 before any request; one that fails on the records prints nothing, exit 2', async () => {
    const bad = await payrec(quiet, ['one-time', 'transfers', '--jq', '.[0] | foo(']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/^error: invalid --jq expression "\.\[0\] \| foo\(": syntax error/);
    expect(quiet.requests).toEqual([]);
    const failing = await payrec(emu, ['one-time', 'transfers', '--limit', '3', '--jq', '.[] | if .amount then error("boom") else . end']);
    expect(failing.exitCode).toBe(2);
    expect(failing.stdout).toBe('');
    expect(failing.stderr).toMatch(/the --jq expression failed on the records: boom/);
  });
});

describe('--failed --all under live traffic', () => {
  test('every record failed at the start is printed once; nothing printed that is not failed', async () => {
    const collection = 'on-demand/transfers';
    const live = await emulator({ records: 5000, now: Math.floor(Date.now() / 1000) });
    try {
      await truth(collection, live);
      live.live.start({ rate: 200, lateFraction: 0.3, lateMaxSeconds: 600, pendingFraction: 0.5, chains: [CHAIN], collections: [collection] });
      await until('200 live records', () => live.live.status().inserted >= 200);
      const before = await truth(collection, live);
      const r = await payrec(live, ['on-demand', 'transfers', '--failed', '--all', '-f', 'jsonl', '--page-size', '100', '--concurrency', '4']);
      const after = await truth(collection, live);
      live.live.stop();
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toBe('');
      const got = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Rec);
      const printed = got.map((t) => t.transactionHash);
      expect(new Set(printed).size).toBe(printed.length);
      expect(got.every((t) => t.transactionStatus === 'failed')).toBe(true);
      // A failed record stays failed: those of the start are all there…
      const missing = before.filter((t) => t.transactionStatus === 'failed' && !printed.includes(t.transactionHash));
      expect(missing).toEqual([]);
      // …and whatever else was printed is failed in the emulator's records at the end.
      const failedAtEnd = new Set(after.filter((t) => t.transactionStatus === 'failed').map((t) => t.transactionHash));
      expect(printed.filter((h) => !failedAtEnd.has(h))).toEqual([]);
      expect(printed.length).toBeGreaterThan(0);
    } finally {
      await live.close();
    }
  });
});
