import type { Command } from 'commander';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { request } from 'undici';
import { z } from 'zod';
import type { CommandAction } from '../core/runtime/action.js';
import { PayrecError, EXIT, InterruptedError } from '../core/runtime/errors.js';
import { isLoopback } from '../core/http/client.js';
import { parseOption } from '../core/runtime/options.js';
import { neutraliseTerminal, shortenMiddle, terminalJson } from '../core/output/sanitize.js';
import type { Session } from '../core/runtime/session.js';
import { httpUrl } from '../registry/validators.js';
import { formatLocal } from '../core/runtime/zone.js';
import { commandAt, topCommand } from './tree.js';
import { parseNotification, verifyNotification, type Verdict } from './webhook-notifications.js';

// `webhook-notifications listen`: a local receiver for notifications (like
// `stripe listen`). Each POST is verified against the service, printed, optionally
// forwarded, and only then acknowledged with a 2xx, so the sender retries otherwise.

const MAX_BODY = 256 * 1024;
const port = z.string().regex(/^\d+$/, 'expected a port from 0 to 65535').transform(Number).refine((n) => n <= 65535, 'expected a port from 0 to 65535');
const host = z.string().regex(/^[A-Za-z0-9.:[\]-]{1,253}$/, 'expected a host name or IP address');

class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') throw new BodyError(415, 'expected content-type application/json');
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY) throw new BodyError(413, `body larger than ${MAX_BODY} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new BodyError(413, `body larger than ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** One line a person reads per notification; `zone`: --tz, for its time. */
function line(n: Record<string, unknown>, v: Verdict, zone: string, forwarded?: string): string {
  const cell = (x: unknown) => neutraliseTerminal(String(x ?? ''));
  const verified = v.authentic === true ? 'verified' : v.authentic === false ? 'NOT VERIFIED (differs)' : 'NOT VERIFIED (unknown id)';
  const when = typeof n.timestamp === 'number' ? formatLocal(n.timestamp, zone) : '-';
  // Padded to the usual widths so lines read as columns; the set of events is open, so longer ones just push.
  const parts = [when, cell(n.type).padEnd(18), cell(n.event).padEnd(22), cell(n.transactionStatus).padEnd(9), shortenMiddle(cell(n.transactionHash), 13), verified];
  if (forwarded) parts.push(`→ ${cell(forwarded)}`);
  return parts.join('  ') + '\n';
}

async function forward(url: string, body: Buffer, signal: AbortSignal): Promise<string> {
  try {
    const res = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json' }, signal, headersTimeout: 15_000, bodyTimeout: 15_000 });
    await res.body.dump();
    return String(res.statusCode);
  } catch (err) {
    return `failed (${(err as { code?: string }).code ?? (err as Error).message})`;
  }
}

async function handle(session: Session, req: IncomingMessage, res: ServerResponse, forwardTo: string | undefined): Promise<void> {
  const reply = (status: number, body: object) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  if (req.method !== 'POST') return reply(405, { error: 'POST a notification here' });
  let raw: Buffer;
  let notification: Record<string, unknown>;
  try {
    raw = await readBody(req);
    notification = parseNotification(raw.toString('utf8'), 'the body');
  } catch (err) {
    const status = err instanceof BodyError ? err.status : 400;
    session.warn(`rejected a request: ${(err as Error).message}`);
    return reply(status, { error: (err as Error).message });
  }
  try {
    const verdict = await verifyNotification(session, notification);
    const forwarded = forwardTo ? await forward(forwardTo, raw, session.ctx.signal) : undefined;
    if (session.format === 'jsonl' || session.format === 'json') {
      session.ctx.stdout.write(terminalJson({ notification, verified: verdict.authentic === true, verdict, ...(forwarded ? { forwarded } : {}) }) + '\n');
    } else {
      session.ctx.stdout.write(line(notification, verdict, session.zone, forwarded));
    }
    reply(200, { received: true, verified: verdict.authentic === true });
  } catch (err) {
    // Not handled: a 5xx makes the service deliver it again later.
    session.warn(`could not handle notification ${String(notification.id)}: ${(err as Error).message}`);
    reply(502, { error: 'could not verify the notification now' });
  }
}

export function addListenCommand(program: Command, action: CommandAction): void {
  commandAt(topCommand(program, 'webhook-notifications'), [])
    .command('listen')
    .description('Receive notifications locally: verify, print and optionally forward each one; Ctrl-C stops')
    .option('--port <n>', 'port to listen on (default 8788; 0 picks a free one)')
    .option('--host <host>', 'address to bind (default 127.0.0.1, loopback only)')
    .option('--forward-to <url>', 'also POST each notification, unchanged, to this URL')
    .addHelpText(
      'after',
      '\nExamples:\n  $ payrec webhook-notifications listen --port 8788\n  $ payrec wn listen --forward-to http://localhost:3000/hooks --format jsonl\n\nPoint a plan webhook at it with: payrec fr webhook set --plan-id ID http://127.0.0.1:8788/\n',
    )
    .action(
      action(async (session, cmd) => {
        const o = cmd.opts() as { port?: string; host?: string; forwardTo?: string };
        const p = o.port === undefined ? 8788 : parseOption(port, o.port, '--port');
        const h = o.host === undefined ? '127.0.0.1' : parseOption(host, o.host, '--host');
        const forwardTo = o.forwardTo === undefined ? undefined : parseOption(httpUrl, o.forwardTo, '--forward-to');
        await session.client(); // settings and key problems surface before we listen
        if (!isLoopback(h)) session.warn(`listening on ${h}: reachable from other machines`);

        const server = createServer((req, res) => {
          handle(session, req, res, forwardTo).catch(() => res.destroy());
        });
        server.requestTimeout = 30_000;
        await new Promise<void>((resolve, reject) => {
          server.once('error', (err: NodeJS.ErrnoException) =>
            reject(new PayrecError(`cannot listen on ${h}:${p}: ${err.code ?? err.message}`, EXIT.usage, err.code === 'EADDRINUSE' ? 'choose another --port' : undefined)),
          );
          server.listen(p, h, resolve);
        });
        const address = server.address();
        const actual = typeof address === 'object' && address ? address.port : p;
        const shown = h.includes(':') ? `[${h}]` : h;
        session.ctx.stderr.write(`Listening on http://${shown}:${actual}/${forwardTo ? `, forwarding to ${forwardTo}` : ''} (Ctrl-C to stop)\n`);

        await new Promise<void>((resolve) => {
          if (session.ctx.signal.aborted) return resolve();
          session.ctx.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        throw new InterruptedError();
      }),
    );
}
