import { Writable, PassThrough } from 'node:stream';
import { once } from 'node:events';
import { constants, crc32, deflateRawSync } from 'node:zlib';

// A zip entry whose bulk was deflated before the zip reached it: the close's sheets of
// transfers and billings, deflated on zlib's thread pool while the API was walked
// (close/spool.ts), would otherwise be deflated again once the walk has ended, on the
// main thread's watch (a third of the close). The entry's text is exceljs's XML before
// the rows (the sheet's head, its columns, its header row), the rows, and exceljs's XML
// after them; the head and tail are deflated here and the deflated rows copied between
// them. Deflate streams can follow one another so when each but the last ends with a
// sync flush (RFC 1951 §3.2.3: a block that is not final, then byte alignment) and none
// refers back past its own start (each is a fresh stream): the entry's data is one valid
// deflate stream. Its CRC-32 is the CRCs of the three pieces combined (crc32Combine), its
// size theirs added.
//
// The zip is archiver's (exceljs writes through it; its zip plugin's engine is
// zip-stream's ZipStream), whose entries compress-commons deflates as it reads them
// (ZipArchiveOutputStream._smartStream): for an entry given a part here, that stream is
// replaced by one that splices (spliceInto). If a later compress-commons renames these
// internals, the workbook fails to write rather than comes out wrong, and
// test/unit/zip-splice.test.ts fails.

/**
 * The workbook's deflate level, the fastest: compressing at zlib's default level cost a
 * fifth of an export's time for a file a little smaller (workbooks are mostly repeated XML).
 */
export const DEFLATE_LEVEL = 1;

/** Text already deflated: raw deflate blocks, none final, and the CRC-32 and length in bytes of the text they hold. */
export interface DeflatedPart {
  crc: number;
  size: number;
  bytes: AsyncIterable<Buffer>;
}

/**
 * Where the part goes in its entry's text: bytes that never occur in UTF-8 (0xFF), so in
 * no XML exceljs writes.
 */
export const SPLICE_MARK = Buffer.from('\xff\xffpayrec-deflated-part\xff\xff', 'latin1');

/** The CRC-32 polynomial (reflected), as zlib's crc32 uses it. */
const POLYNOMIAL = 0xedb88320;

/** A 32×32 matrix over GF(2) (a column a word) times a vector. */
function gf2Times(matrix: Uint32Array, vector: number): number {
  let sum = 0;
  for (let i = 0; vector !== 0; i++, vector >>>= 1) if (vector & 1) sum ^= matrix[i];
  return sum >>> 0;
}

function gf2Square(square: Uint32Array, matrix: Uint32Array): void {
  for (let n = 0; n < 32; n++) square[n] = gf2Times(matrix, matrix[n]);
}

/**
 * The CRC-32 of A followed by B, from A's CRC, B's and B's length in bytes: zlib's
 * crc32_combine (Node has none), the operator of one zero byte squared for every bit of
 * the length.
 */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB <= 0) return crcA >>> 0;
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  odd[0] = POLYNOMIAL;
  for (let n = 1; n < 32; n++) odd[n] = 1 << (n - 1);
  gf2Square(even, odd); // two zero bits
  gf2Square(odd, even); // four zero bits
  let crc = crcA >>> 0;
  let length = lengthB;
  // Each turn squares the operator (8, 16, 32… zero bits) and applies it where the length has a one bit.
  for (let turn = 0; length > 0; turn++) {
    const [square, from] = turn % 2 === 0 ? [even, odd] : [odd, even];
    gf2Square(square, from);
    if (length % 2 === 1) crc = gf2Times(square, crc);
    length = Math.floor(length / 2);
  }
  return (crc ^ crcB) >>> 0;
}

/** What compress-commons's zip entry takes once its data is written. */
interface ZipEntry {
  getName(): string;
  setCrc(crc: number): void;
  setSize(size: number): void;
  setCompressedSize(size: number): void;
}

