import { InterruptedError } from '../runtime/errors.js';
import type { Answer, RequestWindow } from './request-window.js';

// Where every request of a client waits for its window: fewer than `size` in flight and
// no Retry-After still running. First come, first served, so pages go out in the order
// the paginator asked for them; each answer is told to the window as it leaves.

interface Waiter {
  go(): void;
  stop(err: Error): void;
}

export class RequestGate {
  private inFlight = 0;
  private readonly queue: Waiter[] = [];
  private timer?: NodeJS.Timeout;

  /** `signal` (Ctrl-C) turns every waiting request away: one listener for all of them. */
  constructor(
    readonly window: RequestWindow,
    private readonly signal: AbortSignal,
    private readonly now: () => number = () => performance.now(),
  ) {
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(this.timer);
        for (const w of this.queue.splice(0)) w.stop(new InterruptedError());
      },
      { once: true },
    );
  }

  /** Resolves when the request may go (it then counts as in flight until leave()). */
  enter(): Promise<void> {
    if (this.signal.aborted) return Promise.reject(new InterruptedError());
    if (this.queue.length === 0 && this.inFlight < this.window.size && this.now() >= this.window.notBefore) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise((go, stop) => {
      this.queue.push({ go, stop });
      this.pump();
    });
  }

  /** The request is over: its answer, if one came that says something of the pace, goes to the window. */
  leave(answer?: Answer): void {
    this.inFlight--;
    if (answer) this.window.observe(answer);
    this.pump();
  }

  private pump(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length > 0 && this.inFlight < this.window.size) {
      const wait = this.window.notBefore - this.now();
      if (wait > 0) {
        // Woken when the pause ends; a timer may fire a little early, so it looks again.
        this.timer = setTimeout(() => this.pump(), Math.ceil(wait));
        return;
      }
      this.inFlight++;
      this.queue.shift()!.go();
    }
  }
}
