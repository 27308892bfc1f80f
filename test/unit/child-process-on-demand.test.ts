import { once } from 'node:events';
import { expect, test } from 'vitest';
import { spawn } from '../../src/core/runtime/child-process-on-demand.js';

// The bundle's node:child_process (package.json's build aliases it): loaded on the first
// spawn, which must then behave as Node's own, arguments and options passed through.
test('spawn loads child_process when first called and passes everything through', async () => {
  const child = spawn(process.execPath, ['-e', 'process.stdout.write(process.argv[1]); process.exit(3)', 'an argument'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk));
  const [code] = await once(child, 'exit');
  expect(code).toBe(3);
  expect(out).toBe('an argument');
});
