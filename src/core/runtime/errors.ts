import { grouped } from '../output/grouped.js';
// Typed errors. Commands throw these; report-error.ts is the one place that turns
// them into a message on stderr and an exit code (DESIGN.md "Exit codes").

export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  client: 5,
  server: 6,
  network: 7,
  verification: 8,
  /** --fail-if-any: at least one record (or row) matched. */
  gate: 9,
  /** A resource another payrec holds right now: a mirror another sync is writing. */
  busy: 10,
  /** --currency: some records have no usable rate. */
  noRate: 11,
  interrupted: 130,
} as const;

/** Every exit code with a short name (root --help) and its meaning (man page, reference). */
export const EXIT_MEANINGS: readonly { code: number; short: string; meaning: string }[] = [
  { code: EXIT.ok, short: 'ok', meaning: 'success' },
  { code: EXIT.internal, short: 'internal error', meaning: 'unexpected internal error (please report it; --debug shows details)' },
  { code: EXIT.usage, short: 'bad input', meaning: 'usage or invalid input, or a config file payrec will not use; nothing was sent' },
  { code: EXIT.auth, short: 'auth', meaning: 'authentication or permission: no key, or the API answered 401/403' },
  { code: EXIT.notFound, short: 'not found', meaning: 'not found (404)' },
  { code: EXIT.client, short: 'API 4xx', meaning: 'other client error from the API (4xx, including 429 after retries)' },
  { code: EXIT.server, short: 'API 5xx', meaning: 'server error (5xx) after retries, or a response payrec cannot use (not JSON, not the documented shape with --strict)' },
  { code: EXIT.network, short: 'network', meaning: 'network error or timeout after retries' },
  { code: EXIT.verification, short: 'verification failed', meaning: 'verification failed (webhook-notifications verify)' },
  { code: EXIT.gate, short: 'gate matched', meaning: 'a gate matched: --fail-if-any found at least one record or row' },
  { code: EXIT.busy, short: 'mirror busy', meaning: 'the mirror is busy: another payrec sync is writing it' },
  { code: EXIT.noRate, short: 'no rate', meaning: 'a value could not be given: no usable rate for some records (--currency)' },
  { code: EXIT.interrupted, short: 'interrupted', meaning: 'interrupted (Ctrl-C)' },
];

export class PayrecError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    /** A next step for the user, printed on its own line. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad flags, arguments or values. Always raised before any request is sent. */
export class UsageError extends PayrecError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.usage, hint);
  }
}

/** An HTTP answer from the API that is an error (status >= 400). */
export class ApiError extends PayrecError {
  constructor(
    message: string,
    readonly status: number,
    readonly endpoint: string,
    hint?: string,
  ) {
    super(message, exitCodeForStatus(status), hint);
  }
}

/** A response we could not use: not JSON, wrong shape. */
export class MalformedResponseError extends PayrecError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.server, hint);
  }
}

/** No answer: connection refused or reset, DNS failure, timeout. */
export class NetworkError extends PayrecError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.network, hint);
  }
}

export class VerificationError extends PayrecError {
  constructor(message: string) {
    super(message, EXIT.verification);
  }
}

/** Something another process holds right now, such as a mirror another sync is writing. */
export class BusyError extends PayrecError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.busy, hint);
  }
}

/** --fail-if-any: the command did its work, and what it was asked to watch for is there. */
export class GateMatched extends PayrecError {
  constructor(matched: number, what: string) {
    super(`${grouped(matched)} ${what}${matched === 1 ? '' : 's'} matched (--fail-if-any)`, EXIT.gate);
  }
}

export class InterruptedError extends PayrecError {
  constructor() {
    super('interrupted', EXIT.interrupted);
  }
}

/** --dry-run printed the request that would have been sent; the command stops there. */
export class DryRunComplete extends PayrecError {
  constructor() {
    super('dry run', EXIT.ok);
  }
}

/**
 * Why a server of ours (emulator start, webhook-notifications listen) could not listen:
 * a port another process holds, one that needs privileges, or an address this machine
 * does not have are the user's to change (exit 2); anything else is unexpected.
 */
export function listenError(err: unknown, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'EADDRINUSE') return new UsageError(`port ${port} is in use; choose another --port`, 'or --port 0 for any free port');
  if (code === 'EACCES') return new UsageError(`not allowed to listen on port ${port}; choose another --port`, 'ports below 1024 need privileges');
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new UsageError(`cannot listen on ${host}: not an address of this machine; check --host`);
  }
  return err;
}

export function exitCodeForStatus(status: number): number {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status >= 500) return EXIT.server;
  if (status >= 400) return EXIT.client;
  // The API never redirects: whatever answered 3xx is misbehaving as a server would.
  if (status >= 300) return EXIT.server;
  return EXIT.internal;
}
