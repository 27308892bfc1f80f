import { mkdirSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec, tempDir } from './helpers.js';

// The library as a user's project gets it: `import … from 'payrec'` resolved through the
// package's own exports (node_modules/payrec → this package, built), run with node
// against the emulator; its types checked with tsc; and what `npm pack` would ship.

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLE = join(import.meta.dirname, 'fixtures/library-example.mjs');

let emu: Emulator;
let project: string;

beforeAll(async () => {
  emu = await emulator({ records: 500 });
  project = tempDir();
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(ROOT, join(project, 'node_modules', 'payrec'), 'dir');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'shop-scripts', private: true, type: 'module' }));
});
afterAll(() => emu.close());

const env = () => ({ PATH: process.env.PATH, PAYREC_BASE_URL: emu.url, PAYREC_API_KEY: emu.keyFor('bsc') });

function runModule(code: string) {
  const file = join(project, `script-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, code);
  return execa('node', [file], { cwd: project, env: env(), extendEnv: false, reject: false });
}

describe('library', () => {
  test.concurrent('the README example runs: every USDT transfer over pages, exact totals per receiver', async () => {
    copyFileSync(EXAMPLE, join(project, 'example.mjs'));
    const [r, cli] = await Promise.all([
      execa('node', ['example.mjs'], { cwd: project, env: env(), extendEnv: false, reject: false }),
      payrec(emu, ['one-time', 'transfers', '--token', 'USDT', '--all', '-f', 'json']),
    ]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const transfers = JSON.parse(cli.stdout) as { receiver: string; amount: string }[];
    expect(transfers.length).toBeGreaterThan(50); // more than the example's page size of 50
    // Sum here with plain string arithmetic on the CLI's records, 18 decimals.
    const sums = new Map<string, bigint>();
    for (const t of transfers) {
      const [whole, fraction = ''] = t.amount.split('.');
      sums.set(t.receiver, (sums.get(t.receiver) ?? 0n) + BigInt(whole + fraction.padEnd(18, '0')));
    }
    const [head, ...lines] = r.stdout.trimEnd().split('\n');
    expect(head).toBe(`${transfers.length} USDT transfers`);
    const printed = new Map(lines.map((l) => l.split(' ') as [string, string]));
    expect([...printed.keys()].sort()).toEqual([...sums.keys()].sort());
    for (const [receiver, total] of sums) {
      const text = total.toString().padStart(19, '0');
      const exact = `${BigInt(text.slice(0, -18))}.${text.slice(-18)}`.replace(/\.?0+$/, '');
      expect(printed.get(receiver)).toBe(exact);
    }
    // Pages of (at most) 50, all with the same pinned `to`; the CLI's own run asked for pages of 1000.
    const pages = emu.requests.filter((q) => q.path === '/v1/bsc/one-time/transfers' && Number(q.query.limit) <= 50);
    expect(pages.length).toBe(Math.ceil(transfers.length / 50));
    expect(new Set(pages.map((q) => q.query.to)).size).toBe(1);
  });

  test.concurrent('get, limit, and typed errors a script can catch', async () => {
    const r = await runModule(`
      import { createClient, ApiError, UsageError, PayrecError } from 'payrec';
      const client = createClient({ apiKey: process.env.PAYREC_API_KEY, baseUrl: process.env.PAYREC_BASE_URL });
      const out = {};
      const first = [];
      for await (const p of client.list('one-time.payments.list', { limit: 3, sort: 'asc' })) first.push(p);
      out.first = first.map((p) => p.id);
      out.got = (await client.get('one-time.payments.get', { id: first[0].id })).id;
      try { await client.get('one-time.payments.get', { id: '0x' + 'ab'.repeat(32) }); } catch (e) {
        out.missing = { api: e instanceof ApiError, payrec: e instanceof PayrecError, status: e.status };
      }
      try { await client.get('one-time.payments.get', { id: 'nope' }); } catch (e) {
        out.bad = { usage: e instanceof UsageError, message: e.message };
      }
      const wrongKey = createClient({ apiKey: 'prk_demo_polygon', baseUrl: process.env.PAYREC_BASE_URL, retries: 0 });
      try { for await (const _ of wrongKey.list('one-time.transfers')) break; } catch (e) { out.auth = e.status; }
      await client.close(); await wrongKey.close();
      console.log(JSON.stringify(out));
    `);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    const cli = JSON.parse((await payrec(emu, ['one-time', 'payments', 'list', '--limit', '3', '--sort', 'asc', '-f', 'json'])).stdout);
    expect(out.first).toEqual(cli.map((p: { id: string }) => p.id));
    expect(out.got).toBe(out.first[0]);
    expect(out.missing).toEqual({ api: true, payrec: true, status: 404 });
    expect(out.bad.usage).toBe(true);
    expect(out.bad.message).toMatch(/invalid id "nope"/);
    expect(out.auth).toBe(401);
  });

  test.concurrent('its types work for a TypeScript user: records typed, mistakes caught by tsc', async () => {
    writeFileSync(
      join(project, 'consumer.ts'),
      `import { createClient, type RecordOf } from 'payrec';
const client = createClient({ apiKey: 'k' });
export async function total(): Promise<string[]> {
  const amounts: string[] = [];
  for await (const t of client.list('one-time.transfers', { filters: { token: 'USDT' } })) amounts.push(t.amount);
  const b: RecordOf<'fixed-recurring.billings.by-plan'> = await client.list('fixed-recurring.billings.by-plan', { params: { planId: '0x' } }).next().then((r) => r.value!);
  // @ts-expect-error amounts are strings
  const wrong: number = b.amount;
  // @ts-expect-error no such endpoint
  client.list('one-time.transfer');
  return [...amounts, String(wrong)];
}
`,
    );
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: [] }, files: ['consumer.ts'] }));
    const r = await execa('node', [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: project, reject: false });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
  });
});

describe('npm pack', () => {
  test('ships only what users need: dist (without the generator), bin, completions, the man page, README, LICENSE, package.json', async () => {
    // --ignore-scripts: prepack would empty dist under the other tests' feet.
    const r = await execa('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT });
    const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
    const allowed = /^(dist\/.+\.(js|d\.ts)|bin\/payrec\.js|completions\/(_payrec|payrec\.bash|payrec\.fish)|man\/payrec\.1|README\.md|LICENSE|package\.json)$/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
    expect(files.filter((f) => f.startsWith('dist/tools/'))).toEqual([]);
    // Everything package.json points at is in it.
    const pkg = JSON.parse((await execa('cat', [join(ROOT, 'package.json')])).stdout);
    for (const target of [pkg.bin.payrec, pkg.main, pkg.types, pkg.exports['.'].import, pkg.exports['.'].types, ...pkg.man]) {
      expect(files).toContain(target.replace(/^\.\//, ''));
    }
    expect(files).toEqual(expect.arrayContaining(['dist/cli.js', 'README.md', 'LICENSE', 'completions/payrec.bash']));
  });
});
