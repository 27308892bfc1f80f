import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

// What the listener accepts before it looks at a notification: the Host it serves,
// the content type, and a body of bounded size that arrives within BODY_DEADLINE_MS.

export const MAX_BODY = 256 * 1024;
/** A whole request (headers and body) must arrive within this time. */
export const BODY_DEADLINE_MS = 30_000;

/** A request refused with an HTTP status; the message goes to the sender and to stderr. */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/**
 * Host names a request may carry: the listening address and localhost. Anything else is
 * refused, so a web page whose name was rebound to 127.0.0.1 (DNS rebinding) cannot post.
 * Bound to a wildcard address, any IP literal is the listening address (a rebinding
 * page always sends its own name, never an IP).
 */
export function hostChecker(boundHost: string, port: number): (header: string | undefined) => boolean {
  const bound = boundHost.replace(/^\[|\]$/g, '').toLowerCase();
  const wildcard = bound === '0.0.0.0' || bound === '::';
  return (header) => {
    if (!header) return false;
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(header.trim().toLowerCase());
    if (!m) return false;
    const name = m[1].replace(/^\[|\]$/g, '');
    const hostPort = m[2] === undefined ? 80 : Number(m[2]);
    if (hostPort !== port) return false;
    return LOCAL_NAMES.has(name) || name === bound || (wildcard && isIP(name) !== 0) || /^127\.\d+\.\d+\.\d+$/.test(name);
  };
}

/**
 * Reads a JSON body of at most MAX_BODY bytes that arrives within `ms`; rejects with a
 * Refusal (415, 413, 408). A trickle is cut by this timer, not by Node's own
 * requestTimeout, which is only checked every connectionsCheckingInterval.
 */
export async function readBody(req: IncomingMessage, ms = BODY_DEADLINE_MS): Promise<Buffer> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') throw new Refusal(415, 'expected content-type application/json');
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY) throw new Refusal(413, `body larger than ${MAX_BODY} bytes`);
  const collect = (async () => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY) throw new Refusal(413, `body larger than ${MAX_BODY} bytes`);
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  })();
  collect.catch(() => {}); // after a 408 the socket is destroyed under it
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Refusal(408, `body not received within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([collect, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
