import type { Command } from 'commander';
import { topCommand } from './tree.js';
import type { CommandAction } from '../core/runtime/action.js';
import { UsageError } from '../core/runtime/errors.js';
import { parseOption } from '../core/runtime/options.js';
import { terminalJson } from '../core/output/sanitize.js';
import { hexId } from '../registry/validators.js';
import { z } from 'zod';
import { parseTime } from '../core/runtime/time.js';
import { DEFAULT_FAULT_KINDS, FAULT_KINDS, type FaultKind, type FaultOptions } from '../emulator/faults.js';

// `payrec emulator start|trigger`: the built-in emulator as a long-running server,
// and a way to fire webhook events at a running one.

const port = z.string().regex(/^\d+$/, 'expected a port from 0 to 65535').transform(Number).refine((n) => n <= 65535, 'expected a port from 0 to 65535');
const count = z.string().regex(/^\d+$/, 'expected a whole number').transform(Number).refine((n) => n >= 1 && n <= 5_000_000, 'expected a whole number from 1 to 5,000,000');
const seed = z.string().regex(/^\d+$/, 'expected a whole number').transform(Number);
const event = z.string().regex(/^[A-Za-z]{1,64}$/, 'expected an event name such as Billing or Payment');
const product = z.string().regex(/^[a-z][a-z-]{0,63}$/, 'expected a product such as fixed-recurring or one-time');

const rate = z.string().regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'expected a share from 0 to 1, such as 0.1').transform(Number);

function parseFaults(o: Record<string, string | undefined>): FaultOptions | undefined {
  if (o.faultRate === undefined) {
    if (o.faultKinds !== undefined || o.faultSeed !== undefined) throw new UsageError('--fault-kinds and --fault-seed go with --fault-rate');
    return undefined;
  }
  const kinds = o.faultKinds === undefined ? DEFAULT_FAULT_KINDS : (o.faultKinds.split(',') as FaultKind[]);
  const unknown = kinds.filter((k) => !FAULT_KINDS.includes(k));
  if (unknown.length) throw new UsageError(`invalid --fault-kinds "${unknown.join(',')}": expected some of ${FAULT_KINDS.join(', ')}`);
  return {
    rate: parseOption(rate, o.faultRate, '--fault-rate'),
    kinds,
    seed: o.faultSeed === undefined ? undefined : parseOption(seed, o.faultSeed, '--fault-seed'),
  };
}

export function addEmulatorCommands(program: Command, action: CommandAction): void {
  const emulator = topCommand(program, 'emulator');

  emulator
    .command('start')
    .description('Start the emulator on a loopback port and print its URL and demo keys; Ctrl-C stops it')
    .option('--port <n>', 'port to listen on (default: a free one)')
    .option('--host <host>', 'address to bind (default 127.0.0.1)')
    .option('--records <n>', 'records per collection and chain (default 250)')
    .option('--seed <n>', 'seed of the generated data (default 1)')
    .option('--now <time>', 'anchor of the data: records lie in the year before it (default: today, UTC midnight)')
    .option('--fault-rate <0..1>', 'share of API responses that fail on purpose, to test retries (default 0)')
    .option('--fault-kinds <list>', `comma-separated: ${FAULT_KINDS.join(',')} (default ${DEFAULT_FAULT_KINDS.join(',')})`)
    .option('--fault-seed <n>', 'seed of which responses fail (default 1)')
    .addHelpText('after', '\nExamples:\n  $ payrec emulator start --port 8787\n  $ PAYREC_BASE_URL=http://127.0.0.1:8787 PAYREC_API_KEY=prk_demo_bsc payrec one-time transfers\n')
    .action(
      action(async (session, cmd) => {
        const o = cmd.opts() as Record<string, string | undefined>;
        const { runEmulatorStart } = await import('../emulator/cli-entry.js');
        await runEmulatorStart(
          {
            port: o.port === undefined ? 0 : parseOption(port, o.port, '--port'),
            host: o.host,
            records: o.records === undefined ? undefined : parseOption(count, o.records, '--records'),
            seed: o.seed === undefined ? undefined : parseOption(seed, o.seed, '--seed'),
            now: o.now === undefined ? undefined : parseTime(o.now, session.ctx.now(), '--now'),
            faults: parseFaults(o),
          },
          session.ctx.stdout,
          session.ctx.signal,
        );
      }),
    );

  emulator
    .command('trigger')
    .description('Fire a webhook event on a plan of a running emulator (at --base-url)')
    .argument('<event>', 'event name: Subscription, Billing, BillingFailed, SubscriptionCancelled, …')
    .requiredOption('--plan-id <id>', 'plan whose webhook receives the event')
    .option('--type <product>', 'product of the event (default: the plan\'s product)')
    .addHelpText('after', '\nExamples:\n  $ payrec --base-url http://127.0.0.1:8787 emulator trigger Billing --plan-id 0x57b2…6bf7\n')
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
        const result = await triggerEvent(s.baseUrl, { chain: s.chain, event: name, planId, ...(type ? { type } : {}) });
        session.ctx.stdout.write(terminalJson(result, 2) + '\n');
      }),
    );
}
