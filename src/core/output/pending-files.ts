import { rmSync } from 'node:fs';

// The temporary files of --output still being written, removed even on an abrupt exit
// (Ctrl-C twice, a reader that left). Apart from atomic-file.ts so that the process's
// exit handlers load only this: every run installs them, even `payrec --help`, while
// writing a file needs crypto, streams and the trust checks.

const pending = new Set<string>();

export const pendingFiles = {
  add: (file: string) => pending.add(file),
  delete: (file: string) => pending.delete(file),
};

export function removePendingFiles(): void {
  for (const file of pending) rmSync(file, { force: true });
  pending.clear();
}
