// A record's identity (its chain and identity fields) hashed to a 52-bit integer,
// stored with every row so that the rows of a batch's records are found by scanning
// one integer column (see upsert.ts). DuckDB computes it, for rows taken from page
// bytes and rows written out by payrec alike, from MD5: the same on every DuckDB
// version and platform, so a stored hash never goes stale. Equal hashes only nominate
// a row; the identity itself decides, so a collision costs a comparison, never a record.

/** The identity hash in SQL, of SQL expressions for the chain and the identity fields (never NULL). */
export function identityHashSql(chain: string, identity: readonly string[]): string {
  // 13 hex digits: 52 bits, a BIGINT that a double (and so JSON) also holds exactly.
  return `('0x' || left(md5(concat_ws(chr(31), ${[chain, ...identity].join(', ')})), 13))::BIGINT`;
}
