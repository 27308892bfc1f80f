import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseCsv, payrec, payrecInProcess, suiteEmulators, tempDir } from './helpers.js';

// Calendar periods and time zones (DESIGN.md "Answers finance and ops can sign"),
// run as a finance user would, against the emulator's data (the year 2025). The
// ground truth is the emulator's complete records, cut by month here with the
// test's own arithmetic: UTC months from Date.UTC, Berlin's from the EU rule
// (summer time, UTC+2, from April to October's first days; UTC+1 otherwise).
// The exports, the later time formats and the refusals after the first run payrec inside
// this process (payrecInProcess, issue 48: a process costs 0.3 s of CPU to start, and
// this file is about windows, not processes); one of each kind stays a process, the
// built binary: an export with -o and PAYREC_TZ, the chart, the first CSV, the first
// refusal and --dry-run.

const s = suiteEmulators();
const COLLECTION = 'one-time/transfers';
const COMMAND = ['one-time', 'transfers'];
const YEAR = 2025;

type Transfer = Record<string, unknown> & { transactionHash: string; timestamp: number };

const utcMonthStart = (month: number) => Date.UTC(YEAR, month - 1, 1) / 1000; // month 13: next January
const berlinMonthStart = (month: number) => {
  const m = ((month - 1) % 12) + 1;
  return utcMonthStart(month) - (m >= 4 && m <= 10 ? 7200 : 3600);
};
const MONTHS = Array.from({ length: 12 }, (_, i) => i + 1);
const label = (month: number) => `${YEAR}-${String(month).padStart(2, '0')}`;

function truth(): Transfer[] {
  return s.emu.records('bsc', COLLECTION).records as Transfer[];
}
const within = (records: Transfer[], from: number, end: number) => records.filter((t) => t.timestamp >= from && t.timestamp < end);
/** One line per record, as the API sent it: comparable as a multiset, order aside. */
const keys = (records: Transfer[]) => records.map((t) => JSON.stringify(t)).sort();

/** `payrec one-time transfers … -f jsonl -o FILE`, in this process: the records of the file. */
async function exported(args: string[]): Promise<Transfer[]> {
  const file = join(tempDir(), 'out.jsonl');
  const r = await payrecInProcess(s.emu, [...COMMAND, ...args, '--all', '-f', 'jsonl', '-o', file]);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Transfer);
}

describe('--period: months that partition the year', () => {
  test('the emulator has records on the month boundaries, in UTC and in Berlin', () => {
    const stamps = new Set(truth().map((t) => t.timestamp));
    for (const m of MONTHS.slice(1)) {
      expect(stamps.has(utcMonthStart(m))).toBe(true);
      expect(stamps.has(utcMonthStart(m) - 1)).toBe(true);
    }
    for (const m of MONTHS.slice(1).concat(13)) {
      expect(stamps.has(berlinMonthStart(m))).toBe(true);
      expect(stamps.has(berlinMonthStart(m) - 1)).toBe(true);
    }
  });

  for (const zone of ['UTC', 'Europe/Berlin']) {
    test(`${zone}: the 12 monthly exports together are the year's export, record for record, and each month is its records`, async () => {
      const start = zone === 'UTC' ? utcMonthStart : berlinMonthStart;
      const all = truth();
      const months = await Promise.all(MONTHS.map((m) => exported(['--period', label(m), '--tz', zone])));
      const year = await exported(['--period', String(YEAR), '--tz', zone]);
      months.forEach((records, i) => {
        expect(keys(records), label(i + 1)).toEqual(keys(within(all, start(i + 1), start(i + 2))));
      });
      expect(keys(months.flat())).toEqual(keys(year));
      expect(keys(year)).toEqual(keys(within(all, start(1), start(13))));
      expect(year.length).toBeGreaterThan(200);
    });
  }

  test("Berlin's months differ from UTC's exactly by the records stamped between their starts", async () => {
    const all = truth();
    for (const m of [4, 11]) {
      const [utc, berlin] = await Promise.all([exported(['--period', label(m)]), exported(['--period', label(m), '--tz', 'Europe/Berlin'])]);
      const u = new Set(keys(utc));
      const b = new Set(keys(berlin));
      const onlyBerlin = keys(berlin).filter((k) => !u.has(k));
      const onlyUtc = keys(utc).filter((k) => !b.has(k));
      // Berlin's month begins (and ends) an hour or two before UTC's.
      expect(onlyBerlin).toEqual(keys(within(all, berlinMonthStart(m), utcMonthStart(m))));
      expect(onlyUtc).toEqual(keys(within(all, berlinMonthStart(m + 1), utcMonthStart(m + 1))));
      // The boundary records themselves: 00:00:00 Berlin on the 1st is that month's in Berlin.
      const stamps = (rs: Transfer[]) => new Set(rs.map((t) => t.timestamp));
      expect(stamps(berlin).has(berlinMonthStart(m))).toBe(true);
      expect(stamps(utc).has(berlinMonthStart(m))).toBe(false);
      expect(stamps(berlin).has(berlinMonthStart(m + 1))).toBe(false);
      expect(stamps(utc).has(berlinMonthStart(m + 1))).toBe(true);
      expect(onlyBerlin.length).toBeGreaterThan(0);
    }
  });

  test('a quarter and a day are their records too; the 25-hour day of October in Berlin', async () => {
    const all = truth();
    expect(keys(await exported(['--period', `${YEAR}-Q4`]))).toEqual(keys(within(all, utcMonthStart(10), utcMonthStart(13))));
    // 26 October 2025 in Berlin: 00:00 CEST (22:00 UTC the day before) to 00:00 CET (23:00 UTC).
    const day = await exported(['--period', `${YEAR}-10-26`, '--tz', 'Europe/Berlin']);
    expect(keys(day)).toEqual(keys(within(all, Date.UTC(YEAR, 9, 25, 22) / 1000, Date.UTC(YEAR, 9, 26, 23) / 1000)));
  });
});

