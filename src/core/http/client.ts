import { Agent, errors as undiciErrors } from 'undici';
import { errorBody } from '../../registry/schemas.js';
import { ApiError, DryRunComplete, InterruptedError, MalformedResponseError, NetworkError, UsageError } from '../runtime/errors.js';
import { jsonText, MAX_DEPTH, nestedDeeperThan } from './json-text.js';
import { backoffDelay, isRetryableStatus, parseRetryAfter, RETRY_BUDGET_MS } from './retry.js';
import { neutraliseTerminal, printable } from '../output/sanitize.js';
import { maskSecrets } from '../runtime/secrets.js';
import { checkBaseUrl } from './base-url.js';
import { RequestGate } from './request-gate.js';
import { FixedWindow, type Answer, type RequestWindow } from './request-window.js';

// The one HTTP client: a keep-alive undici Agent, the Authorization header, timeouts,
// retries of what is safe to retry, and the mapping of failures to typed errors.

export interface ClientOptions {
  baseUrl: string;
  chain: string;
  apiKey: string;
  /** Whole-request timeout in milliseconds. */
  timeoutMs: number;
  /** Retries after the first attempt, for idempotent requests. */
  retries: number;
  /**
   * How many requests go at once, and the Retry-After pauses every request keeps
   * (default: 16 at once). Its ceiling is the connections kept open to the API: undici
   * opens a new connection for a request sent while the previous response is still
   * being released, so a higher cap means fresh connections instead of reused ones.
   */
  window?: RequestWindow;
  signal: AbortSignal;
  /** --debug: one line per request and response, the key redacted. */
  debug?: (line: string) => void;
  /** Told before each retry ("retrying in 2 s after 503"). */
  onRetry?: (message: string) => void;
  /** --dry-run: receives each request as a curl command instead of sending it. */
  dryRun?: (curl: string) => void;
  /** Told of every answer, whatever its status: how long it took and the server's Date header (payrec doctor's latency and clock). */
  onResponse?: (answer: { status: number; ms: number; date?: string; sentAt: number }) => void;
}

export interface ApiRequest {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** Path below /v1/<chain>, path parameters already filled in and encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** JSON body. */
  body?: unknown;
}

/** Largest response body we accept: a 1000-record page is well under 2 MB. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;


/**
 * The URL of a request. Its parsed path must stay below /v1/<chain>/: the URL parser
 * reads `\` as `/` and resolves `..`, so `one-time\..\..\admin` would take the key
 * to /admin.
 */
export function buildUrl(baseUrl: string, chain: string, req: ApiRequest): URL {
  const base = baseUrl.replace(/\/+$/, '');
  const root = new URL(`${base}/v1/${encodeURIComponent(chain)}/`);
  const url = new URL(`${base}/v1/${encodeURIComponent(chain)}${req.path}`);
  if (!url.pathname.startsWith(root.pathname)) {
    throw new UsageError(`invalid path "${printable(req.path)}": it leads to ${printable(url.pathname)}, outside ${root.pathname}`);
  }
  for (const [k, val] of Object.entries(req.query ?? {})) {
    if (val !== undefined) url.searchParams.set(k, String(val));
  }
  return url;
}

export class ApiClient {
  private readonly agent: Agent;
  private readonly gate: RequestGate;
  /** The retries waiting: Ctrl-C ends them all through one listener (one each would pass Node's 10 with a window of 16). */
  private readonly waits = new Set<() => void>();

  constructor(private readonly opts: ClientOptions) {
    checkBaseUrl(opts.baseUrl);
    this.gate = new RequestGate(opts.window ?? new FixedWindow(16), opts.signal);
    opts.signal.addEventListener('abort', () => this.waits.forEach((stop) => stop()), { once: true });
    // One agent for the whole run: connections are kept alive between pages.
    this.agent = new Agent({ keepAliveTimeout: 10_000, connections: this.window.ceiling, maxResponseSize: MAX_BODY_BYTES });
  }

