import type { Command } from 'commander';
import type { CliContext } from '../context.ts';
import { jsonOption, printResult } from '../output.ts';

/** `portico cleanup [--dry-run]`: the retention cleanup that `serve` runs every hour, now. */
export function registerCleanupCommand(program: Command, context: CliContext): void {
  program
    .command('cleanup')
    .description(
      'remove the old records that PORTICO_RETENTION no longer keeps, now (serve does it every hour)',
    )
    .option('--dry-run', 'count what would be removed, and remove nothing')
    .addOption(jsonOption())
    .action(async (options: { dryRun?: boolean; json?: boolean }, command: Command) => {
      const config = context.config(command);
      const dryRun = options.dryRun === true;
      const results = await context.operate(command, 'cleanup', { dryRun, retention: config.retention });
      printResult(context.io, results, options, (rows) => {
        const width = Math.max(...rows.map((row) => row.name.length));
        const kept = (days: number | 'never') =>
          days === 'never'
            ? 'kept for good'
            : days === 0
              ? 'once over'
              : `older than ${days <= 1 ? `${String(days * 24)} hours` : `${String(days)} days`}`;
        return [
          dryRun ? 'Would remove (a dry run: nothing was removed):' : 'Removed:',
          ...rows.map(
            (row) =>
              `  ${row.name.padEnd(width)}  ${String(row.removed).padStart(6)}  (${row.table}, ${kept(row.keptDays)})`,
          ),
        ].join('\n');
      });
    });
}
