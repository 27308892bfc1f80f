import { KNOWN_CHAINS } from '../../registry/chain-name.js';

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

/**
 * Forgets the keys kept so far. payrec's own process never needs it (its keys go with it);
 * the tests that run payrec inside their worker call it once no run is left, so one
 * run's key (the emulator's `prk_demo_ethereum`) does not mask a later run's words.
 */
export function forgetSecrets(): void {
  keys.clear();
}

/** A key as it may be shown: its last four characters at most. */
export function maskKey(key: string | undefined): string {
  if (!key) return '(none)';
  return key.length <= 8 ? '****' : `****${key.slice(-4)}`;
}

/** Consecutive characters of a key that are masked wherever they appear (a key cut short, or split across lines, is still a key). */
const RUN = 8;

/** `text` with every key of this run masked: whole, in base64, hex or URL encoding, or any run of 8 of its characters. */
export function maskSecrets(text: string): string {
  for (const key of keys) {
    if (text.includes(key)) text = text.replaceAll(key, maskKey(key));
    for (const form of encodings(key)) if (form !== key && text.includes(form)) text = text.replaceAll(form, '****');
    text = maskRuns(text, key);
  }
  return text;
}

/**
 * How a key travels in other clothes: base64 (Basic auth, tokens in JSON) and base64url,
 * hex, percent-encoding (of what URLs must encode, or of every byte).
 */
function encodings(key: string): string[] {
  const bytes = Buffer.from(key);
  const hex = bytes.toString('hex');
  const everyByte = hex.replace(/../g, '%$&');
  return [...base64Forms(bytes), hex, hex.toUpperCase(), encodeURIComponent(key), everyByte, everyByte.toUpperCase()];
}

/**
 * The base64 characters that encode the key alone, at each of the three offsets it can
 * start at in a longer encoded text (Basic auth encodes `user:key`): the characters that
 * also carry bits of what comes before or after it differ from text to text.
 */
function base64Forms(bytes: Buffer): string[] {
  const forms: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(2)]).toString('base64');
    // Character j holds bits 6j to 6j+5: keep those whose bits all lie within the key's bytes.
    const stable = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    forms.push(stable, stable.replaceAll('+', '-').replaceAll('/', '_'));
  }
  const whole = bytes.toString('base64');
  return [whole, whole.replace(/=+$/, ''), ...forms];
}

/** Replaces every stretch of `text` that is RUN or more consecutive characters of `key`. */
function maskRuns(text: string, key: string): string {
  if (key.length < RUN) return text;
  const windows = new Set<string>();
  for (let k = 0; k + RUN <= key.length; k++) windows.add(key.slice(k, k + RUN));
  if (![...windows].some((w) => text.includes(w))) return text;
  let out = '';
  for (let i = 0; i < text.length; ) {
    let longest = 0;
    for (let k = 0; k + RUN <= key.length; k++) {
      if (!text.startsWith(key.slice(k, k + RUN), i)) continue;
      let n = RUN;
      while (i + n < text.length && k + n < key.length && text[i + n] === key[k + n]) n++;
      longest = Math.max(longest, n);
    }
    if (longest > 0) (out += '****'), (i += longest);
    else (out += text[i]), i++;
  }
  return out;
}

// The chain's RPC URL is a secret too: providers put the account's key in its path,
// query or user part (https://…/v3/KEY, ?apikey=KEY, https://user:KEY@…).

/** An RPC URL as it may be shown: scheme and host only, the rest masked. */
export function maskRpcUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${mayHoldKey(u) ? '/****' : ''}`;
  } catch {
    return '****';
  }
}

/** Whether an RPC URL has more than a scheme and a host: what may be a provider's key. */
export function mayHoldKey(u: URL): boolean {
  return u.username !== '' || u.password !== '' || u.pathname.replace(/\/+$/, '') !== '' || u.search !== '' || u.hash !== '';
}

/**
 * A part of an RPC URL that names a chain, in words (`/ethereum`, `/polygon-mainnet`):
 * what is left without the chain's name and separators is shorter than a key's run. As a
 * secret it would be masked out of the messages that name a chain (`--chain ethereum`).
 */
function namesChain(part: string): boolean {
  const lower = part.toLowerCase();
  if (!KNOWN_CHAINS.some((chain) => lower.includes(chain))) return false;
  return KNOWN_CHAINS.reduce((text, chain) => text.replaceAll(chain, ''), lower).replace(/[-_.]/g, '').length < RUN;
}

/** Remembers an RPC URL's parts that may be a provider's key, so maskSecrets masks them wherever they appear. */
export function keepRpcSecret(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return;
  }
  const decoded = (p: string) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  };
  const parts = [u.username, u.password, ...u.pathname.split('/'), ...u.searchParams.values(), u.hash.slice(1)];
  for (const part of parts) {
    if (part.length < RUN || namesChain(decoded(part))) continue;
    keepSecret(part);
    keepSecret(decoded(part));
  }
}

// A mirror's database URL (--db postgres://…) is a secret too: it names the server, the
// account and the database a team's records live in.

/** Whether --db (or PAYREC_DB, a profile's db) names a PostgreSQL server rather than a file. */
export const isDbUrl = (text: string): boolean => /^postgres(ql)?:\/\//i.test(text);

/** A mirror's location as it may be shown: a file as it is, a database URL by its scheme and host only. */
export function maskDbUrl(text: string): string {
  if (!isDbUrl(text)) return text;
  try {
    const u = new URL(text);
    return `${u.protocol}//${u.host}/****`;
  } catch {
    return `${text.slice(0, text.indexOf(':'))}://****`;
  }
}
