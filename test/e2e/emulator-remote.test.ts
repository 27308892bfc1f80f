import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { DeliveryAttempt } from '../../src/emulator/delivery.js';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec, until, watch } from './helpers.js';

// The emulator stays on this machine (issue 32 item 3): its keys are public, so it
// listens on loopback only unless --allow-remote says otherwise (with a warning), and its
// webhook deliveries never follow a redirect to a service the receiver points at.

describe('emulator start --host', () => {
  test.concurrent('an address other machines reach is refused (exit 2, nothing listens) unless --allow-remote, which warns', async () => {
    // Mutant killed: no loopback check (the emulator listened on every interface, silently).
    const refused = await payrec(undefined, ['emulator', 'start', '--host', '0.0.0.0', '--port', '0']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      'error: refusing --host 0.0.0.0: the emulator listens on loopback addresses only\nhint: use 127.0.0.1 (the default), or add --allow-remote to be reachable from other machines\n',
    );
    const allowed = payrec(undefined, ['emulator', 'start', '--host', '0.0.0.0', '--allow-remote', '--port', '0', '--records', '1']);
    await watch(allowed.stdout!).waitFor(/listening on http:\/\/0\.0\.0\.0:\d+/);
    allowed.kill('SIGINT');
    const r = await allowed;
    expect(r.stderr).toBe(
      'warning: listening on 0.0.0.0: reachable from other machines, with public demo keys; anyone who reaches it reads its records, its request log and deliveries, ' +
        'and can inject faults and start live traffic (/_emulator/); its webhooks go only to no host (give --webhook-hosts)\n',
    );
    // A loopback address other than 127.0.0.1 needs nothing more.
    const loopback = payrec(undefined, ['emulator', 'start', '--host', '127.0.0.2', '--port', '0', '--records', '1']);
    await watch(loopback.stdout!).waitFor(/listening on http:\/\/127\.0\.0\.2:\d+/);
    loopback.kill('SIGINT');
    expect((await loopback).stderr).toBe('');
  });
});

describe('emulator start --allow-remote: webhooks go only to the hosts it was told (issue 48, item 6)', () => {
  let inside: Server;
  const reached: string[] = [];
  beforeAll(async () => {
    // A service of this machine's, on loopback: what a webhook set by anyone who reaches the emulator would hit.
    inside = createServer((req, res) => {
      reached.push(`${req.method} ${req.url}`);
      res.end();
    });
    await new Promise<void>((resolve) => inside.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise((resolve) => inside.close(resolve)));

  /** Starts `payrec emulator start args…`, sets a plan's webhook to the inside service, fires an event, and returns its one delivery attempt. */
  async function deliveredBy(args: string[]): Promise<DeliveryAttempt> {
    const run = payrec(undefined, ['emulator', 'start', '--port', '0', '--records', '5', ...args]);
    try {
      const [, port] = await watch(run.stdout!).waitFor(/listening on http:\/\/[^:]+:(\d+)/);
      const url = `http://127.0.0.1:${port}`;
      const { plans } = (await (await fetch(`${url}/_emulator/fixtures?chain=bsc`)).json()) as { plans: Record<string, string[]> };
      const plan = plans['fixed-recurring'][0];
      const env = { PAYREC_BASE_URL: url, PAYREC_API_KEY: 'prk_demo_bsc', PAYREC_CHAIN: 'bsc' };
      const hook = `http://127.0.0.1:${(inside.address() as AddressInfo).port}/hook`;
      expect((await payrec(undefined, ['fr', 'webhook', 'set', '--plan-id', plan, hook], { env })).exitCode).toBe(0);
      expect((await payrec(undefined, ['emulator', 'trigger', 'Billing', '--plan-id', plan], { env })).exitCode).toBe(0);
      let attempts: DeliveryAttempt[] = [];
      await until('a delivery attempt', async () => (attempts = (await (await fetch(`${url}/_emulator/deliveries`)).json()) as DeliveryAttempt[]).length > 0);
      return attempts[0];
    } finally {
      run.kill('SIGINT');
      await run;
    }
  }

  test('without --webhook-hosts, a webhook at a loopback service is not posted to (said in its delivery); with the host named, it is', async () => {
    // Mutant killed: --allow-remote without the delivery hosts (the emulator posted to whatever 127.0.0.1 service a caller named).
    const refused = await deliveredBy(['--host', '0.0.0.0', '--allow-remote']);
    expect(refused).toMatchObject({ attempt: 1, ok: false, error: 'not delivered: 127.0.0.1 is not one of the hosts this emulator delivers to (--webhook-hosts)' });
    expect(reached).toEqual([]);
    const told = await deliveredBy(['--host', '0.0.0.0', '--allow-remote', '--webhook-hosts', 'hooks.example.com,127.0.0.1']);
    expect(told).toMatchObject({ attempt: 1, ok: true, status: 200 });
    expect(reached).toEqual(['POST /hook']);
  });
});

describe('webhook deliveries', () => {
  let emu: Emulator;
  let redirector: Server;
  let inside: Server;
  const reached: string[] = [];
  const listen = (s: Server) => new Promise<string>((resolve) => s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)));

  beforeAll(async () => {
    emu = await emulator({ delivery: { baseDelayMs: 20, maxAttempts: 2 } });
    // A service on this machine that the receiver's redirect points at.
    inside = createServer((req, res) => {
      reached.push(`${req.method} ${req.url}`);
      res.end();
    });
    const target = await listen(inside);
    redirector = createServer((_req, res) => res.writeHead(307, { location: `${target}/admin/delete-everything` }).end());
    await listen(redirector);
  });
  afterAll(async () => {
    await emu.close();
    for (const s of [redirector, inside]) await new Promise((resolve) => s.close(resolve));
  });

  test('a receiver that answers with a redirect: not delivered, retried, and the address it points at receives nothing', async () => {
    // Mutant killed: fetch without redirect: 'manual' (the 307 was followed and the POST replayed to the inside service).
    const plan = emu.fixtures('bsc').plans['fixed-recurring'][0];
    const url = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/hook`;
    expect((await payrec(emu, ['fr', 'webhook', 'set', '--plan-id', plan, url])).exitCode).toBe(0);
    const fired = await payrec(emu, ['emulator', 'trigger', 'Billing', '--plan-id', plan]);
    expect(fired.exitCode, fired.stderr).toBe(0);
    const id = (JSON.parse(fired.stdout) as { notification: { id: string } }).notification.id;
    let attempts: DeliveryAttempt[] = [];
    for (const end = Date.now() + 30_000; attempts.length < 2; await new Promise((r) => setTimeout(r, 20))) {
      if (Date.now() > end) throw new Error(`timed out waiting for two attempts: ${JSON.stringify(attempts)}`);
      attempts = ((await (await fetch(`${emu.url}/_emulator/deliveries`)).json()) as DeliveryAttempt[]).filter((a) => a.notificationId === id);
    }
    expect(attempts.map((a) => [a.url, a.status, a.ok])).toEqual([
      [url, 307, false],
      [url, 307, false],
    ]);
    expect(reached).toEqual([]);
  });
});
