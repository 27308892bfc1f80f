import { createHash, randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { appendFile, open, readFile, rename } from 'node:fs/promises';
import { checkKeptFile, makeKeptFolder } from '../core/runtime/trust.js';

// Which notifications the listener has already handed to the app, by id: an id once
// forwarded is never forwarded again, whatever its content (a replay with the same
// content is acknowledged, another content refused). Keyed by id and not by content, so
// no change to the body (an added field, `"__proto__": {}`) makes a forwarded
// notification new again.
//
// It survives a restart, in a small file: the sender retries for up to three days
// (API-FACTS.md), and it retries precisely when our 2xx did not reach it — the app had
// accepted the notification but the listener was stopped, or the connection dropped,
// before the answer got through. Such a retry typically arrives after the listener was
// restarted; a memory held only in the process would forward it a second time.
//
// Bounded: entries older than the sender's retry window are dropped (no retry can come
// for them) and at most MAX_ENTRIES are kept, oldest dropped first. One file per
// --forward-to URL (named by its hash, so a token in the URL is not written to disk),
// mode 0600, in the XDG state directory. Each forward appends one line; the file is
// rewritten (atomically) when it holds twice as many lines as it keeps.

export const MAX_ENTRIES = 10_000;
/** The sender's retry window (three days) and a day to spare. */
export const KEEP_MS = 4 * 24 * 3600 * 1000;

/** The memory in the trust check's messages: what it is, and what moves it. */
const STATE_KEEPER = { role: "the listener's memory of forwarded notifications", moveWith: 'XDG_STATE_HOME' };

/** The XDG state directory of payrec (LOCALAPPDATA on Windows). */
export function stateDir(env: NodeJS.ProcessEnv, platform = process.platform): string {
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(env.USERPROFILE || homedir(), 'AppData', 'Local'), 'payrec', 'State');
  return join(env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state'), 'payrec');
}

/** A digest of a notification's content that ignores key order and spacing (verification compares field by field). */
export function contentDigest(value: unknown): string {
  return createHash('sha256').update(canonical(value)).digest('hex');
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

interface Entry {
  id: string;
  digest: string;
  at: number;
}

export class ForwardedMemory {
  /** id → entry, oldest first. */
  private readonly entries = new Map<string, Entry>();
  private lines = 0;

  private constructor(
    readonly file: string,
    private readonly now: () => number,
  ) {}

  static async open(dir: string, forwardTo: string, now: () => number = Date.now): Promise<ForwardedMemory> {
    const name = `listen-forwarded-${createHash('sha256').update(forwardTo).digest('hex').slice(0, 16)}.jsonl`;
    const memory = new ForwardedMemory(join(dir, name), now);
    // Whoever could change the memory could make the listener forward an id again, or never.
    await makeKeptFolder(dir, STATE_KEEPER);
    await checkKeptFile(memory.file, STATE_KEEPER);
    let text = '';
    try {
      text = await readFile(memory.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    for (const line of text.split('\n')) {
      const e = parseEntry(line);
      if (e) memory.add(e);
      if (line) memory.lines++;
    }
    if (memory.lines > memory.entries.size) await memory.compact();
    return memory;
  }

  /** The content digest `id` was forwarded with, if it was (within the retry window). */
  forwardedDigest(id: string): string | undefined {
    const e = this.entries.get(id);
    return e !== undefined && e.at > this.now() - KEEP_MS ? e.digest : undefined;
  }

  /** Records a forward; kept in memory even when the file cannot be written (the error is the caller's to report). */
  async record(id: string, digest: string): Promise<void> {
    const e = { id, digest, at: this.now() };
    this.add(e);
    if (this.lines + 1 > 2 * MAX_ENTRIES) return this.compact();
    this.lines++;
    await appendFile(this.file, JSON.stringify(e) + '\n', { mode: 0o600 });
  }

  private add(e: Entry): void {
    // The first forward of an id is the one kept: a memory written before ids were the key
    // may hold later lines for it, with the content of a replay that got through.
    if (e.at <= this.now() - KEEP_MS || this.entries.has(e.id)) return;
    this.entries.set(e.id, e);
    for (const id of this.entries.keys()) {
      if (this.entries.size <= MAX_ENTRIES) break;
      this.entries.delete(id);
    }
  }

  /** Rewrites the file with what is kept: a temporary file renamed over it. */
  private async compact(): Promise<void> {
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const handle = await open(temp, 'w', 0o600);
    try {
      await handle.writeFile([...this.entries.values()].map((e) => JSON.stringify(e) + '\n').join(''));
    } finally {
      await handle.close();
    }
    await rename(temp, this.file);
    this.lines = this.entries.size;
  }
}

function parseEntry(line: string): Entry | undefined {
  try {
    const e = JSON.parse(line) as Entry;
    if (typeof e.id === 'string' && typeof e.digest === 'string' && typeof e.at === 'number') return { id: e.id, digest: e.digest, at: e.at };
  } catch {
    // A line cut by a crash: skipped, and gone at the next compaction.
  }
  return undefined;
}
