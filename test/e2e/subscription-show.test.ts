import { DuckDBInstance } from '@duckdb/node-api';
import { execa } from 'execa';
import { copyFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SubscriptionFacts } from '../../src/emulator/index.js';
import type { BillingInput } from '../../src/subscriptions/engine.js';
import { failed, naiveAt, naiveLedger, paid, recordsOfFacts, type Records } from '../oracle/subscriptions.js';
import { BIN, emulator, payrec, payrecEnv, payrecInProcess, program, tempDir, type RunOptions } from './helpers.js';

// What `payrec subscriptions ID` shows a reader, line by line (issue 31: the survivors of
// the e2e mutation run on src/commands/subscription-show.ts): the name of each event of
// the story, the summary above it on a terminal and the note in its place when piped,
// the refusal of a prefix that begins more than 10 ids, the API's answer for an id it
// does not know, and the columns of the story's rows. Every expected line is built here
// from the emulator's subscription facts and the brute-force oracle
// (test/oracle/subscriptions.ts), none of payrec's code: the states at each instant that
// can change one, named as DESIGN names the changes. The command's clock and the
// emulator's data are pinned at NOW.

const DAY = 86_400;
const GRACE = 30 * DAY;
const NOW = Date.UTC(2026, 10, 22, 10) / 1000;
const pinned: RunOptions = { env: { PAYREC_EMULATOR_NOW: String(NOW) } };
/**
 * The stories, summaries and refusals run in this worker (payrecInProcess, issue 48); the
 * built binary (`binary`) syncs the mirror, reads one story piped, refuses an ambiguous
 * prefix (exit 2) and an unknown one (exit 4), meets a 403, and runs on the terminal.
 */
const run = (args: string[]) => payrecInProcess(undefined, ['--emulator', ...args], pinned);
const binary = (args: string[]) => payrec(undefined, ['--emulator', ...args], pinned);
/** Unix seconds as payrec shows them on a terminal and in notes (UTC here). */
const shown = (t: number) => new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19);

let facts: SubscriptionFacts[];
let all: Records;
/** A mirror of every plan's billings and cancellations, synced from --emulator. */
let db: string;
/** A copy of it with records written in by the test (ids that share a prefix, a subscription never paid). */
let doctored: string;
/** A --db where no mirror is: the records come from the API. */
const noMirror = () => join(tempDir(), 'none.duckdb');

interface Row {
  timestamp: number;
  event: string;
  [k: string]: unknown;
}

const mine = (f: SubscriptionFacts, at: number): Records => ({
  billings: all.billings.filter((b) => b.subscriptionId === f.subscriptionId && b.timestamp < at),
  cancellations: all.cancellations.filter((c) => c.subscriptionId === f.subscriptionId && c.timestamp < at),
});
/** Its state at t by the oracle, from these records only. */
const stateAt = (r: Records, id: string, t: number, grace: number) => naiveAt(r.billings, r.cancellations, t, grace).get(id)?.state;
/** The instants where a state can change, by these records: one seen, a paid period or a grace over. */
const instants = (r: Records, grace: number) => [...new Set([...r.billings.flatMap((b) => [b.timestamp + 1, b.cycleEnd + 1, b.cycleEnd + grace + 1]), ...r.cancellations.map((c) => c.timestamp + 1)])].sort((a, b) => a - b);

/**
 * Its story as of `at`, written from DESIGN: each billing stamped before `at` with its
 * outcome, its cancellation, each change of state (the oracle's state at an instant
 * against the second before) named for what it was before, and the next change unless
 * a record arrives (the oracle's state after `at` on the records seen by then): records
 * first at one instant, then changes.
 */
