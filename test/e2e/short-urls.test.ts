import { describe, expect, test } from 'vitest';
import { payrec, payrecInProcess, suiteEmulators } from './helpers.js';

// Short url create, read, update and delete on both products that have them, as the
// owner and as another user of the same chain (who must not see any of it).

// Each test runs the binary a few times; on two busy cores that can take seconds. The first
// create, exit 4, a delete without --yes, --dry-run (the key never printed) and the first
// refusal are the built binary in a process; the other answers of the API run in this
// worker (payrecInProcess, issue 48): no process boundary is under test there.

const s = suiteEmulators();

const json = (stdout: string) => JSON.parse(stdout) as Record<string, any>;
const other = () => ({ env: { PAYREC_API_KEY: s.emu.keyFor('bsc', 'other') } });

describe.concurrent.each(['fixed-recurring', 'on-demand'] as const)('%s short urls', (product) => {
  test('create, get, list, update and delete, each seen by the owner only', async () => {
    const [plan, plan2] = s.fx.plans[product];
    const created = await payrec(s.emu, [
      product, 'short-urls', 'create', '--name', 'Facebook banner', '--plan-id', plan,
      '--success-url', 'https://shop.example/ok', '--error-url', 'https://shop.example/ko',
      '--extra', 'banner=BR69', '--extra', 'traffic=facebook', '-f', 'json',
    ]);
    expect(created.stderr).toBe('');
    expect(created.exitCode).toBe(0);
    const url = json(created.stdout);
    expect(url).toMatchObject({
      name: 'Facebook banner',
      planId: plan,
      params: { callbackSuccess: 'https://shop.example/ok', callbackError: 'https://shop.example/ko', extra: { banner: 'BR69', traffic: 'facebook' } },
    });
    expect(url.path).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(url.link).toBe(`https://8pay.me/${url.path}`);
    expect(url.updatedAt).toBe(url.createdAt);

    // Sent as documented: query parameters with dotted names, params.extra as a JSON string.
    const post = s.emu.requests.find((q) => q.method === 'POST' && q.query.name === 'Facebook banner' && q.query.planId === plan);
    expect(post?.path).toBe(`/v1/bsc/${product}/short-urls`);
    expect(post?.query).toEqual({
      name: 'Facebook banner',
      planId: plan,
      'params.callbackSuccess': 'https://shop.example/ok',
      'params.callbackError': 'https://shop.example/ko',
      'params.extra': '{"banner":"BR69","traffic":"facebook"}',
    });

    const got = await payrecInProcess(s.emu, [product, 'short-urls', 'get', url.path, '-f', 'json']);
    expect(got.exitCode).toBe(0);
    expect(json(got.stdout)).toEqual(url);

    const listed = await payrecInProcess(s.emu, [product, 'short-urls', 'list', '--plan-id', plan, '-f', 'jsonl']);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout.trim().split('\n').map((l) => JSON.parse(l).path)).toContain(url.path);

    // Another key of the same chain neither sees nor touches it: 404 as if absent.
    const [otherList, otherGet, otherUpdate, otherDelete] = await Promise.all([
      payrecInProcess(s.emu, [product, 'short-urls', 'list', '--all', '-f', 'jsonl'], other()),
      payrecInProcess(s.emu, [product, 'short-urls', 'get', url.path], other()),
      payrecInProcess(s.emu, [product, 'short-urls', 'update', url.path, '--name', 'stolen'], other()),
      payrecInProcess(s.emu, [product, 'short-urls', 'delete', url.path, '--yes'], other()),
    ]);
    expect(otherList.exitCode).toBe(0);
    expect(otherList.stdout).not.toContain(url.path);
    for (const r of [otherGet, otherUpdate, otherDelete]) {
      expect(r.exitCode).toBe(4);
      expect(r.stderr).toContain(`${url.path}`);
      expect(r.stdout).toBe('');
    }

    // Update changes what is given and keeps the rest.
    const updated = await payrecInProcess(s.emu, [product, 'short-urls', 'update', url.path, '--name', 'Instagram banner', '--plan-id', plan2, '--extra', 'traffic=instagram', '-f', 'json']);
    expect(updated.exitCode).toBe(0);
    const after = json(updated.stdout);
    expect(after).toMatchObject({
      path: url.path,
      name: 'Instagram banner',
      planId: plan2,
      createdAt: url.createdAt,
      link: url.link,
      params: { callbackSuccess: 'https://shop.example/ok', callbackError: 'https://shop.example/ko', extra: { banner: 'BR69', traffic: 'instagram' } },
    });
    expect(after.updatedAt).toBeGreaterThanOrEqual(url.createdAt);
    const put = s.emu.requests.find((q) => q.method === 'PUT' && q.path === `/v1/bsc/${product}/short-urls/${url.path}` && q.status === 200);
    expect(put?.query).toEqual({ name: 'Instagram banner', planId: plan2, 'params.extra': '{"banner":"BR69","traffic":"instagram"}' });
    expect(json((await payrecInProcess(s.emu, [product, 'short-urls', 'get', url.path, '-f', 'json'])).stdout)).toEqual(after);

    // Not on a terminal, delete needs --yes; without it nothing is sent.
    const refused = await payrec(s.emu, [product, 'short-urls', 'delete', url.path]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`refusing to delete short-urls ${url.path} without --yes`));
    expect(s.emu.requests.some((q) => q.method === 'DELETE' && q.path.endsWith(`/${url.path}`) && q.status === 200)).toBe(false);

    const deleted = await payrecInProcess(s.emu, [product, 'short-urls', 'delete', url.path, '--yes', '-f', 'json']);
    expect(deleted.exitCode).toBe(0);
    expect(json(deleted.stdout)).toEqual({ deleted: true, path: url.path });
    const gone = await payrec(s.emu, [product, 'short-urls', 'get', url.path]);
    expect(gone.exitCode).toBe(4);
  });

  test('create prints the short url with its full link (tab-separated when piped)', async () => {
    const r = await payrecInProcess(s.emu, [product, 'short-urls', 'create', '--name', 'QR code', '--plan-id', s.fx.plans[product][0]]);
    expect(r.exitCode).toBe(0);
    const rows = Object.fromEntries(r.stdout.trimEnd().split('\n').map((l) => l.split('\t')));
    expect(rows.name).toBe('QR code');
    expect(rows.link).toBe(`https://8pay.me/${rows.path}`);
  });

  test('--dry-run shows the create request with the encoded fields and sends nothing', async () => {
    const r = await payrec(s.quiet, [product, 'short-urls', 'create', '--name', 'A b', '--plan-id', s.fx.plans[product][0], '--extra', 'k=v w', '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`-X POST '${s.quiet.url}/v1/bsc/${product}/short-urls?name=A+b&planId=${s.fx.plans[product][0]}&params.extra=%7B%22k%22%3A%22v+w%22%7D'`);
    expect(r.stdout).not.toContain(s.quiet.keyFor('bsc'));
    expect(s.quiet.requests).toHaveLength(0);
  });
});

