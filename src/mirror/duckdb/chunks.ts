import bindings from '@duckdb/node-bindings';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { DuckDBDataChunk } from './node-api.js';

// Reading a million rows of DuckDB without a JS value per row: a chunk's DOUBLE and
// INTEGER columns are read as the typed arrays DuckDB filled (its C API's vector data,
// through the binding), which a reader copies numbers out of. A NULL's slot in them
// holds anything: read a row there only where the query guarantees a value.

type View<T> = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => T;

function column<T>(chunk: DuckDBDataChunk, index: number, type: bindings.Type, View: View<T> & { BYTES_PER_ELEMENT: number }): T {
  const vector = bindings.data_chunk_get_vector(chunk.chunk, index);
  const actual = bindings.get_type_id(bindings.vector_get_column_type(vector));
  if (actual !== type) throw new Error(`column ${index} is of DuckDB type ${bindings.Type[actual]}, not ${bindings.Type[type]}`);
  const rows = chunk.rowCount;
  const data = bindings.vector_get_data(vector, rows * View.BYTES_PER_ELEMENT);
  return new View(data.buffer, data.byteOffset, rows);
}

/** A column of DOUBLEs. */
export function doubles(chunk: DuckDBDataChunk, index: number): Float64Array {
  return column(chunk, index, bindings.Type.DOUBLE, Float64Array);
}

/** A column of INTEGERs. */
export function integers(chunk: DuckDBDataChunk, index: number): Int32Array {
  return column(chunk, index, bindings.Type.INTEGER, Int32Array);
}

/**
 * Rows read between two releaseChunks. A chunk is 2,048 rows: eight of them (0.5–1 MB
 * of DuckDB's memory for the billings) wait at most.
 */
export const RELEASE_EVERY = 16_384;

let collectYoung: ((options: { type: 'minor' }) => void) | undefined;

/**
 * Frees the chunks already read. DuckDB's memory of a chunk is freed only when V8
 * collects the chunk's JS wrapper, and V8 does not know how large that memory is: a
 * reader that copies numbers out of the chunks makes so little garbage that no
 * collection came during a whole read, and the chunks of 1,000,000 billings (40–70 MB
 * of peak RSS) were all still held at its end. A minor collection (the young generation,
 * where the wrappers of chunks just read are) takes about 1 ms. V8's gc() is exposed
 * for this process on first use; it is given to no script.
 */
export function releaseChunks(): void {
  if (!collectYoung) {
    setFlagsFromString('--expose-gc');
    collectYoung = runInNewContext('gc') as typeof collectYoung;
  }
  collectYoung!({ type: 'minor' });
}
