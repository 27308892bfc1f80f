// Delivery of notifications to a plan's webhook: an HTTP POST of the notification JSON,
// retried with exponential back-off while the receiver fails or answers non-2xx
// (API-FACTS.md: the service retries for days; the emulator scales that down). The URL
// is looked up again before each attempt: removing the webhook stops the retries,
// changing it sends the next attempt to the new address.

export interface DeliveryOptions {
  /** Attempts in all, the first included (default 5). */
  maxAttempts?: number;
  /** Delay before the first retry; doubles for each next one (default 200 ms). */
  baseDelayMs?: number;
  /** Time allowed to one attempt (default 5000 ms). */
  timeoutMs?: number;
  /**
   * The only hosts webhooks are delivered to (`emulator start --webhook-hosts`); any
   * when absent. An emulator others can reach must not post to the services of the
   * machine it runs on (a webhook set to http://127.0.0.1:6379/) for whoever asks.
   */
  hosts?: readonly string[];
}

export interface DeliveryAttempt {
  notificationId: string;
  chain: string;
  planId: string;
  attempt: number;
  url: string;
  /** HTTP status of the receiver's answer, absent when there was none. */
  status?: number;
  error?: string;
  ok: boolean;
  /** ISO time of the attempt. */
  at: string;
}

export interface DeliveryJob {
  notificationId: string;
  chain: string;
  planId: string;
  body: string;
  /** The plan's webhook now, or undefined when it has been removed. */
  target: () => string | undefined;
}

export class Deliverer {
  readonly attempts: DeliveryAttempt[] = [];
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly timeoutMs: number;
  /** Pending back-off waits, resolved early on close so no delivery promise hangs. */
  private readonly waits = new Map<NodeJS.Timeout, () => void>();
  private readonly aborter = new AbortController();
  private readonly hosts?: Set<string>;

  constructor(options: DeliveryOptions = {}) {
    this.maxAttempts = options.maxAttempts ?? 5;
    this.baseDelayMs = options.baseDelayMs ?? 200;
    this.timeoutMs = options.timeoutMs ?? 5000;
    if (options.hosts) this.hosts = new Set(options.hosts.map(hostOf));
  }

  /** Starts delivery in the background; resolves true once delivered, false when given up. */
  deliver(job: DeliveryJob): Promise<boolean> {
    return this.attempt(job, 1);
  }

  /** Stops pending retries and in-flight requests (emulator shutdown). */
  close(): void {
    this.aborter.abort();
    for (const [timer, resolve] of this.waits) {
      clearTimeout(timer);
      resolve();
    }
    this.waits.clear();
  }

  private async attempt(job: DeliveryJob, attempt: number): Promise<boolean> {
    const url = job.target();
    if (url === undefined || this.aborter.signal.aborted) return false;
    const record: DeliveryAttempt = {
      notificationId: job.notificationId,
      chain: job.chain,
      planId: job.planId,
      attempt,
      url,
      ok: false,
      at: new Date().toISOString(),
    };
    if (this.hosts && !this.hosts.has(hostOf(url))) {
      // Not retried: another attempt would meet the same rule.
      record.error = `not delivered: ${hostOf(url) || 'this URL'} is not one of the hosts this emulator delivers to (--webhook-hosts)`;
      this.attempts.push(record);
      return false;
    }
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: job.body,
        // A redirect is the receiver's answer, never a second request: followed, it would
        // carry the notification to wherever the receiver points (a service on 127.0.0.1).
        redirect: 'manual',
        signal: AbortSignal.any([this.aborter.signal, AbortSignal.timeout(this.timeoutMs)]),
      });
      await response.body?.cancel();
      record.status = response.status;
      record.ok = response.ok;
    } catch (err) {
      record.error = describe(err);
    }
    this.attempts.push(record);
    if (record.ok) return true;
    if (attempt >= this.maxAttempts || this.aborter.signal.aborted) return false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waits.delete(timer);
        resolve();
      }, this.baseDelayMs * 2 ** (attempt - 1));
      this.waits.set(timer, resolve);
    });
    return this.attempt(job, attempt + 1);
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
  }
  return String(err);
}

/** A host as the URL parser writes it (lower case, IPv4 in dotted form, IPv6 in brackets), from a URL or a bare host. */
function hostOf(urlOrHost: string): string {
  try {
    return new URL(urlOrHost.includes('://') ? urlOrHost : `http://${urlOrHost}`).hostname;
  } catch {
    return '';
  }
}
