import type { Command } from 'commander';
import { MAX_DEPTH, nestedDeeperThan } from '../core/http/json-text.js';
import { topCommand } from './tree.js';
import type { CommandAction } from '../core/runtime/action.js';
import { UsageError } from '../core/runtime/errors.js';
import type { ApiRequest } from '../core/http/client.js';
import { optionSchemas, parseOption } from '../core/runtime/options.js';
import { paginate } from '../core/lists/paginate.js';
import { envelope } from '../registry/schemas.js';
import { formatRow } from '../core/output/formats.js';
import { hasControlCharacters, printable, terminalJson } from '../core/output/sanitize.js';
import { MalformedResponseError } from '../core/runtime/errors.js';
import { NO_CONTROL_CHARACTERS } from '../registry/validators.js';

// `payrec api PATH`: an authenticated request to any path under /v1/<chain>/, for
// endpoints payrec has no command for yet (like `gh api`).

const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;

export function checkApiPath(raw: string): string {
  const path = '/' + raw.replace(/^\/+/, '');
  const bad = (why: string) => new UsageError(`invalid PATH "${printable(raw)}": ${why}`);
  if (path.length > 2048) throw bad('expected at most 2048 characters');
  if (path.includes(' ') || hasControlCharacters(path)) throw bad('expected no spaces or control characters');
  if (path.includes('?') || path.includes('#')) throw bad('put query parameters in --query k=v');
  // `..;` is `..` to servers that cut path parameters (Tomcat, Spring), `%5c` a backslash to those that decode it.
  if (path.split('/').some((seg) => /^\.\.?(;|$)/.test(seg)) || /%2e|%2f|%5c/i.test(path)) throw bad('expected no . or .. segments and no encoded slashes (nor ..; or %5C)');
  if (path.includes('//')) throw bad('expected no empty segments');
  // URL parsers read a backslash as a slash (and then `..` as a step up).
  if (path.includes('\\')) throw bad('expected / between segments, not \\');
  if (/^\/v1\//.test(path)) throw bad('give the path below /v1/<chain>/, e.g. one-time/transfers');
  return path;
}

function parseQuery(pairs: string[]): Record<string, string> {
  const query: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`invalid --query "${printable(pair)}": expected key=value`);
    const [k, v] = [pair.slice(0, eq), pair.slice(eq + 1)];
    if (hasControlCharacters(pair)) throw new UsageError(`invalid --query "${printable(pair)}": ${NO_CONTROL_CHARACTERS}`);
    query[k] = v;
  }
  return query;
}

function parseBody(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new UsageError('invalid --body: expected JSON, e.g. \'{"webhook":"https://…"}\'');
  }
  if (nestedDeeperThan(body, MAX_DEPTH)) throw new UsageError(`invalid --body: nested more than ${MAX_DEPTH} levels deep`);
  const where = controlCharacterAt(body, '');
  if (where !== undefined) throw new UsageError(`invalid --body: the string at ${where ? `"${printable(where)}"` : 'the top level'}: ${NO_CONTROL_CHARACTERS}`);
  return body;
}

/** The dotted path of the first string (key or value) in `value` that holds a control character. */
function controlCharacterAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return hasControlCharacters(value) ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    const at = path ? `${path}.${k}` : k;
    const found = hasControlCharacters(k) ? at : controlCharacterAt(v, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function addApiCommand(program: Command, action: CommandAction): void {
  topCommand(program, 'api')
    .argument('<path>', 'path below /v1/<chain>/, e.g. one-time/transfers')
    .option('-X, --method <method>', 'GET, POST, PUT or DELETE (default GET)')
    .option('--query <k=v>', 'query parameter (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--body <json>', 'JSON request body')
    .option('--all', 'page through a list envelope and print every record in one document')
    .addHelpText(
      'after',
      '\nExamples:\n  $ payrec api one-time/transfers --query token=USDT --query limit=5\n  $ payrec api fixed-recurring/plans/0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7/webhook -X PUT --body \'{"webhook":"https://shop.example/hook"}\'\n  $ payrec api dollar-cost-average/executions --all > executions.json\n',
    )
    .action(
      action(async (session, cmd) => {
        const o = cmd.opts() as { method?: string; query?: string[]; body?: string; all?: boolean };
        const method = (o.method ?? 'GET').toUpperCase() as (typeof METHODS)[number];
        if (!METHODS.includes(method)) throw new UsageError(`invalid --method "${printable(o.method!)}": expected GET, POST, PUT or DELETE`);
        const path = checkApiPath(cmd.args[0]);
        const query = parseQuery(o.query ?? []);
        const body = o.body === undefined ? undefined : parseBody(o.body);
        if (o.all && method !== 'GET') throw new UsageError('--all pages GET lists only');
        // It prints the API's JSON as it came: a csv or workbook file would hold JSON.
        if (formatRow(session.format).shape === 'rows') throw new UsageError(`payrec api prints the API's JSON: ${session.formatGivenAs} does not apply`, 'for a CSV or a workbook of a list, use its command (payrec one-time transfers -f csv)');
        const client = await session.client();
        const req: ApiRequest = { method, path, query, body };
        const target = await session.openOutput();
        const out = target.stream;
        if (!o.all) {
          out.write(terminalJson(await client.json(req), 2) + '\n');
          await target.commit();
          return;
        }
        const pageSize = query.limit !== undefined ? parseOption(optionSchemas.pageSize, query.limit, '--query limit') : 1000;
        const start = query.offset !== undefined ? parseOption(optionSchemas.offset, query.offset, '--query offset') : 0;
        // Streamed as one envelope-shaped document: {"data":[…],"total":N}, opened only
        // once the first page is in, so a failed first request leaves stdout empty.
        let total = 0;
        let opening = '{"data":[\n';
        for await (const page of paginate(
          async ({ offset, limit }) => {
            const r = envelope.safeParse(await client.json({ ...req, query: { ...query, offset, limit } }));
            if (!r.success) throw new MalformedResponseError(`GET ${path}: --all needs a list envelope ({data, limit, offset, total})`);
            return r.data;
          },
          // As many pages at once as the client's window lets go while it finds the pace.
          { limit: Infinity, pageSize, offset: start, concurrency: client.window },
        )) {
          total = page.total;
          for (const r of page.records) {
            out.write(opening + terminalJson(r));
            opening = ',\n';
          }
        }
        out.write(opening === ',\n' ? `\n],"total":${total}}\n` : `{"data":[],"total":${total}}\n`);
        await target.commit();
      }, { output: true }),
    );
}
