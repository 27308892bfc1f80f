import type { Command } from 'commander';
import { MAX_DEPTH, nestedDeeperThan } from '../core/http/json-text.js';
import { readFile } from 'node:fs/promises';
import type { CommandAction } from '../core/runtime/action.js';
import { ApiError, EXIT, PayrecError, UsageError, VerificationError } from '../core/runtime/errors.js';
import { differences, integrityOf, type Difference, type Integrity } from '../listener/notification-check.js';
import { readAll } from '../core/runtime/prompt.js';
import { neutraliseTerminal, terminalJson } from '../core/output/sanitize.js';
import type { Session } from '../core/runtime/session.js';
import type { ApiClient } from '../core/http/client.js';
import { notificationId } from '../registry/validators.js';
import { commandAt, topCommand } from './tree.js';

// `webhook-notifications verify` and the verification shared with `listen`.

export interface Verdict {
  id: string;
  /** true: the service stored exactly this; false: it differs; null: unknown id (null, not absent, in JSON). */
  authentic: boolean | null;
  integrity: Integrity;
  differences: Difference[];
}

/** Parses a received notification; anything unusable is the user's input error (exit 2). */
export function parseNotification(text: string, source: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${source} is not JSON`, 'give the notification body exactly as it was received');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`${source} is not a JSON object`);
  if (nestedDeeperThan(value, MAX_DEPTH)) throw new UsageError(`${source} is nested more than ${MAX_DEPTH} levels deep, unlike any notification`);
  const id = (value as { id?: unknown }).id;
  if (typeof id !== 'string' || !notificationId.safeParse(id).success) {
    throw new UsageError(`${source} has no valid "id" (expected 64 hex characters)`);
  }
  return value as Record<string, unknown>;
}

export async function verifyNotification(session: Session, received: Record<string, unknown>): Promise<Verdict> {
  const client = await session.client();
  return verdictOf(received, await fetchStored(client, received.id as string));
}

/** The notification the service stored under an id, or null when it has none. */
export async function fetchStored(client: ApiClient, id: string): Promise<Record<string, unknown> | null> {
  try {
    return (await client.json({ method: 'GET', path: `/webhook-notifications/${id}` })) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** Compares a received notification with the stored one (null: the service has none). */
export function verdictOf(received: Record<string, unknown>, stored: Record<string, unknown> | null): Verdict {
  const id = received.id as string;
  const integrity = integrityOf(received);
  if (stored === null) return { id, authentic: null, integrity, differences: [] };
  const diffs = differences(received, stored);
  return { id, authentic: diffs.length === 0, integrity, differences: diffs };
}

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
