import { createReadStream, createWriteStream, lstatSync, mkdtempSync, readdirSync, rmSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isPlainObject, leafPaths, type Row } from '../core/output/rows.js';
import { processAlive } from '../core/runtime/process-alive.js';
import { removedAtExit } from '../core/runtime/exit-cleanup.js';

// The close's transfers go to a file while the API is walked, then come back from it
// row by row as their sheet (or the page's table) is written: its cover counts them
// and their columns are every row's, both known only once the walk has ended, and a
// month can hold hundreds of thousands of transfers, which held in memory took 600 MB
// at 300,000 (issue 46's goal: < 500 MB). One JSON line per row: transfers are the
// API's JSON with the enrichers' strings, numbers and arrays, which JSON gives back as
// they were (a key whose value is undefined comes back absent, a cell as empty).

/** Rows are written in chunks of about this many characters (one write a row would be a syscall a row). */
const CHUNK_CHARS = 1 << 20;

export class RowSpool {
  private readonly out: WriteStream;
  private chunk = '';
  private failure: Error | undefined;
  /** Rows written. */
  count = 0;
  /** The first row, as it was (a sheet's columns are as wide as its values). */
  first: Row | undefined;
  /** Every row's leaf paths, dotted, in the order they first appear after `names` given first (as columnsOf in compose.ts). */
  readonly names: Set<string>;

  constructor(
    private readonly file: string,
    first: readonly string[] = [],
  ) {
    this.names = new Set(first);
    this.out = createWriteStream(file);
    this.out.on('error', (err) => (this.failure ??= err));
  }

  /** Adds a row; the promise, when there is one, waits for the disk to catch up. */
  add(row: Row, line = JSON.stringify(row)): Promise<void> | void {
    if (this.failure) throw this.failure;
    this.count++;
    this.first ??= row;
    // leafPaths of every key, but only a nested object's key costs more than a set's look-up.
    for (const key in row) {
      const value = row[key];
      if (isPlainObject(value) && Object.keys(value).length > 0) for (const p of leafPaths(value, [key])) this.names.add(p.join('.'));
      else this.names.add(key);
    }
    this.chunk += line + '\n';
    if (this.chunk.length >= CHUNK_CHARS) return this.flush();
  }

  private flush(): Promise<void> | void {
    const text = this.chunk;
    this.chunk = '';
    if (!this.out.write(text)) return once(this.out, 'drain').then(() => undefined);
  }

  /** Completes the file: its rows can be read from then on. */
  async end(): Promise<void> {
    await this.flush();
    this.out.end();
    await once(this.out, 'close');
    if (this.failure) throw this.failure;
  }

  /** The rows in the order they were added, parsed one at a time. */
  async *rows(): AsyncGenerator<Row> {
    let rest = '';
    for await (const chunk of createReadStream(this.file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
      const text = rest + (chunk as string);
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start)) yield JSON.parse(text.slice(start, end)) as Row;
      rest = text.slice(start);
    }
  }
}

/** A close's spool folder: `payrec-close-PID-XXXXXX` in the system's temporary folder, PID the process that made it. */
const PREFIX = 'payrec-close-';
const OWN = new RegExp(`^${PREFIX}(\\d+)-[A-Za-z0-9]{6}$`);

/**
 * A folder of a new name only this user can enter (mkdtemp: 0700, never a link) for a
 * close's spools; `remove` (or the process's exit) removes it. A close killed outright
 * (SIGKILL, a power cut) cannot remove its own: each close first sweeps those of this
 * user whose process is gone (sweepStale).
 */
export function spoolFolder(): { path: string; remove(): void } {
  sweepStale();
  const path = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
  return { path, remove: removedAtExit(path) };
}

/**
 * Removes the spool folders a close left when it was killed: named as spoolFolder names
 * them, a folder (not a link) this user owns, of a process that no longer runs. A folder
 * of a running process (another close, or a process that took a dead close's number) is
 * left alone, and so is anything it cannot read: the sweep never fails a close.
 */
export function sweepStale(dir = tmpdir()): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const pid = OWN.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || processAlive(Number(pid))) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (st.isDirectory() && (uid === undefined || st.uid === uid)) rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone meanwhile, or not ours to read: left as it is.
    }
  }
}

