import type { Command, Option } from 'commander';
import { EXIT_MEANINGS } from '../core/runtime/errors.js';
import { commandPages, GLOBAL_FLAGS_NOTE, optionRows } from './reference.js';

// The man page (man/payrec.1, installed by npm through "man" in package.json), rendered
// by walking the real command tree like the reference, so both list the same commands.

/** Variables payrec reads (config/settings.ts, session.ts, config-store.ts). */
const ENVIRONMENT: readonly [string, string][] = [
  ['PAYREC_API_KEY', 'API key; otherwise the key stored by payrec auth login for the profile.'],
  ['PAYREC_PROFILE', 'stored profile to use (--profile).'],
  ['PAYREC_CHAIN', 'chain (--chain); default bsc.'],
  ['PAYREC_BASE_URL', 'API base URL (--base-url); default https://api.8pay.network.'],
  ['PAYREC_DB', 'the mirror file of sync and sql (--db).'],
  ['PAYREC_PLANS', "fixed-recurring plan ids a job states (commas or spaces), or @FILE: a plans file, one id a line; in CI (CI set) a subscriptions or metrics gate needs them (or --short-url-plans)."],
  ['PAYREC_MIRROR_MEMORY', 'memory DuckDB may use for the mirror in sync and sql, such as 512MB (default 128MB).'],
  ['PAYREC_FORMAT', 'output format (--format).'],
  ['PAYREC_TIMEOUT', 'per-request timeout in seconds (--timeout); default 30.'],
  ['PAYREC_RETRIES', 'retries of a failed safe request (--retries); default 3.'],
  ['PAYREC_CONFIG_DIR', 'directory of the configuration file (default: the XDG config directory); payrec refuses a stored key in a file or directory other users can change.'],
  ['NO_COLOR', 'any value but the empty one turns colour off (--no-color).'],
  ['TERM', 'dumb: no colour, no box drawing, no spinner.'],
];

export function manPage(program: Command, version: string): string {
  const out: string[] = [];
  out.push(`.TH PAYREC 1 "" "payrec ${text(version)}" "User Commands"`);
  out.push('.SH NAME', `payrec \\- ${text(program.description())}`);
  out.push('.SH SYNOPSIS', '.B payrec', '[\\fIglobal flags\\fR] \\fIcommand\\fR [\\fIsubcommand\\fR] [\\fIflags\\fR] [\\fIarguments\\fR]');
  out.push(
    '.SH DESCRIPTION',
    text('Commands mirror the API\'s product segments, with short aliases (fr, vr, od, ot, w2w, sp, dca, wn). Every command has --help with its flags and examples (also below); payrec help reference prints this reference as Markdown. Add --emulator to any command to run it against the built-in emulator, with no account.'),
  );
  out.push('.SH GLOBAL FLAGS', text(GLOBAL_FLAGS_NOTE), ...options(program.options));
  out.push('.SH COMMANDS');
  for (const page of commandPages(program)) {
    out.push(`.SS "${text(page.usage)}"`, text(page.description));
    if (page.shortForm) out.push('.PP', `Short form: \\fBpayrec ${text(page.shortForm)}\\fR`);
    out.push(...page.arguments.filter((a) => a.description).flatMap((a) => ['.TP', `.I ${text(a.usage)}`, text(a.description)]));
    out.push(...options(page.options));
    out.push('.PP', text(`Inherited flags: ${page.inherited.join(', ')}`));
    // As --help lays it out: its lines and indents kept (no filling), in a block set in.
    if (page.after) out.push('.PP', '.RS 4', '.nf', text(page.after), '.fi', '.RE');
  }
  out.push('.SH ENVIRONMENT', ...ENVIRONMENT.flatMap(([name, meaning]) => ['.TP', `.B ${name}`, text(meaning)]));
  out.push('.SH EXIT STATUS', ...EXIT_MEANINGS.flatMap((e) => ['.TP', `.B ${e.code}`, text(e.meaning)]));
  out.push('.SH SEE ALSO', text('payrec help reference; payrec COMMAND --help; payrec completion bash|zsh|fish.'));
  return out.join('\n') + '\n';
}

function options(list: readonly Option[]): string[] {
  return optionRows(list).flatMap((o) => ['.TP', `.B ${text(o.flags)}`, text(o.description)]);
}

/**
 * Text as roff reads it: backslashes kept, minus signs as minus signs (so flags copy
 * right), other than ASCII as named code points (… is \[u2026]), and no line taken for a request.
 */
function text(s: string): string {
  return s
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/[^\x00-\x7f]/gu, (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`)
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}
