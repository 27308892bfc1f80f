import { rmSync, type WriteStream } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { finished } from 'node:stream/promises';

// --output FILE: write to a temporary file beside FILE and rename it over FILE only
// when everything was written. A failed or interrupted run leaves no partial file.

/** Temporary files still open; removed even on an abrupt exit. */
const pending = new Set<string>();

export function removePendingFiles(): void {
  for (const file of pending) rmSync(file, { force: true });
  pending.clear();
}

export interface AtomicFile {
  stream: WriteStream;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export async function openAtomic(target: string): Promise<AtomicFile> {
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.tmp`);
  // 'wx': never follow or clobber something already at the temporary name. Opening
  // here, before any request, turns a bad directory into an error up front.
  const handle = await open(temp, 'wx', 0o644);
  pending.add(temp);
  const stream = handle.createWriteStream() as unknown as WriteStream;
  return {
    stream,
    async commit() {
      stream.end();
      await finished(stream);
      await rename(temp, target);
      pending.delete(temp);
    },
    async abort() {
      stream.destroy();
      await finished(stream).catch(() => {});
      rmSync(temp, { force: true });
      pending.delete(temp);
    },
  };
}
