// The API keys of this run. A server may send one back in its text (gateways and debug
// proxies echo the request's `Authorization: Bearer prk_…` in their error bodies), so
// every message that reaches the user (errors, warnings, notices, --debug) shows each
// key masked, as `auth status` does: never more than its last four characters.

const keys = new Set<string>();

/** Shortest key worth masking: a shorter one would mask ordinary words (checkApiKey allows any length). */
const SHORTEST = 6;

/** Remembers a key of this run (from PAYREC_API_KEY, a profile, or `auth login`). */
export function keepSecret(key: string | undefined): void {
  if (key && key.length >= SHORTEST) keys.add(key);
}

/** A key as it may be shown: its last four characters at most. */
export function maskKey(key: string | undefined): string {
  if (!key) return '(none)';
  return key.length <= 8 ? '****' : `****${key.slice(-4)}`;
}

/** `text` with every key of this run masked. */
export function maskSecrets(text: string): string {
  for (const key of keys) if (text.includes(key)) text = text.replaceAll(key, maskKey(key));
  return text;
}
