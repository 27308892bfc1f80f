import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator, Fixtures } from '../../src/emulator/index.js';
import { emulator, payrec } from './helpers.js';

// --dry-run prints each request as a curl command (the key as $PAYREC_API_KEY) and
// sends nothing. The printed command is then run with real curl against the emulator,
// which must answer it as it answers payrec.

let emu: Emulator;
let fx: Fixtures;
let key: string;

beforeAll(async () => {
  emu = await emulator();
  fx = emu.fixtures('bsc');
  key = emu.keyFor('bsc');
});
afterAll(() => emu.close());

const hex = (c: string) => '0x' + c.repeat(64);

/** Every case runs in one batch; the request log is checked once they are all done. */
const cases: [string, string[], RegExp][] = [
  ['a list', ['one-time', 'transfers', '--token', 'USDT', '--limit', '5'], /^curl -sS '[^']*\/v1\/bsc\/one-time\/transfers\?token=USDT&to=\d+&limit=5&offset=0' -H "Authorization: Bearer \$PAYREC_API_KEY"$/],
  ['a list --all (the first page: later ones depend on its total)', ['scheduled-payments', 'transfers', '--all'], /\/scheduled-payments\/transfers\?to=\d+&limit=1000&offset=0'/],
  ['a summary', ['one-time', 'transfers', '--summary'], /\/one-time\/transfers\?to=\d+&limit=1000&offset=0'/],
  ['a single get', ['one-time', 'payments', 'get', hex('a')], new RegExp(`^curl -sS '[^']*/v1/bsc/one-time/${hex('a')}' -H "Authorization: Bearer \\$PAYREC_API_KEY"$`)],
  [
    'short-urls create',
    ['fixed-recurring', 'short-urls', 'create', '--name', "Bob's banner", '--plan-id', hex('b'), '--success-url', 'https://shop.example/ok', '--extra', 'banner=BR69'],
    /^curl -sS -X POST '[^']*\/v1\/bsc\/fixed-recurring\/short-urls\?[^']*' -H "Authorization: Bearer \$PAYREC_API_KEY"/,
  ],
  ['webhook set', ['fixed-recurring', 'webhook', 'set', '--plan-id', hex('c'), 'https://shop.example/hook'], /^curl -sS -X PUT '[^']*\/plans\/0xc{64}\/webhook' .*--data '\{"webhook":"https:\/\/shop.example\/hook"\}'$/],
  ['delete --yes', ['on-demand', 'short-urls', 'delete', 'f9yth', '--yes'], /^curl -sS -X DELETE '[^']*\/v1\/bsc\/on-demand\/short-urls\/f9yth' -H "Authorization: Bearer \$PAYREC_API_KEY"$/],
  ['delete without --yes off a terminal (a dry run deletes nothing)', ['fixed-recurring', 'webhook', 'delete', '--plan-id', hex('d')], /^curl -sS -X DELETE '[^']*\/plans\/0xd{64}\/webhook'/],
  ['api with a query', ['api', 'one-time/transfers', '--query', 'token=BNB', '--query', 'limit=3'], /^curl -sS '[^']*\/one-time\/transfers\?token=BNB&limit=3' -H "Authorization: Bearer \$PAYREC_API_KEY"$/],
  ['api -X PUT --body', ['api', `fixed-recurring/plans/${hex('e')}/webhook`, '-X', 'PUT', '--body', '{"webhook":"https://x.example/h"}'], /-X PUT .*--data '\{"webhook":"https:\/\/x.example\/h"\}'$/],
  ['--follow (the first poll)', ['one-time', 'transfers', '--follow'], /\/one-time\/transfers\?from=\d+&to=\d+&sort=asc&limit=1000&offset=0'/],
];

describe('--dry-run', () => {
  test.concurrent.each(cases)('%s: one curl line, the key as $PAYREC_API_KEY, exit 0', async (_name, args, expected) => {
    const r = await payrec(emu, ['--dry-run', ...args, '--debug']);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(expected);
    expect(lines[0]).toContain(`"Authorization: Bearer $PAYREC_API_KEY"`);
    expect(r.stdout + r.stderr).not.toContain(key);
  });

  test('nothing of the above reached the emulator', async () => {
    // Runs after the concurrent batch above has finished.
    expect(emu.requests).toEqual([]);
  });

  test('works with no key configured at all (nothing is sent, so nothing needs one)', async () => {
    const r = await payrec(emu, ['--dry-run', 'one-time', 'transfers'], { env: { PAYREC_API_KEY: undefined } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^curl /);
    expect(emu.requests).toEqual([]);
  });

  test('the printed command is runnable: curl with the key in the environment gets what payrec gets', async () => {
    const shown = await payrec(emu, ['--dry-run', 'one-time', 'payments', 'get', fx.oneTimePayments[0]]);
    const viaPayrec = await payrec(emu, ['one-time', 'payments', 'get', fx.oneTimePayments[0], '-f', 'json']);
    const viaCurl = await execa('sh', ['-c', shown.stdout], { env: { PAYREC_API_KEY: key }, reject: false });
    expect(viaCurl.exitCode).toBe(0);
    expect(JSON.parse(viaCurl.stdout)).toEqual(JSON.parse(viaPayrec.stdout));
  });

  test('a value with a quote is shell-quoted: the shell hands curl the exact URL', async () => {
    const shown = await payrec(emu, ['--dry-run', 'api', 'one-time/transfers', '--query', "tag=it's; rm -rf ~", '--query', 'limit=1']);
    const viaCurl = await execa('sh', ['-c', shown.stdout.replace(/^curl -sS/, 'curl -sS -o /dev/null -w "%{url_effective}"')], {
      env: { PAYREC_API_KEY: key },
      reject: false,
    });
    expect(viaCurl.exitCode).toBe(0);
    expect(new URL(viaCurl.stdout).searchParams.get('tag')).toBe("it's; rm -rf ~");
  });
});
