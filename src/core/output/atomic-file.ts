import { constants, rmSync, type Stats, type WriteStream } from 'node:fs';
import { lstat, open, readlink, realpath, rename, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { finished } from 'node:stream/promises';
import { UsageError } from '../runtime/errors.js';
import { printable } from './sanitize.js';
import { refuseForeignLinks, unwritable } from '../runtime/trust.js';
import { userFileMode } from '../runtime/umask.js';

// --output FILE: write to a temporary file beside FILE and rename it over FILE only
// when everything was written. A failed or interrupted run leaves no partial file, and
// a file replaced keeps its mode (a 0600 export stays 0600).
// Only a regular file (or a new path) is replaced so: a named pipe, a device
// (/dev/null, /dev/stdout on a terminal) or a link to one is written into as it is,
// as a shell's `>` would, and a link to a regular file keeps being a link. A link is
// followed only as the kernel would let `>` follow it (it is opened through its path,
// and the file renamed over is that one), and never when another user made it in a
// folder everyone can write (/tmp): it could point at any file of the user's.

/**
 * Temporary files still being written, removed even on an abrupt exit: Ctrl-C twice and
 * a reader that left end in process.exit, which runs the 'exit' listeners. The listener
 * is installed with the first file, so a run that writes none (`--help`) loads none of this.
 */
const pending = new Set<string>();
let removedAtExit = false;

function track(temp: string): void {
  if (!removedAtExit) {
    process.on('exit', removePendingFiles);
    removedAtExit = true;
  }
  pending.add(temp);
}

function removePendingFiles(): void {
  for (const file of pending) rmSync(file, { force: true });
  pending.clear();
}

export interface AtomicFile {
  stream: WriteStream;
  /** Renamed into place at commit (false: a pipe or a device, written into as it goes). */
  atomic: boolean;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** What `--output` writes through: `target` replaced atomically, or written into when it is a pipe or a device. */
export async function openOutputFile(target: string): Promise<AtomicFile> {
  const found = await stat(target).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (found?.isDirectory()) throw new UsageError(`--output "${printable(target)}" is a folder`, 'give the path of a file, such as records.csv inside it');
  if (found && !found.isFile()) return openInPlace(target);
  // Every link on the way, not only the last: /tmp/theirs/out.csv through another user's /tmp/theirs.
  await refuseForeignLinks(target, 'payrec does not write', 'remove the link, or give -o another path');
  const link = await lstat(target).catch(() => undefined);
  if (!found || !link?.isSymbolicLink()) return openAtomic(target, found);
  // /dev/stdout, /dev/fd/N: a descriptor another process opened (a shell's `> file`); its file is written into, never replaced.
  const to = await readlink(target);
  if ([resolve(target), resolve(dirname(target), to)].some((p) => p.startsWith('/dev/') || p.startsWith('/proc/'))) return openInPlace(target);
  // Opened through the link, as `>` would (the kernel's permission and protected_symlinks
  // checks apply), without truncating it; the file replaced is the one that open reached.
  const through = await open(target, constants.O_WRONLY | constants.O_NONBLOCK);
  const reached = await through.stat().finally(() => through.close());
  const real = await realpath(target);
  return openAtomic(real, reached);
}

/** Writes straight into a pipe or a device; appending, so a regular file behind /dev/stdout keeps what came before. */
async function openInPlace(target: string): Promise<AtomicFile> {
  // Opening a named pipe waits for its reader, as a shell's redirection does.
  const handle = await open(target, 'a');
  const stream = handle.createWriteStream() as unknown as WriteStream;
  return {
    stream,
    atomic: false,
    async commit() {
      stream.end();
      await finished(stream);
    },
    async abort() {
      stream.destroy();
      await finished(stream).catch(() => {});
    },
  };
}

/** `existing`: the file `target` is now, whose mode the new one keeps (and which must still be there at the rename). */
export async function openAtomic(target: string, existing?: Stats): Promise<AtomicFile> {
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.tmp`);
  // 'wx': never follow or clobber something already at the temporary name. Opening
  // here, before any request, turns a bad directory into an error up front.
  const handle = await open(temp, 'wx', 0o644);
  track(temp);
  // Its mode before a byte is written, whatever the umask: 0600 stays 0600. A new file
  // gets the user's umask even after the mirror made this process's files private.
  const mode = existing ? existing.mode & 0o7777 : userFileMode(0o644);
  if (mode !== undefined) await handle.chmod(mode);
  const stream = handle.createWriteStream() as unknown as WriteStream;
  return {
    stream,
    atomic: true,
    async commit() {
      stream.end();
      await finished(stream);
      if (existing) await stillThere(target, existing);
      await rename(temp, target).catch((err: NodeJS.ErrnoException) => {
        throw unwritable(err, `cannot replace --output "${printable(target)}"`, 'give -o a path in a folder you can write');
      });
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

/** Refuses to replace a file that is no longer the one checked at the start (swapped meanwhile). */
async function stillThere(target: string, was: Stats): Promise<void> {
  const now = await stat(target).catch(() => undefined);
  if (now && (now.dev !== was.dev || now.ino !== was.ino)) {
    throw new UsageError(`--output "${printable(target)}" was replaced by another file while payrec wrote; it was left as it is`, 'run again');
  }
}