  /** The requests this client lets go at once: the paginator keeps as many pages in flight. */
  get window(): RequestWindow {
    return this.gate.window;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** Sends a request and returns the parsed JSON body, retrying what is safe to retry. */
  async json(req: ApiRequest): Promise<unknown> {
    return (await this.jsonAndBody(req)).value;
  }

  /** As json(), with the response body's bytes too (the mirror hands them to DuckDB as they came). */
  async jsonAndBody(req: ApiRequest): Promise<{ value: unknown; body: Buffer }> {
    const url = buildUrl(this.opts.baseUrl, this.opts.chain, req);
    if (this.opts.dryRun) {
      this.opts.dryRun(toCurl(url, req));
      throw new DryRunComplete();
    }
    const label = `${req.method} ${url.pathname}`;
    // GET, PUT and DELETE are idempotent; a POST is retried only when it surely never
    // reached the server (connection refused).
    const idempotent = req.method !== 'POST';
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(url, req, label);
      } catch (err) {
        const retry = this.retryPlan(err, idempotent, attempt, started);
        if (retry === undefined) throw err;
        this.opts.onRetry?.(`retrying ${label} in ${formatDelay(retry.delay)} after ${retry.reason}`);
        await this.sleep(retry.delay);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.opts.signal.aborted) return reject(new InterruptedError());
      const stop = () => {
        clearTimeout(timer);
        reject(new InterruptedError());
      };
      const timer = setTimeout(() => {
        this.waits.delete(stop);
        resolve();
      }, ms);
      this.waits.add(stop);
    });
  }

  private retryPlan(err: unknown, idempotent: boolean, attempt: number, started: number) {
    if (attempt >= this.opts.retries || this.opts.signal.aborted) return undefined;
    let reason: string | undefined;
    let floor = 0;
    if (err instanceof ApiError && isRetryableStatus(err.status) && idempotent) {
      reason = String(err.status);
      floor = (err as RetryableApiError).retryAfterMs ?? 0;
    } else if (err instanceof NetworkError && (idempotent || (err as { refused?: boolean }).refused)) {
      reason = err.message.replace(/^.*?: /, '');
    } else if (err instanceof MalformedResponseError && !(err instanceof UnusableResponseError) && idempotent) {
      // A garbled or cut body may be a glitch; an oversize or too deep one would only come again.
      reason = 'a malformed response';
    }
    if (reason === undefined) return undefined;
    const delay = Math.max(floor, backoffDelay(attempt));
    if (Date.now() - started + delay > RETRY_BUDGET_MS) return undefined;
    return { delay, reason };
  }

  /** One attempt, sent when the window lets it go; its answer (or none) is told to the window. */
  private async once(url: URL, req: ApiRequest, label: string): Promise<{ value: unknown; body: Buffer }> {
    await this.gate.enter();
    const sentAt = performance.now();
    let answer: Answer | undefined;
    try {
      return await this.exchange(url, req, label, (status, retryAfterMs) => (answer = { sentAt, at: performance.now(), status, retryAfterMs }));
    } finally {
      this.gate.leave(answer);
    }
  }

  private async exchange(url: URL, req: ApiRequest, label: string, answered: (status: number, retryAfterMs?: number) => void): Promise<{ value: unknown; body: Buffer }> {
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    const signal = AbortSignal.any([this.opts.signal, timeout]);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.opts.apiKey}`,
      accept: 'application/json',
      'user-agent': 'payrec',
    };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    this.opts.debug?.(`> ${req.method} ${url.href}`);
    this.opts.debug?.(`> authorization: Bearer [redacted]`);
    const t0 = performance.now();
    const sentAt = Date.now();
    let date: string | undefined;
    let status: number;
    let bytes: Buffer;
    let retryAfter: string | undefined;
    let location: string | undefined;
    let contentType = '';
    try {
      const res = await this.agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: req.method,
        headers,
        body,
        signal,
      });
      status = res.statusCode;
      retryAfter = headerValue(res.headers['retry-after']);
      location = headerValue(res.headers.location);
      contentType = headerValue(res.headers['content-type']) ?? '';
      date = headerValue(res.headers.date);
      bytes = Buffer.from(await res.body.arrayBuffer());
    } catch (err) {
      if (this.opts.signal.aborted) throw new InterruptedError();
      // No answer (reset, refused, timed out): to the window, as a lost packet is to TCP, a sign of overload.
      if (!(err instanceof undiciErrors.ResponseExceededMaxSizeError)) answered(0);
      if (timeout.aborted) {
        throw new NetworkError(`${label}: timed out after ${this.opts.timeoutMs / 1000} s`, 'raise --timeout, or check the network');
      }
      throw networkError(err, label, url);
    }
    answered(status, parseRetryAfter(retryAfter, Date.now()));
    const ms = Math.round(performance.now() - t0);
    this.opts.debug?.(`< ${status} ${label} (${ms} ms, ${bytes.length} bytes)`);
    this.opts.onResponse?.({ status, ms, date, sentAt });

    if (status >= 300 && status < 400) {
      // Redirects are not followed: a redirect to another origin must never carry the key.
      const to = location ? ` to ${serverText(location)}` : '';
      throw new ApiError(`${label}: unexpected redirect (${status})${to}, not followed: the API never redirects`, status, label, 'check --base-url');
    }
    const parsed = parseJson(bytes);
    if (parsed !== NOT_JSON && nestedDeeperThan(parsed, MAX_DEPTH)) {
      throw new UnusableResponseError(
        `${label}: the response is nested more than ${MAX_DEPTH} levels deep, more than any API answer should be; payrec does not handle it`,
        'check --base-url: is it the API?',
      );
    }
    if (status >= 400) {
      const e = errorBody.safeParse(parsed);
      const detail = e.success ? e.data.error.message : describeNonJson(bytes, contentType);
      const err = new ApiError(`${label}: ${status} ${serverText(detail)}`, status, label, hintFor(status)) as RetryableApiError;
      err.retryAfterMs = parseRetryAfter(retryAfter, Date.now());
      throw err;
    }
    // Writes may answer 204 or an empty 200: nothing to show, not an error.
    if (bytes.length === 0 && req.method !== 'GET') return { value: null, body: bytes };
    if (parsed === NOT_JSON) {
      throw new MalformedResponseError(`${label}: the response is not valid JSON (${describeNonJson(bytes, contentType)})`);
    }
    return { value: parsed, body: bytes };
  }
}

type RetryableApiError = ApiError & { retryAfterMs?: number };

/** The request as a curl command; the key stays a shell variable, never its value. */
export function toCurl(url: URL, req: ApiRequest): string {
  const parts = ['curl', '-sS'];
  if (req.method !== 'GET') parts.push('-X', req.method);
  parts.push(shellQuote(url.href), '-H', '"Authorization: Bearer $PAYREC_API_KEY"');
  if (req.body !== undefined) {
    parts.push('-H', shellQuote('Content-Type: application/json'), '--data', shellQuote(JSON.stringify(req.body)));
  }
  return parts.join(' ');
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const NOT_JSON = Symbol('not json');

function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return NOT_JSON;
  try {
    return JSON.parse(jsonText(bytes));
  } catch {
    return NOT_JSON;
  }
}

function describeNonJson(bytes: Buffer, contentType: string): string {
  if (bytes.length === 0) return 'empty body';
  const text = maskSecrets(bytes.toString('utf8'));
  const kind = contentType.split(';')[0] || 'unknown content type';
  return serverText(`${kind}, ${bytes.length} bytes: ${text.slice(0, 60).replace(/\s+/g, ' ')}…`);
}

/** Longest part of a server's text quoted in a message. */
const SERVER_TEXT_SHOWN = 300;

/**
 * Server text in our messages: the API key masked (before the cut, which could split
 * it), cut to a line's worth, and inert on a terminal like record text.
 */
function serverText(text: string): string {
  const s = maskSecrets(text);
  return neutraliseTerminal(s.length > SERVER_TEXT_SHOWN ? `${s.slice(0, SERVER_TEXT_SHOWN)}…` : s);
}

function hintFor(status: number): string | undefined {
  if (status === 401) return 'check the API key: payrec auth status (keys are per chain)';
  if (status === 403) return 'this key may not do that';
  if (status === 404) return 'check the id, and --chain: records are per chain';
  if (status === 429) return 'the service is rate limiting; try again later or lower --concurrency';
  if (status >= 500) return 'the service failed; try again later';
  return undefined;
}

function headerValue(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}

/** A body payrec cannot use however often it asks (too large, too deep): not worth another try. */
class UnusableResponseError extends MalformedResponseError {}

function networkError(err: unknown, label: string, url: URL): NetworkError | UnusableResponseError {
  const code = (err as { code?: string })?.code ?? '';
  if (err instanceof undiciErrors.ResponseExceededMaxSizeError) {
    return new UnusableResponseError(`${label}: the response is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB, more than any API answer should be`, 'check --base-url: is it the API?');
  }
  const e = new NetworkError(
    `${label}: ${describeCode(code, url)}`,
    code === 'ECONNREFUSED' ? `is the service at ${url.origin} running? check --base-url` : 'check the network and try again',
  ) as NetworkError & { refused?: boolean };
  e.refused = code === 'ECONNREFUSED';
  return e;
}

function describeCode(code: string, url: URL): string {
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${url.host}`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve ${url.hostname}`;
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timed out';
    default:
      return code ? `network error (${code})` : 'network error';
  }
}

/** "2 s", "1.5 s", "250 ms". */
function formatDelay(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${Math.round(ms)} ms`;
}
