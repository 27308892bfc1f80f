import type { Command } from 'commander';
import { topCommand } from './tree.js';
import type { CommandAction } from '../core/runtime/action.js';
import { DryRunComplete, EXIT, InterruptedError, PayrecError, UsageError } from '../core/runtime/errors.js';
import { checkKey } from '../core/http/key-check.js';
import { createWriter } from '../core/output/writer.js';
import { ask, askHidden, readAll } from '../core/runtime/prompt.js';
import { checkApiKey, DEFAULT_BASE_URL, DEFAULT_CHAIN, validateSettings, type Settings } from '../core/config/settings.js';
import { KNOWN_CHAINS } from '../registry/validators.js';
import { printable } from '../core/output/sanitize.js';
import { keepSecret, maskKey } from '../core/runtime/secrets.js';

// `payrec auth login|status|logout`. The key is read from a hidden prompt or stdin,
// never from argv, and is shown only as its last four characters.

export { maskKey };

export function addAuthCommands(program: Command, action: CommandAction): void {
  const auth = topCommand(program, 'auth');

  auth
    .command('login')
    .description('Store an API key for a profile (read from a hidden prompt, or from stdin when piped)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ payrec auth login --chain sandbox\n  $ printf %s "$KEY" | payrec auth login --profile ci --chain bsc\n\nKeys are per chain: a bsc key does not work on polygon. The key is checked with one request before it is saved.\n',
    )
    .action(
      action(async (session) => {
        const { ctx, flags } = session;
        const profile = flags.profile ?? ctx.env.PAYREC_PROFILE ?? 'default';
        let chain = flags.chain ?? ctx.env.PAYREC_CHAIN;
        if (!chain && ctx.stdinIsTTY) chain = (await ask(ctx, `Chain (${KNOWN_CHAINS.join(', ')}) [${DEFAULT_CHAIN}]: `)) || undefined;
        const baseUrl = flags.baseUrl ?? ctx.env.PAYREC_BASE_URL ?? DEFAULT_BASE_URL;
        const s: Settings = {
          profile,
          chain: chain ?? DEFAULT_CHAIN,
          baseUrl,
          sources: { profile: 'flag', chain: 'flag', baseUrl: 'flag' },
        };
        validateSettings(s);
        const key = ctx.stdinIsTTY ? await askHidden(ctx, `API key for ${s.chain}: `) : (await readAll(ctx.stdin, 4096)).replace(/\r?\n$/, '');
        checkApiKey(key);
        keepSecret(key);
        const check = await checkKey(session, s, key);
        if (!check.ok) throw new PayrecError(`not saved: ${check.reason} by ${s.baseUrl} for chain ${s.chain}`, EXIT.auth, 'keys are per chain: check --chain');
        // The profile's other settings (tz, format… of config set) stay.
        const { baseUrl: _previousUrl, keyBaseUrl: _previousKeyUrl, ...kept } = (await session.store.profile(profile)) ?? {};
        await session.store.saveProfile(profile, {
          ...kept,
          chain: s.chain,
          ...(baseUrl !== DEFAULT_BASE_URL ? { baseUrl } : {}),
          apiKey: key,
        });
        const previous = await session.store.currentProfileName();
        await session.store.setCurrentProfile(profile);
        ctx.stderr.write(`Logged in: profile ${profile}, chain ${s.chain}, ${s.baseUrl}, key ${maskKey(key)}\n`);
        if (previous !== profile) ctx.stderr.write(`${profile} is now the current profile (it was ${previous}); payrec config use ${previous} goes back\n`);
      }),
    );

  auth
    .command('status')
    .description('Show the profile, chain, base URL and key in use (last 4 characters) and whether the key works')
    .addHelpText('after', '\nExamples:\n  $ payrec auth status\n  $ payrec auth status --profile ci -f json\n')
    .action(
      action(async (session) => {
        const s = await session.settings();
        // A service that cannot be asked still gets the table, with the reason: the
        // settings shown are what to check first. Its error decides the exit code.
        let failure: PayrecError | undefined;
        let check: { ok: boolean; reason?: string } = { ok: false, reason: 'no key' };
        if (s.apiKey) {
          try {
            check = await checkKey(session, s, s.apiKey);
          } catch (err) {
            if (!(err instanceof PayrecError) || err instanceof InterruptedError || err instanceof DryRunComplete) throw err;
            failure = err;
            check = { ok: false, reason: `not checked: ${err.message}` };
          }
        }
        const status = {
          profile: s.profile,
          chain: s.chain,
          baseUrl: s.baseUrl,
          key: maskKey(s.apiKey),
          keySource: s.sources.apiKey ?? 'none',
          works: check.ok,
          ...(check.reason ? { reason: check.reason } : {}),
          configFile: await session.store.path(),
        };
        // Through the output module like any record: a field/value table on a terminal,
        // `field<TAB>value` lines in a pipe, or json/jsonl/csv.
        const writer = createWriter(session.ctx.stdout, session.output('single', Object.keys(status)));
        await writer.write(status);
        await writer.end();
        if (failure) throw failure;
        if (!check.ok) throw new PayrecError(`not logged in: ${check.reason}`, EXIT.auth, 'run payrec auth login, or set PAYREC_API_KEY');
      }),
    );

  auth
    .command('logout')
    .description('Remove the stored key of a profile')
    .addHelpText('after', '\nExamples:\n  $ payrec auth logout\n  $ payrec auth logout --profile ci\n')
    .action(
      action(async (session) => {
        const { store, ctx } = session;
        const problem = await store.problem();
        if (problem?.kind === 'unreadable') {
          // Its key cannot be taken out alone: the file goes, and the key with it.
          await store.removeFile();
          ctx.stderr.write(`Logged out: ${problem.message}, so it was removed, with every profile it held; payrec auth login stores a key again\n`);
          return;
        }
        const stored = await store.read({ untrusted: 'allow' }); // taking a key out of a file others can change is still safe
        const name = session.flags.profile ?? ctx.env.PAYREC_PROFILE ?? stored.currentProfile ?? 'default';
        const profile = stored.profiles && Object.hasOwn(stored.profiles, name) ? stored.profiles[name] : undefined;
        if (!profile?.apiKey) throw new UsageError(`profile "${printable(name)}" has no stored key`);
        const { apiKey: _removed, keyBaseUrl: _itsService, ...rest } = profile;
        await store.saveProfile(name, rest, { untrusted: 'allow' });
        ctx.stderr.write(`Logged out: the key of profile ${name} was removed\n`);
        if (problem) session.warnConfig(problem, false);
      }),
    );
}
