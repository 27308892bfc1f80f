// A record's identity (its chain and identity fields) hashed to a 53-bit integer,
// stored with every row so that the rows of a batch's records are found by scanning
// one integer column (see upsert.ts). Two 32-bit FNV-1a hashes with different offsets,
// cut to what a double holds exactly: computed here, never by DuckDB, so the values
// never change with a DuckDB version or a platform. Equal hashes only nominate a row;
// the identity itself decides, so a collision costs a comparison, never a record.

const PRIME = 0x01000193;
const OFFSET_A = 0x811c9dc5;
const OFFSET_B = 0x050c5d1f;

function fnv1a(text: string, offset: number): number {
  let h = offset;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, PRIME);
  }
  return h >>> 0;
}

/** The identity hash of records of one chain, from their identity fields. */
export function identityHasher(chain: string, identity: readonly string[]): (record: Record<string, unknown>) => number {
  return (record) => {
    let text = chain;
    for (const f of identity) text += '\u0000' + String(record[f]);
    // 21 high bits from one hash, 32 low bits from the other: a safe integer.
    return (fnv1a(text, OFFSET_A) & 0x1fffff) * 0x100000000 + fnv1a(text, OFFSET_B);
  };
}
