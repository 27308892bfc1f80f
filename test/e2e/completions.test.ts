import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { payrec, program, tempDir } from './helpers.js';

// Shell completions: the committed completions/ files are exactly what
// `payrec completion SHELL` prints (a stale file fails here: run npm run generate),
// and they complete commands, aliases, flags and flag values in the real shells.

const ROOT = resolve(import.meta.dirname, '../..');
const FILES = { bash: 'completions/payrec.bash', zsh: 'completions/_payrec', fish: 'completions/payrec.fish' } as const;
const zsh = program('zsh', 'zsh');
const fish = program('fish', 'fish');

describe('generated files are up to date', () => {
  test.concurrent.each(Object.entries(FILES))('%s: %s equals `payrec completion` output', async (shell, file) => {
    const r = await payrec(undefined, ['completion', shell]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(1000);
    expect(r.stdout, `${file} is stale: run npm run generate`).toBe(readFileSync(resolve(ROOT, file), 'utf8'));
  });

  test.concurrent('docs/reference.md is exactly what `payrec help reference` prints, and names every command', async () => {
    const r = await payrec(undefined, ['help', 'reference']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout, 'docs/reference.md is stale: run npm run generate').toBe(readFileSync(resolve(ROOT, 'docs/reference.md'), 'utf8'));
    // Commands of the tree DESIGN.md fixes each have a section.
    for (const path of ['fixed-recurring billings', 'one-time payments get <id>', 'webhook-notifications listen', 'auth login', 'completion <shell>']) {
      expect(r.stdout).toContain(`\n## payrec ${path}\n`);
    }
  });

  test.concurrent('each command\'s section ends with what its --help says after the flags, word for word', async () => {
    const reference = readFileSync(resolve(ROOT, 'docs/reference.md'), 'utf8');
    const sections = [...reference.matchAll(/^## payrec ([^\n]+)\n[\s\S]*?(?=^## |(?![\s\S]))/gm)];
    const blocks = sections.flatMap(([section, usage]) => {
      const block = /\n```text\n([\s\S]*?)\n```\n/.exec(section);
      return block ? [{ words: usage.split(' ').filter((w) => !/^[<[]/.test(w)), text: block[1] }] : [];
    });
    // subscriptions, metrics, doctor, api, auth login, emulator start… (every command whose --help has examples)
    expect(blocks.length).toBeGreaterThan(25);
    expect(blocks.map((b) => b.words.join(' '))).toEqual(expect.arrayContaining(['subscriptions', 'metrics', 'doctor', 'api']));
    // commander's own --help, not the reference's renderer, is the oracle.
    const helps: Awaited<ReturnType<typeof payrec>>[] = [];
    for (let i = 0; i < blocks.length; i += 6) helps.push(...(await Promise.all(blocks.slice(i, i + 6).map(({ words }) => payrec(undefined, [...words, '--help'])))));
    for (const [i, { words, text }] of blocks.entries()) {
      expect(helps[i].exitCode).toBe(0);
      expect(helps[i].stdout.trimEnd().endsWith(`\n\n${text}`), `payrec ${words.join(' ')} --help`).toBe(true);
    }
  });

  test.concurrent('each argument the reference describes is described so by its command\'s --help', async () => {
    const reference = readFileSync(resolve(ROOT, 'docs/reference.md'), 'utf8');
    const rows = reference.split('\n## payrec ').slice(1).flatMap((section) => {
      const usage = section.slice(0, section.indexOf('\n'));
      const table = /\n\| argument \| meaning \|\n\| --- \| --- \|\n((?:\|[^\n]*\n)+)/.exec(section)?.[1] ?? '';
      const words = usage.split(' ').filter((w) => !/^[<[]/.test(w));
      return [...table.matchAll(/^\| `([^`]+)` \| (.*) \|$/gm)].map(([, arg, meaning]) => ({ words, arg, meaning: meaning.replace(/\\\|/g, '|') }));
    });
    expect(rows.length).toBeGreaterThan(15);
    expect(rows).toContainEqual(expect.objectContaining({ words: ['subscriptions'], arg: '[subscriptionId]' }));
    const flat = (t: string) => t.replace(/\s+/g, ' ');
    for (let i = 0; i < rows.length; i += 6) {
      const batch = rows.slice(i, i + 6);
      const helps = await Promise.all(batch.map(({ words }) => payrec(undefined, [...words, '--help'])));
      batch.forEach(({ words, arg, meaning }, j) => {
        const section = flat(helps[j].stdout.split('\nArguments:\n')[1]?.split('\n\n')[0] ?? '');
        expect(section, `payrec ${words.join(' ')} --help: ${arg}`).toContain(`${arg.slice(1, -1)} ${flat(meaning)}`);
      });
    }
  });

  test.concurrent('the man page is generated from the same tree and ships with the package', async () => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { man: string[]; version: string; files: string[] };
    expect(pkg.man).toEqual(['./man/payrec.1']);
    const page = readFileSync(resolve(ROOT, pkg.man[0]), 'utf8');
    expect(page).toMatch(new RegExp(`^\\.TH PAYREC 1 "" "payrec ${pkg.version.replace(/\./g, '\\.')}"`));
    expect(page).toContain('\n.SS "payrec fixed\\-recurring billings"\n');
    expect(page).toContain('\n.B \\-\\-plan\\-id <id>\n');
    expect(page).not.toMatch(/[^\x00-\x7f]/); // roff sees only ASCII: other characters are \[uXXXX]
    expect(pkg.files).toContain('man/');
  });

  test.concurrent('npm run generate --check finds nothing stale (completions, docs/reference.md, the man page)', async () => {
    const r = await execa('node', ['dist/tools/generate.js', '--check'], { cwd: ROOT, reject: false });
    expect(r.stderr).not.toMatch(/stale/);
    expect(r.exitCode).toBe(0);
  });

  test.concurrent('an unknown shell exits 2', async () => {
    const r = await payrec(undefined, ['completion', 'powershell']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/invalid <shell> "powershell": expected bash, zsh or fish/);
  });
});

/** What bash offers for the words typed so far (the last one is being completed). */
async function bashComplete(...words: string[]): Promise<string[]> {
  const script = `source ${FILES.bash}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _payrec; echo "\${COMPREPLY[@]}"`;
  const r = await execa('bash', ['-c', script], { cwd: ROOT });
  return r.stdout.split(/\s+/).filter(Boolean);
}

describe('bash completes', () => {
  test.concurrent('a subcommand, by its full path and through an alias', async () => {
    expect(await bashComplete('payrec', 'fixed-recurring', 'sh')).toEqual(['short-urls']);
    expect(await bashComplete('payrec', 'fr', 'sh')).toEqual(['short-urls']);
    expect(await bashComplete('payrec', 'fr', 'short-urls', '')).toEqual(['list', 'get', 'delete', 'create', 'update']);
    expect(await bashComplete('payrec', '')).toEqual(expect.arrayContaining(['fixed-recurring', 'one-time', 'webhook-notifications', 'auth', 'config', 'completion']));
  });

  test.concurrent('flags of the command, and the global flags after it', async () => {
    expect(await bashComplete('payrec', 'fr', 'billings', '--pl')).toEqual(['--plan-id']);
    const create = await bashComplete('payrec', 'od', 'short-urls', 'create', '--');
    expect(create).toEqual(expect.arrayContaining(['--name', '--plan-id', '--success-url', '--error-url', '--extra', '--chain', '--format', '--help']));
    expect(new Set(create).size).toBe(create.length); // each flag once
  });

  test.concurrent('values of --format, --sort and --chain', async () => {
    expect(await bashComplete('payrec', 'fr', 'billings', '--format', '')).toEqual(['table', 'json', 'jsonl', 'csv', 'xlsx', 'html']);
    expect(await bashComplete('payrec', 'ot', 'transfers', '-f', 'js')).toEqual(['json', 'jsonl']);
    expect(await bashComplete('payrec', 'ot', 'transfers', '--sort', '')).toEqual(['asc', 'desc']);
    expect(await bashComplete('payrec', '--chain', '')).toEqual(['bsc', 'ethereum', 'polygon', 'sandbox']);
  });

  // Issue 23, item 16. Mutants killed: --tz's five sample zones again (Europe/Belgrade missing),
  // positional values dropped (completion, help, sync offer nothing), --columns completed as a
  // plain word (the fields before the comma lost).
  test.concurrent('every IANA zone for --tz, the shells, reference, collections', async () => {
    expect(await bashComplete('payrec', 'ot', 'transfers', '--tz', 'Europe/Be')).toEqual(['Europe/Belgrade', 'Europe/Berlin']);
    const zones = await bashComplete('payrec', '--tz', '');
    expect(zones).toEqual([...new Set(['UTC', ...Intl.supportedValuesOf('timeZone')])]);
    expect(zones).toContain('Australia/Lord_Howe');
    expect(await bashComplete('payrec', 'completion', '')).toEqual(['bash', 'zsh', 'fish']);
    expect(await bashComplete('payrec', 'help', 're')).toEqual(['reference']);
    expect(await bashComplete('payrec', 'help', 'fi')).toEqual(['fixed-recurring']);
    expect(await bashComplete('payrec', 'sync', 'ot/')).toEqual(['ot/payments', 'ot/transfers']);
    expect(await bashComplete('payrec', 'sync', 'ot/transfers', 'dollar')).toEqual(['dollar-cost-average/executions']);
  });

  test.concurrent('--columns: the command\'s fields, one after another in a comma list', async () => {
    expect(await bashComplete('payrec', 'ot', 'transfers', '--columns', 'am')).toEqual(['amount']);
    expect(await bashComplete('payrec', 'ot', 'transfers', '--columns', 'amount,to')).toEqual(['amount,token']);
    expect(await bashComplete('payrec', 'fr', 'short-urls', 'list', '--columns', 'path,params.c')).toEqual(['path,params.callbackSuccess', 'path,params.callbackError']);
    expect(await bashComplete('payrec', 'transfers', '--columns', 'pro')).toEqual(['product']);
    // The fields offered are the ones the command accepts.
    const fields = await bashComplete('payrec', 'fr', 'billings', '--columns', '');
    expect(fields).toEqual(expect.arrayContaining(['subscriptionId', 'cycleStart', 'transactionStatus']));
    const r = await payrec(undefined, ['--emulator', 'fr', 'billings', '--plan-id', '0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7', '--limit', '1', '-f', 'csv', '--columns', fields.join(',')]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\r\n')[0]).toBe(fields.join(','));
  });

  test.concurrent('--columns on commands that print their own rows: the columns they accept', async () => {
    expect(await bashComplete('payrec', 'metrics', '--columns', 'token,mrr_')).toEqual(['token,mrr_start', 'token,mrr_end', 'token,mrr_new', 'token,mrr_reactivated', 'token,mrr_churned', 'token,mrr_net']);
    expect(await bashComplete('payrec', 'sync', '--columns', 'un')).toEqual(['unchanged']);
    expect(await bashComplete('payrec', 'doctor', '--columns', 'st')).toEqual(['status']);
    expect(await bashComplete('payrec', 'fr', 'plans', '--columns', 'seen')).toEqual(['seenIn']);
    // Billings carry payrec's outcome besides the API's fields.
    expect(await bashComplete('payrec', 'fr', 'billings', '--columns', 'amount,out')).toEqual(['amount,outcome']);
    // Every ledger column offered is one the command takes.
    const fields = await bashComplete('payrec', 'subscriptions', '--columns', '');
    expect(fields).toEqual(expect.arrayContaining(['subscriptionId', 'paidThrough', 'state']));
    const home = tempDir();
    const r = await payrec(undefined, ['--emulator', 'subscriptions', '--sync', '--db', join(home, 'm.duckdb'), '-f', 'csv', '--columns', fields.join(',')], { env: { PAYREC_EMULATOR_NOW: '2026-11-22' } });
    expect(r.stderr).not.toMatch(/error/);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\r\n')[0]).toBe(fields.join(','));
  });

  test.concurrent('a flag value is not taken for a command', async () => {
    expect(await bashComplete('payrec', '--chain', 'bsc', '-f', 'json', 'wn', '')).toEqual(['get', 'verify', 'listen']);
  });
});

describe.skipIf(zsh.skip)(`zsh${zsh.note}`, () => {
  test('zsh is installed', () => expect(zsh.present).toBe(true));

  test.concurrent('the script parses', async () => {
    const r = await execa('zsh', ['-n', FILES.zsh], { cwd: ROOT, reject: false });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
  });

  test.concurrent('installed in $fpath, it completes an alias path, a flag and a flag value at a real prompt', async () => {
    // An interactive zsh on a pseudo-terminal (zsh/zpty), as a user would have it after compinit.
    // Each read waits for text that only a completion can have produced.
    const script = `
      zmodload zsh/zpty
      zpty z 'zsh -f -i'
      zpty -w z 'PS1="> "; fpath=(${ROOT}/completions $fpath); autoload -U compinit; compinit -u -D'
      zpty -w -n z $'payrec fr sh\\t'
      zpty -r z out '*ort-urls*' && print ok:subcommand
      zpty -w -n z $'\\C-upayrec fr billings --pla\\t'
      zpty -r z out '*n-id*' && print ok:flag
      zpty -w -n z $'\\C-upayrec ot transfers --sort d\\t'
      zpty -r z out '*esc*' && print ok:value
      zpty -d z`;
    const r = await execa('zsh', ['-f', '-c', script], { cwd: ROOT, timeout: 20_000, reject: false });
    expect(r.stdout.split('\n')).toEqual(['ok:subcommand', 'ok:flag', 'ok:value']);
  });

  test.concurrent('it completes a field after a comma in --columns, a zone, a shell, reference and a collection', async () => {
    // zle writes only what a completion adds, so each line is run (payrec is a function
    // here that prints its arguments) and the read waits for the whole completed line.
    const cases = [
      ['ot transfers --columns amount,tok', 'ot transfers --columns amount,token'],
      ['--tz Europe/Berl', '--tz Europe/Berlin'],
      ['completion fi', 'completion fish'],
      ['help refer', 'help reference'],
      ['sync ot/tr', 'sync ot/transfers'],
    ];
    const script = `
      zmodload zsh/zpty
      zpty z 'zsh -f -i'
      zpty -w z 'PS1="> "; fpath=(${ROOT}/completions $fpath); autoload -U compinit; compinit -u -D; payrec() { print -r -- "GOT<$*>" }'
      ${cases.map(([typed, done]) => `zpty -w -n z $'\\C-upayrec ${typed}\\t\\n'
      zpty -r z out '*GOT<${done}*>*' && print -r -- 'ok:${done}'`).join('\n      ')}
      zpty -d z`;
    const r = await execa('zsh', ['-f', '-c', script], { cwd: ROOT, timeout: 20_000, reject: false });
    expect(r.stdout.split('\n')).toEqual(cases.map(([, done]) => `ok:${done}`));
  });
});

describe.skipIf(fish.skip)(`fish${fish.note}`, () => {
  test('fish is installed', () => expect(fish.present).toBe(true));

  const fishComplete = async (line: string) =>
    (await execa('fish', ['--no-config', '-c', `source ${FILES.fish}; complete -C '${line}'`], { cwd: ROOT })).stdout.split('\n').map((l) => l.split('\t')[0]);

  test.concurrent('the script parses', async () => {
    const r = await execa('fish', ['-n', FILES.fish], { cwd: ROOT, reject: false });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
  });

  test.concurrent('it completes an alias path, a flag and flag values', async () => {
    expect(await fishComplete('payrec fr sh')).toEqual(['short-urls']);
    expect(await fishComplete('payrec fr billings --pl')).toEqual(['--plan-id']);
    expect(await fishComplete('payrec fr billings --format ')).toEqual(['csv', 'html', 'json', 'jsonl', 'table', 'xlsx']);
    expect(await fishComplete('payrec --chain ')).toEqual(['bsc', 'ethereum', 'polygon', 'sandbox']);
  });

  test.concurrent('it completes --columns after a comma, every zone, the shells, reference and collections', async () => {
    expect(await fishComplete('payrec ot transfers --columns amount,to')).toEqual(['amount,token']);
    expect(await fishComplete('payrec --tz Europe/Be')).toEqual(['Europe/Belgrade', 'Europe/Berlin']);
    expect(await fishComplete('payrec completion ')).toEqual(['bash', 'fish', 'zsh']);
    expect(await fishComplete('payrec help re')).toEqual(['reference']);
    expect(await fishComplete('payrec sync ot/')).toEqual(['ot/payments', 'ot/transfers']);
  });
});
