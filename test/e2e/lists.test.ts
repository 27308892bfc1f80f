import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { Emulator, Fixtures } from '../../src/emulator/index.js';
import { ANCHOR, apiRecords, emulator, payrec, payrecInProcess } from './helpers.js';

// Filters, time windows, sorting and pagination, read from the user's side (stdout)
// and from the server's side (the emulator's request log). The first list and the first
// refusal run the built binary in a process; the other lists, read from the emulator over
// HTTP as a process reads them, run in this worker (payrecInProcess, issue 48).

let emu: Emulator;
let fx: Fixtures;

async function api(path: string): Promise<any> {
  const res = await fetch(`${emu.url}/v1/bsc${path}`, { headers: { authorization: `Bearer ${emu.keyFor('bsc')}` } });
  return res.json();
}

const json = (stdout: string) => JSON.parse(stdout) as Record<string, any>[];

beforeAll(async () => {
  emu = await emulator({ records: 1234 });
  fx = emu.fixtures('bsc');
});
afterAll(() => emu.close());
beforeEach(() => emu.clearLog());

describe('pagination', () => {
  test('--limit cuts across page boundaries and keeps the server order', async () => {
    const r = await payrec(emu, ['one-time', 'transfers', '--limit', '250', '--page-size', '100', '-f', 'json', '--to', String(ANCHOR)]);
    expect(r.exitCode).toBe(0);
    const got = json(r.stdout);
    expect(got).toHaveLength(250);
    const pages = emu.requests.filter((q) => q.path === '/v1/bsc/one-time/transfers');
    expect(pages.map((q) => [q.query.offset, q.query.limit])).toEqual([
      ['0', '100'],
      ['100', '100'],
      ['200', '50'],
    ]);
    const truth = await api(`/one-time/transfers?limit=250&to=${ANCHOR}`);
    expect(got).toEqual(truth.data);
  });

  test('--all returns exactly the total, each record once, with `to` pinned on every page', async () => {
    const r = await payrecInProcess(emu, ['one-time', 'transfers', '--all', '--page-size', '100', '-f', 'jsonl']);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    const pages = emu.requests.filter((q) => q.path === '/v1/bsc/one-time/transfers');
    const total = (await api('/one-time/transfers?limit=1')).total;
    expect(total).toBe(1234);
    expect(lines).toHaveLength(total);
    expect(new Set(lines.map((t) => t.transactionHash)).size).toBe(total);
    expect(pages).toHaveLength(13);
    const tos = new Set(pages.map((q) => q.query.to));
    expect(tos.size).toBe(1);
    expect(Number([...tos][0])).toBeGreaterThan(ANCHOR);
  });

  test('--offset skips records', async () => {
    const all = json((await payrecInProcess(emu, ['one-time', 'transfers', '--limit', '20', '-f', 'json'])).stdout);
    const r = await payrecInProcess(emu, ['one-time', 'transfers', '--limit', '5', '--offset', '10', '-f', 'json']);
    expect(json(r.stdout)).toEqual(all.slice(10, 15));
  });

  test('--all with one-record pages still gives the same records as one big page', async () => {
    const small = await payrecInProcess(emu, ['scheduled-payments', 'transfers', '--from', String(ANCHOR - 20 * 86400), '--all', '--page-size', '7', '-f', 'csv']);
    const big = await payrecInProcess(emu, ['scheduled-payments', 'transfers', '--from', String(ANCHOR - 20 * 86400), '--all', '-f', 'csv']);
    expect(small.exitCode).toBe(0);
    expect(small.stdout.split('\n').length).toBeGreaterThan(10);
    expect(small.stdout).toBe(big.stdout);
  });
});

describe('time window and sort', () => {
  test('--from and --to are inclusive at both ends', async () => {
    const some = json((await payrecInProcess(emu, ['one-time', 'transfers', '--limit', '50', '-f', 'json'])).stdout);
    const hi = some[10].timestamp;
    const lo = some[40].timestamp;
    const r = await payrecInProcess(emu, ['one-time', 'transfers', '--from', String(lo), '--to', String(hi), '--all', '-f', 'json']);
    const got = json(r.stdout);
    expect(got[0].timestamp).toBe(hi);
    expect(got.at(-1)!.timestamp).toBe(lo);
    expect(got.every((t) => t.timestamp >= lo && t.timestamp <= hi)).toBe(true);
    expect(got.length).toBeGreaterThanOrEqual(31);
  });

  test('ISO dates and relative ages become Unix seconds on the wire', async () => {
    await payrecInProcess(emu, ['one-time', 'transfers', '--from', '2025-12-01', '--to', '2025-12-31T23:59:59Z', '--limit', '1']);
    expect(emu.requests[0].query.from).toBe(String(Date.UTC(2025, 11, 1) / 1000));
    expect(emu.requests[0].query.to).toBe(String(Date.UTC(2025, 11, 31, 23, 59, 59) / 1000));
    emu.clearLog();
    // payrec reads its clock while it runs: between these two readings, however long it takes.
    const before = Math.floor(Date.now() / 1000);
    await payrecInProcess(emu, ['one-time', 'transfers', '--from', '7d', '--limit', '1']);
    const after = Math.floor(Date.now() / 1000);
    const from = Number(emu.requests[0].query.from);
    expect(from).toBeGreaterThanOrEqual(before - 7 * 86400);
    expect(from).toBeLessThanOrEqual(after - 7 * 86400);
  });

  test('--sort asc is the exact reverse of desc, ties included', async () => {
    const window = ['--from', String(ANCHOR - 60 * 86400), '--to', String(ANCHOR), '--all', '-f', 'jsonl', '--columns', 'transactionHash'];
    const desc = (await payrecInProcess(emu, ['one-time', 'transfers', ...window, '--sort', 'desc'])).stdout.trimEnd().split('\n');
    const asc = (await payrecInProcess(emu, ['one-time', 'transfers', ...window, '--sort', 'asc'])).stdout.trimEnd().split('\n');
    expect(desc.length).toBeGreaterThan(50);
    expect(asc).toEqual([...desc].reverse());
  });
});

