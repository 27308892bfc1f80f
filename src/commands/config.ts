import type { Command } from 'commander';
import { topCommand } from './tree.js';
import type { CommandAction } from '../core/runtime/action.js';
import { UsageError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { validateSettings, DEFAULT_BASE_URL, DEFAULT_CHAIN } from '../core/config/settings.js';
import { printable } from '../core/output/sanitize.js';
import { maskKey } from '../core/runtime/secrets.js';

// `payrec config …`: the stored profiles. Keys are set only by `auth login`, so they
// never pass through argv.

const KEYS = { chain: 'chain', 'base-url': 'baseUrl' } as const;
type Key = keyof typeof KEYS;

function keyName(raw: string): Key {
  if (raw === 'api-key') throw new UsageError('the API key is not set with config: use payrec auth login (it reads the key from a hidden prompt or stdin)');
  if (!(raw in KEYS)) throw new UsageError(`invalid KEY "${printable(raw)}": expected chain or base-url`);
  return raw as Key;
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
        const s = await session.settings({ repair: true });
        const rows = {
          profile: [s.profile, s.sources.profile],
          chain: [s.chain, s.sources.chain],
          'base-url': [s.baseUrl, s.sources.baseUrl],
          'api-key': [maskKey(s.apiKey), s.sources.apiKey ?? 'none'],
          'config-file': [await session.store.path(), ''],
        };
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
    .description('Print one setting in effect: chain or base-url')
    .argument('<key>', 'chain or base-url')
    .addHelpText('after', '\nExamples:\n  $ payrec config get chain\n')
    .action(
      action(async (session, cmd) => {
        const key = keyName(cmd.args[0]);
        const s = await session.settings({ repair: true });
        session.ctx.stdout.write(`${s[KEYS[key]]}\n`);
      }),
    );

  config
    .command('set')
    .description('Store a setting in the current (or --profile) profile: chain or base-url')
    .argument('<key>', 'chain or base-url')
    .argument('<value>', 'the value')
    .addHelpText('after', '\nExamples:\n  $ payrec config set chain polygon\n  $ payrec config set base-url http://127.0.0.1:8787 --profile local\n')
    .action(
      action(async (session, cmd) => {
        const key = keyName(cmd.args[0]);
        const value = cmd.args[1];
        const name = await profileName(session);
        const profile = (await session.store.profile(name)) ?? {};
        const next = { ...profile, [KEYS[key]]: value };
        validateSettings({
          profile: name,
          chain: next.chain ?? DEFAULT_CHAIN,
          baseUrl: next.baseUrl ?? DEFAULT_BASE_URL,
          // Named as typed here: `config set chain X` is the value of --chain in a profile.
          sources: { profile: 'flag', chain: 'flag', baseUrl: 'flag' },
        });
        await session.store.saveProfile(name, next);
        session.ctx.stderr.write(`Set ${key} of profile ${name} to ${value}\n`);
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
