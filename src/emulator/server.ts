import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostChecker } from '../core/http/host-check.js';
import { KNOWN_CHAINS } from '../registry/validators.js';
import { parseJsonObject, type ApiRoute } from './api-route.js';
import { authenticate } from './auth.js';
import { CONTROL_PREFIX, controlRouter, type ControlState } from './control.js';
import { corruptReply } from './faults.js';
import { checkPathParams } from './path-params.js';
import { readRoutes } from './read-routes.js';
import { HttpError, errorReply, pageNotFound, type Reply } from './reply.js';
import { Router } from './router.js';
import { shortUrlRoutes } from './short-urls.js';
import { webhookRoutes } from './webhooks.js';
import { rpcChainOf } from './chain/rpc.js';

// The HTTP front: routes a request to the API (key checked, logged, maybe faulted) or to
// a control route, and writes the reply. Handlers return replies; only this file
// touches sockets, which keeps faults (reset, truncate, slow) in one place.

const MAX_BODY = 1024 * 1024;

/** `host`: the address it listens on; a request naming any other host is refused (DNS rebinding). */
export function createEmulatorServer(state: ControlState, host: string): Server {
  const api = new Router<ApiRoute>();
  for (const route of [...readRoutes(state.datasets), ...shortUrlRoutes(state.datasets, state.random), ...webhookRoutes(state.datasets)]) {
    api.add(route.method, route.template, route);
  }
  const control = controlRouter(state);

  let hostAllowed: ((header: string | undefined) => boolean) | undefined;
  const server = createServer((req, res) => {
    hostAllowed ??= hostChecker(host, (server.address() as AddressInfo).port);
    if (!hostAllowed(req.headers.host)) {
      // Before the body is read: a web page rebound to 127.0.0.1 gets nothing in, and no answer worth reading.
      res.setHeader('connection', 'close');
      return send(res, errorReply(403, 'Host is not this emulator\'s address (only its address or localhost, against DNS rebinding)'));
    }
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      // An HttpError from reading the body, or a bug: answer in the documented shape rather than hang the client.
      if (err instanceof HttpError) send(res, errorReply(err.status, err.message));
      else send(res, errorReply(500, `Emulator error: ${err instanceof Error ? err.message : String(err)}`));
    });
  });
  return server;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const received = performance.now();
    const url = new URL(req.url ?? '/', 'http://emulator');
    const method = req.method ?? 'GET';
    const body = await readBody(req);
    // The chains' JSON-RPC: a node's, so no key, no request log and no API faults.
    const rpcChain = rpcChainOf(url.pathname);
    if (rpcChain !== undefined) return send(res, state.rpc.reply(method, rpcChain, body));
    if (url.pathname === CONTROL_PREFIX || url.pathname.startsWith(`${CONTROL_PREFIX}/`)) {
      send(res, await answer(() => {
        const match = control.match(method, url.pathname);
        if (!match) return pageNotFound();
        return match.route({ query: url.searchParams, body: parseJsonObject(body), authorization: req.headers.authorization });
      }));
      return;
    }

    // A far API: the request travels, then is handled (the answer's way back is part of the wait).
    if (state.latencyMs > 0) await sleep(state.latencyMs);
    const retryAfter = state.rateLimit?.take();
    const fault = retryAfter === undefined ? state.faults.next() : undefined;
    const log = (status: number) =>
      state.requests.push({
        method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        status,
        connection: req.socket.remotePort ?? 0,
        seq: state.datasets.seq,
        at: Date.now(),
        received,
        answered: performance.now(),
      });
    if (fault === 'reset') {
      log(0);
      req.socket.destroy();
      return;
    }
    const reply =
      retryAfter !== undefined
        ? { ...errorReply(429, 'Too many requests: rate limit exceeded'), headers: { 'retry-after': String(retryAfter) } }
        : fault === '500' || fault === '502' || fault === '503'
        ? errorReply(Number(fault), 'Injected fault')
        : fault === '429'
          ? { ...errorReply(429, 'Too many requests'), headers: { 'retry-after': String(state.faults.current?.retryAfter ?? 1) } }
          : await answer(() => apiReply(method, url, req.headers.authorization, body));
    log(reply.status);
    if (fault === 'slow') await sleep(state.faults.current?.slowMs ?? 0);
    if (fault === 'truncate') truncate(res, reply);
    else send(res, fault ? corruptReply(fault, reply) : reply);
  }

  function apiReply(method: string, url: URL, authorization: string | undefined, body: string): Reply | Promise<Reply> {
    const match = api.match(method, url.pathname);
    if (!match) return pageNotFound();
    const chain = match.params.chain;
    if (!(KNOWN_CHAINS as readonly string[]).includes(chain)) return errorReply(404, `Unknown chain ${chain}`);
    const user = authenticate(authorization, chain);
    checkPathParams(match.route.template, match.params);
    return match.route.handle({ chain, user, params: match.params, query: url.searchParams, body });
  }
}

/** Runs a handler, turning a thrown HttpError into its error reply. */
async function answer(run: () => Reply | Promise<Reply>): Promise<Reply> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof HttpError) return errorReply(err.status, err.message);
    throw err;
  }
}

function send(res: ServerResponse, reply: Reply): void {
  const body = Buffer.from(reply.body);
  res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length, ...reply.headers });
  res.end(body);
}

/** Announces the full length, sends half, then drops the connection. */
function truncate(res: ServerResponse, reply: Reply): void {
  const body = Buffer.from(reply.body);
  res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length, ...reply.headers });
  res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new HttpError(413, 'Request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
