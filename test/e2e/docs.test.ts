import { execa } from 'execa';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN, payrecInProcess, program, screen, tempDir } from './helpers.js';

// The README and the guides in docs/ never go stale:
// - every relative link points at a file that exists, and every #anchor at a heading in it;
// - every `$ payrec --emulator …` line of a ```console block is run on a pseudo-terminal
//   (120 columns, as a person's terminal) and must print exactly the output shown under it
//   (an `$ echo $?` right after it must show its exit code). The commands of one file run in
//   order and share a working folder, config and data folder (a sync, then queries of its
//   mirror). A block whose output cannot repeat (timings) is preceded by
//   `<!-- docs-test: not compared (why) -->`: its commands run, their output is not compared.
// The emulator's data is anchored at a fixed date (PAYREC_EMULATOR_NOW), so the output is
// the same every day. After a change of output, `npm run docs:update` rewrites the shown
// output in place, but only where no figure changed (the same numbers in the same order:
// widths, wording, layout). A changed figure is a lock breaking, not a fact: the update
// prints each such example's diff and writes nothing; `npm run docs:accept` writes them
// (still printing the diffs) once each new figure is known true from a test whose expected
// value the code did not compute.

const ROOT = resolve(import.meta.dirname, '../..');
/** `1`: rewrite examples whose figures did not change; `figures`: rewrite every example. */
const UPDATE = process.env.PAYREC_UPDATE_DOCS;
/** The day the examples' data is anchored at (records lie in the year before it). */
const EXAMPLES_NOW = '2026-11-22';

const FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The text outside fenced code blocks (links and headings live there). */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of prose(readFileSync(join(ROOT, file), 'utf8')).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

describe('links', () => {
  test.each(FILES)('%s: every relative link and anchor resolves', (file) => {
    const dead: string[] = [];
    for (const m of prose(readFileSync(join(ROOT, file), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#');
      const resolved = path === '' ? file : join(dirname(file), path);
      if (!existsSync(join(ROOT, resolved))) dead.push(`${target} (no file ${resolved})`);
      else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) dead.push(`${target} (no heading #${anchor} in ${resolved})`);
    }
    expect(dead, `dead links in ${file}`).toEqual([]);
  });

  test('the README links every guide in docs/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const file of FILES.filter((f) => f.startsWith('docs/'))) expect(readme, `README.md does not link ${file}`).toContain(`](${file}`);
  });

  test('the README stays a landing page (at most 25 KB)', () => {
    expect(readFileSync(join(ROOT, 'README.md')).length).toBeLessThanOrEqual(25 * 1024);
  });
});

interface Example {
  command: string;
  /** Index, in the file's lines, of the first output line and one past the last. */
  start: number;
  end: number;
}

interface Block {
  file: string;
  line: number;
  examples: Example[];
  /** False for a block marked `<!-- docs-test: not compared … -->`. */
  compared: boolean;
}

/**
 * A command the test runs: payrec with its built-in emulator, a look at the files such a
 * command wrote (`head`, `find`: read-only), or `echo $?` right after one.
 */
/** What the examples may run: payrec on its emulator (after variables a CI job sets, such as CI=true PAYREC_PLANS=@plans.txt), head, find, and printf into a file the next examples read. */
const RUNNABLE = /^((?:[A-Z_]+=\S+ )*payrec --emulator|head|find) |^printf [^|]* > [\w.-]+$/;

function consoleBlocks(file: string, lines: string[]): Block[] {
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```console') continue;
    const block: Block = { file, line: i + 1, examples: [], compared: !/^<!-- docs-test: not compared/.test(lines[i - 1] ?? '') };
    let current: Example | undefined;
    let j = i + 1;
    for (; j < lines.length && lines[j] !== '```'; j++) {
      if (lines[j].startsWith('$ ')) {
        if (current) current.end = j;
        current = { command: lines[j].slice(2), start: j + 1, end: j + 1 };
        block.examples.push(current);
      }
    }
    if (current) current.end = j;
    block.examples = block.examples.filter((e, k, all) => RUNNABLE.test(e.command) || (e.command === 'echo $?' && k > 0 && RUNNABLE.test(all[k - 1].command)));
    if (block.examples.length > 0) blocks.push(block);
    i = j;
  }
  return blocks;
}

const script = program('script', 'bsdutils');
const onPty = script.skip ? test.skip : test;

