import { endpoints } from '../registry/endpoints.js';
import { collectionSpecs } from './generate.js';
import { Random } from './prng.js';
import { RecordStore, type StoredRecord } from './store.js';
import { World, type WorldOptions } from './world.js';
import { BOUNDARY_MIN_RECORDS, boundaryTimestamps } from './boundaries.js';

// Every (chain, collection) store, built lazily on first access: a million records per
// collection costs nothing until a request touches that collection. Records added later
// (live traffic, POST /_emulator/records, short url creates, notifications) go through
// insert(): each takes the next value of one counter (`seq`), its arrival. For a store
// not built yet they wait in a backlog, applied in order when it is built, so adding
// records never forces a build and the API and the ground truth always agree.

const YEAR = 365 * 86400;
/** Share of records that reuse the previous record's second, so tie-breaks are exercised. */
const COLLISION_RATE = 0.05;

/** Whether records can be added to a collection after start (live traffic, POST /_emulator/records). */
export function canGenerate(collection: string): boolean {
  const spec = collectionSpecs[collection];
  return spec?.more !== undefined || spec?.generate !== undefined;
}

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

interface Arrival {
  entry: StoredRecord;
  arrival: number;
}

const keyOf = (chain: string, collection: string) => `${chain}\u0000${collection}`;

/** Told where records are, so a view kept beside the stores (the emulator's chain) stays in step. */
export interface DatasetsWatcher {
  /** A store was built: its starting records and any waiting ones are in it. */
  built?(chain: string, collection: string, store: RecordStore): void;
  /** A record was inserted or moved after start: it now lies at `entry.timestamp`. */
  placed?(chain: string, collection: string, entry: StoredRecord): void;
}

export class Datasets {
  private readonly worlds = new Map<string, World>();
  private readonly stores = new Map<string, RecordStore>();
  /** Records generated after start, per store: their index continues after `records`. */
  private readonly appended = new Map<string, number>();
  /** Records inserted into stores that are not built yet, in arrival order. */
  private readonly backlogs = new Map<string, Arrival[]>();
  private counter = 0;
  private readonly watchers: DatasetsWatcher[] = [];

  constructor(readonly options: WorldOptions) {}

  watch(watcher: DatasetsWatcher): void {
    this.watchers.push(watcher);
  }

