import { describe, expect, test } from 'vitest';
import { AdaptiveWindow, CEILING, FixedWindow, START_SIZE, type Answer, type RequestWindow } from '../../src/core/http/request-window.js';

// The request window as pure logic, driven by a simulated export on a simulated clock:
// a server at some distance that serves one page at a time (and may rate-limit), and a
// client with one thread that reads pages in order and does its own work on each, as
// payrec's paginator and client do. No real time passes.

interface Net {
  /** Round trip on the wire, ms. */
  latency: number;
  /** The server's time per page, ms, one page at a time. */
  serve: number;
  /** The client's own time per page (parse, write), ms, on its one thread. */
  work: number;
  /** A token bucket of this many requests a second (and as many at once): 429 with Retry-After beyond. */
  rate?: number;
  retryAfterMs?: number;
  /** A share of answers that are 429 whatever the pace (drawn from a seeded sequence). */
  faults?: number;
  /** Mean of a random extra delay on each trip (exponential, seeded): a route or a machine that is not quiet. */
  jitter?: number;
  /** Mean of a random extra time on the client's work on each page (exponential, seeded): other processes, GC. */
  stall?: number;
}

interface Run {
  /** When the last page was written. */
  ms: number;
  /** 429s answered. */
  tooMany: number;
  /** The most requests in flight at once. */
  mostInFlight: number;
  /** The window's size after each answer, and each answer's status. */
  sizes: number[];
  statuses: number[];
  /** Each 429 that shrank the window (not one of those already in flight): its size then, and the answer's place in `sizes`. */
  limited: { size: number; at: number }[];
}

type Event = { t: number; kind: 'server'; page: number; sentAt: number } | { t: number; kind: 'answer'; page: number; sentAt: number; status: number } | { t: number; kind: 'wake' };

function simulate(window: RequestWindow, net: Net, pages: number): Run {
  const events: Event[] = [];
  const push = (e: Event) => {
    let i = events.length;
    while (i > 0 && events[i - 1].t > e.t) i--;
    events.splice(i, 0, e);
  };
  let clientFree = 0;
  let serverFree = 0;
  let tokens = net.rate ?? 0;
  let tokensAt = 0;
  let launched = 0;
  let consumed = 0;
  let inFlight = 0;
  let waking = false;
  const done = new Set<number>();
  const retries: number[] = [];
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
  let delaySeed = 11;
  /** An exponential delay of this mean, from its own seeded sequence (the faults' draws stay as they were). */
  const delay = (mean = 0) => (mean === 0 ? 0 : -mean * Math.log(1 - ((delaySeed = (delaySeed * 16807) % 2147483647) - 1) / 2147483646));
  const run: Run = { ms: 0, tooMany: 0, mostInFlight: 0, sizes: [], statuses: [], limited: [] };

  const send = (at: number) => {
    for (;;) {
      // The paginator launches a page while it holds fewer than the window (in flight or waiting to be written).
      if (retries.length === 0 && launched < pages && launched - consumed < window.size) retries.push(launched++);
      if (retries.length === 0 || inFlight >= window.size) return;
      if (at < window.notBefore) {
        if (!waking) push({ t: window.notBefore, kind: 'wake' });
        waking = true;
        return;
      }
      const page = retries.shift()!;
      inFlight++;
      run.mostInFlight = Math.max(run.mostInFlight, inFlight);
      push({ t: at + net.latency / 2 + delay(net.jitter), kind: 'server', page, sentAt: at });
    }
  };

  send(0);
  while (events.length > 0) {
    const e = events.shift()!;
    if (e.kind === 'server') {
      if (net.rate !== undefined) {
        tokens = Math.min(net.rate, tokens + ((e.t - tokensAt) * net.rate) / 1000);
        tokensAt = e.t;
      }
      const limited = (net.rate !== undefined && tokens < 1) || (net.faults !== undefined && random() < net.faults);
      if (!limited && net.rate !== undefined) tokens -= 1;
      const start = Math.max(e.t, serverFree);
      serverFree = start + (limited ? 0.01 : net.serve);
      push({ t: serverFree + net.latency / 2, kind: 'answer', page: e.page, sentAt: e.sentAt, status: limited ? 429 : 200 });
      continue;
    }
    const at = Math.max(e.t, clientFree);
    clientFree = at;
    if (e.kind === 'wake') waking = false;
    if (e.kind === 'answer') {
      inFlight--;
      const answer: Answer = { sentAt: e.sentAt, at, status: e.status, retryAfterMs: e.status === 429 ? (net.retryAfterMs ?? 1000) : undefined };
      const before = window.size;
      window.observe(answer);
      if (e.status === 429 && window.size < before) run.limited.push({ size: before, at: run.sizes.length });
      run.sizes.push(window.size);
      run.statuses.push(e.status);
      if (e.status === 429) {
        run.tooMany++;
        retries.unshift(e.page);
      } else done.add(e.page);
      // Pages are written in order, each costing the client's thread its work.
      while (done.has(consumed)) {
        done.delete(consumed++);
        clientFree += net.work + delay(net.stall);
      }
      if (consumed === pages) run.ms = clientFree;
    }
    send(clientFree);
  }
  expect(consumed).toBe(pages);
  return run;
}

