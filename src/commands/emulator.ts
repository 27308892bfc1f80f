import type { Command } from 'commander';
import { topCommand } from './tree.js';
import type { CommandAction } from '../core/runtime/action.js';
import { UsageError } from '../core/runtime/errors.js';
import { parseOption } from '../core/runtime/options.js';
import { hasControlCharacters, terminalJson } from '../core/output/sanitize.js';
import { hexId } from '../registry/validators.js';
import { z } from 'zod';
import { parseDuration, parseTime } from '../core/runtime/time.js';
import { printable } from '../core/output/sanitize.js';
import { isLoopback } from '../core/http/base-url.js';
import { DEFAULT_FAULT_KINDS, FAULT_KINDS, MAX_LATENCY_MS, type FaultKind, type FaultOptions } from '../emulator/faults.js';
import { MAX_LATE_SECONDS, MAX_LIVE_RATE, type LiveOptions } from '../emulator/live-options.js';
import { MAX_RATE_LIMIT } from '../emulator/rate-limit.js';

// `payrec emulator start|trigger`: the built-in emulator as a long-running server,
// and a way to fire webhook events at a running one.

const port = z.string().regex(/^\d+$/, 'expected a port from 0 to 65535').transform(Number).refine((n) => n <= 65535, 'expected a port from 0 to 65535');
const count = z.string().regex(/^\d+$/, 'expected a whole number').transform(Number).refine((n) => n >= 1 && n <= 5_000_000, 'expected a whole number from 1 to 5,000,000');
const seed = z.string().regex(/^\d+$/, 'expected a whole number').transform(Number);
const event = z.string().regex(/^[A-Za-z]{1,64}$/, 'expected an event name such as Billing or Payment');
const product = z.string().regex(/^[a-z][a-z-]{0,63}$/, 'expected a product such as fixed-recurring or one-time');

const latency = z.string().regex(/^\d+$/, 'expected whole milliseconds, such as 150').transform(Number).refine((n) => n <= MAX_LATENCY_MS, `expected whole milliseconds from 0 to ${MAX_LATENCY_MS}`);
const rateLimit = z
  .string()
  .regex(/^\d+(\.\d+)?$/, 'expected requests a second, such as 20 or 0.5')
  .transform(Number)
  .refine((n) => n > 0 && n <= MAX_RATE_LIMIT, `expected requests a second, more than 0 and at most ${MAX_RATE_LIMIT}`);
const share = z.string().regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'expected a share from 0 to 1, such as 0.1').transform(Number);
const liveRate = z
  .string()
  .regex(/^\d+(\.\d+)?$/, 'expected records per second, such as 150 or 0.5')
  .transform(Number)
  .refine((n) => n > 0 && n <= MAX_LIVE_RATE, `expected records per second, more than 0 and at most ${MAX_LIVE_RATE}`);

function parseFaults(o: Record<string, string | undefined>): FaultOptions | undefined {
  if (o.faultRate === undefined) {
    if (o.faultKinds !== undefined || o.faultSeed !== undefined) throw new UsageError('--fault-kinds and --fault-seed go with --fault-rate');
    return undefined;
  }
  const kinds = o.faultKinds === undefined ? DEFAULT_FAULT_KINDS : (o.faultKinds.split(',') as FaultKind[]);
  const unknown = kinds.filter((k) => !FAULT_KINDS.includes(k));
  if (unknown.length) throw new UsageError(`invalid --fault-kinds "${unknown.join(',')}": expected some of ${FAULT_KINDS.join(', ')}`);
  return {
    rate: parseOption(share, o.faultRate, '--fault-rate'),
    kinds,
    seed: o.faultSeed === undefined ? undefined : parseOption(seed, o.faultSeed, '--fault-seed'),
  };
}

const LIVE_FLAGS = {
  lateFraction: '--late-fraction',
  lateMax: '--late-max',
  pendingFraction: '--pending-fraction',
  removeFraction: '--remove-fraction',
  moveFraction: '--move-fraction',
} as const;

