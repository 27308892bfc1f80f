import type { Command } from 'commander';
import type { CommandAction } from '../core/runtime/action.js';
import { UsageError } from '../core/runtime/errors.js';
import type { Session } from '../core/runtime/session.js';
import { mirrorLocation, type MirrorLocation } from '../mirror/location.js';
import { adminSql, runAdminSql, type AdminScript } from '../mirror/open.js';
import { topCommand } from './tree.js';

// `payrec db init` and `payrec db grant-reader ROLE`: what a DBA does once for a team's
// mirror on PostgreSQL (docs/team-mirror.md). With --print-sql the statements are
// printed for the DBA to read and run (psql -f), and nothing is sent: then the roles that
// sync need no right to create anything, and a BI tool's role reads only the views.

interface DbFlags {
  db?: string;
  printSql?: boolean;
  writer?: string;
}

const DB_FLAG = '--db <url>';
const DB_HELP = "the mirror's PostgreSQL server: postgres://USER@HOST:PORT/DATABASE?schema=NAME (env PAYREC_DB; no password in it: PGPASSWORD or ~/.pgpass)";

export function addDbCommands(program: Command, action: CommandAction): void {
  const db = topCommand(program, 'db');
  db.command('init')
    .description("Lay out a team's mirror on PostgreSQL (schemas, tables, views); --print-sql prints the DDL for a DBA instead")
    .option(DB_FLAG, DB_HELP)
    .option('--print-sql', 'print the statements (for psql -f), send nothing')
    .option('--writer <role>', 'also grant ROLE what payrec sync needs (read and write the tables; nothing to create)')
    .addHelpText(
      'after',
      "\nExamples:\n  $ payrec db init --db postgres://dba@db.internal/finance --print-sql --writer payrec_sync > payrec.sql\n  $ psql -f payrec.sql postgres://dba@db.internal/finance\n  $ payrec db init --db postgres://dba@db.internal/finance?schema=payrec_test\n",
    )
    .action(action((session, cmd) => run(session, cmd.opts() as DbFlags, (flags) => ({ init: { writer: checkRole(flags.writer, '--writer') } }))));
  db.command('grant-reader')
    .description("Grant ROLE read access to a team's mirror: its views and state, and those made later (a BI tool's role)")
    .argument('<role>', 'the role to grant (it must exist)')
    .option(DB_FLAG, DB_HELP)
    .option('--print-sql', 'print the statements (for psql -f), send nothing')
    .addHelpText('after', '\nExamples:\n  $ payrec db grant-reader metabase --db postgres://dba@db.internal/finance\n  $ payrec db grant-reader metabase --db postgres://dba@db.internal/finance --print-sql\n')
    .action(action((session, cmd) => run(session, cmd.opts() as DbFlags, () => ({ grantReader: checkRole(cmd.args[0], 'ROLE')! }))));
}

/** A role's name as PostgreSQL takes it (quoted by payrec): up to 63 characters, none of them control characters. */
function checkRole(role: string | undefined, what: string): string | undefined {
  if (role === undefined) return undefined;
  if (role === '' || role.length > 63 || /[\u0000-\u001f\u007f-\u009f]/.test(role)) throw new UsageError(`invalid ${what} "${role.slice(0, 63)}": expected a role's name (up to 63 characters)`);
  return role;
}

async function run(session: Session, flags: DbFlags, script: (flags: DbFlags) => AdminScript): Promise<void> {
  const location = await serverOf(session, flags.db);
  const statements = await adminSql(location, script(flags));
  if (flags.printSql) {
    // psql would tell of every IF NOT EXISTS that found its object: quiet.
    session.ctx.stdout.write(['SET client_min_messages = warning', ...statements].map((s) => `${s};\n`).join(''));
    return;
  }
  await runAdminSql(session, location, statements);
  session.notice(`done on ${location.file}`);
}

async function serverOf(session: Session, db: string | undefined): Promise<MirrorLocation> {
  const location = await mirrorLocation(session, db);
  if (!location.server) {
    throw new UsageError(`payrec db works on a team's mirror on PostgreSQL, and ${location.file} is a mirror file (payrec sync lays it out)`, 'give --db postgres://USER@HOST:PORT/DATABASE (or PAYREC_DB)');
  }
  return location;
}
