import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import type { CommandAction } from '../core/runtime/action.js';
import { EXIT, PayrecError, UsageError, VerificationError } from '../core/runtime/errors.js';
import { parseNotification, verifyNotification } from '../listener/notification-check.js';
import { readAll } from '../core/runtime/prompt.js';
import { neutraliseTerminal, terminalJson } from '../core/output/sanitize.js';
import { commandAt, topCommand } from './tree.js';

// `webhook-notifications verify`: a received notification checked against the stored
// one (listener/notification-check.ts, shared with `listen`).

function show(v: unknown): string {
  return v === undefined ? 'absent' : terminalJson(v);
}

export function addWebhookNotificationCommands(program: Command, action: CommandAction): void {
  const wn = topCommand(program, 'webhook-notifications');
  commandAt(wn, [])
    .command('verify')
    .description('Check a received notification against the one the service stored (exit 0 authentic, 8 not, 4 unknown id)')
    .argument('[file]', 'file with the notification JSON; - or nothing reads stdin')
    .addHelpText(
      'after',
      '\nExamples:\n  $ payrec webhook-notifications verify notification.json\n  $ pbpaste | payrec wn verify -\n\nIntegrity (sha256 of the notification without its id) is reported as "matches" or\n"cannot confirm": the exact serialisation the service hashes is not documented.\n',
    )
    .action(
      action(async (session, cmd) => {
        const file = cmd.args[0];
        const fromStdin = file === undefined || file === '-';
        if (fromStdin && session.ctx.stdinIsTTY) throw new UsageError('give a FILE, or pipe the notification into stdin');
        let text: string;
        try {
          text = fromStdin ? await readAll(session.ctx.stdin) : await readFile(file, 'utf8');
        } catch (err) {
          throw new UsageError(`cannot read ${fromStdin ? 'stdin' : `"${file}"`}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
        const received = parseNotification(text, fromStdin ? 'stdin' : `"${file}"`);
        const v = await verifyNotification(session, received);
        const out = session.ctx.stdout;
        if (session.format === 'json' || session.format === 'jsonl') {
          out.write(terminalJson(v, session.format === 'json' ? 2 : undefined) + '\n');
        } else if (v.authentic === true) {
          out.write(`authentic\nid\t${v.id}\nintegrity\t${v.integrity}\n`);
        } else if (v.authentic === false) {
          out.write(`not authentic: ${v.differences.length} field(s) differ from the stored notification\n`);
          for (const d of v.differences) out.write(`  ${neutraliseTerminal(d.field)}\treceived ${show(d.received)}\tstored ${show(d.stored)}\n`);
          out.write(`integrity\t${v.integrity}\n`);
        }
        if (v.authentic === null) {
          throw new PayrecError(`unknown notification id ${v.id}: the service has no such notification`, EXIT.notFound, 'check --chain: notifications are per chain');
        }
        if (!v.authentic) {
          const fields = neutraliseTerminal(v.differences.map((d) => d.field).join(', '));
          throw new VerificationError(`verification failed: ${fields} differ${v.differences.length === 1 ? 's' : ''} from the notification the service stored`);
        }
      }),
    );
}
