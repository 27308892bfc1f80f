import { UsageError } from '../runtime/errors.js';
import { printable } from './sanitize.js';

// --jq EXPR, as `gh … --jq`: jq runs over the JSON document that `-f json` would print;
// strings come out raw, other values as JSON (indented on a terminal, one per line
// otherwise). The engine is jq itself (1.7.1) compiled to WebAssembly (jq-web): real
// jq semantics without a jq binary. It is loaded only when --jq is given, so no other
// command starts slower; chosen over jq-wasm (reads its input a byte at a time:
// 9 s for 0.5 MB), jqjs (a JavaScript re-implementation that got 54 of jq's 229 manual
// examples wrong) and JMESPath (another language); see docs/lists-and-exports.md.

export interface JqFilter {
  /** The program's output for one JSON document: all of it, or an error (exit 2), never a part. */
  run(json: string, pretty: boolean): string;
}

interface JqError extends Error {
  exitCode?: number;
}

/** Loads jq and compiles `expr` without running it: a bad expression is exit 2 before any request. */
export async function compileJq(expr: string): Promise<JqFilter> {
  const { default: loading } = await import('jq-web');
  const jq = await loading;
  const call = (input: string, filter: string, flags: string[]): string => {
    // jq-web reports jq's stderr on success through console.warn (`debug`): not ours to print.
    const warn = console.warn;
    console.warn = () => {};
    try {
      return jq.raw(input, filter, flags) ?? '';
    } finally {
      console.warn = warn;
    }
  };
  try {
    // `empty | EXPR` compiles EXPR and runs nothing: no loop or error of EXPR's can start here.
    // `|` binds loosest, so no parentheses are needed, and nothing follows EXPR: a syntax error
    // cites what the user typed or "end of file", never a closing ")" of ours.
    call('null', `empty | ${expr}`, ['-n']);
  } catch (err) {
    throw new UsageError(`invalid --jq expression "${printable(expr)}": ${jqMessage(err as JqError)}`, 'see the jq manual: https://jqlang.org/manual/v1.7/');
  }
  return {
    run(json, pretty) {
      try {
        const out = call(json, expr, pretty ? ['-r'] : ['-r', '-c']);
        return out === '' ? '' : out + '\n';
      } catch (err) {
        throw new UsageError(`the --jq expression failed on the records: ${jqMessage(err as JqError)}`, 'nothing was printed; try the expression on the output of -f json');
      }
    },
  };
}

/** jq's own error lines, without jq-web's "Non-zero exit code" line or the echo of the wrapped program. */
function jqMessage(err: JqError): string {
  const lines = String(err.message).split('\n').filter((l) => l.startsWith('jq: error'));
  const text = lines.length > 0 ? lines.join('; ') : String(err.message).split('\n').slice(1).join(' ').trim() || String(err.message);
  // jq's positions count the wrapper's lines (compileJq); the expression is short enough to read whole.
  const message = text.replace(/^jq: error(?: \(at [^)]*\))?: /, '').replace(/ \(Unix shell quoting issues\?\)/, '').replace(/ at <top-level>, line \d+:?/g, '');
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}
