import { describe, expect, test } from 'vitest';
import { payrec, suiteEmulators } from './helpers.js';

// --help shows every flag that works on a command: its own, then the ones it inherits
// from payrec in their own section (gh's INHERITED FLAGS). Flags that make no sense on a
// command are neither offered nor taken: exit 2, and nothing is sent (the quiet
// emulator's request log stays empty).

const s = suiteEmulators();

/** The flags listed in one section of a help text (`Options:`, `Inherited flags …:`). */
function section(help: string, title: RegExp): string[] {
  const lines = help.split('\n');
  const start = lines.findIndex((l) => title.test(l));
  if (start === -1) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith(' ')) break;
    const flag = /^ {2}(?:-\w, )?(--[\w-]+)/.exec(line);
    if (flag) out.push(flag[1]);
  }
  return out;
}

const OUTPUT = ['--format', '--columns', '--flatten', '--output', '--tz', '--time-format', '--wide', '--csv-raw', '--bom'];
const GLOBAL = ['--profile', '--chain', '--base-url', '--emulator', '--quiet', '--debug', '--no-color', '--timeout', '--retries', '--dry-run'];

describe('help lists inherited flags in their own section', () => {
  test.concurrent.each(['fr short-urls list', 'ot transfers', 'sql', 'transfers'])('%s: every output and global flag, under "Inherited flags"', async (command) => {
    const r = await payrec(undefined, [...command.split(' '), '--help']);
    expect(r.exitCode).toBe(0);
    const inherited = section(r.stdout, /^Inherited flags \(from payrec\):$/);
    expect(inherited).toEqual(expect.arrayContaining([...OUTPUT, ...GLOBAL]));
    // Not the command's own options: those are under Options.
    expect(section(r.stdout, /^Options:$/)).not.toContain('--format');
  });

  test.concurrent.each(['auth status', 'config list', 'completion', 'emulator start'])(
    '%s prints no records: it inherits the global flags and -f, not -o, --columns, --wide…',
    async (command) => {
      const r = await payrec(undefined, [...command.split(' '), '--help']);
      const inherited = section(r.stdout, /^Inherited flags \(from payrec\):$/);
      expect(inherited).toEqual(expect.arrayContaining([...GLOBAL, '--format']));
      for (const flag of ['--output', '--columns', '--flatten', '--wide', '--time-format', '--csv-raw', '--bom']) expect(inherited).not.toContain(flag);
    },
  );
});

describe('flags that make no sense are refused (exit 2, nothing sent)', () => {
  test.concurrent('short-url lists do not offer or take --summary (it printed status.(none))', async () => {
    const help = await payrec(undefined, ['fr', 'short-urls', 'list', '--help']);
    expect(section(help.stdout, /^Options:$/)).not.toContain('--summary');
    const r = await payrec(s.quiet, ['fr', 'short-urls', 'list', '--summary']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--summary'/);
    expect(r.stdout).toBe('');
    expect(s.quiet.requests).toEqual([]);
  });

  test.concurrent.each([
    [['auth', 'status', '--columns', 'chain'], /--columns is for commands that print records or results, not payrec auth status/],
    [['config', 'list', '--wide'], /--wide is for commands that print records or results, not payrec config list/],
    [['auth', 'status', '--bom', '--csv-raw'], /--csv-raw, --bom are for commands that print records or results/],
  ])('%j', async (args, message) => {
    const r = await payrec(s.quiet, args);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(s.quiet.requests).toEqual([]);
  });
});

describe('completion offers what --help lists', () => {
  /** What bash offers for the words typed so far (the last one is being completed), from the generated script. */
  async function bashComplete(...words: string[]): Promise<string[]> {
    const { execa } = await import('execa');
    const script = `source completions/payrec.bash; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _payrec; echo "\${COMPREPLY[@]}"`;
    const r = await execa('bash', ['-c', script], { cwd: new URL('../..', import.meta.url).pathname });
    return r.stdout.split(' ').filter(Boolean).sort();
  }

  test.concurrent('a list is offered the record flags; auth status only the others', async () => {
    expect(await bashComplete('payrec', 'ot', 'transfers', '--c')).toEqual(['--chain', '--chart', '--columns', '--concurrency', '--confirmations', '--count', '--csv-raw', '--currency']);
    expect(await bashComplete('payrec', 'auth', 'status', '--c')).toEqual(['--chain']);
    expect(await bashComplete('payrec', 'fr', 'short-urls', 'list', '--su')).toEqual([]);
  });
});
