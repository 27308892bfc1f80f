// A rate limit as APIs keep one: a token bucket of `perSecond` requests a second that
// holds as many (a second's burst), and one at least. A request that finds it empty is answered 429 with
// a Retry-After of the whole seconds until the next token. Pure: the clock is given.

/** The most requests a second `emulator start --rate-limit` takes. */
export const MAX_RATE_LIMIT = 10_000;

export class RateLimit {
  private tokens: number;
  private at: number;
  private readonly size: number;

  constructor(
    readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(perSecond > 0 && perSecond <= MAX_RATE_LIMIT)) throw new RangeError(`rateLimit must be more than 0 and at most ${MAX_RATE_LIMIT} requests a second, got ${perSecond}`);
    this.size = Math.max(1, perSecond);
    this.tokens = this.size;
    this.at = this.now();
  }

  /** Takes a token for a request: undefined when it may pass, else its Retry-After in seconds. */
  take(): number | undefined {
    const now = this.now();
    this.tokens = Math.min(this.size, this.tokens + ((now - this.at) * this.perSecond) / 1000);
    this.at = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - this.tokens) / this.perSecond));
  }
}
