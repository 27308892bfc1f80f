import { ApiError, listenError, NetworkError } from '../core/runtime/errors.js';
import { formatDuration } from '../core/runtime/time.js';
import { KNOWN_CHAINS } from '../registry/validators.js';
import { CONTROL_PREFIX } from './control.js';
import { demoKey } from './fixtures.js';
import { startEmulator, type Emulator, type EmulatorOptions } from './index.js';
import { CHAIN_IDS } from '../chain/model.js';

// What `payrec emulator start|trigger` run: the command layer parses flags, these do the work.

export type EmulatorStartOptions = Pick<EmulatorOptions, 'port' | 'host' | 'records' | 'seed' | 'now' | 'faults' | 'live' | 'latencyMs' | 'rateLimit' | 'delivery'>;

/** Starts the emulator, prints how to use it, and serves until `signal` aborts. */
export async function runEmulatorStart(opts: EmulatorStartOptions, out: NodeJS.WritableStream, signal: AbortSignal): Promise<void> {
  const emulator = await startEmulator(opts).catch((err: unknown) => {
    throw listenError(err, opts.host ?? '127.0.0.1', opts.port ?? 0);
  });
  try {
    const width = Math.max(...KNOWN_CHAINS.map((c) => c.length));
    const urlWidth = Math.max(...KNOWN_CHAINS.map((c) => emulator.rpcUrl(c).length));
    out.write(
      [
        `payrec emulator listening on ${emulator.url}`,
        '',
        'Demo API keys (any prk_demo_<chain>_<name> is another user of that chain):',
        ...KNOWN_CHAINS.map((chain) => `  ${chain.padEnd(width)}  ${demoKey(chain)}`),
        '',
        "Each chain's JSON-RPC (a node of the records' transactions; no key):",
        ...KNOWN_CHAINS.map((chain) => `  ${chain.padEnd(width)}  ${emulator.rpcUrl(chain).padEnd(urlWidth)}  chain id ${CHAIN_IDS[chain]}`),
        '',
        'Try:',
        `  PAYREC_BASE_URL=${emulator.url} PAYREC_API_KEY=${demoKey('bsc')} payrec one-time transfers`,
        '',
        `Fixtures (ids present in the data): ${emulator.url}${CONTROL_PREFIX}/fixtures?chain=bsc`,
        ...liveLines(emulator),
        ...paceLines(opts),
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
    if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  } finally {
    await emulator.close();
  }
}

/** How far and how strict the API seems, when --latency or --rate-limit says. */
function paceLines(opts: EmulatorStartOptions): string[] {
  const parts = [opts.latencyMs ? `${opts.latencyMs} ms away` : '', opts.rateLimit ? `at most ${opts.rateLimit} requests/s (429 with Retry-After beyond)` : ''].filter(Boolean);
  return parts.length ? ['', `The API answers ${parts.join(', ')}.`] : [];
}

/** What the live traffic does and where to watch or change it; nothing when it is off. */
function liveLines(emulator: Emulator): string[] {
  const live = emulator.live.status();
  if (!live.running) return [];
  const percent = (share: number) => `${Number((share * 100).toFixed(2))} %`;
  return [
    '',
    `Live traffic: ${live.rate} records/s, ${percent(live.lateFraction)} late (up to ${formatDuration(live.lateMaxSeconds)}), ${percent(live.pendingFraction)} pending` +
      (live.removeFraction + live.moveFraction > 0 ? `, ${percent(live.removeFraction)} removed, ${percent(live.moveFraction)} moved` : ''),
    `  status, start, stop: GET|POST|DELETE ${emulator.url}${CONTROL_PREFIX}/live`,
    `  ground truth:        GET ${emulator.url}${CONTROL_PREFIX}/records?chain=bsc&collection=one-time/transfers`,
  ];
}

export interface TriggerBody {
  chain: string;
  event: string;
  planId: string;
  /** Product of the event; the emulator infers it from the plan or the event when absent. */
  type?: string;
}

/** Fires an event on a running emulator, with the chain's demo key; answers {notification, delivered}. */
export async function triggerEvent(baseUrl: string, apiKey: string | undefined, body: TriggerBody): Promise<unknown> {
  const url = `${baseUrl.replace(/\/+$/, '')}${CONTROL_PREFIX}/trigger`;
  let response: Response;
  try {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    throw new NetworkError(`cannot reach the emulator at ${baseUrl}${cause}`, 'start one with: payrec emulator start');
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError(`unexpected answer from ${url} (HTTP ${response.status}): is ${baseUrl} an emulator?`, response.status, 'emulator.trigger');
  }
  if (!response.ok) {
    const message = (parsed as { error?: { message?: string } }).error?.message ?? `HTTP ${response.status}`;
    throw new ApiError(message, response.status, 'emulator.trigger');
  }
  return parsed;
}