describe('--chart in --tz', () => {
  test('records per month in Berlin are the counts of Berlin\'s months', async () => {
    const r = await payrec(s.emu, [...COMMAND, '--chart', 'month', '--period', String(YEAR), '--tz', 'Europe/Berlin']);
    expect(r.exitCode).toBe(0);
    const [title, ...rows] = r.stdout.trim().split('\n');
    expect(title).toBe('records per month (Europe/Berlin)');
    const all = truth();
    expect(rows.map((row) => [row.slice(0, 7), Number(row.trim().split(/\s+/).at(-1))])).toEqual(
      MONTHS.map((m) => [label(m), within(all, berlinMonthStart(m), berlinMonthStart(m + 1)).length]),
    );
  });
});

describe('--to DATE includes that day', () => {
  test('--from 2025-10-01 --to 2025-10-31 is all of October, its last second included', async () => {
    const all = truth();
    const october = await exported(['--from', `${YEAR}-10-01`, '--to', `${YEAR}-10-31`]);
    expect(keys(october)).toEqual(keys(within(all, utcMonthStart(10), utcMonthStart(11))));
    expect(october.some((t) => t.timestamp === utcMonthStart(11) - 1)).toBe(true);
    // …and in Berlin, Berlin's October.
    const berlin = await exported(['--from', `${YEAR}-10-01`, '--to', `${YEAR}-10-31`, '--tz', 'Europe/Berlin']);
    expect(keys(berlin)).toEqual(keys(within(all, berlinMonthStart(10), berlinMonthStart(11))));
  });

  test('PAYREC_TZ is --tz when the flag is not given', async () => {
    const file = join(tempDir(), 'oct.jsonl');
    const r = await payrec(s.emu, [...COMMAND, '--period', `${YEAR}-11`, '--all', '-f', 'jsonl', '-o', file], { env: { PAYREC_TZ: 'Europe/Berlin' } });
    expect(r.exitCode).toBe(0);
    const records = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Transfer);
    expect(keys(records)).toEqual(keys(within(truth(), berlinMonthStart(11), berlinMonthStart(12))));
  });
});

