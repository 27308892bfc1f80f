import { fstatSync } from 'node:fs';
import { tuneHeap } from './heap.js';

// Everything a command touches of the outside world, injected (like gh's Factory) so
// that commands never reach for process.* and one run can be redirected as a whole.

export interface Context {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdinIsTTY: boolean;
  /**
   * Something was piped or redirected into stdin (a FIFO or a file: `echo … | payrec`,
   * `< file`), as opposed to a terminal, /dev/null or a socket a runner left open,
   * which a command reading stdin unasked would wait on for ever.
   */
  stdinIsPiped: boolean;
  /**
   * stdin is a socket: what Node's spawn and execa give a child. It may bring input
   * (execa's `input`) or be left open with nothing ever coming (a runner's): see
   * stdin.ts, which waits a moment for it when input is optional.
   */
  stdinIsSocket: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width for tables and charts (80 when unknown). */
  columns: number;
  env: NodeJS.ProcessEnv;
  /** Milliseconds since the epoch; a function so tests and pinned windows agree. */
  now: () => number;
  /** Aborted on SIGINT/SIGTERM: long operations stop, clean up and exit 130. */
  signal: AbortSignal;
  /**
   * Tunes V8's heap for the command (heap.ts): a process's own setting, so only payrec's
   * own process has it; a run inside another program (a test's worker) leaves it out.
   */
  tuneHeap?: (smallHeap: boolean) => void;
}

function isPipeOrFile(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isFile();
  } catch {
    return false;
  }
}

function isSocket(fd: number): boolean {
  try {
    return fstatSync(fd).isSocket();
  } catch {
    return false;
  }
}

export function processContext(signal: AbortSignal): Context {
  const out = process.stdout as NodeJS.WriteStream;
  const err = process.stderr as NodeJS.WriteStream;
  // process.stdin is touched on first use only: Node makes its stream then (`node -e
  // process.stdin` takes 4 ms more than `node -e 0`), and only commands reading stdin need it.
  return {
    get stdin() {
      return process.stdin;
    },
    stdout: out,
    stderr: err,
    get stdinIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
    stdinIsPiped: isPipeOrFile(0),
    stdinIsSocket: isSocket(0),
    stdoutIsTTY: Boolean(out.isTTY),
    stderrIsTTY: Boolean(err.isTTY),
    columns: out.columns || err.columns || 80,
    env: process.env,
    now: () => Date.now(),
    signal,
    tuneHeap,
  };
}
