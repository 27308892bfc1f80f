import type { IncomingMessage } from 'node:http';

// What the listener accepts before it looks at a notification (after the Host it
// serves, core/http/host-check.ts): the content type, and a body of bounded size that arrives within BODY_DEADLINE_MS.

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
