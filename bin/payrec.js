#!/usr/bin/env node
// dist/ comes with the package (npm pack builds it); a clone builds it with npm run build.
let cli;
try {
  cli = await import('../dist/cli.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/cli.js')) throw err;
  process.stderr.write('error: payrec is not built yet\nhint: run npm run build in the clone (after npm ci)\n');
  process.exit(1);
}
await cli.main();
