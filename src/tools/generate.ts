import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { buildProgram } from '../cli.js';
import { processContext } from '../core/runtime/context.js';
import { completionModel } from '../completion/model.js';
import { SHELLS } from '../completion/scripts.js';
import { REFERENCE_END, REFERENCE_START, referenceMarkdown } from '../completion/reference.js';

// `npm run generate`: rewrites completions/ and the README command reference from the
// command tree. `--check` writes nothing and exits 1 when any of them is stale (for CI).
// A README without the reference markers is left alone: only completions are written.

const COMPLETION_FILES = { bash: 'completions/payrec.bash', zsh: 'completions/_payrec', fish: 'completions/payrec.fish' } as const;

const check = process.argv.includes('--check');
const program = await buildProgram(processContext(new AbortController().signal));
const model = completionModel(program);

const wanted = new Map<string, string>();
for (const [shell, file] of Object.entries(COMPLETION_FILES)) wanted.set(file, SHELLS[shell as keyof typeof SHELLS](model));

const readme = existsSync('README.md') ? readFileSync('README.md', 'utf8') : undefined;
const start = readme?.indexOf(REFERENCE_START) ?? -1;
const end = readme?.indexOf(REFERENCE_END) ?? -1;
if (readme !== undefined && start >= 0 && end > start) {
  wanted.set('README.md', readme.slice(0, start + REFERENCE_START.length) + '\n\n' + referenceMarkdown(program) + '\n' + readme.slice(end));
} else {
  process.stderr.write(`README.md ${readme === undefined ? 'is missing' : 'lacks the reference markers'}: only completions/ is generated\n`);
}

const stale = [...wanted].filter(([file, text]) => !existsSync(file) || readFileSync(file, 'utf8') !== text).map(([file]) => file);
if (check) {
  if (stale.length > 0) {
    process.stderr.write(`stale: ${stale.join(', ')}; run npm run generate\n`);
    process.exitCode = 1;
  }
} else {
  for (const file of stale) writeFileSync(file, wanted.get(file)!);
  process.stderr.write(stale.length ? `wrote ${stale.join(', ')}\n` : 'everything was up to date\n');
}
