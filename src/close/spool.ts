import { createReadStream, createWriteStream, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { constants, crc32, createDeflateRaw, createInflateRaw, type ZlibOptions } from 'node:zlib';
import { DEFLATE_LEVEL, type DeflatedPart } from '../core/output/zip-splice.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isPlainObject, leafPaths, type Row } from '../core/output/rows.js';
import { processAlive } from '../core/runtime/process-alive.js';
import { removedAtExit } from '../core/runtime/exit-cleanup.js';

// The close's transfers go to a file while the API is walked, then come back from it
// as their sheet (or the page's table) is written: its cover counts them and their
// columns are every row's, both known only once the walk has ended, and a month can
// hold hundreds of thousands of transfers, which held in memory took 600 MB at 300,000
// (issue 46's goal: < 500 MB). A row is one line of text, in the spool's format: for the
// page, a JSON line (transfers are the API's JSON with the enrichers' strings, numbers
// and arrays, which JSON gives back as they were: a key whose value is undefined comes
// back absent, a cell as empty); for the workbook, the row's XML in its sheet
// (close/workbook.ts), rendered while the walk waits for the API, and copied into the
// workbook as it is (parsing 300,000 rows back and rendering them then took a third of
// the close), deflated on zlib's thread pool as it is written (compressing it once the
// walk had ended took 3.8 s of a 12 s close), a file a sheet.

/** Rows are written in chunks of about this many bytes (one write a row would be a syscall a row). */
const CHUNK_BYTES = 1 << 20;
/**
 * Deflate's input queue, in bytes: the walk goes on while the thread pool compresses
 * this much (at its default of 16 KiB every chunk would make the walk wait for it).
 */
const DEFLATE_QUEUE_BYTES = 8 * CHUNK_BYTES;

/** How a spool holds its rows: a line of text each. */
export interface SpoolFormat {
  /** A row's text; `names`: the columns known so far, this row's included (as RowSpool.names). */
  line(row: Row, names: ReadonlySet<string>): string;
  /** Rows in a part of the file (a sheet's rows: each part is read back on its own; default: one part). */
  partRows?: number;
  /**
   * Each part deflated as it is written (raw deflate ended by a sync flush, so that more
   * can follow it in a zip entry: RowSpool.deflated), on zlib's thread pool while the walk
   * goes on: the workbook's sheets then need no compressing once the walk has ended.
   */
  deflate?: boolean;
}

/** A JSON line a row: what the page reads back (batches). */
export const JSON_LINES: SpoolFormat = { line: (row) => JSON.stringify(row) + '\n' };

/** One part's file as it is written: through deflate when the format asks. */
interface PartFile {
  path: string;
  /** What rows' bytes are written to (the file, or deflate in front of it). */
  input: Writable;
  /** Resolves once the file is complete. */
  closed: Promise<void>;
  crc: number;
  size: number;
}

export class RowSpool {
  /** Each part's file, the last one being written. */
  private readonly parts: PartFile[] = [];
  /** Rows' text not written yet, encoded as it comes (no string of a whole chunk to build, then encode). */
  private chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;
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
    readonly format: SpoolFormat = JSON_LINES,
  ) {
    this.names = new Set(first);
    this.openPart();
  }

  /** Starts the file of the next part: `file`, then `file.2`, `file.3`… */
  private openPart(): void {
    const path = this.parts.length === 0 ? this.file : `${this.file}.${this.parts.length + 1}`;
    const out = createWriteStream(path);
    const fail = (err: Error) => (this.failure ??= err);
    out.on('error', fail);
    let input: Writable = out;
    if (this.format.deflate) {
      // zlib's streams take a stream's options too (Node's zlib.js), though its types leave them out.
      // Output a chunk at a time: at zlib's 16 KiB the pool came back to the busy main thread every 16 KiB.
      input = createDeflateRaw({ level: DEFLATE_LEVEL, finishFlush: constants.Z_SYNC_FLUSH, chunkSize: CHUNK_BYTES, writableHighWaterMark: DEFLATE_QUEUE_BYTES } as ZlibOptions);
      input.on('error', fail);
      input.pipe(out);
    }
    const closed = once(out, 'close').then(() => undefined);
    this.parts.push({ path, input, closed, crc: 0, size: 0 });
  }

  private get current(): PartFile {
    return this.parts[this.parts.length - 1];
  }

  /** Adds a row; the promise, when there is one, waits for the disk (or deflate) to catch up. */
  add(row: Row): Promise<void> | void {
    if (this.failure) throw this.failure;
    let wait: Promise<void> | void = undefined;
    // A new part begins with the text of its first row, in a file of its own.
    if (this.count > 0 && this.count % (this.format.partRows ?? Infinity) === 0) {
      wait = this.flush();
      this.current.input.end();
      this.openPart();
    }
    this.count++;
    this.first ??= row;
    // leafPaths of every key, but only a nested object's key costs more than a set's look-up.
    for (const key in row) {
      const value = row[key];
      if (isPlainObject(value) && Object.keys(value).length > 0) for (const p of leafPaths(value, [key])) this.names.add(p.join('.'));
      else this.names.add(key);
    }
    const line = this.format.line(row, this.names);
    // A UTF-16 unit is at most 3 bytes of UTF-8: a line that may not fit goes after what is there.
    if (this.used + line.length * 3 > this.chunk.length) wait = this.flush(line.length * 3) ?? wait;
    this.used += this.chunk.write(line, this.used);
    return wait;
  }

  /** Writes what the chunk holds to the current part, and starts one of `room` bytes at least. */
  private flush(room = 0): Promise<void> | void {
    const bytes = this.chunk.subarray(0, this.used);
    this.chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, room));
    this.used = 0;
    if (bytes.length === 0) return;
    const part = this.current;
    // What a zip entry must say of the text deflated (the CRC of what comes before is combined with it there).
    if (this.format.deflate) part.crc = crc32(bytes, part.crc);
    part.size += bytes.length;
    if (!part.input.write(bytes)) return once(part.input, 'drain').then(() => undefined);
  }

  /** Completes the files: its rows can be read from then on. */
  async end(): Promise<void> {
    await this.flush();
    this.current.input.end();
    await Promise.all(this.parts.map((p) => p.closed));
    if (this.failure) throw this.failure;
  }

  /** The bytes of part `part`, in chunks: the text of its rows as their format made it. */
  part(part: number): AsyncIterable<Buffer> {
    const bytes = createReadStream(this.parts[part].path, { highWaterMark: 1 << 20 });
    // Its deflate ends in a sync flush, not a final block: inflate stops there without an error.
    return this.format.deflate ? bytes.pipe(createInflateRaw({ finishFlush: constants.Z_SYNC_FLUSH })) : bytes;
  }

  /** Part `part` as it was deflated (format.deflate): its bytes as they are on disk. */
  deflated(part: number): DeflatedPart {
    const { path, crc, size } = this.parts[part];
    // Opened once read (by the zip, when it comes to the sheet), not before.
    const bytes = async function* () {
      yield* createReadStream(path, { highWaterMark: 1 << 20 });
    };
    return { crc, size, bytes: bytes() };
  }

  /**
   * The rows of a spool of JSON lines, in the order they were added, a chunk of the file
   * at a time: its whole lines parsed as one JSON array (JSON text never holds a raw line
   * break, so each becomes a comma), cheaper than a parse, a string and an await a row.
   */
  async *batches(): AsyncGenerator<Row[]> {
    let rest = '';
    for await (const chunk of createReadStream(this.file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
      const text = rest + (chunk as string);
      const end = text.lastIndexOf('\n');
      if (end < 0) {
        rest = text;
        continue;
      }
      rest = text.slice(end + 1);
      yield JSON.parse(`[${text.slice(0, end).replaceAll('\n', ',')}]`) as Row[];
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

