import type { Command } from 'commander';
import { createServer } from 'node:http';
import { z } from 'zod';
import type { CommandAction } from '../core/runtime/action.js';
import { EXIT, InterruptedError, listenError, PayrecError } from '../core/runtime/errors.js';
import { isLoopback } from '../core/http/base-url.js';
import { parseOption } from '../core/runtime/options.js';
import { httpUrl } from '../registry/validators.js';
import type { ForwardedMemory } from '../listener/forwarded.js';
import type { Listener } from '../listener/handler.js';
import { commandAt, topCommand } from './tree.js';
import { fetchStored } from '../listener/notification-check.js';

// `webhook-notifications listen`: a local receiver for notifications (like
// `stripe listen`). The flow of one POST is in src/listener/handler.ts.

const port = z.string().regex(/^\d+$/, 'expected a port from 0 to 65535').transform(Number).refine((n) => n <= 65535, 'expected a port from 0 to 65535');
const host = z.string().regex(/^[A-Za-z0-9.:[\]-]{1,253}$/, 'expected a host name or IP address');

export function addListenCommand(program: Command, action: CommandAction): void {
  commandAt(topCommand(program, 'webhook-notifications'), [])
    .command('listen')
    .description('Receive notifications locally: verify each against the service, print it and forward it if authentic; Ctrl-C stops')
    .option('--port <n>', 'port to listen on (default 8788; 0 picks a free one)')
    .option('--host <host>', 'address to bind (default 127.0.0.1, loopback only)')
    .option('--forward-to <url>', 'POST each verified notification to this URL, once; the sender gets a 2xx only after its 2xx')
    .addHelpText(
      'after',
      '\nExamples:\n  $ payrec webhook-notifications listen --port 8788\n  $ payrec wn listen --forward-to http://localhost:3000/hooks --format jsonl\n\nPoint a plan webhook at it with: payrec fr webhook set --plan-id ID http://127.0.0.1:8788/\n' +
        'Forged or tampered notifications are refused (403) and never forwarded. An id once forwarded\nis never forwarded again: the same content is acknowledged (200), other content refused (403).\n' +
        'Only the app\'s 2xx is delivery; any other answer (3xx, 4xx, 429, 5xx) gives the sender 502, so it retries.\n',
    )
    .action(
      action(async (session, cmd) => {
        const o = cmd.opts() as { port?: string; host?: string; forwardTo?: string };
        const p = o.port === undefined ? 8788 : parseOption(port, o.port, '--port');
        const h = o.host === undefined ? '127.0.0.1' : parseOption(host, o.host, '--host');
        const forwardTo = o.forwardTo === undefined ? undefined : parseOption(httpUrl, o.forwardTo, '--forward-to');
        const client = await session.client(); // settings and key problems surface before we listen
        // Loaded only here: nothing else needs the listener, so other commands start without it.
        const [{ ForwardedMemory, stateDir }, { Listener }, { BODY_DEADLINE_MS }, { StoredNotifications }, { hostChecker }] = await Promise.all([
          import('../listener/forwarded.js'),
          import('../listener/handler.js'),
          import('../listener/inbound.js'),
          import('../listener/lookups.js'),
          import('../core/http/host-check.js'),
        ]);
        if (!isLoopback(h)) session.warn(`listening on ${h}: reachable from other machines`);
        let memory: ForwardedMemory | undefined;
        if (forwardTo) {
          const dir = stateDir(session.ctx.env);
          memory = await ForwardedMemory.open(dir, forwardTo).catch((err: NodeJS.ErrnoException) => {
            if (err instanceof PayrecError) throw err; // the trust check's own words
            throw new PayrecError(`cannot open the memory of forwarded notifications in ${dir}: ${err.code ?? err.message}`, EXIT.usage, 'set XDG_STATE_HOME to a writable folder');
          });
        }

        const stopping = new AbortController();
        let listener: Listener | undefined;
        // Node's own requestTimeout is checked only every connectionsCheckingInterval; the
        // body deadline is readBody's timer, these bound slow headers and idle sockets.
        const server = createServer({ requestTimeout: BODY_DEADLINE_MS + 5_000, headersTimeout: BODY_DEADLINE_MS, connectionsCheckingInterval: 1_000 }, (req, res) => {
          listener!.handle(req, res).catch(() => res.destroy());
        });
        await new Promise<void>((resolve, reject) => {
          server.once('error', (err) => reject(listenError(err, h, p)));
          server.listen(p, h, resolve);
        });
        const address = server.address();
        const actual = typeof address === 'object' && address ? address.port : p;
        listener = new Listener({
          session,
          lookups: new StoredNotifications((id) => fetchStored(client, id)),
          forward: forwardTo && memory ? { url: forwardTo, memory } : undefined,
          hostAllowed: hostChecker(h, actual),
          signal: stopping.signal,
        });
        const shown = h.includes(':') ? `[${h}]` : h;
        session.ctx.stderr.write(`Listening on http://${shown}:${actual}/${forwardTo ? `, forwarding to ${forwardTo}` : ''} (Ctrl-C to stop)\n`);

        await new Promise<void>((resolve) => {
          if (session.ctx.signal.aborted) return resolve();
          session.ctx.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        stopping.abort();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        throw new InterruptedError();
      }),
    );
}
