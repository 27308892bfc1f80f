import { readFileSync, writeFileSync } from 'node:fs';
import { buildProgram } from '../cli.js';
import { processContext } from '../core/context.js';
import { completionModel } from '../completion/model.js';
import { SHELLS } from '../completion/scripts.js';
import { REFERENCE_END, REFERENCE_START, referenceMarkdown } from '../completion/reference.js';

// `npm run generate`: rewrites completions/ and the README command reference from the
// command tree. A test fails when either is stale.

export const COMPLETION_FILES = { bash: 'completions/payrec.bash', zsh: 'completions/_payrec', fish: 'completions/payrec.fish' } as const;

const program = await buildProgram(processContext(new AbortController().signal));
const model = completionModel(program);
for (const [shell, file] of Object.entries(COMPLETION_FILES)) {
  writeFileSync(file, SHELLS[shell as keyof typeof SHELLS](model));
}
const readme = readFileSync('README.md', 'utf8');
const start = readme.indexOf(REFERENCE_START);
const end = readme.indexOf(REFERENCE_END);
if (start < 0 || end < 0) throw new Error('README.md lacks the reference markers');
writeFileSync('README.md', readme.slice(0, start + REFERENCE_START.length) + '\n\n' + referenceMarkdown(program) + '\n' + readme.slice(end));