describe('filters', () => {
  test('--token keeps exactly that token\'s records and is sent as the API parameter', async () => {
    const token = fx.tokens[0];
    const r = await payrecInProcess(emu, ['one-time', 'transfers', '--token', token, '--all', '-f', 'json']);
    const got = json(r.stdout);
    expect(emu.requests[0].query.token).toBe(token);
    // The API's whole list, read here, filtered here: the same records, in the same order.
    const expected = (await apiRecords(emu, '/one-time/transfers')).filter((t) => t.token === token);
    expect(expected.length).toBeGreaterThan(0);
    expect(got).toEqual(expected);
  });

  test('billings by plan with --triggered-by, and by subscription: exactly the plan\'s billings that match', async () => {
    const plan = fx.plans['fixed-recurring'][0];
    // Billing exports add outcome, DESIGN's one reading of success and transactionStatus.
    const outcome = (b: Record<string, unknown>) => (b.success !== 1 || b.transactionStatus === 'failed' ? 'failed' : b.transactionStatus === 'confirmed' ? 'paid' : 'pending');
    const billings: Record<string, any>[] = (await apiRecords(emu, `/fixed-recurring/plans/${plan}/billings`)).map((b) => ({ ...b, outcome: outcome(b) }));
    expect(billings.length).toBeGreaterThan(1);
    const all = json((await payrecInProcess(emu, ['fixed-recurring', 'billings', '--plan-id', plan, '--all', '-f', 'json'])).stdout);
    expect(all).toEqual(billings);
    const who = billings[0].triggeredBy as string;
    const mine = json((await payrecInProcess(emu, ['fr', 'billings', '--plan-id', plan, '--triggered-by', who, '--all', '-f', 'json'])).stdout);
    expect(mine).toEqual(billings.filter((b) => b.triggeredBy.toLowerCase() === who.toLowerCase()));
    const sub = billings[0].subscriptionId as string;
    const bySub = json((await payrecInProcess(emu, ['fr', 'billings', '--subscription-id', sub, '--all', '-f', 'json'])).stdout);
    expect(bySub).toEqual(billings.filter((b) => b.subscriptionId === sub));
  });

  test('one-time payments by receiver: exactly those with the receiver among theirs', async () => {
    const receiver = fx.addresses.receivers[0];
    const got = json((await payrecInProcess(emu, ['one-time', 'payments', 'list', '--receiver', receiver, '--all', '-f', 'json'])).stdout);
    const expected = (await apiRecords(emu, '/one-time')).filter((p) => p.receivers.some((x: { user: string }) => x.user.toLowerCase() === receiver.toLowerCase()));
    expect(expected.length).toBeGreaterThan(0);
    expect(got).toEqual(expected);
  });

  test('executions of one strategy use the strategy endpoint', async () => {
    const id = fx.strategies[0];
    const r = await payrecInProcess(emu, ['dca', 'executions', '--strategy-id', id, '--limit', '3', '-f', 'json']);
    expect(r.exitCode).toBe(0);
    expect(json(r.stdout).every((x) => x.strategyId === id)).toBe(true);
    expect(emu.requests[0].path).toBe(`/v1/bsc/dollar-cost-average/strategies/${id}/executions`);
  });

  test('a filter that belongs to the other variant is refused before sending', async () => {
    const r = await payrec(emu, ['fr', 'billings', '--subscription-id', fx.subscriptions['fixed-recurring'][0], '--triggered-by', fx.addresses.triggeredBy[0]]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--triggered-by works only with --plan-id/);
    expect(emu.requests).toHaveLength(0);
  });
});

describe('an export of an empty window', () => {
  test('CSV is the header the records would have, so a file of no records still names its columns', async () => {
    const empty = ['--from', '2020-01-01', '--to', '2020-01-02', '-f', 'csv'];
    for (const [command, collection] of [
      [['one-time', 'transfers'], 'one-time/transfers'],
      [['dca', 'executions'], 'dollar-cost-average/executions'],
      [['wallet-to-wallet', 'payments', 'list'], 'wallet-to-wallet/payments'],
    ] as const) {
      const r = await payrecInProcess(emu, [...command, ...empty]);
      expect(r.exitCode).toBe(0);
      // The emulator's own records name the fields (their top-level keys).
      const fields = Object.keys(emu.records('bsc', collection).records[0]);
      expect(r.stdout).toBe(`${fields.join(',')}\r\n`);
    }
  });
});
