import { join } from 'node:path';
import type { Command } from 'commander';
import { readLockOwner } from '../../db/data-dir-lock.ts';
import { AppError } from '../../errors.ts';
import type { CliContext } from '../context.ts';
import { jsonOption, printResult } from '../output.ts';
import { assertEmbeddedDatabase } from './backup.ts';

/**
 * `portico migrate-to --database-url postgres://…`: moves the embedded deployment of the data dir into an empty
 * PostgreSQL database. The global `--database-url` (or DATABASE_URL) names the target here, never the source.
 */
export function registerMigrateToCommand(program: Command, context: CliContext): void {
  program
    .command('migrate-to')
    .description(
      'copy the embedded database of the data dir into the empty PostgreSQL database of --database-url (stop serve first)',
    )
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }, command: Command) => {
      const config = context.config(command);
      const url = config.databaseUrl;
      if (url === undefined)
        throw new AppError(
          'BAD_USER_INPUT',
          'Name the PostgreSQL database to move to: portico migrate-to --database-url postgres://user@host:5432/portico',
        );
      const owner = await readLockOwner(config.dataDir);
      if (owner)
        throw new AppError(
          'CONFLICT',
          `Process ${String(owner.pid)} serves the embedded database in ${config.dataDir}: stop it first, as what it writes after the copy would be lost.`,
        );
      await assertEmbeddedDatabase(config.dataDir);
      const { migrateTo } = await import('../../admin/migrate-to.ts');
      const source = await context.openDatabase({ ...config, databaseUrl: undefined });
      try {
        const target = await context.openDatabase(config);
        try {
          const summary = await migrateTo(source.db, target.db);
          printResult(context.io, summary, options, (s) =>
            [
              `Copied ${String(s.tables)} tables (${String(s.rows)} rows) from the embedded database in ${config.dataDir} into the PostgreSQL database, and read every table back the same.`,
              'Start Portico with DATABASE_URL set to it from now on.',
              config.s3
                ? 'Files are in the S3 bucket already: nothing to move.'
                : `Files stay in ${join(config.dataDir, 'files')}: keep PORTICO_DATA_DIR pointing there (one node), or copy that folder into an S3 bucket before running several nodes (docs/operations.md, "Moving to PostgreSQL").`,
            ].join('\n'),
          );
        } finally {
          await target.close();
        }
      } finally {
        await source.close();
      }
    });
}
