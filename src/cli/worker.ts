import type { Command } from 'commander';
import { readLockOwner } from '../db/data-dir-lock.ts';
import { AppError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import type { CliContext } from './context.ts';
import { untilStopSignal } from './context.ts';

/** `portico worker`: a webhook delivery process of its own, until SIGINT or SIGTERM. */
export function registerWorkerCommand(program: Command, context: CliContext): void {
  program
    .command('worker')
    .description(
      'deliver webhooks from the outbox until stopped; run any number of them on one PostgreSQL (serve runs one in-process unless PORTICO_WEBHOOK_WORKER=off)',
    )
    .action(async (_: unknown, command: Command) => {
      const config = context.config(command);
      const logger = createLogger(config.logLevel);
      const owner = config.databaseUrl === undefined ? await readLockOwner(config.dataDir) : undefined;
      if (owner) {
        throw new AppError(
          'CONFLICT',
          `the embedded database is served by process ${owner.pid}, which delivers webhooks itself; separate workers need PostgreSQL (DATABASE_URL)`,
        );
      }
      const opened = await context.openDatabase(config);
      // Loaded here, not with the CLI: the other commands start without the delivery modules.
      const [{ startConfiguredWebhookWorker }, { startProcessMetrics }] = await Promise.all([
        import('../worker.ts'),
        import('../process-metrics.ts'),
      ]);
      // A worker has no service port: only PORTICO_METRICS_PORT shows its metrics.
      const observed = await startProcessMetrics({ ...config, metricsToken: undefined }, opened.db);
      const worker = startConfiguredWebhookWorker(opened.db, config, logger, observed?.metrics);
      logger.info({ pid: process.pid, metrics: observed?.url }, 'webhook worker started');
      await untilStopSignal(logger, 'stopping the webhook worker');
      await worker.stop();
      await observed?.close();
      await opened.close();
    });
}
