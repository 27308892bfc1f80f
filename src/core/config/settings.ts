import { CHAIN_NAME, CHAIN_NAME_EXPECTED } from '../../registry/chain-name.js';
import type { ConfigFileError, ConfigStore, Profile } from './config-store.js';
import { PayrecError, EXIT, UsageError } from '../runtime/errors.js';
import { checkBaseUrl, isLoopback } from '../http/base-url.js';
import { hasControlCharacters, printable } from '../output/sanitize.js';
import { keepRpcSecret, keepSecret, maskRpcUrl, mayHoldKey } from '../runtime/secrets.js';

// Where each setting comes from, in order: flag > environment > profile > default.

export const DEFAULT_BASE_URL = 'https://api.8pay.network';
export const DEFAULT_CHAIN = 'bsc';

/** `--emulator`: the built-in emulator's own address and demo key. */
export type Source = 'flag' | 'env' | 'profile' | 'default' | '--emulator';

export interface Settings {
  profile: string;
  chain: string;
  baseUrl: string;
  apiKey?: string;
  /** The profile's key was not used: it is kept for this other service. */
  keyWithheldFor?: string;
  /** The chain's JSON-RPC URL (--rpc, PAYREC_RPC_URL, the profile's for this chain), for --verify and payrec verify. */
  rpcUrl?: string;
  sources: { chain: Source; baseUrl: Source; apiKey?: Source; profile: Source; rpcUrl?: Source };
}

export interface SettingFlags {
  profile?: string;
  chain?: string;
  baseUrl?: string;
  rpc?: string;
}

/**
 * `tolerate`: for the commands that must work while the config file cannot be used
 * (`config list`, --emulator), told why; the stored profiles are then left out.
 */
export async function resolveSettings(
  flags: SettingFlags,
  env: NodeJS.ProcessEnv,
  store: ConfigStore,
  tolerate?: (problem: ConfigFileError) => void,
): Promise<Settings> {
  // Read the store only when a profile could matter: env alone is enough for CI.
  let needStore = !(flags.chain ?? env.PAYREC_CHAIN) || !(flags.baseUrl ?? env.PAYREC_BASE_URL) || !env.PAYREC_API_KEY;
  const problem = needStore ? await store.problem() : undefined;
  if (problem) {
    if (!tolerate) throw problem;
    tolerate(problem);
    needStore = false;
  }
  const current = needStore ? (await store.read()).currentProfile : undefined; // chosen by `config use`
  const [profile, profileSource] = pick(flags.profile, env.PAYREC_PROFILE, current);
  const name = profile ?? 'default';
  const stored: Profile = needStore ? ((await store.profile(name)) ?? {}) : {};
  if (profile && profileSource !== 'profile' && needStore && !(await store.profile(name))) {
    throw new UsageError(`no profile named "${printable(name)}"`, 'list them with: payrec config profiles');
  }

  const [chain, chainSource] = pick(flags.chain, env.PAYREC_CHAIN, stored.chain);
  const [baseUrl, baseUrlSource] = pick(flags.baseUrl, env.PAYREC_BASE_URL, stored.baseUrl);
  let [apiKey, apiKeySource] = pick(undefined, env.PAYREC_API_KEY, stored.apiKey);
  // A stored key goes only to its own profile's service (as gh keeps a token per host):
  // --base-url or PAYREC_BASE_URL pointing elsewhere must not carry it there.
  const keyService = keyServiceOf(stored);
  let keyWithheldFor: string | undefined;
  if (apiKeySource === 'profile' && baseUrl !== undefined && !sameService(baseUrl, keyService)) {
    [apiKey, keyWithheldFor] = [undefined, keyService];
  }

  const [rpcUrl, rpcSource] = pick(flags.rpc, env.PAYREC_RPC_URL, stored.rpc?.[chain ?? DEFAULT_CHAIN]);
  // Stryker disable next-line StringLiteral: '' or any other text that is no URL, keepRpcSecret keeps nothing of it.
  keepRpcSecret(rpcUrl ?? '');
  const settings: Settings = {
    profile: name,
    chain: chain ?? DEFAULT_CHAIN,
    baseUrl: baseUrl ?? DEFAULT_BASE_URL,
    apiKey,
    keyWithheldFor,
    rpcUrl,
    sources: { profile: profileSource, chain: chainSource, baseUrl: baseUrlSource, apiKey: apiKey ? apiKeySource : undefined, rpcUrl: rpcUrl ? rpcSource : undefined },
  };
  validateSettings(settings);
  keepSecret(apiKey);
  return settings;
}

