import type { Command } from 'commander';
import { readLockOwner } from '../db/data-dir-lock.ts';
import type { CliContext } from './context.ts';

/** `portico migrate`: brings the schema up to date, unless a running server did so already. */
export function registerMigrateCommand(program: Command, context: CliContext): void {
  program
    .command('migrate')
    .description('bring the database schema up to date (serve does this at start too)')
    .action(async (_: unknown, command: Command) => {
      const config = context.config(command);
      const owner = config.databaseUrl === undefined ? await readLockOwner(config.dataDir) : undefined;
      if (owner) {
        context.io.out(
          `The embedded database is served by process ${owner.pid}, which migrated it at start.`,
        );
        return;
      }
      const opened = await context.openDatabase(config);
      await opened.close();
      context.io.out(
        opened.applied.length === 0
          ? 'The schema is up to date.'
          : `Applied ${opened.applied.map((m) => `${String(m.version).padStart(4, '0')}_${m.name}`).join(', ')}.`,
      );
    });
}
