import { describe, expect, test } from 'vitest';
import { payrec, suiteEmulators } from './helpers.js';

// Unknown commands fail (exit 2), with or without --help, so a script can tell a typo
// from success; the message names the closest real command, wherever it is in the tree.

const suite = suiteEmulators();

type Case = [line: string, suggestion: RegExp];

const typos: Case[] = [
  ['biling', /^hint: did you mean payrec fixed-recurring billings\?$/m],
  ['biling --help', /^hint: did you mean payrec fixed-recurring billings\?$/m],
  ['help biling', /^hint: did you mean payrec fixed-recurring billings\?$/m],
  ['fr biling --help', /^hint: did you mean payrec fixed-recurring billings\?$/m],
  ['fixed-recurring billngs', /^hint: did you mean payrec fixed-recurring billings\?$/m],
  ['--chain bsc -f json fr biling', /^hint: did you mean payrec fixed-recurring billings\?$/m],
  ['ot payments lst -h', /^hint: did you mean payrec one-time payments list\?$/m],
  ['fixed-recuring billings --plan-id 0x12', /^hint: did you mean payrec fixed-recurring\?$/m],
  ['auth statu --help', /^hint: did you mean payrec auth status\?$/m],
  // A word that exists elsewhere in the tree: every place it exists is named.
  ['fr transfers', /^hint: did you mean payrec variable-recurring transfers, or payrec on-demand transfers, or payrec one-time transfers, or payrec wallet-to-wallet transfers, or payrec scheduled-payments transfers, or payrec transfers\?$/m],
  // Nothing close: the help to read instead.
  ['xyzzyq --help', /^hint: see payrec --help for the commands$/m],
  ['od xyzzyq', /^hint: see payrec on-demand --help for the commands$/m],
];

describe('an unknown command exits 2, prints no help, sends nothing and names the closest command', () => {
  test.concurrent.each(typos)('payrec %s', async (line, suggestion) => {
    const r = await payrec(suite.quiet, line.split(' '));
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    const word = line.split(' ').find((w) => /^(biling|billngs|lst|fixed-recuring|statu|transfers|xyzzyq)$/.test(w))!;
    expect(r.stderr).toMatch(new RegExp(`^error: unknown command "${word}"`));
    expect(r.stderr).toMatch(suggestion);
    expect(suite.quiet.requests).toEqual([]);
  });

  test.concurrent('the command a hint names exists: its --help exits 0', async () => {
    const r = await payrec(suite.quiet, ['fr', 'biling', '--help']);
    const named = /did you mean payrec ([a-z -]+)\?/.exec(r.stderr)![1];
    const help = await payrec(suite.quiet, [...named.split(' '), '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toMatch(/^Usage: payrec fixed-recurring billings \[options\]/);
  });
});

describe('known commands are untouched', () => {
  test.concurrent.each([
    ['fr billings --help', /^Usage: payrec fixed-recurring billings \[options\]/],
    ['--format json fixed-recurring billings --help', /^Usage: payrec fixed-recurring billings \[options\]/],
    ['help fr', /^Usage: payrec fixed-recurring\|fr \[options\] \[command\]/],
    ['fr help billings', /^Usage: payrec fixed-recurring billings \[options\]/],
    ['--help', /^Usage: payrec \[options\] \[command\]/],
  ])('payrec %s prints help and exits 0', async (line, usage) => {
    const r = await payrec(suite.quiet, line.split(' '));
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(usage);
    expect(r.stderr).toBe('');
  });

  test.concurrent('a value of a global option is not taken for a command', async () => {
    const r = await payrec(suite.quiet, ['--chain', 'bsc', '-f', 'json', 'one-time', 'transfers', '--limit', '1']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });
});
