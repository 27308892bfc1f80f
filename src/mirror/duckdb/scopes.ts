import { hexId } from '../../registry/validators.js';
import type { MirroredCollection, ScopeParam } from '../catalog.js';
import { LAYOUTS } from './layout.js';
import { CHAIN_COLUMN, ident } from './schema.js';
import type { MirrorDb } from './connection.js';

// Plans need no flag: the records of a product name its plans (a fixed-recurring
// short url its plan, a variable-recurring transfer the plan it was paid under), so a
// sync that mirrored them knows which plans' billings and cancellations to read.

/**
 * The `param` ids (plan ids) named by the mirrored records of `collection`'s product,
 * in the collections that are read whole (short urls, transfers): lower case, as ids
 * given with flags are, and only well-formed ones (the ids go into request paths).
 */
export async function discoveredScopes(db: MirrorDb, chain: string, collection: MirroredCollection, param: ScopeParam): Promise<string[]> {
  const ids = new Set<string>();
  for (const { storage } of namingLayouts(collection, param)) {
    const c = ident(param);
    const rows = await db.rows(`SELECT DISTINCT lower(${c}) AS id FROM ${storage} WHERE ${ident(CHAIN_COLUMN)} = $1 AND ${c} IS NOT NULL ORDER BY id`, [chain]);
    for (const r of rows) if (hexId.safeParse(r.id).success) ids.add(String(r.id));
  }
  return [...ids];
}

/** The collections read whole whose records name `collection`'s `param` ids (fixed-recurring short urls name its plans). */
function namingLayouts(collection: MirroredCollection, param: ScopeParam) {
  return LAYOUTS.filter((l) => l.collection.product === collection.product && l.collection.whole && l.fields.some((f) => f.name === param && f.type.kind === 'text'));
}

/** Whether `collection`'s `param` ids may be found in `other`'s records (so syncing `other` first may find some). */
export function namesScopes(other: MirroredCollection, collection: MirroredCollection, param: ScopeParam): boolean {
  return namingLayouts(collection, param).some((l) => l.collection === other);
}
