import type { Command } from 'commander';
import { topCommand } from './tree.js';
import type { CommandAction } from '../core/runtime/action.js';
import { UsageError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { keyServiceOf, sameService, validateSettings, DEFAULT_BASE_URL, DEFAULT_CHAIN, checkRpcUrl, rpcInEffect } from '../core/config/settings.js';
import type { Profile } from '../core/config/config-store.js';
import { maskDbUrl, maskKey, maskRpcUrl } from '../core/runtime/secrets.js';
import { isDbUrl, parseServerUrl } from '../mirror/server-url.js';
import { effectiveSettings, runDefaults } from '../core/config/effective.js';
import { resolve } from 'node:path';
import { canonicalZone } from '../core/runtime/zone.js';
import { formatRow } from '../core/output/formats.js';
import { optionSchemas, parseOption } from '../core/runtime/options.js';
import { hasControlCharacters, printable } from '../core/output/sanitize.js';
import { parseCurrency } from '../values/currency.js';

// `payrec config …`: the stored profiles. Keys are set only by `auth login`, so they
// never pass through argv.

const KEYS = { chain: 'chain', 'base-url': 'baseUrl', rpc: 'rpc', tz: 'tz', format: 'format', db: 'db', timeout: 'timeout', retries: 'retries', currency: 'currency', concurrency: 'concurrency', feed: 'feeds' } as const;
type Key = keyof typeof KEYS;
const KEY_NAMES = Object.keys(KEYS).join(', ');

function keyName(raw: string): Key {
  if (raw === 'api-key') throw new UsageError('the API key is not set with config: use payrec auth login (it reads the key from a hidden prompt or stdin)');
  if (!Object.hasOwn(KEYS, raw)) throw new UsageError(`invalid KEY "${printable(raw)}": expected ${KEY_NAMES}`);
  return raw as Key;
}

/** Checks a run default as its flag would be checked; returns the value to store. */
function checkRunDefault(key: 'tz' | 'format' | 'db' | 'timeout' | 'retries' | 'currency' | 'concurrency', value: string): string {
  const named = `config set ${key}`;
  if (key === 'currency') return parseCurrency(value, named);
  if (key === 'tz') {
    const zone = canonicalZone(value);
    if (zone === undefined) throw new UsageError(`invalid ${named} "${printable(value)}": expected an IANA time zone name such as UTC or Europe/Berlin`);
    return zone;
  }
  if (key === 'format') {
    const format = parseOption(optionSchemas.format, value, named);
    const row = formatRow(format);
    if (row.needsFile) throw new UsageError(`invalid ${named} "${format}": ${row.noun} needs -o FILE, so it cannot be every run's format`, `name the file: -o report${row.extensions[0]} picks ${format} by itself`);
    return format;
  }
  if (key === 'timeout') return String(parseOption(optionSchemas.timeout, value, named));
  if (key === 'retries') return String(parseOption(optionSchemas.retries, value, named));
  if (key === 'concurrency') return String(parseOption(optionSchemas.concurrency, value, named));
  if (value === '' || hasControlCharacters(value)) throw new UsageError(`invalid ${named} "${printable(value)}": expected a file path without control characters`);
  if (isDbUrl(value)) return parseServerUrl(value, named) && value;
  return resolve(value);
}

async function profileName(session: Session): Promise<string> {
  return session.flags.profile ?? session.ctx.env.PAYREC_PROFILE ?? (await session.store.currentProfileName());
}

export function addConfigCommands(program: Command, action: CommandAction): void {
  const config = topCommand(program, 'config');

  config
    .command('list')
    .description('Show the settings in effect and where each comes from')
    .addHelpText('after', '\nExamples:\n  $ payrec config list\n  $ payrec config list --profile ci -f json\n')
    .action(
      action(async (session) => {
        const rows = await effectiveSettings(session);
        if (session.format === 'json') {
          const obj = Object.fromEntries(Object.entries(rows).map(([k, [v, src]]) => [k, { value: v, source: src || undefined }]));
          session.ctx.stdout.write(JSON.stringify(obj, null, 2) + '\n');
        } else {
          for (const [k, [v, src]] of Object.entries(rows)) session.ctx.stdout.write(`${k}\t${v}${src ? `\t(${src})` : ''}\n`);
        }
      }),
    );

  config
    .command('get')
    .description('Print one setting in effect: chain, base-url, rpc (masked), tz, format, db, timeout, retries, currency, concurrency or feed (per chain)')
    .argument('<key>', KEY_NAMES)
    .addHelpText('after', '\nExamples:\n  $ payrec config get chain\n')
    .action(
      action(async (session, cmd) => {
        const key = keyName(cmd.args[0]);
        const s = await session.settings({ repair: true });
        // The RPC URL is a secret (a provider's key lives in it): shown masked, as config list does.
        const rpc = key === 'rpc' ? (await rpcInEffect(s, session.store)).url : undefined;
        const feeds = key === 'feed' ? Object.entries((await session.store.profile(s.profile))?.feeds?.[s.chain] ?? {}).map(([t, a]) => `${t}=${a}`) : [];
        const value =
          key === 'rpc' ? (rpc ? maskRpcUrl(rpc) : '(none)') : key === 'feed' ? feeds.join(',') || '(none)' : key === 'chain' || key === 'base-url' ? s[KEYS[key]] : runDefaults(session)[key][0];
        session.ctx.stdout.write(`${value}\n`);
      }),
    );

  config
    .command('set')
    .description('Store a setting in the current (or --profile) profile: chain, base-url, rpc (per chain), tz, format, db, timeout, retries, currency, concurrency, or feed TOKEN ADDRESS (per chain)')
    .argument('<key>', KEY_NAMES)
    .argument('<value>', 'the value (for feed: the token)')
    .argument('[address]', 'for feed: the Chainlink proxy that prices the token on the chain (--chain or the profile\'s)')
    .addHelpText('after', '\nExamples:\n  $ payrec config set chain polygon\n  $ payrec config set currency EUR\n  $ payrec config set feed USDT 0x… --chain sandbox\n  $ payrec config set base-url http://127.0.0.1:8787 --profile local\n  $ payrec config set tz Europe/Berlin\n  $ payrec config set format csv --profile finance\n  $ payrec config set rpc https://bsc-dataseed.binance.org --chain bsc\n\nEach is a default for the profile\'s runs: a flag or an environment variable still wins\n(flag > environment > profile > default; payrec config list shows where each comes from).\n')
    .action(
      action(async (session, cmd) => {
        const key = keyName(cmd.args[0]);
        const raw = cmd.args[1];
        const name = await profileName(session);
        const profile = (await session.store.profile(name)) ?? {};
        if (key === 'feed') {
          // One proxy per chain and token, as the node is one per chain.
          const chain = session.flags.chain ?? session.ctx.env.PAYREC_CHAIN ?? profile.chain ?? DEFAULT_CHAIN;
          const address = cmd.args[2];
          if (raw === '' || hasControlCharacters(raw) || raw.length > 32) throw new UsageError(`invalid config set feed token "${printable(raw)}": expected a token symbol such as USDT`);
          if (!/^0x[0-9a-fA-F]{40}$/.test(address ?? '')) throw new UsageError(`invalid config set feed address "${printable(address ?? '')}": expected the feed proxy's address (0x and 40 hex digits)`, 'payrec config set feed TOKEN ADDRESS');
          await session.store.saveProfile(name, { ...profile, feeds: { ...profile.feeds, [chain]: { ...profile.feeds?.[chain], [raw]: address } } });
          session.ctx.stderr.write(`Set the feed of ${printable(raw)} on ${chain} in profile ${name} to ${address}\n`);
          return;
        }
        if (cmd.args[2] !== undefined) throw new UsageError(`config set ${key} takes one value`);
        if (key === 'rpc') {
          // One node per chain: the profile's chain (or --chain) names which.
          const chain = session.flags.chain ?? session.ctx.env.PAYREC_CHAIN ?? profile.chain ?? DEFAULT_CHAIN;
          checkRpcUrl(raw, 'config set rpc');
          await session.store.saveProfile(name, { ...profile, rpc: { ...profile.rpc, [chain]: raw } });
          session.ctx.stderr.write(`Set rpc of profile ${name} for ${chain} to ${maskRpcUrl(raw)}\n`);
          return;
        }
        const value = key === 'chain' || key === 'base-url' ? raw : checkRunDefault(key, raw);
        const next: Profile = { ...profile, [KEYS[key]]: value };
        // The stored key stays with the service it was stored for (as a flag or the environment cannot carry it elsewhere).
        const keyStays = key === 'base-url' && profile.apiKey !== undefined && !sameService(value, keyServiceOf(profile));
        if (key === 'base-url' && profile.apiKey !== undefined) next.keyBaseUrl = keyStays ? keyServiceOf(profile) : undefined;
        validateSettings({
          profile: name,
          chain: next.chain ?? DEFAULT_CHAIN,
          baseUrl: next.baseUrl ?? DEFAULT_BASE_URL,
          // Named as typed here: `config set chain X` is the value of --chain in a profile.
          sources: { profile: 'flag', chain: 'flag', baseUrl: 'flag' },
        });
        await session.store.saveProfile(name, next);
        session.ctx.stderr.write(`Set ${key} of profile ${name} to ${printable(maskDbUrl(value))}\n`);
        if (keyStays) session.warn(`the key of profile ${name} stays with ${printable(next.keyBaseUrl!)}; log in again for ${printable(value)}: payrec auth login --profile ${name} --base-url ${printable(value)}`);
      }),
    );

  config
    .command('profiles')
    .description('List stored profiles; * marks the current one')
    .addHelpText('after', '\nExamples:\n  $ payrec config profiles\n')
    .action(
      action(async (session) => {
        const problem = await session.store.problem();
        if (problem) session.warnConfig(problem);
        const stored = problem ? {} : await session.store.read();
        const current = stored.currentProfile ?? 'default';
        const profiles = Object.entries(stored.profiles ?? {});
        if (session.format === 'json') {
          const list = profiles.map(([name, p]) => ({ name, current: name === current, chain: p.chain ?? DEFAULT_CHAIN, baseUrl: p.baseUrl ?? DEFAULT_BASE_URL, key: maskKey(p.apiKey) }));
          session.ctx.stdout.write(JSON.stringify(list, null, 2) + '\n');
          return;
        }
        if (profiles.length === 0) session.notice('no stored profiles: run payrec auth login');
        for (const [name, p] of profiles) {
          session.ctx.stdout.write(`${name === current ? '*' : ' '} ${name}\t${p.chain ?? DEFAULT_CHAIN}\t${p.baseUrl ?? DEFAULT_BASE_URL}\t${maskKey(p.apiKey)}\n`);
        }
      }),
    );

  config
    .command('use')
    .description('Make a stored profile the current one')
    .argument('<profile>', 'profile name')
    .addHelpText('after', '\nExamples:\n  $ payrec config use ci\n')
    .action(
      action(async (session, cmd) => {
        const name = cmd.args[0];
        if (!(await session.store.profile(name))) throw new UsageError(`no profile named "${printable(name)}"`, 'list them with: payrec config profiles');
        await session.store.setCurrentProfile(name);
        session.ctx.stderr.write(`Now using profile ${name}\n`);
      }),
    );
}
