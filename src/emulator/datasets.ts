import { endpoints } from '../registry/endpoints.js';
import { collectionSpecs } from './generate.js';
import { Random } from './prng.js';
import { RecordStore, type StoredRecord } from './store.js';
import { World, type WorldOptions } from './world.js';

// Every (chain, collection) store, built lazily on first access: a million records per
// collection costs nothing until a request touches that collection.

const YEAR = 365 * 86400;
/** Share of records that reuse the previous record's second, so tie-breaks are exercised. */
const COLLISION_RATE = 0.05;

/** Fields each collection is matched on: path parameters and filters of its registry entries. */
function keyFieldsOf(collection: string): Set<string> {
  const fields = new Set<string>();
  for (const e of endpoints) {
    if (e.collection !== collection) continue;
    for (const p of e.params) fields.add(p.name);
    for (const f of e.filters) fields.add(f.field ?? f.name);
  }
  if (collectionSpecs[collection]?.owned) fields.add('owner');
  return fields;
}

export class Datasets {
  private readonly worlds = new Map<string, World>();
  private readonly stores = new Map<string, RecordStore>();
  /** Records appended after generation, per store: their index continues after `records`. */
  private readonly appended = new Map<string, number>();

  constructor(readonly options: WorldOptions) {}

  world(chain: string): World {
    let world = this.worlds.get(chain);
    if (!world) {
      world = new World(chain, this.options);
      this.worlds.set(chain, world);
    }
    return world;
  }

  isOwned(collection: string): boolean {
    return collectionSpecs[collection]?.owned === true;
  }

  store(chain: string, collection: string): RecordStore {
    const key = `${chain}\u0000${collection}`;
    let store = this.stores.get(key);
    if (!store) {
      store = this.build(chain, collection);
      this.stores.set(key, store);
    }
    return store;
  }

  /** Generates `count` more records stamped `timestamp`; returns the new size. */
  append(chain: string, collection: string, count: number, timestamp: number): number {
    const spec = collectionSpecs[collection];
    if (!spec?.generate) throw new Error(`collection ${collection} has no generator`);
    const store = this.store(chain, collection);
    const world = this.world(chain);
    const key = `${chain}\u0000${collection}`;
    let next = this.options.records + (this.appended.get(key) ?? 0);
    for (let i = 0; i < count; i++, next++) {
      const r = new Random(world.recordSeed(collection, next));
      const { record, internal } = spec.generate({ world, r, index: next, timestamp });
      store.insert({ timestamp, record, internal });
    }
    this.appended.set(key, next - this.options.records);
    return store.size;
  }

  canAppend(collection: string): boolean {
    return collectionSpecs[collection]?.generate !== undefined;
  }

  private build(chain: string, collection: string): RecordStore {
    const store = new RecordStore(keyFieldsOf(collection));
    const spec = collectionSpecs[collection];
    const world = this.world(chain);
    if (spec?.initial) {
      const initial: StoredRecord[] = spec.initial(world);
      for (const entry of [...initial].sort((a, b) => a.timestamp - b.timestamp)) store.insert(entry);
    }
    if (spec?.generate) {
      const timestamps = this.timestamps(world, collection);
      for (let index = 0; index < timestamps.length; index++) {
        const timestamp = timestamps[index];
        const r = new Random(world.recordSeed(collection, index));
        const { record, internal } = spec.generate({ world, r, index, timestamp });
        store.insert({ timestamp, record, internal });
      }
    }
    return store;
  }

  /** `records` sorted timestamps in the year before `now`, some of them equal. */
  private timestamps(world: World, collection: string): Uint32Array {
    const { records, now } = this.options;
    const r = new Random(world.collectionSeed(collection));
    const out = new Uint32Array(records);
    for (let i = 0; i < records; i++) out[i] = now - YEAR + Math.floor(r.float() * YEAR);
    out.sort();
    for (let i = 1; i < records; i++) if (r.chance(COLLISION_RATE)) out[i] = out[i - 1];
    return out;
  }
}
