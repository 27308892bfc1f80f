import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec } from './helpers.js';

// --jq's errors quote only what the user typed (issue 23, item 16). payrec checks the
// expression inside a wrapper that runs nothing; a wrapper that put text after it made
// `.amount +` fail with "unexpected ')'", a character nobody typed.

let emu: Emulator;
let quiet: Emulator; // bad expressions only: nothing may reach it
beforeAll(async () => {
  [emu, quiet] = await Promise.all([emulator({ records: 20 }), emulator({ records: 20 })]);
});
afterAll(() => Promise.all([emu.close(), quiet.close()]));

describe('--jq syntax errors', () => {
  // Mutant killed: the wrapper `empty | (EXPR\n)` again (".amount +", "foo(", ".a[", "if . then 1" cite its ")").
  test.each(['.amount +', 'foo(', '.a[', 'if . then 1', '.a | map(.b', '{a: }', '| .a'])('%s: exit 2, nothing sent, every quoted token one the user typed', async (expr) => {
    const r = await payrec(quiet, ['one-time', 'transfers', '--jq', expr]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    const prefix = `error: invalid --jq expression ${JSON.stringify(expr)}: syntax error, `;
    const line = r.stderr.split('\n')[0];
    expect(line.startsWith(prefix)).toBe(true);
    // What jq found unexpected (its "expecting ';' or ')'" names what could come instead).
    const found = line.slice(prefix.length).split(', expecting')[0];
    for (const [, token] of found.matchAll(/'([^']+)'/g)) expect(expr).toContain(token);
    expect(found).not.toContain('empty');
    expect(quiet.requests).toEqual([]);
  });

  test('an expression cut short says the end came early', async () => {
    const r = await payrec(emu, ['one-time', 'transfers', '--jq', '.amount +']);
    expect(r.stderr).toMatch(/^error: invalid --jq expression "\.amount \+": syntax error, unexpected end of file$/m);
  });
});

describe('--jq expressions the wrapper must not change', () => {
  test.concurrent.each([
    ['.[0].amount # a trailing comment', (first: Record<string, string>) => `${first.amount}\n`],
    ['.[0].token, .[0].amount', (first: Record<string, string>) => `${first.token}\n${first.amount}\n`],
    ['def f: .[0].token; f', (first: Record<string, string>) => `${first.token}\n`],
    ['.[0] as $r | $r.token', (first: Record<string, string>) => `${first.token}\n`],
  ])('%s', async (expr, expected) => {
    const json = await payrec(emu, ['one-time', 'transfers', '--limit', '1', '-f', 'json']);
    const [first] = JSON.parse(json.stdout) as Record<string, string>[];
    const r = await payrec(emu, ['one-time', 'transfers', '--limit', '1', '--jq', expr]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(expected(first));
  });
});