function expectedStory(f: SubscriptionFacts, at: number, grace = GRACE): Row[] {
  const seen = mine(f, at);
  const id = f.subscriptionId;
  const rows: Row[] = seen.billings.map((b) => ({
    timestamp: b.timestamp,
    event: 'billing',
    outcome: failed(b) ? 'failed' : paid(b) ? 'paid' : 'pending',
    cycleStart: b.cycleStart,
    cycleEnd: b.cycleEnd,
    amount: b.amount,
    token: b.token,
    transactionHash: b.transactionHash as string,
  }));
  const c = seen.cancellations[0] as (typeof seen.cancellations)[0] & { transactionHash: string };
  if (c) {
    const by = c.forced ? 'forced by the plan' : 'by the customer';
    rows.push({ timestamp: c.timestamp, event: 'cancellation', outcome: c.transactionStatus === 'confirmed' ? by : `${by}, ${c.transactionStatus}`, transactionHash: c.transactionHash });
  }
  let before: string | undefined;
  for (const t of instants(seen, grace).filter((x) => x <= at)) {
    const state = stateAt(seen, id, t, grace);
    if (state === undefined || state === before) continue;
    const names: Record<string, string> = { past_due: 'past due since', lapsed: 'lapsed', cancelled: c?.forced ? 'cancelled' : 'ended' };
    let event = state === 'active' ? (before === undefined ? 'started' : 'reactivated') : names[state];
    // Past due, then active again without lapsing: a renewal paid within the grace, one row
    // in place of two, with how late it was stamped (t − 1) after the first unpaid second.
    if (state === 'active' && before === 'past_due') event = renewedLate(t - 1 - rows.pop()!.timestamp, grace);
    rows.push({ timestamp: t, event, state });
    before = state;
  }
  const now = stateAt(seen, id, at, grace);
  const next = instants(seen, grace).find((t) => t > at && stateAt(seen, id, t, grace) !== now);
  if (next !== undefined) {
    const state = stateAt(seen, id, next, grace)!;
    rows.push({ timestamp: next, event: { cancelled: 'ends on', lapsed: 'lapses on', past_due: 'past due on' }[state]!, state });
  }
  const order = (r: Row) => (r.event === 'billing' || r.event === 'cancellation' ? 0 : 1);
  return rows.sort((a, b) => a.timestamp - b.timestamp || order(a) - order(b));
}

/** The event of a renewal `late` seconds after its cycle ended, within the grace: its two largest units, rounded down. */
function renewedLate(late: number, grace: number): string {
  const counts: [string, number][] = [['day', Math.floor(late / DAY)], ['hour', Math.floor(late / 3600) % 24], ['minute', Math.floor(late / 60) % 60], ['second', late % 60]];
  const first = Math.max(0, counts.findIndex(([, n]) => n > 0));
  const words = counts.slice(first, first + 2).filter(([, n], k) => k === 0 || n > 0).map(([unit, n]) => `${n} ${unit}${n === 1 ? '' : 's'}`);
  return `renewed late (${words.join(' ')} after the cycle ended, within the ${grace / DAY}-day grace)`;
}

/** Its ledger row as of `at` by the oracle, the summary's terms. */
const ledgerRow = (f: SubscriptionFacts, at: number, grace = GRACE) => naiveLedger(mine(f, at).billings, mine(f, at).cancellations, at, grace)[0];