/** Profile names are keys in the config file and appear in messages: keep them plain. */
const PROFILE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** Names a profile cannot take: the demo mirror's, and the ones every JavaScript object has (a profile so named would save nothing). */
const RESERVED_PROFILES = new Set(['emulator', '__proto__', 'constructor', 'prototype']);

/** `invalid X "value": why`, X named as the user gave it: `--chain`, `PAYREC_CHAIN`, or the profile's `chain`. */
function invalid(s: Settings, setting: 'profile' | 'chain' | 'baseUrl', why: string): UsageError {
  const [flag, variable, stored] = {
    profile: ['--profile', 'PAYREC_PROFILE', 'current profile'],
    chain: ['--chain', 'PAYREC_CHAIN', 'chain'],
    baseUrl: ['--base-url', 'PAYREC_BASE_URL', 'base-url'],
  }[setting];
  const value = `"${printable(s[setting])}"`;
  const source = s.sources[setting];
  if (source === 'env') return new UsageError(`invalid ${variable} ${value}: ${why}`);
  if (source === 'profile') {
    return new UsageError(`invalid ${stored} ${value}${setting === 'profile' ? '' : ` in profile "${s.profile}"`}: ${why}`, setting === 'profile' ? 'payrec config use NAME' : `payrec config set ${stored} VALUE`);
  }
  return new UsageError(`invalid ${flag} ${value}: ${why}`);
}

export function validateSettings(s: Settings): void {
  if (!PROFILE_NAME.test(s.profile)) throw invalid(s, 'profile', 'expected a name of at most 64 letters, digits, _ . -');
  // In any case: on a case-insensitive file system Emulator.duckdb is emulator.duckdb.
  const reserved = s.profile.toLowerCase();
  if (RESERVED_PROFILES.has(reserved)) throw invalid(s, 'profile', `"${s.profile}" is reserved (${reserved === 'emulator' ? "--emulator's demo mirror is emulator.duckdb" : 'a name JavaScript objects already use'}); choose another`);
  if (!CHAIN_NAME.test(s.chain)) throw invalid(s, 'chain', CHAIN_NAME_EXPECTED);
  try {
    checkBaseUrl(s.baseUrl);
  } catch (err) {
    // checkBaseUrl's own words after the value ("expected an https:// URL"), named as given.
    const why = (err as Error).message.replace(/^invalid base URL "[^]*?": /, '');
    if (why === (err as Error).message) throw err;
    throw invalid(s, 'baseUrl', why);
  }
  if (s.apiKey !== undefined) checkApiKey(s.apiKey, s.sources.apiKey === 'env' ? 'PAYREC_API_KEY' : `the key of profile "${s.profile}"`);
  if (s.rpcUrl !== undefined) checkRpcUrl(s.rpcUrl, s.sources.rpcUrl === 'flag' ? '--rpc' : s.sources.rpcUrl === 'env' ? 'PAYREC_RPC_URL' : `rpc of profile "${s.profile}" for ${s.chain}`);
}

/**
 * The chain's RPC URL in effect: the settings' (--rpc, PAYREC_RPC_URL, or the profile's
 * when the settings read it), else the profile's for this chain, which the settings
 * leave unread when variables give everything else (a CI job with PAYREC_API_KEY).
 */
