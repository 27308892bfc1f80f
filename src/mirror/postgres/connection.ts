import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { EXIT, InterruptedError, NetworkError, PayrecError, UsageError } from '../../core/runtime/errors.js';
import { neutraliseTerminal } from '../../core/output/sanitize.js';
import type { ServerUrl } from '../server-url.js';

// One connection to the mirror's PostgreSQL server (the `pg` client, loaded only by the
// commands that open such a mirror). Its errors are said in terms of the mirror, which
// is named by its masked URL only: the URL is a secret (DESIGN.md). The password comes
// from PGPASSWORD or ~/.pgpass (the client reads both), never from the URL.

/** Types whose text payrec reads itself (query results): every value arrives as text. */
const AS_TEXT = { getTypeParser: () => (text: string) => text } as unknown as pg.CustomTypesConfig;

export type Params = readonly unknown[];

export class PgConnection {
  /** Set by cancel(): a statement cancelled from here is an interruption, not the server's doing. */
  cancelled = false;

  private constructor(
    private readonly client: pg.Client,
    private readonly config: pg.ClientConfig,
    /** How messages name the mirror. */
    readonly shown: string,
  ) {}

  static async connect(server: ServerUrl, env: NodeJS.ProcessEnv): Promise<PgConnection> {
    const config: pg.ClientConfig = {
      connectionString: server.connection,
      application_name: 'payrec',
      types: AS_TEXT,
      // The session's own environment (the client would read process.env's).
      ...(env.PGPASSWORD !== undefined ? { password: env.PGPASSWORD } : {}),
    };
    const client = new pg.Client(config);
    // A connection lost later surfaces as the failing query's error, not as an unhandled event.
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (err) {
      throw serverError(server.shown, err);
    }
    return new PgConnection(client, config, server.shown);
  }

  /** Runs one statement; its rows (every value as PostgreSQL's text). */
  async rows(sql: string, params: Params = []): Promise<Record<string, string | null>[]> {
    return (await this.query(sql, params)).rows as Record<string, string | null>[];
  }

  async run(sql: string, params: Params = []): Promise<number> {
    return (await this.query(sql, params)).rowCount ?? 0;
  }

  /**
   * One statement of the user's, by the extended protocol (one statement, never two: a
   * `COMMIT; DELETE …` cannot leave the read-only transaction), rows as arrays of text.
   */
  async userQuery(sql: string): Promise<pg.QueryArrayResult<(string | null)[]>> {
    return this.client.query({ text: sql, rowMode: 'array', queryMode: 'extended' } as pg.QueryArrayConfig);
  }

  private async query(sql: string, params: Params): Promise<pg.QueryResult> {
    try {
      return await this.client.query(sql, params as unknown[]);
    } catch (err) {
      throw serverError(this.shown, err, this.cancelled);
    }
  }

  /** Streams `lines` (COPY's text format, each ending in a newline) into `copySql` (COPY … FROM STDIN). */
  async copyIn(copySql: string, lines: readonly string[]): Promise<void> {
    const stream = this.client.query(copyStreams.from(copySql));
    try {
      await new Promise<void>((resolve, reject) => {
        stream.on('error', reject);
        stream.on('finish', resolve);
        // Chunks of about a megabyte: one write per line would cost a call each.
        let chunk: string[] = [];
        let size = 0;
        for (const line of lines) {
          chunk.push(line);
          size += line.length;
          if (size >= 1 << 20) {
            stream.write(chunk.join(''));
            chunk = [];
            size = 0;
          }
        }
        if (chunk.length > 0) stream.write(chunk.join(''));
        stream.end();
      });
    } catch (err) {
      throw serverError(this.shown, err, this.cancelled);
    }
  }

  /** Stops the statement running on this connection (Ctrl-C), from a second connection, as psql does. */
  async cancel(): Promise<void> {
    this.cancelled = true;
    const pid = (this.client as unknown as { processID?: number }).processID;
    if (pid === undefined) return;
    const other = new pg.Client(this.config);
    other.on('error', () => {});
    try {
      await other.connect();
      await other.query('SELECT pg_cancel_backend($1)', [pid]);
    } catch {
      // The connection ends with the command anyway: the server stops the statement then.
    } finally {
      await other.end().catch(() => {});
    }
  }

  close(): void {
    void this.client.end().catch(() => {});
  }
}

/** The SQLSTATE of a server's error, if it is one. */
export const sqlState = (err: unknown): string | undefined => (err as { code?: unknown })?.code as string | undefined;

/**
 * A server's error in terms of the mirror: unreachable is exit 7, refused credentials or
 * a missing right exit 3, a database that is not there exit 2; a statement payrec
 * cancelled (Ctrl-C) is an interruption, one the server timed out or another session
 * cancelled exit 6. Other errors keep their message (and SQLSTATE, for the caller).
 */
export function serverError(shown: string, err: unknown, cancelledHere = false): Error {
  if (err instanceof PayrecError) return err;
  const message = neutraliseTerminal((err instanceof Error ? err.message : String(err)).split('\n')[0]);
  const code = sqlState(err);
  if (code === undefined || /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|EAI_AGAIN|EPIPE)$/.test(code) || /Connection terminated/i.test(message)) {
    return new NetworkError(`cannot reach the mirror's server ${shown}: ${message}`, 'check the host and port of --db (or PAYREC_DB), and that the server runs');
  }
  if (code === '28P01' || code === '28000') {
    return new PayrecError(`the mirror's server ${shown} refused the login: ${message}`, EXIT.auth, 'give the password in PGPASSWORD or ~/.pgpass (never in the URL), and check the user of --db');
  }
  if (code === '42501') {
    return Object.assign(new PayrecError(`the mirror's server ${shown} refused: ${message}`, EXIT.auth, 'a DBA grants the rights: payrec db init --print-sql shows them'), { code });
  }
  if (code === '3D000') return new UsageError(`the mirror's server ${shown}: ${message}`, 'check the database of --db (or PAYREC_DB)');
  if (code === '57014') {
    // Our own Ctrl-C (cancel()) is an interruption; a timeout of the server's or the role's, or another session's pg_cancel_backend, is the server's doing.
    if (cancelledHere) return new InterruptedError();
    if (/statement timeout/.test(message)) return new PayrecError(`the mirror's server ${shown} stopped a statement at its statement_timeout: ${message}`, EXIT.server, "raise it for payrec's role (ALTER ROLE … SET statement_timeout), or run payrec again when the server is less busy");
    return new PayrecError(`the mirror's server ${shown} cancelled a statement: ${message}`, EXIT.server, 'another session stopped it (pg_cancel_backend: a DBA, a pooler or a watchdog); run payrec again, or ask who manages the server');
  }
  return Object.assign(new Error(message), { code });
}
