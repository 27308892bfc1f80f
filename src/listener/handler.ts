import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'undici';
import { neutraliseTerminal, shortenMiddle, terminalJson } from '../core/output/sanitize.js';
import type { Session } from '../core/runtime/session.js';
import { formatLocal } from '../core/runtime/zone.js';
import { parseNotification, prototypeKey, verdictOf, type Verdict } from './notification-check.js';
import { contentDigest, type ForwardedMemory } from './forwarded.js';
import { readBody, Refusal } from './inbound.js';
import { LookupsBusy, type StoredNotifications } from './lookups.js';

// One POST to `wn listen`, from arrival to answer (DESIGN.md "Webhook listener"):
//   Host checked → body read (size and time bounded) → parsed → keys such as __proto__
//   refused → an id already forwarded is acknowledged at once (same content) or refused
//   (other content) → looked up (bounded, see lookups.ts) →
//   forged or tampered: 403, never forwarded → forwarded → 2xx only after the app's 2xx.
// The sender gets a 5xx whenever the notification could not be handled now (API or app
// unreachable, app not 2xx), so it delivers it again later.

/** Time allowed to the app to answer a forward. */
const FORWARD_TIMEOUT_MS = 15_000;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface ListenerOptions {
  session: Session;
  lookups: StoredNotifications;
  /** Set with --forward-to, with its memory of what was forwarded. */
  forward?: { url: string; memory: ForwardedMemory };
  hostAllowed: (host: string | undefined) => boolean;
  /** Aborted when the listener stops. */
  signal: AbortSignal;
}

export class Listener {
  /** Notifications being handled, by id (the latest content): concurrent copies share one outcome. */
  private readonly inProgress = new Map<string, { digest: string; outcome: Promise<Answer> }>();

