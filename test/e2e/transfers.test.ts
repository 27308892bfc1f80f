import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator, LiveOptions } from '../../src/emulator/index.js';
import { ANCHOR, BIN, emulator, parseCsv, payrec, payrecInProcess, program, tempDir, until } from './helpers.js';

// `payrec transfers`: the five products' transfers in one list merged by time. The
// yardstick is the emulator's ground truth (GET /_emulator/records) of the five
// collections, merged here by the documented order: timestamp, then the product's
// place in this list, then the transaction hash; descending is the exact reverse.

const CHAIN = 'bsc';
const PRODUCTS = ['variable-recurring', 'on-demand', 'one-time', 'wallet-to-wallet', 'scheduled-payments'];
/** These five by name: fixed-recurring billings (read per plan) are tested in transfers-billings.test.ts. */
const FIVE = ['--product', 'vr,od,ot,w2w,sp'];

type Rec = Record<string, unknown> & { product: string; transactionHash: string; timestamp: number; transactionStatus: string };

async function groundTruth(emu: Emulator, product: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${emu.url}/_emulator/records?chain=${CHAIN}&collection=${product}/transfers`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { records: Record<string, unknown>[] }).records;
}

/** Every product's records with their product, in the merged list's ascending order. */
async function merged(emu: Emulator, products = PRODUCTS): Promise<Rec[]> {
  const all: Rec[] = [];
  for (const product of products) for (const r of await groundTruth(emu, product)) all.push({ product, ...r } as Rec);
  const rank = (p: string) => PRODUCTS.indexOf(p);
  return all.sort((a, b) => a.timestamp - b.timestamp || rank(a.product) - rank(b.product) || (a.transactionHash < b.transactionHash ? -1 : a.transactionHash > b.transactionHash ? 1 : 0));
}

async function append(emu: Emulator, collection: string, count: number, timestamp?: number): Promise<void> {
  const res = await fetch(`${emu.url}/_emulator/records`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${emu.keyFor(CHAIN)}` }, body: JSON.stringify({ chain: CHAIN, collection, count, timestamp }) });
  expect(res.status).toBe(201);
}

const jsonl = (stdout: string) => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Rec);
const key = (r: Rec) => `${r.product} ${r.transactionHash}`;

/** Exact decimal text as an integer count of 10^-18 (the emulator's amounts have at most 18 decimals). */
function scaled(text: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,18}))?$/.exec(text);
  if (!m) throw new Error(`not a decimal: ${text}`);
  const v = BigInt(m[2]) * 10n ** 18n + BigInt((m[3] ?? '').padEnd(18, '0'));
  return m[1] ? -v : v;
}

/** util-linux `script`, for a pseudo-terminal: under CI its tests fail when it is missing, never skip (it was looked for only at /usr/bin/script). */
const script = program('script', 'bsdutils');