describe('times as people and spreadsheets read them', () => {
  test('CSV shows date-times in --tz by default; --time-format unix and iso as asked; json keeps Unix seconds', async () => {
    const first = berlinMonthStart(11); // 2025-10-31T23:00:00Z: midnight in Berlin
    const base = [...COMMAND, '--sort', 'asc', '--limit', '1', '--columns', 'timestamp,transactionHash'];
    const args = [...base, '--period', `${YEAR}-11`, '--tz', 'Europe/Berlin'];
    const csv = await payrec(s.emu, [...args, '-f', 'csv']);
    expect(csv.exitCode).toBe(0);
    expect(parseCsv(csv.stdout)[1][0]).toBe('2025-11-01 00:00:00');
    // The same record without --tz: UTC.
    const utc = await payrecInProcess(s.emu, [...base, '--from', String(first), '-f', 'csv']);
    expect(parseCsv(utc.stdout)[1][0]).toBe('2025-10-31 23:00:00');
    const unix = await payrecInProcess(s.emu, [...args, '-f', 'csv', '--time-format', 'unix']);
    expect(parseCsv(unix.stdout)[1][0]).toBe(String(first));
    const iso = await payrecInProcess(s.emu, [...args, '-f', 'json', '--time-format', 'iso']);
    expect(JSON.parse(iso.stdout)[0].timestamp).toBe('2025-11-01T00:00:00+01:00');
    const json = await payrecInProcess(s.emu, [...args, '-f', 'json']);
    expect(JSON.parse(json.stdout)[0].timestamp).toBe(first);
  });
});

describe('bad values: exit 2, the accepted forms, nothing sent', () => {
  test.each([
    ['--period 2026-13', ['--period', '2026-13'], {}, /invalid --period "2026-13": expected one of 2026, 2026-Q4, 2026-10, 2026-10-31, today, yesterday, this-month, last-month, last-quarter, last-year/],
    ['--period next-week', ['--period', 'next-week'], {}, /invalid --period "next-week"/],
    ['--tz Mars/Base', ['--tz', 'Mars/Base'], {}, /invalid --tz "Mars\/Base": expected an IANA time zone name such as UTC, Europe\/Berlin/],
    ['PAYREC_TZ=Mars/Base', [], { PAYREC_TZ: 'Mars/Base' }, /invalid PAYREC_TZ "Mars\/Base"/],
    ['--period with --from', ['--period', '2025-10', '--from', '2025-10-01'], {}, /give either --period or --from, not both/],
    ['--period with --to', ['--period', '2025-10', '--to', '2d'], {}, /give either --period or --to, not both/],
    ['--time-format rfc', ['--time-format', 'rfc'], {}, /invalid --time-format "rfc": expected unix or iso/],
    ['--from after --to', ['--from', '2025-11-01', '--to', '2025-10-31'], {}, /--from "2025-11-01" is later than --to "2025-10-31"/],
    // A window that begins after now, given any way, is refused alike (mutant: the --period check dropped, exit 0 and an empty list).
    ['--from in the future', ['--from', '2099-01-01'], {}, /--from "2099-01-01" is after now \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\): records are stamped when they settle, so a window in the future has none/],
    ['--from and --to in the future', ['--from', '2099-01-01', '--to', '2099-02-01'], {}, /--from "2099-01-01" is after now/],
    ['--period in the future', ['--period', '2099-01'], {}, /--period "2099-01" begins after now \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\): records are stamped when they settle, so a window in the future has none/],
    ['--period of a future day in Berlin', ['--period', '2099-01-01', '--tz', 'Europe/Berlin'], {}, /--period "2099-01-01" begins after now \(.* Europe\/Berlin\)/],
    ['--follow with --period', ['--follow', '--period', 'today'], {}, /--follow .*does not take .*--period/],
  ] as [string, string[], Record<string, string>, RegExp][])('%s', async (name, args, env, message) => {
    // The first a process, the others in this one.
    const r = await (name === '--period 2026-13' ? payrec : payrecInProcess)(s.quiet, [...COMMAND, ...args], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // What the user typed, not Unix seconds; no --to the user never gave.
    expect(r.stderr).not.toMatch(/\d{10}/);
    if (!args.includes('--to')) expect(r.stderr).not.toMatch(/--to "/);
    expect(s.quiet.requests).toEqual([]);
  });

  test('--dry-run shows the period as the API\'s inclusive seconds: its start to the second before the next', async () => {
    const r = await payrec(s.emu, ['--dry-run', ...COMMAND, '--period', `${YEAR}-11`, '--tz', 'Europe/Berlin']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`from=${berlinMonthStart(11)}`);
    expect(r.stdout).toContain(`to=${berlinMonthStart(12) - 1}`);
  });
});
