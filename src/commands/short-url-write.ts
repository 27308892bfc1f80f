import type { Command } from 'commander';
import type { CommandAction } from '../core/runtime/action.js';
import { MalformedResponseError, UsageError } from '../core/runtime/errors.js';
import { createWriter } from '../core/output/writer.js';
import { checkRecord } from '../core/lists/records.js';
import { printable } from '../core/output/sanitize.js';
import { endpoints } from '../registry/endpoints.js';
import type { Product } from '../registry/types.js';
import { hexId, httpUrl, shortUrlPath, text } from '../registry/validators.js';
import { commandAt, topCommand } from './tree.js';

// `short-urls create|update` (hand-written: they take a set of fields, not a path).

export interface ShortUrlFields {
  name?: string;
  planId?: string;
  callbackSuccess?: string;
  callbackError?: string;
  extra?: Record<string, string>;
}

/**
 * How the fields travel. API-SPEC.md lists them as query parameters with dotted
 * names and `params.extra` as a string, so that is what we send: extra as a
 * JSON-encoded object. Kept in this one function so the encoding can change.
 */
export function encodeShortUrlFields(f: ShortUrlFields): Record<string, string | undefined> {
  return {
    name: f.name,
    planId: f.planId,
    'params.callbackSuccess': f.callbackSuccess,
    'params.callbackError': f.callbackError,
    'params.extra': f.extra && JSON.stringify(f.extra),
  };
}

function check(schema: typeof text, value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const r = schema.safeParse(value);
  if (!r.success) throw new UsageError(`invalid ${flag} "${printable(value)}": ${r.error.issues[0].message}`);
  return r.data;
}

function parseExtra(pairs: string[] | undefined): Record<string, string> | undefined {
  if (!pairs?.length) return undefined;
  const extra: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`invalid --extra "${printable(pair)}": expected key=value with a non-empty key`);
    const key = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(key)) throw new UsageError(`invalid --extra key "${printable(key)}": expected letters, digits, _ . - (at most 64)`);
    if (value !== '') check(text, value, `--extra ${key}`); // an empty value is allowed
    extra[key] = value;
  }
  return extra;
}

interface FieldFlags {
  name?: string;
  planId?: string;
  successUrl?: string;
  errorUrl?: string;
  extra?: string[];
}

function parseFields(o: FieldFlags): ShortUrlFields {
  return {
    name: check(text, o.name, '--name'),
    planId: check(hexId, o.planId, '--plan-id'),
    callbackSuccess: check(httpUrl, o.successUrl, '--success-url'),
    callbackError: check(httpUrl, o.errorUrl, '--error-url'),
    extra: parseExtra(o.extra),
  };
}

/**
 * The extras an update sends: the API's update replaces the whole set, so the short
 * url's current extras are read first and --extra k=v sets one, --extra k= removes one.
 * (Two updates at the same moment could still overwrite each other's extras.)
 */
function mergedExtra(current: Record<string, unknown>, changes: Record<string, string>): Record<string, string> {
  let extra: unknown = (current.params as Record<string, unknown> | undefined)?.extra ?? {};
  if (typeof extra === 'string') {
    try {
      extra = JSON.parse(extra || '{}');
    } catch {
      // Not JSON: the check below names it.
    }
  }
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) {
    throw new MalformedResponseError(`the short url's params.extra is not an object (${printable(JSON.stringify(extra))}): its other extras cannot be kept`);
  }
  const merged = { ...(extra as Record<string, string>) };
  for (const [key, value] of Object.entries(changes)) {
    if (value === '') delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

function fieldOptions(cmd: Command, required: boolean): Command {
  const add = required ? cmd.requiredOption.bind(cmd) : cmd.option.bind(cmd);
  add('--name <name>', 'label of the short url');
  add('--plan-id <id>', 'plan the short url points to (0x + 64 hex)');
  return cmd
    .option('--success-url <url>', 'where to send the customer after success (http/https)')
    .option('--error-url <url>', 'where to send the customer after a failure (http/https)')
    .option('--extra <key=value>', 'extra parameter forwarded to the plan webhook (repeatable; on update it keeps the others, and key= removes one)', (v: string, prev: string[] = []) => [...prev, v]);
}

export function addShortUrlWriteCommands(program: Command, action: CommandAction, product: Product): void {
  const group = commandAt(topCommand(program, product), ['short-urls']);
  const getEndpoint = endpoints.find((e) => e.id === `${product}.short-urls.get`)!;

  const send = async (session: Parameters<Parameters<CommandAction>[0]>[0], method: 'POST' | 'PUT', path: string, fields: ShortUrlFields) => {
    const client = await session.client();
    // Opened first: an unwritable --output must fail before anything is sent.
    const target = await session.openOutput();
    const body = await client.json({ method, path, query: encodeShortUrlFields(fields) });
    session.wrote();
    const record = checkRecord(getEndpoint, body, session);
    const writer = createWriter(target.stream, session.output('single', getEndpoint.columns));
    await writer.write(record);
    await writer.end();
    await target.commit();
    if (typeof record.link === 'string') session.notice(`${method === 'POST' ? 'Created' : 'Updated'} ${record.link}`);
  };

  fieldOptions(group.command('create').description('Create a short url to a plan and print it with its full link'), true)
    .addHelpText(
      'after',
      `\nExamples:\n  $ payrec ${product} short-urls create --name "Facebook banner" --plan-id 0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7 \\\n      --success-url https://shop.example/ok --error-url https://shop.example/ko --extra banner=BR69 --extra traffic=facebook\n`,
    )
    .action(
      action(async (session, cmd) => {
        const fields = parseFields(cmd.opts() as FieldFlags);
        await send(session, 'POST', `/${product}/short-urls`, fields);
      }, { output: true }),
    );

  fieldOptions(group.command('update').description('Change the name, plan, redirect URLs or extra parameters of a short url'), false)
    .argument('<path>', 'short url code, the last segment of its link')
    .addHelpText(
      'after',
      `\nExamples:\n  $ payrec ${product} short-urls update f9yth --name "Instagram banner" --extra traffic=instagram\n  $ payrec ${product} short-urls update f9yth --extra banner=    # remove one extra\n\n--extra changes only the keys it names (the short url's other extras are read and kept).\n`,
    )
    .action(
      action(async (session, cmd) => {
        const code = check(shortUrlPath, cmd.args[0], '<path>')!;
        const fields = parseFields(cmd.opts() as FieldFlags);
        if (Object.values(fields).every((v) => v === undefined)) {
          throw new UsageError('nothing to update: give --name, --plan-id, --success-url, --error-url or --extra');
        }
        const path = `/${product}/short-urls/${encodeURIComponent(code)}`;
        if (fields.extra) {
          const client = await session.client();
          const current = checkRecord(getEndpoint, await client.json({ method: 'GET', path }), session);
          fields.extra = mergedExtra(current, fields.extra);
        }
        await send(session, 'PUT', path, fields);
      }, { output: true }),
    );
}
