import type { Command } from 'commander';
import { readLockOwner } from '../db/data-dir-lock.ts';
import { AppError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import type { CliContext } from './context.ts';
import { stopOnSignal, warnIfNodeUnsupported } from './context.ts';

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
      warnIfNodeUnsupported(logger);
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
      // Listed with the serving nodes (db/node-registry.ts), so that an operator sees every process.
      const { registerNode } = await import('../db/node-registry.ts');
      const { filesLocationOf } = await import('../files/shared-storage-check.ts');
      const node = await registerNode(opened.db, { kind: 'worker', ...filesLocationOf(config) });
      logger.info({ pid: process.pid, metrics: observed?.url }, 'webhook worker started');
      let closing = 'the webhook worker';
      // A worker serves nothing, so it has no readiness to drop and no delay: it finishes its batch and exits.
      await stopOnSignal(logger, {
        message: 'stopping the webhook worker once its batch is done',
        delayMs: 0,
        timeoutMs: config.shutdownTimeout * 1000,
        close: async () => {
          await node.stop();
          await worker.stop();
          closing = 'the metrics listener';
          await observed?.close();
          closing = 'the database';
          await opened.close();
        },
        closing: () => closing,
      });
    });
}
