import { Writable } from 'node:stream';

/** Collects what a writer writes, for --jq (jq reads the whole document once it is complete) and for output held back until a walk ends. */
export class TextSink extends Writable {
  private chunks: Buffer[] = [];
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    done();
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
  text(): string {
    return this.bytes().toString('utf8');
  }
}
