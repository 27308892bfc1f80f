import type { Context } from './context.js';

// Input on stdin that a command reads when it is there (payrec sql's query with no
// argument). A pipe or a redirected file is always read. A socket is what Node's spawn
// and execa give a child: a parent that passes input writes it at once (execa's
// `input`), but a runner may also leave it open with nothing ever coming, which a
// command reading it unasked would wait on for ever. So a socket is read when it brings
// something (or ends) within SOCKET_WAIT_MS; one that stays silent longer brings nothing.

/** How long a silent socket on stdin is given: far more than a parent takes to write what it passes at spawn. */
export const SOCKET_WAIT_MS = 2000;

/**
 * Whether stdin brings input without being asked for it: a pipe or a file does; a
 * socket does when data or its end arrives within SOCKET_WAIT_MS (one that ends empty
 * brings an empty text, as an empty pipe does); a terminal or /dev/null does not. A
 * silent socket is let go, so that it keeps no process alive.
 */
export async function stdinBringsInput(ctx: Context): Promise<boolean> {
  if (ctx.stdinIsPiped) return true;
  if (!ctx.stdinIsSocket || ctx.stdinIsTTY) return false;
  const stdin = ctx.stdin as NodeJS.ReadableStream & { readableEnded?: boolean; destroy?: () => void };
  const spoke = await new Promise<boolean>((resolve) => {
    const done = (value: boolean) => {
      clearTimeout(timer);
      stdin.off('readable', onReadable);
      ctx.signal.removeEventListener('abort', onAbort);
      resolve(value);
    };
    // 'readable' comes with the first data or with the end: either way the socket spoke.
    const onReadable = () => done(true);
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(false), SOCKET_WAIT_MS);
    stdin.on('readable', onReadable);
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
  if (!spoke) stdin.destroy?.();
  return spoke;
}