const adaptive = () => new AdaptiveWindow();

/** `rounds` round trips of `rtt` ms from `t`, each a full window of answers sent at its start and answered at its end (a far, unlimited API); returns when they end. */
function clean(w: RequestWindow, t: number, rtt: number, rounds: number): number {
  for (let i = 0; i < rounds; i++, t += rtt) for (let n = w.size; n > 0; n--) w.observe({ sentAt: t, at: t + rtt, status: 200 });
  return t;
}
const FIXED = [1, 2, 4, 8, 16];
const best = (net: Net, pages: number) => Math.min(...FIXED.map((n) => simulate(new FixedWindow(n), net, pages).ms));

describe('FixedWindow', () => {
  test('keeps its size whatever the answers say', () => {
    const w = new FixedWindow(8);
    w.observe({ sentAt: 0, at: 5, status: 429, retryAfterMs: 1000 });
    w.observe({ sentAt: 0, at: 900, status: 200 });
    expect(w.size).toBe(8);
    expect(w.ceiling).toBe(8);
  });

  test('never has more requests in flight than its size', () => {
    for (const n of [1, 3, 16]) expect(simulate(new FixedWindow(n), { latency: 150, serve: 1, work: 1 }, 200).mostInFlight).toBe(n);
  });

  test('holds every request until a Retry-After has passed, a 503 as a 429; other statuses do not', () => {
    const w = new FixedWindow(4);
    w.observe({ sentAt: 0, at: 100, status: 429, retryAfterMs: 2000 });
    expect(w.notBefore).toBe(2100);
    w.observe({ sentAt: 0, at: 200, status: 503, retryAfterMs: 3000 });
    expect(w.notBefore).toBe(3200);
    // An earlier end never shortens the pause; a 500's Retry-After is no pause.
    w.observe({ sentAt: 0, at: 300, status: 429, retryAfterMs: 1000 });
    w.observe({ sentAt: 0, at: 400, status: 500, retryAfterMs: 9000 });
    expect(w.notBefore).toBe(3200);
  });
});