type Callback = (err: Error | null, entry?: ZipEntry) => void;

/** compress-commons's ZipArchiveOutputStream, as much of it as this replaces. */
interface ZipOutput extends NodeJS.WritableStream {
  _appendStream(entry: ZipEntry, source: NodeJS.ReadableStream, callback: Callback): void;
  _smartStream(entry: ZipEntry, callback: Callback): NodeJS.WritableStream;
  _afterAppend(entry: ZipEntry): void;
}

/**
 * Makes `archive` (archiver's zip) take parts already deflated: the entry of the name
 * passed to the function returned (before the entry is appended) gets `part` where its
 * text holds SPLICE_MARK. `level`: the deflate level of the rest of its text.
 */
export function spliceInto(archive: unknown, level: number): (name: string, part: DeflatedPart) => void {
  const zip = (archive as { _module?: { engine?: ZipOutput } })._module?.engine;
  if (!zip || typeof zip._appendStream !== 'function' || typeof zip._smartStream !== 'function' || typeof zip._afterAppend !== 'function') {
    throw new Error('the zip writer (archiver, compress-commons) has changed: payrec cannot splice a deflated sheet into it');
  }
  /** By entry name, as the zip has it: no leading slash (archiver's sanitizePath). */
  const parts = new Map<string, DeflatedPart>();
  const appendStream = zip._appendStream;
  const smartStream = zip._smartStream;
  /** The part of the entry being appended, while _appendStream asks for its stream. */
  let appending: DeflatedPart | undefined;
  zip._appendStream = function (entry, source, callback) {
    appending = parts.get(entry.getName());
    parts.delete(entry.getName());
    try {
      appendStream.call(this, entry, source, callback);
    } finally {
      appending = undefined;
    }
  };
  zip._smartStream = function (entry, callback) {
    if (!appending) return smartStream.call(this, entry, callback);
    const part = appending;
    const out = new PassThrough();
    let compressed = 0;
    out.on('data', (bytes: Buffer) => (compressed += bytes.length));
    // The entry's text before and after the part is small (a sheet's head and tail): held, then deflated.
    const held: Buffer[] = [];
    const text = new Writable({
      write(bytes: Buffer, _encoding, done) {
        held.push(bytes);
        done();
      },
      final: (done) => {
        spliced(Buffer.concat(held), part, level, out).then(
          ({ crc, size }) => {
            out.once('end', () => {
              entry.setCrc(crc);
              entry.setSize(size);
              entry.setCompressedSize(compressed);
              this._afterAppend(entry);
              callback(null, entry);
            });
            out.end();
            done();
          },
          // Said through the zip (the workbook fails), not as the stream's error, which no one listens to.
          (err: Error) => {
            done();
            callback(err);
          },
        );
      },
    });
    out.pipe(this, { end: false });
    return text;
  };
  return (name, part) => parts.set(name.replace(/^\/+/, ''), part);
}

/** Writes to `out` the deflate of `text` with `part` where its mark is; the CRC and size of the text so made. */
async function spliced(text: Buffer, part: DeflatedPart, level: number, out: PassThrough): Promise<{ crc: number; size: number }> {
  const at = text.indexOf(SPLICE_MARK);
  if (at < 0) throw new Error('a sheet to be spliced has no mark where its rows go');
  const head = text.subarray(0, at);
  const tail = text.subarray(at + SPLICE_MARK.length);
  const write = async (bytes: Buffer) => {
    if (!out.write(bytes)) await once(out, 'drain');
  };
  await write(deflateRawSync(head, { level, finishFlush: constants.Z_SYNC_FLUSH }));
  for await (const bytes of part.bytes) await write(bytes as Buffer);
  await write(deflateRawSync(tail, { level }));
  const crc = crc32Combine(crc32Combine(crc32(head), part.crc, part.size), crc32(tail), tail.length);
  return { crc, size: head.length + part.size + tail.length };
}
