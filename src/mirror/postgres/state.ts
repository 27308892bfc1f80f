import type { PgConnection } from './connection.js';
import { CURSOR_TABLE, META_TABLE, SCOPE_TABLE } from './layout.js';

// What the mirror knows about itself, in the schema of its views, written in the same
// transactions as the records: meta (format, layout, service, where lists begin), a
// cursor per (chain, collection, scope), the plan and strategy ids given to earlier
// syncs. Several runners share one server: a cursor never moves back (GREATEST), and a
// meta value that is already there is not written again (its row would be locked until
// the writer commits, making every other runner's batch wait for it).

export class PgState {
  private readonly meta: string;
  private readonly cursors: string;
  private readonly scopes: string;

  constructor(
    private readonly db: PgConnection,
    /** The schema of the views, quoted. */
    view: string,
  ) {
    [this.meta, this.cursors, this.scopes] = [META_TABLE, CURSOR_TABLE, SCOPE_TABLE].map((t) => `${view}.${t}`);
  }

  async readMeta(key: string): Promise<string | undefined> {
    const [row] = await this.db.rows(`SELECT value FROM ${this.meta} WHERE key = $1`, [key]);
    return row?.value ?? undefined;
  }

  async writeMeta(key: string, value: string): Promise<void> {
    if ((await this.readMeta(key)) === value) return;
    await this.db.run(`INSERT INTO ${this.meta} VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [key, value]);
  }

  async readCursor(chain: string, collection: string, scope: string): Promise<number | undefined> {
    const [row] = await this.db.rows(`SELECT cursor FROM ${this.cursors} WHERE chain = $1 AND collection = $2 AND scope = $3`, [chain, collection, scope]);
    return row ? Number(row.cursor) : undefined;
  }

  /** The cursor of (chain, collection, scope), never moving back: another runner (or a clock behind) may have gone further. */
  async writeCursor(chain: string, collection: string, scope: string, cursor: number): Promise<void> {
    await this.db.run(
      `INSERT INTO ${this.cursors} AS c VALUES ($1, $2, $3, $4, now()) ON CONFLICT (chain, collection, scope) DO UPDATE SET cursor = GREATEST(c.cursor, EXCLUDED.cursor), synced_at = EXCLUDED.synced_at`,
      [chain, collection, scope, cursor],
    );
  }

  /** Where a list's records begin in the mirror: the `from` of the sync that first read it. */
  async readSince(chain: string, collection: string, scope: string): Promise<number> {
    return Number((await this.readMeta(sinceKey(chain, collection, scope))) ?? 0);
  }

  writeSince(chain: string, collection: string, scope: string, since: number): Promise<void> {
    return this.writeMeta(sinceKey(chain, collection, scope), String(since));
  }

  async cursorRows(): Promise<{ chain: string; collection: string; scope: string; cursor: number; age: number }[]> {
    const rows = await this.db.rows(`SELECT chain, collection, scope, cursor, floor(extract(epoch FROM now() - synced_at))::BIGINT AS age FROM ${this.cursors} ORDER BY collection, chain, scope`);
    return rows.map((r) => ({ chain: r.chain!, collection: r.collection!, scope: r.scope!, cursor: Number(r.cursor), age: Number(r.age) }));
  }

  async rememberScopes(chain: string, collection: string, param: string, ids: readonly string[]): Promise<void> {
    for (const id of ids) await this.db.run(`INSERT INTO ${this.scopes} VALUES ($1, $2, $3, $4, clock_timestamp()) ON CONFLICT DO NOTHING`, [chain, collection, param, id]);
  }

  async rememberedScopes(chain: string, collection: string, param: string): Promise<string[]> {
    const rows = await this.db.rows(`SELECT id FROM ${this.scopes} WHERE chain = $1 AND collection = $2 AND param = $3 ORDER BY added_at, id`, [chain, collection, param]);
    return rows.map((r) => r.id!);
  }

  /** Forgets the cursors and remembered scopes: the next sync reads everything anew. */
  async clear(): Promise<void> {
    await this.db.run(`DELETE FROM ${this.cursors}`);
    await this.db.run(`DELETE FROM ${this.scopes}`);
  }
}

const sinceKey = (chain: string, collection: string, scope: string) => `since ${chain} ${collection} ${scope}`;
