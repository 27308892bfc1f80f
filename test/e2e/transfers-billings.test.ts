import ExcelJS from 'exceljs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator, SubscriptionTruth } from '../../src/emulator/index.js';
import { emulator, parseCsv, payrec, payrecInProcess, tempDir, type RunOptions } from './helpers.js';
import { decimalSum, listOf, sql, type Row } from './mirror-helpers.js';

// `payrec transfers` includes the fixed-recurring billings of the known plans: the
// subscription revenue (DESIGN.md "Lists and exports"). The API lists billings per plan
// only, and lists no plans: a plan is known from a short url (read online by the command
// itself), `payrec fr plans add`, or the mirror (a --plan-id once given to sync). The
// yardsticks are the emulator's own records over HTTP: every plan it has
// (GET /_emulator/subscriptions), the plans its short urls name, each plan's billings,
// and the five other products' transfers; merged here by the documented order
// (timestamp, the product's place with fixed-recurring last, then the plan, then the
// transaction hash).

const CHAIN = 'bsc';
const PRODUCTS = ['variable-recurring', 'on-demand', 'one-time', 'wallet-to-wallet', 'scheduled-payments', 'fixed-recurring'];
const FR = 'fixed-recurring';

type Rec = Record<string, unknown> & { product: string; transactionHash: string; timestamp: number; planId?: string };

let emu: Emulator;
/** The emulator's every plan, and those a short url names (the rest no source names). */
let plans: string[];
let seen: string[];
let unseen: string[];
/** The five products' transfers, each with its product. */
let others: Rec[];
/** Each plan's billings, each with its product and plan. */
const billings = new Map<string, Rec[]>();

beforeAll(async () => {
  emu = await emulator();
  const truth = (await (await fetch(`${emu.url}/_emulator/subscriptions?chain=${CHAIN}`)).json()) as SubscriptionTruth;
  plans = truth.plans.map((p) => p.planId).sort();
  seen = [...new Set((await listOf(emu, '/fixed-recurring/short-urls')).map((u) => String(u.planId).toLowerCase()))].sort();
  unseen = plans.filter((p) => !seen.includes(p));
  others = [];
  for (const product of PRODUCTS.slice(0, 5)) for (const r of await listOf(emu, `/${product}/transfers`)) others.push({ product, ...r } as Rec);
  for (const planId of plans) billings.set(planId, (await listOf(emu, `/fixed-recurring/plans/${planId}/billings`)).map((r) => ({ product: FR, planId, ...r }) as Rec));
});
afterAll(() => emu.close());

/** The merged list of the five products' transfers and the billings of `of`, ascending. */
function merged(of: readonly string[], products = PRODUCTS): Rec[] {
  const all = [...others, ...of.flatMap((p) => billings.get(p)!)].filter((r) => products.includes(r.product));
  const rank = (p: string) => PRODUCTS.indexOf(p);
  const text = (a = '', b = '') => (a < b ? -1 : a > b ? 1 : 0);
  return all.sort((a, b) => a.timestamp - b.timestamp || rank(a.product) - rank(b.product) || (a.product === FR ? text(a.planId, b.planId) : 0) || text(a.transactionHash, b.transactionHash));
}

/** A user's home: a config folder, and a mirror path (absent until a sync fills it). */
function home(): { run: (args: string[], o?: RunOptions) => ReturnType<typeof payrec>; read: (args: string[], o?: RunOptions) => ReturnType<typeof payrecInProcess>; db: string } {
  const config = tempDir();
  const db = join(tempDir(), 'mirror.duckdb');
  const options = (o: RunOptions) => ({ ...o, env: { PAYREC_CONFIG_DIR: config, PAYREC_DB: db, ...o.env } });
  // read: the same run inside this worker (payrecInProcess, issue 48), for answers with no process boundary under test.
  return { db, run: (args, o = {}) => payrec(emu, args, options(o)), read: (args, o = {}) => payrecInProcess(emu, args, options(o)) };
}

const jsonl = (stdout: string) => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Rec);
const key = (r: Rec) => `${r.product} ${r.planId ?? ''} ${r.transactionHash}`;
const HINT = 'a plan that no short url names is unseen until added: payrec fr plans add PLAN_ID';

/** Exact decimal text as an integer count of 10^-18. */
function scaled(text: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,18}))?$/.exec(text);
  if (!m) throw new Error(`not a decimal: ${text}`);
  const v = BigInt(m[2]) * 10n ** 18n + BigInt((m[3] ?? '').padEnd(18, '0'));
  return m[1] ? -v : v;
}

