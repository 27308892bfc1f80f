import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { buildProgram } from '../cli.js';
import { processContext } from '../core/runtime/context.js';
import { completionModel } from '../command-reference/model.js';
import { SHELLS } from '../command-reference/scripts.js';
import { referenceMarkdown } from '../command-reference/reference.js';
import { manPage } from '../command-reference/man-page.js';

// `npm run generate`: rewrites the files generated from the command tree: completions/,
// the command reference (docs/reference.md, what `payrec help reference` prints) and the
// man page (man/payrec.1). `--check` writes nothing and exits 1 when any is stale (for CI).

const COMPLETION_FILES = { bash: 'completions/payrec.bash', zsh: 'completions/_payrec', fish: 'completions/payrec.fish' } as const;

const check = process.argv.includes('--check');
const program = await buildProgram(processContext(new AbortController().signal));
const model = completionModel(program);

const wanted = new Map<string, string>();
for (const [shell, file] of Object.entries(COMPLETION_FILES)) wanted.set(file, SHELLS[shell as keyof typeof SHELLS](model));
wanted.set('docs/reference.md', referenceMarkdown(program));
wanted.set(pkg.man[0].replace(/^\.\//, ''), manPage(program, pkg.version));

const stale = [...wanted].filter(([file, text]) => !existsSync(file) || readFileSync(file, 'utf8') !== text).map(([file]) => file);
if (check) {
  if (stale.length > 0) {
    process.stderr.write(`stale: ${stale.join(', ')}; run npm run generate\n`);
    process.exitCode = 1;
  }
} else {
  for (const file of stale) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, wanted.get(file)!);
  }
  process.stderr.write(stale.length ? `wrote ${stale.join(', ')}\n` : 'everything was up to date\n');
}
