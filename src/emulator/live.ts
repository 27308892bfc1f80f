import { canGenerate, type Datasets } from './datasets.js';
import { DueQueue } from './due-queue.js';
import { collectionSpecs } from './generate.js';
import { LIVE_DEFAULTS, checkLiveOptions, type LiveOptions, type LiveStatus } from './live-options.js';
import { Random, mixSeed } from './prng.js';
import type { StoredRecord } from './store.js';
import { KNOWN_CHAINS } from '../registry/validators.js';

// Live traffic (DESIGN.md "Live traffic"): records keep arriving, some late (stamped in
// the past, as when a block is indexed after it was mined, so they land in the middle of
// a collection and shift every later offset), some pending until they resolve to
// confirmed or failed a few seconds later. Every choice comes from one seeded stream,
// drawn when a record is inserted: two emulators with the same seed and options insert
// the same records in the same order; only the wall-clock timestamps differ. Except
// which subscription a fixed-recurring billing or cancellation joins: that depends on
// the subscriptions' states at its timestamp (lifecycles.ts), so two emulators agree
// there while their clocks agree to the second (and always at timestamps given, as
// POST /_emulator/records takes them).

/** How often the timer runs; each run inserts what the rate owes by then, so jitter does not matter. */
const TICK_MS = 10;
/**
 * Most time one run may spend inserting, so requests are still answered when the machine
 * cannot keep up with the rate (without it, each run would owe more than the last).
 */
const TICK_BUDGET_MS = 20;
/** How far a run may fall behind its rate; beyond that records are skipped, not inserted in a burst later. */
const MAX_DEBT_SECONDS = 1;
const RESOLVE_MIN_MS = 1000;
const RESOLVE_MAX_MS = 5000;
const CONFIRMED_SHARE = 0.85;

/** Collections live traffic can add to: those with a generator. */
export const LIVE_COLLECTIONS = Object.keys(collectionSpecs).filter(canGenerate);

/** A record live traffic added: where it is, so it can be resolved, removed or moved later. */
interface LiveRecord {
  chain: string;
  collection: string;
  /** Its arrival now (a move gives it a new one). */
  arrival: number;
  entry: StoredRecord;
  gone: boolean;
}

interface PendingRecord {
  live: LiveRecord;
  final: 'confirmed' | 'failed';
}

/** How many of the latest live records a removal or a move picks from. */
const RECENT = 10_000;

export class LiveTraffic {
  private config: Required<LiveOptions> = { rate: 0, ...LIVE_DEFAULTS, chains: [...KNOWN_CHAINS], collections: [...LIVE_COLLECTIONS] };
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly random: Random;
  private readonly pending = new DueQueue<PendingRecord>();
  private inserted = 0;
  private removed = 0;
  private moved = 0;
  /** The latest live records, oldest first (at most RECENT): what removals and moves pick from. */
  private recent: LiveRecord[] = [];
  /** Start of the current run and how many records it has dealt with (inserted, or skipped when overloaded). */
  private runStartMs = 0;
  private runDone = 0;
  private waiters: { resolve: () => void; reject: (err: Error) => void }[] = [];

  constructor(
    private readonly datasets: Datasets,
    seed: number,
  ) {
    this.random = new Random(mixSeed(seed, 0x11fe));
  }

  /** (Re)configures and starts; throws InvalidLiveOptions naming a bad field. */
  start(options: LiveOptions): void {
    this.config = checkLiveOptions(options, LIVE_COLLECTIONS);
    this.running = true;
    this.runStartMs = Date.now();
    this.runDone = 0;
    this.timer ??= setInterval(() => this.tick(), TICK_MS).unref();
  }

  /** Stops inserting; records still pending keep resolving. */
  stop(): void {
    this.running = false;
    this.idleCheck();
  }

  status(): LiveStatus {
    return { running: this.running, ...this.config, inserted: this.inserted, pending: this.pending.size, removed: this.removed, moved: this.moved, seq: this.datasets.seq };
  }

