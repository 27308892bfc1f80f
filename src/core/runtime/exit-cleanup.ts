import { rmSync } from 'node:fs';

/**
 * A folder of this process's own (a mirror's spill folder, a close's spools), removed at
 * exit however the run ends (process.exit runs the 'exit' listeners) or sooner by the
 * function returned, which also takes its listener back: a process that opens and closes
 * many (a test worker running payrec in-process, a sync reopening the mirror) would
 * otherwise gather one listener per folder (Node warns at eleven).
 */
export function removedAtExit(path: string): () => void {
  const remove = () => rmSync(path, { recursive: true, force: true });
  process.once('exit', remove);
  return () => {
    process.removeListener('exit', remove);
    remove();
  };
}
