import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import type { Context } from '../../src/core/runtime/context.js';
import { BIN, payrecInProcess, tempDir } from './helpers.js';

// Ids you can copy (issue 23, item 5): every command's --help examples use whole ids,
// never the shortened form tables show (0x57b2…6bf7), which fails when pasted; and every
// example that runs on the emulator does run.

/**
 * A line the shell only splits into words (no quotes, no operators, no comment, no
 * variable, no glob), which may run inside this process (payrecInProcess, issue 48: no
 * node start-up) with the words the shell would pass; the others, and any -o (a file
 * written in the line's folder), run in bash with the built binary.
 */
const plainWords = (line: string) => /^payrec( [A-Za-z0-9][A-Za-z0-9._:-]*| --?[A-Za-z0-9-]+)+$/.test(line) && !/ -o | --output /.test(` ${line} `);

async function allHelp(): Promise<string[]> {
  let text = '';
  const sink = { write: (s: string) => ((text += s), true) };
  const ctx = { stdout: sink, stderr: sink, env: {}, signal: new AbortController().signal } as unknown as Context;
  const program: Command = await buildProgram(ctx);
  const shown: string[] = [];
  const walk = (c: Command) => {
    text = '';
    c.outputHelp();
    shown.push(text);
    for (const sub of c.commands) walk(sub);
  };
  walk(program);
  return shown;
}

describe('--help examples', () => {
  it('name whole ids only, in every command of the tree', async () => {
    const shown = await allHelp();
    expect(shown.length).toBeGreaterThan(50);
    const all = shown.join('\n');
    expect(all).toContain('--plan-id 0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7');
    expect(all.match(/0x[0-9a-fA-F]+…[0-9a-fA-F]+/g) ?? []).toEqual([]);
  });

  // Mutant killed: an example's id cut short (0x57b2059e…) or naming a plan the emulator does
  // not have; each makes its line exit non-zero here.
  it('every example line with --emulator runs as pasted and exits 0', { timeout: 240_000 }, async () => {
    const lines = [...new Set((await allHelp()).join('\n').split('\n').flatMap((l) => /^\s*\$ (payrec .*--emulator.*)$/.exec(l)?.[1] ?? []))];
    expect(lines.length).toBeGreaterThanOrEqual(5);
    // One home for all, in help order: `--emulator sync` then `--emulator fr plans` read one mirror.
    const home = tempDir();
    mkdirSync(join(home, 'bin'));
    writeFileSync(join(home, 'bin', 'payrec'), `#!/bin/sh\nexec node ${JSON.stringify(BIN)} "$@"\n`);
    chmodSync(join(home, 'bin', 'payrec'), 0o755);
    const failed: string[] = [];
    const env = {
      HOME: home,
      XDG_DATA_HOME: join(home, 'data'),
      XDG_STATE_HOME: join(home, 'state'),
      PAYREC_CONFIG_DIR: join(home, 'config'),
      PAYREC_EMULATOR_NOW: '2026-11-22',
      TZ: 'UTC',
      NO_COLOR: '1',
    };
    const inBash = lines.filter((line) => !plainWords(line));
    // Lines the shell does more with stay (a && and a comment among them), and so does the first plain one.
    expect(inBash.length).toBeGreaterThanOrEqual(2);
    const firstPlain = lines.find(plainWords);
    for (const line of lines) {
      const r =
        plainWords(line) && line !== firstPlain
          ? await payrecInProcess(undefined, line.split(' ').slice(1), { env, cwd: home })
          : await execa('bash', ['-c', line], { reject: false, cwd: home, extendEnv: false, env: { ...env, PATH: `${join(home, 'bin')}:${process.env.PATH}` } });
      if (r.exitCode !== 0) failed.push(`${line} → exit ${r.exitCode}: ${r.stderr.split('\n')[0]}`);
    }
    expect(failed).toEqual([]);
  });
});
