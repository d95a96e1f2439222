import { CommanderError, type Command } from 'commander';
import { readLockOwner } from '../db/data-dir-lock.ts';
import { migrationName, migrationStatus } from '../db/migrate.ts';
import type { CliContext } from './context.ts';
import { columns, jsonOption, printResult } from './output.ts';

/** A migration as `--status` prints it (what `migrationStatus` answers, as JSON). */
interface ShownMigration {
  version: number;
  name: string;
  appliedAt: string | null;
  known: boolean;
}

/** `portico migrate`: brings the schema up to date, unless a running server did so already; or shows it. */
export function registerMigrateCommand(program: Command, context: CliContext): void {
  program
    .command('migrate')
    .description('bring the database schema up to date (serve does this at start too)')
    .option('--status', 'list the applied and pending migrations, and change nothing')
    .option('--check', 'as --status, and exit with code 1 while a migration is pending (for deploy scripts)')
    .addOption(jsonOption('with --status: print the migrations as JSON'))
    .action(async (options: { status?: boolean; check?: boolean; json?: boolean }, command: Command) => {
      const config = context.config(command);
      const owner = config.databaseUrl === undefined ? await readLockOwner(config.dataDir) : undefined;
      if (options.status === true || options.check === true) {
        let migrations: ShownMigration[];
        if (owner) {
          migrations = await context.operate(command, 'migrate.status', {});
        } else {
          const opened = await context.openDatabase(config, { migrate: false });
          try {
            migrations = JSON.parse(JSON.stringify(await migrationStatus(opened.db))) as ShownMigration[];
          } finally {
            await opened.close();
          }
        }
        const pending = migrations.filter((migration) => migration.appliedAt === null);
        printResult(context.io, migrations, options, () => statusText(migrations, pending.length));
        // The exit code alone: the list above says what is pending.
        if (options.check === true && pending.length > 0) {
          throw new CommanderError(1, 'portico.migrationsPending', 'migrations are pending');
        }
        return;
      }
      if (owner) {
        context.io.out(
          `The embedded database is served by process ${owner.pid}, which migrated it at start.`,
        );
        return;
      }
      const opened = await context.openDatabase(config, { create: true });
      await opened.close();
      context.io.out(
        opened.applied.length === 0
          ? 'The schema is up to date.'
          : `Applied ${opened.applied.map(migrationName).join(', ')}.`,
      );
    });
}

/** The migrations a line each (applied ones with their time), then what is pending. */
function statusText(migrations: readonly ShownMigration[], pending: number): string {
  const lines = columns(
    migrations.map((migration) => [
      migrationName(migration),
      migration.appliedAt === null
        ? 'pending'
        : `applied ${migration.appliedAt}${migration.known ? '' : ' (by a newer Portico)'}`,
    ]),
  );
  lines.push(
    pending === 0
      ? 'The schema is up to date.'
      : `${String(pending)} pending: run "portico migrate" (see docs/operations.md, "Upgrading").`,
  );
  return lines.join('\n');
}