// The merged lists are answers read from the emulator over HTTP: after the first (the built
// binary in a process), they run in this worker (payrecInProcess, issue 48). -o's file, the
// terminal, the lists under live traffic and --follow stay processes.
describe('payrec transfers against the ground truth of five collections', () => {
  let emu: Emulator;
  let quiet: Emulator;
  let truth: Rec[];
  beforeAll(async () => {
    [emu, quiet] = await Promise.all([emulator(), emulator({ records: 0 })]);
    // Records of one second in every product, more of them in one product than a page of 37 holds:
    // the merge's tie-break (product, then hash) is met across products and across page joins.
    for (const p of PRODUCTS) await append(emu, `${p}/transfers`, p === 'on-demand' ? 45 : 3, ANCHOR - 86_400);
    truth = await merged(emu);
  });
  afterAll(() => Promise.all([emu.close(), quiet.close()]));

  test('--all -f jsonl --sort asc is the union of the five collections, ordered by time, product first', async () => {
    const r = await payrec(emu, ['transfers', ...FIVE, '--all', '-f', 'jsonl', '--sort', 'asc', '--page-size', '37']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const out = jsonl(r.stdout);
    expect(new Set(truth.map((t) => t.product)).size).toBe(5);
    expect(out.length).toBe(truth.length);
    expect(out).toEqual(truth);
    expect(Object.keys(out[0])[0]).toBe('product');
    // Records of one second from several products exist, so the tie-break is exercised.
    const seconds = new Map<number, Set<string>>();
    for (const t of truth) seconds.set(t.timestamp, (seconds.get(t.timestamp) ?? new Set()).add(t.product));
    expect([...seconds.values()].some((s) => s.size === 5)).toBe(true);
  });

  test('default (desc) --all is the exact reverse', async () => {
    const r = await payrecInProcess(emu, ['transfers', ...FIVE, '--all', '-f', 'jsonl', '--concurrency', '8']);
    expect(r.exitCode).toBe(0);
    expect(jsonl(r.stdout)).toEqual([...truth].reverse());
  });

  test('--product narrows (names and aliases), in the same order', async () => {
    const r = await payrecInProcess(emu, ['transfers', '--all', '-f', 'jsonl', '--sort', 'asc', '--product', 'w2w,one-time']);
    expect(r.exitCode).toBe(0);
    expect(jsonl(r.stdout)).toEqual(truth.filter((t) => t.product === 'one-time' || t.product === 'wallet-to-wallet'));
  });

  test('-f csv: header is product, then the union of the products\' fields; one row per record', async () => {
    const r = await payrecInProcess(emu, ['transfers', ...FIVE, '--all', '-f', 'csv', '--sort', 'asc']);
    expect(r.exitCode).toBe(0);
    const [header, ...rows] = parseCsv(r.stdout);
    // The union, in the products' order, of the fields the service sends (as the mirror's view has them).
    const union = ['product', ...new Set(PRODUCTS.flatMap((p) => Object.keys(truth.find((t) => t.product === p)!).filter((k) => k !== 'product')))];
    // Then the fields of fixed-recurring billings the others lack (API-SPEC.md), and their outcome: the shape of every `payrec transfers`.
    expect(header).toEqual([...union, 'success', 'cycleStart', 'cycleEnd', 'triggeredBy', 'outcome']);
    expect(rows.length).toBe(truth.length);
    const at = (row: string[], f: string) => row[header.indexOf(f)];
    rows.forEach((row, i) => {
      expect(at(row, 'product')).toBe(truth[i].product);
      expect(at(row, 'transactionHash')).toBe(truth[i].transactionHash);
      expect(at(row, 'amount')).toBe(truth[i].amount);
    });
    // A field of other products only is empty.
    const w2w = rows.find((row) => at(row, 'product') === 'wallet-to-wallet')!;
    expect(at(w2w, 'sender')).toBe('');
    expect(at(w2w, 'payment_id')).not.toBe('');
  });

  test('the CSV header is the API columns of the mirror\'s transfers view, in its order', async () => {
    const db = join(tempDir(), 'mirror.duckdb');
    const sync = await payrecInProcess(emu, ['sync', ...PRODUCTS.map((p) => `${p}/transfers`), '--db', db, '-q']);
    expect(sync.exitCode).toBe(0);
    const view = await payrecInProcess(undefined, ['sql', '--db', db, '-f', 'json', 'SELECT column_name FROM (DESCRIBE transfers)']);
    expect(view.exitCode).toBe(0);
    const mirrorOwn = new Set(['chain', 'extra_fields', 'inexact_amounts', 'first_seen', 'last_updated', 'identity_hash']);
    const apiColumns = (JSON.parse(view.stdout) as { column_name: string }[]).map((c) => c.column_name).filter((c) => !mirrorOwn.has(c) && !c.endsWith('_exact'));
    const r = await payrecInProcess(emu, ['transfers', '--limit', '1', '-f', 'csv']);
    expect(parseCsv(r.stdout)[0]).toEqual(apiColumns);
  });

  test('--columns, --chart and -o work on the merged list', async () => {
    const c = await payrecInProcess(emu, ['transfers', ...FIVE, '--limit', '4', '-f', 'csv', '--columns', 'product,amount,payment_id', '--sort', 'asc']);
    expect(c.exitCode).toBe(0);
    expect(parseCsv(c.stdout)).toEqual([['product', 'amount', 'payment_id'], ...truth.slice(0, 4).map((t) => [t.product, t.amount, (t.payment_id as string) ?? ''])]);
    const bad = await payrecInProcess(emu, ['transfers', ...FIVE, '--columns', 'product,nope']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/unknown column "nope".*known: product, .*scheduleId/);
    const chart = await payrecInProcess(emu, ['transfers', ...FIVE, '--chart', 'month']);
    expect(chart.exitCode).toBe(0);
    expect(chart.stdout).toMatch(/2025-12/);
    const file = join(tempDir(), 'all.jsonl');
    const o = await payrec(emu, ['transfers', ...FIVE, '--all', '-f', 'jsonl', '--sort', 'asc', '-o', file]);
    expect(o.exitCode).toBe(0);
    expect(jsonl(readFileSync(file, 'utf8'))).toEqual(truth);
  });

  test('--limit and --sort desc across products; --offset skips merged records', async () => {
    const desc = [...truth].reverse();
    const r = await payrecInProcess(emu, ['transfers', ...FIVE, '--limit', '23', '-f', 'jsonl', '--sort', 'desc']);
    expect(r.exitCode).toBe(0);
    expect(jsonl(r.stdout)).toEqual(desc.slice(0, 23));
    const a = await payrecInProcess(emu, ['transfers', ...FIVE, '--limit', '9', '--offset', '30', '-f', 'jsonl', '--sort', 'asc']);
    expect(jsonl(a.stdout)).toEqual(truth.slice(30, 39));
  });

  test('--from/--to bound every product; --token filters every product', async () => {
    const from = truth[100].timestamp;
    const to = truth[400].timestamp;
    const r = await payrecInProcess(emu, ['transfers', ...FIVE, '--all', '-f', 'jsonl', '--sort', 'asc', '--from', String(from), '--to', String(to), '--token', 'USDT']);
    expect(r.exitCode).toBe(0);
    const want = truth.filter((t) => t.timestamp >= from && t.timestamp <= to && t.token === 'USDT');
    expect(want.length).toBeGreaterThan(10);
    expect(jsonl(r.stdout)).toEqual(want);
  });

  test('--summary: exact totals per token and status equal BigInt sums over the five collections', async () => {
    const r = await payrecInProcess(emu, ['transfers', ...FIVE, '--summary', '-f', 'json']);
    expect(r.exitCode).toBe(0);
    const s = JSON.parse(r.stdout) as { count: number; totals: { token: string; status: string; count: number; amount: string; fee: string }[] };
    expect(s.count).toBe(truth.length);
    const sums = new Map<string, { count: number; amount: bigint; fee: bigint }>();
    for (const t of truth) {
      const key = `${t.token as string}/${t.transactionStatus as string}`;
      const x = sums.get(key) ?? { count: 0, amount: 0n, fee: 0n };
      x.count++;
      x.amount += scaled(t.amount as string);
      x.fee += scaled(t.fee as string);
      sums.set(key, x);
    }
    expect(s.totals.map((row) => `${row.token}/${row.status}`).sort()).toEqual([...sums.keys()].sort());
    for (const row of s.totals) {
      const x = sums.get(`${row.token}/${row.status}`)!;
      expect([row.count, scaled(row.amount), scaled(row.fee)]).toEqual([x.count, x.amount, x.fee]);
    }
  });

  test.skipIf(script.skip)(`on a terminal, --limit says how many of the sum of the products' totals it shows${script.note}`, async () => {
    const cmd = `node ${BIN} transfers ${FIVE.join(' ')} --limit 7 -f jsonl`;
    const r = await execa('script', ['-qec', cmd, '/dev/null'], {
      reject: false,
      extendEnv: false,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'dumb', NO_COLOR: '1', PAYREC_CONFIG_DIR: tempDir(), PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor(CHAIN) },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`showing 7 of ${truth.length.toLocaleString('en-US')}`);
  });

  test.each([
    [['--product', 'bsc'], /invalid --product "bsc": expected products with transfers, comma-separated: variable-recurring \(vr\), on-demand \(od\), one-time \(ot\), wallet-to-wallet \(w2w\), scheduled-payments \(sp\), fixed-recurring \(fr\)/],
    [['--sender', '0x1234567890123456789012345678901234567890'], /--sender is not a filter of wallet-to-wallet transfers, fixed-recurring billings[\s\S]*--product vr,od,ot,sp/],
    [['--product', 'ot', '--email', 'a@b.example'], /--email is not a filter of one-time transfers/],
    [['--product', 'ot', '--token', 'U S'], /invalid --token/],
    [['--sort', 'up'], /invalid --sort "up"/],
  ])('bad input %j exits 2 and sends nothing', async (args, message) => {
    quiet.clearLog();
    // The first refusal by the built binary in a process, the others in-process (issue 48).
    const r = await (args[1] === 'bsc' ? payrec : payrecInProcess)(quiet, ['transfers', ...args]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(quiet.requests).toEqual([]);
  });

  test('a filter every selected product has is sent to each of them', async () => {
    const sender = truth.find((t) => t.product === 'one-time')!.sender as string;
    const r = await payrecInProcess(emu, ['transfers', '--product', 'ot,vr', '--sender', sender, '--all', '-f', 'jsonl', '--sort', 'asc']);
    expect(r.exitCode).toBe(0);
    const want = truth.filter((t) => (t.product === 'one-time' || t.product === 'variable-recurring') && t.sender === sender);
    expect(jsonl(r.stdout)).toEqual(want);
  });
});

describe('payrec transfers while records keep arriving in all five collections', () => {
  const TRAFFIC: LiveOptions = { rate: 200, lateFraction: 0.3, lateMaxSeconds: 600, pendingFraction: 0.4, chains: [CHAIN], collections: PRODUCTS.map((p) => `${p}/transfers`) };
  let emu: Emulator;
  beforeAll(async () => {
    emu = await emulator({ records: 4_000, now: Math.floor(Date.now() / 1000) });
    for (const p of PRODUCTS) emu.records(CHAIN, `${p}/transfers`); // generated before the traffic starts
    emu.live.start(TRAFFIC);
    await until('200 live records', () => emu.live.status().inserted >= 200);
  });
  afterAll(async () => {
    emu.live.stop();
    await emu.close();
  });

  test.each([
    ['asc', '100', '4'],
    ['desc', '1000', '8'],
    ['desc', '100', '1'],
  ])('--all --sort %s --page-size %s --concurrency %s: none twice, none of the start missing', async (sort, pageSize, concurrency) => {
    const before = await merged(emu);
    const r = await payrec(emu, ['transfers', ...FIVE, '--all', '-f', 'jsonl', '--sort', sort, '--page-size', pageSize, '--concurrency', concurrency]);
    const after = new Map((await merged(emu)).map((t) => [key(t), t]));
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const out = jsonl(r.stdout);
    const keys = out.map(key);
    const seen = new Set<string>();
    expect(keys.filter((k) => (seen.has(k) ? true : (seen.add(k), false)))).toEqual([]);
    expect(before.filter((t) => !seen.has(key(t))).map(key)).toEqual([]);
    // Nothing invented; in merged order (by time, then product).
    expect(out.filter((t) => !after.has(key(t))).map(key)).toEqual([]);
    const rank = (p: string) => PRODUCTS.indexOf(p);
    const outOfOrder = out.filter((t, i) => {
      if (i === 0) return false;
      const p = out[i - 1];
      const cmp = p.timestamp - t.timestamp || rank(p.product) - rank(t.product) || (p.transactionHash < t.transactionHash ? -1 : 1);
      return sort === 'asc' ? cmp > 0 : cmp < 0;
    });
    expect(outOfOrder).toEqual([]);
    expect(new Set(out.map((t) => t.product)).size).toBe(5);
  });
});

describe('payrec transfers --follow', () => {
  test('records added to two products while following are printed once each, with their product', async () => {
    const emu = await emulator();
    const child = payrec(emu, ['transfers', ...FIVE, '-f', 'jsonl', '--follow', '--interval', '0.2']);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    const lines = () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Rec);
    const polls = () => emu.requests.filter((q) => q.path === `/v1/${CHAIN}/scheduled-payments/transfers`).length;
    try {
      // The first poll (which only learns what exists) is over once the second has begun.
      await until('the second poll', () => polls() >= 2);
      await append(emu, 'on-demand/transfers', 2);
      await append(emu, 'wallet-to-wallet/transfers', 3);
      await until('5 records', () => lines().length >= 5);
      const seen = polls();
      await until('3 more polls', () => polls() >= seen + 3);
      const got = lines();
      expect(got.length).toBe(5);
      expect(got.map((t) => t.product).sort()).toEqual(['on-demand', 'on-demand', 'wallet-to-wallet', 'wallet-to-wallet', 'wallet-to-wallet']);
      const added = [...(await groundTruth(emu, 'on-demand')).slice(-2).map((r) => ({ product: 'on-demand', ...r })), ...(await groundTruth(emu, 'wallet-to-wallet')).slice(-3).map((r) => ({ product: 'wallet-to-wallet', ...r }))];
      expect(new Set(got.map((t) => key(t)))).toEqual(new Set(added.map((t) => key(t as Rec))));
    } finally {
      child.kill('SIGINT');
      const r = await child;
      expect(r.exitCode).toBe(130);
      await emu.close();
    }
  });
});
