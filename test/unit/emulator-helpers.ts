import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';

// Shared by the emulator tests: a running emulator and a fetch that sends a key.

export const NOW = 1_767_225_600; // 2026-01-01T00:00:00Z: fixed so that data is identical on every run

export async function start(opts: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ now: NOW, ...opts });
}

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = any>(
  emulator: Emulator,
  path: string,
  init: { method?: string; key?: string | null; body?: unknown; chain?: string } = {},
): Promise<Answer<T>> {
  const key = init.key === undefined ? emulator.keyFor(init.chain ?? 'bsc') : init.key;
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${emulator.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}
