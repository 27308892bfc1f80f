import { ddl, layoutStamp, schemasOf } from './layout.js';
import { quote } from './types.js';

// What a DBA runs on a team's mirror, so that the roles that use it need no more than
// they do: `payrec db init --print-sql` (the whole layout, and with --writer the rights
// a syncing role needs: read and write the tables, nothing to create), and `payrec db
// grant-reader ROLE` (a BI tool's role reads the views of the schema, today's and those
// made later; the stored tables stay out of its sight).

/** The layout of a mirror in `schema`, noted as laid out; with `writer`, that role's rights to sync it. */
export function initSql(schema: string, writer?: string): string[] {
  const s = schemasOf(schema);
  const grants = writer
    ? [
        `GRANT USAGE ON SCHEMA ${s.view}, ${s.store} TO ${quote(writer)}`,
        `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s.view}, ${s.store} TO ${quote(writer)}`,
      ]
    : [];
  return [...ddl(schema), ...layoutStamp(schema), ...grants];
}

/** Read access for `role` to the views and state of `schema`, and to what is made there later. */
export function grantReaderSql(schema: string, role: string): string[] {
  const { view } = schemasOf(schema);
  return [
    `GRANT USAGE ON SCHEMA ${view} TO ${quote(role)}`,
    `GRANT SELECT ON ALL TABLES IN SCHEMA ${view} TO ${quote(role)}`,
    `ALTER DEFAULT PRIVILEGES IN SCHEMA ${view} GRANT SELECT ON TABLES TO ${quote(role)}`,
  ];
}

