import { hexId } from '../../registry/validators.js';
import { namingCollections, type MirroredCollection, type ScopeParam } from '../catalog.js';
import { layoutOf } from './layout.js';
import { ident } from './schema.js';
import { CHAIN_COLUMN } from '../fields.js';
import type { MirrorDb } from './connection.js';

// Plans need no flag: the records of a product name its plans (catalog.ts
// namingCollections), found in the tables that hold them.

/**
 * The `param` ids (plan ids) named by the mirrored records of `collection`'s product,
 * in the collections that are read whole (short urls, transfers): lower case, as ids
 * given with flags are, and only well-formed ones (the ids go into request paths).
 */
export async function discoveredScopes(db: MirrorDb, chain: string, collection: MirroredCollection, param: ScopeParam): Promise<string[]> {
  const ids = new Set<string>();
  for (const { storage } of namingCollections(collection, param).map(layoutOf)) {
    const c = ident(param);
    const rows = await db.rows(`SELECT DISTINCT lower(${c}) AS id FROM ${storage} WHERE ${ident(CHAIN_COLUMN)} = $1 AND ${c} IS NOT NULL ORDER BY id`, [chain]);
    for (const r of rows) if (hexId.safeParse(r.id).success) ids.add(String(r.id));
  }
  return [...ids];
}