beforeAll(async () => {
  // The same data as --emulator's under the same anchor (records and seed by default).
  const emu = await emulator({ now: NOW });
  const truth = emu.subscriptions('bsc');
  await emu.close();
  facts = truth.subscriptions;
  all = recordsOfFacts(facts);
  db = join(tempDir(), 'mirror.duckdb');
  const r = await binary(['sync', 'fr/billings', 'fr/cancellations', ...truth.plans.flatMap((p) => ['--plan-id', p.planId]), '--db', db, '-q']);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  doctored = join(tempDir(), 'doctored.duckdb');
  copyFileSync(db, doctored);
  const instance = await DuckDBInstance.create(doctored);
  const conn = await instance.connect();
  const copy = `INSERT INTO payrec_store.fixed_recurring_billings SELECT * REPLACE ($1 AS subscriptionId, $2 AS transactionHash, $3::BIGINT AS success, 'confirmed' AS transactionStatus) FROM payrec_store.fixed_recurring_billings WHERE subscriptionId = $4 ORDER BY timestamp LIMIT 1`;
  const f = facts[0];
  for (const [i, id] of ambiguous.entries()) await conn.run(copy, [id, `0x${'e'.repeat(62)}${i.toString(16).padStart(2, '0')}`, 1, f.subscriptionId]);
  await conn.run(copy, [neverPaid, `0x${'d'.repeat(64)}`, 0, f.subscriptionId]);
  // Two subscriptions of 60-day cycles from T0, renewed the last second within the grace and one second after it.
  const billing = `INSERT INTO payrec_store.fixed_recurring_billings SELECT * REPLACE ($1 AS subscriptionId, $2 AS transactionHash, 1::DOUBLE AS success, 'confirmed' AS transactionStatus, to_timestamp($3) AS timestamp, to_timestamp($4) AS cycleStart, to_timestamp($4 + ${CYCLE - 1}) AS cycleEnd) FROM payrec_store.fixed_recurring_billings WHERE subscriptionId = $5 ORDER BY timestamp LIMIT 1`;
  for (const [i, [id, late]] of ([[withinGrace, GRACE - 1], [pastGrace, GRACE]] as const).entries()) {
    await conn.run(billing, [id, `0x${'f'.repeat(62)}${i}0`, T0, T0, f.subscriptionId]);
    await conn.run(billing, [id, `0x${'f'.repeat(62)}${i}1`, T0 + CYCLE + late, T0 + CYCLE, f.subscriptionId]);
  }
  conn.closeSync();
  instance.closeSync();
});

/** Eleven ids that begin with PREFIX: ten with PREFIX + '0', one with PREFIX + '1'. */
const PREFIX = '0x0123456789';
const ambiguous = [...Array.from({ length: 10 }, (_, i) => `${PREFIX}0${String(i).repeat(53)}`), `${PREFIX}1${'a'.repeat(53)}`];
/** Subscriptions of 60-day cycles that subscribed at T0 and renewed GRACE − 1 and GRACE seconds after the first unpaid second (T0 + CYCLE). */
const CYCLE = 60 * DAY;
const T0 = NOW - 150 * DAY;
const withinGrace = `0x${'b'.repeat(64)}`;
const pastGrace = `0x${'b'.repeat(63)}a`;
/** A subscription whose only billing failed: it never started. */
const neverPaid = `0x${'c'.repeat(64)}`;

/** Subscriptions and instants whose stories, together, hold every name of an event. */
function picks(): { what: string; f: SubscriptionFacts; at: number; grace?: number }[] {
  const story = (f: SubscriptionFacts, at = NOW) => expectedStory(f, at).map((r) => r.event);
  const has = (f: SubscriptionFacts, ...events: string[]) => events.every((e) => story(f).includes(e));
  // Past due now, after paying again, lapsing and coming back: the next change is lapsing.
  const comeback = facts.find((f) => story(f).some((e) => e.startsWith('renewed late (')) && has(f, 'started', 'past due since', 'lapsed', 'reactivated', 'lapses on'))!;
  // Active now, never cancelled: past due next, or lapsed next with no grace.
  const active = facts.find((f) => f.cancellation === null && ledgerRow(f, NOW)?.state === 'active' && has(f, 'past due on'))!;
  // Cancelled by its customer before its paid period ends: at the second after, it ends next.
  const voluntary = facts.find((f) => f.cancellation?.forced === false && f.cancellation.transactionStatus === 'confirmed' && ledgerRow(f, (f.cancellation.timestamp as number) + 1)?.state === 'active')!;
  const forced = facts.find((f) => f.cancellation?.forced === true && f.cancellation.transactionStatus === 'confirmed' && has(f, 'cancelled', 'past due since'))!;
  return [
    { what: 'lapsed and reactivated, past due now', f: comeback, at: NOW },
    { what: 'active, never cancelled', f: active, at: NOW },
    { what: 'active, never cancelled, no grace', f: active, at: NOW, grace: 0 },
    { what: 'cancelled by its customer, still paid for', f: voluntary, at: (voluntary.cancellation!.timestamp as number) + 1 },
    { what: 'cancelled by its customer, ended', f: voluntary, at: NOW },
    { what: 'cancelled by the plan', f: forced, at: NOW },
    // --at the instant a record is stamped: it is not yet seen (as of NOW, above, it is).
    { what: 'at the instant of its second paid billing', f: comeback, at: comeback.billings.filter((b) => paid(b as unknown as BillingInput))[1].timestamp as number },
    { what: 'at the instant of its cancellation', f: voluntary, at: voluntary.cancellation!.timestamp as number },
  ];
}

