import { UsageError } from '../runtime/errors.js';
import { hasControlCharacters, printable } from '../output/sanitize.js';

// What a base URL may be, checked when settings are read: apart from the HTTP client,
// so that commands that send no request do not load undici to check a setting.

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function isLoopback(hostname: string): boolean {
  return LOOPBACK.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * Checks a base URL before any request: the key must never travel in clear text,
 * so plain http is accepted only for loopback addresses (the emulator).
 */
export function checkBaseUrl(raw: string): URL {
  // The URL parser would percent-encode them; shown in messages and `config list`, they would act on the terminal.
  if (hasControlCharacters(raw)) throw new UsageError(`invalid base URL "${printable(raw)}": expected an https:// URL without control characters (escapes, bidi overrides)`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`invalid base URL "${printable(raw)}": expected an https:// URL such as https://api.8pay.network`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`invalid base URL "${printable(raw)}": expected an https:// URL`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new UsageError(
      `refusing to send the API key over plain http to ${url.host}`,
      'use https://, or http:// only for a loopback address such as the emulator',
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new UsageError(`invalid base URL "${printable(raw)}": expected no credentials, query or fragment`);
  }
  return url;
}
