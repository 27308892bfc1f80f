import { expect, test } from 'vitest';
import { payrec, suiteEmulators } from './helpers.js';

// Plan webhooks: set (PUT {"webhook": url}), get, change, delete.

// Each test runs the binary a few times; on two busy cores that can take seconds.

const s = suiteEmulators();

test('set, get, change and delete the webhook of a plan', async () => {
  const plan = s.fx.plans['fixed-recurring'][1];
  const webhook = (args: string[]) => payrec(s.emu, ['fixed-recurring', 'webhook', ...args]);

  const none = await webhook(['get', '--plan-id', plan]);
  expect(none.exitCode).toBe(4);
  expect(none.stderr).toContain(plan);

  const set = await webhook(['set', '--plan-id', plan, 'https://shop.example/hooks/payrec']);
  expect(set.exitCode).toBe(0);
  expect(set.stdout).toBe('');
  expect(set.stderr).toBe(`Webhook of plan ${plan} set to https://shop.example/hooks/payrec\n`);
  expect(s.emu.requests.find((q) => q.method === 'PUT')).toMatchObject({ path: `/v1/bsc/fixed-recurring/plans/${plan}/webhook`, status: 200 });

  const got = await webhook(['get', '--plan-id', plan]);
  expect(got.exitCode).toBe(0);
  expect(got.stdout).toBe('webhook\thttps://shop.example/hooks/payrec\n');

  const changed = await payrec(s.emu, ['fr', 'webhook', 'set', '--plan-id', plan, 'http://127.0.0.1:8788/', '-f', 'json']);
  expect(changed.exitCode).toBe(0);
  expect(JSON.parse(changed.stdout)).toEqual({ webhook: 'http://127.0.0.1:8788/' });
  const again = await webhook(['get', '--plan-id', plan, '-f', 'json']);
  expect(JSON.parse(again.stdout)).toEqual({ webhook: 'http://127.0.0.1:8788/' });

  // Delete confirms like every delete: not on a terminal it needs --yes, and sends nothing without it.
  const refused = await webhook(['delete', '--plan-id', plan]);
  expect(refused.exitCode).toBe(2);
  expect(refused.stderr).toMatch(/refusing to delete webhook .* without --yes/);
  expect(s.emu.requests.some((q) => q.method === 'DELETE')).toBe(false);

  const deleted = await webhook(['delete', '--plan-id', plan, '--yes', '-f', 'json']);
  expect(deleted.exitCode).toBe(0);
  expect(JSON.parse(deleted.stdout)).toEqual({ deleted: true });
  const gone = await webhook(['get', '--plan-id', plan]);
  expect(gone.exitCode).toBe(4);
  const twice = await webhook(['delete', '--plan-id', plan, '--yes']);
  expect(twice.exitCode).toBe(4);
  expect(twice.stderr).toContain(`error: plan ${plan} has no webhook (or no such plan on this chain)`);
});

test.concurrent('--dry-run shows the PUT with its JSON body and no key', async () => {
  const plan = s.fx.plans['fixed-recurring'][0];
  const r = await payrec(s.quiet, ['fr', 'webhook', 'set', '--plan-id', plan, 'https://shop.example/h', '--dry-run']);
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toBe(
    `curl -sS -X PUT '${s.quiet.url}/v1/bsc/fixed-recurring/plans/${plan}/webhook' -H "Authorization: Bearer $PAYREC_API_KEY" -H 'Content-Type: application/json' --data '{"webhook":"https://shop.example/h"}'\n`,
  );
  expect(s.quiet.requests).toHaveLength(0);
});

const plan = '0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7';
test.concurrent.each([
  ['ftp url', ['fr', 'webhook', 'set', '--plan-id', plan, 'ftp://shop.example/h'], /invalid <url> "ftp:\/\/shop.example\/h": expected an http:\/\/ or https:\/\/ URL/],
  ['no url', ['fr', 'webhook', 'set', '--plan-id', plan], /missing required argument 'url'/],
  ['no plan', ['fr', 'webhook', 'set', 'https://shop.example/h'], /^error: give --plan-id\nhint: find plan ids with: payrec fr short-urls list --columns planId/],
  ['bad plan on set', ['fr', 'webhook', 'set', '--plan-id', '0x1', 'https://shop.example/h'], /invalid --plan-id "0x1": expected 0x followed by 64 hex/],
  ['bad plan on get', ['fr', 'webhook', 'get', '--plan-id', 'plan'], /invalid --plan-id "plan"/],
  ['bad plan on delete', ['fr', 'webhook', 'delete', '--plan-id', '0x1', '--yes'], /invalid --plan-id "0x1"/],
] as [string, string[], RegExp][])('bad input exits 2 and sends nothing: %s', async (_name, args, message) => {
  const r = await payrec(s.quiet, args);
  expect(r.stderr).toMatch(message);
  expect(r.exitCode).toBe(2);
  expect(s.quiet.requests).toHaveLength(0);
});
