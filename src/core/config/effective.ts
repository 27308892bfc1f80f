import type { Session } from '../runtime/session.js';
import { maskDbUrl, maskKey, maskRpcUrl } from '../runtime/secrets.js';
import { rpcInEffect } from './settings.js';
import { CEILING } from '../http/request-window.js';

// Every setting in effect and where it came from (flag, env VAR, profile NAME,
// default), as `payrec config list` and `payrec doctor` show them.

type RunDefault = 'tz' | 'format' | 'db' | 'timeout' | 'retries' | 'currency' | 'concurrency';

/** The run defaults in effect, each as [value, source]. */
export function runDefaults(session: Session): Record<RunDefault, [string, string]> {
  const { flags, ctx, stored } = session;
  const from = (flag: string | undefined, variable: string | undefined, key: keyof typeof stored.defaults, fallback: string): [string, string] => {
    if (flag !== undefined) return [flag, 'flag'];
    if (variable !== undefined && ctx.env[variable]) return [ctx.env[variable]!, `env ${variable}`];
    if (stored.defaults[key] !== undefined) return [stored.defaults[key]!, `profile ${stored.profile}`];
    return [fallback, 'default'];
  };
  return {
    tz: from(flags.tz, 'PAYREC_TZ', 'tz', 'UTC'),
    format: from(flags.format, 'PAYREC_FORMAT', 'format', "table (or from -o's extension)"),
    // A database URL is a secret: scheme and host only.
    db: ((d) => [maskDbUrl(d[0]), d[1]] as [string, string])(from(undefined, 'PAYREC_DB', 'db', '<XDG data dir>/payrec/<profile>.duckdb')),
    timeout: from(flags.timeout, 'PAYREC_TIMEOUT', 'timeout', '30'),
    retries: from(flags.retries, 'PAYREC_RETRIES', 'retries', '3'),
    // --currency is a list's flag, not a global one: the profile's, or none.
    currency: stored.defaults.currency !== undefined ? [stored.defaults.currency, `profile ${stored.profile}`] : ['(none)', 'default'],
    // The most pages at once while payrec finds the pace (a list's --concurrency fixes it for one run).
    concurrency: from(undefined, undefined, 'concurrency', String(CEILING)),
  };
}

/** Every setting as [value, source]: the profile's own (chain, base URL, key shown by its last 4 characters), the run defaults, and the config file (no source). */
export async function effectiveSettings(session: Session): Promise<Record<string, [string, string]>> {
  const s = await session.settings({ repair: true });
  const rpc = await rpcInEffect(s, session.store);
  return {
    profile: [s.profile, s.sources.profile],
    chain: [s.chain, s.sources.chain],
    'base-url': [s.baseUrl, s.sources.baseUrl],
    'api-key': [maskKey(s.apiKey), s.sources.apiKey ?? 'none'],
    // A provider's key lives in the URL: scheme and host only.
    rpc: [rpc.url ? maskRpcUrl(rpc.url) : '(none)', rpc.source],
    ...runDefaults(session),
    'config-file': [await session.store.path(), ''],
  };
}