describe('payrec subscriptions ID: the story, every line (issue 31)', () => {
  it('each event\'s name, each row\'s columns and the summary\'s terms are the oracle\'s, from the mirror and from the API', async () => {
    const cases = picks();
    for (const c of cases) expect(c.f, c.what).toBeDefined();
    // Together they name every event a story can hold.
    const names = new Set(cases.flatMap((c) => expectedStory(c.f, c.at, c.grace).map((r) => r.event.replace(/^renewed late \(.*/, 'renewed late'))));
    expect([...names].sort()).toEqual(['billing', 'cancellation', 'cancelled', 'ended', 'ends on', 'lapsed', 'lapses on', 'past due on', 'past due since', 'reactivated', 'renewed late', 'started']);
    await Promise.all(
      cases.flatMap((c) =>
        [db, noMirror()].map(async (where) => {
          const r = await run(['subscriptions', c.f.subscriptionId, '--db', where, '--at', String(c.at), '--grace', String((c.grace ?? GRACE) / DAY), '-f', 'json']);
          expect(r.exitCode, `${c.what}: ${r.stderr}`).toBe(0);
          const whole = JSON.parse(r.stdout) as Record<string, unknown>;
          expect(whole.story, c.what).toEqual(expectedStory(c.f, c.at, c.grace));
          const row = ledgerRow(c.f, c.at, c.grace);
          // From the API, the plan is unknown: its lists of one subscription's records name none.
          expect(whole, c.what).toMatchObject({ ...row, planId: where === db ? c.f.planId : null });
          expect(whole.attempts, c.what).toEqual(
            mine(c.f, c.at).billings.map((b) => ({ timestamp: b.timestamp, cycleStart: b.cycleStart, cycleEnd: b.cycleEnd, outcome: failed(b) ? 'failed' : paid(b) ? 'paid' : 'pending', success: b.success, transactionStatus: b.transactionStatus, amount: b.amount, token: b.token, transactionHash: b.transactionHash })),
          );
          const cancellation = mine(c.f, c.at).cancellations[0];
          expect(whole.cancellation === null ? null : (whole.cancellation as Record<string, unknown>).transactionHash, c.what).toBe(cancellation ? (cancellation as unknown as Record<string, unknown>).transactionHash : null);
        }),
      ),
    );
  });
});

const STORY_COLUMNS = ['timestamp', 'event', 'state', 'outcome', 'cycleStart', 'cycleEnd', 'amount', 'token', 'transactionHash'];
/** The story as piped: a header, then one tab-separated line per row, an empty cell for a column the row lacks. */
const piped = (rows: Row[]) => [STORY_COLUMNS, ...rows.map((r) => STORY_COLUMNS.map((k) => (r[k] === undefined ? '' : String(r[k]))))].map((l) => `${l.join('\t')}\n`).join('');
/** The comeback subscription of picks(): past due now, so its note names a paid-through date and a plan. */
const comeback = () => picks()[0].f;

const script = program('script', 'bsdutils');
/**
 * Runs payrec on a pseudo-terminal (`script`) as a person at a terminal would, its
 * stderr into a file, so that what the terminal shows is stdout alone: its lines and
 * that file's.
 */
async function onTerminal(args: string[]): Promise<{ lines: string[]; stderr: string; exitCode?: number }> {
  const dir = tempDir();
  const quoted = args.map((a) => `'${a}'`).join(' ');
  const r = await execa('script', ['-qec', `stty cols 250 rows 50; exec node ${BIN} --emulator ${quoted} 2>${join(dir, 'stderr')}`, '/dev/null'], {
    reject: false,
    stdin: 'ignore',
    cwd: dir,
    extendEnv: false,
    env: { ...payrecEnv(), PAYREC_EMULATOR_NOW: String(NOW) },
  });
  return { lines: r.stdout.replace(/\r/g, '').split('\n'), stderr: readFileSync(join(dir, 'stderr'), 'utf8'), exitCode: r.exitCode };
}
/** The cells of a boxed table's lines from `start`: its rows (header first) up to its bottom edge. */
function boxed(lines: string[], start: number): { cells: string[][]; end: number } {
  expect(lines[start]).toMatch(/^┌/);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('└'));
  return { cells: lines.slice(start + 1, end).map((l) => l.split('│').slice(1, -1).map((c) => c.trim())), end };
}
/** A value as a terminal shows it: instants as dates, nothing as an empty cell. */
const cell = (key: string, v: unknown) => (v === null || v === undefined ? '' : typeof v === 'number' && /^(timestamp|cycleStart|cycleEnd|started|paidThrough|lastAttempt|cancelledAt|endsAt)$/.test(key) ? shown(v) : String(v));