describe('bad input exits 2, names the value and sends nothing', () => {
  const plan = '0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7';
  const create = ['fr', 'short-urls', 'create', '--name', 'n', '--plan-id', plan];
  const cases: [string, string[], RegExp][] = [
    ['missing --plan-id', ['od', 'short-urls', 'create', '--name', 'n'], /required option '--plan-id <id>'/],
    ['missing --name', ['fr', 'short-urls', 'create', '--plan-id', plan], /required option '--name <name>'/],
    ['short plan id', ['fr', 'short-urls', 'create', '--name', 'n', '--plan-id', '0x12'], /invalid --plan-id "0x12": expected 0x followed by 64 hex/],
    ['empty name', ['fr', 'short-urls', 'create', '--name', '', '--plan-id', plan], /invalid --name "": expected a non-empty value/],
    ['ftp success url', [...create, '--success-url', 'ftp://x.example'], /invalid --success-url "ftp:\/\/x.example": expected an http:\/\/ or https:\/\/ URL/],
    ['relative error url', [...create, '--error-url', '/ko'], /invalid --error-url "\/ko"/],
    ['extra without =', [...create, '--extra', 'banner'], /invalid --extra "banner": expected key=value/],
    ['extra with empty key', [...create, '--extra', '=x'], /invalid --extra "=x": expected key=value with a non-empty key/],
    ['extra key with a space', [...create, '--extra', 'a b=c'], /invalid --extra key "a b": expected letters, digits/],
    ['update with nothing to change', ['od', 'short-urls', 'update', 'f9yth'], /nothing to update: give --name, --plan-id/],
    ['update of a bad code', ['fr', 'short-urls', 'update', 'a/b', '--name', 'x'], /invalid <path> "a\/b": expected a short url code/],
    ['delete of a bad code', ['od', 'short-urls', 'delete', '../x', '--yes'], /invalid <path> "..\/x"/],
  ];
  test.concurrent.each(cases)('%s', async (name, args, message) => {
    const r = await (name === cases[0][0] ? payrec : payrecInProcess)(s.quiet, args);
    expect(r.stderr).toMatch(message);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(s.quiet.requests).toHaveLength(0);
  });
});
