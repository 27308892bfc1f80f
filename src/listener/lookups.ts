// The listener's lookups of stored notifications (GET /webhook-notifications/<id> with
// the user's key), bounded so that posts nobody authenticated cannot burn the key's rate
// limit: one lookup per id at a time (concurrent posts of one id share it), a short
// cache of answers (found and not found), at most MAX_IN_FLIGHT lookups at once and a
// token bucket of BUDGET_BURST lookups refilled at BUDGET_PER_SECOND. A post that would
// exceed either limit is told to come back later (503): the service retries, a flood
// of forgeries just costs nothing more.

/** What the service stored under an id; null when it has no such notification. */
export type Stored = Record<string, unknown> | null;

export const MAX_IN_FLIGHT = 8;
export const BUDGET_BURST = 20;
export const BUDGET_PER_SECOND = 10;
/** How long an answer is reused: long enough to absorb a burst, short enough that a notification stored a moment late is found on the sender's next retry. */
export const ANSWER_TTL_MS = 5_000;
/** Most answers cached (each holds one notification). */
const MAX_CACHED = 1_000;

/** Raised instead of starting a lookup over the limits; the sender should retry after retryAfterS. */
export class LookupsBusy extends Error {
  constructor(readonly retryAfterS: number) {
    super('too many lookups in progress');
  }
}

export class StoredNotifications {
  private readonly inFlight = new Map<string, Promise<Stored>>();
  private readonly answers = new Map<string, { stored: Stored; until: number }>();
  private tokens = BUDGET_BURST;
  private refilledAt: number;
  /** Lookups actually sent (for the --debug summary and tests' bounds). */
  sent = 0;

  constructor(
    private readonly fetchStored: (id: string) => Promise<Stored>,
    private readonly now: () => number = Date.now,
  ) {
    this.refilledAt = now();
  }

  get(id: string): Promise<Stored> {
    const cached = this.answers.get(id);
    if (cached && cached.until > this.now()) return Promise.resolve(cached.stored);
    const shared = this.inFlight.get(id);
    if (shared) return shared;
    this.take();
    const lookup = this.fetchStored(id).then(
      (stored) => {
        this.remember(id, stored);
        return stored;
      },
      // Failures (network, 5xx) are not cached: the next retry asks again.
    );
    this.inFlight.set(id, lookup);
    const settle = () => this.inFlight.delete(id);
    lookup.then(settle, settle);
    this.sent++;
    return lookup;
  }

  /** Takes one token for a new lookup, or throws LookupsBusy. */
  private take(): void {
    const now = this.now();
    this.tokens = Math.min(BUDGET_BURST, this.tokens + ((now - this.refilledAt) / 1000) * BUDGET_PER_SECOND);
    this.refilledAt = now;
    if (this.inFlight.size >= MAX_IN_FLIGHT) throw new LookupsBusy(1);
    if (this.tokens < 1) throw new LookupsBusy(Math.ceil((1 - this.tokens) / BUDGET_PER_SECOND));
    this.tokens -= 1;
  }

  private remember(id: string, stored: Stored): void {
    const now = this.now();
    this.answers.delete(id);
    this.answers.set(id, { stored, until: now + ANSWER_TTL_MS });
    // Oldest first: drop the expired, then the oldest beyond the cap.
    for (const [key, a] of this.answers) {
      if (a.until > now && this.answers.size <= MAX_CACHED) break;
      this.answers.delete(key);
    }
  }
}