describe('payrec subscriptions ID: on a terminal the terms above the story; piped or exported the story alone, the terms in a note (issue 31)', () => {
  it.skipIf(script.skip)(`on a terminal: the summary's fields, an empty line, the story's table; the note is not repeated on stderr${script.note}`, async () => {
    script.need();
    const f = comeback();
    const row = ledgerRow(f, NOW);
    const t = await onTerminal(['subscriptions', f.subscriptionId.slice(0, 12), '--db', db]);
    expect(t.exitCode, t.stderr).toBe(0);
    const head = boxed(t.lines, 0);
    const summary = { subscriptionId: f.subscriptionId, planId: f.planId, state: row.state, token: row.token, amount: row.amount, period: row.period, mrr: row.mrr, started: row.started, paidThrough: row.paidThrough, lastAttempt: row.lastAttempt, failedAttempts: row.failedAttempts, cancelledAt: row.cancelledAt, forced: row.forced, endsAt: row.endsAt, daysPastDue: row.daysPastDue };
    expect(head.cells).toEqual([['field', 'value'], ...Object.entries(summary).map(([k, v]) => [k, cell(k, v)])]);
    expect(t.lines[head.end + 1]).toBe('');
    const story = boxed(t.lines, head.end + 2);
    // A long event (a renewal late within the grace) is cut to the terminal's room, its last character `…`.
    const cut = (want: string, got: string | undefined) => (got?.endsWith('…') && want.startsWith(got.slice(0, -1)) ? got : want);
    const want = [STORY_COLUMNS, ...expectedStory(f, NOW).map((r) => STORY_COLUMNS.map((k) => cell(k, r[k])))];
    expect(story.cells).toEqual(want.map((row, i) => row.map((c, j) => cut(c, story.cells[i]?.[j]))));
    expect(story.cells.flat().some((c) => c.startsWith('renewed late (') && c.endsWith('…'))).toBe(true);
    expect(t.lines.slice(story.end + 1).join('')).toBe('(event cut to fit 250 columns, marked …; -f json shows every value whole)');
    expect(t.stderr).toBe(`as of now, ${shown(NOW)} UTC: records stamped before it\nsubscription ${f.subscriptionId}: from the mirror\n`);
  });

  it.skipIf(script.skip)(`on a terminal, -f csv or -o FILE: the story alone, the terms in a note on stderr${script.note}`, async () => {
    script.need();
    const f = comeback();
    const row = ledgerRow(f, NOW);
    const note = `as of now, ${shown(NOW)} UTC: records stamped before it\nsubscription ${f.subscriptionId}: from the mirror\n${row.state}, paid through ${shown(row.paidThrough)} UTC, plan ${f.planId}\n`;
    const story = expectedStory(f, NOW);
    const csv = await onTerminal(['subscriptions', f.subscriptionId, '--db', db, '-f', 'csv']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    // CSV shows instants as dates; every column, though the first row (a billing) has no state.
    const quoted = (c: string) => (/[",]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c);
    expect(csv.lines.filter((l) => l !== '')).toEqual([STORY_COLUMNS, ...story.map((r) => STORY_COLUMNS.map((k) => cell(k, r[k])))].map((l) => l.map(quoted).join(',')));
    expect(csv.stderr).toBe(note);
    const dir = tempDir();
    const file = await onTerminal(['subscriptions', f.subscriptionId, '--db', db, '-f', 'table', '-o', join(dir, 'story.txt')]);
    expect(file.exitCode, file.stderr).toBe(0);
    expect(file.lines.join('')).toBe('');
    expect(readFileSync(join(dir, 'story.txt'), 'utf8')).toBe(piped(story));
    expect(file.stderr).toBe(note);
  });

  it('piped: the story alone, tab-separated, every column of every row; its state, paid-through date and plan in a note, the plan unknown from the API', async () => {
    const f = comeback();
    const row = ledgerRow(f, NOW);
    const [mirror, api] = await Promise.all([binary(['subscriptions', f.subscriptionId, '--db', db]), run(['subscriptions', f.subscriptionId, '--db', noMirror()])]);
    expect(mirror.exitCode, mirror.stderr).toBe(0);
    expect(mirror.stdout).toBe(piped(expectedStory(f, NOW)));
    expect(mirror.stderr).toBe(`as of now, ${shown(NOW)} UTC: records stamped before it\nsubscription ${f.subscriptionId}: from the mirror\n${row.state}, paid through ${shown(row.paidThrough)} UTC, plan ${f.planId}\n`);
    expect(api.exitCode, api.stderr).toBe(0);
    expect(api.stdout).toBe(mirror.stdout);
    expect(api.stderr).toBe(`as of now, ${shown(NOW)} UTC: records stamped before it\nsubscription ${f.subscriptionId}: from the API\n${row.state}, paid through ${shown(row.paidThrough)} UTC, plan unknown (read from the API)\n`);
  });

  it('a subscription whose only billing failed: "not started (no paid billing)", above the story on a terminal, in the note when piped', async () => {
    const [json, tsv] = await Promise.all([run(['subscriptions', neverPaid, '--db', doctored, '-f', 'json']), run(['subscriptions', neverPaid, '--db', doctored])]);
    expect(json.exitCode, json.stderr).toBe(0);
    const whole = JSON.parse(json.stdout) as Record<string, unknown> & { story: Row[] };
    expect({ subscriptionId: whole.subscriptionId, planId: whole.planId, state: whole.state }).toEqual({ subscriptionId: neverPaid, planId: facts[0].planId, state: 'not started (no paid billing)' });
    expect(whole.story.map((r) => [r.event, r.outcome])).toEqual([['billing', 'failed']]);
    expect(tsv.stderr).toBe(`as of now, ${shown(NOW)} UTC: records stamped before it\nsubscription ${neverPaid}: from the mirror\nnot started (no paid billing)\n`);
    if (script.skip) return;
    const t = await onTerminal(['subscriptions', neverPaid, '--db', doctored]);
    expect(boxed(t.lines, 0).cells).toEqual([['field', 'value'], ['subscriptionId', neverPaid], ['planId', facts[0].planId], ['state', 'not started (no paid billing)']]);
  });
});

describe('payrec subscriptions ID: a prefix of more than 10 ids, an id nobody has (issue 31)', () => {
  it('a prefix that begins 11 ids names the first 10 and says "more than 10"; one that begins 10 names them all (exit 2)', async () => {
    const [eleven, ten] = await Promise.all([binary(['subscriptions', PREFIX, '--db', doctored]), run(['subscriptions', `${PREFIX}0`, '--db', doctored])]);
    expect(eleven.exitCode).toBe(2);
    expect(eleven.stdout).toBe('');
    const asOf = `as of now, ${shown(NOW)} UTC: records stamped before it\n`;
    expect(eleven.stderr).toBe(`${asOf}error: ${PREFIX} begins the ids of more than 10 subscriptions in the mirror: ${ambiguous.slice(0, 10).join(', ')}, …\nhint: give more of the id\n`);
    expect(ten.exitCode).toBe(2);
    expect(ten.stderr).toBe(`${asOf}error: ${PREFIX}0 begins the ids of 10 subscriptions in the mirror: ${ambiguous.slice(0, 10).join(', ')}\nhint: give more of the id\n`);
  });

  it('a prefix, with or without 0x, in capitals or not, and a billing\'s transactionHash name the subscription; a prefix nobody has is exit 4; what is no prefix exit 2', async () => {
    const f = comeback();
    const hash = f.billings[1].transactionHash as string;
    const args = ['--db', db, '-q'];
    const [byId, byUpper, byHash, unknown, short, notHex] = await Promise.all([
      run(['subscriptions', f.subscriptionId, ...args]),
      run(['subscriptions', f.subscriptionId.slice(2, 14).toUpperCase(), ...args]),
      run(['subscriptions', hash, ...args]),
      binary(['subscriptions', 'fedcba9876543210', '--db', db]),
      run(['subscriptions', '0x1234567', '--db', db]),
      run(['subscriptions', 'g1234567', '--db', db]),
    ]);
    expect(byId.stdout).toBe(piped(expectedStory(f, NOW)));
    expect(byUpper.stdout).toBe(byId.stdout);
    expect(byHash.stdout).toBe(byId.stdout);
    expect(unknown.exitCode).toBe(4);
    expect(unknown.stderr).toBe(`as of now, ${shown(NOW)} UTC: records stamped before it\nerror: no subscription in the mirror has an id beginning with 0xfedcba9876543210, or a billing with that transactionHash\nhint: sync the mirror (payrec --emulator sync), or give the whole subscription id to read it from the API\n`);
    for (const [r, text] of [[short, '0x1234567'], [notHex, 'g1234567']] as const) {
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toBe(`error: invalid SUBSCRIPTION_ID "${text}": expected a subscription id or a billing's transactionHash (0x and 64 hex characters), or the first 8 hex characters or more of an id\n`);
    }
  });

  it('a whole id that no plan has: the API answers no billing and no cancellation (exit 4), with a mirror and without', async () => {
    const nobody = `0x${'ab'.repeat(32)}`;
    const message = `as of now, ${shown(NOW)} UTC: records stamped before it\nerror: subscription ${nobody} has no billing before ${shown(NOW)} UTC and no cancellation\nhint: check the id, and --chain: records are per chain\n`;
    const [withMirror, without] = await Promise.all([run(['subscriptions', nobody, '--db', db]), run(['subscriptions', nobody, '--db', noMirror()])]);
    for (const r of [withMirror, without]) {
      expect(r.exitCode).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(message);
    }
  });
});

describe('payrec subscriptions ID from the API: only a 404 means "never cancelled" (issue 31)', () => {
  let server: ReturnType<typeof createServer>;
  let base: string;
  const requests: string[] = [];
  beforeAll(async () => {
    // A service that knows no billing of the subscription and refuses to show its cancellation.
    server = createServer((req, res) => {
      requests.push(req.url!);
      const body = req.url!.includes('/cancellation') ? [403, { error: { code: 403, message: 'forbidden' } }] : [200, { data: [], limit: 1000, offset: 0, total: 0 }];
      res.writeHead(body[0] as number, { 'content-type': 'application/json' }).end(JSON.stringify(body[1]));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('a cancellation the key may not read is exit 3, not a subscription never cancelled', async () => {
    const id = `0x${'ab'.repeat(32)}`;
    const r = await payrec(undefined, ['--retries', '0', 'subscriptions', id, '--db', noMirror()], { env: { PAYREC_BASE_URL: base, PAYREC_API_KEY: 'prk_test_key', PAYREC_CHAIN: 'bsc' } });
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain('no cancellation');
    expect(requests.some((u) => u.startsWith(`/v1/bsc/fixed-recurring/subscriptions/${id}/cancellation`))).toBe(true);
  });
});

describe('payrec subscriptions ID: a renewal paid late within the grace is "renewed late", past it "past due since" (issue 44)', () => {
  const changes = (story: Row[]) => story.filter((r) => r.event !== 'billing').map((r) => [r.timestamp, r.event, r.state]);

  it('a renewal of the emulator paid minutes after its cycle ended: one row saying how late, no "past due since" at its cycle end', async () => {
    // The emulator's ground truth: a paid renewal stamped under an hour after its cycle began (anchored: the cycle before ended a second earlier).
    const renewals = facts.flatMap((f) => {
      const paidOnes = (f.billings as unknown as BillingInput[]).filter(paid);
      return paidOnes.filter((b, i) => i > 0 && b.cycleStart === paidOnes[i - 1].cycleEnd + 1).map((b) => ({ f, b }));
    });
    const { f, b } = renewals.find(({ b }) => b.timestamp - b.cycleStart >= 60 && b.timestamp - b.cycleStart < 3600)!;
    const late = b.timestamp - b.cycleStart;
    const at = b.timestamp + 2;
    const r = await run(['subscriptions', f.subscriptionId, '--db', db, '--at', String(at), '-f', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const story = (JSON.parse(r.stdout) as { story: Row[] }).story;
    const plural = (n: number, unit: string) => (n === 0 ? '' : ` ${n} ${unit}${n === 1 ? '' : 's'}`);
    expect(story.at(-2)).toEqual({ timestamp: b.timestamp + 1, event: `renewed late (${`${plural(Math.floor(late / 60), 'minute')}${plural(late % 60, 'second')}`.trim()} after the cycle ended, within the 30-day grace)`, state: 'active' });
    expect(story.some((row) => row.event === 'past due since' && row.timestamp === b.cycleStart)).toBe(false);
  });

  it('paid the last second of the grace: "renewed late"; one second past it: past due, lapsed, reactivated', async () => {
    const [within, past] = await Promise.all(
      [withinGrace, pastGrace].map(async (id, i) => {
        const r = await run(['subscriptions', id, '--db', doctored, '--at', String(T0 + CYCLE + GRACE + i + 2), '-f', 'json']);
        expect(r.exitCode, r.stderr).toBe(0);
        return (JSON.parse(r.stdout) as { story: Row[] }).story;
      }),
    );
    expect(changes(within)).toEqual([
      [T0 + 1, 'started', 'active'],
      [T0 + CYCLE + GRACE, 'renewed late (29 days 23 hours after the cycle ended, within the 30-day grace)', 'active'],
      [T0 + 2 * CYCLE, 'past due on', 'past_due'],
    ]);
    expect(changes(past)).toEqual([
      [T0 + 1, 'started', 'active'],
      [T0 + CYCLE, 'past due since', 'past_due'],
      [T0 + CYCLE + GRACE, 'lapsed', 'lapsed'],
      [T0 + CYCLE + GRACE + 1, 'reactivated', 'active'],
      [T0 + 2 * CYCLE, 'past due on', 'past_due'],
    ]);
  });
});