function parseLive(o: Record<string, string | undefined>): LiveOptions | undefined {
  if (o.live === undefined) {
    const given = Object.entries(LIVE_FLAGS).filter(([name]) => o[name] !== undefined).map(([, flag]) => flag);
    if (given.length > 0) throw new UsageError(`${given.join(' and ')} ${given.length === 1 ? 'goes' : 'go'} with --live`, 'add --live RATE (records a second), e.g. --live 150');
    return undefined;
  }
  const rate = parseOption(liveRate, o.live, '--live');
  let lateMaxSeconds: number | undefined;
  if (o.lateMax !== undefined) {
    lateMaxSeconds = parseDuration(o.lateMax, '--late-max');
    if (lateMaxSeconds < 1 || lateMaxSeconds > MAX_LATE_SECONDS) throw new UsageError(`invalid --late-max "${printable(o.lateMax)}": expected a duration from 1s to 365d`);
  }
  return {
    rate,
    lateFraction: o.lateFraction === undefined ? undefined : parseOption(share, o.lateFraction, '--late-fraction'),
    lateMaxSeconds,
    pendingFraction: o.pendingFraction === undefined ? undefined : parseOption(share, o.pendingFraction, '--pending-fraction'),
    removeFraction: o.removeFraction === undefined ? undefined : parseOption(share, o.removeFraction, '--remove-fraction'),
    moveFraction: o.moveFraction === undefined ? undefined : parseOption(share, o.moveFraction, '--move-fraction'),
  };
}

