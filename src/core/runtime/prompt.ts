import { createInterface } from 'node:readline/promises';
import type { Context } from './context.js';
import { InterruptedError } from './errors.js';

// Questions to a person at a terminal. Prompts go to stderr so stdout stays data.

export async function ask(ctx: Context, question: string): Promise<string> {
  const rl = createInterface({ input: ctx.stdin, output: ctx.stderr, terminal: true });
  try {
    return (await rl.question(question, { signal: ctx.signal })).trim();
  } catch {
    throw new InterruptedError();
  } finally {
    rl.close();
  }
}

/** Reads a secret without echoing it. */
export function askHidden(ctx: Context, question: string): Promise<string> {
  const stdin = ctx.stdin as NodeJS.ReadStream;
  ctx.stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (err?: Error) => {
      stdin.setRawMode?.(false);
      stdin.pause();
      stdin.off('data', onData);
      ctx.stderr.write('\n');
      if (err) reject(err);
      else resolve(value.trim());
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new InterruptedError()); // Ctrl-C in raw mode
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.setRawMode?.(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

/** Asks yes/no; anything but y/yes is no. */
export async function confirm(ctx: Context, question: string): Promise<boolean> {
  return /^(y|yes)$/i.test(await ask(ctx, `${question} [y/N] `));
}

export async function readAll(stream: NodeJS.ReadableStream, maxBytes = 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += b.length;
    if (size > maxBytes) throw new Error(`input larger than ${maxBytes} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}
