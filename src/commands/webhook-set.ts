import type { Command } from 'commander';
import type { CommandAction } from '../core/runtime/action.js';
import { UsageError } from '../core/runtime/errors.js';
import { printable, terminalJson } from '../core/output/sanitize.js';
import { hexId, httpUrl } from '../registry/validators.js';
import { whereIdsComeFrom } from './id-hints.js';
import { commandAt, topCommand } from './tree.js';

// `fixed-recurring webhook set --plan-id ID URL`: hand-written because it has a body.

export function addWebhookSetCommand(program: Command, action: CommandAction): void {
  commandAt(topCommand(program, 'fixed-recurring'), ['webhook'])
    .command('set')
    .description('Set the URL that receives the notifications of a plan')
    .argument('<url>', 'http(s) URL of your receiver')
    .option('--plan-id <id>', 'plan id (0x + 64 hex)')
    .addHelpText('after', '\nExamples:\n  $ payrec fixed-recurring webhook set --plan-id 0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7 https://shop.example/hooks/payrec\n')
    .action(
      action(async (session, cmd) => {
        const planId = cmd.opts().planId as string | undefined;
        if (planId === undefined) throw new UsageError('give --plan-id', whereIdsComeFrom('fixed-recurring', ['planId']));
        const url = cmd.args[0];
        const p = hexId.safeParse(planId);
        if (!p.success) throw new UsageError(`invalid --plan-id "${printable(planId)}": ${p.error.issues[0].message}`);
        const u = httpUrl.safeParse(url);
        if (!u.success) throw new UsageError(`invalid <url> "${printable(url)}": ${u.error.issues[0].message}`);
        const client = await session.client();
        const body = await client.json({ method: 'PUT', path: `/fixed-recurring/plans/${planId}/webhook`, body: { webhook: url } });
        session.wrote();
        if (session.format === 'json' || session.format === 'jsonl') session.ctx.stdout.write(terminalJson(body ?? { webhook: url }) + '\n');
        else if (!session.quiet) session.ctx.stderr.write(`Webhook of plan ${planId} set to ${url}\n`);
      }),
    );
}
