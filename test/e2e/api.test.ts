import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator, Fixtures } from '../../src/emulator/index.js';
import { emulator, payrec, payrecInProcess, tempDir } from './helpers.js';

// `payrec api PATH`: the escape hatch for any endpoint, checked against what the
// emulator answers to the same request made here with fetch. The first GET, -o's file,
// exit 4 and the first refusal run the built binary in a process; the other requests run
// in this worker (payrecInProcess, issue 48), over HTTP to the same emulator.

let emu: Emulator;
let fx: Fixtures;

beforeAll(async () => {
  emu = await emulator({ records: 600 });
  fx = emu.fixtures('bsc');
});
afterAll(() => emu.close());

async function direct(path: string, init: RequestInit = {}): Promise<unknown> {
  const res = await fetch(`${emu.url}/v1/bsc/${path}`, { ...init, headers: { authorization: `Bearer ${emu.keyFor('bsc')}`, 'content-type': 'application/json' } });
  return res.json();
}

describe('payrec api', () => {
  test.concurrent('GET with repeated --query prints the API\'s JSON as it is', async () => {
    const r = await payrec(emu, ['api', 'one-time/transfers', '--query', 'token=USDT', '--query', 'limit=5', '--query', 'sort=asc']);
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body).toEqual(await direct('one-time/transfers?token=USDT&limit=5&sort=asc'));
    expect(body.data).toHaveLength(5);
    expect(body.data.every((t: any) => t.token === 'USDT')).toBe(true);
  });

  test.concurrent('a leading slash is fine; a single record comes back as the object', async () => {
    const id = fx.oneTimePayments[0];
    const r = await payrecInProcess(emu, ['api', `/one-time/${id}`]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(await direct(`one-time/${id}`));
  });

  test.concurrent('--all pages a list into one document: every record once, total as the API counts it', async () => {
    const r = await payrecInProcess(emu, ['api', 'one-time/transfers', '--all', '--query', 'limit=70', '--query', 'token=BNB']);
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout);
    const truth = (await direct('one-time/transfers?token=BNB&limit=1000')) as { data: any[]; total: number };
    expect(truth.total).toBeGreaterThan(70); // more than one page
    expect(doc).toEqual({ data: truth.data, total: truth.total });
  });

  test.concurrent('--all with -o writes the document atomically to the file, nothing on stdout', async () => {
    const file = join(tempDir(), 'transfers.json');
    const r = await payrec(emu, ['api', 'dollar-cost-average/executions', '--all', '-o', file]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    expect(doc.data).toHaveLength(600);
    expect(doc.total).toBe(600);
  });

  test.concurrent('-X PUT and DELETE with --body act on the API (a plan webhook)', async () => {
    const plan = fx.plans['fixed-recurring'][1];
    const put = await payrecInProcess(emu, ['api', `fixed-recurring/plans/${plan}/webhook`, '-X', 'PUT', '--body', '{"webhook":"https://shop.example/api-test"}']);
    expect(put.exitCode).toBe(0);
    expect(await direct(`fixed-recurring/plans/${plan}/webhook`)).toEqual({ webhook: 'https://shop.example/api-test' });
    const got = await payrecInProcess(emu, ['api', `fixed-recurring/plans/${plan}/webhook`, '--method', 'get']);
    expect(JSON.parse(got.stdout)).toEqual({ webhook: 'https://shop.example/api-test' });
    const del = await payrecInProcess(emu, ['api', `fixed-recurring/plans/${plan}/webhook`, '-X', 'DELETE']);
    expect(del.exitCode).toBe(0);
    expect(JSON.parse(del.stdout)).toBeTypeOf('object'); // the API's answer, printed as JSON
    const after = await payrecInProcess(emu, ['api', `fixed-recurring/plans/${plan}/webhook`]);
    expect(after.exitCode).toBe(4); // no webhook any more
    expect(after.stdout).toBe('');
  });

  test.concurrent('API errors keep their exit codes: 404 is 4, 400 is 5, and stdout stays empty', async () => {
    const missing = await payrec(emu, ['api', 'no-such/thing']);
    expect(missing.exitCode).toBe(4);
    expect(missing.stderr).toMatch(/^error: GET \/v1\/bsc\/no-such\/thing: 404/m);
    expect(missing.stdout).toBe('');
    const rejected = await payrecInProcess(emu, ['api', 'one-time/transfers', '--all', '--query', 'from=yesterday']);
    expect(rejected.exitCode).toBe(5);
    expect(rejected.stdout).toBe(''); // no half-opened document
  });
});

describe('payrec api: bad input is exit 2 and sends nothing', () => {
  let quiet: Emulator;
  beforeAll(async () => (quiet = await emulator()));
  afterAll(() => quiet.close());

  test.concurrent.each([
    ['an unknown method', ['one-time/transfers', '-X', 'PATCH'], /invalid --method "PATCH": expected GET, POST, PUT or DELETE/],
    ['a query without =', ['one-time/transfers', '--query', 'token'], /invalid --query "token": expected key=value/],
    ['a body that is not JSON', ['fixed-recurring/plans/0x1/webhook', '-X', 'PUT', '--body', '{webhook:'], /invalid --body: expected JSON/],
    ['a full /v1 path', ['/v1/bsc/one-time/transfers'], /give the path below \/v1\/<chain>\//],
    ['a query string in the path', ['one-time/transfers?limit=5'], /put query parameters in --query/],
    ['a .. segment', ['one-time/../fixed-recurring/short-urls'], /no \. or \.\. segments/],
    ['--all on a POST', ['fixed-recurring/short-urls', '-X', 'POST', '--all'], /--all pages GET lists only/],
    ['--all with a page size over 1000', ['one-time/transfers', '--all', '--query', 'limit=5000'], /--query limit.*5000/],
  ])('%s', async (name, args, message) => {
    // The first refusal by the built binary in a process, the others in this worker (issue 48).
    const r = await (name === 'an unknown method' ? payrec : payrecInProcess)(quiet, ['api', ...args]);
    expect(r.stderr).toMatch(message);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
  });

  test('none of them reached the emulator', () => {
    expect(quiet.requests).toEqual([]);
  });
});