export async function rpcInEffect(s: Settings, store: ConfigStore): Promise<{ url?: string; source: Source | 'none' }> {
  // Stryker disable next-line StringLiteral: the settings name a source whenever they hold a URL ('profile' is for the type alone).
  if (s.rpcUrl) return { url: s.rpcUrl, source: s.sources.rpcUrl ?? 'profile' };
  if (await store.problem()) return { source: 'none' };
  const url = (await store.profile(s.profile))?.rpc?.[s.chain];
  if (url) keepRpcSecret(url);
  return url ? { url, source: 'profile' } : { source: 'none' };
}

/** An RPC URL: http(s), no control characters. The message shows it masked (it may hold a provider's key). */
export function checkRpcUrl(url: string, name: string): void {
  // Stryker disable next-line BooleanLiteral: the try or the catch sets it before it is read.
  let ok = false;
  try {
    const u = new URL(url);
    ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && !hasControlCharacters(url);
  } catch {
    ok = false;
  }
  if (!ok) throw new UsageError(`invalid ${name} "${maskRpcUrl(url)}": expected an http:// or https:// URL of a JSON-RPC node`);
  // A provider's key in the URL travels as the API key may: over https, or plain http to this machine.
  const u = new URL(url);
  if (u.protocol === 'http:' && !isLoopback(u.hostname) && mayHoldKey(u)) {
    throw new UsageError(
      `refusing to send ${name} "${maskRpcUrl(url)}" over plain http to ${u.host}: its path, query or user part may hold a provider's key`,
      'use https://, or http:// only for a node on this machine (a loopback address) or a URL with nothing after the host',
    );
  }
}

export function checkApiKey(key: string, name = 'the API key'): void {
  // Never echo the key itself, not even in this message.
  if (key.length === 0) throw new UsageError(`${name} is empty`);
  if (/\s/.test(key) || hasControlCharacters(key)) {
    throw new UsageError(`${name} contains whitespace, a newline or a control character`, 'copy the key again without line breaks');
  }
  if (key.length > 512) throw new UsageError(`${name} is longer than 512 characters`);
}

export function requireKey(s: Settings): string {
  if (!s.apiKey && s.keyWithheldFor !== undefined) {
    const from = {
      flag: '--base-url',
      env: 'PAYREC_BASE_URL',
      profile: `base-url of profile "${s.profile}"`,
      // A key is withheld only from a base URL someone gave, and --emulator brings its own key: never read, but the type asks for them.
      // Stryker disable next-line StringLiteral: never read (above).
      '--emulator': '--emulator',
      // Stryker disable next-line StringLiteral: never read (above).
      default: 'the default',
    }[s.sources.baseUrl];
    throw new PayrecError(
      `the key of profile "${s.profile}" is kept for ${printable(s.keyWithheldFor)}, not for ${printable(s.baseUrl)} (${from}): a stored key goes only to its own service`,
      EXIT.auth,
      s.sources.baseUrl === 'profile'
        ? `log in again for that service: payrec auth login --profile ${s.profile} --base-url ${printable(s.baseUrl)}`
        : `set PAYREC_API_KEY for that service, or keep its key in a profile of its own: payrec auth login --profile NAME --base-url ${printable(s.baseUrl)}`,
    );
  }
  if (!s.apiKey) {
    throw new PayrecError(
      `no API key for profile "${s.profile}" (chain ${s.chain})`,
      EXIT.auth,
      'set PAYREC_API_KEY, run payrec auth login, or try payrec --emulator …',
    );
  }
  return s.apiKey;
}

/** The service a profile's key was stored for: where it was logged in, which `config set base-url` does not move. */
export function keyServiceOf(p: Profile): string {
  return p.keyBaseUrl ?? p.baseUrl ?? DEFAULT_BASE_URL;
}

/** Two base URLs name one service: the same scheme, host, port and path (a trailing slash aside). */
export function sameService(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      const url = new URL(u);
      return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
    } catch {
      return u;
    }
  };
  return norm(a) === norm(b);
}

function pick(flag: string | undefined, env: string | undefined, profile: string | undefined): [string | undefined, Source] {
  if (flag !== undefined) return [flag, 'flag'];
  if (env !== undefined && env !== '') return [env, 'env'];
  if (profile !== undefined) return [profile, 'profile'];
  return [undefined, 'default'];
}
