import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { endpoints } from '../../src/registry/endpoints.js';
import type { Endpoint } from '../../src/registry/types.js';
import { flagOf } from '../../src/core/runtime/options.js';
import type { Emulator, Fixtures } from '../../src/emulator/index.js';
import { emulator, parseCsv, payrec, payrecInProcess } from './helpers.js';

// Every read endpoint of the registry, through its command, in every format, checked
// against what the emulator answers over plain HTTP for the same request.

let emu: Emulator;
let fx: Fixtures;
const values = new Map<string, Record<string, string>>();

async function api(path: string): Promise<any> {
  const res = await fetch(`${emu.url}/v1/bsc${path}`, { headers: { authorization: `Bearer ${emu.keyFor('bsc')}` } });
  return res.json();
}

/** A path-parameter value that exists in the emulator's data, for each endpoint. */
async function valuesFor(e: Endpoint): Promise<Record<string, string>> {
  const product = e.product as keyof Fixtures['plans'];
  const out: Record<string, string> = {};
  for (const p of e.params) {
    if (p.name === 'planId') out.planId = fx.plans[product][0];
    else if (p.name === 'strategyId') out.strategyId = fx.strategies[0];
    else if (p.name === 'path') out.path = fx.shortUrls[e.product as 'on-demand'][0];
    else if (p.name === 'notificationId') out.notificationId = fx.notifications[0];
    else if (p.name === 'id') out.id = e.product === 'one-time' ? fx.oneTimePayments[0] : fx.walletToWalletPayments[0];
    else if (p.name === 'subscriptionId' && e.kind === 'list') out.subscriptionId = fx.subscriptions[product][0];
    else if (p.name === 'subscriptionId') {
      // A subscription that has the record: take it from the plan-level list.
      const list = e.collection.endsWith('cancellation-requests') ? 'cancellation-requests' : 'cancellations';
      for (const plan of fx.plans[product]) {
        const body = await api(`/${e.product}/plans/${plan}/${list}?limit=1`);
        if (body.data.length) {
          out.subscriptionId = body.data[0].subscriptionId;
          break;
        }
      }
    }
  }
  return out;
}

/**
 * A billing as payrec exports it: the API's fields and its outcome by DESIGN's one meaning
 * (failed when success is not 1 or the status is failed; paid when 1 and confirmed; else
 * pending), written out here, not payrec's own function. Other records pass unchanged.
 */
function withOutcome(r: Record<string, unknown>): Record<string, unknown> {
  if (!('success' in r)) return r;
  const outcome = r.success !== 1 || r.transactionStatus === 'failed' ? 'failed' : r.transactionStatus === 'confirmed' ? 'paid' : 'pending';
  return { ...r, outcome };
}

function argsFor(e: Endpoint, v: Record<string, string>): string[] {
  const args = [e.product, ...e.command];
  for (const p of e.params) args.push(...(p.as === 'flag' ? [flagOf(p.name), v[p.name]] : [v[p.name]]));
  return args;
}

function pathFor(e: Endpoint, v: Record<string, string>): string {
  return e.path.replace(/:([A-Za-z]+)/g, (_, n: string) => v[n]);
}

/** How many records the command should print with --limit `limit`. */
async function expectedCount(e: Endpoint, v: Record<string, string>, limit: number): Promise<number> {
  if (e.kind === 'single') return 1;
  const truth = await api(`${pathFor(e, v)}?limit=1`);
  expect(truth.total).toBeGreaterThan(0);
  return Math.min(limit, truth.total);
}

const reads = endpoints.filter((e) => e.method === 'GET');

beforeAll(async () => {
  emu = await emulator();
  fx = emu.fixtures('bsc');
  // The plan webhook read needs a webhook to exist.
  await fetch(`${emu.url}/v1/bsc/fixed-recurring/plans/${fx.plans['fixed-recurring'][0]}/webhook`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${emu.keyFor('bsc')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ webhook: 'https://shop.example/hooks' }),
  });
  for (const e of reads) values.set(e.id, await valuesFor(e));
});
afterAll(() => emu.close());

/**
 * The first read runs the built binary in a process of its own, once in each format (the
 * bundle's HTTP client and writers); the others are the same answers, run in this worker
 * (payrecInProcess) against the same emulator over HTTP: no process boundary is under
 * test there (issue 48).
 */
describe.each(reads.map((e) => [e.id, e] as const))('%s', (_id, e) => {
  const run = e === reads[0] ? payrec : payrecInProcess;
  test.concurrent('json matches the API answer', async () => {
    const v = values.get(e.id)!;
    const r = await run(emu, [...argsFor(e, v), '-f', 'json', ...(e.kind === 'list' ? ['--limit', '30'] : [])]);
    // A list cut by --limit says so on stderr (DESIGN.md), whether or not it is a terminal.
    expect(r.stderr).toMatch(e.kind === 'list' ? /^(showing 30 of [\d,]+; --all for every record\n)?$/ : /^$/);
    expect(r.exitCode).toBe(0);
    const printed = JSON.parse(r.stdout);
    const truth = await api(`${pathFor(e, v)}${e.kind === 'list' ? '?limit=30' : ''}`);
    if (e.kind === 'list') {
      expect(Array.isArray(printed)).toBe(true);
      expect(printed.length).toBe(Math.min(30, truth.total));
      expect(printed.length).toBeGreaterThan(0);
      expect(printed).toEqual(truth.data.map(withOutcome));
    } else {
      expect(printed).toEqual(withOutcome(truth));
    }
  });

  test.concurrent('jsonl prints one record per line', async () => {
    const v = values.get(e.id)!;
    const r = await run(emu, [...argsFor(e, v), '-f', 'jsonl', ...(e.kind === 'list' ? ['--limit', '7'] : [])]);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(await expectedCount(e, v, 7));
    for (const line of lines) expect(typeof JSON.parse(line)).toBe('object');
  });

  test.concurrent('csv has a header row and one row per record', async () => {
    const v = values.get(e.id)!;
    const r = await run(emu, [...argsFor(e, v), '-f', 'csv', ...(e.kind === 'list' ? ['--limit', '5'] : [])]);
    expect(r.exitCode).toBe(0);
    const rows = parseCsv(r.stdout);
    expect(rows.length).toBe(1 + (await expectedCount(e, v, 5)));
    for (const col of e.columns.filter((c) => !c.includes('.'))) expect(rows[0]).toContain(col);
    expect(new Set(rows.map((row) => row.length)).size).toBe(1);
  });

  test.concurrent('table (piped) prints the default columns tab-separated', async () => {
    const v = values.get(e.id)!;
    const r = await run(emu, [...argsFor(e, v), ...(e.kind === 'list' ? ['--limit', '4'] : [])]);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    if (e.kind === 'list') {
      expect(lines[0].split('\t')).toEqual(e.columns);
      expect(lines.length).toBe(1 + (await expectedCount(e, v, 4)));
    } else {
      expect(lines.length).toBeGreaterThan(0);
      expect(r.stdout).not.toMatch(/\u001b/);
    }
  });
});
