// How many requests may be in flight at once, and when the next one may go. The client
// asks before every request (and every retry) and reports every answer; the paginator
// reads `size` to decide how many pages to have in flight. Pure logic: no timers, no
// clock but the times of the answers it is told, so a test can drive it with a simulated
// server.
//
// `--concurrency N` fixes the size (FixedWindow). Without it the size finds the pace
// (AdaptiveWindow), as TCP's congestion control does: far from the API, where each page
// spends most of its time on the way, more pages in flight mean more pages a second;
// near it, or against a busy server, they only wait in a queue and hold memory, and a
// rate limit answers them 429.
//
// Either way a Retry-After (of a 429 or a 503) holds every request of the client, not
// only the one it answered, until it has passed.

/** One answer, as the client saw it. */
export interface Answer {
  /** When its request went out and when its answer was read, in ms on one clock. */
  sentAt: number;
  at: number;
  /** The HTTP status; 0 when no answer came (a reset connection, a timeout). */
  status: number;
  /** Its Retry-After, in ms. */
  retryAfterMs?: number;
}

export interface RequestWindow {
  /** Requests (pages) in flight at once, now. */
  readonly size: number;
  /** The most `size` can be: connections worth keeping. */
  readonly ceiling: number;
  /** No request goes out before this (the answers' clock): a Retry-After not yet over. */
  readonly notBefore: number;
  observe(answer: Answer): void;
}

/** A status that says the service is overloaded (or the answer never came): the window shrinks. */
function congested(status: number): boolean {
  return status === 429 || status === 503 || status === 0;
}

/** Until when an answer asks every request to wait. */
function pauseUntil(a: Answer): number {
  return a.retryAfterMs !== undefined && (a.status === 429 || a.status === 503) ? a.at + a.retryAfterMs : -Infinity;
}

/** `--concurrency N`: N at once, whatever the answers; Retry-After still honoured. */
export class FixedWindow implements RequestWindow {
  notBefore = -Infinity;
  constructor(readonly size: number) {}

  get ceiling(): number {
    return this.size;
  }

  observe(answer: Answer): void {
    this.notBefore = Math.max(this.notBefore, pauseUntil(answer));
  }
}

/** Where an adaptive window starts: payrec's fixed default before it adapted. */
export const START_SIZE = 4;
/** The default ceiling (`config set concurrency` lowers it): a far API is never flooded. */
export const CEILING = 16;
/**
 * A round's median latency above the least seen times QUEUE_FACTOR, and QUEUE_MS more,
 * is a queue: requests wait (at the server, or for payrec itself) instead of travelling.
 * At the start a smaller rise ends the doubling.
 */
const QUEUE_FACTOR = 2;
const START_QUEUE_FACTOR = 1.5;
const QUEUE_MS = 5;
/** An increase must show at least this share of the throughput it could add, or it is undone. */
const GAIN_SHARE = 0.5;
/** Throughput within this share of the last round's did not change (noise). */
const NOISE = 0.05;
/** Rounds the window keeps its size after an increase that brought nothing, or a decrease, before it tries again. */
const REST_ROUNDS = 4;
/** Rounds without a 429 after which the size that met the last one may be tried again. */
const LIMIT_ROUNDS = 16;
/**
 * After a queue, the window keeps this many times what the throughput needs at the least
 * latency, and two pages at least: one on its way while payrec works on the other.
 */
const HEADROOM = 2;
const QUEUE_FLOOR = 2;

/** A round: a round trip (until the answer to a request sent after it began), and a window's worth of answers at least. */
interface Round {
  /** When it began (the end of the last round), and the window's size then. */
  start: number;
  size: number;
  answers: number;
  latencies: number[];
}

/**
 * Additive increase, multiplicative decrease, in rounds of a round trip. At the start
 * each clean answer adds one (the window doubles each round trip, as TCP's slow start)
 * until latency rises. Then an increase by one is tried: kept when throughput rose with
 * it (judged a round later, when the answers are those of the larger window), undone
 * otherwise and tried again REST_ROUNDS later. The window halves at once on a 429, a
 * 503 or an answer that never came (once for the requests already in flight), and when
 * a round's latency has risen to a queue with no more throughput: then to no less than
 * HEADROOM times what the throughput needs at the least latency seen (the
 * bandwidth-delay product), because payrec's own work on a page also delays the answers
 * it has not read yet, and that queue is no reason to starve the pipe.
 */
