// `npm run mutate`, after Stryker: the mutation score of each mutated module, from
// Stryker's JSON report, and exit 1 when any is below 80 %. Stryker's own
// `thresholds.break` judges only the score of all modules together.
import { readFileSync } from 'node:fs';

const MIN = 80;
const report = JSON.parse(readFileSync(new URL('../../reports/mutation/mutation.json', import.meta.url), 'utf8'));

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);
let failed = false;
console.log('module                         score  detected/valid');
for (const [file, { mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  const detected = mutants.filter((m) => DETECTED.has(m.status)).length;
  const valid = detected + mutants.filter((m) => UNDETECTED.has(m.status)).length;
  const score = valid === 0 ? 100 : (100 * detected) / valid;
  const low = score < MIN;
  failed ||= low;
  console.log(`${file.replace(/^src\//, '').padEnd(30)} ${score.toFixed(2).padStart(6)}  ${detected}/${valid}${low ? `  below ${MIN} %` : ''}`);
}
if (failed) {
  console.error(`mutation score below ${MIN} % in a module: read its surviving mutants in reports/mutation/mutation.html`);
  process.exit(1);
}