  constructor(private readonly o: ListenerOptions) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const answer = await this.answer(req);
    const headers = { 'content-type': 'application/json', ...answer.headers };
    // A refused body may still be arriving: close the connection rather than read it.
    if (!req.complete) Object.assign(headers, { connection: 'close' });
    res.writeHead(answer.status, headers).end(JSON.stringify(answer.body));
  }

  private async answer(req: IncomingMessage): Promise<Answer> {
    if (!this.o.hostAllowed(req.headers.host)) {
      return this.refuse(403, `Host "${req.headers.host ?? ''}" is not this listener's address (only its address or localhost, against DNS rebinding)`);
    }
    if (req.method !== 'POST') return { status: 405, body: { error: 'POST a notification here' } };
    let notification: Record<string, unknown>;
    try {
      notification = parseNotification((await readBody(req)).toString('utf8'), 'the body');
    } catch (err) {
      return this.refuse(err instanceof Refusal ? err.status : 400, (err as Error).message);
    }
    const hostile = prototypeKey(notification);
    if (hostile) return this.refuse(403, `notification ${notification.id as string} has a key "${hostile}", which no notification has; not forwarded`);
    const id = notification.id as string;
    const digest = contentDigest(notification);
    // Copies of one notification share one outcome; another content for the same id
    // waits for the one in progress, so it meets the memory that one may have left.
    const current = this.inProgress.get(id);
    if (current?.digest === digest) return current.outcome;
    const run = () => this.process(notification, digest);
    const outcome: Promise<Answer> = (current ? current.outcome.then(run, run) : run()).finally(() => {
      if (this.inProgress.get(id)?.outcome === outcome) this.inProgress.delete(id);
    });
    this.inProgress.set(id, { digest, outcome });
    return outcome;
  }

  private async process(notification: Record<string, unknown>, digest: string): Promise<Answer> {
    const id = notification.id as string;
    const forward = this.o.forward;
    const forwarded = forward?.memory.forwardedDigest(id);
    if (forwarded === digest) {
      this.note(`acknowledged a replay of ${id}: already forwarded, not forwarded again`);
      return { status: 200, body: { received: true, verified: true, forwarded: false, duplicate: true } };
    }
    if (forwarded !== undefined) return this.refuse(403, `notification ${id} was already forwarded with other content; not forwarded again`);
    let verdict: Verdict;
    try {
      verdict = verdictOf(notification, await this.o.lookups.get(id));
    } catch (err) {
      if (err instanceof LookupsBusy) {
        this.o.session.warn('too many notifications to verify at once: answering 503 so the sender retries later');
        return { status: 503, body: { error: 'busy, retry later' }, headers: { 'retry-after': String(err.retryAfterS) } };
      }
      this.note(`could not handle notification ${id}: ${(err as Error).message}`);
      return { status: 502, body: { error: 'could not verify the notification now' } };
    }
    if (verdict.authentic !== true) {
      const fields = verdict.differences.map((d) => d.field);
      const why = verdict.authentic === null ? 'the service has no notification with this id' : `${fields.join(', ')} differ${fields.length === 1 ? 's' : ''} from the stored notification`;
      return this.refuse(403, `notification ${id} is not authentic: ${why}; not forwarded`);
    }
    if (!forward) {
      this.print(notification, verdict);
      return { status: 200, body: { received: true, verified: true } };
    }
    const status = await this.forward(forward.url, notification);
    if (typeof status !== 'number' || status < 200 || status > 299) {
      const what = typeof status === 'number' ? `answered ${status}` : `could not be reached (${status})`;
      this.note(`could not forward notification ${id}: ${forward.url} ${what}; answered 502 so the sender retries`);
      return { status: 502, body: { error: 'the app did not accept the notification' } };
    }
    // Remembered before the sender is answered: if that answer is lost, its retry is known.
    await forward.memory.record(id, digest).catch((err: NodeJS.ErrnoException) => {
      this.o.session.warn(`cannot write ${forward.memory.file} (${err.code ?? err.message}): a replay after a restart would be forwarded again`);
    });
    this.print(notification, verdict, String(status));
    return { status: 200, body: { received: true, verified: true, forwarded: true } };
  }

  /**
   * POSTs the notification to the app: its status, or why it failed. The body is what was
   * verified, re-serialised (same fields in the same order; only spacing may differ from
   * the bytes received): a body with a key given twice is verified by its last value,
   * and an app whose parser kept the first must not receive the other one.
   */
  private async forward(url: string, notification: Record<string, unknown>): Promise<number | string> {
    // A signal of its own per forward: passing the listener's signal to each request
    // would add one abort listener to it per request in flight (MaxListenersExceededWarning).
    const signal = AbortSignal.any([this.o.signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]);
    try {
      const res = await request(url, { method: 'POST', body: JSON.stringify(notification), headers: { 'content-type': 'application/json' }, signal });
      await res.body.dump();
      return res.statusCode;
    } catch (err) {
      return (err as { code?: string }).code ?? (err as Error).name;
    }
  }

  private refuse(status: number, message: string): Answer {
    this.note(`refused a request (${status}): ${message}`);
    return { status, body: { error: message } };
  }

  private note(message: string): void {
    if (!this.o.session.quiet) this.o.session.ctx.stderr.write(neutraliseTerminal(message) + '\n');
  }

  private print(n: Record<string, unknown>, v: Verdict, forwarded?: string): void {
    const { session } = this.o;
    if (session.format === 'jsonl' || session.format === 'json') {
      session.ctx.stdout.write(terminalJson({ notification: n, verified: true, verdict: v, ...(forwarded ? { forwarded } : {}) }) + '\n');
      return;
    }
    const cell = (x: unknown) => neutraliseTerminal(String(x ?? ''));
    const when = typeof n.timestamp === 'number' ? formatLocal(n.timestamp, session.zone) : '-';
    // Padded to the usual widths so lines read as columns; the set of events is open, so longer ones just push.
    const parts = [when, cell(n.type).padEnd(18), cell(n.event).padEnd(22), cell(n.transactionStatus).padEnd(9), shortenMiddle(cell(n.transactionHash), 13), 'verified'];
    if (forwarded) parts.push(`→ ${forwarded}`);
    session.ctx.stdout.write(parts.join('  ') + '\n');
  }
}