export class AdaptiveWindow implements RequestWindow {
  notBefore = -Infinity;
  private w: number;
  private starting = true;
  private least = Infinity;
  private round?: Round;
  /** The last round's throughput (answers per ms); undefined after a halving. */
  private last?: number;
  /** An increase being tried: the size and throughput before it, and whether the round that shows it has come. */
  private trying?: { from: number; before: number; shown: boolean };
  private rest = 0;
  private halvedAt = -Infinity;
  /**
   * Below the size that met the last 429: a rate limit seldom moves, and an increase would
   * only meet it again. Raised by one after LIMIT_ROUNDS rounds without one.
   */
  private limit: number;
  private calm = 0;

  constructor(
    readonly ceiling = CEILING,
    start = START_SIZE,
  ) {
    this.w = Math.min(start, ceiling);
    this.limit = ceiling;
  }

  get size(): number {
    return Math.max(1, Math.min(this.limit, Math.floor(this.w)));
  }

  observe(a: Answer): void {
    this.notBefore = Math.max(this.notBefore, pauseUntil(a));
    if (congested(a.status)) {
      if (a.sentAt < this.halvedAt) return;
      const size = this.size;
      if (a.status === 429) {
        this.limit = Math.max(1, size - 1);
        this.calm = 0;
      }
      this.halve(size / 2, a.at);
      return;
    }
    // Another error (a 404, a 500) says nothing of the pace; nor does an answer that
    // arrives while a Retry-After holds the others back.
    if (a.status >= 300 || a.at < this.notBefore) return;
    const latency = a.at - a.sentAt;
    this.least = Math.min(this.least, latency);
    if (this.starting) this.w = Math.min(this.limit, this.w + 1);
    const r = this.round;
    if (r === undefined) {
      this.round = { start: a.at, size: this.size, answers: 0, latencies: [] };
      return;
    }
    r.answers++;
    r.latencies.push(latency);
    // Answers come in bursts: a round shorter than a round trip, or than a window of answers, would show a throughput no window gives.
    if (a.sentAt >= r.start && r.answers >= r.size) {
      this.round = { start: a.at, size: this.size, answers: 0, latencies: [] };
      this.endRound(r, a.at);
      if (this.round) this.round.size = this.size;
    }
  }

  private endRound(r: Round, end: number): void {
    const throughput = r.answers / Math.max(end - r.start, 1);
    const last = this.last;
    this.last = throughput;
    const latency = median(r.latencies);
    if (++this.calm >= LIMIT_ROUNDS && this.limit < this.ceiling) {
      this.limit++;
      this.calm = 0;
    }
    const queued = (factor: number) => latency > factor * this.least && latency - this.least > QUEUE_MS;
    if (this.starting) {
      if (queued(START_QUEUE_FACTOR)) this.starting = false;
      return;
    }
    const tried = this.trying;
    if (tried) {
      // The round after an increase still answers requests sent before it: the next one shows it.
      if (!tried.shown) return void (tried.shown = true);
      this.trying = undefined;
      const could = this.size / tried.from - 1;
      if (throughput >= tried.before * (1 + GAIN_SHARE * could)) return this.grow(throughput);
      this.w = tried.from;
      this.rest = REST_ROUNDS;
      return;
    }
    if (queued(QUEUE_FACTOR) && last !== undefined && throughput < last * (1 + NOISE)) return this.halve(Math.max(this.size / 2, HEADROOM * throughput * this.least, QUEUE_FLOOR), end);
    // The first round after a halving only measures.
    if (last === undefined) return;
    if (this.rest > 0) this.rest--;
    else this.grow(throughput);
  }

  private grow(throughput: number): void {
    if (this.size >= this.limit) return;
    this.trying = { from: this.size, before: throughput, shown: false };
    this.w = this.size + 1;
  }

  private halve(to: number, at: number): void {
    this.w = Math.max(1, Math.min(this.size, to));
    this.starting = false;
    this.trying = undefined;
    this.rest = REST_ROUNDS;
    this.halvedAt = at;
    this.round = undefined;
    this.last = undefined;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