/** --webhook-hosts: host names or addresses, no scheme, port or path. */
function parseHosts(list: string): string[] {
  const hosts = list.split(',').map((h) => h.trim()).filter((h) => h !== '');
  for (const h of hosts) {
    let ok = false;
    try {
      const u = new URL(`http://${h}`);
      ok = !/[/?#@\\]/.test(h) && u.port === '' && !hasControlCharacters(h);
    } catch {
      ok = false;
    }
    if (!ok) throw new UsageError(`invalid --webhook-hosts "${printable(h)}": expected host names or addresses such as hooks.example.com,192.0.2.10 (no scheme, port or path)`);
  }
  if (hosts.length === 0) throw new UsageError('--webhook-hosts is empty: name at least one host');
  return hosts;
}

export function addEmulatorCommands(program: Command, action: CommandAction): void {
  const emulator = topCommand(program, 'emulator');

  emulator
    .command('start')
    .description('Start the emulator on a loopback port and print its URL and demo keys; Ctrl-C stops it')
    .option('--port <n>', 'port to listen on (default: a free one)')
    .option('--host <host>', 'address to bind (default 127.0.0.1; loopback only unless --allow-remote)')
    .option('--allow-remote', 'let --host be an address other machines reach (the demo keys are public; webhooks go only to --webhook-hosts)')
    .option('--webhook-hosts <list>', 'comma-separated hosts webhooks are delivered to (default: any; with --allow-remote: none but these)')
    .option('--records <n>', 'records per collection and chain (default 250)')
    .option('--seed <n>', 'seed of the generated data (default 1)')
    .option('--now <time>', 'anchor of the data: records lie in the year before it (default: today, UTC midnight)')
    .option('--fault-rate <0..1>', 'share of API responses that fail on purpose, to test retries (default 0)')
    .option('--fault-kinds <list>', `comma-separated: ${FAULT_KINDS.join(',')} (default ${DEFAULT_FAULT_KINDS.join(',')})`)
    .option('--fault-seed <n>', 'seed of which responses fail (default 1)')
    .option('--latency <ms>', 'milliseconds every API request waits before it is answered, as if the API were far away (default 0)')
    .option('--rate-limit <n>', 'requests a second the API answers (bursts of as many); beyond, 429 with Retry-After (default: no limit)')
    .option('--live <rate>', 'live traffic: insert RATE records a second across the list collections (e.g. 150)')
    .option('--late-fraction <0..1>', 'with --live: share of records stamped up to --late-max in the past (default 0.2)')
    .option('--late-max <duration>', 'with --live: how late a late record can be: 90s, 10m, 2h or seconds (default 10m)')
    .option('--pending-fraction <0..1>', 'with --live: share of records that arrive pending, then turn confirmed or failed 1-5 s later (default 0.3)')
    .option('--remove-fraction <0..1>', 'with --live: share of events that remove a record added in the last --late-max instead (a dropped transaction; default 0)')
    .option('--move-fraction <0..1>', 'with --live: share of events that correct such a record\'s timestamp by up to --late-max instead (default 0)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ payrec emulator start --port 8787\n  $ PAYREC_BASE_URL=http://127.0.0.1:8787 PAYREC_API_KEY=prk_demo_bsc payrec one-time transfers\n  $ payrec emulator start --port 8787 --live 150 --late-fraction 0.3 --late-max 20m\n',
    )
    .action(
      action(async (session, cmd) => {
        const o = cmd.opts() as Record<string, string | undefined>;
        // Its keys are printed and documented, and its webhooks post wherever a caller says:
        // reachable from other machines, it is anyone's way into this one.
        const webhookHosts = o.webhookHosts === undefined ? undefined : parseHosts(o.webhookHosts);
        const host = o.host;
        const remote = host !== undefined && !isLoopback(host);
        if (remote) {
          if (!o.allowRemote) throw new UsageError(`refusing --host ${printable(host)}: the emulator listens on loopback addresses only`, 'use 127.0.0.1 (the default), or add --allow-remote to be reachable from other machines');
          const to = webhookHosts?.length ? webhookHosts.join(', ') : 'no host (give --webhook-hosts)';
          session.warn(
            `listening on ${printable(host)}: reachable from other machines, with public demo keys; anyone who reaches it reads its records, ` +
              `its request log and deliveries, and can inject faults and start live traffic (/_emulator/); its webhooks go only to ${to}`,
          );
        }
        const { runEmulatorStart } = await import('../emulator/cli-entry.js');
        await runEmulatorStart(
          {
            port: o.port === undefined ? 0 : parseOption(port, o.port, '--port'),
            host: o.host,
            records: o.records === undefined ? undefined : parseOption(count, o.records, '--records'),
            seed: o.seed === undefined ? undefined : parseOption(seed, o.seed, '--seed'),
            now: o.now === undefined ? undefined : parseTime(o.now, session.ctx.now(), '--now'),
            faults: parseFaults(o),
            latencyMs: o.latency === undefined ? undefined : parseOption(latency, o.latency, '--latency'),
            rateLimit: o.rateLimit === undefined ? undefined : parseOption(rateLimit, o.rateLimit, '--rate-limit'),
            live: parseLive(o),
            // Reachable from other machines, it posts to no host of this one's unless told.
            delivery: remote || webhookHosts ? { hosts: webhookHosts ?? [] } : undefined,
          },
          session.ctx.stdout,
          session.ctx.signal,
        );
      }),
    );

  emulator
    .command('trigger')
    .description('Fire a webhook event on a plan of a running emulator (at --base-url, with the chain\'s demo key)')
    .argument('<event>', 'event name: Subscription, Billing, BillingFailed, SubscriptionCancelled, …')
    .requiredOption('--plan-id <id>', 'plan whose webhook receives the event')
    .option('--type <product>', 'product of the event (default: the plan\'s product)')
    .addHelpText('after', '\nExamples:\n  $ payrec --base-url http://127.0.0.1:8787 emulator trigger Billing --plan-id 0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7\n')
    .action(
      action(async (session, cmd) => {
        const o = cmd.opts() as Record<string, string | undefined>;
        const name = parseOption(event, cmd.args[0], '<event>');
        const planId = parseOption(hexId, o.planId!, '--plan-id');
        const type = o.type === undefined ? undefined : parseOption(product, o.type, '--type');
        const s = await session.settings();
        if (session.flags.emulator) throw new UsageError('emulator trigger needs a running emulator: start one with payrec emulator start');
        const { triggerEvent } = await import('../emulator/cli-entry.js');
        // Without --type the emulator infers the product from the plan.
        const result = await triggerEvent(s.baseUrl, s.apiKey, { chain: s.chain, event: name, planId, ...(type ? { type } : {}) });
        session.ctx.stdout.write(terminalJson(result, 2) + '\n');
      }),
    );
}
