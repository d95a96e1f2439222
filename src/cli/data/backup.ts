import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { readLockOwner } from '../../db/data-dir-lock.ts';
import { cannotWrite } from '../../admin/backup.ts';
import { AppError } from '../../errors.ts';
import type { CliContext } from '../context.ts';
import { jsonOption, printResult } from '../output.ts';

/** A size for people: bytes, KB or MB. */
export function shownSize(bytes: number): string {
  if (bytes < 1024) return `${String(bytes)} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Refuses a data dir without an embedded database, rather than opening (and so creating) an empty one. */
export async function assertEmbeddedDatabase(dataDir: string): Promise<void> {
  const made = await access(join(dataDir, 'db', 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  if (!made) throw new AppError('NOT_FOUND', `There is no embedded database in ${dataDir}.`);
}

const PG_DUMP_INSTEAD =
  'with DATABASE_URL, back up with pg_dump and pg_restore (docs/operations.md, "Backup and restore")';

/** `portico backup <file>` and `portico restore <file>`: the embedded deployment, database and files, in one archive. */
export function registerBackupCommands(program: Command, context: CliContext): void {
  program
    .command('backup')
    .description('write the embedded database, its files and mail to one .tar.gz (works while serve runs)')
    .argument('<file>', 'the archive to write, e.g. portico-2026-11-26.tar.gz (a new file)')
    .addOption(jsonOption())
    .action(async (file: string, options: { json?: boolean }, command: Command) => {
      const config = context.config(command);
      if (config.databaseUrl !== undefined)
        throw new AppError(
          'BAD_USER_INPUT',
          `portico backup copies the embedded database; ${PG_DUMP_INSTEAD}.`,
        );
      const served = await readLockOwner(config.dataDir);
      if (!served) await assertEmbeddedDatabase(config.dataDir);
      const path = resolve(file);
      // Checked here too, before a database is opened for it.
      await access(dirname(path), constants.W_OK).catch((error: unknown) => {
        throw cannotWrite(path, (error as NodeJS.ErrnoException).code ?? 'EACCES', error);
      });
      const summary = await context.operate(command, 'backup', { path });
      printResult(context.io, summary, options, (s) =>
        [
          `Wrote ${s.path} (${shownSize(s.bytes)}) from ${config.dataDir}:`,
          `  database  ${String(s.tables)} tables, ${String(s.rows)} rows, schema ${String(s.schemaLevel).padStart(4, '0')}`,
          `  files     ${String(s.files)} (${shownSize(s.fileBytes)})${config.s3 ? `; the files in S3 bucket ${config.s3.bucket} are not in it: back up the bucket too` : ''}`,
          `  mail      ${String(s.mails)} messages`,
          'It holds the instance secrets and every key hash: keep it as safe as the data dir.',
        ].join('\n'),
      );
    });

  program
    .command('restore')
    .description('make the embedded deployment of the data dir from a backup (a fresh data dir, or --force)')
    .argument('<file>', 'an archive written by portico backup')
    .option('--force', 'replace the database, files and mail that the data dir holds')
    .addOption(jsonOption())
    .action(async (file: string, options: { json?: boolean; force?: boolean }, command: Command) => {
      const config = context.config(command);
      if (config.databaseUrl !== undefined)
        throw new AppError(
          'BAD_USER_INPUT',
          `portico restore makes an embedded database; ${PG_DUMP_INSTEAD}, or restore here and then run portico migrate-to.`,
        );
      const { restoreBackup } = await import('../../admin/restore.ts');
      const summary = await restoreBackup({
        dataDir: config.dataDir,
        path: resolve(file),
        force: options.force === true,
      });
      printResult(context.io, summary, options, (s) =>
        [
          `Restored ${config.dataDir} from a backup of ${s.createdAt} (Portico ${s.portico}):`,
          `  database  ${String(s.tables)} tables, ${String(s.rows)} rows, schema ${String(s.schemaLevel).padStart(4, '0')}${s.migrated.length > 0 ? `, migrated to ${String(s.migrated.at(-1)).padStart(4, '0')}` : ''}`,
          `  files     ${String(s.files)}`,
          `  mail      ${String(s.mails)} messages`,
        ].join('\n'),
      );
    });
}