describe('the emulator has what these tests need', () => {
  test('plans that short urls name, plans none names, billings in both, failed billings among them', () => {
    expect([seen.length, unseen.length]).toEqual([5, 6]);
    expect(seen.every((p) => plans.includes(p))).toBe(true);
    for (const p of plans) expect(billings.get(p)!.length).toBeGreaterThan(0);
    expect([...billings.values()].flat().some((b) => b.success !== 1)).toBe(true);
  });
});

describe('payrec transfers with the billings of the known plans', () => {
  test('--all: every billing of every plan a short url names, once, in time order among the other transfers; none of an unseen plan; stderr says so', async () => {
    const { run } = home();
    const r = await run(['transfers', '--all', '-f', 'jsonl', '--sort', 'asc', '--page-size', '37']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(`including the billings of 5 fixed-recurring plans (5 named by short urls); ${HINT}\n`);
    const out = jsonl(r.stdout);
    const want = merged(seen);
    expect(out.length).toBe(want.length);
    expect(out).toEqual(want.map((w) => (w.product === FR ? { ...w, outcome: expect.any(String) } : w)));
    // Nothing twice, and no billing of a plan no source names.
    expect(new Set(out.map(key)).size).toBe(out.length);
    expect(out.filter((t) => t.product === FR && unseen.includes(t.planId!))).toEqual([]);
    // Billings of several plans in the same second would be ordered by plan: the data has billings interleaved with every product.
    expect(new Set(out.map((t) => t.planId).filter((p) => p !== undefined && seen.includes(p))).size).toBe(5);
  });

  test('--token: the API filters the five products, payrec the billings (each names its token): the whole list and a --limit of it', async () => {
    // A token that both a known plan's billings and other products' transfers are in, and one plan's billings are not.
    const token = String(billings.get(seen[0])![0].token);
    const want = merged(seen).filter((r) => r.token === token);
    expect(want.some((r) => r.product === FR) && want.some((r) => r.product !== FR)).toBe(true);
    expect(seen.some((p) => billings.get(p)!.some((b) => b.token !== token))).toBe(true);
    const { read } = home();
    const all = await read(['transfers', '--token', token, '--all', '-f', 'jsonl', '--sort', 'asc', '-q']);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(jsonl(all.stdout).map(key)).toEqual(want.map(key));
    // --limit counts the records kept, not the billings walked: the newest 30 of that token.
    const newest = await read(['transfers', '--token', token, '--limit', '30', '-f', 'jsonl', '-q']);
    expect(newest.exitCode, newest.stderr).toBe(0);
    expect(jsonl(newest.stdout).map(key)).toEqual(want.reverse().slice(0, 30).map(key));
  });

  test('the default (desc) --limit is the newest of the same merged list; -q says nothing', async () => {
    const { read } = home();
    const r = await read(['transfers', '--limit', '50', '-f', 'jsonl', '-q']);
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(jsonl(r.stdout).map(key)).toEqual(merged(seen).reverse().slice(0, 50).map(key));
  });

  test('a plan added with fr plans add is included; so is one the mirror remembers from sync --plan-id', async () => {
    const { read, db } = home();
    expect((await read(['fr', 'plans', 'add', unseen[0]])).exitCode).toBe(0);
    const added = await read(['transfers', '--product', 'fr', '--all', '-f', 'jsonl', '--sort', 'asc']);
    expect(added.exitCode).toBe(0);
    expect(added.stderr).toBe(`including the billings of 6 fixed-recurring plans (5 named by short urls, 1 added with fr plans add); ${HINT}\n`);
    expect(jsonl(added.stdout).map(key)).toEqual(merged([...seen, unseen[0]], [FR]).map(key));

    // A sync given another unseen plan: the mirror remembers it.
    expect((await read(['sync', 'fr/billings', '--plan-id', unseen[1], '-q'])).exitCode).toBe(0);
    const remembered = await read(['transfers', '--product', 'fr', '--all', '-f', 'jsonl', '--sort', 'asc']);
    expect(remembered.exitCode).toBe(0);
    expect(remembered.stderr).toBe(`including the billings of 7 fixed-recurring plans (5 named by short urls, 1 added with fr plans add, 1 remembered from sync --plan-id); ${HINT}\n`);
    expect(jsonl(remembered.stdout).map(key)).toEqual(merged([...seen, unseen[0], unseen[1]], [FR]).map(key));

    // --db names the mirror; without it (and with no PAYREC_DB) the profile's mirror is absent: only the added plan.
    const other = await read(['transfers', '--product', 'fr', '--count', '--all', '--db', db]);
    expect(other.stdout).toBe(`${merged([...seen, unseen[0], unseen[1]], [FR]).length}\n`);
    const none = await read(['transfers', '--product', 'fr', '--count', '--all'], { env: { PAYREC_DB: join(tempDir(), 'absent.duckdb') } });
    expect(none.stdout).toBe(`${merged([...seen, unseen[0]], [FR]).length}\n`);
  });

  test('--product fr alone, and --plan-id: one plan (also an unseen one), with the other products that take --plan-id', async () => {
    const { read } = home();
    const fr = await read(['transfers', '--product', 'fixed-recurring', '--all', '-f', 'jsonl']);
    expect(fr.exitCode).toBe(0);
    expect(jsonl(fr.stdout).map(key)).toEqual(merged(seen, [FR]).reverse().map(key));

    const plan = unseen[2];
    const one = await read(['transfers', '--product', 'fr', '--plan-id', plan, '--all', '-f', 'jsonl', '--sort', 'asc']);
    expect(one.exitCode).toBe(0);
    expect(one.stderr).toBe('including the billings of 1 fixed-recurring plan: the one given with --plan-id\n');
    expect(jsonl(one.stdout).map(key)).toEqual(merged([plan], [FR]).map(key));

    // vr and od take --plan-id as a filter: the plan's transfers there, its billings here.
    const vrPlan = others.find((t) => t.product === 'variable-recurring')!.planId!;
    const mixed = await read(['transfers', '--product', 'vr,od,fr', '--plan-id', vrPlan, '--all', '-f', 'jsonl', '--sort', 'asc']);
    expect(mixed.exitCode).toBe(0);
    const want = merged([], ['variable-recurring', 'on-demand']).filter((t) => t.planId === vrPlan);
    expect(want.length).toBeGreaterThan(0);
    expect(jsonl(mixed.stdout).map(key)).toEqual(want.map(key));
  });

  test('--summary: a failed billing is not revenue; totals per token and status equal BigInt sums; --failed --count and --fail-if-any', async () => {
    const { run, read } = home();
    const r = await read(['transfers', '--all', '--summary', '-f', 'json', '-q']);
    expect(r.exitCode).toBe(0);
    const s = JSON.parse(r.stdout) as { count: number; totals: { token: string; status: string; count: number; amount: string; fee: string }[] };
    const all = merged(seen);
    expect(s.count).toBe(all.length);
    const statusOf = (t: Rec) => (t.product === FR && t.success !== 1 ? 'failed' : (t.transactionStatus as string) ?? worst(t));
    const sums = new Map<string, { count: number; amount: bigint; fee: bigint }>();
    for (const t of all) {
      const k = `${t.token as string}/${statusOf(t)}`;
      const x = sums.get(k) ?? { count: 0, amount: 0n, fee: 0n };
      x.count++;
      x.amount += scaled(t.amount as string);
      x.fee += scaled(t.fee as string);
      sums.set(k, x);
    }
    expect(s.totals.map((row) => `${row.token}/${row.status}`).sort()).toEqual([...sums.keys()].sort());
    for (const row of s.totals) expect([row.count, scaled(row.amount), scaled(row.fee)]).toEqual(Object.values(sums.get(`${row.token}/${row.status}`)!));

    // The billings with success 0 and status confirmed are among the failed, never the confirmed.
    const quietFailures = all.filter((t) => t.product === FR && t.success !== 1 && t.transactionStatus === 'confirmed');
    expect(quietFailures.length).toBeGreaterThan(0);
    const failed = await run(['transfers', '--product', 'fr', '--failed', '--all', '--count', '--fail-if-any', '-q']);
    expect(failed.exitCode).toBe(9);
    expect(failed.stdout).toBe(`${all.filter((t) => t.product === FR && statusOf(t) === 'failed').length}\n`);
  });

  test('-f csv carries outcome for billings (paid, failed, pending by the one meaning), planId, and the other products\' rows empty there; --jq sees the same', async () => {
    const { run, read } = home();
    const r = await read(['transfers', '--all', '-f', 'csv', '--sort', 'asc', '-q']);
    expect(r.exitCode).toBe(0);
    const [header, ...rows] = parseCsv(r.stdout);
    expect(header.at(-1)).toBe('outcome');
    const at = (row: string[], f: string) => row[header.indexOf(f)];
    const want = merged(seen);
    expect(rows.length).toBe(want.length);
    const outcome = (t: Rec) => (t.product !== FR ? '' : t.success !== 1 || t.transactionStatus === 'failed' ? 'failed' : t.transactionStatus === 'confirmed' ? 'paid' : 'pending');
    expect(rows.map((row) => [at(row, 'product'), at(row, 'planId'), at(row, 'transactionHash'), at(row, 'outcome')])).toEqual(
      want.map((t) => [t.product, (t.planId as string) ?? '', t.transactionHash, outcome(t)]),
    );
    const paid = await run(['transfers', '--all', '-q', '--jq', '[.[] | select(.outcome == "paid") | .transactionHash] | length']);
    expect(paid.stdout).toBe(`${want.filter((t) => outcome(t) === 'paid').length}\n`);

    // A workbook: one row per record, the billings' outcome beside their amount.
    const file = join(tempDir(), 'transfers.xlsx');
    expect((await run(['transfers', '--all', '--sort', 'asc', '-q', '-o', file])).exitCode).toBe(0);
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(file);
    const sheet = book.worksheets[0];
    const head = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
    expect(sheet.rowCount).toBe(want.length + 1);
    const cells = want.map((_, i) => ['product', 'transactionHash', 'outcome'].map((c) => sheet.getRow(i + 2).getCell(head.indexOf(c) + 1).value ?? ''));
    expect(cells).toEqual(want.map((t) => [t.product, t.transactionHash, outcome(t)]));
  });

  test('--verify checks each billing as fr billings --verify does (the collection and plan of each record)', async () => {
    const { run } = home();
    const env = { PAYREC_RPC_URL: emu.rpcUrl(CHAIN) };
    const plan = [...seen].sort((a, b) => billings.get(b)!.length - billings.get(a)!.length)[0];
    const merged = await run(['transfers', '--product', 'fr', '--plan-id', plan, '--all', '--verify', '-f', 'json', '-q'], { env });
    const own = await run(['fr', 'billings', '--plan-id', plan, '--all', '--verify', '-f', 'json', '-q'], { env });
    expect([merged.exitCode, own.exitCode]).toEqual([0, 0]);
    const verdicts = (stdout: string) => (JSON.parse(stdout) as Rec[]).map((t) => [t.transactionHash, t.verdict, t.chainDiff]);
    expect(verdicts(merged.stdout)).toEqual(verdicts(own.stdout));
    expect(new Set(verdicts(merged.stdout).map((v) => v[1])).has('verified')).toBe(true);
  });

  test.each([
    [['--product', 'fr,ot', '--sender', '0x1234567890123456789012345678901234567890'], /--sender is not a filter of fixed-recurring billings[\s\S]*--product/],
    [['--triggered-by', '0x1234567890123456789012345678901234567890'], /--triggered-by is not a filter of variable-recurring transfers, on-demand transfers, one-time transfers, wallet-to-wallet transfers, scheduled-payments transfers[\s\S]*--product fr/],
    [['--product', 'fr', '--plan-id', '0x12'], /invalid --plan-id "0x12"/],
    [['--db', '/nonexistent/payrec/mirror.duckdb'], /there is no mirror at \/nonexistent\/payrec\/mirror.duckdb/],
  ])('bad input %j exits 2 and sends nothing', async (args, message) => {
    const { read } = home();
    emu.clearLog();
    const r = await read(['transfers', ...args]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(emu.requests).toEqual([]);
  });
});

describe('payrec transfers --follow with billings in the mix', () => {
  test('billings added to the known plans while following are printed once each, with their plan; those of other plans are not', async () => {
    const live = await emulator();
    const run = (args: string[]) => payrec(live, args, { env: { PAYREC_DB: join(tempDir(), 'absent.duckdb') } });
    const billingsOf = async (plan: string) => (await listOf(live, `/fixed-recurring/plans/${plan}/billings`)).map((r) => `${plan} ${r.transactionHash as string}`);
    const all = async () => new Set((await Promise.all(plans.map(billingsOf))).flat());
    const before = await all();
    const child = run(['transfers', '--product', 'fr', '-f', 'jsonl', '--follow', '--interval', '0.2']);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    const lines = () => jsonl(out);
    const polls = () => live.requests.filter((q) => q.path === `/v1/${CHAIN}/fixed-recurring/plans/${seen[0]}/billings`).length;
    const until = async (what: string, ok: () => boolean) => {
      for (const end = Date.now() + 15_000; !ok(); await new Promise((r) => setTimeout(r, 20))) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    };
    try {
      await until('the second poll', () => polls() >= 2);
      const res = await fetch(`${live.url}/_emulator/records`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${live.keyFor(CHAIN)}` }, body: JSON.stringify({ chain: CHAIN, collection: 'fixed-recurring/billings', count: 12 }) });
      expect(res.status).toBe(201);
      const added = [...(await all())].filter((k) => !before.has(k));
      expect(added.length).toBe(12);
      const wanted = added.filter((k) => seen.includes(k.split(' ')[0]));
      expect(wanted.length).toBeGreaterThan(0);
      expect(wanted.length).toBeLessThan(12);
      await until(`${wanted.length} records`, () => lines().length >= wanted.length);
      const seenPolls = polls();
      await until('3 more polls', () => polls() >= seenPolls + 3);
      expect(lines().map((t) => `${t.planId} ${t.transactionHash}`).sort()).toEqual(wanted.sort());
      expect(lines().every((t) => t.product === FR && typeof t.outcome === 'string')).toBe(true);
    } finally {
      child.kill('SIGINT');
      const r = await child;
      expect(r.exitCode).toBe(130);
      await live.close();
    }
  });
});

describe("the mirror's transfers view holds the billings too, in the same shape", () => {
  test('per product, the counts of its tables; per token and status, the sums payrec transfers --summary gives, digit for digit', async () => {
    const { run, read, db } = home();
    expect((await run(['sync', '-q'])).exitCode).toBe(0);
    const counts = await sql(db, 'SELECT product, count(*) AS n FROM transfers GROUP BY 1 ORDER BY 1');
    const tables = await sql(
      db,
      [['fixed-recurring', 'fixed_recurring_billings'], ...PRODUCTS.slice(0, 5).map((p) => [p, `${p.replaceAll('-', '_')}_transfers`])]
        .map(([p, t]) => `SELECT '${p}' AS product, count(*) AS n FROM ${t}`)
        .join(' UNION ALL ') + ' ORDER BY 1',
    );
    expect(counts).toEqual(tables);
    // The mirror holds what the API serves: the short urls' plans' billings.
    expect(counts.find((c) => c.product === FR)!.n).toBe(seen.reduce((n, p) => n + billings.get(p)!.length, 0));

    // A billing's status is failed when its outcome is (success not 1): as --summary counts it.
    const sums = await sql(
      db,
      "SELECT token, CASE WHEN outcome = 'failed' THEN 'failed' ELSE transactionStatus END AS status, count(*) AS count, SUM(amount)::VARCHAR AS amount, SUM(fee)::VARCHAR AS fee FROM transfers GROUP BY ALL ORDER BY ALL",
    );
    const summary = await read(['transfers', '--all', '--summary', '-f', 'json', '-q', '--db', db]);
    expect(summary.exitCode).toBe(0);
    const totals = (JSON.parse(summary.stdout) as { totals: Row[] }).totals;
    const text = (r: Row) => ({ ...r, amount: decimalSum([r.amount as string]), fee: decimalSum([r.fee as string]) });
    const order = (a: Row, b: Row) => (`${a.token} ${a.status}` < `${b.token} ${b.status}` ? -1 : 1);
    expect(sums.map(text).sort(order)).toEqual(totals.map(text).sort(order));
    expect(sums.some((r) => r.status === 'failed' && r.count as number > 0)).toBe(true);
    // And the outcome column the view gives each billing is the export's.
    const outcomes = await sql(db, "SELECT transactionHash, outcome FROM transfers WHERE product = 'fixed-recurring' ORDER BY 1");
    const exported = jsonl((await read(['transfers', '--product', 'fr', '--all', '-f', 'jsonl', '-q', '--db', db])).stdout);
    expect(outcomes).toEqual(exported.map((t) => ({ transactionHash: t.transactionHash, outcome: t.outcome })).sort((a, b) => (a.transactionHash < b.transactionHash ? -1 : 1)));
  });
});

/** A wallet-to-wallet payment's status is its receivers' worst (status.ts). */
function worst(t: Rec): string {
  const statuses = ((t.receivers as { transactionStatus: string }[]) ?? []).map((r) => r.transactionStatus);
  return statuses.includes('failed') ? 'failed' : statuses.includes('pending') ? 'pending' : 'confirmed';
}
