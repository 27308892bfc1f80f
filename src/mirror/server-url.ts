import { UsageError } from '../core/runtime/errors.js';
import { isDbUrl, maskDbUrl } from '../core/runtime/secrets.js';

// A mirror on a PostgreSQL server (DESIGN.md "A team's mirror on PostgreSQL"): --db
// postgres://USER@HOST:PORT/DATABASE?schema=NAME. The URL is a secret (shown only as
// scheme and host, maskDbUrl), and it never carries a password: argv, shell history and
// config files would leak it. The password comes from PGPASSWORD, ~/.pgpass or the
// profile's stored secret, as psql's does. Checked here, before anything is sent.

export { isDbUrl };

/** The schema of the views users query, unless ?schema= names another. */
export const DEFAULT_SCHEMA = 'payrec';

/** Query parameters a mirror's URL may carry besides schema: libpq's names, passed on to the client. */
const PASSED_ON = ['sslmode', 'application_name', 'connect_timeout', 'host'] as const;

/**
 * A schema payrec can name without quoting, leaving room for its store schema beside it
 * (NAME_store, within PostgreSQL's 63 bytes).
 */
const SCHEMA = /^[a-z_][a-z0-9_]{0,56}$/;

export interface ServerUrl {
  /** The URL the client connects with: no schema parameter, never a password. */
  connection: string;
  /** Where the views users query live; the tables are in `${schema}_store`. */
  schema: string;
  /** How messages name the mirror (maskDbUrl): `postgres://HOST:PORT/****`. */
  shown: string;
}

/** Parses a mirror's database URL given as `flag` (--db, PAYREC_DB, db of profile P); bad input is a UsageError (exit 2). */
export function parseServerUrl(text: string, flag: string): ServerUrl {
  const shown = maskDbUrl(text);
  const bad = (why: string, hint?: string) => new UsageError(`invalid ${flag} ${shown}: ${why}`, hint);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw bad('not a URL', 'expected postgres://USER@HOST:PORT/DATABASE (?schema=NAME)');
  }
  if (url.password !== '' || url.searchParams.has('password')) {
    throw bad('it holds a password, and a URL is no place for one (shell history, process lists, config files)', 'give the password in PGPASSWORD or ~/.pgpass, and the URL without it');
  }
  if (url.hash !== '') throw bad('a URL of a database has no #fragment');
  let schema = DEFAULT_SCHEMA;
  for (const [key, value] of url.searchParams) {
    if (key === 'schema') schema = value;
    else if (!(PASSED_ON as readonly string[]).includes(key)) throw bad(`unknown parameter "${key.slice(0, 40)}"`, `expected schema, ${PASSED_ON.join(', ')}`);
  }
  if (!SCHEMA.test(schema)) throw bad('?schema= takes a lower-case name of letters, digits and _ (up to 57), such as payrec');
  if (url.hostname === '' && !url.searchParams.has('host')) throw bad('no host', 'expected postgres://USER@HOST:PORT/DATABASE');
  url.searchParams.delete('schema');
  return { connection: url.toString(), schema, shown };
}
