import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import type { Context } from '../../src/core/runtime/context.js';

// Ids you can copy (issue 23, item 5): every command's --help examples use whole ids,
// never the shortened form tables show (0x57b2…6bf7), which fails when pasted.

describe('--help examples', () => {
  it('name whole ids only, in every command of the tree', async () => {
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
    expect(shown.length).toBeGreaterThan(50);
    const all = shown.join('\n');
    expect(all).toContain('--plan-id 0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7');
    expect(all.match(/0x[0-9a-fA-F]+…[0-9a-fA-F]+/g) ?? []).toEqual([]);
  });
});