describe('AdaptiveWindow', () => {
  test(`starts at ${START_SIZE}, below its ceiling`, () => {
    expect(new AdaptiveWindow().size).toBe(START_SIZE);
    expect(new AdaptiveWindow(2).size).toBe(2);
    expect(new AdaptiveWindow().ceiling).toBe(CEILING);
  });

  test('halves at once on a 429, a 503 or an answer that never came, once for the requests already in flight', () => {
    const w = new AdaptiveWindow(16, 16);
    w.observe({ sentAt: 0, at: 10, status: 200 });
    w.observe({ sentAt: 5, at: 20, status: 429, retryAfterMs: 1000 });
    expect(w.size).toBe(8);
    expect(w.notBefore).toBe(1020);
    // The other requests sent before the halving, answered 429 too: no further halving.
    w.observe({ sentAt: 6, at: 21, status: 429, retryAfterMs: 1000 });
    w.observe({ sentAt: 19, at: 22, status: 503 });
    expect(w.size).toBe(8);
    // A request sent after it, answered 503, halves again; a reset (status 0) too.
    w.observe({ sentAt: 1100, at: 1150, status: 503 });
    expect(w.size).toBe(4);
    w.observe({ sentAt: 1200, at: 1300, status: 0 });
    expect(w.size).toBe(2);
    w.observe({ sentAt: 1400, at: 1500, status: 0 });
    w.observe({ sentAt: 1600, at: 1700, status: 0 });
    expect(w.size).toBe(1);
  });

  test('a 404 or a 500 says nothing of the pace', () => {
    const w = new AdaptiveWindow();
    for (let i = 0; i < 100; i++) w.observe({ sentAt: i * 10, at: i * 10 + 5, status: i % 2 ? 404 : 500 });
    expect(w.size).toBe(START_SIZE);
  });

  test('far from the API (150 ms) it grows to the ceiling and is as fast as 16 at once', () => {
    const net = { latency: 150, serve: 0.5, work: 2 };
    const run = simulate(adaptive(), net, 300);
    expect(Math.max(...run.sizes)).toBe(CEILING);
    expect(run.sizes.at(-1)).toBe(CEILING);
    expect(run.ms).toBeLessThanOrEqual(1.1 * simulate(new FixedWindow(16), net, 300).ms);
  });

  test('stays under a lower ceiling (config set concurrency)', () => {
    const run = simulate(new AdaptiveWindow(6), { latency: 150, serve: 0.5, work: 2 }, 300);
    expect(run.mostInFlight).toBe(6);
  });

  test.each([
    ['near, the client the slower (0.5 ms)', { latency: 0.5, serve: 3, work: 6 }],
    ['near, the server the slower', { latency: 0.5, serve: 6, work: 3 }],
    ['20 ms away', { latency: 20, serve: 3, work: 6 }],
    ['60 ms away', { latency: 60, serve: 2, work: 4 }],
    ['150 ms away, a slow client', { latency: 150, serve: 1, work: 9 }],
    // A route and a machine that are not quiet: one answer in many comes much faster than the rest.
    ['150 ms away, 50 ms of jitter, a busy client', { latency: 150, serve: 1, work: 6, jitter: 50, stall: 3 }],
  ])('%s: within 1.1× the best fixed window', (_, net) => {
    const run = simulate(adaptive(), net, 300);
    expect(run.ms).toBeLessThanOrEqual(1.1 * best(net, 300));
  });

  test('near a busy server it does not pile requests up: the window shrinks back from the queue', () => {
    // The server takes 10 ms a page and the client 1 ms: beyond one or two pages in flight, every page waits in the server's queue.
    const run = simulate(adaptive(), { latency: 0.5, serve: 10, work: 1 }, 300);
    const late = run.sizes.slice(run.sizes.length / 2);
    expect(Math.max(...late)).toBeLessThan(CEILING / 2);
  });

  test('under a rate limit: fewer 429s than 16 at once, and than 4 at once over a long export', () => {
    for (const latency of [10, 50, 150]) {
      const net = { latency, serve: 0.5, work: 1, rate: 20 };
      const a = simulate(adaptive(), net, 300);
      expect(a.tooMany).toBeGreaterThan(0);
      expect(a.tooMany).toBeLessThan(simulate(new FixedWindow(16), net, 300).tooMany);
    }
    // It pays for learning the limit once (the window it had reached, met by 429s at once), a fixed window at every pause.
    for (const [latency, rate] of [[10, 20], [50, 20], [150, 10]]) {
      const net = { latency, serve: 0.5, work: 1, rate };
      expect(simulate(adaptive(), net, 1000).tooMany).toBeLessThan(simulate(new FixedWindow(4), net, 1000).tooMany);
    }
  });

  test('after a 429 it keeps below the size that met it for 16 rounds, then may try it again', () => {
    const w = new AdaptiveWindow(16, 3);
    w.observe({ sentAt: 0, at: 100, status: 429, retryAfterMs: 1000 });
    expect(w.size).toBe(1);
    const after: number[] = [];
    for (let round = 0, t = 1100; round < 40; round++) {
      t = clean(w, t, 100, 1);
      after.push(w.size);
    }
    // Far away and unlimited, each larger window is faster: it grows back to 2, and to 3 only once 16 rounds have passed.
    expect(after.slice(0, 15)).toContain(2);
    expect(Math.max(...after.slice(0, 15))).toBe(2);
    expect(after.at(-1)).toBeGreaterThan(3);
  });

  test('shrinks on 429: after the first one it keeps well below where it was', () => {
    const net = { latency: 150, serve: 0.5, work: 1, rate: 30 };
    const run = simulate(adaptive(), net, 300);
    expect(run.tooMany).toBeGreaterThan(0);
    const peak = Math.max(...run.sizes);
    expect(Math.min(...run.sizes.slice(run.sizes.indexOf(peak)))).toBeLessThanOrEqual(peak / 2);
  });
});