  /** Insertions since start, every store together. */
  get seq(): number {
    return this.counter;
  }

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
    const key = keyOf(chain, collection);
    let store = this.stores.get(key);
    if (!store) {
      store = this.build(chain, collection);
      this.stores.set(key, store);
      for (const { entry, arrival } of this.backlogs.get(key) ?? []) store.insert(entry, arrival);
      this.backlogs.delete(key);
      for (const w of this.watchers) w.built?.(chain, collection, store);
    }
    return store;
  }

  /** A store if it is built already (undefined otherwise: nothing is built by asking). */
  peek(chain: string, collection: string): RecordStore | undefined {
    return this.stores.get(keyOf(chain, collection));
  }

  /** Adds a record after start; returns its arrival (the counter's new value). */
  insert(chain: string, collection: string, entry: StoredRecord): number {
    const arrival = ++this.counter;
    const key = keyOf(chain, collection);
    const store = this.stores.get(key);
    if (store) store.insert(entry, arrival);
    else {
      const backlog = this.backlogs.get(key) ?? [];
      backlog.push({ entry, arrival });
      this.backlogs.set(key, backlog);
    }
    for (const w of this.watchers) w.placed?.(chain, collection, entry);
    return arrival;
  }

  /** Replaces the record that arrived at `arrival` (same timestamp: the sort key never changes). */
  update(chain: string, collection: string, arrival: number, entry: StoredRecord): void {
    const key = keyOf(chain, collection);
    const store = this.stores.get(key);
    if (store) {
      const pos = store.positionOf(entry.timestamp, arrival);
      if (pos < 0) throw new Error(`no record of ${collection} on ${chain} arrived at ${arrival}`);
      store.replace(pos, entry);
      return;
    }
    const backlog = this.backlogs.get(key) ?? [];
    const at = sortedIndex(backlog, arrival);
    if (backlog[at]?.arrival !== arrival) throw new Error(`no record of ${collection} on ${chain} arrived at ${arrival}`);
    backlog[at] = { entry, arrival };
  }

  /** Removes the record that arrived at `arrival` (a transaction dropped from the chain); false when it is gone already. */
  remove(chain: string, collection: string, arrival: number, timestamp: number): boolean {
    const store = this.store(chain, collection);
    const pos = store.positionOf(timestamp, arrival);
    if (pos < 0) return false;
    store.remove(pos);
    this.counter++;
    return true;
  }

  /**
   * Moves the record that arrived at `arrival` to another second (its timestamp
   * corrected): it keeps its identity and lands after the records of its new second, as
   * if it arrived now. Returns its new arrival (-1 when it is gone); `entry` is changed
   * in place.
   */
  move(chain: string, collection: string, arrival: number, entry: StoredRecord, timestamp: number): number {
    const store = this.store(chain, collection);
    const pos = store.positionOf(entry.timestamp, arrival);
    if (pos < 0) return -1;
    store.remove(pos);
    entry.timestamp = timestamp;
    const record = entry.record as { timestamp?: number; createdAt?: number };
    if ('timestamp' in record) record.timestamp = timestamp;
    else if ('createdAt' in record) record.createdAt = timestamp;
    const moved = ++this.counter;
    store.insert(entry, moved);
    for (const w of this.watchers) w.placed?.(chain, collection, entry);
    return moved;
  }

  /** A new record from the collection's generator: its index continues after the existing ones. */
  generate(chain: string, collection: string, timestamp: number): StoredRecord {
    const spec = collectionSpecs[collection];
    const generate = spec?.more ?? spec?.generate;
    if (!generate) throw new Error(`collection ${collection} has no generator`);
    const key = keyOf(chain, collection);
    const world = this.world(chain);
    const index = this.options.records + (this.appended.get(key) ?? 0);
    this.appended.set(key, index - this.options.records + 1);
    const { record, internal } = generate({ world, r: new Random(world.recordSeed(collection, index)), index, timestamp });
    return { timestamp, record, internal };
  }

  /** Generates `count` more records stamped `timestamp`; returns the new size. */
  append(chain: string, collection: string, count: number, timestamp: number): number {
    for (let i = 0; i < count; i++) this.insert(chain, collection, this.generate(chain, collection, timestamp));
    return this.store(chain, collection).size;
  }

  /** Every record of a store as the API would serve it now (building it if needed), with the counter. */
  snapshot(chain: string, collection: string): { seq: number; bodies: string[]; arrivals: number[] } {
    return { seq: this.counter, ...this.store(chain, collection).snapshot() };
  }

  canAppend(collection: string): boolean {
    return canGenerate(collection);
  }

  private build(chain: string, collection: string): RecordStore {
    const store = new RecordStore(keyFieldsOf(collection));
    const spec = collectionSpecs[collection];
    const world = this.world(chain);
    if (spec?.initial) {
      const initial: StoredRecord[] = spec.initial(world);
      for (const entry of [...initial].sort((a, b) => a.timestamp - b.timestamp)) store.insert(entry);
    }
    if (spec?.whole) for (const entry of spec.whole(world)) store.insert(entry);
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
    if (records >= BOUNDARY_MIN_RECORDS) placeOnBoundaries(out, boundaryTimestamps(now - YEAR, now));
    return out.sort();
  }
}

/**
 * Moves, for each mark, the record stamped nearest after it (or the nearest one not
 * yet moved) onto the mark: the set stays as random elsewhere, the count as it was.
 */
function placeOnBoundaries(sorted: Uint32Array, marks: number[]): void {
  const moved = new Set<number>();
  for (const mark of marks) {
    let at = lowerBound(sorted, mark);
    for (let step = 1; moved.has(at) || at >= sorted.length; step++) at += step % 2 ? -step : step;
    if (at < 0) continue;
    moved.add(at);
    sorted[at] = mark;
  }
}

function lowerBound(sorted: Uint32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index of a backlog (ascending arrivals) whose arrival is >= `arrival`. */
function sortedIndex(backlog: Arrival[], arrival: number): number {
  let lo = 0;
  let hi = backlog.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (backlog[mid].arrival < arrival) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