/** A folder holding a `payrec` that runs the built binary, as `npm link` would. */
function binFolder(): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'payrec'), `#!/bin/sh\nexec node ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(dir, 'bin', 'payrec'), 0o755);
  return join(dir, 'bin');
}

/** The numbers an output shows, in order: what a rewrite must not change silently. */
function figures(output: string[]): string {
  return (output.join('\n').match(/\d+/g) ?? []).join(' ');
}

/** The environment every example runs in: the folder as its home, UTC, no colour, the data anchored. */
function examplesEnv(bin: string, home: string): Record<string, string> {
  return {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    TZ: 'UTC',
    NO_COLOR: '1',
    PAYREC_CONFIG_DIR: join(home, 'config'),
    PAYREC_EMULATOR_NOW: EXAMPLES_NOW,
  };
}

/** Runs one shell command line on a 120-column pseudo-terminal; returns the screen's lines and the exit code. */
async function onTerminal(command: string, bin: string, home: string): Promise<{ lines: string[]; exitCode: number }> {
  const r = await execa('script', ['-qec', `stty cols 120 rows 50; ${command}`, '/dev/null'], {
    reject: false,
    stdin: 'ignore',
    cwd: home,
    extendEnv: false,
    env: examplesEnv(bin, home),
  });
  const lines = screen(r.stdout);
  return { lines, exitCode: r.exitCode ?? -1 };
}

/**
 * The words of `payrec --emulator …` as a shell splits them, when the line is only that:
 * no pipe, redirect, variable or escape, words bare or whole in quotes. Otherwise undefined.
 */
function payrecWords(command: string): string[] | undefined {
  if (!command.startsWith('payrec --emulator ')) return undefined;
  const words: string[] = [];
  const word = /\s*(?:"([^"$`\\]*)"|'([^']*)'|([^\s"'$`\\|&;<>()]+))(?=\s|$)/y;
  let m: RegExpExecArray | null;
  while (word.lastIndex < command.length && (m = word.exec(command))) words.push(m[1] ?? m[2] ?? m[3]);
  return word.lastIndex === command.length ? words.slice(1) : undefined;
}

/**
 * An example that only prints an answer runs inside this worker (payrecInProcess: no node
 * start-up, no bundle load; issue 48, the suite's time) on a terminal of the same width,
 * in the examples' folder, with their environment. What only a real terminal shows stays
 * on the pseudo-terminal: a file's first example (the built binary sizing its terminal),
 * syncs and whole lists (a progress drawn, then cleared), --jq (jq-web loads in a process
 * only), and any line the shell does more with than run payrec.
 */
async function inWorker(command: string, bin: string, home: string): Promise<{ lines: string[]; exitCode: number } | undefined> {
  const args = payrecWords(command);
  if (!args || args.some((a) => ['sync', '--sync', '--all', '--jq'].includes(a))) return undefined;
  // The examples' relative paths (-o october.xlsx) are the folder's.
  const r = await payrecInProcess(undefined, args, { env: examplesEnv(bin, home), terminalColumns: 120, cwd: home });
  return { lines: screen(r.output), exitCode: r.exitCode };
}

describe('console examples print what they show', () => {
  const bin = binFolder();
  for (const file of FILES) {
    const path = join(ROOT, file);
    const lines = readFileSync(path, 'utf8').split('\n');
    const blocks = consoleBlocks(file, lines);
    if (blocks.length === 0) continue;
    onPty(`${file}: ${blocks.reduce((n, b) => n + b.examples.length, 0)} examples${script.note}`, async () => {
      // Run every example first, then compare (or rewrite from the end, so indices hold).
      const actual: string[][] = [];
      const home = tempDir();
      let first = true;
      for (const block of blocks) {
        let exitCode = 0;
        for (const example of block.examples) {
          if (example.command === 'echo $?') {
            actual.push([String(exitCode)]);
            continue;
          }
          const r = (!first && (await inWorker(example.command, bin, home))) || (await onTerminal(example.command, bin, home));
          first = false;
          exitCode = r.exitCode;
          actual.push(r.lines);
        }
      }
      const examples = blocks.flatMap((b) => b.examples.map((e) => ({ ...e, compared: b.compared })));
      const stale = examples.flatMap((e, k) => {
        if (!e.compared) return [];
        const shown = lines.slice(e.start, e.end).map((l) => l.trimEnd());
        while (shown.length > 0 && shown[shown.length - 1] === '') shown.pop();
        if (shown.join('\n') === actual[k].join('\n')) return [];
        return [{ k, figuresChanged: figures(shown) !== figures(actual[k]), diff: `${file}:${e.start}: $ ${e.command}\n--- shown\n${shown.join('\n')}\n--- printed\n${actual[k].join('\n')}` }];
      });
      if (UPDATE) {
        const refused = UPDATE === 'figures' ? [] : stale.filter((x) => x.figuresChanged);
        if (UPDATE === 'figures') for (const x of stale) console.log(x.diff);
        if (refused.length === 0) {
          for (const { k } of [...stale].reverse()) lines.splice(examples[k].start, examples[k].end - examples[k].start, ...actual[k]);
          if (stale.length > 0) writeFileSync(path, lines.join('\n'));
        }
        expect(refused.map((x) => x.diff).join('\n\n'), `figures changed: nothing written to ${file}; check each new figure against an oracle, then npm run docs:accept`).toBe('');
        return;
      }
      expect(stale.map((x) => x.diff).join('\n\n'), `stale examples (run npm run docs:update and review the diff)`).toBe('');
    });
  }
});