  /** Resolves once traffic is stopped and no record is pending any more. */
  settle(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.idleCheck();
    });
  }

  /** Stops everything at once (the emulator is closing): pending records stay pending. */
  close(): void {
    this.running = false;
    this.pending.clear();
    clearInterval(this.timer);
    this.timer = undefined;
    for (const w of this.waiters.splice(0)) w.reject(new Error('the emulator closed before live traffic settled'));
  }

  private tick(): void {
    const now = Date.now();
    const deadline = performance.now() + TICK_BUDGET_MS;
    // Resolutions first: they are older work. What does not fit resolves at the next run.
    for (let p = this.pending.popDue(now); p !== undefined; p = performance.now() > deadline ? undefined : this.pending.popDue(now)) {
      if (p.live.gone) continue;
      setStatus(p.live.entry.record, p.final);
      this.datasets.update(p.live.chain, p.live.collection, p.live.arrival, p.live.entry);
    }
    if (this.running) {
      const { rate } = this.config;
      const owed = Math.floor((rate * (now - this.runStartMs)) / 1000) - this.runDone;
      const skipped = Math.max(0, owed - Math.ceil(rate * MAX_DEBT_SECONDS));
      this.runDone += skipped;
      // Checked after every record: one landing in the middle of 300,000 costs milliseconds (it moves the rest).
      for (let i = 0; i < owed - skipped && performance.now() <= deadline; i++) {
        this.event(now);
        this.runDone++;
      }
    }
    this.idleCheck();
  }

  /** One event: most add a record; with removeFraction and moveFraction, some remove or move a recent one instead. */
  private event(nowMs: number): void {
    const { random: r, config: c } = this;
    // No draw without removals or moves: the stream (and the records) stay as they were.
    const draw = c.removeFraction + c.moveFraction > 0 ? r.float() : 1;
    if (draw < c.removeFraction) this.removeOne(nowMs);
    else if (draw < c.removeFraction + c.moveFraction) this.moveOne(nowMs);
    else this.insertOne(nowMs);
  }

  /** A live record stamped within the last lateMaxSeconds, still there; undefined when there is none. */
  private pickRecent(nowMs: number): LiveRecord | undefined {
    const since = Math.floor(nowMs / 1000) - this.config.lateMaxSeconds;
    const candidates = this.recent.filter((x) => !x.gone && x.entry.timestamp >= since);
    return candidates.length === 0 ? undefined : this.random.pick(candidates);
  }

  private removeOne(nowMs: number): void {
    const live = this.pickRecent(nowMs);
    if (!live || !this.datasets.remove(live.chain, live.collection, live.arrival, live.entry.timestamp)) return;
    live.gone = true;
    this.removed++;
  }

  private moveOne(nowMs: number): void {
    const live = this.pickRecent(nowMs);
    if (!live) return;
    const now = Math.floor(nowMs / 1000);
    const max = this.config.lateMaxSeconds;
    // Earlier or later by 1..max seconds, never after now.
    const by = this.random.int(1, max) * (this.random.chance(0.5) ? -1 : 1);
    const to = Math.min(now, Math.max(0, live.entry.timestamp + by));
    if (to === live.entry.timestamp) return;
    const arrival = this.datasets.move(live.chain, live.collection, live.arrival, live.entry, to);
    if (arrival < 0) return;
    live.arrival = arrival;
    this.moved++;
  }

  private insertOne(nowMs: number): void {
    const { random: r, config: c } = this;
    const chain = r.pick(c.chains);
    const collection = r.pick(c.collections);
    const lateBy = r.chance(c.lateFraction) ? r.int(1, c.lateMaxSeconds) : 0;
    const pending = r.chance(c.pendingFraction);
    const entry = this.datasets.generate(chain, collection, Math.floor(nowMs / 1000) - lateBy);
    setStatus(entry.record, pending ? 'pending' : 'confirmed');
    const arrival = this.datasets.insert(chain, collection, entry);
    const live: LiveRecord = { chain, collection, arrival, entry, gone: false };
    this.recent.push(live);
    if (this.recent.length > 2 * RECENT) this.recent = this.recent.slice(-RECENT);
    if (pending) {
      const due = nowMs + r.int(RESOLVE_MIN_MS, RESOLVE_MAX_MS);
      this.pending.push(due, { live, final: r.chance(CONFIRMED_SHARE) ? 'confirmed' : 'failed' });
    }
    this.inserted++;
  }

  /** With nothing left to do, the timer stops and settle() resolves. */
  private idleCheck(): void {
    if (this.running || this.pending.size > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
    for (const w of this.waiters.splice(0)) w.resolve();
  }
}

/** A record's status: its own transactionStatus, or each receiver's (wallet-to-wallet payments have none of their own). */
function setStatus(record: object, status: string): void {
  const r = record as { transactionStatus?: string; receivers?: { transactionStatus?: string }[] };
  if ('transactionStatus' in r) r.transactionStatus = status;
  else for (const receiver of r.receivers ?? []) receiver.transactionStatus = status;
}
