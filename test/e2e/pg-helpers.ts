import pg from 'pg';
import { prerequisite } from './helpers.js';

// The PostgreSQL server of the tests: .ci/run starts a private cluster
// (test/pg-cluster.sh) and hands its URL over in PAYREC_TEST_PG (a superuser on
// loopback, no password). Without it the PostgreSQL tests are skipped and say why; under
// CI they fail. Each test takes a schema of its own, so tests never meet.

const URL_VAR = 'PAYREC_TEST_PG';
const url = process.env[URL_VAR];
let count = 0;

const server = prerequisite(
  `a PostgreSQL server (${URL_VAR})`,
  url !== undefined && url !== '',
  `start one: url=$(bash test/pg-cluster.sh start /tmp/payrec-pg) && export ${URL_VAR}="$url" (docs/testing.md)`,
);

export const postgres = {
  url,
  prerequisite: server,
  /** The server's URL with a new schema of its own (`?schema=PREFIX_…`), and `user` instead of the superuser; without a server (under CI), the failure says what is missing. */
  freshUrl(prefix: string, user?: string): string {
    server.need();
    const u = new URL(url!);
    if (user) u.username = user;
    u.searchParams.set('schema', `${prefix}_${process.pid}_${++count}_${Math.random().toString(36).slice(2, 8)}`);
    return u.toString();
  },
  /** The schema a URL names. */
  schemaOf(withSchema: string): string {
    return new URL(withSchema).searchParams.get('schema')!;
  },
  /** Runs statements as the superuser; the rows of the last. */
  async admin(...statements: string[]): Promise<Record<string, unknown>[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      let rows: Record<string, unknown>[] = [];
      for (const s of statements) rows = (await client.query(s)).rows;
      return rows;
    } finally {
      await client.end();
    }
  },
};
